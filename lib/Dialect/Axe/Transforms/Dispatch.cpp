//===- Dispatch.cpp - axe-dispatch: rewrite operators with schedules ------===//

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"
#include "axe/Dialect/Axe/Transforms/Schedule.h"
#include "axe/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace axe {
#define GEN_PASS_DEF_AXEDISPATCH
#include "axe/Dialect/Axe/Transforms/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe {
namespace {

struct AxeDispatchPass : public impl::AxeDispatchBase<AxeDispatchPass> {
  using AxeDispatchBase::AxeDispatchBase;

  /// The CPU schedules size vectors and register blocks from the target's
  /// vector unit: the host's, or the width the pass option asks for.
  LogicalResult fillVectorUnit(Operation *op, ScheduleContext &ctx) {
    Result<const TargetDescription *> t = lookupTarget(ctx.target);
    if (!t || !(*t)->vectorUnit)
      return success();
    Result<CPUVectorUnit> unit = cpuVectorUnit(vectorBits);
    if (!unit)
      return op->emitError() << "axe-dispatch vector-bits: " << unit.message();
    ctx.vectorLanes32 = unit->lanes32();
    ctx.vectorRegisters = unit->vectorRegisters;
    return success();
  }

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](OperatorOpInterface op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    const ScheduleRegistry &registry = ScheduleRegistry::global();
    bool ok = true;
    for (Operation *op : ops) {
      ScheduleContext ctx;
      if (!target.empty()) {
        ctx.target = target;
      } else if (TargetAttr t = getTargetAttr(op)) {
        ctx.target = t.getName().str();
      } else {
        op->emitError(
            "no target to dispatch for: pass axe-dispatch{target=...} "
            "or put #axe.target<...> on the kernel or the module");
        ok = false;
        continue;
      }
      if (failed(fillVectorUnit(op, ctx))) {
        ok = false;
        continue;
      }
      // Keep going after a failure so every undispatchable op is reported.
      if (failed(registry.dispatch(op, ctx, rewriter)))
        ok = false;
      else
        ++numDispatched;
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
} // namespace axe
