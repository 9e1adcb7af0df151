//===- BufferOps.cpp - axe.alloc, axe.view, axe.slice ---------------------===//
//
// Verifiers of the ops that make buffers. Each asks the layout library
// whether the result layout has the map the memref or the region gives
// (slice, group, direct sum, equivalence) and turns its reasons into
// diagnostics. Also where a slice sits in the buffer it was cut from.
//
//===----------------------------------------------------------------------===//

#include "AxeOpsInternal.h"
#include "axe/Layout/Placement.h"
#include "axe/Layout/SwizzleAlgebra.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace axe;
using namespace axe::detail;

/// Whether two layouts have the same map; a diagnostic when the library
/// cannot decide.
static FailureOr<bool> sameMap(Operation *op, const Layout &a,
                               const Layout &b) {
  Result<bool> equal = equivalent(a, b);
  if (!equal)
    return op->emitOpError()
           << "cannot decide whether " << a.str() << " and " << b.str()
           << " are the same layout: " << equal.message();
  return *equal;
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

void AllocOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), stringifyMemorySpace(getType().getMemorySpace()));
}

LogicalResult AllocOp::verify() {
  MemorySpace space = getType().getMemorySpace();
  if (space == MemorySpace::Global || space == MemorySpace::HBM)
    return emitOpError() << "cannot allocate " << stringifyMemorySpace(space)
                         << " memory; take a tile of a memref with axe.view";
  // Storage holds one element per place; a layout that puts two there would
  // keep whichever was written last.
  BufferType type = getType();
  if (!type.hasLayout())
    return success();
  std::optional<SharedPlace> shared = findSharedPlace(type.getLayout().tile());
  if (!shared)
    return success();
  Shape first = unflattenIndex(shared->first, type.getShape());
  Shape second = unflattenIndex(shared->second, type.getShape());
  return emitOpError() << "lays out elements (" << ArrayRef<int64_t>(first)
                       << ") and (" << ArrayRef<int64_t>(second)
                       << ") at one place, "
                       << (shared->at.empty() ? "the origin" : shared->at.str())
                       << ", where storage holds one of them; give every "
                          "element places of its own (a replica repeats an "
                          "element, it does not share a place)";
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

/// Refuses a tile whose lowest address falls below the memref's base (a
/// negative stride the memref's offset does not make room for), when the
/// offset and every start are known.
static LogicalResult verifyAboveBase(ViewOp view, int64_t memrefOffset,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<std::optional<int64_t>> starts,
                                     ArrayRef<int64_t> tile) {
  if (ShapedType::isDynamic(memrefOffset) ||
      llvm::any_of(starts, [](auto s) { return !s; }))
    return success();
  int64_t lowest = memrefOffset;
  for (auto [d, stride] : llvm::enumerate(strides)) {
    int64_t first, last, low;
    if (mulOverflows(*starts[d], stride, first) ||
        addOverflows(*starts[d], tile[d] - 1, last) ||
        mulOverflows(last, stride, last) ||
        addOverflows(lowest, std::min(first, last), low))
      return view.emitOpError()
             << "the tile's addresses along memref dim " << d << " leave int64";
    lowest = low;
  }
  if (lowest < 0)
    return view.emitOpError()
           << "the tile reaches element " << lowest
           << " below the memref's base (offset " << memrefOffset
           << ", strides [" << strides
           << "]): a negative stride needs an offset that makes room for it";
  return success();
}

llvm::SmallVector<OpFoldResult> ViewOp::getMixedOffsets() {
  return getMixedValues(getStaticOffsets(), getOffsets(), getContext());
}

LogicalResult ViewOp::verify() {
  auto memref = cast<MemRefType>(getSource().getType());
  BufferType result = getType();
  MemorySpace space = result.getMemorySpace();
  if (space != MemorySpace::Global && space != MemorySpace::HBM)
    return emitOpError() << "produces a global or hbm buffer, not "
                         << stringifyMemorySpace(space)
                         << "; on-chip buffers come from axe.alloc";
  if (memref.getElementType() != result.getElementType())
    return emitOpError() << "buffer elements of type "
                         << result.getElementType()
                         << " differ from the memref's "
                         << memref.getElementType();
  int64_t rank = memref.getRank();
  if (static_cast<int64_t>(getStaticOffsets().size()) != rank)
    return emitOpError() << "needs one offset per memref dim (" << rank
                         << "), got " << getStaticOffsets().size();
  if (failed(verifyListOfOperandsOrIntegers(*this, "offset", rank,
                                            getStaticOffsets(), getOffsets())))
    return failure();
  if (Attribute space = memref.getMemorySpace())
    return emitOpError() << "takes a memref in the default memory space, not "
                         << space << ": a view is a tile of global memory";
  // A start that a constant gives is checked as a static one: the lowering
  // folds it into addresses, where a wrapped product would go unnoticed.
  SmallVector<std::optional<int64_t>> starts;
  for (OpFoldResult start : getMixedOffsets())
    starts.push_back(getConstantIntValue(start));
  for (std::optional<int64_t> start : starts)
    if (start && *start < 0)
      return emitOpError() << "offsets must be non-negative, got " << *start;

  llvm::SmallVector<int64_t> strides;
  int64_t memrefOffset;
  if (failed(memref.getStridesAndOffset(strides, memrefOffset)))
    return emitOpError() << "needs a memref with a strided layout";
  for (auto [dim, stride] : llvm::enumerate(strides))
    if (ShapedType::isDynamic(stride))
      return emitOpError() << "cannot derive a layout: the memref's stride "
                              "of dim "
                           << dim
                           << " is dynamic; use a memref with static strides "
                              "(e.g. memref<?x1024xf16>)";

  Layout layout = result.getLayout();
  if (layout.isSwizzled())
    return emitOpError() << "a view's layout comes from the memref's strides "
                            "and cannot be swizzled";
  const TileLayout &tile = layout.tile();

  // Replicas and offsets on device axes say which devices hold copies; they
  // do not place elements within one device's memory.
  TileLayout local = withoutDeviceCopies(tile);
  bool distributed = llvm::any_of(tile.shard(), [](const Iter &it) {
    return it.extent > 1 && it.stride != 0 && isDeviceAxis(it.axis);
  });

  llvm::ArrayRef<int64_t> shape = result.getShape();
  int64_t viewRank = shape.size();
  Shape localShape(shape.begin(), shape.end());
  if (!distributed) {
    if (viewRank != rank)
      return emitOpError() << "a view of a rank-" << rank << " memref has rank "
                           << rank << ", got rank " << viewRank
                           << " (extra dims must be placed on device axes)";
  } else {
    // The extent of one device's shard along each dim: the product of the
    // dim's iters that are not on device axes.
    Result<GroupedLayout> grouped = group(local, shape);
    if (!grouped)
      return emitOpError() << "cannot split the layout " << tile.str()
                           << " by the shape " << shapeStr(shape) << ": "
                           << grouped.message();
    for (unsigned d = 0; d < shape.size(); ++d) {
      localShape[d] = 1;
      for (const Iter &it : grouped->block(d)) {
        if (isDeviceAxis(it.axis))
          continue;
        // The block's extents multiply to shape[d]; a part of them cannot
        // overflow.
        [[maybe_unused]] bool overflow =
            mulOverflows(localShape[d], it.extent, localShape[d]);
        assert(!overflow && "a factor of a dim overflows");
      }
    }
    if (viewRank < rank)
      return emitOpError() << "a distributed view of a rank-" << rank
                           << " memref needs rank >= " << rank << ", got "
                           << viewRank;
    for (int64_t d = 0; d < viewRank - rank; ++d)
      if (localShape[d] != 1)
        return emitOpError()
               << "dim " << d << " of the view spans " << localShape[d]
               << " elements of one device's memory, but the memref has "
                  "only "
               << rank << " dims; place the leading dims on device axes";
  }

  llvm::ArrayRef<int64_t> memrefTile =
      llvm::ArrayRef(localShape).take_back(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t extent = memref.getDimSize(d);
    if (ShapedType::isDynamic(extent))
      continue;
    int64_t start = starts[d].value_or(0);
    // Compared without forming start + length, which could overflow.
    if (memrefTile[d] > extent || start > extent - memrefTile[d])
      return emitOpError() << "the tile spans [" << start << ", +"
                           << memrefTile[d] << ") of memref dim " << d
                           << ", beyond its extent " << extent;
  }

  if (failed(verifyAboveBase(*this, memrefOffset, strides, starts, memrefTile)))
    return failure();

  IterList memrefIters;
  for (int64_t d = 0; d < rank; ++d)
    memrefIters.push_back(
        Iter{memrefTile[d], strides[d], std::string(kDefaultAxis)});
  Result<TileLayout> expected = TileLayout::create(memrefIters);
  if (!expected)
    return emitOpError() << "the memref's strides give no layout: "
                         << expected.message();

  if (!distributed) {
    FailureOr<bool> same = sameMap(*this, Layout(local), Layout(*expected));
    if (failed(same))
      return failure();
    if (!*same)
      return emitOpError() << "result layout " << tile.str()
                           << " does not match the layout "
                           << canonicalize(*expected).str()
                           << " that the memref's strides give the tile";
    return success();
  }
  Result<TileLayout> grid =
      directSumOuterOf(local, shape, *expected, localShape);
  if (!grid)
    return emitOpError() << "result layout " << tile.str()
                         << " is not the memref's layout "
                         << canonicalize(*expected).str() << " (shape "
                         << shapeStr(localShape)
                         << ") distributed over device axes: "
                         << grid.message();
  for (const std::string &axis : placementAxes(*grid))
    if (!isDeviceAxis(axis))
      return emitOpError() << "result layout " << tile.str()
                           << " distributes the memref's tile over '" << axis
                           << "'; only device axes may distribute a view";
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

void SliceOp::build(OpBuilder &builder, OperationState &state,
                    BufferType resultType, Value source,
                    llvm::ArrayRef<OpFoldResult> starts) {
  llvm::SmallVector<Value> dynamicStarts;
  llvm::SmallVector<int64_t> staticStarts;
  dispatchIndexOpFoldResults(starts, dynamicStarts, staticStarts);
  build(builder, state, resultType, source, dynamicStarts,
        builder.getDenseI64ArrayAttr(staticStarts));
}

llvm::SmallVector<OpFoldResult> SliceOp::getMixedStarts() {
  return getMixedValues(getStaticStarts(), getStarts(), getContext());
}

llvm::SmallVector<SliceStart> SliceOp::getKnownStarts() {
  llvm::SmallVector<SliceStart> known;
  for (OpFoldResult start : getMixedStarts())
    known.push_back(getKnownStart(start));
  return known;
}

Result<BufferType> SliceOp::inferResultType(Value source,
                                            llvm::ArrayRef<OpFoldResult> starts,
                                            llvm::ArrayRef<int64_t> lengths) {
  auto type = dyn_cast<BufferType>(source.getType());
  if (!type)
    return fail("the source of a slice must be an axe buffer");
  if (static_cast<int64_t>(starts.size()) != type.getRank() ||
      static_cast<int64_t>(lengths.size()) != type.getRank())
    return fail("a slice of a rank-" + std::to_string(type.getRank()) +
                " buffer needs one start and one length per dim, got " +
                std::to_string(starts.size()) + " and " +
                std::to_string(lengths.size()));
  llvm::SmallVector<SliceStart> known;
  for (OpFoldResult start : starts)
    known.push_back(getKnownStart(start));
  if (!type.hasLayout())
    return type.cloneWith(lengths, LayoutAttrInterface());
  Result<Layout> layout = checkSlice(type, known, lengths);
  if (!layout)
    return layout.takeFailure();
  return type.cloneWith(lengths, getLayoutAttr(source.getContext(), *layout));
}

Result<Layout> SliceOp::computeLayout(BufferType source,
                                      llvm::ArrayRef<SliceStart> starts,
                                      llvm::ArrayRef<int64_t> lengths) {
  return slice(source.getLayout(), source.getShape(), starts, lengths);
}

/// "[0, 128) x [a multiple of 8, +32)" for diagnostics (the region is inside
/// the source, so start + length cannot overflow).
static std::string regionString(llvm::ArrayRef<SliceStart> starts,
                                llvm::ArrayRef<int64_t> lengths) {
  std::string out;
  for (auto [start, length] : llvm::zip(starts, lengths)) {
    if (!out.empty())
      out += " x ";
    if (start.known)
      out += "[" + std::to_string(start.value) + ", " +
             std::to_string(start.value + length) + ")";
    else
      out += "[a multiple of " + std::to_string(start.alignment) + ", +" +
             std::to_string(length) + ")";
  }
  return out;
}

Result<Layout> SliceOp::checkSlice(BufferType source,
                                   llvm::ArrayRef<SliceStart> starts,
                                   llvm::ArrayRef<int64_t> lengths) {
  llvm::ArrayRef<int64_t> shape = source.getShape();
  assert(starts.size() == shape.size() && lengths.size() == shape.size() &&
         "one start and one length per dim");
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t begin = starts[d].known ? starts[d].value : 0;
    // Compared without forming begin + length, which could overflow.
    if (begin < 0 || lengths[d] < 1 || lengths[d] > shape[d] ||
        begin > shape[d] - lengths[d])
      return fail("region [" + std::to_string(begin) + ", +" +
                  std::to_string(lengths[d]) + ") of dim " + std::to_string(d) +
                  " is outside the source extent " + std::to_string(shape[d]));
  }
  Result<Layout> layout = computeLayout(source, starts, lengths);
  if (!layout)
    return fail("cannot slice " + source.getLayout().str() + " (shape " +
                shapeStr(shape) + ") to the region " +
                regionString(starts, lengths) + ": " + layout.message());
  return layout;
}

LogicalResult SliceOp::verify() {
  BufferType source = getSource().getType();
  BufferType result = getType();
  if (source.getMemorySpace() != result.getMemorySpace())
    return emitOpError() << "a slice stays in "
                         << stringifyMemorySpace(source.getMemorySpace())
                         << " memory, got "
                         << stringifyMemorySpace(result.getMemorySpace());
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "a slice keeps the element type "
                         << source.getElementType() << ", got "
                         << result.getElementType();
  int64_t rank = source.getRank();
  if (result.getRank() != rank)
    return emitOpError() << "a slice of a rank-" << rank << " buffer has rank "
                         << rank << ", got " << result.getRank();
  if (static_cast<int64_t>(getStaticStarts().size()) != rank)
    return emitOpError() << "needs one start per dim (" << rank << "), got "
                         << getStaticStarts().size();
  if (failed(verifyListOfOperandsOrIntegers(*this, "start", rank,
                                            getStaticStarts(), getStarts())))
    return failure();

  // A slice of a buffer whose layout is still `?` gets its layout when the
  // source does; a slice of a laid-out buffer has the algebra's.
  if (!source.hasLayout() || !result.hasLayout()) {
    if (source.hasLayout() != result.hasLayout())
      return emitOpError() << "a slice's layout is '?' exactly when its "
                              "source's is (the source's is "
                           << (source.hasLayout() ? "known" : "'?'") << ")";
    return success();
  }
  Result<Layout> expected =
      checkSlice(source, getKnownStarts(), result.getShape());
  if (!expected)
    return emitOpError() << expected.message();
  FailureOr<bool> same = sameMap(*this, result.getLayout(), *expected);
  if (failed(same))
    return failure();
  if (!*same)
    return emitOpError() << "result layout " << result.getLayout().str()
                         << " does not match the slice layout "
                         << canonicalize(*expected).str();
  return success();
}

//===----------------------------------------------------------------------===//
// Regions of buffers
//===----------------------------------------------------------------------===//

namespace {
/// A box of a buffer's logical coordinates: [begin, begin + length) per dim.
struct BufferRegion {
  Value root;
  llvm::SmallVector<int64_t> begin, length;
};
} // namespace

/// Where `value` sits in the buffer it is a slice of (following axe.slice
/// chains), and in the memref when that buffer is a view at known starts:
/// that buffer or memref and the box, or std::nullopt when a slice on the
/// way starts at a run-time value (then only its own buffer is known).
static std::optional<BufferRegion> regionOf(Value value) {
  auto type = cast<BufferType>(value.getType());
  BufferRegion region{value, llvm::SmallVector<int64_t>(type.getRank(), 0),
                      llvm::to_vector(type.getShape())};
  // Before dominance is verified, a chain of slices may loop back on itself.
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (auto slice = region.root.getDefiningOp<SliceOp>()) {
    if (!visited.insert(slice).second)
      return std::nullopt;
    llvm::ArrayRef<int64_t> starts = slice.getStaticStarts();
    // The slice may not have been verified yet: read it defensively.
    if (starts.size() != region.begin.size() ||
        slice.getSource().getType().getRank() !=
            static_cast<int64_t>(region.begin.size()))
      return std::nullopt;
    for (auto [d, start] : llvm::enumerate(starts)) {
      if (ShapedType::isDynamic(start) ||
          addOverflows(region.begin[d], start, region.begin[d]))
        return std::nullopt;
    }
    region.root = slice.getSource();
  }
  // A view of a whole-rank tile of a memref: two views of one memref at
  // known starts overlap where their boxes of the memref do. (A view
  // distributed over devices holds a part of its box on each: left out.)
  if (auto view = region.root.getDefiningOp<ViewOp>()) {
    auto memref = dyn_cast<MemRefType>(view.getSource().getType());
    auto viewType = cast<BufferType>(view.getType());
    SmallVector<OpFoldResult> starts = view.getMixedOffsets();
    if (!memref || memref.getRank() != int64_t(region.begin.size()) ||
        starts.size() != region.begin.size() || !viewType.hasLayout() ||
        llvm::any_of(viewType.getLayout().tile().shard(), [](const Iter &it) {
          return it.extent > 1 && isDeviceAxis(it.axis);
        }))
      return region;
    SmallVector<int64_t> begin = region.begin;
    for (auto [d, start] : llvm::enumerate(starts)) {
      std::optional<int64_t> known = getConstantIntValue(start);
      if (!known || addOverflows(begin[d], *known, begin[d]))
        return region;
    }
    region.root = view.getSource();
    region.begin = std::move(begin);
  }
  return region;
}

bool axe::detail::sameElements(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<BufferRegion> ra = regionOf(a), rb = regionOf(b);
  return ra && rb && ra->root == rb->root && ra->begin == rb->begin &&
         ra->length == rb->length;
}

bool axe::detail::mustOverlap(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<BufferRegion> ra = regionOf(a), rb = regionOf(b);
  if (!ra || !rb || ra->root != rb->root)
    return false;
  for (size_t d = 0; d < ra->begin.size(); ++d) {
    int64_t endA, endB;
    if (addOverflows(ra->begin[d], ra->length[d], endA) ||
        addOverflows(rb->begin[d], rb->length[d], endB) ||
        endA <= rb->begin[d] || endB <= ra->begin[d])
      return false;
  }
  return true;
}
