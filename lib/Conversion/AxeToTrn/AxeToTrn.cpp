//===- AxeToTrn.cpp - The trn backend, convert-axe-to-trn, axe-to-trn -----===//

#include "axe/Conversion/AxeToTrn/AxeToTrn.h"

#include "TrnOperands.h"
#include "TrnSchedules.h"

#include "axe/Codegen/KernelCaptures.h"
#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"
#include "axe/Conversion/Passes.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/RegionUtils.h"

namespace axe {
#define GEN_PASS_DEF_CONVERTAXETOTRN
#include "axe/Conversion/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe {

namespace {

/// A NeuronCore has one control thread that issues to its engines; the
/// engines' queues and semaphores order instructions by the buffers they
/// touch, so a barrier emits nothing. Engines move whole tiles, so there are
/// no thread axes and no element loads or stores (no threads()).
class TrnTargetCodegen : public TargetCodegen {
public:
  explicit TrnTargetCodegen(const TargetDescription &target)
      : description(target) {}

  const TargetDescription &target() const override { return description; }

  LogicalResult barrier(OpBuilder &, Location, ScopeKind) const override {
    return success();
  }

  void populateTypeConversions(TypeConverter &converter) const override {
    converter.addConversion([](BufferType type) -> std::optional<Type> {
      Result<MemRefType> storage = trnconv::getStorageType(type);
      if (!storage)
        return std::nullopt;
      return Type(*storage);
    });
  }

private:
  const TargetDescription &description;
};

//===----------------------------------------------------------------------===//
// convert-axe-to-trn
//===----------------------------------------------------------------------===//

MemRefType hbmType(MemRefType type) {
  auto space =
      trn::getTileType({1}, type.getElementType(), trn::MemorySpace::HBM)
          .getMemorySpace();
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout(), space);
}

/// The trn.alloc of each axe.alloc, in place of the casts the schedules
/// made to its storage.
LogicalResult lowerAlloc(AllocOp alloc, RewriterBase &rw) {
  auto type = cast<BufferType>(alloc.getResult().getType());
  Result<MemRefType> storage = trnconv::getStorageType(type);
  if (!storage)
    return alloc.emitError("trn: ") << storage.message();
  rw.setInsertionPoint(alloc);
  auto tile = trn::AllocOp::create(rw, alloc.getLoc(), *storage);
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(user))
      rw.replaceOp(cast, tile.getResult());
  return success();
}

/// Erases the buffer plumbing dispatch left unused (views, slices, allocs),
/// then fails on any axe op still there.
LogicalResult eraseBufferOps(func::FuncOp fn, RewriterBase &rw) {
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (isa<AllocOp, ViewOp, SliceOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : llvm::reverse(ops)) {
    if (auto alloc = dyn_cast<AllocOp>(op))
      if (failed(lowerAlloc(alloc, rw)))
        return failure();
    if (!op->use_empty())
      return op->emitError("trn: ")
             << op->getName()
             << " is still used after dispatch; every operator on it must "
                "be rewritten first (run axe-dispatch)";
    rw.eraseOp(op);
  }
  // The engines' semaphores already order every pair of instructions that
  // touch the same bytes (docs/Trn.md; axe-trn-sim finds the same pairs),
  // which is all a barrier among the threads of one NeuronCore could add:
  // it lowers to nothing, as TrnTargetCodegen::barrier says.
  SmallVector<Operation *> barriers;
  fn.walk([&](Operation *op) {
    if (isa<BarrierOp, PartitionBarrierOp>(op))
      barriers.push_back(op);
  });
  for (Operation *barrier : barriers)
    rw.eraseOp(barrier);
  WalkResult left = fn.walk([](Operation *op) {
    if (isa<AxeDialect>(op->getDialect())) {
      op->emitError("trn: ")
          << op->getName()
          << " has no trn lowering (run axe-dispatch{target=trn1} first)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(left.wasInterrupted());
}

/// A kernel as a func.func marked trn.kernel, taking its memrefs in hbm,
/// called by its host function.
class TrnKernelOutlining : public KernelOutlining {
public:
  StringRef backend() const override { return "trn"; }
  StringRef nameSuffix() const override { return "_trn"; }
  StringRef takes() const override {
    return "a trn kernel takes memrefs (in hbm) and constants";
  }

  Type argumentType(Value v) const override {
    if (auto memref = dyn_cast<MemRefType>(v.getType()))
      return hbmType(memref);
    return {};
  }

  LogicalResult prepare(KernelOp kernel) override {
    for (int64_t g : kernel.getStaticGrid())
      if (g != 1)
        return kernel.emitError("trn: a trn kernel runs on one NeuronCore; "
                                "its grid must be one CTA");
    if (!kernel.getGrid().empty())
      return kernel.emitError("trn: a trn kernel has no run-time grid");
    if (!kernel->getParentOfType<func::FuncOp>())
      return kernel.emitError("trn: the kernel is not in a func.func");
    return success();
  }

  Operation *createFunction(KernelOp kernel, StringRef name,
                            TypeRange argumentTypes,
                            RewriterBase &rw) override {
    rw.setInsertionPointAfter(kernel->getParentOfType<func::FuncOp>());
    auto fn = func::FuncOp::create(rw, kernel.getLoc(), name,
                                   rw.getFunctionType(argumentTypes, {}));
    fn->setAttr("trn.kernel", rw.getUnitAttr());
    rw.setInsertionPointToEnd(fn.addEntryBlock());
    func::ReturnOp::create(rw, kernel.getLoc());
    return fn;
  }

  LogicalResult lowerBody(Operation *function, RewriterBase &rw) override {
    auto fn = cast<func::FuncOp>(function);
    // The schedules cast host memrefs to hbm; the arguments already are.
    fn.walk([&](memref::MemorySpaceCastOp cast) {
      if (cast.getSource().getType() == cast.getResult().getType())
        rw.replaceOp(cast, cast.getSource());
    });
    return eraseBufferOps(fn, rw);
  }

  void launch(KernelOp kernel, Operation *function,
              const KernelCaptures &captures, RewriterBase &rw) override {
    // The host calls the kernel on its memrefs, seen as hbm.
    SmallVector<Value> args;
    for (auto [v, t] : llvm::zip(captures.arguments, captures.argumentTypes))
      args.push_back(
          memref::MemorySpaceCastOp::create(rw, kernel.getLoc(), t, v));
    func::CallOp::create(rw, kernel.getLoc(), cast<func::FuncOp>(function),
                         args);
  }
};

struct ConvertAxeToTrnPass
    : public impl::ConvertAxeToTrnBase<ConvertAxeToTrnPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireConcreteLayouts(module, getArgument())))
      return signalPassFailure();
    TrnKernelOutlining outlining;
    if (failed(outlineKernels(module, outlining)))
      return signalPassFailure();
    // Nothing of the axe dialect is left: axe-trn-sim reads the output.
    module.walk(
        [](Operation *op) { op->removeAttr(AxeDialect::getTargetAttrName()); });
  }
};

} // namespace

Backend trnBackend() {
  Backend trnBackend;
  trnBackend.name = "trn";
  trnBackend.targets = targetKind(TargetKind::Accelerator);
  trnBackend.addSchedules = trnconv::addTrnSchedules;
  trnBackend.dependentDialects = [](DialectRegistry &registry) {
    registry.insert<arith::ArithDialect, func::FuncDialect,
                    memref::MemRefDialect, scf::SCFDialect, trn::TrnDialect>();
  };
  trnBackend.codegen = [](const TargetDescription &target) {
    return std::make_unique<TrnTargetCodegen>(target);
  };
  return trnBackend;
}

void buildAxeToTrnPipeline(OpPassManager &pm, const AxeToTrnOptions &options) {
  // Buffers written with layout '?' get theirs from the trn schedules.
  AxeInferLayoutsOptions infer;
  infer.target = "trn1";
  pm.addPass(createAxeInferLayouts(infer, BackendSet{trnBackend()}));
  AxeDispatchOptions dispatch;
  dispatch.target = "trn1";
  pm.addPass(createAxeDispatch(dispatch, BackendSet{trnBackend()}));
  pm.addPass(createConvertAxeToTrn());
  pm.addPass(createCSEPass());
  if (options.buffers > 1) {
    trn::TrnMultiBufferOptions multi;
    multi.buffers = options.buffers;
    pm.addNestedPass<func::FuncOp>(trn::createTrnMultiBuffer(multi));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  if (options.stages > 1) {
    trn::TrnSoftwarePipelineOptions pipeline;
    pipeline.stages = options.stages;
    pm.addNestedPass<func::FuncOp>(trn::createTrnSoftwarePipeline(pipeline));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  pm.addNestedPass<func::FuncOp>(trn::createTrnBalanceEngines());
  pm.addNestedPass<func::FuncOp>(trn::createTrnAssignAddresses());
}

namespace {
struct AxeToTrnPipelineOptions
    : public PassPipelineOptions<AxeToTrnPipelineOptions> {
  Option<int64_t> buffers{
      *this, "buffers",
      llvm::cl::desc("Buffers per loop tile that DMA refills every "
                     "iteration (trn-multi-buffer); 1: none"),
      llvm::cl::init(2)};
  Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("Most stages per loop of trn-software-pipeline; 1: "
                     "none"),
      llvm::cl::init(5)};
};
} // namespace

void registerAxeToTrn() {
  registerConvertAxeToTrn();
  static PassPipelineRegistration<AxeToTrnPipelineOptions> pipeline(
      "axe-to-trn",
      "Dispatch every collective operator with the trn schedules, move each "
      "kernel into a trn kernel function its host calls, multi-buffer loop "
      "tiles, pipeline loops across iterations, balance the engines and "
      "place SBUF/PSUM tiles",
      [](OpPassManager &pm, const AxeToTrnPipelineOptions &o) {
        AxeToTrnOptions options;
        options.buffers = o.buffers;
        options.stages = o.stages;
        buildAxeToTrnPipeline(pm, options);
      });
}

} // namespace axe
