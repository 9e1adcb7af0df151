//===- BlackwellTest.cpp - tcgen05 descriptors and tensor memory ----------===//
//
// Values worked out by hand from the PTX ISA manual: TMEM addresses and
// column allocation, the kind::f16 instruction descriptor's fields, the
// sm_100 shared-memory descriptor (fixed bits, the swizzle field's codes)
// and the K-major addresses it gives, the data paths of D (layouts D and
// F), and the lane quarter of tcgen05.ld/st.
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Blackwell.h"

#include "gtest/gtest.h"

#include <set>

using namespace axe::gpusim;

namespace {

TEST(Blackwell, TmemAddress) {
  TmemAddress a = decodeTmemAddress(0x00600040u);
  EXPECT_EQ(a.lane, 96u);
  EXPECT_EQ(a.column, 64u);
  EXPECT_EQ(encodeTmemAddress(32, 128), 0x00200080u);
  EXPECT_EQ(decodeTmemAddress(encodeTmemAddress(127, 511)).lane, 127u);
  EXPECT_EQ(decodeTmemAddress(encodeTmemAddress(127, 511)).column, 511u);
}

TEST(Blackwell, TmemAllocator) {
  EXPECT_EQ(TmemAllocator::checkColumns(32), "");
  EXPECT_EQ(TmemAllocator::checkColumns(512), "");
  EXPECT_NE(TmemAllocator::checkColumns(16), "");
  EXPECT_NE(TmemAllocator::checkColumns(48), "");
  EXPECT_NE(TmemAllocator::checkColumns(1024), "");
  EXPECT_NE(TmemAllocator::checkColumns(0), "");
  TmemAllocator t;
  EXPECT_EQ(t.allocate(64), 0);
  EXPECT_EQ(t.allocate(32), 64); // the first free 32-aligned range
  EXPECT_EQ(t.allocate(128), 128);
  EXPECT_EQ(t.allocate(256), 256);
  EXPECT_EQ(t.allocate(32), 96);
  EXPECT_EQ(t.allocatedColumns(), 512u);
  EXPECT_EQ(t.allocate(32), -1); // full
  EXPECT_TRUE(t.allocated(0, 512));
  EXPECT_FALSE(t.release(64, 64)); // not an allocation
  EXPECT_FALSE(t.release(65, 32));
  EXPECT_TRUE(t.release(64, 32));
  EXPECT_FALSE(t.allocated(64, 32));
  EXPECT_FALSE(t.allocated(60, 8));
  EXPECT_TRUE(t.allocated(96, 32));
  EXPECT_EQ(t.allocate(64), -1); // 32 free columns only
  EXPECT_EQ(t.allocate(32), 64);
  t.reset();
  EXPECT_EQ(t.allocatedColumns(), 0u);
  EXPECT_EQ(t.allocate(512), 0);
}

TEST(Blackwell, InstrDescriptor) {
  // D F32 (bit 4), A = B = F16, N = 64 (8 << 17), M = 128 (8 << 24).
  Tcgen05InstrDescriptor d = decodeTcgen05InstrDescriptor(0x08100010u);
  EXPECT_EQ(d.dType, 1u);
  EXPECT_EQ(d.aType, 0u);
  EXPECT_EQ(d.bType, 0u);
  EXPECT_EQ(d.n, 64);
  EXPECT_EQ(d.m, 128);
  EXPECT_FALSE(d.negateA || d.negateB || d.transposeA || d.transposeB);
  EXPECT_EQ(d.other, 0u);
  EXPECT_EQ(checkTcgen05InstrDescriptor(d), "");
  // BF16 A and B (bits 7 and 10), N = 256 (32 << 17), M = 64 (4 << 24),
  // both negated (bits 13, 14).
  d = decodeTcgen05InstrDescriptor(0x04406490u);
  EXPECT_EQ(d.aType, 1u);
  EXPECT_EQ(d.bType, 1u);
  EXPECT_TRUE(d.negateA);
  EXPECT_TRUE(d.negateB);
  EXPECT_EQ(d.n, 256);
  EXPECT_EQ(d.m, 64);
  EXPECT_EQ(checkTcgen05InstrDescriptor(d), "");
  // M = 64, N = 8.
  EXPECT_EQ(
      checkTcgen05InstrDescriptor(decodeTcgen05InstrDescriptor(0x04020010u)),
      "");
  // M = 128 needs N a multiple of 16.
  EXPECT_NE(
      checkTcgen05InstrDescriptor(decodeTcgen05InstrDescriptor(0x08020010u)),
      "");
  // M = 256 is cta_group::2's.
  EXPECT_NE(
      checkTcgen05InstrDescriptor(decodeTcgen05InstrDescriptor(0x10100010u)),
      "");
  // Transposed A (bit 15), B (bit 16): not modelled.
  d = decodeTcgen05InstrDescriptor(0x08108010u);
  EXPECT_TRUE(d.transposeA);
  EXPECT_NE(checkTcgen05InstrDescriptor(d).find("transposed"),
            std::string::npos);
  EXPECT_TRUE(decodeTcgen05InstrDescriptor(0x08110010u).transposeB);
  // F16 D, mixed A/B types, sparsity (bit 2), saturate (bit 3), reserved
  // bits 6, 23, 29, the shift [30,32).
  EXPECT_NE(
      checkTcgen05InstrDescriptor(decodeTcgen05InstrDescriptor(0x08100000u)),
      "");
  EXPECT_NE(
      checkTcgen05InstrDescriptor(decodeTcgen05InstrDescriptor(0x08100090u)),
      "");
  for (uint32_t bit : {2u, 3u, 6u, 23u, 29u, 30u, 31u}) {
    d = decodeTcgen05InstrDescriptor(0x08100010u | (1u << bit));
    EXPECT_EQ(d.other, 1u << bit);
    EXPECT_NE(checkTcgen05InstrDescriptor(d), "");
  }
}

TEST(Blackwell, SmemDescriptor) {
  // start 0x400 >> 4, LBO 16 >> 4, SBO 1024 >> 4, fixed 0b001, 128B.
  uint64_t word = (0x400u >> 4) | (uint64_t(1) << 16) | (uint64_t(64) << 32) |
                  (uint64_t(1) << 46) | (uint64_t(2) << 61);
  Tcgen05SmemDescriptor d = decodeTcgen05SmemDescriptor(word);
  EXPECT_EQ(d.start, 0x400);
  EXPECT_EQ(d.leading, 16);
  EXPECT_EQ(d.stride, 1024);
  EXPECT_EQ(d.fixed, 1u);
  EXPECT_EQ(d.baseOffset, 0u);
  EXPECT_EQ(d.lboMode, 0u);
  EXPECT_EQ(d.swizzleField, 2u);
  MatrixDescriptor m;
  EXPECT_EQ(checkTcgen05SmemDescriptor(d, m), "");
  EXPECT_EQ(m.start, 0x400);
  EXPECT_EQ(m.stride, 1024);
  EXPECT_EQ(m.swizzle, 128u);
  // Row 9, k 17: 8-row group 1, row 1 of it, 16-byte chunk 2 ^ 1 = 3,
  // byte 2 of it.
  EXPECT_EQ(wgmmaKMajorAddress(m, 9, 17, 2), 0x400 + 1024 + 128 + 48 + 2);
  // The k-step of 16 f16: the start advanced by 32 bytes (2 in the field).
  MatrixDescriptor m2;
  EXPECT_EQ(
      checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(word + 2), m2),
      "");
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k)
      EXPECT_EQ(wgmmaKMajorAddress(m2, r, k, 2),
                wgmmaKMajorAddress(m, r, k + 16, 2));
  // The swizzle field's codes (unlike sm_90's 2-bit layout field).
  EXPECT_EQ(tcgen05SwizzleSpan(0), 0);
  EXPECT_EQ(tcgen05SwizzleSpan(1), -1);
  EXPECT_EQ(tcgen05SwizzleSpan(2), 128);
  EXPECT_EQ(tcgen05SwizzleSpan(3), -2);
  EXPECT_EQ(tcgen05SwizzleSpan(4), 64);
  EXPECT_EQ(tcgen05SwizzleSpan(5), -2);
  EXPECT_EQ(tcgen05SwizzleSpan(6), 32);
  EXPECT_EQ(tcgen05SwizzleSpan(7), -2);
  for (unsigned field : {0u, 4u, 6u}) {
    uint64_t w = (word & ~(uint64_t(7) << 61)) | (uint64_t(field) << 61);
    EXPECT_EQ(checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(w), m),
              "");
    EXPECT_EQ(m.swizzle, unsigned(tcgen05SwizzleSpan(field)));
  }
  // Interleaved (no swizzle): core matrices LBO apart along K.
  uint64_t inter = (uint64_t(128 >> 4) << 16) | (uint64_t(256 >> 4) << 32) |
                   (uint64_t(1) << 46);
  EXPECT_EQ(checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(inter), m),
            "");
  EXPECT_EQ(wgmmaKMajorAddress(m, 10, 9, 2), 256 + 128 + 2 * 16 + 2);
  // The fixed bits: 0b000 (an sm_90 descriptor), 0b011.
  EXPECT_NE(checkTcgen05SmemDescriptor(
                decodeTcgen05SmemDescriptor(word & ~(uint64_t(1) << 46)), m)
                .find("fixed 0b001"),
            std::string::npos);
  EXPECT_NE(checkTcgen05SmemDescriptor(
                decodeTcgen05SmemDescriptor(word | (uint64_t(2) << 46)), m),
            "");
  // Base offset, LBO mode, bits [53,61), swizzle fields 1 and 3.
  EXPECT_NE(checkTcgen05SmemDescriptor(
                decodeTcgen05SmemDescriptor(word | (uint64_t(1) << 49)), m),
            "");
  EXPECT_NE(checkTcgen05SmemDescriptor(
                decodeTcgen05SmemDescriptor(word | (uint64_t(1) << 52)), m),
            "");
  EXPECT_NE(checkTcgen05SmemDescriptor(
                decodeTcgen05SmemDescriptor(word | (uint64_t(1) << 57)), m),
            "");
  EXPECT_NE(checkTcgen05SmemDescriptor(
                decodeTcgen05SmemDescriptor(word ^ (uint64_t(3) << 61)), m),
            "");
  EXPECT_NE(checkTcgen05SmemDescriptor(
                decodeTcgen05SmemDescriptor(word | (uint64_t(1) << 61)), m),
            "");
}

TEST(Blackwell, DataPath) {
  // Layout D (M = 128): row i in lane i.
  for (int r = 0; r < 128; ++r)
    EXPECT_EQ(tcgen05DLane(128, r), unsigned(r));
  // Layout F (M = 64): rows 16w..16w+15 in lanes 32w..32w+15.
  EXPECT_EQ(tcgen05DLane(64, 0), 0u);
  EXPECT_EQ(tcgen05DLane(64, 15), 15u);
  EXPECT_EQ(tcgen05DLane(64, 16), 32u);
  EXPECT_EQ(tcgen05DLane(64, 31), 47u);
  EXPECT_EQ(tcgen05DLane(64, 48), 96u);
  EXPECT_EQ(tcgen05DLane(64, 63), 111u);
  std::set<unsigned> lanes;
  for (int r = 0; r < 64; ++r) {
    unsigned l = tcgen05DLane(64, r);
    EXPECT_LT(l % 32, 16u);
    // Row r lies in the quarter warp r / 16 reads with tcgen05.ld.
    EXPECT_EQ(l / 32, unsigned(r / 16));
    lanes.insert(l);
  }
  EXPECT_EQ(lanes.size(), 64u);
}

TEST(Blackwell, LdSt32x32bLanes) {
  EXPECT_EQ(tmemLaneBase(0), 0u);
  EXPECT_EQ(tmemLaneBase(3), 96u);
  EXPECT_EQ(tmemLaneBase(5), 32u); // warp mod 4
  EXPECT_EQ(checkTcgen05LdSt32x32b(0, 0x00000000u, 64), "");
  EXPECT_EQ(checkTcgen05LdSt32x32b(1, 0x00200000u, 64), "");
  EXPECT_EQ(checkTcgen05LdSt32x32b(5, 0x00200040u, 64), "");
  EXPECT_EQ(checkTcgen05LdSt32x32b(7, 0x006001c0u, 64), "");
  std::string bad = checkTcgen05LdSt32x32b(1, 0x00000000u, 64);
  EXPECT_NE(bad.find("warp 1 may access TMEM lanes 32 to 63"),
            std::string::npos)
      << bad;
  EXPECT_NE(checkTcgen05LdSt32x32b(4, 0x00200000u, 1), "");
  EXPECT_NE(checkTcgen05LdSt32x32b(0, 0x00100000u, 1), ""); // lane 16
  // Columns past the 512.
  EXPECT_EQ(checkTcgen05LdSt32x32b(0, 0x000001c0u, 64), "");
  EXPECT_NE(checkTcgen05LdSt32x32b(0, 0x000001e0u, 64), "");
}

} // namespace

// Hand-worked shared addresses of tcgen05.cp sources (K-major canonical
// layouts: a row's bytes along K) and where each word lands in TMEM.
TEST(Blackwell, CpSourceAddress) {
  // No swizzle: LBO 128 (16-byte chunks along the row), SBO 256 (8-row
  // groups), start 0x200.
  uint64_t inter = (0x200u >> 4) | (uint64_t(128 >> 4) << 16) |
                   (uint64_t(256 >> 4) << 32) | (uint64_t(1) << 46);
  MatrixDescriptor m;
  ASSERT_EQ(checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(inter), m),
            "");
  EXPECT_EQ(tcgen05CpSourceAddress(m, 0, 0), 0x200);
  EXPECT_EQ(tcgen05CpSourceAddress(m, 1, 0), 0x200 + 16);
  EXPECT_EQ(tcgen05CpSourceAddress(m, 0, 3), 0x200 + 12);
  EXPECT_EQ(tcgen05CpSourceAddress(m, 0, 4), 0x200 + 128);
  // .128x256b: row 9, word 5 = group 1, row 1 of it, chunk 1, byte 4.
  EXPECT_EQ(tcgen05CpSourceAddress(m, 9, 5), 0x200 + 256 + 16 + 128 + 4);
  // .128x256b's last word: group 15, row 7, chunk 1, byte 12.
  EXPECT_EQ(tcgen05CpSourceAddress(m, 127, 7),
            0x200 + 15 * 256 + 7 * 16 + 128 + 12);
  // .128x128b's last word: chunk 0 only.
  EXPECT_EQ(tcgen05CpSourceAddress(m, 127, 3), 0x200 + 15 * 256 + 7 * 16 + 12);
  // .4x256b: rows 0..3 of one core matrix pair.
  EXPECT_EQ(tcgen05CpSourceAddress(m, 3, 6), 0x200 + 3 * 16 + 128 + 8);

  // 128-byte swizzle at 0x400, SBO 1024: row 3, word 5 is byte 20 of
  // swizzled row 3: chunk 1 ^ 3 = 2, byte 4.
  uint64_t sw128 = (0x400u >> 4) | (uint64_t(1) << 16) |
                   (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 46) |
                   (uint64_t(2) << 61);
  ASSERT_EQ(checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(sw128), m),
            "");
  EXPECT_EQ(tcgen05CpSourceAddress(m, 3, 5), 0x400 + 3 * 128 + 32 + 4);
  // Row 8 (group 1, row 0: no swizzle), word 7.
  EXPECT_EQ(tcgen05CpSourceAddress(m, 8, 7), 0x400 + 1024 + 28);
  // Row 15, word 0: chunk 0 ^ 7 = 7.
  EXPECT_EQ(tcgen05CpSourceAddress(m, 15, 0), 0x400 + 1024 + 7 * 128 + 112);

  // 32-byte swizzle at 0, SBO 256: rows of 32 bytes; rows 4..7 of a group
  // swap their two 16-byte chunks.
  uint64_t sw32 =
      (uint64_t(256 >> 4) << 32) | (uint64_t(1) << 46) | (uint64_t(6) << 61);
  ASSERT_EQ(checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(sw32), m),
            "");
  EXPECT_EQ(tcgen05CpSourceAddress(m, 3, 1), 3 * 32 + 4);
  EXPECT_EQ(tcgen05CpSourceAddress(m, 4, 1), 4 * 32 + 16 + 4);
  EXPECT_EQ(tcgen05CpSourceAddress(m, 4, 5), 4 * 32 + 4);
  EXPECT_EQ(tcgen05CpSourceAddress(m, 13, 6), 256 + 5 * 32 + 8);
}

TEST(Blackwell, CpDestination) {
  TmemAddress a = tcgen05CpDestination(0x00000040u, 5, 7);
  EXPECT_EQ(a.lane, 5u);
  EXPECT_EQ(a.column, 71u);
  a = tcgen05CpDestination(encodeTmemAddress(8, 16), 3, 2);
  EXPECT_EQ(a.lane, 11u);
  EXPECT_EQ(a.column, 18u);
  Tcgen05CpShape s128x256{128, 32}, s128x128{128, 16}, s4x256{4, 32};
  EXPECT_EQ(s128x256.words(), 8u);
  EXPECT_EQ(s128x128.words(), 4u);
  EXPECT_EQ(checkTcgen05CpDestination(encodeTmemAddress(0, 504), s128x256), "");
  EXPECT_NE(checkTcgen05CpDestination(encodeTmemAddress(0, 505), s128x256), "");
  EXPECT_EQ(checkTcgen05CpDestination(encodeTmemAddress(0, 508), s128x128), "");
  EXPECT_NE(checkTcgen05CpDestination(encodeTmemAddress(32, 0), s128x128)
                .find("from lane 0"),
            std::string::npos);
  EXPECT_EQ(checkTcgen05CpDestination(encodeTmemAddress(124, 0), s4x256), "");
  EXPECT_NE(checkTcgen05CpDestination(encodeTmemAddress(125, 0), s4x256), "");
}

TEST(Blackwell, Shift) {
  EXPECT_EQ(checkTcgen05Shift(encodeTmemAddress(0, 0)), "");
  EXPECT_EQ(checkTcgen05Shift(encodeTmemAddress(96, 504)), "");
  EXPECT_NE(checkTcgen05Shift(encodeTmemAddress(16, 0)), "");
  EXPECT_NE(checkTcgen05Shift(encodeTmemAddress(128, 0)), "");
  EXPECT_NE(checkTcgen05Shift(encodeTmemAddress(32, 505)), "");
}
