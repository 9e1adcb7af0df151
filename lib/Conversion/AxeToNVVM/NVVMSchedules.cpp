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

template <typename OpTy>
ScheduleMatch matchCopy(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<OpTy>(raw);
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  if (auto ok = checkCopyShapes(s.getShape(), t.getShape()); !ok)
    return ScheduleMatch::decline(ok.message());
  bool srcReg = spaceOf(op.getSource()) == MemorySpace::Reg;
  bool dstReg = spaceOf(op.getTarget()) == MemorySpace::Reg;
  if (dstReg) {
    if (ScheduleMatch v = matchView(ctx, op.getTarget()); !v.accepted())
      return v;
    if (srcReg)
      return matchOwnRegisters(raw, ctx, op.getTarget(), op.getSource(),
                               "the source");
  } else if (srcReg) {
    return matchView(ctx, op.getSource());
  }
  return ScheduleMatch::accept();
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
  auto ops = operandsOf(raw, rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &src = (*ops)[0], &dst = (*ops)[1];
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  Type elt = dst.elementType();
  ScopeKind scope = scopeOf(raw);
  if (dst.isRegister() != src.isRegister() &&
      copyHeldRuns(rw, loc, cg, src.isRegister() ? src : dst,
                   src.isRegister() ? dst : src, src.isRegister(), scope)) {
    // Runs of consecutive elements as vectors.
  } else if (dst.isRegister() || src.isRegister()) {
    // The register side decides which elements this thread moves; into
    // memory, one holder of each stores it.
    const GPUOperand &reg = dst.isRegister() ? dst : src;
    std::optional<ScopeKind> writer;
    if (!dst.isRegister())
      writer = scope;
    forEachHeld(
        rw, loc, cg, reg,
        [&](OpBuilder &b, Location l, ValueRange x) {
          SmallVector<Value, 4> xs =
              mapIndices(b, l, x, reg.shape(), src.shape());
          SmallVector<Value, 4> xd =
              mapIndices(b, l, x, reg.shape(), dst.shape());
          dst.write(b, l, xd, castElements(b, l, src.read(b, l, xs), elt));
        },
        writer);
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
               matchCopy<OpTy>, rewriteCopy<OpTy>, proposeSIMTCopy});
}

//===----------------------------------------------------------------------===//
// fill
//===----------------------------------------------------------------------===//

void addFillSchedule(ScheduleRegistry &r) {
  (void)r.add(
      {"nvvm.fill.simt", "axe.fill", gpuTargets(), 0,
       "each thread stores the elements it holds, or its round-robin share "
       "of vectors in memory",
       [](Operation *op, const ScheduleContext &ctx) {
         ScheduleMatch m = matchCommon(op, ctx);
         if (!m.accepted())
           return m;
         Value t = cast<FillOp>(op).getTarget();
         if (spaceOf(t) == MemorySpace::Reg)
           return matchView(ctx, t);
         return m;
       },
       [](Operation *raw, const ScheduleContext &ctx, const std::any &,
          RewriterBase &rw) -> LogicalResult {
         auto op = cast<FillOp>(raw);
         rw.setInsertionPoint(op);
         auto ops = operandsOf(raw, rw, {op.getTarget()});
         if (failed(ops))
           return failure();
         const GPUOperand &dst = (*ops)[0];
         Value v =
             castElements(rw, op.getLoc(), op.getValue(), dst.elementType());
         if (dst.isRegister()) {
           forEachHeld(rw, op.getLoc(), codegenOf(ctx), dst,
                       [&](OpBuilder &b, Location l, ValueRange x) {
                         dst.write(b, l, x, v);
                       });
         } else {
           auto rank = scopeRank(rw, raw, codegenOf(ctx));
           if (failed(rank))
             return failure();
           emitDistributed(rw, op.getLoc(), dst, nullptr, v, *rank,
                           *ctx.target);
         }
         rw.eraseOp(op);
         return success();
       }});
}

//===----------------------------------------------------------------------===//
// elementwise
//===----------------------------------------------------------------------===//

/// The operand whose elements a thread computes: the first register
/// output, else a register input of the outputs' shape, else none (memory
/// outputs shared round robin).
std::optional<unsigned> elementwiseDriver(ElementwiseOp op) {
  unsigned i = 0;
  for (Value v : op.getOutputs()) {
    if (spaceOf(v) == MemorySpace::Reg)
      return op.getInputs().size() + i;
    ++i;
  }
  ArrayRef<int64_t> shape = typeOf(op.getOutputs()[0]).getShape();
  for (auto [k, v] : llvm::enumerate(op.getInputs()))
    if (spaceOf(v) == MemorySpace::Reg && typeOf(v).getShape() == shape)
      return k;
  return std::nullopt;
}

ScheduleMatch matchElementwise(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<ElementwiseOp>(raw);
  SmallVector<Value> all(op.getInputs());
  llvm::append_range(all, op.getOutputs());
  std::optional<unsigned> driver = elementwiseDriver(op);
  if (!driver) {
    for (Value v : all)
      if (spaceOf(v) == MemorySpace::Reg)
        return ScheduleMatch::decline(
            "a register input broadcasts into memory outputs; no thread "
            "holds a whole output element");
    return m;
  }
  Value d = all[*driver];
  if (ScheduleMatch v = matchView(ctx, d); !v.accepted())
    return v;
  for (auto [k, v] : llvm::enumerate(all))
    if (k != *driver && v != d && spaceOf(v) == MemorySpace::Reg)
      if (ScheduleMatch own = matchOwnRegisters(
              raw, ctx, d, v, "operand #" + std::to_string(k));
          !own.accepted())
        return own;
  return m;
}

LogicalResult rewriteElementwise(Operation *raw, const ScheduleContext &ctx,
                                 const std::any &, RewriterBase &rw) {
  auto op = cast<ElementwiseOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  SmallVector<Value> all(op.getInputs());
  llvm::append_range(all, op.getOutputs());
  auto ops = operandsOf(raw, rw, all);
  if (failed(ops))
    return failure();
  unsigned numInputs = op.getInputs().size();
  ArrayRef<int64_t> shape = (*ops)[numInputs].shape();
  Block &body = op.getBody().front();
  std::optional<unsigned> driver = elementwiseDriver(op);
  // Where several threads hold a driver element, each computes it for its
  // registers and one stores it to the memory outputs.
  Value writer;
  if (driver && llvm::any_of(op.getOutputs(), [](Value v) {
        return spaceOf(v) != MemorySpace::Reg;
      })) {
    const GPUOperand &d = (*ops)[*driver];
    const ThreadTargetCodegen &cg = codegenOf(ctx);
    std::optional<HeldView> held;
    if (!holderAxes(cg.target(), d).empty())
      held = emitHeldView(rw, loc, cg, d);
    writer =
        emitOneWriter(rw, loc, cg, d, held ? *held : HeldView(), scopeOf(raw));
  }
  auto compute = [&](OpBuilder &b, Location l, ValueRange x) {
    IRMapping map;
    for (unsigned k = 0; k < numInputs; ++k) {
      const GPUOperand &in = (*ops)[k];
      map.map(body.getArgument(k),
              in.read(b, l, mapIndices(b, l, x, shape, in.shape())));
    }
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    Operation *yield = body.getTerminator();
    for (auto [k, v] : llvm::enumerate(yield->getOperands())) {
      const GPUOperand &out = (*ops)[numInputs + k];
      guarded(b, l, out.isRegister() ? Value() : writer, [&](OpBuilder &ib) {
        out.write(
            ib, l, mapIndices(ib, l, x, shape, out.shape()),
            castElements(ib, l, map.lookupOrDefault(v), out.elementType()));
      });
    }
  };
  if (driver) {
    const GPUOperand &d = (*ops)[*driver];
    forEachHeld(rw, loc, codegenOf(ctx), d,
                [&](OpBuilder &b, Location l, ValueRange x) {
                  compute(b, l, mapIndices(b, l, x, d.shape(), shape));
                });
  } else {
    auto rank = scopeRank(rw, raw, codegenOf(ctx));
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, shape, *rank, compute);
  }
  rw.eraseOp(op);
  return success();
}

} // namespace

void addSIMTSchedules(ScheduleRegistry &registry) {
  addCopySchedule<CopyOp>(registry, "axe.copy");
  addCopySchedule<CopyAsyncOp>(registry, "axe.copy_async");
  addFillSchedule(registry);
  (void)registry.add(
      {"nvvm.elementwise.simt", "axe.elementwise", gpuTargets(), 0,
       "each thread computes the elements it holds of the "
       "first register output (or its share of memory "
       "outputs), reading inputs it holds",
       matchElementwise, rewriteElementwise, proposeSIMTElementwise});
  addStagedSchedule(registry, "nvvm.copy.staged", "axe.copy", matchCopy<CopyOp>,
                    rewriteCopy<CopyOp>, "nvvm.copy.simt");
  addStagedSchedule(registry, "nvvm.copy.staged", "axe.copy_async",
                    matchCopy<CopyAsyncOp>, rewriteCopy<CopyAsyncOp>,
                    "nvvm.copy.simt");
  addStagedSchedule(registry, "nvvm.elementwise.staged", "axe.elementwise",
                    matchElementwise, rewriteElementwise,
                    "nvvm.elementwise.simt");
  addReduceSchedules(registry);
  addSIMTGemmSchedules(registry);
}

} // namespace axe::nvvm
