//===- CPUCodegenBench.cpp - Generated CPU copies and gemms, timed --------===//
//
// Code from the CPU schedules (layout copies, the packed gemm) JIT-compiled
// in-process and timed against memcpy and naive loops. Run by hand; figures
// go to docs/Benchmarks-CPU.md.
//
//===----------------------------------------------------------------------===//

#include "AxeKernelJit.h"
#include "HostPeak.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/InitAllDialects.h"
#include "axe/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <cmath>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <thread>
#include <vector>

using namespace mlir;
using namespace axe;
using namespace axe::bench;

namespace {

/// A JIT-compiled `kernel(memref<?xf32> ...)` whose body a callback emits.
class Jitted {
public:
  Jitted(unsigned numArgs,
         const std::function<void(OpBuilder &, Location, ValueRange)> &body,
         bool halfElements = false) {
    DialectRegistry registry;
    registerCPUCodegenDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto memTy = MemRefType::get({ShapedType::kDynamic},
                                 halfElements ? Type(b.getF16Type())
                                              : Type(b.getF32Type()));
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
    compileKernelNow(*engine);
  }

  void run(std::vector<std::vector<float> *> buffers) {
    std::vector<std::pair<float *, int64_t>> raw;
    for (auto *v : buffers)
      raw.push_back({v->data(), int64_t(v->size())});
    runRaw(raw);
  }
  void run(float *a, float *b, int64_t size) { runRaw({{a, size}, {b, size}}); }

  void runRaw(const std::vector<std::pair<float *, int64_t>> &buffers) {
    SmallVector<void *> data;
    SmallVector<int64_t> sizes, strides;
    for (auto &[ptr, size] : buffers) {
      data.push_back(ptr);
      sizes.push_back(size);
      strides.push_back(1);
    }
    args.call(*engine, data, sizes, strides);
  }

private:
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  KernelArgs<1> args;
};

CPUBuffer bufferOf(Value memory, const char *layout, Shape shape) {
  CPUBuffer buf;
  buf.ref.layout = *parseLayout(layout);
  buf.ref.shape = std::move(shape);
  buf.ref.elementType = cast<MemRefType>(memory.getType()).getElementType();
  buf.memory = memory;
  buf.storage = *StoragePlan::forLayout(buf.ref.layout);
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

/// `bytes` of memory on 4 KiB pages (MADV_NOHUGEPAGE) or on 2 MiB pages
/// where the kernel grants them (MADV_HUGEPAGE; transparent huge pages are
/// often 'madvise' only), aligned to 2 MiB either way, so that huge pages
/// can cover all of it and the transpose's streaming stores find their
/// vectors aligned.
struct PageBuffer {
  static constexpr size_t kHuge = size_t(2) << 20;
  PageBuffer(size_t bytes, bool huge) : size(bytes) {
    mapped = size + kHuge;
    void *p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      llvm::report_fatal_error("mmap failed");
    base = p;
    auto aligned = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    data = reinterpret_cast<float *>(aligned);
    madvise(data, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::memset(data, 0x3c, size);
  }
  ~PageBuffer() { munmap(base, mapped); }
  /// The fraction of the buffer the kernel backs with huge pages now, from
  /// /proc/self/smaps (AnonHugePages of the mappings it spans): what the
  /// "HugePages" rows actually ran on.
  double hugeFraction() const;
  size_t size, mapped;
  void *base;
  float *data;
};

double PageBuffer::hugeFraction() const {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f)
    return 0;
  auto lo = reinterpret_cast<uintptr_t>(data), hi = lo + size;
  char line[512];
  bool inside = false;
  double hugeBytes = 0;
  while (fgets(line, sizeof(line), f)) {
    unsigned long start, end;
    if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
      inside = start < hi && end > lo;
      continue;
    }
    unsigned long kb;
    if (inside && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
      hugeBytes += double(kb) * 1024;
  }
  fclose(f);
  return std::min(1.0, hugeBytes / double(size));
}

/// Seconds one call of `call` takes.
double secondsOf(llvm::function_ref<void()> call) {
  auto start = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The times of one call made once per iteration, sorted.
struct CallTimes {
  std::vector<double> seconds;
  double best() const { return seconds.front(); }
  double median() const { return seconds[seconds.size() / 2]; }
};

/// The times of two calls made in turn.
struct AlternatedTimes {
  CallTimes first, second;
};

/// Calls each of `calls` once per iteration of `state`, the first of an
/// iteration rotating through them, so that none always finds the caches as
/// another left them; an iteration's (manual) time is all its calls'.
/// `afterRound` gets the iteration's time of the first call. The times come
/// back sorted, one list per call.
std::vector<CallTimes>
rotateCalls(benchmark::State &state, ArrayRef<llvm::function_ref<void()>> calls,
            llvm::function_ref<void(double)> afterRound = nullptr) {
  std::vector<CallTimes> t(calls.size());
  size_t round = 0;
  for (auto _ : state) {
    double total = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
      size_t c = (round + i) % calls.size();
      t[c].seconds.push_back(secondsOf(calls[c]));
      total += t[c].seconds.back();
    }
    state.SetIterationTime(total);
    if (afterRound)
      afterRound(t[0].seconds.back());
    ++round;
  }
  for (CallTimes &c : t)
    llvm::sort(c.seconds);
  return t;
}

/// rotateCalls for two calls.
AlternatedTimes
alternateCalls(benchmark::State &state, llvm::function_ref<void()> first,
               llvm::function_ref<void()> second,
               llvm::function_ref<void(double)> afterPair = nullptr) {
  std::vector<CallTimes> t = rotateCalls(state, {first, second}, afterPair);
  return {t[0], t[1]};
}

/// Reports `t` as `<first>_<unit>_best`/`_med`, `<second>_<unit>_best`/`_med`
/// (`rate` of the fastest and the median call) and `<ratio>_best`/`_med`,
/// the second call's time over the first's.
void reportAlternated(benchmark::State &state, const AlternatedTimes &t,
                      const std::string &first, const std::string &second,
                      const std::string &unit,
                      llvm::function_ref<double(double)> rate,
                      const std::string &ratio = "ratio") {
  state.counters[first + "_" + unit + "_best"] = rate(t.first.best());
  state.counters[first + "_" + unit + "_med"] = rate(t.first.median());
  state.counters[second + "_" + unit + "_best"] = rate(t.second.best());
  state.counters[second + "_" + unit + "_med"] = rate(t.second.median());
  state.counters[ratio + "_best"] = t.second.best() / t.first.best();
  state.counters[ratio + "_med"] = t.second.median() / t.first.median();
}

/// A 4096^2 transpose of f32 (f16 with `half`) from a row-major buffer to a
/// column-major one. `block` and `blockDst` are the cache block's elements
/// along the source's and the destination's contiguous loops; -1 keeps the
/// defaults. `lanes32` sets the vector width (8: 256-bit vectors), 0 takes
/// the host's.
std::unique_ptr<Jitted>
transposeKernel(bool vectorize, int64_t block = -1, int64_t blockDst = -1,
                bool half = false, bool streaming = true, int64_t lanes32 = 0) {
  CPUCodegenOptions opts;
  opts.vectorLanes32 = !vectorize    ? 1
                       : lanes32 > 0 ? lanes32
                                     : hostVectorUnit().lanes32();
  opts.transposeVectors = vectorize;
  if (block >= 0)
    opts.transposeBlock = block;
  if (blockDst >= 0)
    opts.transposeBlockDst = blockDst;
  if (!streaming)
    opts.transposeStreamingBytes = 0;
  return std::make_unique<Jitted>(
      2,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        CPUBuffer src =
            bufferOf(args[0], "S[(4096, 4096) : (4096, 1)]", {kN, kN});
        CPUBuffer dst =
            bufferOf(args[1], "S[(4096, 4096) : (1, 4096)]", {kN, kN});
        (void)emitCopy(b, loc, src, dst, opts);
      },
      half);
}

/// transposeKernel's transpose timed on 4 KiB or 2 MiB pages (`huge`):
/// 4096 rows of 16 KiB (8 KiB) each, so every row of a tile is a page of
/// its own on 4 KiB pages.
void transposeBench(benchmark::State &state, bool vectorize, int64_t block = -1,
                    int64_t blockDst = -1, bool huge = false, bool half = false,
                    bool streaming = true, int64_t lanes32 = 0) {
  std::unique_ptr<Jitted> k =
      transposeKernel(vectorize, block, blockDst, half, streaming, lanes32);
  size_t bytes = kN * kN * (half ? 2 : 4);
  PageBuffer a(bytes, huge), c(bytes, huge);
  for (auto _ : state)
    k->run(a.data, c.data, kN * kN);
  state.SetBytesProcessed(state.iterations() * 2 * bytes);
  state.counters["huge_pages"] = (a.hugeFraction() + c.hugeFraction()) / 2;
}

/// memcpy of the same bytes on the same pages.
void memcpyBench(benchmark::State &state, bool huge, bool half) {
  size_t bytes = kN * kN * (half ? 2 : 4);
  PageBuffer a(bytes, huge), c(bytes, huge);
  for (auto _ : state) {
    std::memcpy(c.data, a.data, bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * bytes);
  state.counters["huge_pages"] = (a.hugeFraction() + c.hugeFraction()) / 2;
}

void BM_Memcpy(benchmark::State &state) { memcpyBench(state, false, false); }
void BM_TransposeGenerated(benchmark::State &state) {
  transposeBench(state, true);
}
/// Regular stores only: the baseline of the streaming stores.
void BM_TransposeGeneratedNoStreaming(benchmark::State &state) {
  transposeBench(state, true, -1, -1, false, false, /*streaming=*/false);
}
/// 256-bit vectors (8 x 8 tiles, half a line per stored vector): what an
/// AVX2 host runs, measured on any host.
void BM_TransposeGenerated256(benchmark::State &state) {
  transposeBench(state, true, -1, -1, false, false, true, /*lanes32=*/8);
}
void BM_TransposeGeneratedF16x256(benchmark::State &state) {
  transposeBench(state, true, -1, -1, false, /*half=*/true, true,
                 /*lanes32=*/8);
}

/// The transpose and memcpy on huge pages: on 4 KiB pages a 4096^2
/// transpose touches 32 pages per 16 x 16 tile and misses the first-level
/// TLB on nearly every access.
void BM_MemcpyHugePages(benchmark::State &state) {
  memcpyBench(state, true, false);
}
void BM_TransposeGeneratedHugePages(benchmark::State &state) {
  transposeBench(state, true, -1, -1, /*huge=*/true);
}

/// f16: tiles of 16 x 32 elements with 512-bit vectors (two rows of the source
/// per vector), half the bytes of f32.
void BM_MemcpyF16(benchmark::State &state) { memcpyBench(state, false, true); }
void BM_TransposeGeneratedF16(benchmark::State &state) {
  transposeBench(state, true, -1, -1, false, /*half=*/true);
}
/// Ordinary stores for f16: whether a 32 MiB destination kept in a large
/// last-level cache, as `memcpy`'s is, beats streaming it to memory (on the
/// Emerald Rapids VM it did not: docs/Benchmarks-CPU.md).
void BM_TransposeGeneratedF16NoStreaming(benchmark::State &state) {
  transposeBench(state, true, -1, -1, false, /*half=*/true,
                 /*streaming=*/false);
}
void BM_MemcpyF16HugePages(benchmark::State &state) {
  memcpyBench(state, true, true);
}
void BM_TransposeGeneratedF16HugePages(benchmark::State &state) {
  transposeBench(state, true, -1, -1, true, true);
}

/// The default transpose and `memcpy` of the same bytes on the same kind of
/// pages, one call of each in turn (each first in every other pair), as
/// BM_GemmAxeVsOpenBLAS does for the GEMM: the ratio of their fastest (and
/// median) calls, with both seeing the same machine. range(0) = f16,
/// range(1) = 2 MiB pages, range(2) = lanes of 32 bits (0: the host's).
/// The destination is checked against the source afterwards.
void BM_TransposeVsMemcpy(benchmark::State &state) {
  bool half = state.range(0) != 0, huge = state.range(1) != 0;
  std::unique_ptr<Jitted> k =
      transposeKernel(true, -1, -1, half, true, state.range(2));
  size_t bytes = kN * kN * (half ? 2 : 4);
  PageBuffer src(bytes, huge), dst(bytes, huge), copy(bytes, huge);
  // Values that vary from element to element (f32: the index, exact below
  // 2^24; f16: a hash of it into 16 bits), so that the check below almost
  // surely sees a misplaced element.
  auto *src16 = reinterpret_cast<uint16_t *>(src.data);
  for (size_t i = 0; i < kN * kN; ++i) {
    if (half)
      src16[i] = uint16_t(i * 2654435761u >> 17);
    else
      src.data[i] = float(i);
  }
  auto transpose = [&] { k->run(src.data, dst.data, kN * kN); };
  auto memcpyCall = [&] {
    std::memcpy(copy.data, src.data, bytes);
    benchmark::ClobberMemory();
  };
  AlternatedTimes t = alternateCalls(state, transpose, memcpyCall);
  reportAlternated(state, t, "transpose", "memcpy", "GB/s",
                   [&](double seconds) { return 2.0 * bytes / seconds / 1e9; });
  state.counters["huge_pages"] = (src.hugeFraction() + dst.hugeFraction()) / 2;
  auto *dst16 = reinterpret_cast<uint16_t *>(dst.data);
  for (int64_t i = 0; i < kN; i += 7)
    for (int64_t j = 0; j < kN; ++j) {
      bool same = half ? dst16[j * kN + i] == src16[i * kN + j]
                       : dst.data[j * kN + i] == src.data[i * kN + j];
      if (!same) {
        state.SkipWithError("the transpose misplaced an element");
        return;
      }
    }
}

/// The in-register transpose without cache blocking: tiles in row order of
/// the source.
void BM_TransposeGeneratedUnblocked(benchmark::State &state) {
  transposeBench(state, true, /*block=*/0, /*blockDst=*/0);
}
/// Blocks of state.range(0) elements along the source's contiguous loop
/// and state.range(1) along the destination's; f16 when state.range(2).
void BM_TransposeGeneratedBlock(benchmark::State &state) {
  transposeBench(state, true, state.range(0), state.range(1),
                 state.range(3) != 0, state.range(2) != 0);
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

void BM_CopyRowMajorGenerated(benchmark::State &state) {
  Jitted k(2, [&](OpBuilder &b, Location loc, ValueRange args) {
    CPUBuffer src = bufferOf(args[0], "S[(4096, 4096) : (4096, 1)]", {kN, kN});
    CPUBuffer dst = bufferOf(args[1], "S[(4096, 4096) : (4096, 1)]", {kN, kN});
    (void)emitCopy(b, loc, src, dst);
  });
  runCopy(state, k);
}

//===----------------------------------------------------------------------===//
// Whole axe kernels through the axe-to-cpu pipeline
//===----------------------------------------------------------------------===//

std::string str(int64_t v) { return std::to_string(v); }

/// The options of a run: the host's vector width, or `vectorBits`; the
/// operators' code outlined (the pipeline's default) or inline.
AxeToCPUOptions cpuOptions(int64_t vectorBits, bool openmp,
                           bool outline = true) {
  AxeToCPUOptions o;
  o.vectorBits = vectorBits;
  o.openmp = openmp;
  o.outline = outline;
  return o;
}

constexpr int64_t kTile = 128;

/// Replaces every `$name` in `text` by its value.
std::string
substitute(std::string text,
           std::initializer_list<std::pair<const char *, std::string>> values) {
  for (const auto &[name, value] : values) {
    std::string key = std::string("$") + name;
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  }
  return text;
}

/// The tiles of a GEMM kernel: tm x tn of C per CTA, K in slices of tk.
struct GemmTiles {
  int64_t m = kTile, n = kTile, k = kTile;
};

/// C = A x B on n x n row-major matrices (A, B of `inType`, C f32), as a CPU
/// kernel: a grid of tm x tn tiles of C, each CTA stepping over K in
/// tk-deep slices that it copies into shared tiles. The shared tiles take
/// the packed gemm's panel layouts for the vector unit of `vectorBits`, so
/// the copies pack and the gemm reads them in place (widening f16 and bf16
/// in registers). With `staged` false the gemm reads the global slices and
/// accumulates into C in place: it reads A where it lies and packs B,
/// widening f16 and bf16 to f32 as it packs. With `inferred` (staged only)
/// the shared tiles are written `?`: the same kernel text with only its
/// global layouts, which axe-infer-layouts completes from the CPU
/// schedules' proposals.
std::string gemmKernel(int64_t n, const char *inType, int64_t vectorBits,
                       GemmTiles t, bool staged, bool inferred = false) {
  CPUCodegenOptions opts;
  Result<CPUVectorUnit> unit = cpuVectorUnit(vectorBits);
  if (!unit)
    llvm::report_fatal_error(llvm::Twine(unit.message()));
  opts.vectorLanes32 = unit->lanes32();
  opts.vectorRegisters = unit->vectorRegisters;
  GemmBlocking g = chooseGemmBlocking(t.m, t.n, t.k, opts);
  std::string head = R"(module attributes {axe.target = #axe.target<"cpu">} {
func.func @kernel(%A: $mem$in>, %B: $mem$in>, %C: $memf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %ctm = arith.constant $TM : index
  %ctn = arith.constant $TN : index
  %ctk = arith.constant $TK : index
  %cn = arith.constant $N : index
  %zero = arith.constant 0.0 : f32
  axe.kernel grid [$GM, $GN] threads 32 {
    %bx = axe.axis_id bx
    %by = axe.axis_id by
    %m0 = arith.muli %bx, %ctm : index
    %n0 = arith.muli %by, %ctn : index
    %gC = axe.view %C[%m0, %n0] : $memf32> -> $gC)";
  std::string slices = R"(
      %gA = axe.view %A[%m0, %k] : $mem$in> -> $gA
      %gB = axe.view %B[%k, %n0] : $mem$in> -> $gB)";
  std::string tail = R"(
  }
  return
}
}
)";
  std::string body = staged ? R"(
    %sA = axe.alloc : $sA
    %sB = axe.alloc : $sB
    %acc = axe.alloc : $acc
    axe.fill %acc, %zero at cta : $acc
    scf.for %k = %c0 to %cn step %ctk {)" +
                                  slices + R"(
      axe.copy %gA to %sA at cta : $gA to $sA
      axe.copy %gB to %sB at cta : $gB to $sB
      axe.gemm %sA, %sB into %acc at cta : $sA, $sB into $acc
    }
    axe.copy %acc to %gC at cta : $acc to $gC)"
                            : R"(
    axe.fill %gC, %zero at cta : $gC
    scf.for %k = %c0 to %cn step %ctk {)" +
                                  slices + R"(
      axe.gemm %gA, %gB into %gC at cta : $gA, $gB into $gC
    })";
  std::string text = head + body + tail;
  auto buffer = [](int64_t rows, int64_t cols, const std::string &type,
                   const std::string &layout, const char *space) {
    return "!axe.buffer<" + str(rows) + "x" + str(cols) + "x" + type +
           ", #axe.layout<" + layout + ">, " + space + ">";
  };
  // An on-chip tile: its layout, or `?` to infer.
  auto onChip = [&](int64_t rows, int64_t cols, const std::string &type,
                    const std::string &layout) {
    if (!inferred)
      return buffer(rows, cols, type, layout, "shared");
    return "!axe.buffer<" + str(rows) + "x" + str(cols) + "x" + type +
           ", ?, shared>";
  };
  auto rowMajor = [](int64_t rows, int64_t cols, int64_t ld) {
    return "S[(" + str(rows) + ", " + str(cols) + ") : (" + str(ld) + ", 1)]";
  };
  std::string in = inType;
  return substitute(
      text, {{"gA", buffer(t.m, t.k, in, rowMajor(t.m, t.k, n), "global")},
             {"gB", buffer(t.k, t.n, in, rowMajor(t.k, t.n, n), "global")},
             {"gC", buffer(t.m, t.n, "f32", rowMajor(t.m, t.n, n), "global")},
             {"sA", onChip(t.m, t.k, in, gemmPanelLayoutA(t.m, t.k, false, g))},
             {"sB", onChip(t.k, t.n, in, gemmPanelLayoutB(t.k, t.n, false, g))},
             {"acc", onChip(t.m, t.n, "f32", rowMajor(t.m, t.n, t.n))},
             {"mem", "memref<" + str(n) + "x" + str(n) + "x"},
             {"in", in},
             {"TM", str(t.m)},
             {"TN", str(t.n)},
             {"TK", str(t.k)},
             {"GM", str(n / t.m)},
             {"GN", str(n / t.n)},
             {"N", str(n)}});
}

/// Random values in [-1, 1) with few significant bits, so that f16 and bf16
/// hold them exactly.
std::vector<float> randomMatrix(int64_t n, unsigned seed) {
  std::vector<float> m(n * n);
  uint32_t x = seed * 2654435761u + 1;
  for (float &v : m) {
    x = x * 1664525u + 1013904223u;
    v = float(int((x >> 24) & 0xff) - 128) / 128.0f;
  }
  return m;
}

/// bf16 and f16 bit patterns of exactly representable floats.
uint16_t toBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return uint16_t(bits >> 16);
}
uint16_t toF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t sign = (bits >> 16) & 0x8000;
  int32_t exp = int32_t((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mant = (bits >> 13) & 0x3ff;
  if ((bits & 0x7fffffff) == 0)
    return uint16_t(sign);
  return uint16_t(sign | (uint32_t(exp) << 10) | mant);
}

/// Largest |C - A x B| over a sample of rows, against a double reference.
double gemmError(int64_t n, const std::vector<float> &a,
                 const std::vector<float> &b, const std::vector<float> &c) {
  double worst = 0;
  for (int64_t i = 0; i < n; i += 61)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k)
        s += double(a[i * n + k]) * double(b[k * n + j]);
      worst = std::max(worst, std::abs(s - double(c[i * n + j])));
    }
  return worst;
}

/// Reports the largest error of products of the same A and B as `max_err`,
/// and fails the benchmark when one is wrong.
void checkProducts(
    benchmark::State &state, int64_t n, const std::vector<float> &a,
    const std::vector<float> &b,
    std::initializer_list<std::reference_wrapper<const std::vector<float>>>
        products) {
  double err = 0;
  for (const std::vector<float> &c : products)
    err = std::max(err, gemmError(n, a, b, c));
  state.counters["max_err"] = err;
  if (err > 1e-3 * n)
    state.SkipWithError("a product is wrong");
}

/// Runs the GEMM `run` once per iteration of `state`, each timed on its own
/// (the benchmark's time is manual: the GEMMs' alone), and reports its rate
/// and the fraction of the FMA peak at `vectorBits` (0: the widest) on
/// `cores` cores that it reached. The peak is sampled between the runs, a
/// quarter of their time, so that both see the same clock (PeakProbe);
/// `peak_at_start` is the ratio against the peak measured at start-up.
void timeGemm(benchmark::State &state, int64_t n, int64_t vectorBits,
              int64_t cores, llvm::function_ref<void()> run) {
  PeakProbe probe;
  std::vector<double> times;
  for (auto _ : state) {
    double s = secondsOf(run);
    state.SetIterationTime(s);
    times.push_back(s);
    probe.sample(vectorBits, s / 4);
  }
  double seconds = std::accumulate(times.begin(), times.end(), 0.0);
  double flop = 2.0 * n * n * n;
  double gflops = flop * state.iterations() / seconds / 1e9;
  state.counters["GFLOP/s"] = gflops;
  // The median call as well: on a shared host a call now and then loses a
  // time slice to a neighbour (tens to hundreds of milliseconds, against a
  // few for a 512^3 GEMM), which moves the mean but not the median.
  std::nth_element(times.begin(), times.begin() + times.size() / 2,
                   times.end());
  double gflopsMedian = flop / times[times.size() / 2] / 1e9;
  state.counters["GFLOP/s_med"] = gflopsMedian;
  // And the fastest call: the code's rate when no neighbour interfered,
  // the steadiest figure to compare two variants of a kernel by.
  double gflopsBest =
      flop / *std::min_element(times.begin(), times.end()) / 1e9;
  state.counters["GFLOP/s_best"] = gflopsBest;
  if (double peak = probe.gflops() * cores; peak > 0) {
    state.counters["of_peak"] = gflops / peak;
    state.counters["of_peak_med"] = gflopsMedian / peak;
    state.counters["of_peak_best"] = gflopsBest / peak;
    state.counters["peak"] = peak;
  }
  if (double peak = hostPeak().gflops(vectorBits) * cores; peak > 0)
    state.counters["of_peak_at_start"] = gflops / peak;
}

/// Times the axe GEMM kernel `inType` x `inType` -> f32 of n x n matrices with
/// CTA tiles `tiles`, and checks its product.
void runGemmAxe(benchmark::State &state, const char *inType, int64_t n,
                int64_t vectorBits, bool openmp, bool outline, GemmTiles tiles,
                bool staged, bool inferred) {
  AxeKernel k(gemmKernel(n, inType, vectorBits, tiles, staged, inferred),
              cpuOptions(vectorBits, openmp, outline));
  std::vector<float> a = randomMatrix(n, 1), b = randomMatrix(n, 2);
  std::vector<float> c(n * n, 0.f);
  std::vector<uint16_t> a16(n * n), b16(n * n);
  bool narrow = std::string(inType) != "f32";
  auto conv = std::string(inType) == "bf16" ? toBF16 : toF16;
  for (int64_t i = 0; narrow && i < n * n; ++i) {
    a16[i] = conv(a[i]);
    b16[i] = conv(b[i]);
  }
  void *pa = narrow ? (void *)a16.data() : (void *)a.data();
  void *pb = narrow ? (void *)b16.data() : (void *)b.data();
  timeGemm(state, n, vectorBits,
           openmp ? std::thread::hardware_concurrency() : 1, [&] {
             k.run(n, {pa, pb, c.data()});
           });
  // Beside the widened bf16 and f16 paths, what the host's native bf16 dot
  // products (AVX512-BF16) would allow on the same cores.
  double dotPeak = hostPeak().gflopsBF16Dot *
                   (openmp ? std::thread::hardware_concurrency() : 1);
  if (std::string(inType) == "bf16" && dotPeak > 0)
    state.counters["of_bf16_dot_peak"] = state.counters["GFLOP/s"] / dotPeak;
  // And for f16, the native f16 FMA (AVX512-FP16), which accumulates in f16.
  double f16Peak = hostPeak().gflopsF16Fma *
                   (openmp ? std::thread::hardware_concurrency() : 1);
  if (std::string(inType) == "f16" && f16Peak > 0)
    state.counters["of_f16_fma_peak"] = state.counters["GFLOP/s"] / f16Peak;
  double err = gemmError(n, a, b, c);
  state.counters["max_err"] = err;
  if (err > 1e-3 * n)
    state.SkipWithError("the kernel's product is wrong");
}

/// Times the axe GEMM kernel: state.range(0) = n, range(1) = vector bits
/// (0: the host's), range(2) = OpenMP on, range(3) = outlined operators,
/// range(4) = staged (the 128 x 128 x 128 kernel whose copies pack into
/// shared panels) or not (256 x 256 tiles of C over 256-deep slices that the
/// gemm reads from global memory: A in place, B packed and widened),
/// range(5) = the staged kernel with its shared layouts inferred (`?`);
/// `inType` f32, f16 or bf16.
void gemmAxe(benchmark::State &state, const char *inType) {
  int64_t n = state.range(0), vectorBits = state.range(1);
  bool openmp = state.range(2) != 0, staged = state.range(4) != 0;
  bool inferred = state.range(5) != 0;
  GemmTiles tiles =
      staged ? GemmTiles{128, 128, 128} : GemmTiles{256, 256, 256};
  runGemmAxe(state, inType, n, vectorBits, openmp, state.range(3) != 0, tiles,
             staged, inferred);
}

/// The direct kernel with the CTA tile of the arguments: n, vbits (0: the
/// host's), tm, tn, tk, one thread.
void BM_GemmAxeTiles(benchmark::State &state) {
  runGemmAxe(state, "f32", state.range(0), state.range(1), false, true,
             GemmTiles{state.range(2), state.range(3), state.range(4)}, false,
             false);
}

void BM_GemmAxeF32(benchmark::State &state) { gemmAxe(state, "f32"); }
void BM_GemmAxeF16(benchmark::State &state) { gemmAxe(state, "f16"); }
void BM_GemmAxeBF16(benchmark::State &state) { gemmAxe(state, "bf16"); }

extern "C" char *openblas_get_corename(void);

/// The vector width of the sgemm kernels of the core type OpenBLAS chose:
/// 512 bits for its AVX-512 cores (e.g. with OPENBLAS_CORETYPE=SkylakeX),
/// else 256 (Haswell, Zen, and the hosts measured so far).
int64_t openblasVectorBits() {
  std::string core = llvm::StringRef(openblas_get_corename()).lower();
  for (const char *wide : {"skylakex", "cooperlake", "sapphirerapids"})
    if (core == wide)
      return 512;
  return 256;
}

/// C = A B with OpenBLAS, n x n row-major f32, on the threads set last.
void openblasSgemm(int64_t n, const std::vector<float> &a,
                   const std::vector<float> &b, std::vector<float> &c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(n), int(n), int(n),
              1.0f, a.data(), int(n), b.data(), int(n), 0.0f, c.data(), int(n));
}

/// OpenBLAS sgemm on the same problem, state.range(1) threads.
void BM_OpenBLASSgemm(benchmark::State &state) {
  int64_t n = state.range(0);
  openblas_set_num_threads(int(state.range(1)));
  std::vector<float> a = randomMatrix(n, 1), b = randomMatrix(n, 2);
  std::vector<float> c(n * n, 0.f);
  timeGemm(state, n, openblasVectorBits(), state.range(1),
           [&] { openblasSgemm(n, a, b, c); });
}

/// axe's f32 GEMM and OpenBLAS's sgemm on the same matrices, one call of
/// each in turn. On a shared VM whose speed moves by a third within a
/// minute, rows run one after the other do not see the same machine; calls
/// alternated do, so the ratio of their fastest calls (and of their median
/// ones) compares the code. range(0) = n, range(1) = axe's vector bits (0:
/// the host's), range(2) = threads (OpenMP for axe where more than one,
/// on OMP_NUM_THREADS threads: every core unless set, so set it to 2 on a
/// host with more cores). `same_width` says whether OpenBLAS's kernels have
/// axe's vector width.
void BM_GemmAxeVsOpenBLAS(benchmark::State &state) {
  int64_t n = state.range(0), vectorBits = state.range(1),
          threads = state.range(2);
  bool openmp = threads > 1;
  AxeKernel k(gemmKernel(n, "f32", vectorBits, GemmTiles{256, 256, 256},
                         /*staged=*/false),
              cpuOptions(vectorBits, openmp));
  openblas_set_num_threads(int(threads));
  std::vector<float> a = randomMatrix(n, 1), b = randomMatrix(n, 2);
  std::vector<float> cAxe(n * n, 0.f), cBlas(n * n, 0.f);
  auto axe = [&] { k.run(n, {a.data(), b.data(), cAxe.data()}); };
  auto blas = [&] { openblasSgemm(n, a, b, cBlas); };
  int64_t axeBits = vectorBits ? vectorBits : hostVectorUnit().vectorBits;
  bool sameWidth = axeBits == openblasVectorBits();
  PeakProbe probe;
  AlternatedTimes t = alternateCalls(state, axe, blas, [&](double seconds) {
    probe.sample(axeBits, seconds / 4);
  });
  double flop = 2.0 * n * n * n;
  double peak = probe.gflops() * threads;
  auto gflops = [&](double seconds) { return flop / seconds / 1e9; };
  reportAlternated(state, t, "axe", "blas", "GFLOP/s", gflops);
  if (peak > 0) {
    state.counters["axe_of_peak_best"] = gflops(t.first.best()) / peak;
    if (sameWidth)
      state.counters["blas_of_peak_best"] = gflops(t.second.best()) / peak;
  }
  state.counters["peak"] = peak;
  state.counters["same_width"] = sameWidth;
  checkProducts(state, n, a, b, {cAxe, cBlas});
}

/// axe's f32 GEMM and OpenBLAS's sgemm against the FMA peak, calls in
/// turn: one GEMM call of each, and the same number of flops as independent
/// FMAs in registers (runPeakFlops), the first call of a round rotating.
/// The peak call's time over a GEMM's is the fraction of the peak that GEMM
/// reached (`axe_of_peak`, `blas_of_peak`, fastest and median calls), with
/// the baseline as long as the GEMM and seeing the same neighbours, as in
/// the other alternated rows. range(0) = n, range(1) = vector bits (0: the
/// host's); one thread. `blas_of_peak` only where OpenBLAS's kernels have
/// axe's width (`same_width`). Both products are checked.
void BM_GemmAxeVsPeak(benchmark::State &state) {
  int64_t n = state.range(0), vectorBits = state.range(1);
  int64_t bits = vectorBits ? vectorBits : hostVectorUnit().vectorBits;
  if (!runPeakFlops(bits, 1)) {
    state.SkipWithError("the host has no FMA unit of this width");
    return;
  }
  AxeKernel k(gemmKernel(n, "f32", vectorBits, GemmTiles{256, 256, 256},
                         /*staged=*/false),
              cpuOptions(vectorBits, /*openmp=*/false));
  openblas_set_num_threads(1);
  std::vector<float> a = randomMatrix(n, 1), b = randomMatrix(n, 2);
  std::vector<float> cAxe(n * n, 0.f), cBlas(n * n, 0.f);
  double flop = 2.0 * n * n * n;
  auto axe = [&] { k.run(n, {a.data(), b.data(), cAxe.data()}); };
  auto blas = [&] { openblasSgemm(n, a, b, cBlas); };
  auto peak = [&] { runPeakFlops(bits, flop); };
  std::vector<CallTimes> t = rotateCalls(state, {axe, blas, peak});
  const CallTimes &axeTimes = t[0], &blasTimes = t[1], &peakTimes = t[2];
  auto gflops = [&](double seconds) { return flop / seconds / 1e9; };
  state.counters["axe_GFLOP/s_best"] = gflops(axeTimes.best());
  state.counters["blas_GFLOP/s_best"] = gflops(blasTimes.best());
  state.counters["peak_GFLOP/s_best"] = gflops(peakTimes.best());
  state.counters["axe_of_peak_best"] = peakTimes.best() / axeTimes.best();
  state.counters["axe_of_peak_med"] = peakTimes.median() / axeTimes.median();
  bool sameWidth = bits == openblasVectorBits();
  if (sameWidth) {
    state.counters["blas_of_peak_best"] = peakTimes.best() / blasTimes.best();
    state.counters["blas_of_peak_med"] =
        peakTimes.median() / blasTimes.median();
  }
  state.counters["ratio_best"] = blasTimes.best() / axeTimes.best();
  state.counters["same_width"] = sameWidth;
  checkProducts(state, n, a, b, {cAxe, cBlas});
}

/// The direct GEMM kernel with and without `reuse-packed-panels` (B's
/// packed panels kept from one CTA to the next on a worker), one call of
/// each in turn in one process, so that both see the same machine.
/// range(0) = n, range(1) = vector bits (0: the host's), range(2) =
/// threads (OpenMP where more than one).
void BM_GemmPanelReuse(benchmark::State &state) {
  int64_t n = state.range(0), vectorBits = state.range(1),
          threads = state.range(2);
  std::string text = gemmKernel(n, "f32", vectorBits, GemmTiles{256, 256, 256},
                                /*staged=*/false);
  AxeToCPUOptions options = cpuOptions(vectorBits, threads > 1);
  AxeKernel reused(text, options);
  options.reusePackedPanels = false;
  AxeKernel repacked(text, options);
  std::vector<float> a = randomMatrix(n, 1), b = randomMatrix(n, 2);
  std::vector<float> cReused(n * n, 0.f), cRepacked(n * n, 0.f);
  auto runReused = [&] { reused.run(n, {a.data(), b.data(), cReused.data()}); };
  auto runRepacked = [&] {
    repacked.run(n, {a.data(), b.data(), cRepacked.data()});
  };
  int64_t bits = vectorBits ? vectorBits : hostVectorUnit().vectorBits;
  PeakProbe probe;
  AlternatedTimes t =
      alternateCalls(state, runReused, runRepacked,
                     [&](double seconds) { probe.sample(bits, seconds / 4); });
  double flop = 2.0 * n * n * n, peak = probe.gflops() * threads;
  reportAlternated(
      state, t, "reused", "repacked", "of_peak",
      [&](double seconds) { return flop / seconds / 1e9 / peak; }, "speedup");
  checkProducts(state, n, a, b, {cReused, cRepacked});
}

/// The direct GEMM kernel on f16 (range(2) = 0) or bf16 (1) inputs and on
/// f32 inputs, one call of each in turn: the narrow kernel's rate over the
/// f32 kernel's, both seeing the same machine (issue 30's goal: 0.85).
/// range(0) = n, range(1) = vector bits (0: the host's). Both products are
/// checked.
void BM_GemmNarrowVsF32(benchmark::State &state) {
  int64_t n = state.range(0), vectorBits = state.range(1);
  const char *narrowType = state.range(2) ? "bf16" : "f16";
  GemmTiles tiles{256, 256, 256};
  AxeKernel narrow(gemmKernel(n, narrowType, vectorBits, tiles, false),
                   cpuOptions(vectorBits, false));
  AxeKernel wide(gemmKernel(n, "f32", vectorBits, tiles, false),
                 cpuOptions(vectorBits, false));
  std::vector<float> a = randomMatrix(n, 1), b = randomMatrix(n, 2);
  std::vector<uint16_t> a16(n * n), b16(n * n);
  auto conv = state.range(2) ? toBF16 : toF16;
  for (int64_t i = 0; i < n * n; ++i) {
    a16[i] = conv(a[i]);
    b16[i] = conv(b[i]);
  }
  std::vector<float> cNarrow(n * n, 0.f), cWide(n * n, 0.f);
  auto runNarrow = [&] {
    narrow.run(n, {a16.data(), b16.data(), cNarrow.data()});
  };
  auto runWide = [&] { wide.run(n, {a.data(), b.data(), cWide.data()}); };
  AlternatedTimes t = alternateCalls(state, runNarrow, runWide);
  double flop = 2.0 * n * n * n;
  reportAlternated(state, t, "narrow", "f32", "GFLOP/s",
                   [&](double seconds) { return flop / seconds / 1e9; });
  checkProducts(state, n, a, b, {cNarrow, cWide});
}

/// A plain copy of an n x n f32 matrix as an axe kernel: 128 x 128 tiles,
/// one per CTA. range(0) = n, range(1) = OpenMP on.
void BM_CopyAxeKernel(benchmark::State &state) {
  int64_t n = state.range(0);
  std::string N = str(n), T = str(kTile),
              mem = "memref<" + N + "x" + N + "xf32>";
  std::string g = "!axe.buffer<" + T + "x" + T + "xf32, #axe.layout<S[(" + T +
                  ", " + T + ") : (" + N + ", 1)]>, global>";
  std::string grid = str(n / kTile);
  std::string text = "module attributes {axe.target = #axe.target<\"cpu\">} {\n"
                     "func.func @kernel(%A: " +
                     mem + ", %B: " + mem +
                     ") attributes {llvm.emit_c_interface} {\n"
                     "  %ct = arith.constant " +
                     T +
                     " : index\n"
                     "  axe.kernel grid [" +
                     grid + ", " + grid +
                     "] threads 32 {\n"
                     "    %bx = axe.axis_id bx\n"
                     "    %by = axe.axis_id by\n"
                     "    %m0 = arith.muli %bx, %ct : index\n"
                     "    %n0 = arith.muli %by, %ct : index\n"
                     "    %a = axe.view %A[%m0, %n0] : " +
                     mem + " -> " + g +
                     "\n"
                     "    %b = axe.view %B[%m0, %n0] : " +
                     mem + " -> " + g +
                     "\n"
                     "    axe.copy %a to %b at cta : " +
                     g + " to " + g +
                     "\n"
                     "  }\n"
                     "  return\n"
                     "}\n"
                     "}\n";
  AxeKernel k(text, cpuOptions(0, state.range(1) != 0, state.range(2) != 0));
  std::vector<float> a(n * n, 1.0f), b(n * n);
  for (auto _ : state)
    k.run(n, {a.data(), b.data()});
  state.SetBytesProcessed(state.iterations() * 2 * n * n * sizeof(float));
}

} // namespace

/// The rows that alternate two calls (alternateCalls): at least 2 s each,
/// timed by the calls alone.
void alternatedRows(benchmark::internal::Benchmark *b) {
  b->MinTime(2.0)->UseManualTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CopyRowMajorGenerated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGenerated)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedNoStreaming)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGenerated256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedF16x256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemcpyHugePages)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedHugePages)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemcpyF16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedF16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedF16NoStreaming)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MemcpyF16HugePages)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedF16HugePages)->Unit(benchmark::kMillisecond);
// Issue 30's transpose rows, calls alternated with memcpy: f32 and f16, 4
// KiB and 2 MiB pages, the host's vectors and 256-bit ones.
BENCHMARK(BM_TransposeVsMemcpy)
    ->ArgNames({"f16", "huge", "lanes32"})
    ->ArgsProduct({{0, 1}, {0, 1}, {0}})
    ->Args({0, 0, 8})
    ->Args({1, 0, 8})
    ->Apply(alternatedRows);
BENCHMARK(BM_TransposeGeneratedUnblocked)->Unit(benchmark::kMillisecond);
// The default is a strip of 32 source rows (4096 x 32); 128 x 512 and 32 x
// 512 were the defaults for f32 and f16 before strips.
BENCHMARK(BM_TransposeGeneratedBlock)
    ->ArgNames({"src", "dst", "f16", "huge"})
    ->ArgsProduct({{4096}, {16, 32, 64, 128}, {0, 1}, {0}})
    ->Args({32, 32, 0, 0})
    ->Args({128, 512, 0, 0})
    ->Args({32, 512, 1, 0})
    ->Args({64, 64, 1, 0})
    ->Args({4096, 32, 0, 1})
    ->Args({4096, 64, 0, 1})
    ->Args({128, 512, 0, 1})
    ->Args({4096, 32, 1, 1})
    ->Args({32, 512, 1, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeGeneratedScalar)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TransposeNaiveCxx)->Unit(benchmark::kMillisecond);
// outline:0 is the kernel with its operators' loops inline, the form
// axe-to-cpu emitted before outlining: the baseline of outline:1.
BENCHMARK(BM_CopyAxeKernel)
    ->ArgNames({"n", "openmp", "outline"})
    ->Args({4096, 0, 1})
    ->Args({4096, 0, 0})
    ->Args({4096, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Single thread: the host's vector unit (0) and AVX2 sizing (256). Each
// staged row with inferred:1 is the same kernel with its shared layouts `?`.
BENCHMARK(BM_GemmAxeF32)
    ->ArgNames({"n", "vbits", "openmp", "outline", "staged", "inferred"})
    ->Args({512, 0, 0, 1, 0, 0})
    ->Args({512, 0, 0, 0, 0, 0})
    ->Args({512, 0, 0, 1, 1, 0})
    ->Args({512, 0, 0, 1, 1, 1})
    ->Args({512, 256, 0, 1, 0, 0})
    ->Args({512, 256, 0, 1, 1, 0})
    ->Args({512, 256, 0, 1, 1, 1})
    ->Args({2048, 0, 0, 1, 1, 0})
    ->Args({2048, 0, 0, 1, 1, 1})
    ->Args({2048, 0, 0, 1, 0, 0})
    ->Args({2048, 256, 0, 1, 0, 0})
    ->Args({2048, 0, 1, 1, 0, 0})
    ->Args({2048, 256, 1, 1, 0, 0})
    ->Args({512, 0, 1, 1, 0, 0})
    ->Args({512, 256, 1, 1, 0, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
/// The largest of a benchmark's repetitions, for its counters (GFLOP/s,
/// of_peak): what the code does when the neighbours of a shared host leave
/// it alone. (For its times it is the slowest repetition.)
double maxOf(const std::vector<double> &v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

// The direct kernel's CTA tile at 2048^3 (1 thread, both vector widths):
// the sweep behind the tile the rows above use.
BENCHMARK(BM_GemmAxeTiles)
    ->ArgNames({"n", "vbits", "tm", "tn", "tk"})
    ->ArgsProduct({{2048}, {0, 256}, {256}, {256}, {128, 256, 512}})
    ->ArgsProduct({{2048}, {0, 256}, {128, 512}, {256}, {256}})
    ->Args({2048, 0, 256, 512, 256})
    ->Args({2304, 0, 256, 256, 256})
    ->Args({512, 0, 256, 256, 128})
    ->ComputeStatistics("max", maxOf)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_GemmAxeF16)
    ->ArgNames({"n", "vbits", "openmp", "outline", "staged", "inferred"})
    ->Args({512, 0, 0, 1, 0, 0})
    ->Args({512, 256, 0, 1, 0, 0})
    ->Args({512, 0, 0, 1, 1, 0})
    ->Args({512, 0, 0, 1, 1, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK(BM_GemmAxeBF16)
    ->ArgNames({"n", "vbits", "openmp", "outline", "staged", "inferred"})
    ->Args({512, 0, 0, 1, 0, 0})
    ->Args({512, 256, 0, 1, 0, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
// The like-for-like pair of issue 30: axe at 256 bits against OpenBLAS's
// 256-bit kernels (or at the host's width, against OpenBLAS's AVX-512
// kernels with OPENBLAS_CORETYPE=SkylakeX), calls alternated. n = 2304
// (rows 9 KiB apart) shows what the power-of-two leading dimension costs.
BENCHMARK(BM_GemmAxeVsOpenBLAS)
    ->ArgNames({"n", "vbits", "threads"})
    ->ArgsProduct({{512, 2048, 2304}, {256, 0}, {1, 2}})
    ->Apply(alternatedRows);
// Issue 30's goal at the host's width (0.90 of the FMA peak), and at 256
// bits for comparison; with OPENBLAS_CORETYPE=SkylakeX on an AVX-512 host,
// OpenBLAS's kernels have the host's width.
BENCHMARK(BM_GemmAxeVsPeak)
    ->ArgNames({"n", "vbits"})
    ->ArgsProduct({{512, 2048, 2304}, {0, 256}})
    ->Apply(alternatedRows);
BENCHMARK(BM_GemmPanelReuse)
    ->ArgNames({"n", "vbits", "threads"})
    ->ArgsProduct({{512, 2048}, {256, 0}, {1, 2}})
    ->Apply(alternatedRows);
BENCHMARK(BM_GemmNarrowVsF32)
    ->ArgNames({"n", "vbits", "bf16"})
    ->ArgsProduct({{512, 2048}, {256, 0}, {0, 1}})
    ->Apply(alternatedRows);
BENCHMARK(BM_OpenBLASSgemm)
    ->ArgNames({"n", "threads"})
    ->Args({512, 1})
    ->Args({2048, 1})
    ->Args({2048, 2})
    ->Args({512, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

/// OpenBLAS picks its kernels when it loads, from the CPU it recognizes;
/// 0.3.21 does not know Sapphire or Emerald Rapids and falls back to its
/// SSE3 kernels (`Prescott`), a baseline at a quarter of the machine. On a
/// host with AVX2 and FMA the process then starts again with
/// OPENBLAS_CORETYPE=Haswell: the 256-bit kernels, the like-for-like
/// baseline of the `vbits:256` rows. A core type the user set is kept.
void useOpenBLASAvx2KernelsIfUnknownCore(char **argv) {
#if defined(__x86_64__)
  if (std::getenv("OPENBLAS_CORETYPE") ||
      std::strcmp(openblas_get_corename(), "Prescott") != 0 ||
      !__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    return;
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);
  setenv("AXE_BENCH_OPENBLAS_FORCED", "1", 1);
  execv("/proc/self/exe", argv);
  std::perror("re-running with OPENBLAS_CORETYPE=Haswell");
#else
  (void)argv;
#endif
}

int main(int argc, char **argv) {
  useOpenBLASAvx2KernelsIfUnknownCore(argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::AddCustomContext("host_peak", hostPeak().describe());
  benchmark::AddCustomContext("host_cpu", hostVectorUnit().cpuName);
  benchmark::AddCustomContext(
      "openblas_core",
      std::string(openblas_get_corename()) +
          (std::getenv("AXE_BENCH_OPENBLAS_FORCED")
               ? " (OPENBLAS_CORETYPE set by the bench: OpenBLAS did not "
                 "recognize this CPU)"
               : ""));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
