//===- GemmBench.cpp - axe's sm_90a GEMMs against cuBLAS, by shape and type
//===//
//
// C (M x N) = A (M x K) x B^T with B stored N x K (K-major), for every
// generated kernel prepare.py compiled (kernels.inc lists each with its N,
// K and element types; M is the caller's), against cublasGemmEx on the same
// buffers with the same types, in the same process; FP8 (e4m3) kernels,
// C = scale x A x B^T, against cublasLtMatmul with alpha = scale. A
// kernel's N and K are part of its code (its layouts), so a shape runs only
// where a kernel for it was built: `prepare.py --gemm-shapes FILE` builds
// them.
//
// Correctness: A and B hold small integers, so every sum is exact in f32
// whatever the order, and an f16 or bf16 C is that sum rounded once (to
// nearest even) by both: each kernel's C must equal cuBLAS's bit for bit.
// cuBLAS's C is itself checked on 4096 sampled elements against a host
// product in double, rounded to C's type. FP8 is the exception: Hopper's
// FP8 tensor cores keep partial sums in fewer bits than f32 (about 14
// significant ones), so once |partial sums| pass 2^14 the low bits depend
// on the order of accumulation, which differs between two kernels. An FP8
// element passes when it is within 2^-7 of the reference's magnitude plus
// the scale (two bf16 ulps; one input product's worth near 0).
//
// Timing: each kernel launch is timed with CUDA events by the runtime
// (axeCudaTimeLaunches), which leaves out the host work of the generated
// function (stream creation, TMA descriptor encoding); cuBLAS is timed with
// events around the same number of calls. Both after warm-up runs; the
// figure is the mean of the timed runs, reported with the fastest.
//
// Grouped kernels (a mixture-of-experts layer's GEMMs: B holds E experts'
// weights, a routing array gives each 128-row tile of A its expert) run at
// each --tokens count, every token routed to --topk distinct experts by a
// seeded draw, each expert's rows padded to a multiple of 128, against
// cublasGemmGroupedBatchedEx with one group per expert that has tokens.
// Their C must equal cuBLAS's bit for bit, padding rows (0) included;
// TFLOP/s count the routed rows only.
//
// Fused mixture-of-experts layers (gen_moe_sm90.py: gate_up with SwiGLU and
// down in one launch) run at the same token counts against the unfused
// sequence of the same baseline: cublasGemmGroupedBatchedEx for gate_up
// and again for down, on the same buffers. The baseline leaves out the
// activation between them (cuBLAS has none; any kernel for it would only
// add to the baseline's time), and the fused layer's timing leaves out the
// reset of its ticket and flags (one cuMemsetD32 before each launch). H and
// Y are not integers, so they are checked within a tolerance: H against
// silu(gate) x up of cuBLAS's gate_up output (rounded to bf16 there, which
// the fused kernel does not do: 2^-5 of the value plus 2^-8), Y against
// cuBLAS's down GEMM on the fused kernel's own H (2^-7 plus 2^-10: the two
// sum in different orders before rounding to bf16).
//
// Usage: gemm-bench [--m M] [--n N] [--k K] [--in f16|bf16|e4m3]
//                   [--out f32|f16|bf16] [--kernel SUBSTRING] [--runs R]
//                   [--json FILE] [--tokens T]... [--topk K]
// The filters pick kernels (M is 8192 unless given, the LLM shapes' M);
// --json writes one record per kernel to FILE (a JSON array), which
// gemm_table.py prints as docs/Benchmarks-NVIDIA.md's table.
//
//===----------------------------------------------------------------------===//

#include "CudaRuntime.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// The generated host functions: each memref is (allocated, aligned, offset,
// sizes, strides), then the index argument (M tiles of 128 rows).
#define AXE_MEMREF2 void *, void *, int64_t, int64_t, int64_t, int64_t, int64_t
// 8-bit kernels take C's scale (an f32) before the index.
#define AXE_GEMM(name, n, k, in, out)                                          \
  extern "C" void name(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, int64_t);
#define AXE_GEMM_SCALED(name, n, k, in, out)                                   \
  extern "C" void name(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, float, int64_t);
// Grouped kernels take the routing array (a rank-1 memref of i32: each
// 128-row tile's expert) before the index.
#define AXE_MEMREF1 void *, void *, int64_t, int64_t, int64_t
#define AXE_GEMM_GROUPED(name, n, k, experts, in, out)                         \
  extern "C" void name(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF1,     \
                       int64_t);
// Fused layers: X, W1, W2, H, Y, the routing array, the row blocks' flags,
// the ticket counter, the number of row blocks.
#define AXE_MOE(name, hidden, width, experts)                                  \
  extern "C" void name(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2,     \
                       AXE_MEMREF2, AXE_MEMREF1, AXE_MEMREF1, AXE_MEMREF1,     \
                       int64_t);
#include "kernels.inc"
#undef AXE_GEMM
#undef AXE_GEMM_SCALED
#undef AXE_GEMM_GROUPED
#undef AXE_MOE
using GroupedGemmFn = void (*)(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2,
                               AXE_MEMREF1, int64_t);
using MoeFn = void (*)(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2,
                      AXE_MEMREF2, AXE_MEMREF1, AXE_MEMREF1, AXE_MEMREF1,
                      int64_t);
using GemmFn = void (*)(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, int64_t);
using ScaledGemmFn = void (*)(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, float,
                              int64_t);

namespace {

enum class DType { F16, BF16, F32, E4M3 };

const char *nameOf(DType t) {
  switch (t) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::E4M3:
    return "e4m3";
  default:
    return "f32";
  }
}
size_t bytesOf(DType t) {
  return t == DType::F32 ? 4 : t == DType::E4M3 ? 1 : 2;
}
cudaDataType cudaTypeOf(DType t) {
  switch (t) {
  case DType::F16:
    return CUDA_R_16F;
  case DType::BF16:
    return CUDA_R_16BF;
  case DType::E4M3:
    return CUDA_R_8F_E4M3;
  default:
    return CUDA_R_32F;
  }
}

/// C's scale in the FP8 kernels (and cuBLASLt's alpha): not a power of
/// two, so a kernel that drops it or applies it twice is caught.
constexpr float kFp8Scale = 5.25f;

struct Kernel {
  const char *name;
  GemmFn fn;
  ScaledGemmFn scaledFn;
  GroupedGemmFn groupedFn;
  int64_t n, k;
  DType in, out;
  /// Grouped kernels: B holds this many N x K matrices.
  int64_t experts;
  /// Fused layers (N: hidden, K: expert width).
  MoeFn moeFn = nullptr;
};

constexpr DType F16 = DType::F16, BF16 = DType::BF16, F32 = DType::F32,
                E4M3 = DType::E4M3;
const Kernel kKernels[] = {
#define AXE_GEMM(name, n, k, in, out)                                          \
  {#name, name, nullptr, nullptr, n, k, in, out, 0},
#define AXE_GEMM_SCALED(name, n, k, in, out)                                   \
  {#name, nullptr, name, nullptr, n, k, in, out, 0},
#define AXE_GEMM_GROUPED(name, n, k, experts, in, out)                         \
  {#name, nullptr, nullptr, name, n, k, in, out, experts},
#define AXE_MOE(name, hidden, width, experts)                                  \
  {#name, nullptr, nullptr, nullptr, hidden, width, BF16, BF16, experts, name},
#include "kernels.inc"
#undef AXE_GEMM
#undef AXE_GEMM_SCALED
#undef AXE_GEMM_GROUPED
#undef AXE_MOE
};

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  fprintf(stderr, "gemm-bench: %s failed: %s\n", what, name ? name : "?");
  exit(1);
}

/// The e4m3 bits of `v`, which must be one of its values (the inputs here
/// are small integers): every code is tried.
uint32_t e4m3Bits(float v) {
  for (uint32_t code = 0; code < 256; ++code) {
    uint32_t e = (code >> 3) & 15, m = code & 7;
    if (e == 15 && m == 7)
      continue; // NaN
    float mag =
        e ? std::ldexp(float(8 + m), int(e) - 10) : std::ldexp(float(m), -9);
    if ((code & 0x80 ? -mag : mag) == v)
      return code;
  }
  fprintf(stderr, "gemm-bench: %g is not an e4m3 value\n", double(v));
  exit(1);
}

/// The value of C's element bits.
double valueOf(DType t, uint32_t bits) {
  if (t == DType::F32 || t == DType::BF16) {
    uint32_t f = t == DType::BF16 ? bits << 16 : bits;
    float v;
    std::memcpy(&v, &f, 4);
    return v;
  }
  // f16
  int e = int(bits >> 10) & 31, m = int(bits & 0x3FF);
  double mag =
      e ? std::ldexp(double(1024 + m), e - 25) : std::ldexp(double(m), -24);
  return bits & 0x8000 ? -mag : mag;
}

/// FP8's tolerance (the header says why).
bool closeEnough(double got, double ref) {
  return std::fabs(got - ref) <= std::ldexp(std::fabs(ref), -7) + kFp8Scale;
}

void check(cublasStatus_t s, const char *what) {
  if (s == CUBLAS_STATUS_SUCCESS)
    return;
  fprintf(stderr, "gemm-bench: %s failed: cuBLAS status %d\n", what, int(s));
  exit(1);
}

/// The bits of `v` in `t`, rounded to nearest even (f16 and bf16 hold the
/// inputs' small integers exactly; outputs are rounded as the GPU rounds).
uint32_t bitsOf(DType t, float v) {
  uint32_t f;
  std::memcpy(&f, &v, 4);
  if (t == DType::F32)
    return f;
  if (t == DType::E4M3)
    return e4m3Bits(v);
  if (t == DType::BF16)
    return (f + 0x7FFF + ((f >> 16) & 1)) >> 16;
  // f16: the values here are integers well inside its normal range.
  if (v == 0)
    return (f >> 16) & 0x8000;
  uint32_t sign = (f >> 16) & 0x8000;
  int32_t exp = int32_t((f >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = f & 0x7FFFFF;
  if (exp >= 31)
    return sign | 0x7C00;
  uint32_t half = (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return sign | half;
}

int aValue(int64_t i, int64_t k) { return int((i * 7 + k * 3) % 5) - 2; }
// B's rows differ (a kernel that reads the wrong rows or expert is caught).
int bValue(int64_t n, int64_t k) { return int((n * 3 + k * 11 + 1) % 5) - 2; }

struct Device2D {
  CUdeviceptr ptr = 0;
  int64_t rows, cols;
  DType type;
  size_t bytes() const { return size_t(rows * cols) * bytesOf(type); }
};

Device2D upload(int64_t rows, int64_t cols, DType t,
                int (*value)(int64_t, int64_t), float scale = 1.0f) {
  Device2D d{0, rows, cols, t};
  std::vector<uint8_t> host(d.bytes());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      uint32_t bits = bitsOf(t, float(value(r, c)) * scale);
      std::memcpy(host.data() + size_t(r * cols + c) * bytesOf(t), &bits,
                  bytesOf(t));
    }
  check(cuMemAlloc(&d.ptr, d.bytes()), "cuMemAlloc");
  check(cuMemcpyHtoD(d.ptr, host.data(), d.bytes()), "cuMemcpyHtoD");
  return d;
}

Device2D allocate(int64_t rows, int64_t cols, DType t) {
  Device2D d{0, rows, cols, t};
  check(cuMemAlloc(&d.ptr, d.bytes()), "cuMemAlloc");
  return d;
}

std::vector<uint8_t> download(const Device2D &d) {
  std::vector<uint8_t> host(d.bytes());
  check(cuMemcpyDtoH(host.data(), d.ptr, host.size()), "cuMemcpyDtoH");
  return host;
}

uint32_t elementBits(const std::vector<uint8_t> &host, DType t, size_t x) {
  uint32_t bits = 0;
  std::memcpy(&bits, host.data() + x * bytesOf(t), bytesOf(t));
  return bits;
}

struct Timing {
  double meanMs = 0, bestMs = 0;
};

/// `call` (one launch of a generated host function) timed by the runtime's
/// events around its launch alone, after `warmup` untimed calls.
template <typename Call> Timing timeLaunches(Call call, int warmup, int runs) {
  for (int i = 0; i < warmup; ++i)
    call();
  Timing t;
  t.bestMs = 1e30;
  double total = 0;
  for (int i = 0; i < runs; ++i) {
    axeCudaTimeLaunches(1);
    call();
    int64_t launches = 0;
    double ms = axeCudaTimedLaunches(&launches);
    axeCudaTimeLaunches(0);
    if (launches != 1) {
      fprintf(stderr, "gemm-bench: expected one timed launch, got %lld\n",
              (long long)launches);
      exit(1);
    }
    total += ms;
    t.bestMs = std::min(t.bestMs, ms);
  }
  t.meanMs = total / runs;
  return t;
}

Timing timeKernel(const Kernel &kernel, const Device2D &a, const Device2D &b,
                  const Device2D &c, int warmup, int runs) {
  void *pa = reinterpret_cast<void *>(a.ptr);
  void *pb = reinterpret_cast<void *>(b.ptr);
  void *pc = reinterpret_cast<void *>(c.ptr);
  return timeLaunches(
      [&] {
        if (kernel.scaledFn)
          kernel.scaledFn(pa, pa, 0, a.rows, a.cols, a.cols, 1, pb, pb, 0,
                          b.rows, b.cols, b.cols, 1, pc, pc, 0, c.rows, c.cols,
                          c.cols, 1, kFp8Scale, a.rows / 128);
        else
          kernel.fn(pa, pa, 0, a.rows, a.cols, a.cols, 1, pb, pb, 0, b.rows,
                    b.cols, b.cols, 1, pc, pc, 0, c.rows, c.cols, c.cols, 1,
                    a.rows / 128);
      },
      warmup, runs);
}

/// `call` timed with CUDA events around each of `runs` calls, after
/// `warmup` untimed ones.
template <typename Call> Timing timeCalls(Call call, int warmup, int runs) {
  for (int i = 0; i < warmup; ++i)
    call();
  CUevent start, stop;
  check(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  Timing t;
  t.bestMs = 1e30;
  double total = 0;
  for (int i = 0; i < runs; ++i) {
    check(cuEventRecord(start, nullptr), "cuEventRecord");
    call();
    check(cuEventRecord(stop, nullptr), "cuEventRecord");
    check(cuEventSynchronize(stop), "cuEventSynchronize");
    float ms = 0;
    check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    total += ms;
    t.bestMs = std::min<double>(t.bestMs, ms);
  }
  t.meanMs = total / runs;
  cuEventDestroy(start);
  cuEventDestroy(stop);
  return t;
}

Timing timeCublas(cublasHandle_t h, const Device2D &a, const Device2D &b,
                  const Device2D &c, int warmup, int runs) {
  const float alpha = 1, beta = 0;
  int m = int(a.rows), n = int(b.rows), k = int(a.cols);
  // Row-major C = A B^T is column-major C^T = B A^T: B (column-major K x N,
  // ld K) transposed times A (column-major K x M, ld K).
  return timeCalls(
      [&] {
        check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha,
                           reinterpret_cast<void *>(b.ptr), cudaTypeOf(b.type),
                           k, reinterpret_cast<void *>(a.ptr),
                           cudaTypeOf(a.type), k, &beta,
                           reinterpret_cast<void *>(c.ptr), cudaTypeOf(c.type),
                           n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "cublasGemmEx");
      },
      warmup, runs);
}

/// cuBLASLt's FP8 GEMM, C = kFp8Scale x A B^T: the same column-major
/// reading as timeCublas ("TN", the only FP8 form: both operands K-major),
/// with alpha the scale and cuBLASLt's best heuristic algorithm.
Timing timeCublasLtFp8(cublasLtHandle_t lt, const Device2D &a,
                       const Device2D &b, const Device2D &c, int warmup,
                       int runs) {
  const float alpha = kFp8Scale, beta = 0;
  int64_t m = a.rows, n = b.rows, k = a.cols;
  cublasLtMatmulDesc_t op;
  check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
  cublasOperation_t opB = CUBLAS_OP_T, opA = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &opB,
                                       sizeof(opB)),
        "cublasLtMatmulDescSetAttribute");
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &opA,
                                       sizeof(opA)),
        "cublasLtMatmulDescSetAttribute");
  cublasLtMatrixLayout_t lb, la, lc;
  check(cublasLtMatrixLayoutCreate(&lb, cudaTypeOf(b.type), k, n, k),
        "cublasLtMatrixLayoutCreate");
  check(cublasLtMatrixLayoutCreate(&la, cudaTypeOf(a.type), k, m, k),
        "cublasLtMatrixLayoutCreate");
  check(cublasLtMatrixLayoutCreate(&lc, cudaTypeOf(c.type), n, m, n),
        "cublasLtMatrixLayoutCreate");
  size_t workspaceBytes = size_t(32) << 20;
  CUdeviceptr workspace;
  check(cuMemAlloc(&workspace, workspaceBytes), "cuMemAlloc");
  cublasLtMatmulPreference_t pref;
  check(cublasLtMatmulPreferenceCreate(&pref),
        "cublasLtMatmulPreferenceCreate");
  check(cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
            sizeof(workspaceBytes)),
        "cublasLtMatmulPreferenceSetAttribute");
  cublasLtMatmulHeuristicResult_t heuristic;
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(lt, op, lb, la, lc, lc, pref, 1,
                                       &heuristic, &found),
        "cublasLtMatmulAlgoGetHeuristic");
  if (!found) {
    fprintf(stderr, "gemm-bench: cuBLASLt has no FP8 algorithm for this "
                    "shape\n");
    exit(1);
  }
  Timing t = timeCalls(
      [&] {
        check(cublasLtMatmul(
                  lt, op, &alpha, reinterpret_cast<void *>(b.ptr), lb,
                  reinterpret_cast<void *>(a.ptr), la, &beta,
                  reinterpret_cast<void *>(c.ptr), lc,
                  reinterpret_cast<void *>(c.ptr), lc, &heuristic.algo,
                  reinterpret_cast<void *>(workspace), workspaceBytes, nullptr),
              "cublasLtMatmul");
      },
      warmup, runs);
  cublasLtMatmulPreferenceDestroy(pref);
  for (cublasLtMatrixLayout_t l : {la, lb, lc})
    cublasLtMatrixLayoutDestroy(l);
  cublasLtMatmulDescDestroy(op);
  cuMemFree(workspace);
  return t;
}

struct Options {
  int64_t m = 8192, n = 0, k = 0;
  std::string in, out, kernel, json;
  int runs = 20;
  /// Grouped kernels: token counts (1k, 4k, 16k, 32k unless given) and
  /// experts per token.
  std::vector<int64_t> tokens;
  int64_t topk = 8;
};

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) {
      fprintf(stderr, "gemm-bench: %s needs a value\n", arg.c_str());
      exit(2);
    }
    std::string value = argv[++i];
    if (arg == "--m")
      o.m = atoll(value.c_str());
    else if (arg == "--n")
      o.n = atoll(value.c_str());
    else if (arg == "--k")
      o.k = atoll(value.c_str());
    else if (arg == "--in")
      o.in = value;
    else if (arg == "--out")
      o.out = value;
    else if (arg == "--kernel")
      o.kernel = value;
    else if (arg == "--runs")
      o.runs = atoi(value.c_str());
    else if (arg == "--json")
      o.json = value;
    else if (arg == "--tokens")
      o.tokens.push_back(atoll(value.c_str()));
    else if (arg == "--topk")
      o.topk = atoll(value.c_str());
    else {
      fprintf(stderr, "gemm-bench: unknown option %s\n", arg.c_str());
      exit(2);
    }
  }
  if (o.m <= 0 || o.m % 128 || o.runs <= 0) {
    fprintf(stderr, "gemm-bench: --m must be a positive multiple of 128 (the "
                    "kernels' tile) and --runs positive\n");
    exit(2);
  }
  if (o.topk <= 0 || std::any_of(o.tokens.begin(), o.tokens.end(),
                                 [](int64_t t) { return t <= 0; })) {
    fprintf(stderr, "gemm-bench: --tokens and --topk must be positive\n");
    exit(2);
  }
  return o;
}

bool selected(const Kernel &kernel, const Options &o) {
  return (!o.n || kernel.n == o.n) && (!o.k || kernel.k == o.k) &&
         (o.in.empty() || o.in == nameOf(kernel.in)) &&
         (o.out.empty() || o.out == nameOf(kernel.out)) &&
         (o.kernel.empty() ||
          std::string(kernel.name).find(o.kernel) != std::string::npos);
}

double tflops(int64_t m, int64_t n, int64_t k, double ms) {
  return 2.0 * double(m) * double(n) * double(k) / (ms * 1e-3) / 1e12;
}

/// cuBLAS's C on a sample, against a host product in double rounded to C's
/// type: the number of elements that differ.
int64_t sampleMismatches(const std::vector<uint8_t> &c, int64_t m, int64_t n,
                         int64_t k, DType in, DType out) {
  int64_t bad = 0;
  for (int s = 0; s < 4096; ++s) {
    int64_t i = (int64_t(s) * 2654435761u) % m, j = (int64_t(s) * 40503) % n;
    double sum = 0;
    for (int64_t x = 0; x < k; ++x)
      sum += double(aValue(i, x)) * double(bValue(j, x));
    uint32_t got = elementBits(c, out, size_t(i * n + j));
    if (in == DType::E4M3)
      bad += !closeEnough(valueOf(out, got), kFp8Scale * sum);
    else
      bad += got != bitsOf(out, float(sum));
  }
  return bad;
}

/// Elements of `got` that differ from `expected`: bit for bit, or beyond
/// FP8's tolerance for FP8 inputs.
int64_t mismatches(const std::vector<uint8_t> &got,
                   const std::vector<uint8_t> &expected, size_t count, DType in,
                   DType out) {
  int64_t bad = 0;
  for (size_t x = 0; x < count; ++x) {
    uint32_t g = elementBits(got, out, x), e = elementBits(expected, out, x);
    if (in == DType::E4M3)
      bad += !closeEnough(valueOf(out, g), valueOf(out, e));
    else
      bad += g != e;
  }
  return bad;
}

/// The process-wide state of a run: libraries, device, records.
struct Bench {
  cublasHandle_t handle;
  cublasLtHandle_t lt;
  char device[256] = "";
  int driver = 0, cublasVersion = 0;
  int warmup = 3, runs = 20;
  std::string records;
  int failures = 0;
};

/// One JSON record of gemm-bench's output; `extra` adds fields.
std::string record(const Bench &bench, const char *problem,
                   const Kernel &kernel, int64_t m, int64_t n, int64_t k,
                   const Timing &t, const char *baseline, const Timing &base,
                   double flops, int64_t bad, int64_t sampleBad,
                   const std::string &extra = "") {
  char text[2048];
  snprintf(text, sizeof(text),
           "{\"problem\": \"%s\", \"kernel\": \"%s\", \"m\": %lld, "
           "\"n\": %lld, \"k\": %lld, \"in\": \"%s\", \"out\": \"%s\", "
           "\"ms_mean\": %.6f, \"ms_best\": %.6f, \"baseline\": "
           "\"%s\", \"baseline_ms_mean\": %.6f, "
           "\"baseline_ms_best\": %.6f, \"tflops\": %.2f, "
           "\"baseline_tflops\": %.2f, \"of_baseline\": %.4f, "
           "\"mismatches\": %lld, \"baseline_sample_mismatches\": %lld, "
           "\"device\": \"%s\", \"cuda_driver\": %d, \"cublas\": %d%s}",
           problem, kernel.name, (long long)m, (long long)n, (long long)k,
           nameOf(kernel.in), nameOf(kernel.out), t.meanMs, t.bestMs, baseline,
           base.meanMs, base.bestMs, flops / (t.meanMs * 1e9),
           flops / (base.meanMs * 1e9), base.meanMs / t.meanMs, (long long)bad,
           (long long)sampleBad, bench.device, bench.driver,
           bench.cublasVersion, extra.c_str());
  return text;
}

void addRecord(Bench &bench, const std::string &r, bool failed) {
  bench.records += (bench.records.empty() ? "" : ",\n  ") + r;
  bench.failures += failed;
}

/// A plain (or FP8) kernel at M rows against cuBLAS (cuBLASLt for FP8).
void runPlain(Bench &bench, const Kernel &kernel, int64_t m) {
  int64_t n = kernel.n, k = kernel.k;
  Device2D a = upload(m, k, kernel.in, aValue);
  Device2D b = upload(n, k, kernel.in, bValue);
  Device2D c = allocate(m, n, kernel.out), ref = allocate(m, n, kernel.out);
  bool fp8 = kernel.in == DType::E4M3;
  const char *baseline = fp8 ? "cublasLtMatmul" : "cublasGemmEx";
  Timing base =
      fp8 ? timeCublasLtFp8(bench.lt, a, b, ref, bench.warmup, bench.runs)
          : timeCublas(bench.handle, a, b, ref, bench.warmup, bench.runs);
  std::vector<uint8_t> expected = download(ref);
  int64_t sampleBad =
      sampleMismatches(expected, m, n, k, kernel.in, kernel.out);
  check(cuMemsetD8(c.ptr, 0xFF, c.bytes()), "cuMemsetD8");
  Timing t = timeKernel(kernel, a, b, c, bench.warmup, bench.runs);
  std::vector<uint8_t> got = download(c);
  int64_t bad = mismatches(got, expected, size_t(m * n), kernel.in, kernel.out);
  printf("%s: M=%lld N=%lld K=%lld %s -> %s: mean %.4f ms (%.1f TFLOP/s), "
         "%s %.4f ms (%.1f TFLOP/s): %.1f%% of it; mismatches vs it "
         "%lld%s, it vs host (sampled) %lld\n",
         kernel.name, (long long)m, (long long)n, (long long)k,
         nameOf(kernel.in), nameOf(kernel.out), t.meanMs,
         tflops(m, n, k, t.meanMs), baseline, base.meanMs,
         tflops(m, n, k, base.meanMs), 100 * base.meanMs / t.meanMs,
         (long long)bad, fp8 ? " (beyond FP8's tolerance)" : "",
         (long long)sampleBad);
  addRecord(bench,
            record(bench, "gemm", kernel, m, n, k, t, baseline, base,
                   2.0 * double(m) * double(n) * double(k), bad, sampleBad),
            bad != 0 || sampleBad != 0);
  for (Device2D *d : {&a, &b, &c, &ref})
    cuMemFree(d->ptr);
}

//===----------------------------------------------------------------------===//
// Grouped GEMM (mixture of experts)
//===----------------------------------------------------------------------===//

/// How `tokens` tokens, each sent to `topk` distinct experts of `experts`,
/// load each expert: a seeded draw, the same in every run.
std::vector<int64_t> expertLoads(int64_t tokens, int64_t topk,
                                 int64_t experts) {
  std::vector<int64_t> load(size_t(experts), 0);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  std::vector<int64_t> chosen;
  for (int64_t t = 0; t < tokens; ++t) {
    chosen.clear();
    while (int64_t(chosen.size()) < std::min(topk, experts)) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      int64_t e = int64_t((state >> 33) % uint64_t(experts));
      if (std::find(chosen.begin(), chosen.end(), e) == chosen.end())
        chosen.push_back(e);
    }
    for (int64_t e : chosen)
      ++load[size_t(e)];
  }
  return load;
}

/// Row r of A holds a token's activations where it is live (below its
/// expert's load), zeros on the padding up to the next multiple of 128.
struct Routing {
  std::vector<int64_t> load, firstRow;
  std::vector<int32_t> tileExpert;
  int64_t rows = 0;
};

Routing route(const std::vector<int64_t> &load) {
  Routing r;
  r.load = load;
  for (size_t e = 0; e < load.size(); ++e) {
    r.firstRow.push_back(r.rows);
    int64_t tiles = (load[e] + 127) / 128;
    r.tileExpert.insert(r.tileExpert.end(), size_t(tiles), int32_t(e));
    r.rows += tiles * 128;
  }
  return r;
}

/// A (rows x k) for routing `r`: aValue x `scale` on a token's rows,
/// zeros on the padding (the kernels multiply it too).
Device2D routedRows(const Routing &r, int64_t k, DType t, float scale) {
  Device2D a{0, r.rows, k, t};
  std::vector<uint8_t> host(a.bytes(), 0);
  for (size_t e = 0; e < r.load.size(); ++e)
    for (int64_t row = r.firstRow[e]; row < r.firstRow[e] + r.load[e]; ++row)
      for (int64_t x = 0; x < k; ++x) {
        uint32_t bits = bitsOf(t, float(aValue(row, x)) * scale);
        std::memcpy(host.data() + size_t(row * k + x) * bytesOf(t), &bits,
                    bytesOf(t));
      }
  check(cuMemAlloc(&a.ptr, a.bytes()), "cuMemAlloc");
  check(cuMemcpyHtoD(a.ptr, host.data(), a.bytes()), "cuMemcpyHtoD");
  return a;
}

Timing timeGroupedKernel(const Kernel &kernel, const Device2D &a,
                         const Device2D &b, const Device2D &c,
                         CUdeviceptr tiles, int64_t tileCount, int warmup,
                         int runs) {
  void *pa = reinterpret_cast<void *>(a.ptr);
  void *pb = reinterpret_cast<void *>(b.ptr);
  void *pc = reinterpret_cast<void *>(c.ptr);
  void *pt = reinterpret_cast<void *>(tiles);
  return timeLaunches(
      [&] {
        kernel.groupedFn(pa, pa, 0, a.rows, a.cols, a.cols, 1, pb, pb, 0,
                         b.rows, b.cols, b.cols, 1, pc, pc, 0, c.rows, c.cols,
                         c.cols, 1, pt, pt, 0, tileCount, 1, tileCount);
      },
      warmup, runs);
}

/// cuBLAS's grouped GEMM: one group per expert with tokens, each C_e =
/// A_e B_e^T at the expert's rows of the same padded buffers.
Timing timeCublasGrouped(cublasHandle_t h, const Routing &r, const Device2D &a,
                         const Device2D &b, const Device2D &c, int64_t n,
                         int warmup, int runs) {
  int64_t k = a.cols;
  std::vector<cublasOperation_t> opB, opA;
  std::vector<int> ms, ns, ks, lds, ldc, sizes;
  std::vector<float> alphas, betas;
  std::vector<const void *> as, bs;
  std::vector<void *> cs;
  for (size_t e = 0; e < r.load.size(); ++e) {
    if (!r.load[e])
      continue;
    // Column-major C_e^T (N x tokens) = B_e (K x N)^T A_e (K x tokens).
    opB.push_back(CUBLAS_OP_T);
    opA.push_back(CUBLAS_OP_N);
    ms.push_back(int(n));
    ns.push_back(int(r.load[e]));
    ks.push_back(int(k));
    lds.push_back(int(k));
    ldc.push_back(int(n));
    sizes.push_back(1);
    alphas.push_back(1);
    betas.push_back(0);
    bs.push_back(reinterpret_cast<const void *>(
        b.ptr + size_t(int64_t(e) * n * k) * bytesOf(b.type)));
    as.push_back(reinterpret_cast<const void *>(
        a.ptr + size_t(r.firstRow[e] * k) * bytesOf(a.type)));
    cs.push_back(reinterpret_cast<void *>(c.ptr + size_t(r.firstRow[e] * n) *
                                                      bytesOf(c.type)));
  }
  int groups = int(ms.size());
  // The pointer arrays live on the device.
  CUdeviceptr dA, dB, dC;
  size_t bytes = size_t(groups) * sizeof(void *);
  check(cuMemAlloc(&dA, bytes), "cuMemAlloc");
  check(cuMemAlloc(&dB, bytes), "cuMemAlloc");
  check(cuMemAlloc(&dC, bytes), "cuMemAlloc");
  check(cuMemcpyHtoD(dA, as.data(), bytes), "cuMemcpyHtoD");
  check(cuMemcpyHtoD(dB, bs.data(), bytes), "cuMemcpyHtoD");
  check(cuMemcpyHtoD(dC, cs.data(), bytes), "cuMemcpyHtoD");
  Timing t = timeCalls(
      [&] {
        check(cublasGemmGroupedBatchedEx(
                  h, opB.data(), opA.data(), ms.data(), ns.data(), ks.data(),
                  alphas.data(), reinterpret_cast<const void *const *>(dB),
                  cudaTypeOf(b.type), lds.data(),
                  reinterpret_cast<const void *const *>(dA), cudaTypeOf(a.type),
                  lds.data(), betas.data(), reinterpret_cast<void *const *>(dC),
                  cudaTypeOf(c.type), ldc.data(), groups, sizes.data(),
                  CUBLAS_COMPUTE_32F),
              "cublasGemmGroupedBatchedEx");
      },
      warmup, runs);
  for (CUdeviceptr p : {dA, dB, dC})
    cuMemFree(p);
  return t;
}

/// A grouped kernel at `tokens` tokens routed top-`topk` against cuBLAS's
/// grouped GEMM: C's live rows must match bit for bit, its padding rows
/// must be 0.
void runGrouped(Bench &bench, const Kernel &kernel, int64_t tokens,
                int64_t topk) {
  int64_t n = kernel.n, k = kernel.k, experts = kernel.experts;
  Routing r = route(expertLoads(tokens, topk, experts));
  Device2D a = routedRows(r, k, kernel.in, 1.0f);
  Device2D b = upload(experts * n, k, kernel.in, bValue);
  Device2D c = allocate(r.rows, n, kernel.out),
           ref = allocate(r.rows, n, kernel.out);
  check(cuMemsetD8(ref.ptr, 0, ref.bytes()), "cuMemsetD8");
  CUdeviceptr tiles;
  int64_t tileCount = int64_t(r.tileExpert.size());
  check(cuMemAlloc(&tiles, r.tileExpert.size() * 4), "cuMemAlloc");
  check(cuMemcpyHtoD(tiles, r.tileExpert.data(), r.tileExpert.size() * 4),
        "cuMemcpyHtoD");
  Timing base = timeCublasGrouped(bench.handle, r, a, b, ref, n, bench.warmup,
                                  bench.runs);
  check(cuMemsetD8(c.ptr, 0xFF, c.bytes()), "cuMemsetD8");
  Timing t = timeGroupedKernel(kernel, a, b, c, tiles, tileCount, bench.warmup,
                               bench.runs);
  std::vector<uint8_t> got = download(c), expected = download(ref);
  // cuBLAS leaves the padding rows as they were (zeros): every row of C
  // must equal them, padding included.
  int64_t bad =
      mismatches(got, expected, size_t(r.rows * n), kernel.in, kernel.out);
  int64_t routed = 0;
  for (int64_t l : r.load)
    routed += l;
  double flops = 2.0 * double(routed) * double(n) * double(k);
  printf("%s: %lld tokens top-%lld over %lld experts (%lld rows, %lld "
         "padded) N=%lld K=%lld %s -> %s: mean %.4f ms (%.1f TFLOP/s), "
         "cublasGemmGroupedBatchedEx %.4f ms (%.1f TFLOP/s): %.1f%% of it; "
         "mismatches %lld\n",
         kernel.name, (long long)tokens, (long long)topk, (long long)experts,
         (long long)routed, (long long)r.rows, (long long)n, (long long)k,
         nameOf(kernel.in), nameOf(kernel.out), t.meanMs,
         flops / (t.meanMs * 1e9), base.meanMs, flops / (base.meanMs * 1e9),
         100 * base.meanMs / t.meanMs, (long long)bad);
  char extra[128];
  snprintf(extra, sizeof(extra),
           ", \"tokens\": %lld, \"topk\": %lld, \"experts\": %lld",
           (long long)tokens, (long long)topk, (long long)experts);
  addRecord(bench,
            record(bench, "grouped_gemm", kernel, routed, n, k, t,
                   "cublasGemmGroupedBatchedEx", base, flops, bad, 0, extra),
            bad != 0);
  cuMemFree(tiles);
  for (Device2D *d : {&a, &b, &c, &ref})
    cuMemFree(d->ptr);
}

//===----------------------------------------------------------------------===//
// Fused mixture-of-experts layer
//===----------------------------------------------------------------------===//

/// Elements of `got` (bf16) farther from `ref` than rel x |ref| + abs.
int64_t offBy(const std::vector<uint8_t> &got, const std::vector<float> &ref,
              double rel, double abs) {
  int64_t bad = 0;
  for (size_t x = 0; x < ref.size(); ++x) {
    double g = valueOf(BF16, elementBits(got, BF16, x));
    bad += !(std::fabs(g - ref[x]) <= rel * std::fabs(ref[x]) + abs);
  }
  return bad;
}

/// A fused layer at `tokens` tokens routed top-`topk` against cuBLAS's
/// grouped GEMM for gate_up and then for down (the header says what is
/// timed and checked).
void runMoe(Bench &bench, const Kernel &kernel, int64_t tokens, int64_t topk) {
  int64_t hidden = kernel.n, width = kernel.k, experts = kernel.experts;
  Routing r = route(expertLoads(tokens, topk, experts));
  int64_t tiles = int64_t(r.tileExpert.size());
  // Eighths near 0, so that silu's curve is exercised and sums stay small.
  Device2D x = routedRows(r, hidden, BF16, 0.125f);
  Device2D w1 = upload(experts * 2 * width, hidden, BF16, bValue, 0.125f);
  Device2D w2 = upload(experts * hidden, width, BF16, bValue, 0.125f);
  Device2D h = allocate(r.rows, width, BF16), y = allocate(r.rows, hidden, BF16);
  Device2D gate = allocate(r.rows, 2 * width, BF16),
           yRef = allocate(r.rows, hidden, BF16);
  for (Device2D *d : {&gate, &yRef})
    check(cuMemsetD8(d->ptr, 0, d->bytes()), "cuMemsetD8");
  CUdeviceptr route, flags;
  check(cuMemAlloc(&route, size_t(tiles) * 4), "cuMemAlloc");
  check(cuMemcpyHtoD(route, r.tileExpert.data(), size_t(tiles) * 4),
        "cuMemcpyHtoD");
  // The row blocks' flags, then the ticket counter.
  check(cuMemAlloc(&flags, size_t(tiles + 1) * 4), "cuMemAlloc");
  auto ptr = [](CUdeviceptr p) { return reinterpret_cast<void *>(p); };
  void *px = ptr(x.ptr), *p1 = ptr(w1.ptr), *p2 = ptr(w2.ptr), *ph = ptr(h.ptr),
       *py = ptr(y.ptr), *pr = ptr(route), *pf = ptr(flags),
       *pt = ptr(flags + size_t(tiles) * 4);
  Timing fused = timeLaunches(
      [&] {
        // The kernel runs on the runtime's non-blocking stream, which the
        // null stream's memset does not order: wait for the memset.
        check(cuMemsetD32(flags, 0, size_t(tiles + 1)), "cuMemsetD32");
        check(cuCtxSynchronize(), "cuCtxSynchronize");
        kernel.moeFn(px, px, 0, x.rows, x.cols, x.cols, 1, p1, p1, 0, w1.rows,
                     w1.cols, w1.cols, 1, p2, p2, 0, w2.rows, w2.cols, w2.cols,
                     1, ph, ph, 0, h.rows, h.cols, h.cols, 1, py, py, 0, y.rows,
                     y.cols, y.cols, 1, pr, pr, 0, tiles, 1, pf, pf, 0, tiles,
                     1, pt, pt, 0, 1, 1, tiles);
      },
      bench.warmup, bench.runs);
  Timing gateUp = timeCublasGrouped(bench.handle, r, x, w1, gate, 2 * width,
                                    bench.warmup, bench.runs);
  Timing down = timeCublasGrouped(bench.handle, r, h, w2, yRef, hidden,
                                  bench.warmup, bench.runs);
  Timing base{gateUp.meanMs + down.meanMs, gateUp.bestMs + down.bestMs};
  // H against silu(gate) x up of cuBLAS's gate_up (tile t of 256 columns:
  // 128 gate columns, then the up columns of the same features); padding
  // rows are 0 in both.
  std::vector<uint8_t> gotH = download(h), g = download(gate);
  std::vector<float> refH(size_t(r.rows * width));
  for (int64_t row = 0; row < r.rows; ++row)
    for (int64_t f = 0; f < width; ++f) {
      int64_t col = f / 128 * 256 + f % 128;
      double gv = valueOf(BF16, elementBits(g, BF16, size_t(row * 2 * width + col)));
      double uv =
          valueOf(BF16, elementBits(g, BF16, size_t(row * 2 * width + col + 128)));
      refH[size_t(row * width + f)] = float(gv / (1 + std::exp(-gv)) * uv);
    }
  int64_t badH = offBy(gotH, refH, std::ldexp(1.0, -5), std::ldexp(1.0, -8));
  std::vector<uint8_t> gotY = download(y), yr = download(yRef);
  std::vector<float> refY(size_t(r.rows * hidden));
  for (size_t e = 0; e < refY.size(); ++e)
    refY[e] = float(valueOf(BF16, elementBits(yr, BF16, e)));
  int64_t badY = offBy(gotY, refY, std::ldexp(1.0, -7), std::ldexp(1.0, -10));
  int64_t routed = 0;
  for (int64_t l : r.load)
    routed += l;
  double flops = 2.0 * double(routed) * double(hidden) * double(width) * 3;
  printf("%s: %lld tokens top-%lld over %lld experts (%lld rows, %lld "
         "padded) hidden=%lld width=%lld bf16: fused mean %.4f ms (%.1f "
         "TFLOP/s), cuBLAS grouped gate_up + down %.4f + %.4f ms (%.1f "
         "TFLOP/s): %.1f%% of it; H off %lld, Y off %lld\n",
         kernel.name, (long long)tokens, (long long)topk, (long long)experts,
         (long long)routed, (long long)r.rows, (long long)hidden,
         (long long)width, fused.meanMs, flops / (fused.meanMs * 1e9),
         gateUp.meanMs, down.meanMs, flops / (base.meanMs * 1e9),
         100 * base.meanMs / fused.meanMs, (long long)badH, (long long)badY);
  char extra[160];
  snprintf(extra, sizeof(extra),
           ", \"tokens\": %lld, \"topk\": %lld, \"experts\": %lld, "
           "\"h_off\": %lld",
           (long long)tokens, (long long)topk, (long long)experts,
           (long long)badH);
  addRecord(bench,
            record(bench, "moe_layer", kernel, routed, hidden, width, fused,
                   "cublasGemmGroupedBatchedEx x 2", base, flops, badY, 0,
                   extra),
            badH != 0 || badY != 0);
  cuMemFree(route);
  cuMemFree(flags);
  for (Device2D *d : {&x, &w1, &w2, &h, &y, &gate, &yRef})
    cuMemFree(d->ptr);
}

} // namespace

int main(int argc, char **argv) {
  Options opts = parse(argc, argv);
  std::vector<const Kernel *> kernels;
  for (const Kernel &kernel : kKernels)
    if (selected(kernel, opts))
      kernels.push_back(&kernel);
  if (kernels.empty()) {
    fprintf(stderr, "gemm-bench: no kernel matches (prepare.py builds a "
                    "kernel per shape and type: --gemm-shapes)\n");
    return 2;
  }
  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) {
    const char *name = nullptr;
    cuGetErrorName(r, &name);
    fprintf(stderr, "gemm-bench: no CUDA device (cuInit: %s)\n",
            name ? name : "?");
    return 1;
  }
  Bench bench;
  bench.runs = opts.runs;
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check(cuDeviceGetName(bench.device, sizeof(bench.device), dev),
        "cuDeviceGetName");
  check(cuDriverGetVersion(&bench.driver), "cuDriverGetVersion");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  if (cublasCreate(&bench.handle) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "gemm-bench: cuBLAS is missing or unusable here; no "
                    "baseline, nothing measured\n");
    return 1;
  }
  check(cublasGetVersion(bench.handle, &bench.cublasVersion),
        "cublasGetVersion");
  check(cublasLtCreate(&bench.lt), "cublasLtCreate");
  printf("device: %s, CUDA driver %d, cuBLAS %d; %d timed runs after %d "
         "warm-ups\n",
         bench.device, bench.driver, bench.cublasVersion, bench.runs,
         bench.warmup);

  for (const Kernel *kernel : kernels) {
    if (!kernel->groupedFn && !kernel->moeFn) {
      runPlain(bench, *kernel, opts.m);
      continue;
    }
    std::vector<int64_t> tokens = opts.tokens;
    if (tokens.empty())
      tokens = {1024, 4096, 16384, 32768};
    for (int64_t t : tokens) {
      if (kernel->moeFn)
        runMoe(bench, *kernel, t, opts.topk);
      else
        runGrouped(bench, *kernel, t, opts.topk);
    }
  }
  cublasLtDestroy(bench.lt);
  cublasDestroy(bench.handle);
  if (!opts.json.empty()) {
    FILE *f = fopen(opts.json.c_str(), "w");
    if (!f) {
      fprintf(stderr, "gemm-bench: cannot write %s\n", opts.json.c_str());
      return 1;
    }
    fprintf(f, "[\n  %s\n]\n", bench.records.c_str());
    fclose(f);
  }
  return bench.failures ? 1 : 0;
}
