//===- HostPeak.cpp - The FMA peak of the host, measured ------------------===//

#include "HostPeak.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace axe::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Four dependent 64-bit multiplies per iteration: three cycles each on
/// every x86 core since Nehalem and Zen. A chain of `add $1` is not a
/// measure of the clock: Intel's cores since Golden Cove fold immediate
/// adds in the renamer and ran the chain at 3.5 per cycle (an Emerald
/// Rapids VM read 7.4 GHz).
double measureClockGHz() {
#if defined(__x86_64__)
  constexpr long kIters = 30'000'000;
  int64_t x = 3, odd = 0x9e3779b97f4a7c15;
  asm volatile("" : "+r"(odd));
  Clock::time_point start = Clock::now();
  for (long i = 0; i < kIters; ++i)
    asm volatile("imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
                 "imul %1, %0"
                 : "+r"(x)
                 : "r"(odd));
  double s = seconds(start);
  asm volatile("" : : "r"(x));
  return 4.0 * 3.0 * kIters / s / 1e9;
#else
  return 0;
#endif
}

#if defined(__x86_64__)
constexpr long kPeakIters = 20'000'000;

// Times `iters` rounds of `step` (an update of accumulator `a` from `x` and
// `y`) on twelve independent accumulators of type `vec`, and sets `result`
// to GFLOP/s at `flopsPerStep` per update. Twelve chains cover a four-cycle
// latency on two pipes with room to spare; the asm keeps `x` opaque so that
// the compiler cannot fold the chains, and keeps one accumulator live. A
// macro, not a template or a lambda: the intrinsics must expand inside the
// function that carries their target attribute, which GCC passes on to
// neither.
#define AXE_TIME_CHAINS(result, vec, zero, reg, flopsPerStep, iters, step)     \
  do {                                                                         \
    vec acc[12];                                                               \
    for (vec & a : acc)                                                        \
      a = zero;                                                                \
    Clock::time_point start = Clock::now();                                    \
    for (long i = 0; i < (iters); ++i) {                                       \
      for (vec & a : acc)                                                      \
        a = step;                                                              \
      asm volatile("" : "+" reg(x));                                           \
    }                                                                          \
    double s = seconds(start);                                                 \
    asm volatile("" : : reg(acc[0]) : "memory");                               \
    result = (iters)*12.0 * (flopsPerStep) / s / 1e9;                          \
  } while (0)

__attribute__((target("avx2,fma"))) double measure256(long iters = kPeakIters) {
  __m256 x = _mm256_set1_ps(1.0001f), y = _mm256_set1_ps(0.9999f);
  double gflops;
  AXE_TIME_CHAINS(gflops, __m256, _mm256_setzero_ps(), "x", 8 * 2, iters,
                  _mm256_fmadd_ps(x, y, a));
  return gflops;
}

__attribute__((target("avx512f"))) double measure512(long iters = kPeakIters) {
  __m512 x = _mm512_set1_ps(1.0001f), y = _mm512_set1_ps(0.9999f);
  double gflops;
  AXE_TIME_CHAINS(gflops, __m512, _mm512_setzero_ps(), "v", 16 * 2, iters,
                  _mm512_fmadd_ps(x, y, a));
  return gflops;
}

/// vdpbf16ps: per lane, two bf16 products added to an f32 accumulator.
__attribute__((target("avx512f,avx512bf16"))) double measureBF16Dot() {
  __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80);
  __m512bh y = (__m512bh)_mm512_set1_epi16(0x3f80);
  double gflops;
  AXE_TIME_CHAINS(gflops, __m512, _mm512_setzero_ps(), "v", 16 * 4, kPeakIters,
                  _mm512_dpbf16_ps(a, x, y));
  return gflops;
}

/// vfmadd231ph: an f16 multiply-add per lane, 32 lanes, rounded to f16 at
/// every step (AVX512-FP16). x * 0 keeps the chains at zero.
__attribute__((target("avx512f,avx512fp16"))) double measureF16Fma() {
  __m512h x = _mm512_set1_ph((_Float16)1.0f),
          y = _mm512_set1_ph((_Float16)0.0f);
  double gflops;
  AXE_TIME_CHAINS(gflops, __m512h, _mm512_setzero_ph(), "v", 32 * 2, kPeakIters,
                  _mm512_fmadd_ph(x, y, a));
  return gflops;
}
#endif

/// The best of three runs: the peak is a constant of the hardware, and a
/// neighbour on a shared host only ever takes cycles away from a run.
double bestOf3(double (*run)(long)) {
  return std::max({run(kPeakIters), run(kPeakIters), run(kPeakIters)});
}
double bestOf3(double (*run)()) { return std::max({run(), run(), run()}); }

HostPeak measure() {
  HostPeak p;
  p.clockGHz = bestOf3(measureClockGHz);
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    p.gflops256 = bestOf3(measure256);
  if (__builtin_cpu_supports("avx512f"))
    p.gflops512 = bestOf3(measure512);
  if (__builtin_cpu_supports("avx512bf16"))
    p.gflopsBF16Dot = bestOf3(measureBF16Dot);
  if (__builtin_cpu_supports("avx512fp16"))
    p.gflopsF16Fma = bestOf3(measureF16Fma);
#endif
  return p;
}

} // namespace

#if defined(__x86_64__)
/// Whether `vectorBits` (0: the widest the host has) means 512-bit FMAs, and
/// whether the host has them (`usable`).
static bool wideUnit(int64_t vectorBits, bool &usable) {
  bool wide =
      vectorBits == 0 ? __builtin_cpu_supports("avx512f") : vectorBits >= 512;
  usable =
      wide ? __builtin_cpu_supports("avx512f")
           : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return wide;
}
#endif

bool runPeakFlops(int64_t vectorBits, double flops) {
#if defined(__x86_64__)
  bool usable, wide = wideUnit(vectorBits, usable);
  if (!usable)
    return false;
  double perIter = 12.0 * (wide ? 16 : 8) * 2;
  long iters = std::max<long>(1, long(flops / perIter + 0.5));
  (void)(wide ? measure512(iters) : measure256(iters));
  return true;
#else
  (void)vectorBits;
  (void)flops;
  return false;
#endif
}

void PeakProbe::sample(int64_t vectorBits, double forSeconds) {
#if defined(__x86_64__)
  bool usable, wide = wideUnit(vectorBits, usable);
  if (!usable)
    return;
  // About 0.2 ms per burst at 3.5 GHz.
  constexpr long kBurst = 100'000;
  double lanes = wide ? 16 : 8, spent = 0;
  do {
    double g = wide ? measure512(kBurst) : measure256(kBurst);
    double flops = kBurst * 12.0 * lanes * 2;
    flops_ += flops;
    seconds_ += flops / (g * 1e9);
    spent += flops / (g * 1e9);
  } while (spent < forSeconds);
#else
  (void)vectorBits;
  (void)forSeconds;
#endif
}

double HostPeak::fmaPipes(int64_t vectorBits) const {
  double lanes = vectorBits / 32.0;
  double g = vectorBits == 512 ? gflops512 : gflops256;
  return clockGHz > 0 ? g / (clockGHz * lanes * 2) : 0;
}

double HostPeak::gflops(int64_t vectorBits) const {
  if (vectorBits == 0)
    return gflops512 > 0 ? gflops512 : gflops256;
  return vectorBits >= 512 ? gflops512 : gflops256;
}

std::string HostPeak::describe() const {
  auto rate = [](double g) {
    return g > 0 ? std::to_string(int(g + 0.5)) + " GFLOP/s"
                 : std::string("none on this host");
  };
  char text[320];
  std::snprintf(text, sizeof text,
                "clock %.2f GHz; FMA peak per core: 256-bit %.1f GFLOP/s "
                "(%.2f pipes), 512-bit %.1f GFLOP/s (%.2f pipes)",
                clockGHz, gflops256, fmaPipes(256), gflops512, fmaPipes(512));
  return std::string(text) +
         "; native bf16 dot products (vdpbf16ps): " + rate(gflopsBF16Dot) +
         "; native f16 FMA (vfmadd231ph): " + rate(gflopsF16Fma);
}

const HostPeak &hostPeak() {
  static const HostPeak peak = measure();
  return peak;
}

} // namespace axe::bench
