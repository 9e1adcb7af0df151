//===- ZeroInitAccumulators.cpp - Gemms that start from zero --------------===//
//
// A GEMM kernel zeroes its accumulator, then loops over K. Tensor-core
// instructions can start an accumulation from zero themselves (wgmma's
// scale-d, tcgen05.mma's input-D predicate), which saves writing the zeros
// and, for tcgen05, a pass over tensor memory. Only the loop's first gemm
// may start from zero, so the first iteration is peeled and its gemm marked
// `zero_init`; the fill goes.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"

namespace axe {
#define GEN_PASS_DEF_AXEZEROINITACCUMULATORS
#include "axe/Dialect/Axe/Transforms/Passes.h.inc"
} // namespace axe

using namespace mlir;
using namespace axe;

namespace {

/// Marks the gemm across the peeling, which clones the loop body.
constexpr StringLiteral kCandidate = "axe_zero_init_candidate";

bool isZero(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// Whether `op` or anything nested in it uses `v`.
bool usesValue(Operation *op, Value v) {
  WalkResult r = op->walk([&](Operation *inner) {
    return llvm::is_contained(inner->getOperands(), v) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
  });
  return r.wasInterrupted();
}

/// The loop the fill's zeros reach and the gemm in its body that first uses
/// the accumulator, or null when the pattern does not hold.
std::pair<scf::ForOp, GemmOp> candidate(FillOp fill) {
  Value c = fill.getTarget();
  if (!isZero(fill.getValue()) || !c.getDefiningOp<AllocOp>())
    return {};
  // Nothing may use the buffer before the fill (an alias made there would
  // escape the walk below).
  for (Operation *user : c.getUsers())
    if (user != fill && user->getBlock() == fill->getBlock() &&
        user->isBeforeInBlock(fill))
      return {};
  scf::ForOp loop;
  for (Operation *op = fill->getNextNode(); op; op = op->getNextNode()) {
    if ((loop = dyn_cast<scf::ForOp>(op)))
      break;
    if (usesValue(op, c))
      return {};
  }
  if (!loop)
    return {};
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0 || *lb >= *ub)
    return {};
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (!usesValue(&op, c))
      continue;
    auto gemm = dyn_cast<GemmOp>(op);
    if (!gemm || gemm.getC() != c)
      return {};
    return {loop, gemm};
  }
  return {};
}

/// Whether `op` verifies, without reporting why not.
bool verifies(Operation *op) {
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  return succeeded(verify(op));
}

struct ZeroInitAccumulatorsPass
    : axe::impl::AxeZeroInitAccumulatorsBase<ZeroInitAccumulatorsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<FillOp> fills;
    getOperation()->walk([&](FillOp f) { fills.push_back(f); });
    IRRewriter rw(&getContext());
    for (FillOp fill : fills) {
      auto [loop, gemm] = candidate(fill);
      if (!loop)
        continue;
      gemm->setAttr(kCandidate, rw.getUnitAttr());
      Value lowerBound = loop.getLowerBound();
      scf::ForOp first;
      rw.setInsertionPoint(loop);
      bool peeled =
          succeeded(scf::peelForLoopFirstIteration(rw, loop, first)) &&
          first != loop;
      // (A loop of one iteration is returned as is: nothing to peel.)
      if (peeled && !verifies(first)) {
        // A guard: the peeled copy must verify where the loop did (its
        // bounds are constants now). If not, put the loop back as it was.
        rw.eraseOp(first);
        rw.modifyOpInPlace(loop, [&] { loop.setLowerBound(lowerBound); });
        peeled = false;
      }
      if (peeled)
        first->walk([&](GemmOp g) {
          if (g->hasAttr(kCandidate))
            g.setZeroInit(true);
        });
      getOperation()->walk([&](GemmOp g) { g->removeAttr(kCandidate); });
      if (!peeled)
        continue;
      // The first iteration stays a loop of one iteration until after
      // dispatch: with its induction variable a constant, a register slice
      // at a known start would name the one warp holding it, which an
      // operator of a wider scope may not own (the loop's run-time start
      // is dispatched as such); the canonicalizer inlines it afterwards.
      rw.eraseOp(fill);
      ++numFolded;
    }
  }
};

} // namespace
