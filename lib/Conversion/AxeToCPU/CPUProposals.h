//===- CPUProposals.h - Layouts the CPU schedules propose -------*- C++ -*-===//
//
// The `propose` steps of the CPU schedules (Schedule::propose), which
// axe-infer-layouts calls on an operator some of whose buffers have layout
// `?`. Private to the CPU backend: CPUSchedules.cpp attaches them.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_AXETOCPU_CPUPROPOSALS_H
#define LIB_CONVERSION_AXETOCPU_CPUPROPOSALS_H

#include "axe/Codegen/Schedule.h"

namespace axe {

/// axe.copy / axe.copy_async: the `?` side dense on m in the order of the
/// known side (the layout itself when both sides are in the same space), so
/// the copy moves whole vectors.
llvm::SmallVector<LayoutProposal> proposeCPUCopy(mlir::Operation *op,
                                                 const ScheduleContext &ctx);

/// axe.gemm by cpu.gemm.packed: A and B in the micro-kernel's panels
/// (gemmPanelLayoutA/B), C in rows, all read in place; then A in rows or
/// columns (also read in place) and B in rows (packed per call).
llvm::SmallVector<LayoutProposal>
proposeCPUGemmPacked(mlir::Operation *op, const ScheduleContext &ctx);

/// axe.gemm by cpu.gemm.naive, for the gemms the packed kernel cannot run
/// (integers, an f64 accumulator): every `?` operand in rows.
llvm::SmallVector<LayoutProposal>
proposeCPUGemmNaive(mlir::Operation *op, const ScheduleContext &ctx);

/// axe.fill: a `?` target dense in rows.
llvm::SmallVector<LayoutProposal> proposeCPUFill(mlir::Operation *op,
                                                 const ScheduleContext &ctx);

/// axe.elementwise: each `?` operand as a known operand of its shape and
/// space is laid out (so every operand is contiguous along the same loop),
/// else dense in a known operand's order, else in rows.
llvm::SmallVector<LayoutProposal>
proposeCPUElementwise(mlir::Operation *op, const ScheduleContext &ctx);

/// axe.reduce: source and target contiguous along the same kept dim, so the
/// reduction runs on vectors of kept elements (reduced dims outermost in a
/// `?` source).
llvm::SmallVector<LayoutProposal> proposeCPUReduce(mlir::Operation *op,
                                                   const ScheduleContext &ctx);

} // namespace axe

#endif // LIB_CONVERSION_AXETOCPU_CPUPROPOSALS_H
