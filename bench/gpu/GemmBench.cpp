//===- GemmBench.cpp - axe's sm_90a GEMMs against cuBLAS, by shape and type ===//
//
// C (M x N) = A (M x K) x B^T with B stored N x K (K-major), for every
// generated kernel prepare.py compiled (kernels.inc lists each with its N,
// K and element types; M is the caller's), against cublasGemmEx on the same
// buffers with the same types, in the same process. A kernel's N and K are
// part of its code (its layouts), so a shape runs only where a kernel for
// it was built: `prepare.py --gemm-shapes FILE` builds them.
//
// Correctness: A and B hold small integers, so every sum is exact in f32
// whatever the order, and an f16 or bf16 C is that sum rounded once (to
// nearest even) by both: each kernel's C must equal cuBLAS's bit for bit.
// cuBLAS's C is itself checked on 4096 sampled elements against a host
// product in double, rounded to C's type.
//
// Timing: each kernel launch is timed with CUDA events by the runtime
// (axeCudaTimeLaunches), which leaves out the host work of the generated
// function (stream creation, TMA descriptor encoding); cuBLAS is timed with
// events around the same number of calls. Both after warm-up runs; the
// figure is the mean of the timed runs, reported with the fastest.
//
// Usage: gemm-bench [--m M] [--n N] [--k K] [--in f16|bf16]
//                   [--out f32|f16|bf16] [--kernel SUBSTRING] [--runs R]
//                   [--json FILE]
// The filters pick kernels (M is 8192 unless given, the LLM shapes' M);
// --json writes one record per kernel to FILE (a JSON array), which
// gemm_table.py prints as docs/Benchmarks-NVIDIA.md's table.
//
//===----------------------------------------------------------------------===//

#include "CudaRuntime.h"

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
#define AXE_GEMM(name, n, k, in, out)                                          \
  extern "C" void name(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, int64_t);
#include "kernels.inc"
#undef AXE_GEMM
using GemmFn = void (*)(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, int64_t);

namespace {

enum class DType { F16, BF16, F32 };

const char *nameOf(DType t) {
  return t == DType::F16 ? "f16" : t == DType::BF16 ? "bf16" : "f32";
}
size_t bytesOf(DType t) { return t == DType::F32 ? 4 : 2; }
cudaDataType cudaTypeOf(DType t) {
  return t == DType::F16    ? CUDA_R_16F
         : t == DType::BF16 ? CUDA_R_16BF
                            : CUDA_R_32F;
}

struct Kernel {
  const char *name;
  GemmFn fn;
  int64_t n, k;
  DType in, out;
};

constexpr DType F16 = DType::F16, BF16 = DType::BF16, F32 = DType::F32;
const Kernel kKernels[] = {
#define AXE_GEMM(name, n, k, in, out) {#name, name, n, k, in, out},
#include "kernels.inc"
#undef AXE_GEMM
};

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  fprintf(stderr, "gemm-bench: %s failed: %s\n", what, name ? name : "?");
  exit(1);
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
int bValue(int64_t n, int64_t k) { return int((n * 5 + k * 11 + 1) % 5) - 2; }

struct Device2D {
  CUdeviceptr ptr = 0;
  int64_t rows, cols;
  DType type;
  size_t bytes() const { return size_t(rows * cols) * bytesOf(type); }
};

Device2D upload(int64_t rows, int64_t cols, DType t, int (*value)(int64_t,
                                                                 int64_t)) {
  Device2D d{0, rows, cols, t};
  std::vector<uint16_t> host(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      host[size_t(r * cols + c)] = uint16_t(bitsOf(t, float(value(r, c))));
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

Timing timeKernel(GemmFn fn, const Device2D &a, const Device2D &b,
                  const Device2D &c, int warmup, int runs) {
  auto call = [&] {
    void *pa = reinterpret_cast<void *>(a.ptr);
    void *pb = reinterpret_cast<void *>(b.ptr);
    void *pc = reinterpret_cast<void *>(c.ptr);
    fn(pa, pa, 0, a.rows, a.cols, a.cols, 1, pb, pb, 0, b.rows, b.cols, b.cols,
       1, pc, pc, 0, c.rows, c.cols, c.cols, 1, a.rows / 128);
  };
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

Timing timeCublas(cublasHandle_t h, const Device2D &a, const Device2D &b,
                  const Device2D &c, int warmup, int runs) {
  const float alpha = 1, beta = 0;
  int m = int(a.rows), n = int(b.rows), k = int(a.cols);
  // Row-major C = A B^T is column-major C^T = B A^T: B (column-major K x N,
  // ld K) transposed times A (column-major K x M, ld K).
  auto call = [&] {
    check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha,
                       reinterpret_cast<void *>(b.ptr), cudaTypeOf(b.type), k,
                       reinterpret_cast<void *>(a.ptr), cudaTypeOf(a.type), k,
                       &beta, reinterpret_cast<void *>(c.ptr),
                       cudaTypeOf(c.type), n, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  };
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

struct Options {
  int64_t m = 8192, n = 0, k = 0;
  std::string in, out, kernel, json;
  int runs = 20;
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
                         int64_t k, DType out) {
  int64_t bad = 0;
  for (int s = 0; s < 4096; ++s) {
    int64_t i = (int64_t(s) * 2654435761u) % m, j = (int64_t(s) * 40503) % n;
    double sum = 0;
    for (int64_t x = 0; x < k; ++x)
      sum += double(aValue(i, x)) * double(bValue(j, x));
    if (elementBits(c, out, size_t(i * n + j)) != bitsOf(out, float(sum)))
      ++bad;
  }
  return bad;
}

} // namespace

int main(int argc, char **argv) {
  Options opts = parse(argc, argv);
  const int warmup = 3;
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
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  char device[256];
  check(cuDeviceGetName(device, sizeof(device), dev), "cuDeviceGetName");
  int driver = 0;
  check(cuDriverGetVersion(&driver), "cuDriverGetVersion");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "gemm-bench: cuBLAS is missing or unusable here; no "
                    "baseline, nothing measured\n");
    return 1;
  }
  int cublasVersion = 0;
  check(cublasGetVersion(handle, &cublasVersion), "cublasGetVersion");
  printf("device: %s, CUDA driver %d, cuBLAS %d; %d timed runs after %d "
         "warm-ups\n",
         device, driver, cublasVersion, opts.runs, warmup);

  std::string records;
  int failures = 0;
  for (const Kernel *kernel : kernels) {
    int64_t m = opts.m, n = kernel->n, k = kernel->k;
    Device2D a = upload(m, k, kernel->in, aValue);
    Device2D b = upload(n, k, kernel->in, bValue);
    Device2D c = allocate(m, n, kernel->out), ref = allocate(m, n, kernel->out);
    Timing base = timeCublas(handle, a, b, ref, warmup, opts.runs);
    std::vector<uint8_t> expected = download(ref);
    int64_t sampleBad = sampleMismatches(expected, m, n, k, kernel->out);
    check(cuMemsetD8(c.ptr, 0xFF, c.bytes()), "cuMemsetD8");
    Timing t = timeKernel(kernel->fn, a, b, c, warmup, opts.runs);
    std::vector<uint8_t> got = download(c);
    int64_t bad = 0;
    for (size_t x = 0; x < size_t(m * n); ++x)
      bad += elementBits(got, kernel->out, x) !=
             elementBits(expected, kernel->out, x);
    double ratio = base.meanMs / t.meanMs;
    printf("%s: M=%lld N=%lld K=%lld %s -> %s: mean %.4f ms (%.1f TFLOP/s), "
           "cuBLAS %.4f ms (%.1f TFLOP/s): %.1f%% of cuBLAS; mismatches vs "
           "cuBLAS %lld, cuBLAS vs host (sampled) %lld\n",
           kernel->name, (long long)m, (long long)n, (long long)k,
           nameOf(kernel->in), nameOf(kernel->out), t.meanMs,
           tflops(m, n, k, t.meanMs), base.meanMs, tflops(m, n, k, base.meanMs),
           100 * ratio, (long long)bad, (long long)sampleBad);
    failures += bad != 0 || sampleBad != 0;
    char record[1024];
    snprintf(record, sizeof(record),
             "{\"problem\": \"gemm\", \"kernel\": \"%s\", \"m\": %lld, "
             "\"n\": %lld, \"k\": %lld, \"in\": \"%s\", \"out\": \"%s\", "
             "\"ms_mean\": %.6f, \"ms_best\": %.6f, \"baseline\": "
             "\"cublasGemmEx\", \"baseline_ms_mean\": %.6f, "
             "\"baseline_ms_best\": %.6f, \"tflops\": %.2f, "
             "\"baseline_tflops\": %.2f, \"of_baseline\": %.4f, "
             "\"mismatches\": %lld, \"baseline_sample_mismatches\": %lld, "
             "\"device\": \"%s\", \"cuda_driver\": %d, \"cublas\": %d}",
             kernel->name, (long long)m, (long long)n, (long long)k,
             nameOf(kernel->in), nameOf(kernel->out), t.meanMs, t.bestMs,
             base.meanMs, base.bestMs, tflops(m, n, k, t.meanMs),
             tflops(m, n, k, base.meanMs), ratio, (long long)bad,
             (long long)sampleBad, device, driver, cublasVersion);
    records += (records.empty() ? "" : ",\n  ") + std::string(record);
    for (Device2D *d : {&a, &b, &c, &ref})
      cuMemFree(d->ptr);
  }
  cublasDestroy(handle);
  if (!opts.json.empty()) {
    FILE *f = fopen(opts.json.c_str(), "w");
    if (!f) {
      fprintf(stderr, "gemm-bench: cannot write %s\n", opts.json.c_str());
      return 1;
    }
    fprintf(f, "[\n  %s\n]\n", records.c_str());
    fclose(f);
  }
  return failures ? 1 : 0;
}
