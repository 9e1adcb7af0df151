//===- ClusterTest.cpp - Cluster rank arithmetic and addresses ------------===//

#include "axe/GPUSim/Cluster.h"

#include "gtest/gtest.h"

#include <set>

using namespace axe::gpusim;

// Ranks of a (2, 2, 1) cluster over a (4, 2, 1) grid, worked by hand:
// rank = x + 2y of the position in the cluster.
TEST(ClusterTest, RanksByHand) {
  int64_t c[3] = {2, 2, 1};
  int64_t cases[][4] = {{0, 0, 0, 0}, {1, 0, 0, 1}, {0, 1, 0, 2},
                        {1, 1, 0, 3}, {2, 0, 0, 0}, {3, 1, 0, 3}};
  for (auto &k : cases) {
    int64_t cta[3] = {k[0], k[1], k[2]};
    EXPECT_EQ(clusterRank(cta, c), unsigned(k[3]));
  }
  EXPECT_EQ(clusterCtaCount(c), 4);
  // (2, 2, 2): rank of (1, 0, 1) is 1 + 2 * (0 + 2 * 1) = 5.
  int64_t c3[3] = {2, 2, 2}, cta[3] = {3, 2, 5};
  EXPECT_EQ(clusterRank(cta, c3), 5u);
}

// ctaOfRank inverts clusterRank, and the ranks of a cluster are a
// bijection onto 0..n-1, for every cluster shape of up to 16 CTAs.
TEST(ClusterTest, RankRoundTrip) {
  for (int64_t x = 1; x <= 16; ++x)
    for (int64_t y = 1; x * y <= 16; ++y)
      for (int64_t z = 1; x * y * z <= 16; ++z) {
        int64_t c[3] = {x, y, z}, pos[3] = {1, 2, 3};
        std::set<unsigned> seen;
        for (unsigned r = 0; r < unsigned(x * y * z); ++r) {
          int64_t cta[3];
          ctaOfRank(pos, c, r, cta);
          for (int d = 0; d < 3; ++d) {
            EXPECT_GE(cta[d], pos[d] * c[d]);
            EXPECT_LT(cta[d], (pos[d] + 1) * c[d]);
          }
          EXPECT_EQ(clusterRank(cta, c), r);
          seen.insert(unsigned(cta[0] + 100 * cta[1] + 10000 * cta[2]));
        }
        EXPECT_EQ(seen.size(), size_t(x * y * z));
      }
}

TEST(ClusterTest, Addresses) {
  EXPECT_EQ(clusterAddress(0, 0), 0x40000000u);
  EXPECT_EQ(clusterAddress(1, 0x100), 0x41000100u);
  EXPECT_EQ(clusterAddress(15, 0xffffff), 0x4fffffffu);
  // A tagged address names its rank and offset, whatever CTA decodes it.
  ClusterAddress a = decodeClusterAddress(0x43000abc, 1);
  EXPECT_TRUE(a.valid);
  EXPECT_EQ(a.rank, 3u);
  EXPECT_EQ(a.offset, 0xabcu);
  // A shared::cta address is the executing CTA's.
  a = decodeClusterAddress(0x1234, 5);
  EXPECT_TRUE(a.valid);
  EXPECT_EQ(a.rank, 5u);
  EXPECT_EQ(a.offset, 0x1234u);
  // Outside the window: no tag, or bits above the tag.
  EXPECT_FALSE(decodeClusterAddress(0x01000000, 0).valid);
  EXPECT_FALSE(decodeClusterAddress(0x80000000, 0).valid);
  EXPECT_FALSE(decodeClusterAddress(0x140000000ull, 0).valid);
  for (unsigned r = 0; r < kMaxClusterCtas; ++r)
    for (uint64_t off : {uint64_t(0), uint64_t(8), uint64_t(0xfffff8)}) {
      ClusterAddress d = decodeClusterAddress(clusterAddress(r, off), 0);
      EXPECT_TRUE(d.valid);
      EXPECT_EQ(d.rank, r);
      EXPECT_EQ(d.offset, off);
    }
}
