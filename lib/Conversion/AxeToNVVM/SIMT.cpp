//===- SIMT.cpp - What the SIMT schedules share ---------------------------===//
//
// The GPU targets, a schedule context's thread code generator and the match
// step every SIMT schedule makes (docs/NVIDIA.md). Which threads hold which
// elements and the per-thread loops over them are the codegen layer's
// (ElementLoops.h); the rest of what the SIMT schedules share is split by
// concern: SIMTEmit.cpp (runs of held elements as vectors), SIMTDistribute.cpp
// (memory-to-memory work as vectors and cp.async), SIMTStaging.cpp (staging
// register operands through shared memory) and SIMTAtoms.cpp (atom
// fragments, the mbarriers of asynchronous operators).
//
//===----------------------------------------------------------------------===//

#include "SIMT.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

#include <limits>

using namespace mlir;

namespace axe::nvvm {

TargetPredicate gpuTargets() { return targetKind(TargetKind::GPU); }

const ThreadTargetCodegen &codegenOf(const ScheduleContext &ctx) {
  // matchCommon declined any context without element-level hooks.
  return *ctx.codegen->threads();
}

//===----------------------------------------------------------------------===//
// Which threads hold which elements
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Shared match and rewrite steps
//===----------------------------------------------------------------------===//

/// What every SIMT schedule checks: the operator runs inside a kernel at a
/// scope of threads of one CTA, on buffers in GPU memory.
ScheduleMatch matchCommon(Operation *op, const ScheduleContext &ctx) {
  if (!op->getParentOfType<KernelOp>())
    return ScheduleMatch::decline(
        "the operator is outside an axe.kernel; the nvvm target runs "
        "operators only in kernels");
  if (!ctx.codegen || !ctx.codegen->threads())
    return ScheduleMatch::decline("no nvvm code generator for the target");
  ScopeKind scope = scopeOf(op);
  if (scope > ScopeKind::CTA)
    return ScheduleMatch::decline(
        "scope '" + stringifyScopeKind(scope).str() +
        "' spans several CTAs; the SIMT schedules work within one CTA");
  if (scope == ScopeKind::Warpgroup && !ctx.target->hasWarpgroups())
    return ScheduleMatch::decline(ctx.targetName() + " has no warpgroups");
  for (Value v : cast<OperatorOpInterface>(op).getBufferOperands())
    if (auto ok = checkGPUOperand(v); !ok)
      return ScheduleMatch::decline(ok.message());
  return ScheduleMatch::accept();
}

BufferType typeOf(Value buffer) { return cast<BufferType>(buffer.getType()); }

} // namespace axe::nvvm
