//===- AxeToCPU.cpp - Kernels and buffers to loops and memrefs ------------===//

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/Conversion/Passes.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
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

/// Replaces every unrealized cast of `buffer` (made by the schedules) with
/// `memory`.
void resolveCasts(Value buffer, Value memory) {
  for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
    auto cast = dyn_cast<UnrealizedConversionCastOp>(user);
    if (!cast || cast->getNumResults() != 1)
      continue;
    cast.getResult(0).replaceAllUsesWith(memory);
    cast->erase();
  }
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
    return axis == "cbx" || axis == "cby" || axis == "cbz";
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

LogicalResult lowerKernel(KernelOp kernel) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  if (failed(checkClusterIndependent(kernel)))
    return failure();
  ArrayRef<int64_t> cluster;
  if (kernel.getCluster())
    cluster = *kernel.getCluster();
  // Grid axes become loops; the grid runs as an scf.parallel so that CTAs
  // may run concurrently once a parallel runtime lowers it.
  SmallVector<Value> lbs, ubs, steps;
  for (OpFoldResult g : kernel.getMixedGrid()) {
    lbs.push_back(indexConstant(b, loc, 0));
    steps.push_back(indexConstant(b, loc, 1));
    if (auto v = dyn_cast<Value>(g))
      ubs.push_back(v);
    else
      ubs.push_back(indexConstant(
          b, loc, cast<IntegerAttr>(cast<Attribute>(g)).getInt()));
  }
  static const char *gridAxes[] = {"bx", "by", "bz"};
  static const char *clusterAxes[] = {"cbx", "cby", "cbz"};
  if (ubs.size() > 3)
    return kernel.emitError("a grid has at most 3 dims");
  Block &body = kernel.getBody().front();
  LogicalResult result = success();
  auto lowerBody = [&](OpBuilder &nb, ValueRange ivs) {
    // Move the body in, then give axis_id ops their values.
    Block *dest = nb.getInsertionBlock();
    dest->getOperations().splice(nb.getInsertionPoint(), body.getOperations());
    dest->walk([&](AxisIdOp id) {
      StringRef axis = id.getAxis();
      for (unsigned d = 0; d < ubs.size(); ++d)
        if (axis == gridAxes[d]) {
          id.getResult().replaceAllUsesWith(ivs[d]);
          id->erase();
          return;
        }
      for (unsigned d = 0; d < cluster.size() && d < ubs.size(); ++d)
        if (axis == clusterAxes[d]) {
          // The CTA's place in its cluster: clusters tile the grid.
          OpBuilder ib(id);
          Value extent = indexConstant(ib, id.getLoc(), cluster[d]);
          id.getResult().replaceAllUsesWith(
              arith::RemUIOp::create(ib, id.getLoc(), ivs[d], extent));
          id->erase();
          return;
        }
      if (axis == "bx" || axis == "by" || axis == "bz" || axis == "cbx" ||
          axis == "cby" || axis == "cbz") {
        // A grid dim the launch does not have, or a cluster coordinate of a
        // one-CTA cluster.
        OpBuilder ib(id);
        id.getResult().replaceAllUsesWith(indexConstant(ib, id.getLoc(), 0));
        id->erase();
        return;
      }
      id.emitError() << "axis '" << axis
                     << "' has no value on the CPU target: a CTA runs as one "
                        "CPU thread, so only grid coordinates exist outside "
                        "operators; an operator at warp (thread, warpgroup) "
                        "scope runs once per warp and may use it in its "
                        "operands";
      result = failure();
    });
  };
  if (ubs.empty()) {
    auto exec = scf::ExecuteRegionOp::create(b, loc, TypeRange());
    Block *blk = b.createBlock(&exec.getRegion());
    b.setInsertionPointToEnd(blk);
    auto yield = scf::YieldOp::create(b, loc);
    b.setInsertionPoint(yield);
    lowerBody(b, {});
  } else {
    // Each CTA's buffers live on the stack of the thread running it, freed
    // by the alloca scope when the CTA ends.
    auto grid = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
    b.setInsertionPointToStart(grid.getBody());
    auto scope = memref::AllocaScopeOp::create(b, loc, TypeRange());
    Block *blk = b.createBlock(&scope.getBodyRegion());
    b.setInsertionPointToEnd(blk);
    auto ret = memref::AllocaScopeReturnOp::create(b, loc);
    b.setInsertionPoint(ret);
    lowerBody(b, grid.getInductionVars());
  }
  kernel->erase();
  return result;
}

LogicalResult lowerAlloc(AllocOp alloc, const Result<StoragePlan> &plan) {
  auto type = cast<BufferType>(alloc.getType());
  if (!plan)
    return alloc.emitError() << plan.message();
  // Storage lives in a CTA or a function's frame; at the top of a module
  // there is none to give it.
  if (!alloc->getParentOfType<FunctionOpInterface>())
    return alloc.emitError()
           << "a buffer outside a function has no storage on the CPU target";
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  // Hoisted to the start of the CTA: the contents of a buffer are undefined
  // when it is allocated, so one allocation serves every loop iteration.
  Value mem = allocScratch(b, loc, type.getElementType(), plan->size());
  Value flat = memref::CastOp::create(
      b, loc, getCPUMemRefType(type.getElementType()), mem);
  resolveCasts(alloc.getResult(), flat);
  return success();
}

LogicalResult lowerView(ViewOp view) {
  auto srcTy = cast<MemRefType>(view.getSource().getType());
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  if (failed(srcTy.getStridesAndOffset(strides, staticOffset)))
    return view.emitError("the memref of a view needs a strided layout");
  // The flat memref covers exactly what the tile reaches, from its lowest
  // address, as the schedules address it (getCPUViewStorage).
  Result<StoragePlan> plan = getCPUViewStorage(view);
  if (!plan)
    return view.emitError() << plan.message();
  const StoragePlan::Dim *m = plan->find(kDefaultAxis);
  OpBuilder b(view);
  Location loc = view.getLoc();
  auto meta =
      memref::ExtractStridedMetadataOp::create(b, loc, view.getSource());
  Value offset = meta.getOffset();
  if (m && m->lo != 0)
    offset =
        arith::AddIOp::create(b, loc, offset, indexConstant(b, loc, m->lo));
  Value size = indexConstant(b, loc, plan->size());
  for (auto [i, off] : llvm::enumerate(view.getMixedOffsets())) {
    Value stride = ShapedType::isDynamic(strides[i])
                       ? meta.getStrides()[i]
                       : indexConstant(b, loc, strides[i]);
    Value o =
        isa<Value>(off)
            ? cast<Value>(off)
            : indexConstant(b, loc,
                            cast<IntegerAttr>(cast<Attribute>(off)).getInt());
    offset = arith::AddIOp::create(b, loc, offset,
                                   arith::MulIOp::create(b, loc, o, stride));
  }
  Value flat = memref::ReinterpretCastOp::create(
      b, loc, getCPUMemRefType(srcTy.getElementType()), meta.getBaseBuffer(),
      OpFoldResult(offset), ArrayRef<OpFoldResult>{size},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  resolveCasts(view.getResult(), flat);
  return success();
}

/// Removes a token placeholder or a wait: both stand for nothing on the CPU.
struct DropTokenUse : public ConversionPattern {
  DropTokenUse(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), 1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<WaitOp>(op)) {
      rewriter.eraseOp(op);
      return success();
    }
    if (!isCPUTokenPlaceholder(op))
      return failure();
    rewriter.replaceOpWithMultiple(op, {ValueRange()});
    return success();
  }
};

/// A copy on the CPU has completed when it returns (the schedules gave the
/// tokens of axe.copy_async a placeholder), so tokens carry nothing: they
/// are removed with the waits on them and with the loop-carried values,
/// yields and results of the scf ops that pass them on (a token converts to
/// no value at all).
LogicalResult dropTokens(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  TypeConverter converter;
  converter.addConversion([](Type t) { return t; });
  converter.addConversion(
      [](TokenType, SmallVectorImpl<Type> &) { return success(); });
  ConversionTarget target(*ctx);
  RewritePatternSet patterns(ctx);
  scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                       target);
  patterns.add<DropTokenUse>(converter, ctx);
  target.addIllegalOp<WaitOp>();
  target.markUnknownOpDynamicallyLegal([&](Operation *op) {
    return !isCPUTokenPlaceholder(op) && converter.isLegal(op);
  });
  target.addLegalOp<ModuleOp>();
  return applyPartialConversion(module, target, std::move(patterns));
}

/// Whether `barrier` makes the warps of a CTA wait for each other.
bool isCTABarrier(BarrierOp barrier) {
  return barrier.getScope().getKind() >= ScopeKind::CTA;
}

/// A block of a partition cut at its synchronization points: CTA barriers,
/// and loops whose bodies hold CTA barriers. segments.size() ==
/// syncs.size() + 1.
struct SyncSplit {
  SmallVector<SmallVector<Operation *>> segments{{}};
  SmallVector<Operation *> syncs;
};

FailureOr<SyncSplit> splitAtSyncs(Block &block) {
  SyncSplit split;
  for (Operation &op : block.without_terminator()) {
    auto barrier = dyn_cast<BarrierOp>(op);
    bool sync = barrier && isCTABarrier(barrier);
    if (!barrier) {
      WalkResult nested = op.walk([&](BarrierOp b) {
        return isCTABarrier(b) ? WalkResult::interrupt()
                               : WalkResult::advance();
      });
      if (nested.wasInterrupted()) {
        auto loop = dyn_cast<scf::ForOp>(op);
        if (!loop || loop.getNumResults() != 0)
          return op.emitError(
              "a CTA barrier inside this op of an axe.partition needs the "
              "partitions to run concurrently; the CPU target runs them "
              "round by round between CTA barriers, which works for "
              "barriers directly in a partition and in scf.for loops "
              "without results that every partition runs in lockstep");
        sync = true;
      }
    }
    if (sync) {
      split.syncs.push_back(&op);
      split.segments.emplace_back();
    } else {
      split.segments.back().push_back(&op);
    }
  }
  return split;
}

bool sameBound(OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  if (ca || cb)
    return ca == cb;
  return a == b;
}

/// Moves the ops of `blocks` (one per partition) before `before`, round by
/// round: the ops of every partition up to its next synchronization point,
/// then the next round. All partitions reach CTA barrier k before any passes
/// it, so this order is one the barriers allow. Loops holding barriers are
/// fused into one loop whose body is interleaved the same way.
LogicalResult interleave(ArrayRef<Block *> blocks, Operation *before) {
  SmallVector<SyncSplit> splits;
  for (Block *block : blocks) {
    FailureOr<SyncSplit> split = splitAtSyncs(*block);
    if (failed(split))
      return failure();
    splits.push_back(std::move(*split));
  }
  for (size_t p = 1; p < splits.size(); ++p) {
    if (splits[p].syncs.size() != splits[0].syncs.size())
      return before->emitError("the partitions reach different numbers of "
                               "CTA barriers (")
             << splits[0].syncs.size() << " and " << splits[p].syncs.size()
             << " synchronization points), so they cannot run round by round";
    for (auto [mine, first] : llvm::zip(splits[p].syncs, splits[0].syncs)) {
      auto a = dyn_cast<scf::ForOp>(mine), b = dyn_cast<scf::ForOp>(first);
      if (bool(a) != bool(b))
        return mine->emitError("the partitions reach this ")
               << (a ? "loop" : "barrier") << " where another reaches a "
               << (b ? "loop" : "barrier")
               << " with CTA barriers; they cannot run round by round";
      if (a && !(sameBound(a.getLowerBound(), b.getLowerBound()) &&
                 sameBound(a.getUpperBound(), b.getUpperBound()) &&
                 sameBound(a.getStep(), b.getStep())))
        return mine->emitError(
            "this loop with CTA barriers must run in lockstep with the other "
            "partitions' loop, but their bounds differ");
    }
  }
  size_t numRounds = splits.empty() ? 0 : splits[0].segments.size();
  for (size_t r = 0; r < numRounds; ++r) {
    for (SyncSplit &split : splits)
      for (Operation *op : split.segments[r])
        op->moveBefore(before);
    if (r + 1 == numRounds)
      break;
    auto first = dyn_cast<scf::ForOp>(splits[0].syncs[r]);
    if (!first)
      continue; // A barrier: nothing to run.
    // One loop for all partitions: its iterations are the rounds of the
    // partitions' iterations.
    OpBuilder b(before);
    auto fused = scf::ForOp::create(b, first.getLoc(), first.getLowerBound(),
                                    first.getUpperBound(), first.getStep());
    SmallVector<Block *> bodies;
    for (SyncSplit &split : splits) {
      auto loop = cast<scf::ForOp>(split.syncs[r]);
      loop.getInductionVar().replaceAllUsesWith(fused.getInductionVar());
      bodies.push_back(loop.getBody());
    }
    if (failed(interleave(bodies, fused.getBody()->getTerminator())))
      return failure();
  }
  return success();
}

/// Runs the partitions of a warp specialization round by round between CTA
/// barriers (interleave). Operators inside were already dispatched to loops
/// over the partition's warps; what remains in the partitions afterwards
/// (barriers, emptied loops) is erased with the op.
LogicalResult lowerWarpSpecialize(WarpSpecializeOp ws) {
  SmallVector<Block *> blocks;
  for (Operation &op : ws.getBody().front()) {
    auto partition = dyn_cast<PartitionOp>(op);
    if (!partition)
      return op.emitError("axe.warp_specialize may hold only axe.partition "
                          "on the CPU target");
    blocks.push_back(&partition.getBody().front());
  }
  if (failed(interleave(blocks, ws)))
    return failure();
  ws->erase();
  return success();
}

struct ConvertAxeToCPUPass
    : public impl::ConvertAxeToCPUBase<ConvertAxeToCPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
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
    if (failed(dropTokens(module)))
      return signalPassFailure();
    // Storage depends on the kernel (how many warps hold a copy of a
    // per-warp buffer), so it is planned before kernels become loops.
    DenseMap<Operation *, Result<StoragePlan>> plans;
    module.walk([&](AllocOp a) { plans.try_emplace(a, getCPUStorage(a)); });
    SmallVector<WarpSpecializeOp> specialized;
    module.walk([&](WarpSpecializeOp ws) { specialized.push_back(ws); });
    for (WarpSpecializeOp ws : specialized)
      if (failed(lowerWarpSpecialize(ws)))
        ok = false;
    if (!ok)
      return signalPassFailure();
    SmallVector<KernelOp> kernels;
    module.walk([&](KernelOp k) { kernels.push_back(k); });
    for (KernelOp k : llvm::reverse(kernels))
      if (failed(lowerKernel(k)))
        ok = false;
    SmallVector<Operation *> structural;
    module.walk([&](Operation *op) {
      if (isa<AllocOp, ViewOp, SliceOp, BarrierOp>(op))
        structural.push_back(op);
    });
    for (Operation *op : structural) {
      if (auto a = dyn_cast<AllocOp>(op))
        ok &= succeeded(lowerAlloc(a, plans.find(a)->second));
      else if (auto v = dyn_cast<ViewOp>(op))
        ok &= succeeded(lowerView(v));
    }
    // Slices (their offsets live in the addresses now), barriers and waits
    // (a CTA is one thread; copies complete when they return) go away,
    // users first.
    for (Operation *op : llvm::reverse(structural)) {
      if (!op->use_empty()) {
        op->emitError("buffer still used after dispatch: ")
            << *op->getUsers().begin();
        ok = false;
        continue;
      }
      op->erase();
    }
    // Nothing of the axe dialect is left, so the output loads without it
    // (e.g. in mlir-runner).
    module.walk(
        [](Operation *op) { op->removeAttr(AxeDialect::getTargetAttrName()); });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace

void buildAxeToCPUPipeline(OpPassManager &pm, const AxeToCPUOptions &options) {
  registerCPUBackend();
  AxeDispatchOptions dispatch;
  dispatch.target = "cpu";
  dispatch.vectorBits = options.vectorBits;
  pm.addPass(createAxeDispatch(dispatch));
  pm.addPass(createConvertAxeToCPU());
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
};
} // namespace

void registerAxeToCPU() {
  registerCPUBackend();
  registerConvertAxeToCPU();
  registerAxeLowerAllocaScopes();
  static PassPipelineRegistration<AxeToCPUPipelineOptions> pipeline(
      "axe-to-cpu",
      "Dispatch every collective operator with the CPU schedules, lower "
      "kernels and buffers to loops and memrefs, then to the llvm dialect",
      [](OpPassManager &pm, const AxeToCPUPipelineOptions &o) {
        AxeToCPUOptions options;
        options.vectorBits = o.vectorBits;
        options.openmp = o.openmp;
        buildAxeToCPUPipeline(pm, options);
      });
}

} // namespace axe
