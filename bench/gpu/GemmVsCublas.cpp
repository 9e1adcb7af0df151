//===- GemmVsCublas.cpp - axe's sm_90a GEMMs against cuBLAS on one GPU ----===//
//
// C (M x N, f32) = A (M x K, f16) x B^T with B stored N x K (K-major), at
// M = N = K = 4096: the generated host functions of gemm_sm90_4096*.mlir
// (compiled by prepare.py, cubins inside; kernels.inc lists them) against
// cublasGemmEx on the same buffers, in the same process.
//
// Correctness: A and B hold small integers, so every sum is exact in f32
// whatever the order; each kernel's C must equal cuBLAS's bit for bit, and
// cuBLAS's C is itself checked on 4096 sampled elements against a host
// product in double.
//
// Timing: each kernel launch is timed with CUDA events by the runtime
// (axeCudaTimeLaunches), which leaves out the host work of the generated
// function (stream creation, TMA descriptor encoding); cuBLAS is timed with
// events around the same number of calls. Both after warm-up runs; the
// figure is the mean of the timed runs, reported with the fastest.
//
//===----------------------------------------------------------------------===//

#include "CudaRuntime.h"

#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <chrono>
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
#define AXE_GEMM(name)                                                         \
  extern "C" void name(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, int64_t);
#include "kernels.inc"
#undef AXE_GEMM
using GemmFn = void (*)(AXE_MEMREF2, AXE_MEMREF2, AXE_MEMREF2, int64_t);

namespace {

constexpr int64_t kM = 4096, kN = 4096, kK = 4096;

void check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  fprintf(stderr, "GemmVsCublas: %s failed: %s\n", what, name ? name : "?");
  exit(1);
}

void check(cublasStatus_t s, const char *what) {
  if (s == CUBLAS_STATUS_SUCCESS)
    return;
  fprintf(stderr, "GemmVsCublas: %s failed: cuBLAS status %d\n", what, int(s));
  exit(1);
}

/// IEEE half of a small integer (exact for |v| <= 2048).
uint16_t halfOf(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned a = unsigned(std::abs(v));
  int e = 31 - __builtin_clz(a);
  unsigned mantissa = (a << (10 - e)) & 0x3FF;
  return uint16_t(sign | ((e + 15) << 10) | mantissa);
}

int aValue(int64_t i, int64_t k) { return int((i * 7 + k * 3) % 5) - 2; }
int bValue(int64_t n, int64_t k) { return int((n * 5 + k * 11 + 1) % 5) - 2; }

struct Device2D {
  CUdeviceptr ptr = 0;
  int64_t rows, cols;
};

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
      fprintf(stderr, "GemmVsCublas: expected one timed launch, got %lld\n",
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
  // Row-major C = A B^T is column-major C^T = B A^T: B (column-major K x N,
  // ld K) transposed times A (column-major K x M, ld K).
  auto call = [&] {
    check(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, int(kN), int(kM), int(kK),
                       &alpha, reinterpret_cast<void *>(b.ptr), CUDA_R_16F,
                       int(kK), reinterpret_cast<void *>(a.ptr), CUDA_R_16F,
                       int(kK), &beta, reinterpret_cast<void *>(c.ptr),
                       CUDA_R_32F, int(kN), CUBLAS_COMPUTE_32F,
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

std::vector<float> download(const Device2D &c) {
  std::vector<float> host(size_t(c.rows * c.cols));
  check(cuMemcpyDtoH(host.data(), c.ptr, host.size() * sizeof(float)),
        "cuMemcpyDtoH");
  return host;
}

double tflops(double ms) { return 2.0 * kM * kN * kK / (ms * 1e-3) / 1e12; }

} // namespace

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 20;
  const int warmup = 3;
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  char name[256];
  check(cuDeviceGetName(name, sizeof(name), dev), "cuDeviceGetName");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

  Device2D a{0, kM, kK}, b{0, kN, kK}, c{0, kM, kN}, ref{0, kM, kN};
  std::vector<uint16_t> ha(size_t(kM * kK)), hb(size_t(kN * kK));
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t k = 0; k < kK; ++k)
      ha[size_t(i * kK + k)] = halfOf(aValue(i, k));
  for (int64_t n = 0; n < kN; ++n)
    for (int64_t k = 0; k < kK; ++k)
      hb[size_t(n * kK + k)] = halfOf(bValue(n, k));
  for (Device2D *d : {&a, &b})
    check(cuMemAlloc(&d->ptr, size_t(d->rows * d->cols) * 2), "cuMemAlloc");
  for (Device2D *d : {&c, &ref})
    check(cuMemAlloc(&d->ptr, size_t(d->rows * d->cols) * 4), "cuMemAlloc");
  check(cuMemcpyHtoD(a.ptr, ha.data(), ha.size() * 2), "cuMemcpyHtoD");
  check(cuMemcpyHtoD(b.ptr, hb.data(), hb.size() * 2), "cuMemcpyHtoD");

  cublasHandle_t handle;
  check(cublasCreate(&handle), "cublasCreate");
  Timing cublas = timeCublas(handle, a, b, ref, warmup, runs);
  std::vector<float> expected = download(ref);
  // cuBLAS itself, on a sample, against a host product in double.
  int64_t sampleBad = 0;
  for (int s = 0; s < 4096; ++s) {
    int64_t i = (int64_t(s) * 2654435761u) % kM, j = (int64_t(s) * 40503) % kN;
    double sum = 0;
    for (int64_t k = 0; k < kK; ++k)
      sum += double(aValue(i, k)) * double(bValue(j, k));
    if (double(expected[size_t(i * kN + j)]) != sum)
      ++sampleBad;
  }
  printf("device: %s\n", name);
  printf("shape: M=%lld N=%lld K=%lld, f16 inputs, f32 accumulate and output; "
         "%d timed runs after %d warm-ups\n",
         (long long)kM, (long long)kN, (long long)kK, runs, warmup);
  printf("cublas: mean %.4f ms (%.1f TFLOP/s), best %.4f ms (%.1f TFLOP/s); "
         "sampled mismatches vs host: %lld\n",
         cublas.meanMs, tflops(cublas.meanMs), cublas.bestMs,
         tflops(cublas.bestMs), (long long)sampleBad);

  struct Entry {
    const char *name;
    GemmFn fn;
  } entries[] = {
#define AXE_GEMM(name) {#name, name},
#include "kernels.inc"
#undef AXE_GEMM
  };
  int failures = sampleBad ? 1 : 0;
  for (const Entry &e : entries) {
    check(cuMemsetD32(c.ptr, 0x7fc00000u, size_t(kM * kN)), "cuMemsetD32");
    Timing t = timeKernel(e.fn, a, b, c, warmup, runs);
    std::vector<float> got = download(c);
    int64_t bad = 0, firstBad = -1;
    for (size_t x = 0; x < got.size(); ++x)
      if (std::memcmp(&got[x], &expected[x], sizeof(float)) != 0) {
        if (firstBad < 0)
          firstBad = int64_t(x);
        ++bad;
      }
    printf("%s: mean %.4f ms (%.1f TFLOP/s, %.1f%% of cuBLAS), best %.4f ms "
           "(%.1f TFLOP/s); mismatches vs cuBLAS: %lld",
           e.name, t.meanMs, tflops(t.meanMs), 100.0 * cublas.meanMs / t.meanMs,
           t.bestMs, tflops(t.bestMs), (long long)bad);
    if (firstBad >= 0)
      printf(" (first at C[%lld][%lld]: %g, expected %g)",
             (long long)(firstBad / kN), (long long)(firstBad % kN),
             double(got[size_t(firstBad)]), double(expected[size_t(firstBad)]));
    printf("\n");
    failures += bad != 0;
  }
  cublasDestroy(handle);
  return failures ? 1 : 0;
}
