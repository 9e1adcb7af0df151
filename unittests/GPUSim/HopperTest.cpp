//===- HopperTest.cpp - Tensor maps, swizzles, wgmma descriptors ----------===//
//
// Values worked out by hand from the PTX ISA manual: the swizzle modes'
// address functions (and the 128-byte mode's "chunk c of row r lands at
// chunk c ^ r" pattern), the matrix-descriptor fields, K-major operand
// addresses, the wgmma accumulator fragment (entries of the "WGMMA .m64nNk16
// register fragment layout for accumulator matrix D" figure, and a
// bijection), the tensor-map checks, and TMA box copies with out-of-bound
// fill and swizzling.
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Hopper.h"

#include "gtest/gtest.h"

#include <cstring>
#include <set>
#include <vector>

using namespace axe::gpusim;

namespace {

TEST(Hopper, SwizzleAddresses) {
  // 128B: bits [4,7) ^= bits [7,10).
  EXPECT_EQ(swizzleAddress(128, 0x90), 0x80);
  EXPECT_EQ(swizzleAddress(128, 0x3f0), 0x380);
  EXPECT_EQ(swizzleAddress(128, 0x400), 0x400); // a new 1024-byte atom
  EXPECT_EQ(swizzleAddress(128, 0x40a), 0x40a);
  EXPECT_EQ(swizzleAddress(128, 0x48a), 0x49a);
  // 64B: bits [4,6) ^= bits [7,9).
  EXPECT_EQ(swizzleAddress(64, 0x180), 0x1b0);
  EXPECT_EQ(swizzleAddress(64, 0x200), 0x200);
  EXPECT_EQ(swizzleAddress(64, 0x3c4), 0x3f4);
  // 32B: bit 4 ^= bit 7.
  EXPECT_EQ(swizzleAddress(32, 0x80), 0x90);
  EXPECT_EQ(swizzleAddress(32, 0x90), 0x80);
  EXPECT_EQ(swizzleAddress(32, 0x100), 0x100);
  // None.
  EXPECT_EQ(swizzleAddress(0, 0x3f0), 0x3f0);
  // The 128-byte mode: 16-byte chunk c of row r (128 bytes) goes to chunk
  // c ^ (r % 8), bytes within a chunk in order.
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c)
      for (int b = 0; b < 16; ++b)
        EXPECT_EQ(swizzleAddress(128, r * 128 + c * 16 + b),
                  r * 128 + ((c ^ (r % 8)) * 16) + b);
  // The 64-byte mode on 64-byte rows: chunk c of row r at c ^ ((r / 2) % 4).
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(swizzleAddress(64, r * 64 + c * 16),
                r * 64 + ((c ^ ((r / 2) % 4)) * 16));
  EXPECT_EQ(swizzleAlignment(128), 1024);
  EXPECT_EQ(swizzleAlignment(64), 512);
  EXPECT_EQ(swizzleAlignment(32), 256);
  EXPECT_EQ(swizzleAlignment(0), 128);
}

TEST(Hopper, MatrixDescriptor) {
  // start 1024 (field 64), SBO 1024 (field 64), 128B swizzle.
  MatrixDescriptor d = decodeMatrixDescriptor(0x4000004000000040ull);
  EXPECT_EQ(d.start, 1024);
  EXPECT_EQ(d.leading, 0);
  EXPECT_EQ(d.stride, 1024);
  EXPECT_EQ(d.baseOffset, 0u);
  EXPECT_EQ(d.swizzle, 128u);
  // LBO 16 (field 1 at bit 16), base offset 5, 64B; 32B; interleave.
  d = decodeMatrixDescriptor((2ull << 62) | (5ull << 49) | (1ull << 16));
  EXPECT_EQ(d.leading, 16);
  EXPECT_EQ(d.baseOffset, 5u);
  EXPECT_EQ(d.swizzle, 64u);
  EXPECT_EQ(decodeMatrixDescriptor(3ull << 62).swizzle, 32u);
  EXPECT_EQ(decodeMatrixDescriptor(0x3fff).start, 0x3fff0);
  EXPECT_EQ(decodeMatrixDescriptor(0x3fff).swizzle, 0u);
  // Bits 14, 15, 30, 31 are not part of the fields.
  EXPECT_EQ(decodeMatrixDescriptor(0xc000c000ull).start, 0);
  EXPECT_EQ(decodeMatrixDescriptor(0xc000c000ull).leading, 0);
}

TEST(Hopper, KMajorAddresses) {
  // Interleave: 8 rows of 16 bytes per core matrix, LBO 128 along K, SBO
  // 256 along M. (9, 10) of f16: core (1, 1), row 1, byte 4.
  MatrixDescriptor d;
  d.start = 0;
  d.leading = 128;
  d.stride = 256;
  EXPECT_EQ(wgmmaKMajorAddress(d, 9, 10, 2), 256 + 128 + 16 + 4);
  EXPECT_EQ(wgmmaKMajorAddress(d, 0, 7, 2), 14);
  // 128B swizzle, SBO 1024: (9, 3) is at 1024 + 128 + 6 = 1158 before the
  // swizzle; its row bits (1) flip chunk 0 to chunk 1: 1174.
  d = {2048, 0, 1024, 0, 128};
  EXPECT_EQ(wgmmaKMajorAddress(d, 9, 3, 2), 2048 + 1158 + 16);
  // A k-step of 16 f16 advances the start by 32 bytes: element (r, 16 + k)
  // of the tile is where (r, k) is for the advanced start.
  MatrixDescriptor e = d;
  e.start += 32;
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < 16; ++k)
      EXPECT_EQ(wgmmaKMajorAddress(e, r, k, 2),
                swizzleAddress(128, 2048 + r * 128 + (16 + k) * 2));
  // 64B and 32B: rows of 64 and 32 bytes, SBO between 8-row groups.
  d = {0, 0, 512, 0, 64};
  EXPECT_EQ(wgmmaKMajorAddress(d, 3, 0, 2), swizzleAddress(64, 192));
  EXPECT_EQ(wgmmaKMajorAddress(d, 3, 0, 2), 192 ^ 16);
  EXPECT_EQ(wgmmaKMajorAddress(d, 8, 15, 2), 512 + 30);
  d = {0, 0, 256, 0, 32};
  EXPECT_EQ(wgmmaKMajorAddress(d, 4, 1, 2), 128 + 2 + 16);
  EXPECT_EQ(wgmmaKMajorAddress(d, 17, 8, 2), 512 + 32 + 16);
}

TEST(Hopper, AccumulatorFragment) {
  // The figure: thread 0 holds d0 (0,0), d1 (0,1), d2 (8,0), d3 (8,1), d4
  // (0,8); thread 5 d0 at (1,2); warp 1 starts at row 16; thread 127 d3 at
  // (63, 7).
  auto at = [](int t, int i) {
    RowCol rc = wgmmaAccumulator(t, i);
    return std::make_pair(rc.row, rc.col);
  };
  EXPECT_EQ(at(0, 0), std::make_pair(0, 0));
  EXPECT_EQ(at(0, 1), std::make_pair(0, 1));
  EXPECT_EQ(at(0, 2), std::make_pair(8, 0));
  EXPECT_EQ(at(0, 3), std::make_pair(8, 1));
  EXPECT_EQ(at(0, 4), std::make_pair(0, 8));
  EXPECT_EQ(at(5, 0), std::make_pair(1, 2));
  EXPECT_EQ(at(32, 0), std::make_pair(16, 0));
  EXPECT_EQ(at(127, 3), std::make_pair(63, 7));
  EXPECT_EQ(at(127, 31), std::make_pair(63, 63));
  // A bijection onto 64 x N for N = 8, 64, 256.
  for (int n : {8, 64, 256}) {
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < n / 2; ++i) {
        auto p = at(t, i);
        EXPECT_TRUE(p.first >= 0 && p.first < 64 && p.second >= 0 &&
                    p.second < n);
        seen.insert(p);
      }
    EXPECT_EQ(seen.size(), size_t(64 * n));
  }
}

TensorMap map2d(const void *base, uint64_t cols, uint64_t rows,
                uint64_t pitchBytes, uint32_t boxCols, uint32_t boxRows,
                uint32_t eb, uint32_t swizzle) {
  TensorMap m;
  m.globalAddress = uint64_t(reinterpret_cast<uintptr_t>(base));
  m.elementBytes = eb;
  m.rank = 2;
  m.dims[0] = cols;
  m.dims[1] = rows;
  m.strides[0] = eb;
  m.strides[1] = pitchBytes;
  m.box[0] = boxCols;
  m.box[1] = boxRows;
  m.swizzle = swizzle;
  return m;
}

TEST(Hopper, TensorMapChecks) {
  alignas(16) static uint16_t g[64 * 64];
  TensorMap ok = map2d(g, 64, 64, 128, 64, 64, 2, 128);
  EXPECT_EQ(checkTensorMap(ok), "");
  TensorMap m = ok;
  m.globalAddress += 8;
  EXPECT_NE(checkTensorMap(m).find("not 16-byte aligned"), std::string::npos);
  m = ok;
  m.strides[1] = 120;
  EXPECT_NE(checkTensorMap(m).find("not a multiple of 16"), std::string::npos);
  m = ok;
  m.box[1] = 257;
  EXPECT_NE(checkTensorMap(m).find("box dim 1"), std::string::npos);
  m = ok;
  m.box[0] = 0;
  EXPECT_NE(checkTensorMap(m).find("box dim 0"), std::string::npos);
  m = ok;
  m.swizzle = 0;
  m.box[0] = 4; // 8 bytes
  EXPECT_NE(checkTensorMap(m).find("not a multiple of 16"), std::string::npos);
  m = ok;
  m.swizzle = 64; // 128-byte rows
  EXPECT_NE(checkTensorMap(m).find("more than the 64-byte swizzle span"),
            std::string::npos);
  m = ok;
  m.rank = 0;
  EXPECT_NE(checkTensorMap(m).find("rank 0"), std::string::npos);
  m.rank = 6;
  EXPECT_NE(checkTensorMap(m).find("rank 6"), std::string::npos);
}

TEST(Hopper, TmaBoxWithOutOfBoundFill) {
  // A 4x6 u16 tensor in rows of 8 (16-byte pitch); columns 6 and 7 exist in
  // memory but are outside the tensor.
  alignas(16) uint16_t g[4 * 8];
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c)
      g[r * 8 + c] = uint16_t(r * 8 + c + 1);
  TensorMap m = map2d(g, 6, 4, 16, 8, 3, 2, 0);
  ASSERT_EQ(checkTensorMap(m), "");
  alignas(128) uint16_t dst[3 * 8];
  std::memset(dst, 0xab, sizeof(dst));
  int64_t coords[2] = {-2, 2};
  int64_t read = tmaLoadBox(m, coords, reinterpret_cast<uint8_t *>(dst), 0,
                            /*floatElements=*/false);
  int inside = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 8; ++c) {
      int gr = 2 + r, gc = -2 + c;
      bool in = gr < 4 && gc >= 0 && gc < 6;
      inside += in;
      EXPECT_EQ(dst[r * 8 + c], in ? uint16_t(gr * 8 + gc + 1) : 0)
          << "box element (" << r << ", " << c << ")";
    }
  EXPECT_EQ(inside, 2 * 6);
  EXPECT_EQ(read, 2 * inside);
  // NaN fill for float elements.
  m.oobNaN = 1;
  tmaLoadBox(m, coords, reinterpret_cast<uint8_t *>(dst), 0, true);
  EXPECT_EQ(dst[0], 0x7fff);
  EXPECT_EQ(dst[2], uint16_t(2 * 8 + 0 + 1));
}

TEST(Hopper, TmaBoxSwizzled) {
  // A 16x64 f16 box with the 128-byte swizzle at shared address 2048: box
  // element (r, c) lands at swizzle(2048 + 128 r + 2 c).
  alignas(16) static uint16_t g[32 * 64];
  for (int i = 0; i < 32 * 64; ++i)
    g[i] = uint16_t(i);
  TensorMap m = map2d(g, 64, 32, 128, 64, 16, 2, 128);
  ASSERT_EQ(checkTensorMap(m), "");
  std::vector<uint8_t> smem(16 * 128);
  int64_t coords[2] = {0, 3};
  tmaLoadBox(m, coords, smem.data(), 2048, false);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 64; ++c) {
      int64_t at = swizzleAddress(128, 2048 + 128 * r + 2 * c) - 2048;
      uint16_t v;
      std::memcpy(&v, &smem[at], 2);
      EXPECT_EQ(v, uint16_t((3 + r) * 64 + c));
    }
}

} // namespace
