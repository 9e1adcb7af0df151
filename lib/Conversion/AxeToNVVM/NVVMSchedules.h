//===- NVVMSchedules.h - The nvvm backend's schedules -----------*- C++ -*-===//

#ifndef AXE_LIB_CONVERSION_AXETONVVM_NVVMSCHEDULES_H
#define AXE_LIB_CONVERSION_AXETONVVM_NVVMSCHEDULES_H

#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"
#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Layout/Swizzle.h"

#include <optional>

namespace mlir::gpu {
class GPUFuncOp;
} // namespace mlir::gpu

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

//===----------------------------------------------------------------------===//
// Layout proposals (NVVMProposals.cpp): the anchors of axe-infer-layouts
//===----------------------------------------------------------------------===//

/// Whether `buffer`'s layout is `?` (still to infer).
bool isInferred(mlir::Value buffer);

/// Adds `layout` for operand `operand` (the buffer `buffer`) to
/// `proposal`, canonicalized and grouped by the buffer's dims, as a kernel
/// would write it.
void proposeOperand(LayoutProposal &proposal, unsigned operand,
                    mlir::Value buffer, const Layout &layout);

/// The shared tile that readers of whole rows (ldmatrix, matrix
/// descriptors, 16-byte copies) take without bank conflicts, by CuTe's rule
/// for swizzle atoms: rows of a multiple of 128 bytes take the 128B
/// swizzle, else of 64 bytes the 64B one, else of 32 bytes the 32B one,
/// their atoms (8 rows of one line) stacked down the rows first, then
/// across; anything else is row-major. `shape` is as stored (rows along its
/// last dim).
Layout sharedTileLayout(llvm::ArrayRef<int64_t> shape, unsigned elementBits);

/// What one TMA box of `shape` writes: rows of 32, 64 or 128 bytes as the
/// swizzle atom of that line, row after row; other boxes row-major.
Layout tmaBoxLayout(llvm::ArrayRef<int64_t> shape, unsigned elementBits);

/// The register tile a vectorized copy of a `shape` tile likes at scope
/// `scope`: the row-major elements in runs of up to 16 bytes, runs dealt
/// round robin to the scope's threads (on the axis numbering them), to the
/// most threads among which they divide evenly.
std::optional<Layout> vectorRegisterTile(const TargetDescription &target,
                                         ScopeKind scope, int64_t threadsPerCTA,
                                         llvm::ArrayRef<int64_t> shape,
                                         unsigned elementBits);

/// The proposals of the SIMT copy (a shared or register side to infer
/// against a known one) and of the SIMT elementwise (the `?` operands as a
/// known operand of their shape and memory).
llvm::SmallVector<LayoutProposal> proposeSIMTCopy(mlir::Operation *op,
                                                  const ScheduleContext &ctx);
llvm::SmallVector<LayoutProposal>
proposeSIMTElementwise(mlir::Operation *op, const ScheduleContext &ctx);

/// Lowers the axe.pipeline ops of a kernel body (`entry` its first block,
/// partitions still there) to mbarrier waits and arrivals
/// (NVVMPipeline.cpp).
mlir::LogicalResult lowerPipelines(mlir::Operation *root, mlir::Block &entry,
                                   int64_t ctaWarps,
                                   const ThreadTargetCodegen &cg,
                                   mlir::RewriterBase &rw);

/// Lowers the flag ops (axe.flag_add, axe.flag_wait) of a kernel body to
/// GPU-scope atomics, acquire loads, proxy fences and barriers over their
/// scopes (NVVMFlags.cpp). `func` gets a shared slot for each flag_add whose
/// old value its scope reads.
mlir::LogicalResult lowerFlags(mlir::gpu::GPUFuncOp func,
                               const ThreadTargetCodegen &cg,
                               mlir::RewriterBase &rw);

} // namespace axe::nvvm

#endif // AXE_LIB_CONVERSION_AXETONVVM_NVVMSCHEDULES_H
