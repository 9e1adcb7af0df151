//===- CPULowering.cpp - Upstream conversions from loops to llvm ----------===//

#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>

namespace axe {
#define GEN_PASS_DEF_AXELOWERALLOCASCOPES
#define GEN_PASS_DEF_AXEMPIABI
#include "axe/Conversion/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe {

namespace {
struct AxeLowerAllocaScopesPass
    : public impl::AxeLowerAllocaScopesBase<AxeLowerAllocaScopesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk(
        [&](memref::AllocaScopeOp scope) { scopes.push_back(scope); });
    // Inner scopes first (post-order walk), so each inlined body is final.
    for (memref::AllocaScopeOp scope : scopes) {
      Region &body = scope.getBodyRegion();
      if (!body.hasOneBlock())
        continue;
      OpBuilder b(scope);
      Location loc = scope.getLoc();
      auto ptr = LLVM::LLVMPointerType::get(&getContext());
      Value sp = LLVM::StackSaveOp::create(b, loc, ptr);
      Block &blk = body.front();
      Operation *ret = blk.getTerminator();
      SmallVector<Value> results(ret->getOperands());
      scope->getBlock()->getOperations().splice(
          Block::iterator(scope), blk.getOperations(), blk.begin(),
          Block::iterator(ret));
      LLVM::StackRestoreOp::create(b, loc, sp);
      scope->replaceAllUsesWith(results);
      scope->erase();
    }
  }
};
constexpr StringLiteral kMPIImplementationKey = "MPI:Implementation";

struct AxeMPIABIPass : public impl::AxeMPIABIBase<AxeMPIABIPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto name = DLTIDialect::kMapAttrName;
    auto ours = [&] {
      auto key = StringAttr::get(ctx, kMPIImplementationKey);
      return MapAttr::get(
          ctx, {DataLayoutEntryAttr::get(key, StringAttr::get(ctx, "MPICH"))});
    };
    if (strip) {
      if (module->getAttr(name) == ours())
        module->removeAttr(name);
      return;
    }
    if (module->hasAttr(name))
      return;
    bool usesMPI = false;
    module.walk([&](Operation *op) {
      if (isa<mpi::MPIDialect>(op->getDialect()))
        usesMPI = true;
      return usesMPI ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (usesMPI)
      module->setAttr(name, ours());
  }
};

} // namespace

void addCPUToLLVMPasses(OpPassManager &pm, const CPUToLLVMOptions &options) {
  // Before the canonicalizer, which would inline a CTA's scope into the
  // grid loop and leave its allocations to pile up over the CTAs.
  pm.addPass(createAxeLowerAllocaScopes());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.openmp) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(createAxeLowerAllocaScopes());
  }
  pm.addPass(createConvertVectorToSCFPass());
  // Strided metadata expands into affine.apply, which lower-affine lowers.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Each scf.for lowering splits its block; with rollback enabled the
  // conversion records every op the split moves, which is quadratic in the
  // ops of one block (a kernel of 10k copies took 3.6 GB). Nothing here
  // needs rollback: the patterns always apply.
  SCFToControlFlowPassOptions scfToCF;
  scfToCF.allowPatternRollback = false;
  pm.addPass(createSCFToControlFlowPass(scfToCF));
  // The copy schedules transpose tiles in registers; one shuffle per
  // transpose lets LLVM pick the x86 unpack/permute sequence. The vector
  // conversion runs on its own for that option (and the lowerings of
  // transposes and contractions it applies first); convert-to-llvm does the
  // rest in one conversion, through each dialect's ConvertToLLVM interface
  // (registerCPULoweringInterfaces).
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle1D;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(createAxeMPIABI());
  pm.addPass(createConvertToLLVMPass());
  if (options.openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createAxeMPIABI(AxeMPIABIOptions{/*strip=*/true}));
}

void registerCPULoweringInterfaces(DialectRegistry &registry) {
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  mpi::registerConvertMPIToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
}

llvm::StringRef openmpRuntimePath() { return AXE_OPENMP_RUNTIME; }

void registerCPUCodegenDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, func::FuncDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, vector::VectorDialect,
                  LLVM::LLVMDialect, mpi::MPIDialect, DLTIDialect>();
  registerCPULoweringInterfaces(registry);
}

#if defined(__x86_64__)
/// compiler-rt's __truncsfbf2: f32 to bf16, rounding to nearest even, NaNs
/// kept quiet. x86-64 returns the bf16 in the low 16 bits of xmm0, as a
/// float return does, so the bits are returned inside a float.
static float truncateF32ToBF16(float value) {
  uint32_t bits = llvm::bit_cast<uint32_t>(value);
  uint32_t rounded = (bits & 0x7fffffffu) > 0x7f800000u
                         ? (bits >> 16) | 0x40u
                         : (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  return llvm::bit_cast<float>(rounded);
}
#endif

/// Without AVX512-BF16, LLVM's x86 backend moves bf16 vectors through f32
/// and rounds back with a call to __truncsfbf2, even for a shuffle. Debian
/// 12's libgcc (GCC 12) does not have it, so the JIT gets ours.
static void provideBF16Truncation(ExecutionEngine &engine) {
#if defined(__x86_64__)
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("__truncsfbf2")] = {
        llvm::orc::ExecutorAddr::fromPtr(&truncateF32ToBF16),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
#else
  (void)engine;
#endif
}

std::unique_ptr<ExecutionEngine>
lowerAndJIT(ModuleOp module, std::string &error, bool alreadyLowered,
            const CPUToLLVMOptions &cpuOptions) {
  static const bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  MLIRContext *ctx = module.getContext();
  if (!alreadyLowered) {
    DialectRegistry interfaces;
    registerCPULoweringInterfaces(interfaces);
    ctx->appendDialectRegistry(interfaces);
    PassManager pm(ctx);
    addCPUToLLVMPasses(pm, cpuOptions);
    if (failed(pm.run(module))) {
      error = "lowering to the llvm dialect failed";
      return nullptr;
    }
  }
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);

  auto transformer = makeOptimizingTransformer(3, 0, nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  // AXE_JIT_OBJECT_DUMP=FILE writes the machine code, to read what the
  // schedules became (objdump -d FILE).
  const char *dumpPath = std::getenv("AXE_JIT_OBJECT_DUMP");
  options.enableObjectDump = dumpPath != nullptr;
  llvm::StringRef runtime[] = {openmpRuntimePath()};
  if (cpuOptions.openmp) {
    if (runtime[0].empty()) {
      error = "OpenMP code needs libomp, which was not found when axe-mlir "
              "was configured (install libomp-22-dev)";
      return nullptr;
    }
    options.sharedLibPaths = runtime;
  }
  auto engine = ExecutionEngine::create(module, options);
  if (!engine) {
    error = llvm::toString(engine.takeError());
    return nullptr;
  }
  if (dumpPath) {
    // The module is compiled at its first lookup; the dump is of the cache.
    module.walk([&](LLVM::LLVMFuncOp f) {
      if (f.isExternal() || f.getLinkage() != LLVM::Linkage::External)
        return WalkResult::advance();
      (void)(*engine)->lookup(f.getName());
      return WalkResult::interrupt();
    });
    (*engine)->dumpToObjectFile(dumpPath);
  }
  provideBF16Truncation(**engine);
  return std::move(*engine);
}

} // namespace axe
