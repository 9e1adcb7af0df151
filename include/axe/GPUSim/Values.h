//===- Values.h - Element kinds and their bit encodings ---------*- C++ -*-===//
//
// The interpreter keeps every lane's value of every element as one 64-bit
// word: integers zero-extended from their width, floats as the raw bits of
// their own format (an f16 in the low 16 bits). Arithmetic decodes floats to
// double and rounds the result back, which is exact for +, -, *, / and
// sqrt of f16, bf16 and f32 operands (double has more than twice their
// precision plus two bits).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_VALUES_H
#define AXE_GPUSIM_VALUES_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace axe::gpusim {

/// What one element word holds.
enum class Kind : uint8_t { Int, F16, BF16, F32, F64, MemRef, Token };

inline bool isFloat(Kind k) {
  return k == Kind::F16 || k == Kind::BF16 || k == Kind::F32 || k == Kind::F64;
}

inline uint64_t widthMask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

inline int64_t signExtend(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return int64_t(v);
  unsigned shift = 64 - bits;
  return int64_t(v << shift) >> shift;
}

inline float bitsToF32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

inline uint32_t f32ToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

inline double bitsToF64(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

inline uint64_t f64ToBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

/// IEEE half to float (exact).
float halfToFloat(uint16_t h);
/// Float to IEEE half, round to nearest even.
uint16_t floatToHalf(float f);
/// Double to IEEE half, round to nearest even (single rounding).
uint16_t doubleToHalf(double d);
/// Double to bfloat16, round to nearest even (single rounding).
uint16_t doubleToBF16(double d);
/// Double to tf32 (f32 with the low 13 mantissa bits cleared, rounded to
/// nearest, ties away from zero as cvt.rna.tf32.f32 does).
float floatToTF32(float f);

inline float bf16ToFloat(uint16_t b) { return bitsToF32(uint32_t(b) << 16); }

/// The value of a float word as a double.
inline double floatValue(Kind k, uint64_t w) {
  switch (k) {
  case Kind::F16:
    return halfToFloat(uint16_t(w));
  case Kind::BF16:
    return bf16ToFloat(uint16_t(w));
  case Kind::F32:
    return bitsToF32(uint32_t(w));
  default:
    return bitsToF64(w);
  }
}

/// A double rounded to `k`, as its word.
inline uint64_t floatWord(Kind k, double d) {
  switch (k) {
  case Kind::F16:
    return doubleToHalf(d);
  case Kind::BF16:
    return doubleToBF16(d);
  case Kind::F32:
    return f32ToBits(float(d));
  default:
    return f64ToBits(d);
  }
}

/// Bits of one element in memory.
inline unsigned storageBits(Kind k, unsigned intBits) {
  switch (k) {
  case Kind::F16:
  case Kind::BF16:
    return 16;
  case Kind::F32:
    return 32;
  case Kind::F64:
    return 64;
  default:
    return intBits;
  }
}

/// Bytes of one element in memory, as LLVM lays out iN (i1 takes a byte).
inline unsigned storageBytes(Kind k, unsigned intBits) {
  unsigned bits = storageBits(k, intBits);
  unsigned bytes = (bits + 7) / 8;
  unsigned p = 1;
  while (p < bytes)
    p *= 2;
  return p;
}

} // namespace axe::gpusim

#endif // AXE_GPUSIM_VALUES_H
