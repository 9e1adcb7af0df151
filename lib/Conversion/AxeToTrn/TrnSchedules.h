//===- TrnSchedules.h - The trn backend's schedules -------------*- C++ -*-===//

#ifndef AXE_LIB_CONVERSION_AXETOTRN_TRNSCHEDULES_H
#define AXE_LIB_CONVERSION_AXETOTRN_TRNSCHEDULES_H

#include "TrnOperands.h"

#include "axe/Codegen/Schedule.h"

#include <optional>
#include <string>

namespace axe::trnconv {

/// An operator's buffer operands and their common iteration space.
struct OperandSet {
  llvm::SmallVector<TrnOperand, 4> ops;
  OpSpace space;
};

Result<OperandSet>
analyzeOperands(llvm::ArrayRef<mlir::Value> buffers,
                llvm::ArrayRef<int64_t> shape,
                llvm::ArrayRef<llvm::SmallVector<int, 4>> dimOf);
mlir::LogicalResult materializeAll(mlir::OpBuilder &b, mlir::Location loc,
                                   OperandSet &set);
llvm::SmallVector<int, 4> identityDims(unsigned rank);
/// Why the op's scope does not run on a NeuronCore, if it does not.
std::optional<std::string> checkScope(mlir::Operation *op);
/// Operand k's iters, e.g. "[128@P (dim 1), 512@F (dim 0)]".
std::string describe(const OpSpace &space, unsigned k);

/// A match that plans `op` with `plan` (a function of the op returning a
/// Result of the plan) at cta scope, declining with the plan's reason.
template <typename OpT, typename PlanFn>
ScheduleMatch matchPlanned(mlir::Operation *op, PlanFn plan) {
  if (auto why = checkScope(op))
    return ScheduleMatch::decline(*why);
  auto planned = plan(mlir::cast<OpT>(op));
  if (!planned)
    return ScheduleMatch::decline(planned.message());
  return ScheduleMatch::accept(std::move(*planned));
}

/// The start of a rewrite: a copy of the match's plan (a struct with an
/// OperandSet `set`) with its operands addressed at `op`'s place, the
/// rewriter's insertion point there; a diagnostic on `op` when an operand
/// cannot be addressed.
template <typename Plan>
mlir::FailureOr<Plan> startRewrite(mlir::Operation *op, const std::any &anyPlan,
                                   mlir::RewriterBase &rw) {
  Plan plan = *std::any_cast<Plan>(&anyPlan);
  rw.setInsertionPoint(op);
  if (mlir::failed(materializeAll(rw, op->getLoc(), plan.set))) {
    op->emitError("trn: cannot address an operand");
    return mlir::failure();
  }
  return plan;
}

Schedule makeTrnSchedule(llvm::StringRef name, llvm::StringRef opName,
                         int priority, llvm::StringRef summary,
                         Schedule::MatchFn match, Schedule::RewriteFn rewrite,
                         Schedule::ProposeFn propose = {});

/// Whether `buffer` and every buffer its memory is viewed through (its
/// slices' sources, its axe.alloc) have layouts: false while inference
/// still has `?` there, so a match declines instead of reading one.
bool hasConcreteLayout(mlir::Value buffer);

/// The layouts the schedules propose for `?` SBUF/PSUM operands
/// (TrnProposals.cpp; axe-infer-layouts).
llvm::SmallVector<LayoutProposal> proposeDma(mlir::Operation *op,
                                             const ScheduleContext &ctx);
llvm::SmallVector<LayoutProposal> proposeEngineCopy(mlir::Operation *op,
                                                    const ScheduleContext &ctx);
llvm::SmallVector<LayoutProposal> proposeTranspose(mlir::Operation *op,
                                                   const ScheduleContext &ctx);
llvm::SmallVector<LayoutProposal> proposeMemset(mlir::Operation *op,
                                                const ScheduleContext &ctx);
llvm::SmallVector<LayoutProposal> proposeMatmul(mlir::Operation *op,
                                                const ScheduleContext &ctx);
llvm::SmallVector<LayoutProposal> proposeReduce(mlir::Operation *op,
                                                const ScheduleContext &ctx);
llvm::SmallVector<LayoutProposal>
proposeElementwise(mlir::Operation *op, const ScheduleContext &ctx);

void addTrnSchedules(ScheduleRegistry &registry);
void addTrnElementwiseSchedules(ScheduleRegistry &registry);

} // namespace axe::trnconv

#endif // AXE_LIB_CONVERSION_AXETOTRN_TRNSCHEDULES_H
