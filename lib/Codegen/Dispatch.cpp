//===- Dispatch.cpp - axe-dispatch: rewrite operators with schedules ------===//
//
// The pass holds the backends it was built with: their schedules form its
// registry, and the backend that lowers for an operator's target gives the
// TargetCodegen its schedules emit through.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/Outline.h"
#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/KernelChecks.h"
#include "axe/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SetVector.h"

#include <map>

namespace axe {
#define GEN_PASS_DEF_AXEDISPATCH
#include "axe/Codegen/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe {

KernelScheduleContext::KernelScheduleContext() = default;
KernelScheduleContext::KernelScheduleContext(KernelScheduleContext &&) =
    default;
KernelScheduleContext::~KernelScheduleContext() = default;

/// A pass option may lower a kernel for another target than the one its IR
/// names (the cross-target tests lower CPU kernels for sm_80), and the
/// kernel's verifier checked it against its own target only. A GPU kernel's
/// buffers are checked again against the chip it is lowered for, so that a
/// layout on an axis that chip lacks is refused instead of lowered to wrong
/// code. The CPU is exempt: it runs any GPU kernel, as the reference for it.
static LogicalResult verifyForLoweringTarget(Operation *op,
                                             const TargetDescription &target,
                                             TargetAttr source,
                                             StringRef pass) {
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    kernel = op->getParentOfType<KernelOp>();
  if (!kernel || target.kind != TargetKind::GPU ||
      (source && source.getName() == target.name))
    return success();
  ScopedDiagnosticHandler note(op->getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diag.attachNote(kernel.getLoc())
          << pass << " lowers this kernel for " << target.name
          << ", so its buffers must be valid on " << target.name;
    return failure(); // on to the next handler
  });
  return verifyKernelBuffersFor(kernel, target);
}

FailureOr<KernelScheduleContext>
buildScheduleContext(Operation *op, StringRef targetOption, int64_t vectorBits,
                     const BackendSet &backends, StringRef pass) {
  KernelScheduleContext kc;
  ScheduleContext &ctx = kc.schedule;
  TargetAttr sourceAttr = getTargetAttr(op);
  std::string name = !targetOption.empty() ? targetOption.str()
                     : sourceAttr          ? sourceAttr.getName().str()
                                           : std::string();
  if (name.empty())
    return op->emitError() << "no target for " << pass << ": pass " << pass
                           << "{target=...} or put #axe.target<...> on the "
                              "kernel or the module";
  Result<const TargetDescription *> t = lookupTarget(name);
  if (!t)
    return op->emitError() << pass << ": " << t.message();
  ctx.target = *t;
  if (failed(verifyForLoweringTarget(op, **t, sourceAttr, pass)))
    return failure();
  ctx.source = ctx.target;
  if (sourceAttr)
    if (Result<const TargetDescription *> s =
            lookupTarget(sourceAttr.getName()))
      ctx.source = *s;
  // Vectors and register blocks are sized from the target's SIMD unit: the
  // host's, or the width the pass option asks for.
  if (ctx.target->vectorUnit) {
    Result<CPUVectorUnit> unit = cpuVectorUnit(vectorBits);
    if (!unit)
      return op->emitError() << pass << " vector-bits: " << unit.message();
    ctx.options.vectorLanes32 = unit->lanes32();
    ctx.options.vectorRegisters = unit->vectorRegisters;
  }
  if (const Backend *backend = backends.find(*ctx.target))
    if (backend->codegen)
      kc.codegen = backend->codegen(*ctx.target);
  ctx.codegen = kc.codegen.get();
  return kc;
}

namespace {

/// The operators a schedule's rewrite creates: a schedule may expand its op
/// into smaller operators (a mesh gemm into a local gemm and a collective),
/// which dispatch then takes like the ones the user wrote.
struct CreatedOperators : public RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    // A moved op (previous is set) existed before the rewrite.
    if (!previous.isSet())
      op->walk([&](OperatorOpInterface inner) { ops.insert(inner); });
  }
  void notifyOperationErased(Operation *op) override {
    op->walk([&](Operation *inner) { ops.remove(inner); });
  }
  llvm::SetVector<Operation *> ops;
};

struct AxeDispatchPass : public impl::AxeDispatchBase<AxeDispatchPass> {
  using AxeDispatchBase::AxeDispatchBase;

  AxeDispatchPass(const AxeDispatchOptions &options, BackendSet backends,
                  std::shared_ptr<const ScheduleRegistry> schedules)
      : AxeDispatchBase(options), backends(std::move(backends)),
        schedules(std::move(schedules)) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    // The outliner's regions, functions and calls.
    registry.insert<scf::SCFDialect, func::FuncDialect>();
    backends.addDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *) override {
    if (!schedules)
      schedules = backends.schedules();
    return success();
  }

  void runOnOperation() override {
    if (failed(requireConcreteLayouts(getOperation(), getArgument())))
      return signalPassFailure();
    OperatorOutliner outliner;
    SmallVector<Operation *> ops;
    getOperation()->walk([&](OperatorOpInterface op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    std::map<Operation *, FailureOr<KernelScheduleContext>> contexts;
    bool ok = true;
    for (Operation *op : ops) {
      Operation *kernel = op->getParentOfType<KernelOp>();
      auto it = contexts.find(kernel);
      if (it == contexts.end())
        it = contexts
                 .emplace(kernel, buildScheduleContext(op, target, vectorBits,
                                                       backends, getArgument()))
                 .first;
      if (failed(it->second)) {
        ok = false;
        continue;
      }
      it->second->schedule.options.reusePackedPanels = reusePackedPanels;
      // Keep going after a failure so every undispatchable op is reported.
      if (failed(dispatch(op, it->second->schedule, outliner, rewriter)))
        ok = false;
      else
        ++numDispatched;
    }
    if (!ok)
      signalPassFailure();
  }

  static LogicalResult checkMeshScope(Operation *op,
                                      const ScheduleContext &ctx) {
    auto operatorOp = dyn_cast<OperatorOpInterface>(op);
    if (!operatorOp || !operatorOp.getScope().isMesh() ||
        (ctx.codegen && ctx.codegen->runsDeviceMeshes()))
      return success();
    return op->emitError()
           << op->getName() << " runs at " << operatorOp.getScope()
           << ", but target " << ctx.targetName()
           << " has no backend that runs device meshes; mesh scopes lower "
              "for the cpu target (one process per device, run with "
              "axe-mpirun)";
  }

  LogicalResult dispatch(Operation *op, const ScheduleContext &ctx,
                         OperatorOutliner &outliner, RewriterBase &rewriter) {
    if (failed(checkMeshScope(op, ctx)))
      return failure();
    auto selected = schedules->select(op, ctx);
    if (failed(selected))
      return failure();
    const auto &[schedule, match] = *selected;
    if (auto gemm = dyn_cast<GemmOp>(op);
        gemm && gemm.getZeroInit() && !schedule->zeroInit &&
        failed(fillAccumulator(gemm, ctx, outliner, rewriter)))
      return failure();
    scf::ExecuteRegionOp region;
    if (outline && ctx.codegen && ctx.codegen->canOutlineOperators())
      region = outliner.wrap(op, rewriter);
    CreatedOperators created;
    rewriter.setListener(&created);
    LogicalResult applied =
        ScheduleRegistry::apply(op, ctx, *schedule, match, rewriter);
    rewriter.setListener(nullptr);
    if (failed(applied)) {
      if (region)
        OperatorOutliner::unwrap(region, rewriter);
      return failure();
    }
    // A region that still holds operators is inlined, not outlined, so the
    // created ones stay where dispatch finds them.
    if (region)
      countOutlining(outliner.finish(region, schedule->name, rewriter));
    bool ok = true;
    for (Operation *inner : created.ops) {
      if (failed(dispatch(inner, ctx, outliner, rewriter)))
        ok = false;
      else
        ++numDispatched;
    }
    return success(ok);
  }

  void countOutlining(OperatorOutliner::Outcome outcome) {
    switch (outcome) {
    case OperatorOutliner::Outcome::Outlined:
      ++numOutlined;
      break;
    case OperatorOutliner::Outcome::Shared:
      ++numShared;
      break;
    case OperatorOutliner::Outcome::Inlined:
      ++numInlined;
      break;
    case OperatorOutliner::Outcome::Empty:
      break;
    }
  }

  /// A zero_init gemm whose schedule reads C: C is filled with zeros first
  /// (a fill dispatched like any other) and the gemm accumulates onto it.
  LogicalResult fillAccumulator(GemmOp gemm, const ScheduleContext &ctx,
                                OperatorOutliner &outliner,
                                RewriterBase &rewriter) {
    rewriter.setInsertionPoint(gemm);
    Type element = cast<BufferType>(gemm.getC().getType()).getElementType();
    Value zero = arith::ConstantOp::create(rewriter, gemm.getLoc(), element,
                                           rewriter.getZeroAttr(element));
    auto fill = FillOp::create(rewriter, gemm.getLoc(), gemm.getC(), zero,
                               gemm.getScopeAttr(), /*schedule=*/nullptr);
    gemm.setZeroInit(false);
    if (failed(dispatch(fill, ctx, outliner, rewriter)))
      return failure();
    ++numDispatched;
    // axe-insert-barriers ran before the fill existed: the threads that
    // fill a shared or global C are not those that read it in the gemm.
    auto c = cast<BufferType>(gemm.getC().getType());
    if (c.getMemorySpace() != MemorySpace::Reg &&
        c.getMemorySpace() != MemorySpace::TMem &&
        gemm.getScope().getKind() != ScopeKind::Thread) {
      rewriter.setInsertionPoint(gemm);
      BarrierOp::create(rewriter, gemm.getLoc(), gemm.getScopeAttr());
    }
    return success();
  }

  BackendSet backends;
  std::shared_ptr<const ScheduleRegistry> schedules;
};

} // namespace

std::unique_ptr<Pass> createAxeDispatch(const AxeDispatchOptions &options,
                                        const BackendSet &backends) {
  return createAxeDispatch(options, backends, nullptr);
}

std::unique_ptr<Pass>
createAxeDispatch(const AxeDispatchOptions &options, const BackendSet &backends,
                  std::shared_ptr<const ScheduleRegistry> schedules) {
  return std::make_unique<AxeDispatchPass>(options, backends,
                                           std::move(schedules));
}

void registerCodegenPasses(const BackendSet &backends) {
  registerPass([backends] { return createAxeDispatch({}, backends); });
  registerPass([] { return createAxeInsertBarriers(); });
  registerPass([backends] { return createAxeInferLayouts({}, backends); });
}

} // namespace axe
