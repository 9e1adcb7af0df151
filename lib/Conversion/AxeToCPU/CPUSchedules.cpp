//===- CPUSchedules.cpp - Schedules of the CPU target ---------------------===//
//
// Each schedule adapts one axe operator to the CPU code generator: it finds
// the operands in memory (getCPUBuffer), checks what the generator needs
// (match, with a reason when it declines) and emits the loops (rewrite).
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/Transforms/Schedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

#include <mutex>
#include <numeric>

using namespace mlir;

namespace axe {

MemRefType getCPUMemRefType(Type elementType) {
  auto layout = StridedLayoutAttr::get(elementType.getContext(),
                                       ShapedType::kDynamic, {1});
  return MemRefType::get({ShapedType::kDynamic}, elementType, layout);
}

Result<StoragePlan> getCPUStorage(BufferType type) {
  return StoragePlan::forLayout(type.getLayout());
}

namespace {

/// The op that holds a buffer's memory, and the slices on the way to it.
struct BufferChain {
  Operation *root = nullptr;
  SmallVector<SliceOp> slices;
};

Result<BufferChain> walkChain(Value value) {
  BufferChain chain;
  Value cur = value;
  while (auto slice = cur.getDefiningOp<SliceOp>()) {
    chain.slices.push_back(slice);
    cur = slice.getSource();
  }
  Operation *def = cur.getDefiningOp();
  if (!def || !isa<AllocOp, ViewOp>(def))
    return fail("the buffer is not an axe.alloc or axe.view (or a slice of "
                "one), so the CPU target cannot find its memory");
  auto type = cast<BufferType>(cur.getType());
  switch (type.getMemorySpace()) {
  case MemorySpace::Global:
  case MemorySpace::Shared:
  case MemorySpace::Reg:
    break;
  default:
    return fail("memory space '" +
                stringifyMemorySpace(type.getMemorySpace()).str() +
                "' does not exist on the CPU target");
  }
  for (const std::string &axis : type.getLayout().tile().axes())
    if (axisKind(axis) == AxisKind::Device)
      return fail("device axis '" + axis +
                  "' needs a mesh; the CPU target runs one device");
  chain.root = def;
  return chain;
}

} // namespace

Result<bool> canGetCPUBuffer(Value value) {
  auto chain = walkChain(value);
  if (!chain)
    return chain.takeFailure();
  if (isa<AllocOp>(chain->root))
    if (auto plan = getCPUStorage(
            cast<BufferType>(chain->root->getResult(0).getType()));
        !plan)
      return plan.takeFailure();
  return true;
}

Result<CPUBuffer> getCPUBuffer(OpBuilder &b, Location loc, Value value) {
  auto chain = walkChain(value);
  if (!chain)
    return chain.takeFailure();
  auto type = cast<BufferType>(value.getType());
  CPUBuffer buf;
  buf.layout = type.getLayout();
  buf.shape.assign(type.getShape().begin(), type.getShape().end());
  buf.elementType = type.getElementType();
  Value root = chain->root->getResult(0);
  auto rootType = cast<BufferType>(root.getType());
  if (isa<AllocOp>(chain->root)) {
    auto plan = getCPUStorage(rootType);
    if (!plan)
      return plan.takeFailure();
    buf.storage = *plan;
  } else {
    // A view is plain memory on m from the tile's first element.
    buf.storage = StoragePlan::linear(std::numeric_limits<int32_t>::max());
  }
  buf.memory = UnrealizedConversionCastOp::create(
                   b, loc, getCPUMemRefType(buf.elementType), root)
                   .getResult(0);
  // Run-time starts add their contribution, by the layout of the buffer they
  // slice, before any swizzle.
  int64_t alignment = 0;
  for (SliceOp slice : chain->slices) {
    auto srcType = cast<BufferType>(slice.getSource().getType());
    auto emitter = LayoutEmitter::get(srcType.getLayout(), srcType.getShape());
    if (!emitter)
      return emitter.takeFailure();
    auto starts = slice.getMixedStarts();
    for (auto [dim, start] : llvm::enumerate(starts)) {
      auto v = dyn_cast<Value>(start);
      if (!v)
        continue;
      emitter->addDimContribution(b, loc, dim, v, buf.extra);
      // The contribution is a sum of multiples of the dim's strides on m.
      for (const Iter &it : emitter->grouped().block(dim))
        if (it.axis == kDefaultAxis && it.extent > 1)
          alignment = std::gcd(alignment, std::abs(it.stride));
    }
  }
  buf.extraAlignment = alignment;
  return buf;
}

namespace {

//===----------------------------------------------------------------------===//
// Shared match steps
//===----------------------------------------------------------------------===//

/// Threads of one instance of a scope, given the target's warp sizes.
int64_t threadsOfScope(ScopeKind kind, const TargetDescription &t) {
  switch (kind) {
  case ScopeKind::Thread:
    return 1;
  case ScopeKind::Warp:
    return t.warpSize ? t.warpSize : 32;
  case ScopeKind::Warpgroup:
    return t.warpgroupSize() ? t.warpgroupSize() : 128;
  default:
    return -1;
  }
}

/// A CTA runs as one CPU thread, so an operator must cover the whole CTA:
/// narrower scopes run once per warp (thread, ...) with per-instance
/// registers, which the CPU does not model unless one instance is the CTA.
ScheduleMatch matchScope(Operation *op) {
  auto iface = dyn_cast<OperatorOpInterface>(op);
  if (!iface)
    return ScheduleMatch::decline("not a collective operator");
  ScopeAttr scope = iface.getScope();
  if (scope.isMesh())
    return ScheduleMatch::decline("a mesh scope needs several devices; the CPU "
                                  "target runs one");
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel || scope.getKind() >= ScopeKind::CTA)
    return ScheduleMatch::accept();
  const TargetDescription *target = nullptr;
  if (TargetAttr t = kernel.getEffectiveTarget())
    target = &t.getDescription();
  if (!target) {
    auto cpu = lookupTarget("cpu");
    if (!cpu)
      return ScheduleMatch::decline(cpu.message());
    target = *cpu;
  }
  int64_t scopeThreads = threadsOfScope(scope.getKind(), *target);
  if (scopeThreads == int64_t(kernel.getThreads()))
    return ScheduleMatch::accept();
  return ScheduleMatch::decline(
      "the operator runs at " + stringifyScopeKind(scope.getKind()).str() +
      " scope, once per " + stringifyScopeKind(scope.getKind()).str() +
      " of a " + std::to_string(kernel.getThreads()) +
      "-thread CTA; the CPU runs a CTA as one thread and executes only "
      "operators that cover the CTA (write it at cta scope, or launch " +
      std::to_string(scopeThreads) + " threads per CTA)");
}

ScheduleMatch matchBuffers(Operation *op) {
  auto iface = cast<OperatorOpInterface>(op);
  for (Value v : iface.getBufferOperands())
    if (auto ok = canGetCPUBuffer(v); !ok)
      return ScheduleMatch::decline(ok.message());
  return ScheduleMatch::accept();
}

ScheduleMatch matchCommon(Operation *op) {
  ScheduleMatch m = matchScope(op);
  if (!m.accepted())
    return m;
  return matchBuffers(op);
}

CPUCodegenOptions optionsFor(const ScheduleContext &ctx, bool vectorize) {
  CPUCodegenOptions o;
  o.vectorLanes32 = vectorize ? ctx.vectorLanes32 : 1;
  o.transposeVectors = vectorize;
  return o;
}

/// Reports a generator failure on the op being rewritten.
LogicalResult check(Operation *op, const Result<bool> &r) {
  if (r)
    return success();
  return op->emitError() << r.message();
}

FailureOr<CPUBuffer> bufferOf(Operation *op, OpBuilder &b, Value v) {
  Result<CPUBuffer> r = getCPUBuffer(b, op->getLoc(), v);
  if (!r) {
    op->emitError() << r.message();
    return failure();
  }
  return *r;
}

//===----------------------------------------------------------------------===//
// copy / copy_async
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult rewriteCopy(Operation *raw, const ScheduleContext &ctx,
                          RewriterBase &rw, bool vectorize) {
  auto op = cast<OpTy>(raw);
  auto src = bufferOf(raw, rw, op.getSource());
  auto dst = bufferOf(raw, rw, op.getTarget());
  if (failed(src) || failed(dst))
    return failure();
  if (failed(check(raw, emitCopy(rw, op.getLoc(), *src, *dst,
                                 optionsFor(ctx, vectorize)))))
    return failure();
  if constexpr (std::is_same_v<OpTy, CopyAsyncOp>) {
    // The copy has completed when it returns: waits on it have nothing to do.
    Value token = op.getToken();
    for (Operation *user : llvm::make_early_inc_range(token.getUsers())) {
      auto wait = dyn_cast<WaitOp>(user);
      if (!wait)
        return raw->emitError("the token of a copy on the CPU may only be "
                              "waited on directly (axe.wait)");
      SmallVector<Value> rest;
      for (Value t : wait.getTokens())
        if (t != token)
          rest.push_back(t);
      if (rest.empty())
        rw.eraseOp(wait);
      else
        rw.modifyOpInPlace(wait, [&] { wait.getTokensMutable().assign(rest); });
    }
  }
  rw.eraseOp(raw);
  return success();
}

template <typename OpTy>
ScheduleMatch matchCopy(Operation *raw, bool vectorize) {
  ScheduleMatch m = matchCommon(raw);
  if (!m.accepted())
    return m;
  auto op = cast<OpTy>(raw);
  auto s = cast<BufferType>(op.getSource().getType());
  auto t = cast<BufferType>(op.getTarget().getType());
  if (s.getShape() != t.getShape())
    return ScheduleMatch::decline("source and target shapes differ");
  (void)vectorize;
  return ScheduleMatch::accept();
}

template <typename OpTy>
void addCopySchedules(ScheduleRegistry &r, StringRef opName) {
  (void)r.add(
      {"cpu.copy", opName.str(), "cpu", 10,
       "loops from the common refinement of both layouts; vector loads and "
       "stores where both sides are contiguous on m, an in-register "
       "transpose where they are contiguous along different loops",
       [](Operation *op, const ScheduleContext &) {
         return matchCopy<OpTy>(op, true);
       },
       [](Operation *op, const ScheduleContext &ctx, RewriterBase &rw) {
         return rewriteCopy<OpTy>(op, ctx, rw, true);
       }});
  (void)r.add({"cpu.copy.scalar", opName.str(), "cpu", 0,
               "one scalar load and store per element (and replica)",
               [](Operation *op, const ScheduleContext &) {
                 return matchCopy<OpTy>(op, false);
               },
               [](Operation *op, const ScheduleContext &ctx, RewriterBase &rw) {
                 return rewriteCopy<OpTy>(op, ctx, rw, false);
               }});
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

LogicalResult rewriteGemm(Operation *raw, const ScheduleContext &ctx,
                          RewriterBase &rw, bool packed) {
  auto op = cast<GemmOp>(raw);
  auto a = bufferOf(raw, rw, op.getA());
  auto b = bufferOf(raw, rw, op.getB());
  auto c = bufferOf(raw, rw, op.getC());
  if (failed(a) || failed(b) || failed(c))
    return failure();
  Result<bool> r =
      packed ? emitGemmPacked(rw, op.getLoc(), *a, op.getTransposeA(), *b,
                              op.getTransposeB(), *c, /*accumulate=*/true,
                              optionsFor(ctx, true))
             : emitGemmNaive(rw, op.getLoc(), *a, op.getTransposeA(), *b,
                             op.getTransposeB(), *c, /*accumulate=*/true);
  if (failed(check(raw, r)))
    return failure();
  rw.eraseOp(raw);
  return success();
}

void addGemmSchedules(ScheduleRegistry &r) {
  (void)r.add(
      {"cpu.gemm.packed", "axe.gemm", "cpu", 10,
       "packs A and B into f32 panels by layout copies, then a register-"
       "blocked vector FMA micro-kernel; C unpacked to its layout",
       [](Operation *op, const ScheduleContext &) {
         ScheduleMatch m = matchCommon(op);
         if (!m.accepted())
           return m;
         auto g = cast<GemmOp>(op);
         auto ct = cast<BufferType>(g.getC().getType());
         for (Value v : {g.getA(), g.getB(), g.getC()})
           if (!isa<FloatType>(cast<BufferType>(v.getType()).getElementType()))
             return ScheduleMatch::decline(
                 "the packed kernel computes in f32; integer operands need "
                 "cpu.gemm.naive");
         if (cast<FloatType>(ct.getElementType()).getWidth() > 32)
           return ScheduleMatch::decline(
               "the packed kernel accumulates in f32; an f64 accumulator "
               "needs cpu.gemm.naive");
         return ScheduleMatch::accept();
       },
       [](Operation *op, const ScheduleContext &ctx, RewriterBase &rw) {
         return rewriteGemm(op, ctx, rw, true);
       }});
  (void)r.add(
      {"cpu.gemm.naive", "axe.gemm", "cpu", 0,
       "a scalar loop nest on the layouts, accumulating in C's type",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       [](Operation *op, const ScheduleContext &ctx, RewriterBase &rw) {
         return rewriteGemm(op, ctx, rw, false);
       }});
}

//===----------------------------------------------------------------------===//
// reduce / fill / elementwise
//===----------------------------------------------------------------------===//

Combiner combinerOf(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return Combiner::Sum;
  case ReduceKind::Max:
    return Combiner::Max;
  case ReduceKind::Min:
    return Combiner::Min;
  case ReduceKind::Prod:
    return Combiner::Prod;
  }
  llvm_unreachable("reduce kind");
}

LogicalResult rewriteReduce(Operation *raw, const ScheduleContext &ctx,
                            RewriterBase &rw, bool vectorize) {
  auto op = cast<ReduceOp>(raw);
  auto src = bufferOf(raw, rw, op.getSource());
  auto dst = bufferOf(raw, rw, op.getTarget());
  if (failed(src) || failed(dst))
    return failure();
  if (failed(check(raw, emitReduce(rw, op.getLoc(), *src, *dst, op.getDims(),
                                   combinerOf(op.getKind()), op.getAccumulate(),
                                   optionsFor(ctx, vectorize)))))
    return failure();
  rw.eraseOp(raw);
  return success();
}

void addReduceFillElementwise(ScheduleRegistry &r) {
  (void)r.add(
      {"cpu.reduce", "axe.reduce", "cpu", 10,
       "kept dims outside, reduced dims inside with the accumulator in "
       "registers; vectorized along a contiguous kept or reduced loop",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       [](Operation *op, const ScheduleContext &ctx, RewriterBase &rw) {
         return rewriteReduce(op, ctx, rw, true);
       }});
  (void)r.add(
      {"cpu.reduce.scalar", "axe.reduce", "cpu", 0,
       "the same loops without vectors",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       [](Operation *op, const ScheduleContext &ctx, RewriterBase &rw) {
         return rewriteReduce(op, ctx, rw, false);
       }});
  (void)r.add(
      {"cpu.fill", "axe.fill", "cpu", 10,
       "stores of the value at every placement, vectorized where contiguous",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       [](Operation *raw, const ScheduleContext &ctx, RewriterBase &rw) {
         auto op = cast<FillOp>(raw);
         auto dst = bufferOf(raw, rw, op.getTarget());
         if (failed(dst) ||
             failed(check(raw, emitFill(rw, op.getLoc(), *dst, op.getValue(),
                                        optionsFor(ctx, true)))))
           return failure();
         rw.eraseOp(raw);
         return success();
       }});
  (void)r.add(
      {"cpu.elementwise", "axe.elementwise", "cpu", 10,
       "the body cloned per element, or per vector when it is arith/math "
       "only and every operand is contiguous along one loop",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       [](Operation *raw, const ScheduleContext &ctx, RewriterBase &rw) {
         auto op = cast<ElementwiseOp>(raw);
         std::vector<CPUBuffer> ins, outs;
         for (Value v : op.getInputs()) {
           auto buf = bufferOf(raw, rw, v);
           if (failed(buf))
             return failure();
           ins.push_back(*buf);
         }
         for (Value v : op.getOutputs()) {
           auto buf = bufferOf(raw, rw, v);
           if (failed(buf))
             return failure();
           outs.push_back(*buf);
         }
         if (failed(check(raw, emitElementwise(rw, op.getLoc(), ins, outs,
                                               op.getBody(),
                                               optionsFor(ctx, true)))))
           return failure();
         rw.eraseOp(raw);
         return success();
       }});
}

} // namespace

void registerCPUSchedules() {
  static std::once_flag once;
  std::call_once(once, [] {
    ScheduleRegistry &r = ScheduleRegistry::global();
    addCopySchedules<CopyOp>(r, "axe.copy");
    addCopySchedules<CopyAsyncOp>(r, "axe.copy_async");
    addGemmSchedules(r);
    addReduceFillElementwise(r);
  });
}

} // namespace axe
