//===- PlacementTest.cpp - Shared places and thread-axis conflicts --------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Placement.h"

#include "gtest/gtest.h"

using namespace axe;
using namespace axe::testing;

namespace {

/// Whether two different elements of `layout` have a placement in common,
/// from the enumerated map.
bool referenceSharesPlace(const TileLayout &layout) {
  std::map<Point, int64_t> owner;
  for (int64_t f = 0; f < layout.size(); ++f)
    for (const Point &p : referenceApply(layout, f)) {
      auto [it, inserted] = owner.try_emplace(p, f);
      if (!inserted && it->second != f)
        return true;
    }
  return false;
}

TEST(SharedPlace, AgreesWithEnumeration) {
  LayoutGenerator gen(20261129);
  int shared = 0;
  for (int i = 0; i < 4000; ++i) {
    TileLayout l = gen.layout(128);
    std::optional<SharedPlace> found = findSharedPlace(l);
    ASSERT_EQ(found.has_value(), referenceSharesPlace(l)) << l.str();
    if (!found)
      continue;
    ++shared;
    // The witness is real: two different elements, both placed at `at`.
    EXPECT_LT(found->first, found->second) << l.str();
    Point at = toPoint(found->at);
    EXPECT_TRUE(referenceApply(l, found->first).count(at)) << l.str();
    EXPECT_TRUE(referenceApply(l, found->second).count(at)) << l.str();
  }
  // The generator's zero strides and overlapping iters make both outcomes
  // common; a test that only saw one would prove little.
  EXPECT_GT(shared, 400);
  EXPECT_LT(shared, 3600);
}

TEST(SharedPlace, Examples) {
  EXPECT_FALSE(findSharedPlace(parseOrDie("S[(8, 4) : (4, 1)]")));
  EXPECT_FALSE(findSharedPlace(parseOrDie("S[(8, 4) : (-4, 1)] + 7")));
  // Replicas that repeat elements elsewhere share nothing.
  EXPECT_FALSE(
      findSharedPlace(parseOrDie("S[(2, 4) : (2@tx, 1)] + R[2 : 3@tx]")));
  EXPECT_FALSE(
      findSharedPlace(parseOrDie("S[32 : 1@laneid] + R[4 : 1@warpid]")));

  std::optional<SharedPlace> p =
      findSharedPlace(parseOrDie("S[(8, 2) : (1@tx, 1@tx)]"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first, 1);  // (0, 1)
  EXPECT_EQ(p->second, 2); // (1, 0)
  EXPECT_EQ(p->at.str(), "{tx: 1}");

  p = findSharedPlace(parseOrDie("S[2 : 1] + R[2 : 1] + 5"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at.str(), "{m: 6}");
}

TEST(SharedPlace, LargeNestedAxesNeedNoEnumeration) {
  // 2^40 elements on m whose digits nest: decided without enumerating.
  EXPECT_FALSE(
      findSharedPlace(parseOrDie("S[(1048576, 1048576) : (1048576, 1)]")));
  // A stride of 0 is found however large the rest.
  EXPECT_TRUE(findSharedPlace(parseOrDie("S[(2, 16) : (0, 1)]")));
}

TEST(SharedPlace, NearTheInt64Limits) {
  // fuzz/regressions/opt/shared-place-digit-overflow: walking the digits
  // formed 2 x 2^62 past the last one (UBSan); the digits nest.
  EXPECT_FALSE(findSharedPlace(parseOrDie(
      "S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 4611686018427387904)]")));
  std::optional<SharedPlace> p = findSharedPlace(parseOrDie(
      "S[(2, 2, 2) : (2305843009213693952, 2305843009213693952, 1)]"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first, 2);  // (0, 1, 0)
  EXPECT_EQ(p->second, 4); // (1, 0, 0)
  EXPECT_EQ(p->at.str(), "{m: 2305843009213693952}");
}

TEST(ThreadAxesDistinct, WholeAndPart) {
  EXPECT_TRUE(bool(checkThreadAxesDistinct(
      parseOrDie("S[(2, 8, 4) : (1@warpid, 4@laneid, 1@laneid)]"))));
  EXPECT_TRUE(bool(checkThreadAxesDistinct(
      parseOrDie("S[(4, 32) : (1@wid_in_wg, 1@laneid)] + R[2 : 1@wgid]"))));
  Result<bool> r =
      checkThreadAxesDistinct(parseOrDie("S[(8, 2) : (1@tx, 1@warpid)]"));
  ASSERT_FALSE(bool(r));
  EXPECT_NE(r.message().find("'tx' and 'warpid'"), std::string::npos)
      << r.message();
  // An offset names its axis as much as an iter does.
  EXPECT_FALSE(bool(
      checkThreadAxesDistinct(parseOrDie("S[4 : 1@laneid] + 3@tid_in_wg"))));
}

} // namespace
