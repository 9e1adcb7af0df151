//===- CPUCodegenBench.cpp - Generated CPU copies and gemms, timed --------===//
//
// Code from the CPU schedules (layout copies, the packed gemm) JIT-compiled
// in-process and timed against memcpy and naive loops. Run by hand; figures
// go to docs/Benchmarks-CPU.md.
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <functional>
#include <vector>

using namespace mlir;
using namespace axe;

namespace {

/// A JIT-compiled `kernel(memref<?xf32> ...)` whose body a callback emits.
class Jitted {
public:
  Jitted(unsigned numArgs,
         const std::function<void(OpBuilder &, Location, ValueRange)> &body) {
    DialectRegistry registry;
    registerCPUCodegenDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto memTy = MemRefType::get({ShapedType::kDynamic}, b.getF32Type());
    SmallVector<Type> args(numArgs, memTy);
    auto func =
        func::FuncOp::create(b, loc, "kernel", b.getFunctionType(args, {}));
    func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    Block *entry = func.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    auto ret = func::ReturnOp::create(b, loc);
    b.setInsertionPoint(ret);
    body(b, loc, func.getArguments());
    std::string error;
    engine = lowerAndJIT(*module, error);
    if (!engine)
      llvm::report_fatal_error(llvm::Twine("JIT failed: ") + error);
  }

  void run(std::vector<std::vector<float> *> buffers) {
    descs.resize(buffers.size());
    ptrs.clear();
    descPtrs.clear();
    for (size_t i = 0; i < buffers.size(); ++i) {
      auto &d = descs[i];
      d.basePtr = d.data = buffers[i]->data();
      d.offset = 0;
      d.sizes[0] = buffers[i]->size();
      d.strides[0] = 1;
      descPtrs.push_back(&d);
    }
    for (auto &p : descPtrs)
      ptrs.push_back(&p);
    if (llvm::Error e = engine->invokePacked("_mlir_ciface_kernel", ptrs))
      llvm::report_fatal_error(llvm::toString(std::move(e)).c_str());
  }

private:
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  std::vector<StridedMemRefType<float, 1>> descs;
  std::vector<StridedMemRefType<float, 1> *> descPtrs;
  SmallVector<void *> ptrs;
};

CPUBuffer bufferOf(Value memory, const char *layout, Shape shape) {
  CPUBuffer buf;
  buf.layout = *parseLayout(layout);
  buf.shape = std::move(shape);
  buf.elementType = Float32Type::get(memory.getContext());
  buf.memory = memory;
  buf.storage = *StoragePlan::forLayout(buf.layout);
  return buf;
}

constexpr int64_t kN = 4096;

/// Times the copy kernel `k` from one 4096^2 f32 buffer to another.
void runCopy(benchmark::State &state, Jitted &k) {
  std::vector<float> a(kN * kN, 1.0f), c(kN * kN);
  for (auto _ : state)
    k.run({&a, &c});
  state.SetBytesProcessed(state.iterations() * 2 * kN * kN * sizeof(float));
}

void transposeBench(benchmark::State &state, bool vectorize,
                    int64_t block = CPUCodegenOptions().transposeBlock) {
  CPUCodegenOptions opts;
  opts.vectorLanes32 = vectorize ? 8 : 1;
  opts.transposeVectors = vectorize;
  opts.transposeBlock = block;
  Jitted k(2, [&](OpBuilder &b, Location loc, ValueRange args) {
    CPUBuffer src = bufferOf(args[0], "S[(4096, 4096) : (4096, 1)]", {kN, kN});
    CPUBuffer dst = bufferOf(args[1], "S[(4096, 4096) : (1, 4096)]", {kN, kN});
    (void)emitCopy(b, loc, src, dst, opts);
  });
  runCopy(state, k);
}

void BM_TransposeGenerated(benchmark::State &state) {
  transposeBench(state, true);
}
/// The in-register transpose without cache blocking: 8x8 tiles in row order
/// of the source.
void BM_TransposeGeneratedUnblocked(benchmark::State &state) {
  transposeBench(state, true, /*block=*/0);
}
/// Blocks of state.range(0) x state.range(0) elements.
void BM_TransposeGeneratedBlock(benchmark::State &state) {
  transposeBench(state, true, state.range(0));
}
void BM_TransposeGeneratedScalar(benchmark::State &state) {
  transposeBench(state, false);
}

void BM_TransposeNaiveCxx(benchmark::State &state) {
  std::vector<float> a(kN * kN, 1.0f), c(kN * kN);
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i)
      for (int64_t j = 0; j < kN; ++j)
        c[j * kN + i] = a[i * kN + j];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * kN * kN * sizeof(float));
}

void BM_Memcpy(benchmark::State &state) {
  std::vector<float> a(kN * kN, 1.0f), c(kN * kN);
  for (auto _ : state) {
    std::memcpy(c.data(), a.data(), kN * kN * sizeof(float));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * kN * kN * sizeof(float));
}

void BM_CopyRowMajorGenerated(benchmark::State &state) {
  Jitted k(2, [&](OpBuilder &b, Location loc, ValueRange args) {
    CPUBuffer src = bufferOf(args[0], "S[(4096, 4096) : (4096, 1)]", {kN, kN});
    CPUBuffer dst = bufferOf(args[1], "S[(4096, 4096) : (4096, 1)]", {kN, kN});
    (void)emitCopy(b, loc, src, dst);
  });
  runCopy(state, k);
}

constexpr int64_t kM = 512, kTile = 128, kTileK = 128;

/// The rate of state.iterations() 512^3 gemms.
void reportGemmRate(benchmark::State &state) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * kM * kM * kM * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
}

/// Times the gemm kernel `k` on C += A x B with 512x512 f32 operands.
void runGemm(benchmark::State &state, Jitted &k) {
  std::vector<float> a(kM * kM, 1.0f), bm(kM * kM, 0.5f), c(kM * kM, 0.f);
  for (auto _ : state)
    k.run({&a, &bm, &c});
  reportGemmRate(state);
}

/// C += A x B, 512^3 f32 row-major, as a CTA-tiled kernel would run it: one
/// 128x128 tile of C per (i, j) and 128-deep steps over k, each step a gemm
/// on tiles of the global matrices at run-time offsets.
void BM_GemmGeneratedTiled(benchmark::State &state) {
  Jitted k(3, [&](OpBuilder &b, Location loc, ValueRange args) {
    auto idx = [&](OpBuilder &nb, int64_t v) {
      return indexConstant(nb, loc, v);
    };
    auto loop = [&](OpBuilder &nb, int64_t n, int64_t step,
                    function_ref<void(OpBuilder &, Value)> body) {
      scf::ForOp::create(nb, loc, idx(nb, 0), idx(nb, n), idx(nb, step),
                         ValueRange(),
                         [&](OpBuilder &lb, Location, Value iv, ValueRange) {
                           body(lb, iv);
                           scf::YieldOp::create(lb, loc);
                         });
    };
    loop(b, kM, kTile, [&](OpBuilder &b1, Value i0) {
      loop(b1, kM, kTile, [&](OpBuilder &b2, Value j0) {
        loop(b2, kM, kTileK, [&](OpBuilder &b3, Value k0) {
          // Tiles of the 512x512 row-major matrices.
          CPUBuffer a =
              bufferOf(args[0], "S[(128, 128) : (512, 1)]", {kTile, kTileK});
          CPUBuffer bb =
              bufferOf(args[1], "S[(128, 128) : (512, 1)]", {kTileK, kTile});
          CPUBuffer c =
              bufferOf(args[2], "S[(128, 128) : (512, 1)]", {kTile, kTile});
          for (CPUBuffer *t : {&a, &bb, &c})
            t->storage = StoragePlan::linear(kM * kM);
          a.extra.add(b3, loc, "m",
                      addIndex(b3, loc, mulIndex(b3, loc, i0, kM), k0));
          bb.extra.add(b3, loc, "m",
                       addIndex(b3, loc, mulIndex(b3, loc, k0, kM), j0));
          c.extra.add(b3, loc, "m",
                      addIndex(b3, loc, mulIndex(b3, loc, i0, kM), j0));
          (void)emitGemmPacked(b3, loc, a, false, bb, false, c, true);
        });
      });
    });
  });
  runGemm(state, k);
}

void BM_GemmGeneratedNaive(benchmark::State &state) {
  Jitted k(3, [&](OpBuilder &b, Location loc, ValueRange args) {
    CPUBuffer a = bufferOf(args[0], "S[(512, 512) : (512, 1)]", {kM, kM});
    CPUBuffer bb = bufferOf(args[1], "S[(512, 512) : (512, 1)]", {kM, kM});
    CPUBuffer c = bufferOf(args[2], "S[(512, 512) : (512, 1)]", {kM, kM});
    (void)emitGemmNaive(b, loc, a, false, bb, false, c, true);
  });
  runGemm(state, k);
}

void BM_GemmNaiveCxx(benchmark::State &state) {
  std::vector<float> a(kM * kM, 1.0f), bm(kM * kM, 0.5f), c(kM * kM, 0.f);
  for (auto _ : state) {
    for (int64_t i = 0; i < kM; ++i)
      for (int64_t j = 0; j < kM; ++j) {
        float s = c[i * kM + j];
        for (int64_t kk = 0; kk < kM; ++kk)
          s += a[i * kM + kk] * bm[kk * kM + j];
        c[i * kM + j] = s;
      }
    benchmark::ClobberMemory();
  }
  reportGemmRate(state);
}

} // namespace

BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CopyRowMajorGenerated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGenerated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedUnblocked)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedBlock)
    ->Arg(32)
    ->Arg(64)
    ->Arg(256)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedScalar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeNaiveCxx)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmGeneratedTiled)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmGeneratedNaive)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmNaiveCxx)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
