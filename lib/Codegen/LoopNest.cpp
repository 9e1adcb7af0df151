//===- LoopNest.cpp - Loop nests over iteration spaces
//---------------------===//

#include "axe/Codegen/LoopNest.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <numeric>

using namespace mlir;

namespace axe {

SmallVector<unsigned, 4> iota(unsigned n) {
  SmallVector<unsigned, 4> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

bool contiguousAlong(const IterSpace &space, unsigned v, unsigned k,
                     int64_t lanes, bool replicas,
                     const DynamicOffset &offset) {
  const SpaceLoop &loop = space.loops()[v];
  if (lanes < 2 || loop.extent % lanes != 0 || !space.isLinear(loop.dim))
    return false;
  const LoopStep &step = loop.steps[k];
  if (step.axis != kDefaultAxis || step.stride != 1)
    return false;
  const LayoutEmitter &emitter = *space.operands()[k].emitter;
  const Layout &layout = emitter.layout();
  if (!layout.isSwizzled() || layout.swizzle()->isIdentity())
    return true;
  const Swizzle &sw = *layout.swizzle();
  if (lanes > (int64_t(1) << sw.perElement))
    return false;
  if (!alignedAlong(space, v, k, lanes, replicas))
    return false;
  if (offset.present &&
      (offset.alignment == 0 || offset.alignment % lanes != 0))
    return false;
  return true;
}

bool alignedAlong(const IterSpace &space, unsigned v, unsigned k, int64_t lanes,
                  bool replicas) {
  auto aligned = [&](int64_t x) { return x % lanes == 0; };
  const LayoutEmitter &emitter = *space.operands()[k].emitter;
  if (!aligned(emitter.grouped().layout.offset().get(kDefaultAxis)))
    return false;
  for (unsigned l = 0; l < space.loops().size(); ++l) {
    const LoopStep &s = space.loops()[l].steps[k];
    if (l != v && s.axis == kDefaultAxis && !aligned(s.stride))
      return false;
  }
  if (replicas)
    for (const Iter &it : emitter.grouped().layout.replica())
      if (it.axis == kDefaultAxis && !aligned(it.stride))
        return false;
  return true;
}

bool constantAlong(const IterSpace &space, unsigned v, unsigned k) {
  const SpaceLoop &loop = space.loops()[v];
  return space.isLinear(loop.dim) && loop.steps[k].stride == 0;
}

void emitNest(OpBuilder &b, Location loc, const IterSpace &space,
              ArrayRef<unsigned> order, SmallVectorImpl<Value> &ivs,
              function_ref<void(OpBuilder &)> body) {
  if (order.empty()) {
    body(b);
    return;
  }
  unsigned l = order.front();
  int64_t extent = space.loops()[l].extent;
  if (extent == 1) {
    ivs[l] = Value();
    emitNest(b, loc, space, order.drop_front(), ivs, body);
    return;
  }
  scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                     indexConstant(b, loc, extent), indexConstant(b, loc, 1),
                     ValueRange(),
                     [&](OpBuilder &nb, Location, Value iv, ValueRange) {
                       ivs[l] = iv;
                       emitNest(nb, loc, space, order.drop_front(), ivs, body);
                       scf::YieldOp::create(nb, loc);
                     });
}

Value emitCarryNest(OpBuilder &b, Location loc, const IterSpace &space,
                    ArrayRef<unsigned> order, SmallVectorImpl<Value> &ivs,
                    Value init, function_ref<Value(OpBuilder &, Value)> body) {
  if (order.empty())
    return body(b, init);
  unsigned l = order.front();
  int64_t extent = space.loops()[l].extent;
  if (extent == 1) {
    ivs[l] = Value();
    return emitCarryNest(b, loc, space, order.drop_front(), ivs, init, body);
  }
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, extent),
      indexConstant(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
        ivs[l] = iv;
        Value next = emitCarryNest(nb, loc, space, order.drop_front(), ivs,
                                   args[0], body);
        scf::YieldOp::create(nb, loc, next);
      });
  return loop.getResult(0);
}

void moveToEnd(IterSpace &space, unsigned from) {
  auto loops = space.loops();
  std::rotate(loops.begin() + from, loops.begin() + from + 1, loops.end());
}

SmallVector<unsigned> allLoopsExcept(const IterSpace &space,
                                     ArrayRef<unsigned> skip) {
  SmallVector<unsigned> order;
  for (unsigned l = 0; l < space.loops().size(); ++l)
    if (!llvm::is_contained(skip, l))
      order.push_back(l);
  return order;
}

} // namespace axe
