//===- AxeToCPU.cpp - Kernels and buffers to loops and memrefs ------------===//

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Codegen/BufferRef.h"
#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"
#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/Conversion/Passes.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/DialectConversion.h"

namespace axe {
#define GEN_PASS_DEF_CONVERTAXETOCPU
#include "axe/Conversion/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe {
namespace {

/// The attribute by which func-to-llvm gives a function its linkage.
constexpr llvm::StringLiteral kLLVMLinkageAttrName = "llvm.linkage";

//===----------------------------------------------------------------------===//
// Checks: every refusal is diagnosed before anything is rewritten, so the
// conversion itself only sees IR it can lower.
//===----------------------------------------------------------------------===//

/// The grid or cluster dim a CTA axis (bx, cby, ...) numbers, from the
/// target descriptions: kernels written for a GPU name its cluster axes,
/// which the CPU's own description lacks.
struct CTAAxis {
  bool inCluster;
  unsigned dim;
};
std::optional<CTAAxis> getCTAAxis(StringRef name) {
  const TargetAxis *axis = findAxisOnAnyTarget(name);
  if (!axis || axis->role != AxisRole::CTA || !axis->scope)
    return std::nullopt;
  if (*axis->scope == ExecutionScope::Kernel)
    return CTAAxis{false, axis->dim};
  if (*axis->scope == ExecutionScope::Cluster)
    return CTAAxis{true, axis->dim};
  return std::nullopt;
}

/// A cluster only groups CTAs that the hardware runs together. On the CPU
/// each CTA still runs as its own thread, so a kernel whose CTAs only use
/// their place in the cluster runs unchanged; what needs the CTAs of a
/// cluster to run together is refused: distributed shared memory (a layout
/// on a cluster axis) and operators or barriers at cluster scope.
LogicalResult checkClusterIndependent(KernelOp kernel) {
  if (kernel.getClusterSize() <= 1)
    return success();
  auto isClusterAxis = [](StringRef axis) {
    std::optional<CTAAxis> cta = getCTAAxis(axis);
    return cta && cta->inCluster;
  };
  WalkResult walk = kernel.getBody().walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs())
      if (auto scope = dyn_cast<ScopeAttr>(attr.getValue());
          scope && scope.getKind() == ScopeKind::Cluster) {
        op->emitError("runs at cluster scope, which the CPU target cannot "
                      "do: each CTA of a cluster runs as its own CPU thread");
        return WalkResult::interrupt();
      }
    for (Value v : op->getResults())
      if (auto type = dyn_cast<BufferType>(v.getType()))
        for (const std::string &axis : type.getLayout().tile().axes())
          if (isClusterAxis(axis)) {
            op->emitError() << "places data on cluster axis '" << axis
                            << "' (distributed shared memory), which the CPU "
                               "target cannot do: each CTA of a cluster runs "
                               "as its own CPU thread";
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult checkKernel(KernelOp kernel) {
  if (kernel.getMixedGrid().size() > 3)
    return kernel.emitError("a grid has at most 3 dims");
  if (failed(checkClusterIndependent(kernel)))
    return failure();
  // Only grid and cluster coordinates exist outside operators; the
  // schedules turned every thread coordinate an operator used into loops.
  WalkResult walk = kernel.getBody().walk([&](AxisIdOp id) {
    if (getCTAAxis(id.getAxis()))
      return WalkResult::advance();
    id.emitError() << "axis '" << id.getAxis()
                   << "' has no value on the CPU target: a CTA runs as one "
                      "CPU thread, so only grid coordinates exist outside "
                      "operators; an operator at warp (thread, warpgroup) "
                      "scope runs once per warp and may use it in its "
                      "operands";
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return failure();
  // Flags order CTAs that run concurrently; the CPU target runs a CTA's
  // partitions and warps as one thread, where a scope's add would run once
  // per instance of the scope, so it does not take them yet.
  walk = kernel.getBody().walk([&](Operation *op) {
    if (!isa<FlagAddOp, FlagWaitOp>(op))
      return WalkResult::advance();
    op->emitOpError() << "has no CPU lowering: flags between CTAs run on "
                         "NVIDIA targets (axe-to-nvvm) only";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// The schedules address a buffer through casts of its root (getCPUBuffer);
/// any other use would need the buffer itself, which has no CPU value.
LogicalResult checkBufferUses(Operation *op) {
  for (Value v : op->getResults()) {
    if (!isa<BufferType>(v.getType()))
      continue;
    for (Operation *user : v.getUsers())
      if (!isBufferCast(user) && !isa<SliceOp>(user))
        return op->emitError("buffer still used after dispatch: ") << *user;
  }
  return success();
}

LogicalResult checkAlloc(AllocOp alloc, const Result<StoragePlan> &plan) {
  if (!plan)
    return alloc.emitError() << plan.message();
  // Storage lives in a CTA or a function's frame; at the top of a module
  // there is none to give it.
  if (!alloc->getParentOfType<FunctionOpInterface>())
    return alloc.emitError()
           << "a buffer outside a function has no storage on the CPU target";
  // Its bytes must be addressable: a register buffer with one copy per
  // thread of a huge CTA would not be.
  auto type = cast<BufferType>(alloc.getType());
  int64_t elementBytes =
      (type.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  if (plan->size() > (int64_t(1) << 48) / std::max<int64_t>(elementBytes, 1))
    return alloc.emitError()
           << "the buffer needs " << plan->size()
           << " elements of CPU storage (every copy its scope's instances "
              "hold), more than the CPU target addresses";
  return success();
}

LogicalResult checkView(ViewOp view) {
  auto srcTy = cast<MemRefType>(view.getSource().getType());
  if (!srcTy.isStrided())
    return view.emitError("the memref of a view needs a strided layout");
  if (Result<StoragePlan> plan = getCPUViewStorage(view); !plan)
    return view.emitError() << plan.message();
  return success();
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// libomp's thread count, which sizes the workers of a kernel under OpenMP.
constexpr StringLiteral kOmpMaxThreads = "omp_get_max_threads";

/// Declares omp_get_max_threads where a kernel will call it (it has
/// per-worker memory) and nothing else declared it.
void declareOmpMaxThreads(ModuleOp module) {
  bool needed = false;
  module.walk([&](KernelOp kernel) {
    for (Operation &op : kernel.getBody().front())
      needed |= op.hasAttr(kPerWorkerAttr);
  });
  if (!needed || module.lookupSymbol(kOmpMaxThreads))
    return;
  OpBuilder b(module.getBodyRegion());
  auto type = b.getFunctionType({}, {b.getI32Type()});
  auto fn = func::FuncOp::create(b, module.getLoc(), kOmpMaxThreads, type);
  fn.setPrivate();
}

/// The grid coordinates (x first) of CTA `linear` when dim `fastest` runs
/// fastest, then the others from the last to the first.
SmallVector<Value> gridCoordinates(OpBuilder &b, Location loc, Value linear,
                                   ArrayRef<Value> extents, int64_t fastest) {
  SmallVector<int64_t> order{fastest};
  for (int64_t d = extents.size() - 1; d >= 0; --d)
    if (d != fastest)
      order.push_back(d);
  SmallVector<Value> coords(extents.size());
  for (auto [i, d] : llvm::enumerate(order)) {
    if (i + 1 == order.size()) {
      coords[d] = linear;
      break;
    }
    coords[d] = arith::RemUIOp::create(b, loc, linear, extents[d]);
    linear = arith::DivUIOp::create(b, loc, linear, extents[d]);
  }
  return coords;
}

/// A kernel becomes a loop over its grid: an scf.parallel, so that CTAs may
/// run concurrently once a parallel runtime lowers it (its last dim
/// fastest). Each CTA's body is an alloca scope, so the stack memory of its
/// buffers is freed when the CTA ends. Grid coordinates are the loop's
/// variables; a CTA's place in its cluster is its grid coordinate modulo
/// the cluster (clusters tile the grid); a dim the launch does not have is
/// 0.
///
/// A kernel with per-worker memory (allocPerWorker: packed panels a gemm
/// keeps from one CTA to the next) runs its grid as workers instead, each a
/// contiguous run of CTAs: one per OpenMP thread with `openmp`, else one. A
/// worker allocates the memory, runs its CTAs one after another, and frees
/// it. Its CTAs run the dim the memory asks for fastest (one its gemm's B
/// does not depend on), so that consecutive CTAs share the panels.
struct LowerKernel : public OpConversionPattern<KernelOp> {
  LowerKernel(const TypeConverter &converter, MLIRContext *ctx, bool openmp)
      : OpConversionPattern(converter, ctx), openmp(openmp) {}

  LogicalResult
  matchAndRewrite(KernelOp kernel, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = kernel.getLoc();
    SmallVector<Value> ubs;
    for (OpFoldResult g : kernel.getMixedGrid())
      ubs.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, g));
    ArrayRef<int64_t> cluster;
    if (kernel.getCluster())
      cluster = *kernel.getCluster();
    SmallVector<Operation *> perWorker;
    for (Operation &op : kernel.getBody().front())
      if (op.hasAttr(kPerWorkerAttr))
        perWorker.push_back(&op);
    Block *dest;
    SmallVector<Value> ivs;
    if (ubs.empty()) {
      auto exec = scf::ExecuteRegionOp::create(rewriter, loc, TypeRange());
      dest = rewriter.createBlock(&exec.getRegion());
      scf::YieldOp::create(rewriter, loc);
      rewriter.setInsertionPointToStart(dest);
    } else if (perWorker.empty()) {
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      SmallVector<Value> lbs(ubs.size(), zero), steps(ubs.size(), one);
      auto grid = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
      llvm::append_range(ivs, grid.getInductionVars());
      rewriter.setInsertionPointToStart(grid.getBody());
    } else {
      ivs = lowerToWorkers(rewriter, loc, ubs, perWorker);
    }
    if (!ubs.empty()) {
      auto scope = memref::AllocaScopeOp::create(rewriter, loc, TypeRange());
      dest = rewriter.createBlock(&scope.getBodyRegion());
      memref::AllocaScopeReturnOp::create(rewriter, loc);
    }
    rewriter.inlineBlockBefore(&kernel.getBody().front(),
                               dest->getTerminator());
    SmallVector<AxisIdOp> ids;
    dest->walk([&](AxisIdOp id) { ids.push_back(id); });
    for (AxisIdOp id : ids) {
      // checkKernel let only CTA axes through.
      CTAAxis axis = *getCTAAxis(id.getAxis());
      rewriter.setInsertionPoint(id);
      Value value;
      if (axis.dim >= ivs.size() ||
          (axis.inCluster && axis.dim >= cluster.size()))
        value = arith::ConstantIndexOp::create(rewriter, id.getLoc(), 0);
      else if (!axis.inCluster)
        value = ivs[axis.dim];
      else
        value = arith::RemUIOp::create(
            rewriter, id.getLoc(), ivs[axis.dim],
            arith::ConstantIndexOp::create(rewriter, id.getLoc(),
                                           cluster[axis.dim]));
      rewriter.replaceOp(id, value);
    }
    rewriter.eraseOp(kernel);
    return success();
  }

private:
  /// The workers' loops, with `perWorker` moved into each worker, filled
  /// and freed there; the builder is left where a CTA's body goes. Returns
  /// the CTA's grid coordinates.
  SmallVector<Value> lowerToWorkers(ConversionPatternRewriter &rewriter,
                                    Location loc, ArrayRef<Value> extents,
                                    ArrayRef<Operation *> perWorker) const {
    auto index = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value zero = index(0), one = index(1);
    Value ctas = one;
    for (Value extent : extents)
      ctas = arith::MulIOp::create(rewriter, loc, ctas, extent);
    Value workers = one;
    if (openmp) {
      auto threads = func::CallOp::create(rewriter, loc, kOmpMaxThreads,
                                          rewriter.getI32Type(), ValueRange());
      workers = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(), threads.getResult(0));
      workers = arith::MinSIOp::create(rewriter, loc, workers, ctas);
      workers = arith::MaxSIOp::create(rewriter, loc, workers, one);
    }
    Value perWorkerCtas =
        arith::CeilDivUIOp::create(rewriter, loc, ctas, workers);
    auto grid = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                        ValueRange{workers}, ValueRange{one});
    rewriter.setInsertionPoint(grid.getBody()->getTerminator());
    int64_t fastest = extents.size() - 1;
    for (Operation *op : perWorker) {
      if (auto dim = op->getAttrOfType<IntegerAttr>(kPerWorkerFastestAttr))
        if (dim.getInt() < int64_t(extents.size()))
          fastest = dim.getInt();
      rewriter.moveOpBefore(op, rewriter.getInsertionBlock(),
                            rewriter.getInsertionPoint());
      if (auto fill = op->getAttrOfType<IntegerAttr>(kPerWorkerFillAttr))
        fillPerWorker(rewriter, loc, op->getResult(0), fill.getInt());
    }
    Value first = arith::MulIOp::create(
        rewriter, loc, grid.getInductionVars()[0], perWorkerCtas);
    Value last = arith::MinUIOp::create(
        rewriter, loc,
        arith::AddIOp::create(rewriter, loc, first, perWorkerCtas), ctas);
    auto run = scf::ForOp::create(rewriter, loc, first, last, one);
    rewriter.setInsertionPointAfter(run);
    for (Operation *op : perWorker)
      memref::DeallocOp::create(rewriter, loc, op->getResult(0));
    rewriter.setInsertionPointToStart(run.getBody());
    return gridCoordinates(rewriter, loc, run.getInductionVar(), extents,
                           fastest);
  }

  /// memory[i] = value for every element of a static rank-1 memref.
  static void fillPerWorker(OpBuilder &b, Location loc, Value memory,
                            int64_t value) {
    auto type = cast<MemRefType>(memory.getType());
    Value v = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(type.getElementType(), value));
    auto loop = scf::ForOp::create(
        b, loc, arith::ConstantIndexOp::create(b, loc, 0),
        arith::ConstantIndexOp::create(b, loc, type.getNumElements()),
        arith::ConstantIndexOp::create(b, loc, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    memref::StoreOp::create(b, loc, v, memory, loop.getInductionVar());
  }

  bool openmp;
};

/// A buffer is flat memory holding every coordinate its layout reaches
/// (the plan, made before kernels became loops: it depends on how many
/// warps of the kernel hold a copy).
struct LowerAlloc : public OpConversionPattern<AllocOp> {
  LowerAlloc(const TypeConverter &converter, MLIRContext *ctx,
             const DenseMap<Operation *, Result<StoragePlan>> &plans)
      : OpConversionPattern(converter, ctx), plans(plans) {}

  LogicalResult
  matchAndRewrite(AllocOp alloc, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(alloc.getType());
    const Result<StoragePlan> &plan = plans.find(alloc)->second;
    // Hoisted to the start of the CTA: the contents of a buffer are
    // undefined when it is allocated, so one allocation serves every loop
    // iteration.
    Value mem = allocScratch(rewriter, alloc.getLoc(), type.getElementType(),
                             plan->size());
    rewriter.replaceOpWithNewOp<memref::CastOp>(
        alloc, getTypeConverter()->convertType(type), mem);
    return success();
  }

private:
  const DenseMap<Operation *, Result<StoragePlan>> &plans;
};

/// A view is its memref seen flat from the lowest address its tile reaches
/// (getCPUViewStorage), as the schedules address it.
struct LowerView : public OpConversionPattern<ViewOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ViewOp view, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Result<StoragePlan> plan = getCPUViewStorage(view);
    const StoragePlan::Dim *m = plan->find(kDefaultAxis);
    rewriter.replaceOp(
        view, emitFlatView(rewriter, view.getLoc(), view, adaptor.getSource(),
                           m ? m->lo : 0, plan->size(),
                           cast<MemRefType>(getTypeConverter()->convertType(
                               view.getType()))));
    return success();
  }
};

/// A slice's start is in the addresses the schedules computed from its
/// root, so its memory is its root's.
struct FoldSlice : public OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp slice, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(slice, adaptor.getSource());
    return success();
  }
};

/// The schedules' casts of a buffer to flat memory: now the memory itself.
struct ResolveBufferCast
    : public OpConversionPattern<UnrealizedConversionCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnrealizedConversionCastOp cast, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isBufferCast(cast) ||
        adaptor.getInputs()[0].getType() != cast.getResult(0).getType())
      return failure();
    rewriter.replaceOp(cast, adaptor.getInputs()[0]);
    return success();
  }
};

/// A CTA is one CPU thread, so a barrier outside a warp specialization has
/// nothing to wait for; every access is an ordinary one, so a proxy fence
/// has nothing to order; and turns order the execution of warpgroups that
/// run one after another here.
template <typename OpTy> struct DropSync : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// A copy on the CPU has completed when it returns (the schedules gave the
/// tokens of axe.copy_async a placeholder), so tokens carry nothing: a token
/// converts to no value at all, and the waits on it go.
struct DropWait : public OpConversionPattern<WaitOp> {
  using OpConversionPattern::OpConversionPattern;

  // Its tokens were converted to no values: the 1:N form.
  LogicalResult
  matchAndRewrite(WaitOp wait, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(wait);
    return success();
  }
};

struct DropTokenPlaceholder
    : public OpConversionPattern<UnrealizedConversionCastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(UnrealizedConversionCastOp cast, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isTokenPlaceholder(cast))
      return failure();
    rewriter.replaceOpWithMultiple(cast, {ValueRange()});
    return success();
  }
};

/// What axe types become on the CPU: buffers as the CPU backend's
/// TargetCodegen says (flat memrefs), tokens nothing.
void populateCPUTypeConversions(TypeConverter &converter) {
  converter.addConversion([](Type t) { return t; });
  static const TargetDescription &cpu = **lookupTarget("cpu");
  cpuBackend().codegen(cpu)->populateTypeConversions(converter);
  converter.addConversion(
      [](TokenType, SmallVectorImpl<Type> &) { return success(); });
}

LogicalResult
convertToCPU(ModuleOp module,
             const DenseMap<Operation *, Result<StoragePlan>> &plans,
             bool openmp) {
  MLIRContext *ctx = module.getContext();
  TypeConverter converter;
  populateCPUTypeConversions(converter);
  ConversionTarget target(*ctx);
  target.addIllegalDialect<AxeDialect>();
  target.addLegalOp<ModuleOp>();
  target.markUnknownOpDynamicallyLegal([&](Operation *op) {
    if (isTokenPlaceholder(op) || isBufferCast(op))
      return false;
    if (auto func = dyn_cast<FunctionOpInterface>(op))
      return converter.isLegal(func.getArgumentTypes()) &&
             converter.isLegal(func.getResultTypes());
    return converter.isLegal(op);
  });
  RewritePatternSet patterns(ctx);
  patterns.add<LowerKernel>(converter, ctx, openmp);
  patterns.add<LowerView, FoldSlice, ResolveBufferCast, DropSync<BarrierOp>,
               DropSync<PartitionBarrierOp>, DropSync<FenceAsyncProxyOp>,
               DropSync<TurnBeginOp>, DropSync<TurnEndOp>, DropWait,
               DropTokenPlaceholder>(converter, ctx);
  patterns.add<LowerAlloc>(converter, ctx, plans);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateCallOpTypeConversionPattern(patterns, converter);
  populateReturnOpTypeConversionPattern(patterns, converter);
  // Every pattern applies once its op was checked, so nothing is rolled
  // back; without rollback records the conversion stays linear in the ops
  // of a kernel's one big block.
  ConversionConfig config;
  config.allowPatternRollback = false;
  return applyPartialConversion(module, target, std::move(patterns), config);
}

struct ConvertAxeToCPUPass
    : public impl::ConvertAxeToCPUBase<ConvertAxeToCPUPass> {
  using ConvertAxeToCPUBase::ConvertAxeToCPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireConcreteLayouts(module, getArgument())))
      return signalPassFailure();
    bool ok = true;
    module.walk([&](Operation *op) {
      if (isa<OperatorOpInterface>(op)) {
        op->emitError("collective operator left for convert-axe-to-cpu; run "
                      "axe-dispatch{target=cpu} first");
        ok = false;
      }
    });
    if (!ok)
      return signalPassFailure();
    // Storage depends on the kernel (how many warps hold a copy of a
    // per-warp buffer), so it is planned before kernels become loops.
    DenseMap<Operation *, Result<StoragePlan>> plans;
    module.walk([&](Operation *op) {
      ok &= succeeded(checkBufferUses(op));
      if (auto k = dyn_cast<KernelOp>(op))
        ok &= succeeded(checkKernel(k));
      else if (auto a = dyn_cast<AllocOp>(op))
        ok &= succeeded(checkAlloc(
            a, plans.try_emplace(a, getCPUStorage(a)).first->second));
      else if (auto v = dyn_cast<ViewOp>(op))
        ok &= succeeded(checkView(v));
    });
    if (!ok)
      return signalPassFailure();
    // Not a type conversion: the partitions' ops are reordered in place
    // first, then converted with the rest of the kernel.
    planCPUPipelines(module);
    SmallVector<WarpSpecializeOp> specialized;
    module.walk([&](WarpSpecializeOp ws) { specialized.push_back(ws); });
    for (WarpSpecializeOp ws : specialized)
      ok &= succeeded(lowerCPUWarpSpecialize(ws));
    if (openmp)
      declareOmpMaxThreads(module);
    if (!ok || failed(lowerCPUPipelines(module)) ||
        failed(convertToCPU(module, plans, openmp)) ||
        failed(lowerCPUFloat8(module)))
      return signalPassFailure();
    // Nothing of the axe dialect is left, so the output loads without it
    // (e.g. in mlir-runner).
    module.walk(
        [](Operation *op) { op->removeAttr(AxeDialect::getTargetAttrName()); });
    // A private function (such as the operators' outlined code) is seen
    // from this module only; internal linkage tells LLVM so, which lets it
    // inline a function into its only caller and drop it.
    auto internal =
        LLVM::LinkageAttr::get(&getContext(), LLVM::Linkage::Internal);
    module.walk([&](func::FuncOp fn) {
      if (fn.isPrivate() && !fn.isExternal() &&
          !fn->hasAttr(kLLVMLinkageAttrName))
        fn->setAttr(kLLVMLinkageAttrName, internal);
    });
  }
};

} // namespace

void buildAxeToCPUPipeline(OpPassManager &pm, const AxeToCPUOptions &options) {
  // Buffers written with layout '?' get theirs from the CPU schedules.
  AxeInferLayoutsOptions infer;
  infer.target = "cpu";
  infer.vectorBits = options.vectorBits;
  pm.addPass(createAxeInferLayouts(infer, BackendSet{cpuBackend()}));
  AxeDispatchOptions dispatch;
  dispatch.target = "cpu";
  dispatch.vectorBits = options.vectorBits;
  dispatch.outline = options.outline;
  dispatch.reusePackedPanels = options.reusePackedPanels;
  pm.addPass(createAxeDispatch(dispatch, BackendSet{cpuBackend()}));
  ConvertAxeToCPUOptions convert;
  convert.openmp = options.openmp;
  pm.addPass(createConvertAxeToCPU(convert));
  addCPUToLLVMPasses(pm, CPUToLLVMOptions{options.openmp});
}

namespace {
struct AxeToCPUPipelineOptions
    : public PassPipelineOptions<AxeToCPUPipelineOptions> {
  Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("Vector width in bits (128, 256, 512); 0: the host's"),
      llvm::cl::init(0)};
  Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("Run the grid's CTAs on all cores through OpenMP (link "
                     "or load libomp)"),
      llvm::cl::init(false)};
  Option<bool> outline{
      *this, "outline",
      llvm::cl::desc("Each operator's loops in a private function, shared by "
                     "operators that emit the same code"),
      llvm::cl::init(true)};
  Option<bool> reusePackedPanels{
      *this, "reuse-packed-panels",
      llvm::cl::desc("Let the packed gemm keep B's packed panels across the "
                     "CTAs one worker runs in a launch"),
      llvm::cl::init(true)};
};
} // namespace

void registerAxeToCPU() {
  registerConvertAxeToCPU();
  registerAxeLowerAllocaScopes();
  registerAxeMPIABI();
  static PassPipelineRegistration<AxeToCPUPipelineOptions> pipeline(
      "axe-to-cpu",
      "Dispatch every collective operator with the CPU schedules, lower "
      "kernels and buffers to loops and memrefs, then to the llvm dialect",
      [](OpPassManager &pm, const AxeToCPUPipelineOptions &o) {
        AxeToCPUOptions options;
        options.vectorBits = o.vectorBits;
        options.openmp = o.openmp;
        options.outline = o.outline;
        options.reusePackedPanels = o.reusePackedPanels;
        buildAxeToCPUPipeline(pm, options);
      });
}

} // namespace axe
