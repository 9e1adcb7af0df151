//===- HostPeak.h - The FMA peak of the host, measured ---------*- C++ -*-===//
//
// The benchmarks report GEMM rates against the machine they ran on: its
// clock and its vector unit's FMA throughput, both measured here, so that a
// figure says how close to the hardware it came and not only how it
// compares with a library.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_BENCH_HOSTPEAK_H
#define AXE_BENCH_HOSTPEAK_H

#include <cstdint>
#include <string>

namespace axe::bench {

struct HostPeak {
  /// Core clock while busy, from a chain of dependent integer multiplies.
  double clockGHz = 0;
  /// Single-precision GFLOP/s of one core from independent FMAs, for
  /// 256-bit (AVX2 + FMA) and 512-bit (AVX-512F) vectors; 0 where the host
  /// lacks the unit.
  double gflops256 = 0, gflops512 = 0;
  /// The same for AVX512-BF16's dot product of bf16 pairs into f32 lanes
  /// (vdpbf16ps, four flops per lane); 0 where the host lacks it. The
  /// CPU gemm widens bf16 to f32 instead, so this is what a native
  /// schedule could reach, shown beside it.
  double gflopsBF16Dot = 0;
  /// AVX512-FP16's f16 FMA (vfmadd231ph, 32 lanes, f16 accumulators); 0
  /// where the host lacks it. An f16 schedule would accumulate in f16 (or
  /// widen per step), so this bounds what native f16 arithmetic could give.
  double gflopsF16Fma = 0;

  /// FMAs per cycle and lane: the number of FMA pipes at that width.
  double fmaPipes(int64_t vectorBits) const;
  /// The peak of one core for `vectorBits` (0: the widest the host has).
  double gflops(int64_t vectorBits) const;
  std::string describe() const;
};

/// Measured once per process (about 0.5 s).
const HostPeak &hostPeak();

/// Does `flops` single-precision flops as independent FMAs at `vectorBits`
/// (0: the widest the host has), in registers: the work of a GEMM of that
/// many flops at the FMA peak. Timed in turn with the GEMM, it is a
/// baseline that lasts as long and sees the same neighbours. False where the
/// host lacks the unit.
bool runPeakFlops(int64_t vectorBits, double flops);

/// The FMA rate of one core, sampled between the timed runs of a benchmark.
/// A rate and the peak it is compared with then see the same clock and the
/// same neighbours: on a shared VM the clock moved between 2.9 and 3.55 GHz
/// within minutes, more than the differences a ratio to the peak shows, so
/// a peak measured once at start-up made the ratio of a later case wrong by
/// up to 20 %.
class PeakProbe {
public:
  /// Runs independent FMAs at `vectorBits` (0: the widest the host has) for
  /// about `seconds` (at least one short burst).
  void sample(int64_t vectorBits, double seconds);
  /// GFLOP/s over every sample; 0 before one or where the unit is missing.
  double gflops() const { return seconds_ > 0 ? flops_ / seconds_ / 1e9 : 0; }

private:
  double flops_ = 0, seconds_ = 0;
};

} // namespace axe::bench

#endif // AXE_BENCH_HOSTPEAK_H
