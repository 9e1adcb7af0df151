//===- FragmentsTest.cpp - mma/ldmatrix fragment maps and bank counting ---===//
//
// Entries of the fragment maps checked against the PTX ISA's figures
// ("Matrix Fragments for mma.m16n8k*", "ldmatrix"), each map checked to be
// a bijection between (lane, position) and matrix elements, and the
// shared-memory wavefront count on crafted warp accesses.
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Fragments.h"

#include "gtest/gtest.h"

#include <set>
#include <vector>

using namespace axe::gpusim;

namespace {

struct Shape {
  MmaType type;
  int k;
};

const Shape kShapes[] = {{MmaType::F16, 16},  {MmaType::F16, 8},
                         {MmaType::BF16, 16}, {MmaType::TF32, 8},
                         {MmaType::TF32, 4},  {MmaType::S8, 32},
                         {MmaType::S8, 16}};

void expectAt(RowCol got, int row, int col) {
  EXPECT_EQ(got.row, row);
  EXPECT_EQ(got.col, col);
}

TEST(Fragments, EveryElementOnceA) {
  for (Shape s : kShapes) {
    std::set<std::pair<int, int>> seen;
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < mmaAElements(16, s.k); ++i) {
        RowCol rc = mmaA(s.type, s.k, lane, i);
        ASSERT_GE(rc.row, 0);
        ASSERT_LT(rc.row, 16);
        ASSERT_GE(rc.col, 0);
        ASSERT_LT(rc.col, s.k);
        EXPECT_TRUE(seen.insert({rc.row, rc.col}).second);
      }
    EXPECT_EQ(seen.size(), size_t(16 * s.k));
  }
}

TEST(Fragments, EveryElementOnceBC) {
  for (Shape s : kShapes) {
    std::set<std::pair<int, int>> b, c;
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < mmaBElements(s.k, 8); ++i) {
        RowCol rc = mmaB(s.type, s.k, lane, i);
        ASSERT_LT(rc.row, s.k);
        ASSERT_LT(rc.col, 8);
        EXPECT_TRUE(b.insert({rc.row, rc.col}).second);
      }
      for (int i = 0; i < 4; ++i)
        EXPECT_TRUE(c.insert({mmaC(lane, i).row, mmaC(lane, i).col}).second);
    }
    EXPECT_EQ(b.size(), size_t(8 * s.k));
    EXPECT_EQ(c.size(), size_t(128));
  }
}

// The figures' entries: lane 5 is groupID 1, threadID_in_group 1.
TEST(Fragments, F16M16N8K16Entries) {
  expectAt(mmaA(MmaType::F16, 16, 5, 0), 1, 2);
  expectAt(mmaA(MmaType::F16, 16, 5, 1), 1, 3);
  expectAt(mmaA(MmaType::F16, 16, 5, 2), 9, 2);
  expectAt(mmaA(MmaType::F16, 16, 5, 5), 1, 11);
  expectAt(mmaA(MmaType::F16, 16, 5, 7), 9, 11);
  expectAt(mmaA(MmaType::F16, 16, 31, 6), 15, 14);
  expectAt(mmaB(MmaType::F16, 16, 5, 0), 2, 1);
  expectAt(mmaB(MmaType::F16, 16, 5, 3), 11, 1);
  expectAt(mmaB(MmaType::F16, 16, 30, 2), 12, 7);
  expectAt(mmaC(5, 0), 1, 2);
  expectAt(mmaC(5, 3), 9, 3);
  expectAt(mmaC(31, 2), 15, 6);
}

TEST(Fragments, F16M16N8K8Entries) {
  expectAt(mmaA(MmaType::F16, 8, 5, 2), 9, 2);
  expectAt(mmaA(MmaType::F16, 8, 5, 3), 9, 3);
  expectAt(mmaB(MmaType::F16, 8, 5, 1), 3, 1);
}

// lane 6: groupID 1, threadID_in_group 2.
TEST(Fragments, TF32Entries) {
  expectAt(mmaA(MmaType::TF32, 8, 6, 0), 1, 2);
  expectAt(mmaA(MmaType::TF32, 8, 6, 1), 9, 2);
  expectAt(mmaA(MmaType::TF32, 8, 6, 2), 1, 6);
  expectAt(mmaA(MmaType::TF32, 8, 6, 3), 9, 6);
  expectAt(mmaB(MmaType::TF32, 8, 6, 0), 2, 1);
  expectAt(mmaB(MmaType::TF32, 8, 6, 1), 6, 1);
  expectAt(mmaA(MmaType::TF32, 4, 6, 1), 9, 2);
  expectAt(mmaB(MmaType::TF32, 4, 6, 0), 2, 1);
}

// lane 7: groupID 1, threadID_in_group 3.
TEST(Fragments, S8Entries) {
  expectAt(mmaA(MmaType::S8, 32, 7, 0), 1, 12);
  expectAt(mmaA(MmaType::S8, 32, 7, 5), 9, 13);
  expectAt(mmaA(MmaType::S8, 32, 7, 10), 1, 30);
  expectAt(mmaA(MmaType::S8, 32, 7, 14), 9, 30);
  expectAt(mmaB(MmaType::S8, 32, 7, 2), 14, 1);
  expectAt(mmaB(MmaType::S8, 32, 7, 6), 30, 1);
  expectAt(mmaA(MmaType::S8, 16, 7, 6), 9, 14);
  expectAt(mmaB(MmaType::S8, 16, 7, 3), 15, 1);
}

TEST(Fragments, Ldmatrix) {
  // Thread 9 holds row 9/4 = 2, elements 2*(9%4) = 2 and 3.
  expectAt(ldmatrixElement(9, 0, false), 2, 2);
  expectAt(ldmatrixElement(9, 1, false), 2, 3);
  // Transposed: column 2 of rows 2 and 3.
  expectAt(ldmatrixElement(9, 0, true), 2, 2);
  expectAt(ldmatrixElement(9, 1, true), 3, 2);
  expectAt(ldmatrixElement(31, 1, true), 7, 7);
  expectAt(ldmatrixElement(4, 0, true), 0, 1);
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int h = 0; h < 2; ++h) {
      RowCol rc = ldmatrixElement(lane, h, true);
      EXPECT_TRUE(seen.insert({rc.row, rc.col}).second);
    }
}

std::vector<int64_t> strided(int64_t base, int64_t stride) {
  std::vector<int64_t> a(32);
  for (int l = 0; l < 32; ++l)
    a[l] = base + l * stride;
  return a;
}

Wavefronts count(const std::vector<int64_t> &a, unsigned bytes,
                 uint32_t mask = 0xffffffffu) {
  return warpWavefronts(a.data(), mask, bytes);
}

TEST(Banks, Conflicts32Bit) {
  EXPECT_EQ(count(strided(0, 4), 4).wavefronts, 1u);
  EXPECT_EQ(count(strided(0, 4), 4).ideal, 1u);
  // A column of a 32x32 float tile: one bank, 32 words.
  EXPECT_EQ(count(strided(0, 128), 4).wavefronts, 32u);
  EXPECT_EQ(count(strided(0, 128), 4).ideal, 1u);
  // Padded to 33 floats a row: 32 banks.
  EXPECT_EQ(count(strided(0, 132), 4).wavefronts, 1u);
  EXPECT_EQ(count(strided(0, 8), 4).wavefronts, 2u);
  // The same word is a broadcast; the same bank at two words conflicts.
  EXPECT_EQ(count(strided(64, 0), 4).wavefronts, 1u);
  std::vector<int64_t> two = strided(0, 0);
  two[7] = 128;
  EXPECT_EQ(count(two, 4).wavefronts, 2u);
  // Bytes of one word: one wavefront.
  EXPECT_EQ(count(strided(0, 1), 1).wavefronts, 1u);
  // Inactive lanes do not count.
  EXPECT_EQ(count(strided(0, 128), 4, 0x3).wavefronts, 2u);
  EXPECT_EQ(count(strided(0, 128), 4, 0).wavefronts, 0u);
}

TEST(Banks, WideAccessesRunInPhases) {
  // 64-bit: 2 phases of 16 lanes; 128-bit: 4 phases of 8.
  EXPECT_EQ(count(strided(0, 8), 8).wavefronts, 2u);
  EXPECT_EQ(count(strided(0, 8), 8).ideal, 2u);
  EXPECT_EQ(count(strided(0, 16), 16).wavefronts, 4u);
  EXPECT_EQ(count(strided(0, 16), 16).ideal, 4u);
  // 16-byte rows 32 bytes apart: lanes k and k+4 of a phase share banks.
  EXPECT_EQ(count(strided(0, 32), 16).wavefronts, 8u);
  EXPECT_EQ(count(strided(0, 32), 16).ideal, 4u);
}

TEST(Banks, Phase) {
  LaneAccess rows[8];
  for (int r = 0; r < 8; ++r)
    rows[r] = {r * 16, 16};
  EXPECT_EQ(phaseWavefronts(rows).wavefronts, 1u);
  for (int r = 0; r < 8; ++r)
    rows[r] = {r * 64, 16};
  EXPECT_EQ(phaseWavefronts(rows).wavefronts, 4u);
}

TEST(Global, Sectors) {
  EXPECT_EQ(globalSectors(strided(0, 4).data(), 0xffffffffu, 4), 4u);
  EXPECT_EQ(globalSectors(strided(4, 4).data(), 0xffffffffu, 4), 5u);
  EXPECT_EQ(globalSectors(strided(0, 32).data(), 0xffffffffu, 4), 32u);
  EXPECT_EQ(globalSectors(strided(0, 0).data(), 0xffffffffu, 4), 1u);
  EXPECT_EQ(globalSectors(strided(0, 16).data(), 0xffffffffu, 16), 16u);
}

} // namespace
