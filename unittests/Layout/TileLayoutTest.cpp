//===- TileLayoutTest.cpp - Construction, apply, inverse, span, notation --===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/TileLayout.h"

#include "gtest/gtest.h"

#include <map>

using namespace axe;
using namespace axe::testing;

namespace {

const char *kSeedExample =
    "S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + "
    "5@warpid";

// Coord keeps its entries in a sorted small vector; a std::map from axis
// names to values is the model it must agree with: the same entries in
// the same order, zeros left out, and the same == and < between coords.
using AxisMap = std::map<std::string, int64_t>;

AxisMap asMap(const Coord &c) {
  return AxisMap(c.entries().begin(), c.entries().end());
}

TEST(Coord, AgreesWithAMapModel) {
  const char *axes[] = {"m", "laneid", "warpid", "a", "gpuid", "m2", "TLane"};
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  auto random = [&](AxisMap &model) {
    Coord c;
    for (int op = 0, ops = int(next() % 12); op < ops; ++op) {
      std::string axis = axes[next() % 7];
      int64_t v = int64_t(next() % 5) - 2;
      if (next() % 2) {
        c.add(axis, v);
        if ((model[axis] += v) == 0)
          model.erase(axis);
      } else {
        c.set(axis, v);
        if (v == 0)
          model.erase(axis);
        else
          model[axis] = v;
      }
    }
    return c;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    AxisMap ma, mb;
    Coord a = random(ma), b = random(mb);
    ASSERT_EQ(asMap(a), ma);
    ASSERT_EQ(a.entries().size(), ma.size());
    for (const char *axis : axes)
      ASSERT_EQ(a.get(axis), ma.count(axis) ? ma.at(axis) : 0);
    EXPECT_EQ(a == b, ma == mb);
    EXPECT_EQ(a < b, ma < mb) << a.str() << " vs " << b.str();
    AxisMap sum = ma;
    for (const auto &[axis, v] : mb)
      if ((sum[axis] += v) == 0)
        sum.erase(axis);
    ASSERT_EQ(asMap(a + b), sum);
  }
}

TEST(TileLayout, SeedExampleElement) {
  TileLayout l = parseOrDie(kSeedExample);
  auto images = l.apply({2, 9}, {8, 16});
  ASSERT_TRUE(bool(images)) << images.message();
  ASSERT_EQ(images->size(), 2u);
  EXPECT_EQ((*images)[0], coord({{"warpid", 6}, {"laneid", 8}, {"m", 1}}));
  EXPECT_EQ((*images)[1], coord({{"warpid", 10}, {"laneid", 8}, {"m", 1}}));
}

TEST(TileLayout, SeedExampleFormula) {
  // laneid = 4i + (j div 2) mod 4, warpid = j div 8 + 5 + 4r, m = j mod 2.
  TileLayout l = parseOrDie(kSeedExample);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 16; ++j) {
      auto images = l.apply({i, j}, {8, 16});
      ASSERT_TRUE(bool(images));
      PointSet expected;
      for (int64_t r = 0; r < 2; ++r)
        expected.insert(toPoint(coord({{"laneid", 4 * i + (j / 2) % 4},
                                       {"warpid", j / 8 + 5 + 4 * r},
                                       {"m", j % 2}})));
      EXPECT_EQ(toPointSet(*images), expected) << i << "," << j;
    }
}

TEST(TileLayout, PrintFollowsTheNotation) {
  EXPECT_EQ(parseOrDie(kSeedExample).str(), kSeedExample);
  EXPECT_EQ(parseOrDie("S[4096:1@m]").str(), "S[4096 : 1]");
  EXPECT_EQ(parseOrDie("S[(4):(2)] + R[(1):(0)] + 0@m + 3 + -1@tx").str(),
            "S[4 : 2] + R[1 : 0] + 3 + -1@tx");
  EXPECT_EQ(parseOrDie("S[() : ()]").str(), "S[() : ()]");
  EXPECT_EQ(TileLayout().str(), "S[() : ()]");
}

TEST(TileLayout, SizeAndSpan) {
  TileLayout l = parseOrDie("S[(8, 6) : (8, 1)]");
  EXPECT_EQ(l.size(), 48);
  EXPECT_EQ(l.span("m"), 62);
  TileLayout f = parseOrDie("S[(8, 8, 8) : (64@F, 1@P, 1@F)]");
  EXPECT_EQ(f.span("F"), 456);
  EXPECT_EQ(f.span("P"), 8);
  EXPECT_EQ(f.span(), coord({{"F", 456}, {"P", 8}}));
  // Negative and replica strides count by magnitude; offsets do not count.
  TileLayout n = parseOrDie("S[4 : -3] + R[2 : 5] + 100");
  EXPECT_EQ(n.span("m"), 1 + 9 + 5);
}

TEST(TileLayout, InverseOfSeedExample) {
  TileLayout l = parseOrDie(kSeedExample);
  auto x = l.inverse(coord({{"laneid", 8}, {"warpid", 6}, {"m", 1}}), {8, 16});
  ASSERT_TRUE(bool(x)) << x.message();
  EXPECT_EQ(*x, Shape({2, 9}));
  auto y = l.inverse(coord({{"laneid", 8}, {"warpid", 10}, {"m", 1}}), {8, 16});
  ASSERT_TRUE(bool(y));
  EXPECT_EQ(*y, Shape({2, 9}));
  auto none = l.inverse(coord({{"laneid", 8}, {"warpid", 8}, {"m", 1}}));
  EXPECT_FALSE(bool(none));
  EXPECT_NE(none.message().find("not in the image"), std::string::npos);
}

TEST(TileLayout, ParseErrorsSayWhere) {
  struct Case {
    const char *text;
    const char *fragment;
  } cases[] = {
      {"", "expected a shard"},
      {"S[(2, 3) : (1)]", "2 extents but 1 strides"},
      {"S[4 : 1@]", "axis name"},
      {"S[0 : 1]", "extent 0"},
      {"S[4 : 1] + R[2 : 1] + R[2 : 1]", "at most one replica"},
      {"S[4 : 1] + 3 + R[2 : 1]", "before the offsets"},
      {"S[4 : 1] junk", "unexpected"},
      {"S[99999999999999999999 : 1]", "does not fit in int64"},
      {"S[(4, 4 : (1, 4)]", "expected ')'"},
      {"S[(3037000500, 3037000500) : (1, 1)]", "overflows"},
      {"S[2 : 9223372036854775807]", "overflows int64"},
      {"S[2 : 1] + 9223372036854775807", "int64 range"},
  };
  for (const Case &c : cases) {
    Result<TileLayout> l = parseTileLayout(c.text);
    ASSERT_FALSE(bool(l)) << c.text;
    EXPECT_NE(l.message().find(c.fragment), std::string::npos)
        << c.text << " -> " << l.message();
  }
}

TEST(TileLayout, CreateRejectsBadIters) {
  EXPECT_FALSE(bool(TileLayout::create({{0, 1, "m"}})));
  EXPECT_FALSE(bool(TileLayout::create({{2, 1, "9x"}})));
  EXPECT_FALSE(bool(TileLayout::create({{2, 1, "m"}}, {{-1, 1, "m"}})));
  EXPECT_FALSE(bool(TileLayout::create({{2, INT64_MIN, "m"}})));
}

TEST(TileLayout, ShapeHelpers) {
  EXPECT_EQ(*shapeSize({8, 16}), 128);
  EXPECT_FALSE(bool(shapeSize({8, 0})));
  EXPECT_FALSE(bool(shapeSize({INT64_MAX, 2})));
  EXPECT_EQ(*flattenCoord({2, 9}, {8, 16}), 41);
  EXPECT_FALSE(bool(flattenCoord({8, 0}, {8, 16})));
  EXPECT_FALSE(bool(flattenCoord({1}, {8, 16})));
  EXPECT_EQ(unflattenIndex(41, {8, 16}), Shape({2, 9}));
  EXPECT_FALSE(parseOrDie("S[8 : 1]").admits({3, 3}));
}

//===----------------------------------------------------------------------===//
// Properties against the reference model
//===----------------------------------------------------------------------===//

TEST(TileLayoutProperty, ApplyMatchesReference) {
  LayoutGenerator gen(0xA11CE);
  for (int n = 0; n < 3000; ++n) {
    TileLayout l = gen.layout();
    for (int64_t f = 0; f < l.size(); ++f)
      ASSERT_EQ(toPointSet(l.apply(f)), referenceApply(l, f))
          << l.str() << " at " << f;
  }
}

TEST(TileLayoutProperty, ParsePrintRoundTrip) {
  LayoutGenerator gen(0xB0B);
  for (int n = 0; n < 5000; ++n) {
    TileLayout l = gen.layout();
    Result<TileLayout> back = parseTileLayout(l.str());
    ASSERT_TRUE(bool(back)) << l.str() << ": " << back.message();
    ASSERT_EQ(*back, l) << l.str() << " reparsed as " << back->str();
  }
}

TEST(TileLayoutProperty, InverseOfApply) {
  LayoutGenerator gen(0xC0FFEE);
  for (int n = 0; n < 3000; ++n) {
    TileLayout l = gen.layout();
    for (int64_t f = 0; f < l.size(); ++f)
      for (const Coord &image : l.apply(f)) {
        Result<int64_t> back = l.inverse(image);
        ASSERT_TRUE(bool(back)) << l.str() << ": " << back.message();
        // A non-injective layout may answer another index with the same
        // image; the contract is that the answer reaches `image`.
        if (*back != f)
          ASSERT_TRUE(referenceApply(l, *back).count(toPoint(image)))
              << l.str() << " f=" << f << " back=" << *back;
        else
          SUCCEED();
      }
  }
}

TEST(TileLayoutProperty, InverseRejectsPointsOutsideTheImage) {
  LayoutGenerator gen(0xD00D);
  for (int n = 0; n < 1000; ++n) {
    TileLayout l = gen.layout();
    PointSet image;
    for (int64_t f = 0; f < l.size(); ++f)
      for (const Point &p : referenceApply(l, f))
        image.insert(p);
    for (int k = 0; k < 20; ++k) {
      Coord probe;
      probe.add(gen.axis(), gen.uniform(-40, 40));
      probe.add(gen.axis(), gen.uniform(-40, 40));
      bool inImage = image.count(toPoint(probe));
      Result<int64_t> back = l.inverse(probe);
      ASSERT_EQ(bool(back), inImage) << l.str() << " at " << probe.str();
    }
  }
}

} // namespace
