//===- NVVMSchedules.cpp - SIMT schedules of the nvvm backend -------------===//
//
// On a GPU every thread runs the kernel, so a collective operator becomes the
// code of one thread: the elements its layouts give it. A register operand
// decides (the thread handles the elements it holds, from the per-instance
// view); between two memory operands the threads of the operator's scope
// share the elements round robin, a vector of up to 16 bytes at a time where
// both layouts are contiguous. Whatever a thread reads from registers it must
// hold itself: the match steps check that by enumerating the layouts, and
// decline with the element and thread that break it.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/ElementSchedules.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;

namespace axe::nvvm {
namespace {

//===----------------------------------------------------------------------===//
// copy
//===----------------------------------------------------------------------===//

ScheduleMatch matchCopy(Operation *op, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(op, ctx);
  if (!m.accepted())
    return m;
  return matchElementCopy(op, ctx, spaceOf);
}

template <typename OpTy>
LogicalResult rewriteCopy(Operation *raw, const ScheduleContext &ctx,
                          const std::any &, RewriterBase &rw) {
  auto op = cast<OpTy>(raw);
  if constexpr (std::is_same_v<OpTy, CopyAsyncOp>)
    // A thread's copy has completed when its code returns (a barrier
    // orders the threads): the token carries nothing.
    replaceTokenWithPlaceholder(op.getToken(), rw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &src = (*ops)[0], &dst = (*ops)[1];
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  ScopeKind scope = scopeOf(raw);
  if (dst.isRegister() != src.isRegister() &&
      copyHeldRuns(rw, loc, cg, src.isRegister() ? src : dst,
                   src.isRegister() ? dst : src, src.isRegister(), scope)) {
    // Runs of consecutive elements as vectors.
  } else if (dst.isRegister() || src.isRegister()) {
    if (failed(emitElementCopy(rw, raw, cg, src, dst)))
      return failure();
  } else {
    auto rank = scopeRank(rw, raw, cg);
    if (failed(rank))
      return failure();
    emitDistributed(rw, loc, dst, &src, Value(), *rank, *ctx.target);
  }
  rw.eraseOp(op);
  return success();
}

template <typename OpTy>
void addCopySchedule(ScheduleRegistry &r, StringRef opName) {
  (void)r.add({"nvvm.copy.simt", opName.str(), gpuTargets(), 0,
               "each thread moves the elements it holds (a register side) "
               "or its round-robin share of up to 16-byte vectors (memory "
               "to memory; global to shared by cp.async where the target "
               "has it)",
               matchCopy, rewriteCopy<OpTy>, proposeSIMTCopy});
}

//===----------------------------------------------------------------------===//
// fill
//===----------------------------------------------------------------------===//

void addFillSchedule(ScheduleRegistry &r) {
  (void)r.add(
      {"nvvm.fill.simt", "axe.fill", gpuTargets(), 0,
       "the threads of the scope share a memory target round robin, as wide "
       "vectors as its layout allows",
       [](Operation *op, const ScheduleContext &ctx) {
         ScheduleMatch m = matchCommon(op, ctx);
         if (!m.accepted())
           return m;
         if (spaceOf(cast<FillOp>(op).getTarget()) == MemorySpace::Reg)
           return ScheduleMatch::decline(
               "a register target: each thread stores the elements it holds "
               "(nvvm.fill.elements)");
         return m;
       },
       [](Operation *raw, const ScheduleContext &ctx, const std::any &,
          RewriterBase &rw) -> LogicalResult {
         auto op = cast<FillOp>(raw);
         rw.setInsertionPoint(op);
         auto ops = operandsOf(raw, ctx, rw, {op.getTarget()});
         if (failed(ops))
           return failure();
         const GPUOperand &dst = (*ops)[0];
         Value v =
             castElements(rw, op.getLoc(), op.getValue(), dst.elementType());
         auto rank = scopeRank(rw, raw, codegenOf(ctx));
         if (failed(rank))
           return failure();
         emitDistributed(rw, op.getLoc(), dst, nullptr, v, *rank, *ctx.target);
         rw.eraseOp(op);
         return success();
       }});
}

} // namespace

/// The generic element schedules (lib/Codegen) as the nvvm backend runs
/// them: its common checks, staged inputs read from shared memory, one
/// thread's code per operator.
ElementBackend nvvmElementBackend() {
  ElementBackend be;
  be.prefix = "nvvm";
  be.targets = gpuTargets();
  be.priority = -1;
  be.common = matchCommon;
  be.spaceOf = spaceOf;
  be.wrap = [](ElementRewrite body) -> Schedule::RewriteFn {
    return [body](Operation *op, const ScheduleContext &ctx, const std::any &,
                  RewriterBase &rw) {
      return body(op, ctx, rw, [&](OpBuilder &b, ValueRange buffers) {
        return operandsOf(op, ctx, b, buffers);
      });
    };
  };
  be.propose = [](StringRef opName) -> Schedule::ProposeFn {
    if (opName == "axe.elementwise")
      return proposeSIMTElementwise;
    return nullptr;
  };
  return be;
}

void addSIMTSchedules(ScheduleRegistry &registry) {
  addCopySchedule<CopyOp>(registry, "axe.copy");
  addCopySchedule<CopyAsyncOp>(registry, "axe.copy_async");
  addFillSchedule(registry);
  addStagedSchedule(registry, "nvvm.copy.staged", "axe.copy", matchCopy,
                    rewriteCopy<CopyOp>, "nvvm.copy.simt");
  addStagedSchedule(registry, "nvvm.copy.staged", "axe.copy_async", matchCopy,
                    rewriteCopy<CopyAsyncOp>, "nvvm.copy.simt");
  for (Schedule &s : elementSchedules(nvvmElementBackend())) {
    if (s.opName == "axe.elementwise")
      addStagedSchedule(registry, "nvvm.elementwise.staged", s.opName, s.match,
                        s.rewrite, s.name);
    if (s.opName == "axe.reduce")
      addStagedSchedule(registry, "nvvm.reduce.staged", s.opName, s.match,
                        s.rewrite, s.name);
    (void)registry.add(std::move(s));
  }
  addReduceSchedules(registry);
  addSIMTGemmSchedules(registry);
}

} // namespace axe::nvvm
