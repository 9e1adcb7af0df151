//===- AxeKernelJit.h - Axe kernels JIT-compiled for the benchmarks -*- C++ -*-===//
//
// The benchmarks time code that axe-to-cpu generates in-process: a kernel's
// module text goes through buildAxeToCPUPipeline and the ExecutionEngine,
// and is called through its C interface (`_mlir_ciface_kernel`).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_BENCH_AXEKERNELJIT_H
#define AXE_BENCH_AXEKERNELJIT_H

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/InitAllDialects.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace axe {
namespace bench {

using namespace mlir;

/// Compiles the engine's `kernel` now. ORC generates machine code at the
/// first lookup of a symbol, which would otherwise fall into the first timed
/// call: hundreds of milliseconds, against a few for one GEMM.
inline void compileKernelNow(ExecutionEngine &engine) {
  auto fn = engine.lookupPacked("_mlir_ciface_kernel");
  if (!fn)
    llvm::report_fatal_error(llvm::toString(fn.takeError()).c_str());
}

/// C-interface arguments for a JIT-compiled kernel taking rank-`Rank`
/// memrefs: one descriptor per buffer, passed by pointer to pointer as
/// ExecutionEngine::invokePacked expects.
template <int Rank> class KernelArgs {
public:
  void call(ExecutionEngine &engine, llvm::ArrayRef<void *> data,
            llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides) {
    descs.assign(data.size(), {});
    descPtrs.clear();
    ptrs.clear();
    for (size_t i = 0; i < data.size(); ++i) {
      auto &d = descs[i];
      d.basePtr = d.data = static_cast<char *>(data[i]);
      d.offset = 0;
      for (int r = 0; r < Rank; ++r) {
        d.sizes[r] = sizes[i * Rank + r];
        d.strides[r] = strides[i * Rank + r];
      }
      descPtrs.push_back(&d);
    }
    for (auto &p : descPtrs)
      ptrs.push_back(&p);
    // Looked up once per engine: a JIT symbol lookup costs microseconds,
    // as much as a small collective.
    if (cachedFor != &engine) {
      auto fn = engine.lookupPacked("_mlir_ciface_kernel");
      if (!fn)
        llvm::report_fatal_error(llvm::toString(fn.takeError()).c_str());
      packed = *fn;
      cachedFor = &engine;
    }
    packed(ptrs.data());
  }

private:
  std::vector<StridedMemRefType<char, Rank>> descs;
  std::vector<StridedMemRefType<char, Rank> *> descPtrs;
  SmallVector<void *> ptrs;
  ExecutionEngine *cachedFor = nullptr;
  void (*packed)(void **) = nullptr;
};

/// An axe kernel (module text with one `@kernel` taking 2-D or 1-D
/// memrefs) compiled by buildAxeToCPUPipeline and JIT-compiled.
class AxeKernel {
public:
  AxeKernel(const std::string &text, const AxeToCPUOptions &options) {
    DialectRegistry registry;
    registerAllAxeDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(text, &ctx);
    if (!module) {
      llvm::errs() << text;
      llvm::report_fatal_error("the bench kernel above does not parse");
    }
    PassManager pm(&ctx);
    buildAxeToCPUPipeline(pm, options);
    if (failed(pm.run(*module)))
      llvm::report_fatal_error("bench kernel does not lower");
    std::string error;
    engine = lowerAndJIT(*module, error, /*alreadyLowered=*/true,
                         CPUToLLVMOptions{options.openmp});
    if (!engine)
      llvm::report_fatal_error(llvm::Twine("JIT failed: ") + error);
    compileKernelNow(*engine);
  }

  /// Calls the kernel on row-major n x n matrices.
  void run(int64_t n, llvm::ArrayRef<void *> data) {
    SmallVector<int64_t> sizes;
    for (size_t i = 0; i < data.size(); ++i)
      sizes.append({n, n});
    run2d(data, sizes);
  }

  /// Makes a host function visible to the kernel (before its first call).
  void define(llvm::StringRef name, void *address) {
    engine->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap map;
      map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                             llvm::JITSymbolFlags::Exported};
      return map;
    });
  }

  /// Calls the kernel on row-major 2-d buffers; `sizes` holds two extents
  /// per buffer.
  void run2d(llvm::ArrayRef<void *> data, llvm::ArrayRef<int64_t> sizes) {
    SmallVector<int64_t> strides;
    for (size_t i = 0; i < data.size(); ++i)
      strides.append({sizes[2 * i + 1], 1});
    args.call(*engine, data, sizes, strides);
  }

  /// Calls the kernel on 1-d buffers of the given sizes.
  void run1d(llvm::ArrayRef<void *> data, llvm::ArrayRef<int64_t> sizes) {
    SmallVector<int64_t> strides(sizes.size(), 1);
    args1d.call(*engine, data, sizes, strides);
  }

private:
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  KernelArgs<2> args;
  KernelArgs<1> args1d;
};

} // namespace bench
} // namespace axe

#endif // AXE_BENCH_AXEKERNELJIT_H
