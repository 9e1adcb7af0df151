//===- NVVMSchedules.h - The nvvm backend's schedules -----------*- C++ -*-===//

#ifndef AXE_LIB_CONVERSION_AXETONVVM_NVVMSCHEDULES_H
#define AXE_LIB_CONVERSION_AXETONVVM_NVVMSCHEDULES_H

#include "axe/Codegen/Schedule.h"

namespace axe::nvvm {

/// The SIMT schedules: copy, fill, elementwise, reduce and gemm, each
/// thread doing the part of the operator its layouts give it.
void addSIMTSchedules(ScheduleRegistry &registry);

/// The tensor-core GEMM on mma.sync fragments (NVVMMma.cpp).
void addMmaSchedules(ScheduleRegistry &registry);

/// Shared <-> register copies by ldmatrix / stmatrix (NVVMMatrixMoves.cpp).
void addMatrixMoveSchedules(ScheduleRegistry &registry);

/// Register exchange between lanes by shfl.sync.idx (NVVMShuffleCopy.cpp).
void addShuffleCopySchedules(ScheduleRegistry &registry);

/// Global -> shared copies as TMA boxes on mbarriers (NVVMTma.cpp).
void addTmaSchedules(ScheduleRegistry &registry);

/// The warpgroup GEMM on wgmma.mma_async descriptors (NVVMWgmma.cpp).
void addWgmmaSchedules(ScheduleRegistry &registry);

/// tcgen05.mma into tmem, and tmem moves by tcgen05.ld/st (NVVMTcgen05.cpp).
void addTcgen05Schedules(ScheduleRegistry &registry);

/// Lowers the axe.pipeline ops of a kernel body (`entry` its first block,
/// partitions still there) to mbarrier waits and arrivals
/// (NVVMPipeline.cpp).
mlir::LogicalResult lowerPipelines(mlir::Operation *root, mlir::Block &entry,
                                   int64_t ctaWarps, const TargetCodegen &cg,
                                   mlir::RewriterBase &rw);

} // namespace axe::nvvm

#endif // AXE_LIB_CONVERSION_AXETONVVM_NVVMSCHEDULES_H
