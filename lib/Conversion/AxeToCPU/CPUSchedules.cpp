//===- CPUSchedules.cpp - Schedules of the CPU target ---------------------===//
//
// Each schedule adapts one axe operator to the CPU code generator: it finds
// the operands in memory (getCPUBuffer), checks what the generator needs
// (match, with a reason when it declines) and emits the loops (rewrite),
// once per instance of the operator's scope (CPUInstances.cpp).
//
//===----------------------------------------------------------------------===//

#include "CPUProposals.h"

#include "axe/Codegen/BufferRef.h"
#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/ElementSchedules.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace axe {

MemRefType getCPUMemRefType(Type elementType) {
  auto layout = StridedLayoutAttr::get(elementType.getContext(),
                                       ShapedType::kDynamic, {1});
  return MemRefType::get({ShapedType::kDynamic}, elementType, layout);
}

Result<StoragePlan> getCPUViewStorage(ViewOp view) {
  // The view's layout is the memref's strides over the tile (the verifier
  // checks it), so its reach on m is the tile's memory; it starts below the
  // tile's first element where a stride is negative.
  return StoragePlan::forLayout(view.getType().getLayout());
}

namespace {

/// The buffer's chain (walkBufferChain), with the checks only the CPU needs:
/// its memory space exists on the CPU and its layout has no device axes.
Result<BufferChain> walkCPUChain(Value value) {
  auto chain = walkBufferChain(value);
  if (!chain)
    return fail("the buffer is not an axe.alloc or axe.view (or a slice of "
                "one), so the CPU target cannot find its memory");
  auto type = cast<BufferType>(chain->root->getResult(0).getType());
  // axe-infer-layouts runs match only with layouts in place; say so rather
  // than read a layout that is not there.
  if (!type.hasLayout() || !cast<BufferType>(value.getType()).hasLayout())
    return fail("the buffer's layout is '?': axe-infer-layouts chooses it "
                "before a schedule can run");
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
                  "' places the buffer on other processes too; only an "
                  "axe.copy or axe.reduce at mesh scope (cpu.mesh) moves it");
  return chain;
}

} // namespace

/// The private copy of `alloc` that `instance` uses, or why there is none.
static Result<bool> checkInstance(AllocOp alloc,
                                  std::optional<ScopeKind> instanceScope) {
  auto instances = getCPUInstances(alloc);
  if (!instances)
    return instances.takeFailure();
  if (!*instances)
    return true;
  ScopeKind owner = (*instances)->scope;
  if (instanceScope == owner)
    return true;
  return fail(
      std::string("the register buffer has one copy per ") +
      stringifyScopeKind(owner).str() +
      " (its layout places no data on wider thread axes), so only "
      "an operator at " +
      stringifyScopeKind(owner).str() + " scope can use it, not " +
      (instanceScope
           ? "one at " + stringifyScopeKind(*instanceScope).str() + " scope"
           : std::string("one outside a loop over ") +
                 stringifyScopeKind(owner).str() + "s"));
}

Result<bool> canGetCPUBuffer(Value value,
                             std::optional<ScopeKind> instanceScope) {
  auto chain = walkCPUChain(value);
  if (!chain)
    return chain.takeFailure();
  if (auto alloc = dyn_cast<AllocOp>(chain->root)) {
    if (auto plan = getCPUStorage(alloc); !plan)
      return plan.takeFailure();
    return checkInstance(alloc, instanceScope);
  }
  return true;
}

Result<CPUBuffer> getCPUBuffer(OpBuilder &b, Location loc, Value value,
                               const CPUInstance *instance) {
  auto chain = walkCPUChain(value);
  if (!chain)
    return chain.takeFailure();
  auto type = cast<BufferType>(value.getType());
  CPUBuffer buf;
  buf.ref.elementType = type.getElementType();
  Value root = chain->root->getResult(0);
  if (auto alloc = dyn_cast<AllocOp>(chain->root)) {
    auto plan = getCPUStorage(alloc);
    if (!plan)
      return plan.takeFailure();
    buf.storage = *plan;
    std::optional<ScopeKind> scope;
    if (instance)
      scope = instance->scope;
    if (auto ok = checkInstance(alloc, scope); !ok)
      return ok.takeFailure();
    // The instance's own copy: its number on the instance axis.
    if (auto instances = getCPUInstances(alloc); *instances)
      buf.ref.offset.add(b, loc, (*instances)->axis, instance->index);
  } else {
    auto plan = getCPUViewStorage(cast<ViewOp>(chain->root));
    if (!plan)
      return plan.takeFailure();
    buf.storage = *plan;
  }
  buf.memory = UnrealizedConversionCastOp::create(
                   b, loc, getCPUMemRefType(buf.ref.elementType), root)
                   .getResult(0);
  // The layout and shape of the value's own type, and the run-time offsets
  // of its dynamic slice starts, after the instance's own copy.
  auto ref = resolveBuffer(b, loc, value);
  if (!ref)
    return ref.takeFailure();
  buf.ref.root = ref->root;
  buf.ref.layout = ref->layout;
  buf.ref.shape = ref->shape;
  buf.ref.offset.add(b, loc, ref->offset);
  buf.space = cast<BufferType>(root.getType()).getMemorySpace();
  buf.ref.offsetAlignment = ref->offsetAlignment;
  return buf;
}

namespace {

/// Every CPU schedule runs on any CPU target; the vector unit is in the
/// context.
TargetPredicate cpuTargets() { return targetKind(TargetKind::CPU); }

//===----------------------------------------------------------------------===//
// Shared match steps
//===----------------------------------------------------------------------===//

/// What every CPU schedule checks: the operator can run as a loop over the
/// instances of its scope (or once, at cta scope), and each buffer is in
/// memory the CPU has, as that scope sees it.
ScheduleMatch matchCommon(Operation *op) {
  auto plan = planInstanceLoop(op);
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  std::optional<ScopeKind> instanceScope;
  if (op->getParentOfType<KernelOp>() && plan->scope < ScopeKind::CTA)
    instanceScope = plan->scope;
  for (Value v : cast<OperatorOpInterface>(op).getBufferOperands())
    if (auto ok = canGetCPUBuffer(v, instanceScope); !ok)
      return ScheduleMatch::decline(ok.message());
  return ScheduleMatch::accept(*plan);
}

/// The body of a CPU schedule: lowers the operator it is given (inside the
/// loop over instances when there is one) and erases it.
using CPUBody = std::function<LogicalResult(
    Operation *, const ScheduleContext &, RewriterBase &, const CPUInstance *)>;

/// A schedule's rewrite: the body, once per instance of the operator's
/// scope (docs/CPUExecutionModel.md).
Schedule::RewriteFn perInstance(CPUBody body) {
  return [body](Operation *op, const ScheduleContext &ctx,
                const std::any &matchPlan, RewriterBase &rw) -> LogicalResult {
    // The loop over instances was planned by matchCommon.
    const auto *plan = std::any_cast<InstanceLoopPlan>(&matchPlan);
    if (!plan)
      return op->emitError("CPU schedule rewrite without its match's plan");
    return emitInstanceLoop(op, *plan, rw,
                            [&](Operation *inner, const CPUInstance *inst) {
                              return body(inner, ctx, rw, inst);
                            });
  };
}

CPUCodegenOptions optionsFor(const ScheduleContext &ctx, bool vectorize) {
  CPUCodegenOptions o;
  o.vectorLanes32 = vectorize ? ctx.options.vectorLanes32 : 1;
  o.vectorRegisters = ctx.options.vectorRegisters;
  o.transposeVectors = vectorize;
  o.reusePackedPanels = ctx.options.reusePackedPanels;
  return o;
}

/// Reports a generator failure on the op being rewritten.
LogicalResult check(Operation *op, const Result<bool> &r) {
  if (r)
    return success();
  return op->emitError() << r.message();
}

FailureOr<CPUBuffer> bufferOf(Operation *op, OpBuilder &b, Value v,
                              const CPUInstance *inst) {
  Result<CPUBuffer> r = getCPUBuffer(b, op->getLoc(), v, inst);
  if (!r) {
    op->emitError() << r.message();
    return failure();
  }
  return *r;
}

//===----------------------------------------------------------------------===//
// copy / copy_async
//===----------------------------------------------------------------------===//

template <typename OpTy> Schedule::RewriteFn copyRewrite() {
  Schedule::RewriteFn body = perInstance(
      [](Operation *raw, const ScheduleContext &ctx, RewriterBase &rw,
         const CPUInstance *inst) -> LogicalResult {
        auto op = cast<OpTy>(raw);
        auto src = bufferOf(raw, rw, op.getSource(), inst);
        auto dst = bufferOf(raw, rw, op.getTarget(), inst);
        if (failed(src) || failed(dst))
          return failure();
        if (failed(check(raw, emitCopy(rw, op.getLoc(), *src, *dst,
                                       optionsFor(ctx, true)))))
          return failure();
        rw.eraseOp(raw);
        return success();
      });
  return [body](Operation *op, const ScheduleContext &ctx, const std::any &plan,
                RewriterBase &rw) -> LogicalResult {
    if constexpr (std::is_same_v<OpTy, CopyAsyncOp>)
      // The copy has completed when it returns: its token carries nothing.
      replaceTokenWithPlaceholder(cast<CopyAsyncOp>(op).getToken(), rw);
    return body(op, ctx, plan, rw);
  };
}

template <typename OpTy> ScheduleMatch matchCopy(Operation *raw) {
  ScheduleMatch m = matchCommon(raw);
  if (!m.accepted())
    return m;
  auto op = cast<OpTy>(raw);
  auto s = cast<BufferType>(op.getSource().getType());
  auto t = cast<BufferType>(op.getTarget().getType());
  if (auto ok = checkCopyShapes(s.getShape(), t.getShape()); !ok)
    return ScheduleMatch::decline(ok.message());
  return m;
}

template <typename OpTy>
void addCopySchedules(ScheduleRegistry &r, StringRef opName) {
  (void)r.add(
      {"cpu.copy", opName.str(), cpuTargets(), 10,
       "loops from the common refinement of both layouts; vector loads and "
       "stores where both sides are contiguous on m, an in-register "
       "transpose where they are contiguous along different loops",
       [](Operation *op, const ScheduleContext &) {
         return matchCopy<OpTy>(op);
       },
       copyRewrite<OpTy>(), proposeCPUCopy});
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

LogicalResult rewriteGemm(Operation *raw, const ScheduleContext &ctx,
                          RewriterBase &rw, const CPUInstance *inst,
                          bool packed) {
  auto op = cast<GemmOp>(raw);
  auto a = bufferOf(raw, rw, op.getA(), inst);
  auto b = bufferOf(raw, rw, op.getB(), inst);
  auto c = bufferOf(raw, rw, op.getC(), inst);
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

ScheduleMatch matchPacked(Operation *op) {
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
  return m;
}

/// `value` as a match step sees it: layout, shape, element type and
/// storage, without memory (getCPUBuffer emits IR to find that).
Result<CPUBuffer> describeCPUBuffer(Value value) {
  auto chain = walkCPUChain(value);
  if (!chain)
    return chain.takeFailure();
  auto type = cast<BufferType>(value.getType());
  CPUBuffer buf;
  buf.ref.layout = type.getLayout();
  buf.ref.shape = Shape(type.getShape());
  buf.ref.elementType = type.getElementType();
  Result<StoragePlan> plan = isa<AllocOp>(chain->root)
                                 ? getCPUStorage(cast<AllocOp>(chain->root))
                                 : getCPUViewStorage(cast<ViewOp>(chain->root));
  if (!plan)
    return plan.takeFailure();
  buf.storage = *plan;
  return buf;
}

/// The packed kernel when it packs nothing. A schedule of its own, above
/// cpu.gemm.packed, so that what packing costs shows where layouts are
/// chosen by the schedules' matches (axe-infer-layouts): panels win over
/// layouts the gemm must pack on every call.
ScheduleMatch matchPanels(Operation *op, const ScheduleContext &ctx) {
  ScheduleMatch m = matchPacked(op);
  if (!m.accepted())
    return m;
  auto g = cast<GemmOp>(op);
  auto a = describeCPUBuffer(g.getA());
  auto b = describeCPUBuffer(g.getB());
  auto c = describeCPUBuffer(g.getC());
  if (!a || !b || !c ||
      !gemmReadsPanelsInPlace(*a, g.getTransposeA(), *b, g.getTransposeB(), *c,
                              optionsFor(ctx, true)))
    return ScheduleMatch::decline(
        "A and B are not f32 in the micro-kernel's panels, or C is not f32 "
        "rows of unit stride; cpu.gemm.packed packs them");
  return m;
}

void addGemmSchedules(ScheduleRegistry &r) {
  (void)r.add({"cpu.gemm.panels", "axe.gemm", cpuTargets(), 20,
               "the register-blocked vector FMA micro-kernel on A and B "
               "already in its f32 panels and C in f32 rows, nothing packed",
               matchPanels,
               perInstance([](Operation *op, const ScheduleContext &ctx,
                              RewriterBase &rw, const CPUInstance *inst) {
                 return rewriteGemm(op, ctx, rw, inst, true);
               }),
               proposeCPUGemmPacked});
  (void)r.add(
      {"cpu.gemm.packed", "axe.gemm", cpuTargets(), 10,
       "packs A and B into f32 panels by layout copies, then a register-"
       "blocked vector FMA micro-kernel; C unpacked to its layout",
       [](Operation *op, const ScheduleContext &) { return matchPacked(op); },
       perInstance([](Operation *op, const ScheduleContext &ctx,
                      RewriterBase &rw, const CPUInstance *inst) {
         return rewriteGemm(op, ctx, rw, inst, true);
       }),
       proposeCPUGemmPacked});
  (void)r.add(
      {"cpu.gemm.naive", "axe.gemm", cpuTargets(), 0,
       "a scalar loop nest on the layouts, accumulating in C's type",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       perInstance([](Operation *op, const ScheduleContext &ctx,
                      RewriterBase &rw, const CPUInstance *inst) {
         return rewriteGemm(op, ctx, rw, inst, false);
       }),
       proposeCPUGemmNaive});
}

//===----------------------------------------------------------------------===//
// reduce / fill / elementwise
//===----------------------------------------------------------------------===//

LogicalResult rewriteReduce(Operation *raw, const ScheduleContext &ctx,
                            RewriterBase &rw, const CPUInstance *inst) {
  auto op = cast<ReduceOp>(raw);
  auto src = bufferOf(raw, rw, op.getSource(), inst);
  auto dst = bufferOf(raw, rw, op.getTarget(), inst);
  if (failed(src) || failed(dst))
    return failure();
  if (failed(check(raw, emitReduce(rw, op.getLoc(), *src, *dst, op.getDims(),
                                   combinerOf(op.getKind()), op.getAccumulate(),
                                   optionsFor(ctx, true)))))
    return failure();
  rw.eraseOp(raw);
  return success();
}

void addReduceFillElementwise(ScheduleRegistry &r) {
  (void)r.add(
      {"cpu.reduce", "axe.reduce", cpuTargets(), 10,
       "kept dims outside, reduced dims inside with the accumulator in "
       "registers; vectorized along a contiguous kept or reduced loop",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       perInstance(rewriteReduce), proposeCPUReduce});
  (void)r.add(
      {"cpu.fill", "axe.fill", cpuTargets(), 10,
       "stores of the value at every placement, vectorized where contiguous",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       perInstance([](Operation *raw, const ScheduleContext &ctx,
                      RewriterBase &rw,
                      const CPUInstance *inst) -> LogicalResult {
         auto op = cast<FillOp>(raw);
         auto dst = bufferOf(raw, rw, op.getTarget(), inst);
         if (failed(dst) ||
             failed(check(raw, emitFill(rw, op.getLoc(), *dst, op.getValue(),
                                        optionsFor(ctx, true)))))
           return failure();
         rw.eraseOp(raw);
         return success();
       }),
       proposeCPUFill});
  (void)r.add(
      {"cpu.elementwise", "axe.elementwise", cpuTargets(), 10,
       "the body cloned per element, or per vector when it is arith/math "
       "only and every operand is contiguous along one loop",
       [](Operation *op, const ScheduleContext &) { return matchCommon(op); },
       perInstance([](Operation *raw, const ScheduleContext &ctx,
                      RewriterBase &rw,
                      const CPUInstance *inst) -> LogicalResult {
         auto op = cast<ElementwiseOp>(raw);
         std::vector<CPUBuffer> ins, outs;
         for (Value v : op.getInputs()) {
           auto buf = bufferOf(raw, rw, v, inst);
           if (failed(buf))
             return failure();
           ins.push_back(*buf);
         }
         for (Value v : op.getOutputs()) {
           auto buf = bufferOf(raw, rw, v, inst);
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
       }),
       proposeCPUElementwise});
}

/// The generic element schedules (lib/Codegen) as the CPU runs them: once
/// per instance of the operator's scope, every element in the one thread.
ElementBackend cpuElementBackend() {
  ElementBackend be;
  be.prefix = "cpu";
  be.targets = cpuTargets();
  be.common = [](Operation *op, const ScheduleContext &) {
    return matchCommon(op);
  };
  be.spaceOf = [](Value v) {
    return cast<BufferType>(v.getType()).getMemorySpace();
  };
  be.wrap = [](ElementRewrite body) {
    return perInstance([body](Operation *op, const ScheduleContext &ctx,
                              RewriterBase &rw, const CPUInstance *inst) {
      auto resolve =
          [&](OpBuilder &b,
              ValueRange buffers) -> FailureOr<std::vector<ElementOperand>> {
        std::vector<ElementOperand> out;
        for (Value v : buffers) {
          auto buf = bufferOf(op, b, v, inst);
          if (failed(buf))
            return failure();
          auto emitter = LayoutEmitter::get(buf->ref.layout, buf->ref.shape);
          if (!emitter)
            return op->emitError() << emitter.message();
          buf->emitter.emplace(std::move(*emitter));
          buf->codegen = ctx.codegen->threads();
          out.push_back(std::move(*buf));
        }
        return out;
      };
      return body(op, ctx, rw, resolve);
    });
  };
  be.propose = [](StringRef opName) -> Schedule::ProposeFn {
    if (opName == "axe.copy" || opName == "axe.copy_async")
      return proposeCPUCopy;
    if (opName == "axe.fill")
      return proposeCPUFill;
    if (opName == "axe.elementwise")
      return proposeCPUElementwise;
    return proposeCPUReduce;
  };
  return be;
}

} // namespace

void addCPUSchedules(ScheduleRegistry &r) {
  addElementSchedules(r, cpuElementBackend());
  addCopySchedules<CopyOp>(r, "axe.copy");
  addCopySchedules<CopyAsyncOp>(r, "axe.copy_async");
  addGemmSchedules(r);
  addReduceFillElementwise(r);
  addCPUMeshSchedules(r);
}

} // namespace axe
