//===- InstanceView.cpp - Emit the elements one instance holds ------------===//

#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace axe {

namespace {

Value andI1(OpBuilder &b, Location loc, Value a, Value c) {
  if (!a)
    return c;
  return b.createOrFold<arith::AndIOp>(loc, a, c);
}

Value cmp(OpBuilder &b, Location loc, arith::CmpIPredicate p, Value a,
          int64_t c) {
  return b.createOrFold<arith::CmpIOp>(loc, p, a, indexConstant(b, loc, c));
}

/// Solves the digits of one instance axis from u = coordinate - offset
/// (InstanceAxis: from the largest stride down, digit = rest div stride,
/// rest = rest mod stride), adds the shard digits' logical contributions to
/// `logical` and returns whether the instance holds anything on this axis.
/// Ands `primary` with every replica digit being 0.
/// Adds digit `digit` of `d` (solved) to `logical`, or to the replica
/// test of `primary`.
void addDigit(OpBuilder &b, Location loc, const InstanceDigit &d, Value digit,
              SmallVectorImpl<Value> &logical, Value &primary) {
  if (d.replica) {
    primary =
        andI1(b, loc, primary, cmp(b, loc, arith::CmpIPredicate::eq, digit, 0));
    return;
  }
  if (d.reversed)
    digit = b.createOrFold<arith::SubIOp>(
        loc, indexConstant(b, loc, d.extent - 1), digit);
  logical[d.dim] = addIndex(b, loc, logical[d.dim],
                            mulIndex(b, loc, digit, d.logicalStride));
}

/// solveAxis for a tabled axis: u is compared with each sum of digits.
Value solveTabled(OpBuilder &b, Location loc, const InstanceAxis &axis, Value u,
                  SmallVectorImpl<Value> &logical, Value &primary) {
  Value holds = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  SmallVector<Value, 4> digit(axis.digits.size(), indexConstant(b, loc, 0));
  axis.forEachCombination([&](ArrayRef<int64_t> combination, int64_t sum) {
    Value here = cmp(b, loc, arith::CmpIPredicate::eq, u, sum);
    holds = b.createOrFold<arith::OrIOp>(loc, holds, here);
    for (auto [j, v] : llvm::enumerate(combination))
      if (v != 0)
        digit[j] = b.createOrFold<arith::SelectOp>(
            loc, here, indexConstant(b, loc, v), digit[j]);
  });
  for (auto [j, d] : llvm::enumerate(axis.digits))
    addDigit(b, loc, d, digit[j], logical, primary);
  return holds;
}

Value solveAxis(OpBuilder &b, Location loc, const InstanceAxis &axis, Value u,
                SmallVectorImpl<Value> &logical, Value &primary) {
  using P = arith::CmpIPredicate;
  if (axis.tabled)
    return solveTabled(b, loc, axis, u, logical, primary);
  // Dense digits cover [0, count) exactly; an unsigned compare also rejects
  // u < 0.
  bool dense = axis.dense();
  Value holds =
      dense ? cmp(b, loc, P::ult, u, axis.count()) : cmp(b, loc, P::sge, u, 0);
  Value rest = u;
  for (const InstanceDigit &d : llvm::reverse(axis.digits)) {
    Value digit = rest;
    if (d.stride != 1) {
      Value s = indexConstant(b, loc, d.stride);
      digit = b.createOrFold<arith::DivUIOp>(loc, rest, s);
      rest = b.createOrFold<arith::RemUIOp>(loc, rest, s);
    } else {
      rest = Value();
    }
    if (!dense)
      holds = andI1(b, loc, holds, cmp(b, loc, P::ult, digit, d.extent));
    addDigit(b, loc, d, digit, logical, primary);
  }
  // A remainder below the smallest stride: between two holding instances.
  if (!dense && rest)
    holds = andI1(b, loc, holds, cmp(b, loc, P::eq, rest, 0));
  return holds;
}

} // namespace

Result<InstanceEmitter>
InstanceEmitter::get(const Layout &layout, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<std::string> instanceAxes) {
  Result<InstanceView> view = InstanceView::get(layout, shape, instanceAxes);
  if (!view)
    return view.takeFailure();
  Result<LayoutEmitter> local =
      LayoutEmitter::get(view->local(), view->localShape());
  if (!local) // One dim per iter always groups; kept for safety.
    return local.takeFailure();
  return InstanceEmitter(std::move(*view), std::move(*local));
}

InstanceBase InstanceEmitter::emitBase(OpBuilder &b, Location loc,
                                       const CoordValue &instance) const {
  InstanceBase base;
  base.logical.resize(instanceView.shape().size());
  Value firstHolder;
  for (const InstanceAxis &axis : instanceView.instanceAxes()) {
    Value u = instance.get(b, loc, axis.axis);
    if (axis.offset != 0)
      u = b.createOrFold<arith::SubIOp>(loc, u,
                                        indexConstant(b, loc, axis.offset));
    base.holds = andI1(b, loc, base.holds,
                       solveAxis(b, loc, axis, u, base.logical, firstHolder));
  }
  if (!base.holds)
    base.holds = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  base.primary =
      firstHolder ? andI1(b, loc, base.holds, firstHolder) : base.holds;
  for (Value &v : base.logical)
    if (!v)
      v = indexConstant(b, loc, 0);
  return base;
}

InstanceElement InstanceEmitter::emitElement(OpBuilder &b, Location loc,
                                             const InstanceBase &base,
                                             int64_t j) const {
  InstanceElement e;
  for (int64_t digit : unflattenIndex(j, instanceView.localShape()))
    e.localIndex.push_back(indexConstant(b, loc, digit));
  for (auto [v, off] :
       llvm::zip_equal(base.logical, instanceView.localOffset(j)))
    e.logical.push_back(off ? addIndex(b, loc, v, indexConstant(b, loc, off))
                            : v);
  e.unswizzled.add(b, loc, instanceView.local().tile().applyBase(j));
  return e;
}

InstanceElement InstanceEmitter::emitElement(OpBuilder &b, Location loc,
                                             const InstanceBase &base,
                                             ValueRange localIndex) const {
  InstanceElement e;
  e.localIndex.assign(localIndex.begin(), localIndex.end());
  e.logical.assign(base.logical.begin(), base.logical.end());
  for (auto [it, idx] : llvm::zip(instanceView.localIters(), localIndex))
    e.logical[it.dim] = addIndex(b, loc, e.logical[it.dim],
                                 mulIndex(b, loc, idx, it.logicalStride));
  e.unswizzled = localEmitter.emitUnswizzled(b, loc, localIndex);
  return e;
}

void InstanceEmitter::emitLoop(
    OpBuilder &b, Location loc, const InstanceBase &base,
    function_ref<void(OpBuilder &, Location, const InstanceElement &)> body)
    const {
  // One dim per local iter: each loop steps one local digit, so the local
  // index is the loops' ivs.
  IterSpace space = IterSpace::build(
      localEmitter.shape(), {{&localEmitter, iota(localEmitter.rank())}});
  SmallVector<Value> ivs(space.loops().size());
  emitNest(b, loc, space, allLoopsExcept(space, {}), ivs, [&](OpBuilder &nb) {
    body(nb, loc, emitElement(nb, loc, base, space.emitLogical(nb, loc, ivs)));
  });
}

CoordValue InstanceEmitter::storage(OpBuilder &b, Location loc,
                                    const InstanceElement &e) const {
  // Canonical replica strides are positive, so replica 0 is the base.
  CoordValue c = e.unswizzled;
  localEmitter.applySwizzle(b, loc, c);
  return c;
}

void InstanceEmitter::forEachPlacement(
    OpBuilder &b, Location loc, const InstanceElement &e,
    function_ref<void(OpBuilder &, Location, const CoordValue &)> fn) const {
  localEmitter.forEachPlacement(b, loc, e.unswizzled, fn);
}

} // namespace axe
