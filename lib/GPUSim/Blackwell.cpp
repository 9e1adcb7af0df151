//===- Blackwell.cpp - tcgen05 descriptors, TMEM allocation ---------------===//
//
// From the PTX ISA manual: "Tensor Memory" (addresses, allocation in
// powers of two of at least 32 columns), the tcgen05.mma "Instruction
// descriptor" table for kind::f16, the tcgen05 "Shared memory descriptor"
// table, "Data path layout organization" (layouts D and F of cta_group::1)
// and the lane restriction of tcgen05.ld/st ("Access restrictions").
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Blackwell.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace axe::gpusim;

//===----------------------------------------------------------------------===//
// TMEM allocation
//===----------------------------------------------------------------------===//

std::string TmemAllocator::checkColumns(int64_t n) {
  if (n < 32 || n > int64_t(kTmemColumns) || (n & (n - 1)))
    return llvm::formatv("{0} columns (a power of two from 32 to 512 is "
                         "possible)",
                         n)
        .str();
  return "";
}

int TmemAllocator::allocate(unsigned n) {
  for (unsigned c = 0; c + n <= kTmemColumns; c += n) {
    bool free = true;
    for (const Range &r : live)
      if (r.column < c + n && c < r.column + r.columns)
        free = false;
    if (free) {
      live.push_back({c, n});
      return int(c);
    }
  }
  return -1;
}

bool TmemAllocator::release(unsigned column, unsigned n) {
  for (size_t k = 0; k < live.size(); ++k)
    if (live[k].column == column && live[k].columns == n) {
      live.erase(live.begin() + k);
      return true;
    }
  return false;
}

bool TmemAllocator::allocated(unsigned column, unsigned n) const {
  for (unsigned c = column; c < column + n; ++c)
    if (std::none_of(live.begin(), live.end(), [&](const Range &r) {
          return c >= r.column && c < r.column + r.columns;
        }))
      return false;
  return true;
}

unsigned TmemAllocator::allocatedColumns() const {
  unsigned n = 0;
  for (const Range &r : live)
    n += r.columns;
  return n;
}

//===----------------------------------------------------------------------===//
// Instruction descriptor
//===----------------------------------------------------------------------===//

Tcgen05InstrDescriptor axe::gpusim::decodeTcgen05InstrDescriptor(uint32_t d) {
  Tcgen05InstrDescriptor r;
  r.dType = (d >> 4) & 3;
  r.aType = (d >> 7) & 7;
  r.bType = (d >> 10) & 7;
  r.negateA = (d >> 13) & 1;
  r.negateB = (d >> 14) & 1;
  r.transposeA = (d >> 15) & 1;
  r.transposeB = (d >> 16) & 1;
  r.n = int((d >> 17) & 0x3f) << 3;
  r.m = int((d >> 24) & 0x1f) << 4;
  // Sparsity [0,3), saturate 3, reserved 6, 23, 29, shift [30,32).
  r.other = d & 0xe080004fu;
  return r;
}

std::string
axe::gpusim::checkTcgen05InstrDescriptor(const Tcgen05InstrDescriptor &d) {
  if (d.other)
    return llvm::formatv("bits {0:x8} are set (sparsity, saturation, "
                         "reserved bits or a shift; not modelled)",
                         d.other)
        .str();
  if (d.dType != 1)
    return llvm::formatv("D type {0} (only F32 = 1 is modelled)", d.dType)
        .str();
  if (d.aType > 1 || d.bType > 1)
    return llvm::formatv("A type {0}, B type {1} (kind::f16 has F16 = 0 and "
                         "BF16 = 1)",
                         d.aType, d.bType)
        .str();
  if (d.aType != d.bType)
    return llvm::formatv("A type {0} and B type {1} differ", d.aType, d.bType)
        .str();
  if (d.transposeA || d.transposeB)
    return "transposed (MN-major) A or B is not modelled; K-major is";
  if (d.m == 64) {
    if (d.n < 8 || d.n > 256 || d.n % 8)
      return llvm::formatv("M = 64 with N = {0} (a multiple of 8 from 8 to "
                           "256 is possible)",
                           d.n)
          .str();
  } else if (d.m == 128) {
    if (d.n < 16 || d.n > 256 || d.n % 16)
      return llvm::formatv("M = 128 with N = {0} (a multiple of 16 from 16 "
                           "to 256 is possible)",
                           d.n)
          .str();
  } else {
    return llvm::formatv("M = {0} (64 or 128 with cta_group::1)", d.m).str();
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Shared-memory descriptor
//===----------------------------------------------------------------------===//

Tcgen05SmemDescriptor axe::gpusim::decodeTcgen05SmemDescriptor(uint64_t d) {
  Tcgen05SmemDescriptor r;
  r.start = int64_t(d & 0x3fff) << 4;
  r.leading = int64_t((d >> 16) & 0x3fff) << 4;
  r.stride = int64_t((d >> 32) & 0x3fff) << 4;
  r.fixed = unsigned((d >> 46) & 7);
  r.baseOffset = unsigned((d >> 49) & 7);
  r.lboMode = unsigned((d >> 52) & 1);
  r.zeroBits = unsigned((d >> 53) & 0xff);
  r.swizzleField = unsigned((d >> 61) & 7);
  return r;
}

int axe::gpusim::tcgen05SwizzleSpan(unsigned field) {
  switch (field) {
  case 0:
    return 0;
  case 1:
    return -1;
  case 2:
    return 128;
  case 4:
    return 64;
  case 6:
    return 32;
  default:
    return -2;
  }
}

std::string
axe::gpusim::checkTcgen05SmemDescriptor(const Tcgen05SmemDescriptor &d,
                                        MatrixDescriptor &out) {
  if (d.fixed != 1)
    return llvm::formatv("bits [46,49) are {0}, not the fixed 0b001 of an "
                         "sm_100 descriptor",
                         d.fixed)
        .str();
  if (d.zeroBits)
    return llvm::formatv("bits [53,61) are {0:x}, not the fixed 0", d.zeroBits)
        .str();
  int span = tcgen05SwizzleSpan(d.swizzleField);
  if (span == -1)
    return "the 128-byte swizzle with 32-byte atomicity (swizzle field 1) is "
           "not modelled";
  if (span == -2)
    return llvm::formatv("swizzle field {0} is not a swizzle mode",
                         d.swizzleField)
        .str();
  if (d.baseOffset)
    return llvm::formatv("base offset {0} is not modelled (0 is)", d.baseOffset)
        .str();
  if (d.lboMode)
    return "the absolute leading-byte-offset mode (bit 52) is not modelled";
  out = MatrixDescriptor();
  out.start = d.start;
  out.leading = d.leading;
  out.stride = d.stride;
  out.swizzle = unsigned(span);
  return "";
}

//===----------------------------------------------------------------------===//
// Data paths and lane restrictions
//===----------------------------------------------------------------------===//

unsigned axe::gpusim::tcgen05DLane(int m, int row) {
  if (m == 64)
    return unsigned(32 * (row / 16) + row % 16);
  return unsigned(row);
}

std::string axe::gpusim::checkTcgen05LdSt32x32b(unsigned warp, uint32_t taddr,
                                                unsigned columns) {
  TmemAddress a = decodeTmemAddress(taddr);
  unsigned base = tmemLaneBase(warp);
  if (a.lane != base)
    return llvm::formatv("TMEM address {0:x8} has lane {1}, but warp {2} may "
                         "access TMEM lanes {3} to {4} only (warp mod 4 picks "
                         "the lane quarter): its lane field must be {3}",
                         taddr, a.lane, warp, base, base + 31)
        .str();
  if (a.column + columns > kTmemColumns)
    return llvm::formatv("TMEM columns {0} to {1} at address {2:x8} run past "
                         "the 512 columns",
                         a.column, a.column + columns - 1, taddr)
        .str();
  return "";
}

//===----------------------------------------------------------------------===//
// tcgen05.cp and tcgen05.shift
//===----------------------------------------------------------------------===//

int64_t axe::gpusim::tcgen05CpSourceAddress(const MatrixDescriptor &d,
                                            unsigned row, unsigned word) {
  // A row's bytes are the K extent of a K-major operand: 32-bit elements.
  return wgmmaKMajorAddress(d, int(row), int(word), 4);
}

std::string axe::gpusim::checkTcgen05CpDestination(uint32_t taddr,
                                                   Tcgen05CpShape shape) {
  TmemAddress a = decodeTmemAddress(taddr);
  if (shape.rows == kTmemLanes && a.lane != 0)
    return llvm::formatv("TMEM address {0:x8} has lane {1}; a {2}-row copy "
                         "takes all 128 lanes from lane 0",
                         taddr, a.lane, shape.rows)
        .str();
  if (a.lane + shape.rows > kTmemLanes)
    return llvm::formatv("TMEM address {0:x8} has lane {1}; a {2}-row copy "
                         "would run past lane 127",
                         taddr, a.lane, shape.rows)
        .str();
  if (a.column + shape.words() > kTmemColumns)
    return llvm::formatv("TMEM columns {0} to {1} at address {2:x8} run past "
                         "the 512 columns",
                         a.column, a.column + shape.words() - 1, taddr)
        .str();
  return "";
}

std::string axe::gpusim::checkTcgen05Shift(uint32_t taddr) {
  TmemAddress a = decodeTmemAddress(taddr);
  if (a.lane % kTcgen05ShiftRows || a.lane >= kTmemLanes)
    return llvm::formatv("TMEM address {0:x8} has lane {1}, not a multiple "
                         "of 32 below 128",
                         taddr, a.lane)
        .str();
  if (a.column + kTcgen05ShiftColumns > kTmemColumns)
    return llvm::formatv("TMEM columns {0} to {1} at address {2:x8} run past "
                         "the 512 columns",
                         a.column, a.column + kTcgen05ShiftColumns - 1, taddr)
        .str();
  return "";
}
