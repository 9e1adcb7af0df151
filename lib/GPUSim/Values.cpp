//===- Values.cpp - Small float formats -----------------------------------===//

#include "axe/GPUSim/Values.h"

using namespace axe::gpusim;

/// `m >> s` rounded to nearest, ties to even.
static uint64_t roundShift(uint64_t m, unsigned s) {
  if (s == 0)
    return m;
  if (s >= 64)
    return 0;
  uint64_t q = m >> s, rem = m & ((uint64_t(1) << s) - 1),
           half = uint64_t(1) << (s - 1);
  if (rem > half || (rem == half && (q & 1)))
    ++q;
  return q;
}

/// A double rounded once (nearest even) to a binary format of `ebits`
/// exponent and `mbits` mantissa bits, as its bits.
static uint32_t encode(double d, int ebits, int mbits) {
  uint64_t b = f64ToBits(d);
  uint32_t sign = uint32_t(b >> 63) << (ebits + mbits);
  int exp = int((b >> 52) & 0x7ff);
  uint64_t mant = b & ((uint64_t(1) << 52) - 1);
  uint32_t inf = ((uint32_t(1) << ebits) - 1) << mbits;
  if (exp == 0x7ff)
    return sign | inf | (mant ? uint32_t(1) << (mbits - 1) : 0);
  if (exp == 0)
    return sign; // double subnormals are far below these formats' range
  int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
  int e = exp - 1023;
  uint64_t m = mant | (uint64_t(1) << 52);
  if (e >= emin) {
    uint64_t q = roundShift(m, 52 - mbits);
    if (q >> (mbits + 1)) {
      q >>= 1;
      ++e;
    }
    if (e > bias)
      return sign | inf;
    return sign | uint32_t(e + bias) << mbits |
           uint32_t(q & ((uint64_t(1) << mbits) - 1));
  }
  // Subnormal: units of 2^(emin - mbits); a carry into the exponent field
  // gives the smallest normal, as it should.
  return sign | uint32_t(roundShift(m, 52 - mbits + (emin - e)));
}

float axe::gpusim::halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 31, mant = h & 0x3ff;
  if (exp == 0) {
    float v = float(mant) * 5.9604644775390625e-8f; // 2^-24
    return sign ? -v : v;
  }
  if (exp == 31)
    return bitsToF32(sign | 0x7f800000u | mant << 13);
  return bitsToF32(sign | (exp - 15 + 127) << 23 | mant << 13);
}

uint16_t axe::gpusim::doubleToHalf(double d) { return encode(d, 5, 10); }

uint16_t axe::gpusim::floatToHalf(float f) { return doubleToHalf(double(f)); }

uint16_t axe::gpusim::doubleToBF16(double d) { return encode(d, 8, 7); }

float axe::gpusim::floatToTF32(float f) {
  uint32_t b = f32ToBits(f);
  if ((b & 0x7f800000u) == 0x7f800000u)
    return f;
  return bitsToF32((b + 0x1000u) & 0xffffe000u);
}
