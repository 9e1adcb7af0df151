//===- AxeOps.cpp - Operations of the axe dialect: verifiers and helpers --===//
//
// Verifiers ask the layout library every question about layouts (slice,
// group, direct sum, equivalence) and turn its reasons into diagnostics.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/SwizzleAlgebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <numeric>

using namespace mlir;
using namespace axe;

//===----------------------------------------------------------------------===//
// Custom directives of the assembly formats
//===----------------------------------------------------------------------===//

// `at cta`, `at mesh<gpuid = 4>`
static ParseResult parseScope(OpAsmParser &parser, ScopeAttr &scope) {
  Attribute attr = ScopeAttr::parseBody(parser);
  if (!attr)
    return failure();
  scope = cast<ScopeAttr>(attr);
  return success();
}

static void printScope(OpAsmPrinter &printer, Operation *, ScopeAttr scope) {
  scope.printBody(printer);
}

// `axe.reduce max ...`
static ParseResult parseReduceKind(OpAsmParser &parser, ReduceKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(keyword);
  if (!value)
    return parser.emitError(loc) << "unknown reduction '" << keyword
                                 << "'; expected sum, max, min or prod";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReduceKind(OpAsmPrinter &printer, Operation *,
                            ReduceKindAttr kind) {
  printer << stringifyReduceKind(kind.getValue());
}

// `axe.axis_id laneid`
static ParseResult parseAxisName(OpAsmParser &parser, StringAttr &axis) {
  std::string name;
  if (parser.parseKeywordOrString(&name))
    return failure();
  axis = parser.getBuilder().getStringAttr(name);
  return success();
}

static void printAxisName(OpAsmPrinter &printer, Operation *, StringAttr axis) {
  printer.printKeywordOrString(axis.getValue());
}

// `warps [0, 4)`: a half-open range, as the brackets say.
static ParseResult parseWarpRange(OpAsmParser &parser, IntegerAttr &begin,
                                  IntegerAttr &end) {
  int64_t first, last;
  if (parser.parseLSquare() || parser.parseInteger(first) ||
      parser.parseComma() || parser.parseInteger(last) || parser.parseRParen())
    return failure();
  begin = parser.getBuilder().getI64IntegerAttr(first);
  end = parser.getBuilder().getI64IntegerAttr(last);
  return success();
}

static void printWarpRange(OpAsmPrinter &printer, Operation *,
                           IntegerAttr begin, IntegerAttr end) {
  printer << "[" << begin.getInt() << ", " << end.getInt() << ")";
}

#include "axe/Dialect/Axe/IR/AxeOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "axe/Dialect/Axe/IR/AxeOps.cpp.inc"

void AxeDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "axe/Dialect/Axe/IR/AxeOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

TargetAttr axe::getTargetAttr(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(cur))
      if (TargetAttr target = kernel.getTargetAttr())
        return target;
    if (auto target =
            cur->getAttrOfType<TargetAttr>(AxeDialect::getTargetAttrName()))
      return target;
  }
  return {};
}

static const TargetDescription *getTargetDescription(Operation *op) {
  TargetAttr target = axe::getTargetAttr(op);
  return target ? &target.getDescription() : nullptr;
}

static int64_t alignmentOf(Value value, unsigned depth);

static int64_t alignmentOf(OpFoldResult ofr, unsigned depth) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return *c == INT64_MIN ? 1 : std::abs(*c);
  return alignmentOf(cast<Value>(ofr), depth);
}

// 0 stands for "the value is 0", which is a multiple of everything; it is
// the neutral element of gcd, so sums and loop bounds combine correctly.
static int64_t alignmentOf(Value value, unsigned depth) {
  if (depth > 8)
    return 1;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    int64_t c = constant.getSExtValue();
    return c == INT64_MIN ? 1 : std::abs(c);
  }
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop =
        dyn_cast_or_null<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
    if (!loop)
      return 1;
    std::optional<Value> iv = loop.getSingleInductionVar();
    std::optional<OpFoldResult> lb = loop.getSingleLowerBound();
    std::optional<OpFoldResult> step = loop.getSingleStep();
    if (!iv || *iv != value || !lb || !step)
      return 1;
    return std::gcd(alignmentOf(*lb, depth + 1), alignmentOf(*step, depth + 1));
  }
  Operation *def = value.getDefiningOp();
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(alignmentOf(def->getOperand(0), depth + 1),
                    alignmentOf(def->getOperand(1), depth + 1));
  if (isa<arith::MulIOp>(def)) {
    int64_t a = alignmentOf(def->getOperand(0), depth + 1);
    int64_t b = alignmentOf(def->getOperand(1), depth + 1);
    int64_t product;
    // On overflow either factor alone is still a valid alignment.
    return mulOverflows(a, b, product) ? std::max(a, b) : product;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return alignmentOf(def->getOperand(0), depth + 1);
  return 1;
}

int64_t axe::getKnownAlignment(Value value) { return alignmentOf(value, 0); }

SliceStart axe::getKnownStart(OpFoldResult start) {
  if (std::optional<int64_t> c = getConstantIntValue(start))
    return SliceStart::constant(*c);
  int64_t alignment = getKnownAlignment(cast<Value>(start));
  if (alignment == 0)
    return SliceStart::constant(0);
  return SliceStart::aligned(alignment);
}

static llvm::StringRef scopeName(ScopeKind kind) {
  return stringifyScopeKind(kind);
}

// Every scope name starts with a consonant sound.
static std::string withArticle(ScopeKind kind) {
  return "a " + scopeName(kind).str();
}

LogicalResult axe::verifyScopeInContext(Operation *op, ScopeAttr scope,
                                        bool isBarrier) {
  ScopeKind kind = scope.getKind();
  if (const TargetDescription *target = getTargetDescription(op)) {
    bool needsWarps = kind == ScopeKind::Warp || kind == ScopeKind::Warpgroup;
    if (needsWarps && !target->hasWarps())
      return op->emitOpError()
             << "runs at " << scopeName(kind) << " scope, but " << target->name
             << " has no warps";
    if (kind == ScopeKind::Warpgroup && !target->hasWarpgroups())
      return op->emitOpError()
             << "runs at warpgroup scope, but " << target->name
             << " has no warpgroups (sm_90 and later do)";
    if (kind == ScopeKind::Cluster && !target->hasClusters())
      return op->emitOpError() << "runs at cluster scope, but " << target->name
                               << " has no thread-block clusters";
  }
  if (kind == ScopeKind::Cluster) {
    auto kernel = op->getParentOfType<KernelOp>();
    if (kernel && !kernel.getCluster())
      return op->emitOpError()
             << "runs at cluster scope, but the enclosing axe.kernel has no "
                "cluster; launch it with one, e.g. cluster [2]";
  }
  if (auto partition = op->getParentOfType<PartitionOp>()) {
    std::string range = "warps [" + std::to_string(partition.getWarpBegin()) +
                        ", " + std::to_string(partition.getWarpEnd()) + ")";
    // A CTA barrier inside a partition is how partitions hand work to each
    // other: every partition issues the same barriers, so all warps arrive.
    if (kind >= ScopeKind::CTA && kind != ScopeKind::Mesh &&
        !(isBarrier && kind == ScopeKind::CTA))
      return op->emitOpError()
             << "runs at " << scopeName(kind) << " scope inside axe.partition "
             << range << ": only the " << partition.getNumWarps()
             << " warps of the partition run it; use warp or warpgroup scope";
    if (kind == ScopeKind::Warpgroup) {
      const TargetDescription *target = getTargetDescription(op);
      int64_t perGroup =
          target && target->hasWarpgroups() ? target->warpsPerWarpgroup : 4;
      if (partition.getWarpBegin() % perGroup != 0 ||
          partition.getWarpEnd() % perGroup != 0)
        return op->emitOpError()
               << "runs at warpgroup scope inside axe.partition " << range
               << ", which is not made of whole warpgroups of " << perGroup
               << " warps";
    }
  }
  return success();
}

static bool isDeviceAxis(llvm::StringRef axis) {
  AxisKind kind = axisKind(axis);
  return kind == AxisKind::Device || kind == AxisKind::User;
}

std::optional<BufferOwner> axe::getBufferOwner(Value value) {
  auto type = cast<BufferType>(value.getType());
  std::optional<BufferOwner> owner = getBufferOwner(type);
  if (!owner || type.getMemorySpace() != MemorySpace::Reg)
    return owner;
  // Before dominance is verified, a chain of slices may loop back on itself.
  llvm::SmallPtrSet<Operation *, 8> visited;
  for (Value cur = value; auto slice = cur.getDefiningOp<SliceOp>();
       cur = slice.getSource()) {
    if (!visited.insert(slice).second)
      break;
    BufferType source = slice.getSource().getType();
    llvm::SmallVector<SliceStart> starts = slice.getKnownStarts();
    if (llvm::all_of(starts, [](const SliceStart &s) { return s.known; }))
      continue;
    // An unverified slice may not have a region of its source: it has no
    // run-time axes to add (its own verifier reports it).
    Result<llvm::SmallVector<std::string, 4>> axes =
        sliceStartAxes(source.getLayout().tile(), source.getShape(), starts,
                       slice.getType().getShape());
    if (!axes)
      continue;
    for (const std::string &axis : *axes) {
      std::optional<ScopeKind> scope = getAxisScope(axis);
      if (axisKind(axis) != AxisKind::Thread || !scope)
        continue;
      if (owner->axis.empty() || *scope > owner->scope)
        owner = BufferOwner{*scope, axis, /*fromSliceStart=*/true};
    }
  }
  return owner;
}

/// Whether an operator at `scope` may own `value` (see getBufferOwner).
static LogicalResult verifyOwnership(Operation *op, ScopeAttr scope,
                                     Value value, unsigned index) {
  auto type = cast<BufferType>(value.getType());
  std::optional<BufferOwner> owner = getBufferOwner(value);
  if (!owner)
    return success();
  ScopeKind kind = scope.getKind();
  auto error = [&]() {
    return op->emitOpError() << "operand #" << index << " ";
  };
  switch (type.getMemorySpace()) {
  case MemorySpace::Reg:
    if (owner->scope > kind && owner->fromSliceStart)
      return error() << "is a slice of a register buffer at a run-time start "
                        "that moves along '"
                     << owner->axis << "', which spans "
                     << withArticle(owner->scope)
                     << ": which of its threads holds the slice depends on "
                        "the start, so an operator at "
                     << scopeName(kind) << " scope cannot own it; run it at "
                     << scopeName(owner->scope) << " scope";
    if (owner->scope > kind)
      return error() << "is a register buffer distributed over '" << owner->axis
                     << "', which spans " << withArticle(owner->scope)
                     << "; an operator at " << scopeName(kind)
                     << " scope cannot own it";
    if (owner->scope < kind) {
      auto diag = error() << "is a register buffer held by "
                          << withArticle(owner->scope) << " (";
      if (owner->axis.empty())
        diag << "its layout uses no thread axis";
      else
        diag << "its widest thread axis is '" << owner->axis << "'";
      return diag << "); an operator at " << scopeName(kind)
                  << " scope cannot own it; run it at "
                  << scopeName(owner->scope) << " scope";
    }
    return success();
  case MemorySpace::Shared:
  case MemorySpace::TMem:
    if (kind > owner->scope)
      return error() << "is in " << stringifyMemorySpace(type.getMemorySpace())
                     << " memory, which belongs to "
                     << withArticle(owner->scope) << "; an operator at "
                     << scopeName(kind) << " scope cannot own it";
    return success();
  case MemorySpace::Global:
  case MemorySpace::HBM: {
    if (kind != ScopeKind::Mesh)
      return error() << "is distributed over device axis '" << owner->axis
                     << "'; only an operator at mesh scope can own it";
    Result<std::map<std::string, AxisReach>> reach =
        axisReach(type.getLayout());
    if (!reach)
      return error() << "cannot be placed: " << reach.message();
    for (const std::string &axis : getPlacementAxes(type.getLayout().tile())) {
      if (!isDeviceAxis(axis))
        continue;
      std::optional<int64_t> extent = scope.getMeshExtent(axis);
      if (!extent) {
        std::string mesh;
        llvm::raw_string_ostream os(mesh);
        os << "mesh<";
        llvm::interleaveComma(
            llvm::zip(scope.getMeshAxes(), scope.getMeshShape()), os,
            [&](auto pair) {
              os << std::get<0>(pair).getValue() << " = " << std::get<1>(pair);
            });
        os << ">";
        return error() << "is placed on device axis '" << axis << "', which "
                       << mesh << " does not have";
      }
      auto [lo, hi] = (*reach)[axis];
      if (lo < 0 || hi >= *extent)
        return error() << "places data on " << axis << " " << lo << ".." << hi
                       << ", but the mesh has extent " << *extent << " on "
                       << axis;
    }
    return success();
  }
  case MemorySpace::SBuf:
  case MemorySpace::PSum:
    return success();
  }
  return success();
}

LogicalResult axe::detail::verifyOperatorOp(Operation *op) {
  auto operator_ = cast<OperatorOpInterface>(op);
  if (std::optional<llvm::StringRef> schedule = operator_.getSchedule())
    if (schedule->empty())
      return op->emitOpError() << "has an empty schedule name";
  ScopeAttr scope = operator_.getScope();
  if (failed(verifyScopeInContext(op, scope)))
    return failure();
  for (OpOperand &operand : op->getOpOperands())
    if (isa<BufferType>(operand.get().getType()))
      if (failed(verifyOwnership(op, scope, operand.get(),
                                 operand.getOperandNumber())))
        return failure();
  return success();
}

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
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state,
                     llvm::ArrayRef<OpFoldResult> grid, int64_t threads,
                     TargetAttr target) {
  llvm::SmallVector<Value> dynamicGrid;
  llvm::SmallVector<int64_t> staticGrid;
  dispatchIndexOpFoldResults(grid, dynamicGrid, staticGrid);
  build(builder, state, dynamicGrid, builder.getDenseI64ArrayAttr(staticGrid),
        builder.getI64IntegerAttr(threads), /*cluster=*/nullptr, target);
  state.regions.front()->emplaceBlock();
}

llvm::SmallVector<OpFoldResult> KernelOp::getMixedGrid() {
  return getMixedValues(getStaticGrid(), getGrid(), getContext());
}

TargetAttr KernelOp::getEffectiveTarget() {
  return axe::getTargetAttr(getOperation());
}

int64_t KernelOp::getClusterSize() {
  int64_t size = 1;
  if (std::optional<llvm::ArrayRef<int64_t>> cluster = getCluster())
    for (int64_t dim : *cluster)
      // The verifier rejects a cluster whose size overflows; an unverified
      // op saturates rather than wraps into a small, plausible size.
      if (mulOverflows(size, dim, size))
        return INT64_MAX;
  return size;
}

/// "[4, ?, 2]" for the static grid or cluster dims of diagnostics.
static std::string dimsStr(llvm::ArrayRef<int64_t> dims) {
  std::string out = "[";
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (i > 0)
      out += ", ";
    out += ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
  }
  return out + "]";
}

LogicalResult KernelOp::verify() {
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError() << "cannot be nested in another axe.kernel";
  // A launch is host code: outside a function (directly in a module) nothing
  // runs it, and the CPU lowering would leave its loops in the module body.
  if (!(*this)->getParentOfType<FunctionOpInterface>())
    return emitOpError() << "must be inside a function";
  llvm::ArrayRef<int64_t> grid = getStaticGrid();
  if (grid.empty() || grid.size() > 3)
    return emitOpError() << "grid needs 1 to 3 dims, got " << grid.size();
  if (failed(verifyListOfOperandsOrIntegers(*this, "grid", grid.size(), grid,
                                            getGrid())))
    return failure();
  for (int64_t dim : grid)
    if (!ShapedType::isDynamic(dim) && dim < 1)
      return emitOpError() << "grid dims must be positive, got " << dim;
  // Lowerings number the CTAs of a grid and of a cluster linearly, so their
  // counts must fit in int64 (as far as the static dims tell).
  int64_t ctas = 1;
  for (int64_t dim : grid)
    if (!ShapedType::isDynamic(dim) && mulOverflows(ctas, dim, ctas))
      return emitOpError() << "grid " << dimsStr(grid)
                           << " has more CTAs than int64 can count";
  if (std::optional<llvm::ArrayRef<int64_t>> cluster = getCluster()) {
    if (cluster->empty() || cluster->size() > 3)
      return emitOpError() << "cluster needs 1 to 3 dims, got "
                           << cluster->size();
    for (int64_t dim : *cluster)
      if (dim < 1)
        return emitOpError() << "cluster dims must be positive, got " << dim;
    int64_t size = 1;
    for (int64_t dim : *cluster)
      if (mulOverflows(size, dim, size))
        return emitOpError() << "cluster " << dimsStr(*cluster)
                             << " has more CTAs than int64 can count";
  }
  const TargetDescription *target = getTargetDescription(*this);
  if (!target)
    return success();
  for (auto [i, dim] : llvm::enumerate(grid)) {
    int64_t limit = target->maxGridExtent(i);
    if (!ShapedType::isDynamic(dim) && limit > 0 && dim > limit)
      return emitOpError() << "grid dim " << i << " ("
                           << TargetDescription::gridAxisName(i) << ") is "
                           << dim << ", but " << target->name
                           << " allows at most " << limit << " CTAs along it";
  }
  if (static_cast<int64_t>(getThreads()) > target->maxThreadsPerCTA)
    return emitOpError() << "has " << getThreads() << " threads per CTA; "
                         << target->name << " allows at most "
                         << target->maxThreadsPerCTA;
  if (target->hasWarps() && getThreads() % target->warpSize != 0)
    return emitOpError() << "has " << getThreads()
                         << " threads per CTA, not a multiple of the warp "
                            "size "
                         << target->warpSize << " of " << target->name;
  if (getCluster()) {
    if (!target->hasClusters())
      return emitOpError() << "has a cluster, but " << target->name
                           << " has no thread-block clusters";
    if (getClusterSize() > target->maxClusterSize)
      return emitOpError() << "has clusters of " << getClusterSize()
                           << " CTAs; " << target->name << " allows at most "
                           << target->maxClusterSize;
  }
  return success();
}

namespace {
/// The extent of each thread axis in this kernel's launch, as far as the
/// launch and the target fix it.
std::map<std::string, int64_t> launchExtents(KernelOp kernel,
                                             const TargetDescription *target) {
  std::map<std::string, int64_t> extents;
  int64_t threads = kernel.getThreads();
  extents["tx"] = threads;
  if (target && target->hasWarps()) {
    extents["laneid"] = target->warpSize;
    extents["warpid"] = std::max<int64_t>(threads / target->warpSize, 1);
    if (target->hasWarpgroups()) {
      int64_t wgSize = target->warpgroupSize();
      extents["wgid"] = std::max<int64_t>(threads / wgSize, 1);
      extents["wid_in_wg"] = target->warpsPerWarpgroup;
      extents["tid_in_wg"] = wgSize;
    }
  }
  llvm::ArrayRef<int64_t> cluster;
  if (std::optional<llvm::ArrayRef<int64_t>> c = kernel.getCluster())
    cluster = *c;
  const char *clusterAxes[] = {"cbx", "cby", "cbz"};
  for (unsigned i = 0; i < 3; ++i)
    extents[clusterAxes[i]] = i < cluster.size() ? cluster[i] : 1;
  // No grid axes: no memory space lets a buffer place data on bx/by/bz
  // (checkLayoutForMemorySpace), so the buffer types never reach them.
  return extents;
}

std::string launchDescription(KernelOp kernel, llvm::StringRef axis,
                              int64_t extent) {
  std::string out = std::to_string(extent);
  if (axis == "warpid")
    return "the kernel has " + out + " warps (" +
           std::to_string(kernel.getThreads()) + " threads per CTA)";
  if (axis == "wgid")
    return "the kernel has " + out + " warpgroups (" +
           std::to_string(kernel.getThreads()) + " threads per CTA)";
  if (axis == "tx")
    return "the kernel has " + out + " threads per CTA";
  if (axis == "laneid")
    return "a warp has " + out + " lanes";
  if (axis == "wid_in_wg")
    return "a warpgroup has " + out + " warps";
  if (axis == "tid_in_wg")
    return "a warpgroup has " + out + " threads";
  assert((axis == "cbx" || axis == "cby" || axis == "cbz") &&
         "launchExtents holds thread and cluster axes only");
  return "the cluster has extent " + out + " on " + axis.str();
}
} // namespace

/// "CTA", "thread", ...: who a capacity is counted for, in diagnostics.
static llvm::StringRef capacityUnit(const TargetMemorySpace &space) {
  if (space.isPartitioned())
    return "partition";
  switch (space.capacityScope) {
  case CapacityScope::Device:
    return "device";
  case CapacityScope::Core:
    return "core";
  case CapacityScope::CTA:
    return "CTA";
  case CapacityScope::Thread:
    return "thread";
  }
  return "unit";
}

LogicalResult KernelOp::verifyRegions() {
  const TargetDescription *target = getTargetDescription(*this);
  std::map<std::string, int64_t> extents = launchExtents(*this, target);
  llvm::DenseSet<Type> checked;
  // Bytes each memory space's allocations take, in the unit the target
  // counts its capacity in (getFootprintBytes). Every alloc counts once: one
  // in a loop body is one buffer however often the loop runs.
  std::map<std::string, int64_t> allocated;

  // Where the layout reaches on an axis the target bounds but the launch
  // does not fix (P, TLane, TCol, Bank).
  auto checkTargetAxis = [&](Operation *owner, BufferType buffer,
                             llvm::StringRef axis, int64_t lo,
                             int64_t hi) -> LogicalResult {
    const TargetAxis *bound = target ? target->findAxis(axis) : nullptr;
    if (!bound || bound->extent == 0)
      return success();
    if (bound->cellBits == 0) {
      if (lo < 0 || hi >= bound->extent)
        return owner->emitOpError()
               << "places data on " << axis << " " << lo << ".." << hi
               << ", but " << target->name << "'s " << axis << " axis ("
               << bound->description << ") has extent " << bound->extent;
      return success();
    }
    int64_t cells = getCellsOn(buffer, *bound);
    if (lo < 0 || cells > bound->extent)
      return owner->emitOpError()
             << "places " << buffer.getElementBitWidth() << "-bit elements on "
             << axis << " " << lo << ".." << hi << ", which takes " << cells
             << " " << bound->cellBits << "-bit cells, but " << target->name
             << "'s " << axis << " axis (" << bound->description << ") has "
             << bound->extent;
    return success();
  };

  auto checkBuffer = [&](Operation *owner, Type type) -> LogicalResult {
    auto buffer = dyn_cast<BufferType>(type);
    if (!buffer || !checked.insert(buffer).second)
      return success();
    llvm::StringRef space = stringifyMemorySpace(buffer.getMemorySpace());
    Layout layout = buffer.getLayout();
    if (target && !target->hasMemorySpace(space))
      return owner->emitOpError()
             << "uses " << space << " memory, which " << target->name
             << " does not have (it has " << target->memorySpaceNames() << ")";
    Result<std::map<std::string, AxisReach>> reach = axisReach(layout);
    if (!reach)
      return owner->emitOpError() << reach.message();
    for (const std::string &axis : getPlacementAxes(layout.tile())) {
      if (isDeviceAxis(axis))
        continue;
      if (target && !target->hasAxis(axis))
        return owner->emitOpError()
               << "places data on axis '" << axis << "', which " << target->name
               << " does not have (its axes: " << target->axisNames() << ")";
      auto [lo, hi] = (*reach)[axis];
      auto extent = extents.find(axis);
      if (extent == extents.end()) {
        if (failed(checkTargetAxis(owner, buffer, axis, lo, hi)))
          return failure();
        continue;
      }
      if (lo < 0 || hi >= extent->second)
        return owner->emitOpError()
               << "places data on " << axis << " " << lo << ".." << hi
               << ", but " << launchDescription(*this, axis, extent->second);
    }
    // A banked layout addresses each bank on its free axis: it must not run
    // into the next bank.
    std::optional<PartitionAxes> axes =
        getPartitionAxes(buffer.getMemorySpace());
    const TargetMemorySpace *capacity =
        target ? target->findMemorySpace(space) : nullptr;
    if (axes && !axes->bank.empty() && capacity && capacity->banks > 0 &&
        reach->count(axes->bank.str())) {
      int64_t bytes = getFreeAxisBytes(buffer, *target);
      if (bytes > capacity->bytesPerBank())
        return owner->emitOpError()
               << "places " << bytes << " bytes on " << axes->free
               << " in each " << space << " bank, but a bank of "
               << target->name << " holds " << capacity->bytesPerBank()
               << " bytes per partition";
    }
    return success();
  };

  WalkResult result = getBody().walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkBuffer(op, arg.getType())))
            return WalkResult::interrupt();
    // Operands too: buffers may come from outside the kernel (function
    // arguments).
    for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (failed(checkBuffer(op, value.getType())))
        return WalkResult::interrupt();
    if (auto alloc = dyn_cast<AllocOp>(op); alloc && target) {
      BufferType type = alloc.getType();
      int64_t &total =
          allocated[stringifyMemorySpace(type.getMemorySpace()).str()];
      if (addOverflows(total, getFootprintBytes(type, *target), total))
        total = INT64_MAX;
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();

  if (!target)
    return success();
  for (const TargetMemorySpace &space : target->memorySpaces) {
    auto it = allocated.find(space.name.str());
    int64_t limit = space.bytesPerPartition();
    if (it == allocated.end() || limit == 0 || it->second <= limit)
      continue;
    auto diag = emitOpError() << "allocates " << it->second << " bytes of "
                              << space.name << " memory";
    std::optional<MemorySpace> kind = symbolizeMemorySpace(space.name);
    std::optional<PartitionAxes> axes =
        kind ? getPartitionAxes(*kind) : std::nullopt;
    if (axes && space.isPartitioned())
      diag << " in each of its " << space.partitions << " partitions ("
           << axes->partition << ")";
    return diag << "; " << target->name << " allows " << limit << " per "
                << capacityUnit(space);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AxisIdOp
//===----------------------------------------------------------------------===//

void AxisIdOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getAxis());
}

LogicalResult AxisIdOp::verify() {
  llvm::StringRef axis = getAxis();
  if (!isValidAxisName(axis))
    return emitOpError() << "'" << axis << "' is not a valid axis name";
  switch (axisKind(axis)) {
  case AxisKind::Memory:
    return emitOpError() << "'" << axis
                         << "' is a memory axis; axe.axis_id reads the "
                            "coordinate of a running thread or device";
  case AxisKind::Thread: {
    if (!(*this)->getParentOfType<KernelOp>())
      return emitOpError() << "thread axis '" << axis
                           << "' has a value only inside an axe.kernel";
    const TargetDescription *target = getTargetDescription(*this);
    if (target && !target->hasAxis(axis))
      return emitOpError() << target->name << " has no axis '" << axis
                           << "' (its axes: " << target->axisNames() << ")";
    return success();
  }
  case AxisKind::Device:
  case AxisKind::User:
    return success();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp, PartitionOp
//===----------------------------------------------------------------------===//

LogicalResult WarpSpecializeOp::verifyRegions() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return emitOpError() << "must be inside an axe.kernel";
  const TargetDescription *target = getTargetDescription(*this);
  if (target && !target->hasWarps())
    return emitOpError() << target->name << " has no warps to specialize";
  int64_t warpSize = target ? target->warpSize : 32;
  int64_t numWarps = kernel.getThreads() / warpSize;

  llvm::SmallVector<PartitionOp> partitions;
  for (Operation &op : getBody().front()) {
    auto partition = dyn_cast<PartitionOp>(op);
    if (!partition)
      return emitOpError() << "holds only axe.partition ops, found '"
                           << op.getName() << "'";
    partitions.push_back(partition);
  }
  if (partitions.empty())
    return emitOpError() << "needs at least one axe.partition";
  llvm::sort(partitions, [](PartitionOp a, PartitionOp b) {
    return a.getWarpBegin() < b.getWarpBegin();
  });
  for (size_t i = 1; i < partitions.size(); ++i) {
    PartitionOp prev = partitions[i - 1], next = partitions[i];
    if (prev.getWarpEnd() > next.getWarpBegin())
      return next.emitOpError()
             << "warps [" << next.getWarpBegin() << ", " << next.getWarpEnd()
             << ") overlap the partition warps [" << prev.getWarpBegin() << ", "
             << prev.getWarpEnd() << ")";
  }
  PartitionOp last = partitions.back();
  if (static_cast<int64_t>(last.getWarpEnd()) > numWarps)
    return last.emitOpError()
           << "warps [" << last.getWarpBegin() << ", " << last.getWarpEnd()
           << ") reach beyond the " << numWarps << " warps of the kernel's "
           << kernel.getThreads() << "-thread CTA";
  return success();
}

LogicalResult PartitionOp::verify() {
  if (getWarpBegin() >= getWarpEnd())
    return emitOpError() << "warp range [" << getWarpBegin() << ", "
                         << getWarpEnd() << ") is empty";
  return success();
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
  return success();
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

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
  for (int64_t offset : getStaticOffsets())
    if (!ShapedType::isDynamic(offset) && offset < 0)
      return emitOpError() << "offsets must be non-negative, got " << offset;

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
  IterList replica;
  for (const Iter &it : tile.replica())
    if (!isDeviceAxis(it.axis))
      replica.push_back(it);
  Coord offset;
  for (const auto &[axis, value] : tile.offset().entries())
    if (!isDeviceAxis(axis))
      offset.set(axis, value);
  // Dropping replicas and offset entries from a valid layout only shrinks
  // its reach, so this cannot fail.
  Result<TileLayout> local = TileLayout::create(
      IterList(tile.shard().begin(), tile.shard().end()), replica, offset);
  assert(local && "a part of a valid layout is a valid layout");
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
    Result<GroupedLayout> grouped = group(*local, shape);
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
    int64_t start = getStaticOffsets()[d];
    if (ShapedType::isDynamic(start))
      start = 0;
    // Compared without forming start + length, which could overflow.
    if (memrefTile[d] > extent || start > extent - memrefTile[d])
      return emitOpError() << "the tile spans [" << start << ", +"
                           << memrefTile[d] << ") of memref dim " << d
                           << ", beyond its extent " << extent;
  }

  IterList memrefIters;
  for (int64_t d = 0; d < rank; ++d)
    memrefIters.push_back(
        Iter{memrefTile[d], strides[d], std::string(kDefaultAxis)});
  Result<TileLayout> expected = TileLayout::create(memrefIters);
  if (!expected)
    return emitOpError() << "the memref's strides give no layout: "
                         << expected.message();

  if (!distributed) {
    FailureOr<bool> same = sameMap(*this, Layout(*local), Layout(*expected));
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
      directSumOuterOf(*local, shape, *expected, localShape);
  if (!grid)
    return emitOpError() << "result layout " << tile.str()
                         << " is not the memref's layout "
                         << canonicalize(*expected).str() << " (shape "
                         << shapeStr(localShape)
                         << ") distributed over device axes: "
                         << grid.message();
  for (const std::string &axis : getPlacementAxes(*grid))
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
// Collective operators
//===----------------------------------------------------------------------===//

static LogicalResult verifyCopy(Operation *op, BufferType source,
                                BufferType target) {
  if (source.getShape() != target.getShape())
    return op->emitOpError()
           << "copies between different shapes " << shapeStr(source.getShape())
           << " and " << shapeStr(target.getShape());
  if (source.getElementType() != target.getElementType())
    return op->emitOpError()
           << "cannot convert " << source.getElementType() << " to "
           << target.getElementType() << "; convert with axe.elementwise";
  return success();
}

LogicalResult CopyOp::verify() {
  return verifyCopy(*this, getSource().getType(), getTarget().getType());
}

LogicalResult CopyAsyncOp::verify() {
  return verifyCopy(*this, getSource().getType(), getTarget().getType());
}

LogicalResult WaitOp::verify() {
  return verifyScopeInContext(*this, getScope());
}

LogicalResult BarrierOp::verify() {
  if (getScope().getKind() == ScopeKind::Thread)
    return emitOpError() << "at thread scope synchronizes nothing";
  return verifyScopeInContext(*this, getScope(), /*isBarrier=*/true);
}

int64_t GemmOp::getM() {
  llvm::ArrayRef<int64_t> a = getA().getType().getShape();
  return getTransposeA() ? a[1] : a[0];
}

int64_t GemmOp::getK() {
  llvm::ArrayRef<int64_t> a = getA().getType().getShape();
  return getTransposeA() ? a[0] : a[1];
}

int64_t GemmOp::getN() {
  llvm::ArrayRef<int64_t> b = getB().getType().getShape();
  return getTransposeB() ? b[0] : b[1];
}

namespace {
/// A box of a buffer's logical coordinates: [begin, begin + length) per dim.
struct BufferRegion {
  Value root;
  llvm::SmallVector<int64_t> begin, length;
};
} // namespace

/// Where `value` sits in the buffer it is a slice of (following axe.slice
/// chains): that buffer and the box, or std::nullopt when a slice on the way
/// starts at a run-time value (then only its own buffer is known).
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
  return region;
}

/// Whether `a` and `b` certainly share elements: the same value, or
/// overlapping boxes of one buffer. (Disjoint boxes may still alias through
/// a layout that maps several coordinates to one place; that is allowed.)
static bool mustOverlap(Value a, Value b) {
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

LogicalResult GemmOp::verify() {
  BufferType a = getA().getType(), b = getB().getType(), c = getC().getType();
  // C is read and written while A and B are read: an accumulator that shares
  // elements with an input would change the input mid-product.
  for (auto [name, input] : {std::pair{"A", getA()}, {"B", getB()}}) {
    if (getC() == input)
      return emitOpError() << "accumulator C is also input " << name
                           << "; C += A x B must not write an input it reads";
    if (mustOverlap(getC(), input))
      return emitOpError() << "accumulator C overlaps input " << name
                           << " (both are slices of one buffer that share "
                              "elements); C += A x B must not write an input "
                              "it reads";
  }
  for (auto [name, type] : {std::pair{"A", a}, {"B", b}, {"C", c}})
    if (type.getRank() != 2)
      return emitOpError() << name << " must be a rank-2 buffer, got shape "
                           << shapeStr(type.getShape());
  int64_t kB = getTransposeB() ? b.getShape()[1] : b.getShape()[0];
  if (getK() != kB)
    return emitOpError() << "A" << (getTransposeA() ? "^T" : "") << " is "
                         << getM() << "x" << getK() << " but B"
                         << (getTransposeB() ? "^T" : "") << " is " << kB << "x"
                         << getN() << ": the K dims differ";
  if (c.getShape()[0] != getM() || c.getShape()[1] != getN())
    return emitOpError() << "C is " << shapeStr(c.getShape())
                         << " but A x B is " << getM() << "x" << getN();
  auto kindOf = [](Type t) { return isa<FloatType>(t) ? 0 : 1; };
  if (kindOf(a.getElementType()) != kindOf(b.getElementType()) ||
      kindOf(a.getElementType()) != kindOf(c.getElementType()))
    return emitOpError() << "mixes float and integer elements ("
                         << a.getElementType() << ", " << b.getElementType()
                         << " into " << c.getElementType() << ")";
  return success();
}

LogicalResult ReduceOp::verify() {
  BufferType source = getSource().getType();
  BufferType target = getTarget().getType();
  llvm::ArrayRef<int64_t> dims = getDims();
  int64_t rank = source.getRank();
  if (dims.empty())
    return emitOpError() << "needs at least one dim to reduce";
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= rank)
      return emitOpError() << "dim " << dim << " is out of range for a rank-"
                           << rank << " source";
    if (i > 0 && dims[i - 1] >= dim)
      return emitOpError() << "dims must be strictly increasing";
  }
  if (source.getElementType() != target.getElementType())
    return emitOpError() << "reduces " << source.getElementType()
                         << " elements into " << target.getElementType()
                         << " ones; the element types must agree";
  Shape kept, dropped;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    kept.push_back(reduced ? 1 : source.getShape()[d]);
    if (!reduced)
      dropped.push_back(source.getShape()[d]);
  }
  llvm::ArrayRef<int64_t> shape = target.getShape();
  if (shape != llvm::ArrayRef<int64_t>(kept) &&
      shape != llvm::ArrayRef<int64_t>(dropped))
    return emitOpError() << "target shape " << shapeStr(shape) << " is neither "
                         << shapeStr(kept) << " (reduced dims kept as 1) nor "
                         << (dropped.empty() ? "a scalar" : shapeStr(dropped))
                         << " (reduced dims dropped)";
  return success();
}

LogicalResult ElementwiseOp::verifyRegions() {
  if (getOutputs().empty())
    return emitOpError() << "needs at least one output";
  llvm::ArrayRef<int64_t> shape =
      cast<BufferType>(getOutputs().front().getType()).getShape();
  // Inputs broadcast along dims of extent 1 (a row maximum against a tile).
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    llvm::ArrayRef<int64_t> inShape =
        cast<BufferType>(value.getType()).getShape();
    bool broadcasts = inShape.size() == shape.size();
    for (size_t d = 0; broadcasts && d < shape.size(); ++d)
      broadcasts = inShape[d] == shape[d] || inShape[d] == 1;
    if (!broadcasts)
      return emitOpError() << "input #" << i << " has shape "
                           << shapeStr(inShape)
                           << ", which does not broadcast to the outputs' "
                              "shape "
                           << shapeStr(shape)
                           << " (same rank, each dim equal or 1)";
  }
  for (auto [i, value] : llvm::enumerate(getOutputs()))
    if (cast<BufferType>(value.getType()).getShape() != shape)
      return emitOpError() << "output #" << i << " has shape "
                           << shapeStr(
                                  cast<BufferType>(value.getType()).getShape())
                           << ", but output #0 has shape " << shapeStr(shape);

  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments; it needs one per input ("
                         << getInputs().size() << ")";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(body.getArguments(), getInputs()))) {
    Type expected =
        cast<BufferType>(std::get<1>(pair).getType()).getElementType();
    if (std::get<0>(pair).getType() != expected)
      return emitOpError() << "body argument #" << i << " has type "
                           << std::get<0>(pair).getType() << ", but input #"
                           << i << " has elements of type " << expected;
  }
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError() << "body must end with axe.yield";
  if (yield.getValues().size() != getOutputs().size())
    return yield.emitOpError() << "yields " << yield.getValues().size()
                               << " values; the axe.elementwise has "
                               << getOutputs().size() << " outputs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues(), getOutputs()))) {
    Type expected =
        cast<BufferType>(std::get<1>(pair).getType()).getElementType();
    if (std::get<0>(pair).getType() != expected)
      return yield.emitOpError()
             << "value #" << i << " has type " << std::get<0>(pair).getType()
             << ", but output #" << i << " has elements of type " << expected;
  }
  for (Operation &op : body.without_terminator())
    if (!isMemoryEffectFree(&op))
      return op.emitOpError()
             << "has side effects; the body of axe.elementwise must be pure "
                "scalar code";
  return success();
}
