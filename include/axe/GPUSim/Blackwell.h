//===- Blackwell.h - sm_100 tcgen05 descriptors and tensor memory -*- C++
//-*-===//
//
// What the interpreter knows of sm_100's fifth-generation tensor cores
// (tcgen05), as plain functions that unit tests check value by value: the
// tensor-memory (TMEM) address and its column allocator, the instruction
// descriptor of tcgen05.mma kind::f16, the sm_100 shared-memory matrix
// descriptor (which differs from sm_90's in its fixed bits and swizzle
// field), the data path of D in TMEM, and the lane restriction of
// tcgen05.ld/st. Written from the PTX ISA manual ("Tensor Memory",
// "Instruction descriptor", "Shared memory descriptor", "Data path layout
// organization", "tcgen05.ld"), independently of lib/Layout.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_BLACKWELL_H
#define AXE_GPUSIM_BLACKWELL_H

#include "axe/GPUSim/Hopper.h"

#include <cstdint>
#include <string>
#include <vector>

namespace axe::gpusim {

/// A CTA's tensor memory: 128 lanes x 512 columns of 32-bit cells.
constexpr unsigned kTmemLanes = 128;
constexpr unsigned kTmemColumns = 512;

/// A TMEM address (what tcgen05.alloc writes): lane in bits [16,32),
/// column in bits [0,16).
struct TmemAddress {
  unsigned lane = 0, column = 0;
};
inline TmemAddress decodeTmemAddress(uint32_t a) {
  return {a >> 16, a & 0xffff};
}
inline uint32_t encodeTmemAddress(unsigned lane, unsigned column) {
  return (uint32_t(lane) << 16) | (column & 0xffff);
}

/// The columns a CTA has allocated (tcgen05.alloc/dealloc). An allocation
/// of n columns (a power of two, 32..512) takes the first free n-aligned
/// range.
class TmemAllocator {
public:
  struct Range {
    unsigned column = 0, columns = 0;
  };
  /// "" when `n` is a valid column count, else what is wrong.
  static std::string checkColumns(int64_t n);
  /// The first column of a new allocation of `n` columns, or -1 when no
  /// n-aligned range of n free columns is left.
  int allocate(unsigned n);
  /// Frees the allocation at `column` of `n` columns; false if there is no
  /// such allocation.
  bool release(unsigned column, unsigned n);
  /// Whether columns [column, column + n) all lie in allocations.
  bool allocated(unsigned column, unsigned n) const;
  unsigned allocatedColumns() const;
  const std::vector<Range> &ranges() const { return live; }
  void reset() { live.clear(); }

private:
  std::vector<Range> live;
};

/// The instruction descriptor of tcgen05.mma kind::f16 (32 bits):
/// [0,2) sparsity selector, 2 sparsity, 3 saturate, [4,6) D type (0 F16,
/// 1 F32), [7,10) A type (0 F16, 1 BF16), [10,13) B type, 13/14 negate A/B,
/// 15/16 transpose A/B (0: K-major), [17,23) N >> 3, [24,29) M >> 4,
/// [30,32) maximum shift (.ws only); bits 6, 23 and 29 are reserved.
struct Tcgen05InstrDescriptor {
  unsigned dType = 0, aType = 0, bType = 0;
  bool negateA = false, negateB = false;
  bool transposeA = false, transposeB = false;
  int m = 0, n = 0;
  /// Set bits that must be 0 here: sparsity, saturate, reserved, shift.
  uint32_t other = 0;
};
Tcgen05InstrDescriptor decodeTcgen05InstrDescriptor(uint32_t d);
/// "" when the interpreter models the descriptor for cta_group::1
/// (F32 D, F16/BF16 A and B of one type, K-major, M 64 or 128, N a
/// multiple of 8 (M = 64) or 16 (M = 128) from 8/16 to 256, no
/// sparsity/saturation/shift), else what is wrong or not modelled.
std::string checkTcgen05InstrDescriptor(const Tcgen05InstrDescriptor &d);

/// The sm_100 shared-memory matrix descriptor (64 bits): start address
/// [0,14), leading byte offset [16,30), stride byte offset [32,46) (each
/// >> 4), fixed 0b001 in [46,49), base offset [49,52), LBO mode 52, fixed
/// 0 in [53,61), swizzle [61,64) (0 none, 1 128B with 32B atomicity, 2
/// 128B, 4 64B, 6 32B).
struct Tcgen05SmemDescriptor {
  int64_t start = 0, leading = 0, stride = 0;
  unsigned fixed = 0, baseOffset = 0, lboMode = 0, swizzleField = 0;
  unsigned zeroBits = 0; // bits [53,61)
};
Tcgen05SmemDescriptor decodeTcgen05SmemDescriptor(uint64_t d);
/// The swizzle span in bytes of a swizzle field: 0 -> 0, 2 -> 128,
/// 4 -> 64, 6 -> 32; -1 for 1 (128B with 32-byte atomicity, not
/// modelled), -2 for the undefined 3, 5, 7.
int tcgen05SwizzleSpan(unsigned field);
/// "" and `out` (for wgmmaKMajorAddress) when the descriptor is valid and
/// modelled, else what is wrong.
std::string checkTcgen05SmemDescriptor(const Tcgen05SmemDescriptor &d,
                                       MatrixDescriptor &out);

/// The TMEM lane, relative to D's, of row `row` of an M-row accumulator of
/// tcgen05.mma cta_group::1: M = 128 (data path layout D): lane `row`;
/// M = 64 (layout F): rows 16w..16w+15 in lanes 32w..32w+15.
unsigned tcgen05DLane(int m, int row);

/// The first TMEM lane warp `warp` of the CTA may access with
/// tcgen05.ld/st: 32 * (warp mod 4).
inline unsigned tmemLaneBase(unsigned warp) { return 32 * (warp % 4); }

/// "" when warp `warp` may run tcgen05.ld/st .32x32b of `columns` columns
/// at `taddr` (its lane field is the warp's base lane, the columns lie in
/// TMEM), else what is wrong.
std::string checkTcgen05LdSt32x32b(unsigned warp, uint32_t taddr,
                                   unsigned columns);

/// A tcgen05.cp shape of cta_group::1 without multicast: `rows` TMEM lanes
/// of `bytes` bytes (bytes / 4 columns) each. .128x256b: 128 x 32,
/// .128x128b: 128 x 16, .4x256b: 4 x 32.
struct Tcgen05CpShape {
  unsigned rows = 0, bytes = 0;
  unsigned words() const { return bytes / 4; }
};

/// The shared byte address of 32-bit word `word` of row `row` of a
/// tcgen05.cp source: the K-major canonical layout of the descriptor
/// (rows along M/N, the row's bytes along K; 8x16-byte core matrices LBO
/// apart along K and SBO apart along the rows when not swizzled, swizzled
/// rows of the span in 8-row groups SBO apart otherwise), as for a
/// tcgen05.mma operand.
int64_t tcgen05CpSourceAddress(const MatrixDescriptor &d, unsigned row,
                               unsigned word);

/// The TMEM cell that word `word` of source row `row` goes to: lane
/// lane(taddr) + row, column column(taddr) + word.
inline TmemAddress tcgen05CpDestination(uint32_t taddr, unsigned row,
                                        unsigned word) {
  TmemAddress a = decodeTmemAddress(taddr);
  return {a.lane + row, a.column + word};
}

/// "" when a tcgen05.cp of `shape` may write at `taddr`: a 128-row shape
/// starts at lane 0, a 4-row one has its rows in the 128 lanes (no
/// alignment is checked: the manual states none), and the columns lie in
/// the 512; else what is wrong.
std::string checkTcgen05CpDestination(uint32_t taddr, Tcgen05CpShape shape);

/// tcgen05.shift (cta_group::1): the 32 lanes from lane(taddr) (a multiple
/// of 32) and the 8 columns (32 bytes) from column(taddr); rows 0..30 move
/// down by one lane (row i to row i + 1), row 31's old contents are lost
/// and row 0 keeps its own (the manual does not say what row 0 holds).
constexpr unsigned kTcgen05ShiftRows = 32, kTcgen05ShiftColumns = 8;
/// "" when `taddr` is a valid tcgen05.shift address, else what is wrong.
std::string checkTcgen05Shift(uint32_t taddr);

} // namespace axe::gpusim

#endif // AXE_GPUSIM_BLACKWELL_H
