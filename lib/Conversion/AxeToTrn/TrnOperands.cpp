//===- TrnOperands.cpp - axe buffers as trn tile views --------------------===//

#include "TrnOperands.h"

#include "axe/Codegen/BufferRef.h"
#include "axe/Codegen/LayoutEmitter.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Layout/Algebra.h"
#include "axe/Support/ElementBytes.h"
#include "axe/Target/Trn/Machine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace axe::trnconv {

namespace {

/// What one coordinate step on `axis` is in elements of the storage of a
/// buffer in `space`, or std::nullopt for an axis the space does not have.
struct AxisUnit {
  IterKind kind;
  int64_t elements;
};

std::optional<AxisUnit> axisUnit(StringRef axis, trn::MemorySpace space,
                                 int64_t pitch, int64_t bankElements) {
  if (space == trn::MemorySpace::HBM)
    return axis == kDefaultAxis ? std::optional(AxisUnit{IterKind::Memory, 1})
                                : std::nullopt;
  if (axis == "P")
    return AxisUnit{IterKind::Partition, pitch};
  if (axis == "F")
    return AxisUnit{IterKind::Free, 1};
  if (axis == "Bank" && space == trn::MemorySpace::PSUM)
    return AxisUnit{IterKind::Bank, bankElements};
  return std::nullopt;
}

std::optional<trn::MemorySpace> trnSpace(MemorySpace space) {
  switch (space) {
  case MemorySpace::SBuf:
    return trn::MemorySpace::SBUF;
  case MemorySpace::PSum:
    return trn::MemorySpace::PSUM;
  case MemorySpace::HBM:
    return trn::MemorySpace::HBM;
  default:
    return std::nullopt;
  }
}

Result<TileLayout> plainLayout(BufferType type) {
  Layout layout = type.getLayout();
  if (layout.effectiveSwizzle())
    return fail("its layout " + layout.tile().str() +
                " is swizzled; SBUF and PSUM have no swizzle");
  if (layout.tile().replicaCount() > 1)
    return fail("its layout " + layout.tile().str() +
                " has replicas; a trn buffer holds each element once");
  for (const Iter &it : layout.tile().shard())
    if (it.stride < 0)
      return fail("its layout " + layout.tile().str() +
                  " has a negative stride");
  return layout.tile();
}

int64_t bankElementsOf(Type t) {
  return trn::machine::kPsumBankBytes / elementBytes(t);
}

} // namespace

Result<MemRefType> getStorageType(BufferType type) {
  std::optional<trn::MemorySpace> space = trnSpace(type.getMemorySpace());
  if (!space || *space == trn::MemorySpace::HBM)
    return fail("only sbuf and psum buffers are allocated on a NeuronCore");
  Result<TileLayout> tile = plainLayout(type);
  if (!tile)
    return tile.takeFailure();
  const Coord &o = tile->offset();
  int64_t partitions = tile->span("P") + o.get("P");
  int64_t free = tile->span("F") + o.get("F");
  bool banked = tile->span("Bank") > 1 || o.get("Bank") > 0;
  if (banked) {
    int64_t bank = bankElementsOf(type.getElementType());
    if (free > bank)
      return fail("its F span (" + std::to_string(free) +
                  " elements) is more than one PSUM bank (" +
                  std::to_string(bank) + ") while it also uses Bank");
    free = (tile->span("Bank") + o.get("Bank")) * bank;
  }
  return trn::getTileType({partitions, free}, type.getElementType(), *space);
}

/// The storage of an axe.alloc: one cast of it to its tile type, made right
/// after it, which convert-axe-to-trn replaces by the trn.alloc.
static Value allocStorage(AllocOp alloc, MemRefType type) {
  Value buffer = alloc.getResult();
  for (Operation *user : buffer.getUsers())
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(user))
      if (cast->getResultTypes() == TypeRange(type))
        return cast.getResult(0);
  OpBuilder b(alloc->getContext());
  b.setInsertionPointAfter(alloc);
  return UnrealizedConversionCastOp::create(b, alloc.getLoc(), type, buffer)
      .getResult(0);
}

/// Adds `sum(values[axis] * unit(axis))` over the entries of `c`.
static Result<Value> coordOffset(OpBuilder &b, Location loc,
                                 const CoordValue &c, trn::MemorySpace space,
                                 int64_t pitch, int64_t bank, Value acc) {
  for (const auto &[axis, v] : c.entries()) {
    std::optional<AxisUnit> unit = axisUnit(axis, space, pitch, bank);
    if (!unit)
      return fail("a slice start moves it along axis " + axis);
    acc = addIndex(b, loc, acc, mulIndex(b, loc, v, unit->elements));
  }
  return acc;
}

Result<TrnOperand> analyzeOperand(Value buffer) {
  auto type = cast<BufferType>(buffer.getType());
  std::optional<trn::MemorySpace> space = trnSpace(type.getMemorySpace());
  if (!space)
    return fail("it is in " +
                stringifyMemorySpace(type.getMemorySpace()).str() +
                "; a NeuronCore has hbm, sbuf and psum");
  Result<TileLayout> tile = plainLayout(type);
  if (!tile)
    return tile.takeFailure();
  Result<BufferChain> chain = walkBufferChain(buffer);
  if (!chain)
    return chain.takeFailure();

  TrnOperand op;
  op.buffer = buffer;
  op.ref.root = chain->root;
  op.space = *space;
  op.ref.elementType = type.getElementType();
  op.ref.layout = type.getLayout();
  op.ref.shape = Shape(type.getShape());
  int64_t bank = bankElementsOf(op.ref.elementType);
  if (auto alloc = dyn_cast<AllocOp>(op.ref.root)) {
    Result<MemRefType> storage =
        getStorageType(cast<BufferType>(alloc.getResult().getType()));
    if (!storage)
      return storage.takeFailure();
    op.pitch = storage->getDimSize(1);
  } else {
    auto view = cast<ViewOp>(op.ref.root);
    if (op.space != trn::MemorySpace::HBM)
      return fail("an axe.view is in hbm on a NeuronCore");
    auto source = cast<MemRefType>(view.getSource().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(source.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return fail("the memref it views has no static strides and offset");
    op.staticOffset = offset;
    for (auto [ofr, stride] : llvm::zip(view.getMixedOffsets(), strides))
      if (std::optional<int64_t> c = getConstantIntValue(ofr))
        op.staticOffset += *c * stride;
  }
  // The static part of the layout's offset (static slice starts).
  for (const auto &[axis, v] : tile->offset().entries()) {
    std::optional<AxisUnit> unit = axisUnit(axis, op.space, op.pitch, bank);
    if (!unit)
      return fail("its layout is offset on axis " + axis);
    op.staticOffset += v * unit->elements;
  }
  // Every iter must be on an axis this memory has.
  for (const Iter &it : tile->shard()) {
    if (it.extent == 1 || axisUnit(it.axis, op.space, op.pitch, bank))
      continue;
    return fail("its layout places an iter on axis " + it.axis + ", which " +
                trn::stringifyMemorySpace(op.space).str() + " lacks");
  }
  op.layout = *tile;
  return op;
}

LogicalResult materialize(OpBuilder &b, Location loc, TrnOperand &op) {
  Value acc;
  if (auto alloc = dyn_cast<AllocOp>(op.ref.root)) {
    op.base = allocStorage(
        alloc, *getStorageType(cast<BufferType>(alloc.getResult().getType())));
  } else {
    auto view = cast<ViewOp>(op.ref.root);
    auto source = cast<MemRefType>(view.getSource().getType());
    auto hbm = trn::getTileType({1}, op.ref.elementType, trn::MemorySpace::HBM);
    auto castType = MemRefType::get(source.getShape(), source.getElementType(),
                                    source.getLayout(), hbm.getMemorySpace());
    op.base =
        memref::MemorySpaceCastOp::create(b, loc, castType, view.getSource());
    SmallVector<int64_t> strides;
    int64_t unused;
    (void)source.getStridesAndOffset(strides, unused);
    for (auto [ofr, stride] : llvm::zip(view.getMixedOffsets(), strides))
      if (auto v = dyn_cast<Value>(ofr))
        acc = addIndex(b, loc, acc, mulIndex(b, loc, v, stride));
  }
  // Run-time slice starts.
  Result<BufferRef> ref = resolveBuffer(b, loc, op.buffer);
  if (!ref)
    return failure();
  op.ref = *ref;
  Result<Value> offset = coordOffset(b, loc, ref->offset, op.space, op.pitch,
                                     bankElementsOf(op.ref.elementType), acc);
  if (!offset)
    return failure();
  op.offset = addIndex(b, loc, *offset, indexConstant(b, loc, op.staticOffset));
  return success();
}

//===----------------------------------------------------------------------===//
// Iteration spaces
//===----------------------------------------------------------------------===//

/// The refinement is the codegen layer's (IterSpace: per dim, the common
/// refinement of every operand's digits); this adds what a trn view needs:
/// each step as a kind of iter and a stride in storage elements.
Result<OpSpace> OpSpace::build(ArrayRef<int64_t> shape,
                               ArrayRef<const TrnOperand *> operands,
                               ArrayRef<SmallVector<int, 4>> dimOf) {
  SmallVector<LayoutEmitter, 4> emitters;
  for (const TrnOperand *op : operands) {
    Result<LayoutEmitter> e =
        LayoutEmitter::get(Layout(op->layout), op->ref.shape);
    if (!e)
      return e.takeFailure();
    emitters.push_back(std::move(*e));
  }
  SmallVector<SpaceOperand, 4> spaceOperands;
  for (auto [k, dims] : llvm::enumerate(dimOf)) {
    SpaceOperand so;
    so.emitter = &emitters[k];
    for (int d : dims)
      so.dimOf.push_back(d < 0 ? ~0u : unsigned(d));
    spaceOperands.push_back(std::move(so));
  }
  IterSpace iters = IterSpace::build(shape, spaceOperands);

  OpSpace space;
  space.numOperands = operands.size();
  for (const SpaceLoop &loop : iters.loops()) {
    SpaceIter s;
    s.dim = loop.dim;
    s.extent = loop.extent;
    // An operand moves along the dim when one of its dims of extent > 1
    // runs along it (IterSpace's rule).
    auto present = [&](unsigned k) {
      return llvm::any_of(llvm::enumerate(dimOf[k]), [&](auto d) {
        return d.value() == int(loop.dim) &&
               operands[k]->ref.shape[d.index()] != 1;
      });
    };
    // IterSpace calls a dim no operand moves along nonlinear too; it is one
    // loop that moves nothing.
    bool moved = llvm::any_of(llvm::seq<unsigned>(0, operands.size()), present);
    if (!iters.isLinear(loop.dim) && moved)
      return fail("the operands split dim " + std::to_string(loop.dim) +
                  " (extent " + std::to_string(shape[loop.dim]) +
                  ") into iters that do not refine each other");
    for (auto [k, op] : llvm::enumerate(operands)) {
      std::optional<StorageIter> at;
      if (present(k)) {
        const LoopStep &step = loop.steps[k];
        std::optional<AxisUnit> unit =
            axisUnit(step.axis, op->space, op->pitch,
                     bankElementsOf(op->ref.elementType));
        if (!unit && step.stride != 0)
          return fail("axis '" + step.axis + "' has no place in " +
                      trn::stringifyMemorySpace(op->space).str());
        // A loop an operand does not move along (a stride-0 iter, as a
        // broadcast layout has) names no axis: it stays on the free axis.
        at = unit ? StorageIter{loop.extent, step.stride * unit->elements,
                                unit->kind}
                  : StorageIter{loop.extent, 0, IterKind::Free};
      }
      s.at.push_back(at);
    }
    space.spaceIters.push_back(std::move(s));
  }
  // Merge neighbours that every operand walks contiguously.
  for (size_t i = 0; i + 1 < space.spaceIters.size();) {
    SpaceIter &outer = space.spaceIters[i], &inner = space.spaceIters[i + 1];
    bool mergeable = outer.dim == inner.dim;
    for (size_t k = 0; mergeable && k < operands.size(); ++k) {
      const auto &o = outer.at[k], &n = inner.at[k];
      mergeable = (!o && !n) || (o && n && o->kind == n->kind &&
                                 o->stride == n->stride * inner.extent);
    }
    if (!mergeable) {
      ++i;
      continue;
    }
    inner.extent *= outer.extent;
    for (auto &at : inner.at)
      if (at)
        at->extent = inner.extent;
    space.spaceIters.erase(space.spaceIters.begin() + i);
  }
  return space;
}

SmallVector<unsigned, 2> OpSpace::itersOfKind(unsigned k, IterKind kind) const {
  SmallVector<unsigned, 2> found;
  for (auto [i, s] : llvm::enumerate(spaceIters))
    if (s.at[k] && s.at[k]->kind == kind)
      found.push_back(i);
  return found;
}

void OpSpace::split(unsigned i, int64_t inner) {
  SpaceIter outer = spaceIters[i];
  outer.extent /= inner;
  SpaceIter in = spaceIters[i];
  in.extent = inner;
  for (size_t k = 0; k < outer.at.size(); ++k) {
    if (!outer.at[k])
      continue;
    outer.at[k]->extent = outer.extent;
    outer.at[k]->stride *= inner;
    in.at[k]->extent = inner;
  }
  spaceIters[i] = in;
  spaceIters.insert(spaceIters.begin() + i, outer);
}

Value OpSpace::view(OpBuilder &b, Location loc, const TrnOperand &op,
                    unsigned k, ArrayRef<unsigned> viewIters, Value loopOffset,
                    bool unitFreeDim) const {
  SmallVector<int64_t> sizes, strides;
  bool leading = !viewIters.empty() && spaceIters[viewIters[0]].at[k] &&
                 spaceIters[viewIters[0]].at[k]->kind == IterKind::Partition;
  if (op.onChip() && !leading) {
    sizes.push_back(1);
    strides.push_back(op.pitch);
  }
  for (unsigned i : viewIters) {
    sizes.push_back(spaceIters[i].extent);
    strides.push_back(spaceIters[i].at[k] ? spaceIters[i].at[k]->stride : 0);
  }
  if (sizes.empty() || unitFreeDim) {
    sizes.push_back(1);
    strides.push_back(1);
  }
  Value offset = addIndex(b, loc, op.offset, loopOffset);
  std::optional<int64_t> constant = getConstantIntValue(offset);
  auto baseType = cast<MemRefType>(op.base.getType());
  auto layout = StridedLayoutAttr::get(
      b.getContext(), constant ? *constant : ShapedType::kDynamic, strides);
  auto type = MemRefType::get(sizes, op.ref.elementType, layout,
                              baseType.getMemorySpace());
  OpFoldResult ofr =
      constant ? OpFoldResult(b.getIndexAttr(*constant)) : OpFoldResult(offset);
  return memref::ReinterpretCastOp::create(
      b, loc, type, op.base, ofr, getAsIndexOpFoldResult(b.getContext(), sizes),
      getAsIndexOpFoldResult(b.getContext(), strides));
}

void emitSpaceLoops(
    OpBuilder &b, Location loc, const OpSpace &space,
    ArrayRef<unsigned> loopIters,
    function_ref<void(OpBuilder &, ArrayRef<Value>, ArrayRef<Value>)> body) {
  unsigned n = space.getNumOperands();
  SmallVector<Value> offsets(n), ivs;
  std::function<void(OpBuilder &, unsigned)> nest = [&](OpBuilder &ib,
                                                        unsigned depth) {
    if (depth == loopIters.size())
      return body(ib, offsets, ivs);
    const SpaceIter &it = space.iter(loopIters[depth]);
    auto loop = scf::ForOp::create(ib, loc, indexConstant(ib, loc, 0),
                                   indexConstant(ib, loc, it.extent),
                                   indexConstant(ib, loc, 1));
    OpBuilder::InsertionGuard guard(ib);
    ib.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    SmallVector<Value> saved = offsets;
    for (unsigned k = 0; k < n; ++k)
      if (it.at[k])
        offsets[k] = addIndex(ib, loc, offsets[k],
                              mulIndex(ib, loc, iv, it.at[k]->stride));
    ivs.push_back(iv);
    nest(ib, depth + 1);
    ivs.pop_back();
    offsets = saved;
  };
  nest(b, 0);
}

Value allocTemp(OpBuilder &b, Location loc, int64_t partitions,
                ArrayRef<int64_t> free, Type elementType,
                trn::MemorySpace space) {
  SmallVector<int64_t> shape = {partitions};
  shape.append(free.begin(), free.end());
  return trn::AllocOp::create(b, loc,
                              trn::getTileType(shape, elementType, space));
}

} // namespace axe::trnconv
