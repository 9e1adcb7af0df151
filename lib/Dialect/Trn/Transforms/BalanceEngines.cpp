//===- BalanceEngines.cpp - Spreading engine work over VectorE, ScalarE, GpSimd
//
// trn-balance-engines: many instructions may run on more than one engine
// (a copy on VectorE, GpSimd, or ScalarE as an activation; tensor_scalar
// on any of the three). Walking the function in program order, each such
// instruction goes to the engine whose estimated busy time, its own cost
// included, is lowest so far; an instruction in a loop weighs its trip
// count. The estimates are the cost formulas the simulator uses
// (lib/Target/Trn/Cost.cpp, at the default clocks).
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"
#include "axe/Target/Trn/Cost.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace axe::trn {
#define GEN_PASS_DEF_TRNBALANCEENGINES
#include "axe/Dialect/Trn/Transforms/Passes.h.inc"
} // namespace axe::trn

using namespace mlir;
using namespace axe;
using namespace axe::trn;
namespace cost = axe::trnsim::cost;
using axe::trnsim::Unit;

namespace {

int64_t freeElements(Value tile) {
  auto type = cast<MemRefType>(tile.getType());
  return type.getRank() == 0 ? 1 : type.getNumElements() / type.getDimSize(0);
}

bool inPsum(ValueRange tiles) {
  return llvm::any_of(tiles, [](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && getMemorySpace(type) == MemorySpace::PSUM;
  });
}

/// How many times `op` runs: the product of the constant trip counts of
/// the loops around it (1 for a loop whose count is not constant).
double tripWeight(Operation *op) {
  double weight = 1;
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (std::optional<APInt> trips = loop.getStaticTripCount())
      weight *= double(trips->getZExtValue());
  return weight;
}

Unit unitOf(Engine e) {
  switch (e) {
  case Engine::Tensor:
    return Unit::Tensor;
  case Engine::Vector:
    return Unit::Vector;
  case Engine::Scalar:
    return Unit::Scalar;
  case Engine::GpSimd:
    return Unit::GpSimd;
  }
  return Unit::Vector;
}

struct TrnBalanceEnginesPass
    : public axe::trn::impl::TrnBalanceEnginesBase<TrnBalanceEnginesPass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (isa<TrnDialect>(op->getDialect()))
        place(op);
    });
  }

  /// Cycles of a streaming instruction of `n` elements per partition, in
  /// ns on `engine`.
  double ns(Engine engine, double cycles) const {
    return cycles / trnsim::clockGhz(unitOf(engine), params);
  }

  void add(Engine engine, double nsCost, double weight) {
    load[int(unitOf(engine))] += nsCost * weight;
  }

  /// The engine among `choices` that ends least busy with the op on it.
  Engine cheapest(ArrayRef<Engine> choices,
                  function_ref<double(Engine)> costOf) const {
    Engine best = choices.front();
    double bestEnd = INFINITY;
    for (Engine e : choices) {
      double end = load[int(unitOf(e))] + costOf(e);
      if (end < bestEnd)
        bestEnd = end, best = e;
    }
    return best;
  }

  /// Puts an instruction of `cycles` on the cheapest of `choices` and
  /// returns that engine.
  Engine choose(ArrayRef<Engine> choices, double cycles, double weight) {
    Engine e =
        cheapest(choices, [&](Engine e) { return ns(e, cycles) * weight; });
    add(e, ns(e, cycles), weight);
    return e;
  }

  /// VectorE and GpSimd (which cannot reach PSUM), plus ScalarE when
  /// `scalar`.
  static SmallVector<Engine, 3> engines(bool psum, bool scalar) {
    SmallVector<Engine, 3> choices = {Engine::Vector};
    if (scalar)
      choices.push_back(Engine::Scalar);
    if (!psum)
      choices.push_back(Engine::GpSimd);
    return choices;
  }

  /// Sets an instruction's engine attribute to the chosen one.
  template <typename OpT>
  void reassign(OpT op, ArrayRef<Engine> choices, double cycles,
                double weight) {
    Engine e = choose(choices, cycles, weight);
    if (e != op.getEngine()) {
      op.setEngine(e);
      ++numMoved;
    }
  }

  void place(Operation *op) {
    double weight = tripWeight(op);
    bool psum = inPsum(op->getOperands());
    auto streaming = [&](Value v) {
      return double(cost::streaming(freeElements(v), params));
    };
    if (auto copy = dyn_cast<TensorCopyOp>(op)) {
      Engine e = choose(engines(psum, true), streaming(copy.getSrc()), weight);
      if (e == Engine::Scalar) {
        // ScalarE copies as an activation (it has no tensor_copy).
        OpBuilder b(copy);
        ActivationOp::create(b, copy.getLoc(), ActFunc::Copy, copy.getSrc(),
                             copy.getDst(), Value(), FloatAttr(), Value(),
                             AluOpAttr(), Value());
        copy.erase();
        ++numMoved;
      } else if (e != copy.getEngine()) {
        copy.setEngine(e);
        ++numMoved;
      }
      return;
    }
    if (auto ts = dyn_cast<TensorScalarOp>(op)) {
      bool bitwise =
          isBitwise(ts.getOp0()) || (ts.getOp1() && isBitwise(*ts.getOp1()));
      return reassign(ts,
                      bitwise ? SmallVector<Engine, 3>{Engine::Vector}
                              : engines(psum, true),
                      streaming(ts.getSrc()), weight);
    }
    if (auto tt = dyn_cast<TensorTensorOp>(op))
      return reassign(
          tt, engines(psum, false),
          cost::tensorTensor(freeElements(tt.getLhs()), false, params), weight);
    if (auto ms = dyn_cast<MemsetOp>(op))
      return reassign(ms, engines(psum, false),
                      cost::memset(freeElements(ms.getDst()), false, params),
                      weight);
    // Fixed engines count toward the load the others are balanced against.
    if (auto act = dyn_cast<ActivationOp>(op))
      return add(
          Engine::Scalar,
          ns(Engine::Scalar, cost::streaming(freeElements(act.getSrc()), params,
                                             bool(act.getReduceRes()))),
          weight);
    if (auto red = dyn_cast<TensorReduceOp>(op))
      return add(Engine::Vector,
                 ns(Engine::Vector,
                    cost::tensorReduce(freeElements(red.getSrc()), false)),
                 weight);
    if (auto tr = dyn_cast<TransposeOp>(op);
        tr && tr.getEngine() != Engine::Tensor)
      return add(tr.getEngine(), ns(tr.getEngine(), streaming(tr.getSrc())),
                 weight);
  }

  trnsim::SimParams params;
  std::array<double, trnsim::kNumUnits> load{};
};

} // namespace
