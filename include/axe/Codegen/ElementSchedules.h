//===- ElementSchedules.h - Generic schedules by element --------*- C++ -*-===//
//-*-===//
//
// The schedules every thread-addressing backend shares, written once against
// ThreadTargetCodegen and ElementOperand: each agent (a GPU thread, or the
// CPU thread running a whole scope instance) handles the elements it holds
// of the operator's register operand, or its round-robin share of memory
// operands, one scalar at a time. A backend registers them with what differs:
// the checks all its schedules make, where an operand's memory is, how the
// operator is wrapped (the CPU's loop over the instances of a narrow scope)
// and how its buffers resolve. Its own schedules (vectors, tensor cores,
// shuffles, packed micro-kernels) sit above them in priority.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_ELEMENTSCHEDULES_H
#define AXE_CODEGEN_ELEMENTSCHEDULES_H

#include "axe/Codegen/ElementLoops.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include <vector>

namespace axe {

/// Resolves buffers of the operator being rewritten into operands at the
/// builder's insertion point; fails after a diagnostic on the operator.
using OperandResolver =
    llvm::function_ref<mlir::FailureOr<std::vector<ElementOperand>>(
        mlir::OpBuilder &, mlir::ValueRange)>;
/// A generic schedule's rewrite, given the backend's resolver.
using ElementRewrite = std::function<mlir::LogicalResult(
    mlir::Operation *, const ScheduleContext &, mlir::RewriterBase &,
    OperandResolver)>;

/// What a backend tells the generic schedules.
struct ElementBackend {
  /// The prefix of the schedule names: "cpu" registers "cpu.copy.elements".
  std::string prefix;
  TargetPredicate targets = anyTarget();
  int priority = 0;
  /// The checks every schedule of the backend makes first; its plan is the
  /// plan the generic match accepts with.
  Schedule::MatchFn common;
  /// The memory space an operand is read from when matching (a register
  /// input a staged schedule routes through shared memory is in shared).
  std::function<MemorySpace(mlir::Value)> spaceOf;
  /// The backend's rewrite around a generic one: where the operator runs
  /// (once per instance of its scope on the CPU) and how buffers resolve.
  std::function<Schedule::RewriteFn(ElementRewrite)> wrap;
  /// Layout proposals for an operator (optional): by op name.
  std::function<Schedule::ProposeFn(llvm::StringRef opName)> propose;
};

/// The generic schedules of a backend for axe.copy, axe.copy_async,
/// axe.fill, axe.elementwise and axe.reduce, in that order.
std::vector<Schedule> elementSchedules(const ElementBackend &backend);
void addElementSchedules(ScheduleRegistry &registry,
                         const ElementBackend &backend);

/// dst = src element by element (a cast where the types differ): the agent
/// moves the elements it holds of the register side (into memory, one
/// writer per element), or its round-robin share between two memory
/// operands. Fails after a diagnostic on `op` (no rank for its scope).
mlir::LogicalResult emitElementCopy(mlir::OpBuilder &b, mlir::Operation *op,
                                    const ThreadTargetCodegen &cg,
                                    const ElementOperand &src,
                                    const ElementOperand &dst);

/// The generic copy's own match step (after the backend's common one) for
/// axe.copy and axe.copy_async: the shapes agree, and the agent handling an
/// element holds what it reads of a register side.
ScheduleMatch
matchElementCopy(mlir::Operation *op, const ScheduleContext &ctx,
                 llvm::function_ref<MemorySpace(mlir::Value)> spaceOf);

/// The target index of source index `x` of a reduction (reduced dims
/// dropped or kept as 0).
llvm::SmallVector<int64_t, 4> reducedTargetIndex(llvm::ArrayRef<int64_t> x,
                                                 const ReduceMapping &map);
/// Which threads hold a reduction's source and target elements, and the
/// target element each source element reduces into: what a schedule checks
/// to know which thread computes which target element.
struct ReduceHolders {
  Holders source, target;
  /// Per source element (row-major), its target element (row-major).
  llvm::SmallVector<int64_t> targetOf;

  static Result<ReduceHolders> get(const TargetDescription &target,
                                   int64_t threads, ReduceOp op);
};

} // namespace axe

#endif // AXE_CODEGEN_ELEMENTSCHEDULES_H
