//===- Hopper.cpp - Tensor maps, TMA boxes, wgmma descriptors -------------===//
//
// From the PTX ISA manual: "Tensor" (tiled mode, bounding box, out-of-bound
// fill, swizzling modes), "Matrix Descriptor Format" and "Shared Memory
// Matrix Layout" (K-major and MN-major canonical layouts) of wgmma, and its
// "Register Fragments" figure for the accumulator; the tensor-map checks are
// those the CUDA driver documents for cuTensorMapEncodeTiled.
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Hopper.h"
#include "axe/GPUSim/Values.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>

using namespace axe::gpusim;

std::string axe::gpusim::checkTensorMap(const TensorMap &m) {
  if (m.rank < 1 || m.rank > kTensorMapMaxRank)
    return llvm::formatv("rank {0} (1 to 5 are possible)", m.rank).str();
  if (m.globalAddress % 16)
    return llvm::formatv("global address {0:x} is not 16-byte aligned",
                         m.globalAddress)
        .str();
  if (m.elementBytes != 1 && m.elementBytes != 2 && m.elementBytes != 4 &&
      m.elementBytes != 8)
    return llvm::formatv("elements of {0} bytes", m.elementBytes).str();
  if (m.swizzle != 0 && m.swizzle != 32 && m.swizzle != 64 && m.swizzle != 128)
    return llvm::formatv("swizzle span {0}", m.swizzle).str();
  if (m.interleave != 0 && m.interleave != 16 && m.interleave != 32)
    return llvm::formatv("interleave {0}", m.interleave).str();
  for (unsigned d = 0; d < m.rank; ++d) {
    if (m.dims[d] < 1 || m.dims[d] > (uint64_t(1) << 32))
      return llvm::formatv("dim {0} (innermost first) of size {1} (1 to 2^32 "
                           "are possible)",
                           d, m.dims[d])
          .str();
    if (d > 0 && (m.strides[d] % 16 || m.strides[d] >= (uint64_t(1) << 40)))
      return llvm::formatv("byte stride {0} of dim {1} (innermost first) is "
                           "not a multiple of 16 below 2^40",
                           m.strides[d], d)
          .str();
    if (m.box[d] < 1 || m.box[d] > 256)
      return llvm::formatv("box dim {0} (innermost first) is {1} (1 to 256 "
                           "are possible)",
                           d, m.box[d])
          .str();
  }
  uint64_t inner = uint64_t(m.box[0]) * m.elementBytes;
  if (m.interleave == 0 && inner % 16)
    return llvm::formatv("the inner box dim spans {0} bytes, not a multiple "
                         "of 16",
                         inner)
        .str();
  if (m.interleave == 0 && m.swizzle && inner > m.swizzle)
    return llvm::formatv("the inner box dim spans {0} bytes, more than the "
                         "{1}-byte swizzle span",
                         inner, m.swizzle)
        .str();
  return "";
}

int64_t axe::gpusim::swizzleAddress(unsigned swizzle, int64_t a) {
  switch (swizzle) {
  case 128:
    return a ^ (((a >> 7) & 7) << 4);
  case 64:
    return a ^ (((a >> 7) & 3) << 4);
  case 32:
    return a ^ (((a >> 7) & 1) << 4);
  default:
    return a;
  }
}

int64_t axe::gpusim::swizzleAlignment(unsigned swizzle) {
  switch (swizzle) {
  case 128:
    return 1024;
  case 64:
    return 512;
  case 32:
    return 256;
  default:
    return 128;
  }
}

int64_t axe::gpusim::boxBytes(const TensorMap &m) {
  int64_t n = m.elementBytes;
  for (unsigned d = 0; d < m.rank; ++d)
    n *= m.box[d];
  return n;
}

int64_t axe::gpusim::tmaLoadBox(
    const TensorMap &m, const int64_t *coords, uint8_t *dst,
    int64_t dstAddress, bool floatElements,
    llvm::function_ref<bool(const uint8_t *, int64_t)> onRead) {
  int64_t elements = boxBytes(m) / m.elementBytes;
  unsigned eb = m.elementBytes;
  uint8_t fill[8] = {};
  if (m.oobNaN && floatElements) {
    if (eb == 2) {
      uint16_t nan = 0x7fff;
      std::memcpy(fill, &nan, 2);
    } else if (eb == 4) {
      uint32_t nan = 0x7fffffffu;
      std::memcpy(fill, &nan, 4);
    }
  }
  int64_t read = 0;
  for (int64_t e = 0; e < elements; ++e) {
    int64_t rest = e, offset = 0;
    bool inside = true;
    for (unsigned d = 0; d < m.rank; ++d) {
      int64_t x = coords[d] + rest % m.box[d];
      rest /= m.box[d];
      if (x < 0 || x >= int64_t(m.dims[d]))
        inside = false;
      else
        offset += x * int64_t(m.strides[d]);
    }
    int64_t at = swizzleAddress(m.swizzle, dstAddress + e * eb) - dstAddress;
    if (inside) {
      const uint8_t *src =
          reinterpret_cast<const uint8_t *>(m.globalAddress) + offset;
      if (onRead && !onRead(src, eb))
        return read;
      std::memcpy(dst + at, src, eb);
      read += eb;
    } else {
      std::memcpy(dst + at, fill, eb);
    }
  }
  return read;
}

MatrixDescriptor axe::gpusim::decodeMatrixDescriptor(uint64_t d) {
  MatrixDescriptor m;
  m.start = int64_t(d & 0x3fff) << 4;
  m.leading = int64_t((d >> 16) & 0x3fff) << 4;
  m.stride = int64_t((d >> 32) & 0x3fff) << 4;
  m.baseOffset = unsigned((d >> 49) & 7);
  static const unsigned spans[4] = {0, 128, 64, 32};
  m.swizzle = spans[(d >> 62) & 3];
  return m;
}

int64_t axe::gpusim::wgmmaKMajorAddress(const MatrixDescriptor &d, int row,
                                        int k, unsigned elementBytes) {
  int64_t kByte = int64_t(k) * elementBytes;
  if (d.swizzle == 0)
    return d.start + (row / 8) * d.stride + (kByte / 16) * d.leading +
           (row % 8) * 16 + kByte % 16;
  int64_t a =
      d.start + (row / 8) * d.stride + (row % 8) * int64_t(d.swizzle) + kByte;
  return swizzleAddress(d.swizzle, a);
}

int64_t axe::gpusim::wgmmaMNMajorAddress(const MatrixDescriptor &d, int row,
                                         int k, unsigned elementBytes) {
  int64_t rowByte = int64_t(row) * elementBytes;
  if (d.swizzle == 0)
    return d.start + (rowByte / 16) * d.stride + (k / 8) * d.leading +
           (k % 8) * 16 + rowByte % 16;
  int64_t span = d.swizzle;
  int64_t a = d.start + (rowByte / span) * d.leading + (k / 8) * d.stride +
              (k % 8) * span + rowByte % span;
  return swizzleAddress(d.swizzle, a);
}

unsigned axe::gpusim::tensorInputBytes(TensorInput t) {
  return t == TensorInput::E4M3 || t == TensorInput::E5M2 ? 1 : 2;
}

/// A small float with `ebits` exponent and `mbits` mantissa bits (bias
/// 2^(ebits-1) - 1, subnormals at exponent 0); `ieeeTop` says whether the
/// top exponent holds infinities and NaNs (e5m2) or only the all-ones
/// NaN (e4m3's FN form, whose top exponent is otherwise finite).
static double smallFloat(uint16_t bits, int ebits, int mbits, bool ieeeTop) {
  bool negative = (bits >> (ebits + mbits)) & 1;
  int e = (bits >> mbits) & ((1 << ebits) - 1);
  int m = bits & ((1 << mbits) - 1);
  int top = (1 << ebits) - 1, bias = (1 << (ebits - 1)) - 1;
  double v;
  if (ieeeTop && e == top)
    v = m ? std::nan("") : HUGE_VAL;
  else if (!ieeeTop && e == top && m == (1 << mbits) - 1)
    v = std::nan("");
  else if (e == 0)
    v = std::ldexp(double(m), 1 - bias - mbits);
  else
    v = std::ldexp(double((1 << mbits) | m), e - bias - mbits);
  return negative ? -v : v;
}

double axe::gpusim::tensorInputValue(TensorInput t, uint16_t bits) {
  switch (t) {
  case TensorInput::F16:
    return halfToFloat(bits);
  case TensorInput::BF16:
    return bf16ToFloat(bits);
  case TensorInput::E4M3:
    return smallFloat(bits & 0xff, 4, 3, false);
  case TensorInput::E5M2:
    return smallFloat(bits & 0xff, 5, 2, true);
  }
  return 0;
}

RowCol axe::gpusim::wgmmaAccumulator(int thread, int reg) {
  int w = thread / 32, l = thread % 32;
  return {16 * w + l / 4 + 8 * ((reg / 2) % 2),
          8 * (reg / 4) + 2 * (l % 4) + reg % 2};
}
