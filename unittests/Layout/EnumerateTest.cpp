//===- EnumerateTest.cpp - The fast paths against brute force -------------===//
//
// isCanonical, applyAll / forEachPlacement, LayoutInverter and span answer
// what the per-element queries answer, but by other means (a check without
// rewriting, an odometer, a search prepared once, a flat list of sums).
// Each is compared here with the brute-force model of BruteForce.h, and with
// the per-element query, over many random layouts: several axes, zero and
// negative strides, replicas, offsets, swizzles, and strides near the int64
// limits.
//
//===----------------------------------------------------------------------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"
#include "RobustnessUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Enumerate.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <tuple>

using namespace axe;
using namespace axe::testing;

namespace {

/// A random layout: swizzled about one time in three, otherwise plain.
Layout randomLayout(LayoutGenerator &gen) {
  return randomInstanceCase(gen, 256, {}).layout;
}

/// Swizzle(M, B, S) (docs/Layout.md) written as bit operations on
/// the whole address: bits [M, M+B) take the XOR of bits [M+S, M+S+B).
int64_t referenceSwizzle(const Swizzle &sw, int64_t m) {
  int64_t mask = (int64_t(1) << sw.swizzleLen) - 1;
  return m ^ (((m >> (sw.perElement + sw.atomLen)) & mask) << sw.perElement);
}

/// L(f) of a possibly swizzled layout, from the definition.
PointSet referencePlacements(const Layout &layout, int64_t flat) {
  PointSet tilePoints = referenceApply(layout.tile(), flat);
  if (!layout.swizzle())
    return tilePoints;
  PointSet out;
  for (Point p : tilePoints) {
    int64_t m = p.count("m") ? p["m"] : 0;
    p.erase("m");
    addTo(p, "m", referenceSwizzle(*layout.swizzle(), m));
    out.insert(p);
  }
  return out;
}

Point densePoint(llvm::ArrayRef<std::string> axes,
                 llvm::ArrayRef<int64_t> values) {
  Point p;
  for (auto [axis, v] : llvm::zip(axes, values))
    addTo(p, axis, v);
  return p;
}

//===----------------------------------------------------------------------===//
// isCanonical
//===----------------------------------------------------------------------===//

/// Whether no canonicalization rule applies, checked rule by rule.
bool noRuleApplies(const TileLayout &l) {
  auto shard = l.shard();
  for (size_t k = 0; k < shard.size(); ++k) {
    if (shard[k].extent == 1)
      return false; // D0
    if (k + 1 < shard.size() && shard[k].axis == shard[k + 1].axis &&
        shard[k].stride == shard[k + 1].extent * shard[k + 1].stride)
      return false; // D1
    if (shard[k].stride == 0 && shard[k].axis != "m")
      return false; // D2
  }
  for (const Iter &r : l.replica()) {
    if (r.extent == 1 || r.stride == 0 || r.stride < 0)
      return false; // C0, C1
    for (const Iter &q : l.replica())
      if (&q != &r && q.axis == r.axis && q.stride % r.stride == 0 &&
          q.stride / r.stride >= 1 && q.stride / r.stride <= r.extent)
        return false; // C2
  }
  return std::is_sorted(l.replica().begin(), l.replica().end(),
                        [](const Iter &a, const Iter &b) {
                          return std::tie(a.axis, a.stride, a.extent) <
                                 std::tie(b.axis, b.stride, b.extent);
                        });
}

TEST(EnumerateProperty, IsCanonicalExactlyWhenNoRuleApplies) {
  LayoutGenerator gen(0xCA11);
  int canonical = 0, notCanonical = 0;
  for (int i = 0; i < 6000; ++i) {
    TileLayout l = gen.layout(256);
    // Half the time its canonical form, so both answers are exercised.
    if (gen.coin())
      l = canonicalize(l);
    bool expected = noRuleApplies(l);
    ASSERT_EQ(isCanonical(l), expected) << l.str();
    (expected ? canonical : notCanonical)++;
    if (expected) {
      ASSERT_EQ(canonicalize(l), l) << l.str();
    }
  }
  EXPECT_GT(canonical, 1000);
  EXPECT_GT(notCanonical, 1000);
}

//===----------------------------------------------------------------------===//
// applyAll and forEachPlacement
//===----------------------------------------------------------------------===//

TEST(EnumerateProperty, ApplyAllMatchesBruteForceAndApply) {
  LayoutGenerator gen(0xA991A11);
  int swizzled = 0, replicated = 0, offset = 0;
  for (int n = 0; n < 4000; ++n) {
    Layout l = randomLayout(gen);
    swizzled += l.isSwizzled();
    replicated += l.tile().replicaCount() > 1;
    offset += !l.tile().offset().empty();
    TileImage image = applyAll(l);
    ASSERT_EQ(image.size(), l.size()) << l.str();
    ASSERT_EQ(image.axes(), llvm::ArrayRef(l.tile().axes())) << l.str();
    for (int64_t f = 0; f < l.size(); ++f) {
      PointSet expected = referencePlacements(l, f);
      PointSet got;
      for (int64_t p = 0; p < image.placementsPerElement(); ++p)
        got.insert(densePoint(image.axes(), image.point(f, p)));
      // The placements of one element are distinct.
      ASSERT_EQ(int64_t(got.size()), image.placementsPerElement())
          << l.str() << " at " << f;
      ASSERT_EQ(got, expected) << l.str() << " at " << f;
      ASSERT_EQ(image.coords(f), l.apply(f)) << l.str() << " at " << f;
    }
  }
  EXPECT_GT(swizzled, 500);
  EXPECT_GT(replicated, 500);
  EXPECT_GT(offset, 500);
}

TEST(EnumerateProperty, ForEachPlacementVisitsInFlatOrder) {
  LayoutGenerator gen(0xF0E);
  for (int n = 0; n < 2000; ++n) {
    Layout l = randomLayout(gen);
    llvm::SmallVector<std::string, 4> axes = pointAxes(l.tile());
    std::vector<PointSet> seen(l.size());
    int64_t last = 0;
    forEachPlacement(l, [&](int64_t flat, llvm::ArrayRef<int64_t> point) {
      ASSERT_GE(flat, last) << l.str();
      ASSERT_LT(flat, l.size()) << l.str();
      last = flat;
      seen[flat].insert(densePoint(axes, point));
    });
    for (int64_t f = 0; f < l.size(); ++f)
      ASSERT_EQ(seen[f], referencePlacements(l, f)) << l.str() << " at " << f;
  }
}

/// Strides and offsets near the int64 limits: the odometer never steps past
/// a coordinate the layout reaches.
TEST(EnumerateProperty, ApplyAllMatchesApplyNearTheInt64Limits) {
  robust::ExtremeGenerator gen(robust::fuzzSeed(0xE7A));
  int checked = 0;
  for (int n = 0; n < 3000; ++n) {
    TileLayout l = gen.extreme(64);
    if (!robust::checkable(l))
      continue;
    ++checked;
    TileImage image = applyAll(Layout(l));
    for (int64_t f = 0; f < l.size(); ++f)
      ASSERT_EQ(image.coords(f), l.apply(f)) << l.str() << " at " << f;
  }
  EXPECT_GT(checked, 1000);
}

//===----------------------------------------------------------------------===//
// LayoutInverter (and Layout::inverse, TileLayout::inverse built on it)
//===----------------------------------------------------------------------===//

/// The smallest flat index whose image holds each point of the image.
std::map<Point, int64_t> referenceInverse(const Layout &l) {
  std::map<Point, int64_t> first;
  for (int64_t f = 0; f < l.size(); ++f)
    for (const Point &p : referencePlacements(l, f))
      first.try_emplace(p, f);
  return first;
}

Coord toCoord(const Point &p) {
  Coord c;
  for (const auto &[axis, v] : p)
    c.set(axis, v);
  return c;
}

TEST(EnumerateProperty, InverterMatchesBruteForce) {
  LayoutGenerator gen(0x1A7E);
  int outside = 0, direct = 0;
  for (int n = 0; n < 3000; ++n) {
    Layout l = randomLayout(gen);
    std::map<Point, int64_t> expected = referenceInverse(l);
    LayoutInverter inverter(l);
    direct += inverter.decodesDirectly();
    ASSERT_EQ(inverter.axes(), llvm::ArrayRef(l.tile().axes())) << l.str();
    for (const auto &[p, f] : expected) {
      Coord c = toCoord(p);
      Result<int64_t> back = inverter.inverse(c);
      ASSERT_TRUE(bool(back)) << l.str() << " at " << c.str();
      ASSERT_EQ(*back, f) << l.str() << " at " << c.str();
      Result<int64_t> perPoint = l.inverse(c);
      ASSERT_TRUE(perPoint && *perPoint == f) << l.str() << " at " << c.str();
      if (!l.isSwizzled()) {
        Result<int64_t> tileBack = l.tile().inverse(c);
        ASSERT_TRUE(tileBack && *tileBack == f) << l.str() << " " << c.str();
      }
      llvm::SmallVector<int64_t, 8> dense;
      for (const std::string &axis : inverter.axes())
        dense.push_back(c.get(axis));
      int64_t flat = -1;
      ASSERT_EQ(inverter.inverse(dense, flat), LayoutInverter::Outcome::Found)
          << l.str() << " at " << c.str();
      ASSERT_EQ(flat, f) << l.str() << " at " << c.str();
    }
    // Points off the image, some on axes the layout does not mention.
    for (int k = 0; k < 20; ++k) {
      Point probe;
      addTo(probe, gen.axis(), gen.uniform(-40, 40));
      addTo(probe, gen.axis(), gen.uniform(-40, 40));
      bool inImage = expected.count(probe);
      outside += !inImage;
      Result<int64_t> back = inverter.inverse(toCoord(probe));
      ASSERT_EQ(bool(back), inImage)
          << l.str() << " at " << toCoord(probe).str();
      if (inImage) {
        ASSERT_EQ(*back, expected[probe]) << l.str();
      } else {
        ASSERT_FALSE(back.message().empty());
      }
    }
  }
  EXPECT_GT(outside, 10000);
  // Both the direct decoding and the search are exercised.
  EXPECT_GT(direct, 500);
  EXPECT_LT(direct, 2500);
}

/// A layout the inverter decodes directly: on each axis a chain of strides,
/// each above the reach of the smaller ones (exactly the next radix or with
/// a gap), of either sign, split between shard and replica and shuffled;
/// plus zero-stride iters, an offset and, one time in three, a swizzle.
Layout randomMixedRadix(LayoutGenerator &gen) {
  IterList shard, replica;
  int64_t size = 1, copies = 1;
  static const char *axes[] = {"m", "laneid", "warpid", "P"};
  // One chain per axis: two would overlap.
  llvm::SmallVector<const char *, 4> chained(std::begin(axes), std::end(axes));
  std::shuffle(chained.begin(), chained.end(), gen.engine());
  int numAxes = int(gen.uniform(1, 3));
  for (int a = 0; a < numAxes; ++a) {
    std::string axis = chained[a];
    int64_t first = gen.uniform(1, 3), stride = first, reach = 0;
    int chain = int(gen.uniform(1, 3));
    for (int i = 0; i < chain; ++i) {
      int64_t extent = gen.uniform(2, 4);
      Iter it{extent, gen.coin(0.25) ? -stride : stride, axis};
      if (gen.coin(0.3) && copies * extent <= 8) {
        copies *= extent;
        replica.push_back(it);
      } else if (size * extent <= 128) {
        size *= extent;
        shard.push_back(it);
      }
      reach += (extent - 1) * stride;
      stride = reach + (gen.coin() ? first : gen.uniform(1, 3));
    }
  }
  if (gen.coin(0.3) && size <= 64) {
    int64_t extent = gen.uniform(2, 3);
    size *= extent;
    shard.push_back({extent, 0, axes[gen.uniform(0, 3)]});
  }
  std::shuffle(shard.begin(), shard.end(), gen.engine());
  Coord offset;
  if (gen.coin(0.5))
    offset.add(axes[gen.uniform(0, 3)], gen.uniform(-8, 8));
  TileLayout tile = *TileLayout::create(shard, replica, offset);
  if (gen.coin(0.3)) {
    int b = int(gen.uniform(0, 2));
    return Layout(
        *Swizzle::create(int(gen.uniform(0, 2)), b, int(gen.uniform(b, 3))),
        tile);
  }
  return Layout(tile);
}

/// Every point of the bounding box of the image (gaps between the strides
/// included) and a margin around it, against brute force, through the dense
/// and the Coord queries.
TEST(EnumerateProperty, DirectDecodingMatchesBruteForce) {
  LayoutGenerator gen(0xD1EC7);
  int inImage = 0, offImage = 0, negative = 0, replicated = 0, swizzled = 0;
  for (int n = 0; n < 3000; ++n) {
    Layout l = randomMixedRadix(gen);
    LayoutInverter inverter(l);
    ASSERT_TRUE(inverter.decodesDirectly()) << l.str();
    negative += llvm::any_of(l.tile().shard(),
                             [](const Iter &it) { return it.stride < 0; });
    replicated += l.tile().replicaCount() > 1;
    swizzled += l.isSwizzled();
    std::map<Point, int64_t> expected = referenceInverse(l);
    llvm::ArrayRef<std::string> axes = inverter.axes();
    // The box, per axis, from the points of the image.
    llvm::SmallVector<int64_t, 4> lo(axes.size(), INT64_MAX),
        hi(axes.size(), INT64_MIN);
    for (const auto &[p, f] : expected)
      for (size_t a = 0; a < axes.size(); ++a) {
        int64_t v = p.count(axes[a]) ? p.at(axes[a]) : 0;
        lo[a] = std::min(lo[a], v - 2);
        hi[a] = std::max(hi[a], v + 2);
      }
    int64_t boxSize = 1;
    for (size_t a = 0; a < axes.size(); ++a)
      boxSize *= hi[a] - lo[a] + 1;
    if (boxSize > 20000)
      continue;
    llvm::SmallVector<int64_t, 4> dense(lo.begin(), lo.end());
    for (int64_t i = 0; i < boxSize; ++i) {
      Point p = densePoint(axes, dense);
      auto it = expected.find(p);
      int64_t flat = -1;
      LayoutInverter::Outcome o = inverter.inverse(dense, flat);
      Result<int64_t> back = inverter.inverse(toCoord(p));
      if (it == expected.end()) {
        ++offImage;
        ASSERT_EQ(o, LayoutInverter::Outcome::NotInImage)
            << l.str() << " at " << toCoord(p).str();
        ASSERT_FALSE(bool(back)) << l.str() << " at " << toCoord(p).str();
      } else {
        ++inImage;
        ASSERT_EQ(o, LayoutInverter::Outcome::Found)
            << l.str() << " at " << toCoord(p).str();
        ASSERT_EQ(flat, it->second) << l.str() << " at " << toCoord(p).str();
        ASSERT_TRUE(back && *back == it->second)
            << l.str() << " at " << toCoord(p).str();
        Result<int64_t> perPoint = l.inverse(toCoord(p));
        ASSERT_TRUE(perPoint && *perPoint == it->second)
            << l.str() << " at " << toCoord(p).str();
      }
      // The next point of the box (an odometer over the axes).
      for (size_t a = axes.size(); a-- > 0;) {
        if (++dense[a] <= hi[a])
          break;
        dense[a] = lo[a];
      }
    }
  }
  EXPECT_GT(inImage, 100000);
  EXPECT_GT(offImage, 100000);
  EXPECT_GT(negative, 500);
  EXPECT_GT(replicated, 500);
  EXPECT_GT(swizzled, 500);
}

/// Which layouts are decoded directly: a stride at or below the reach of
/// the smaller ones on its axis sends the inverter to the search.
TEST(Enumerate, DirectDecodingOnlyForUniqueDigits) {
  auto directly = [](llvm::StringRef text) {
    Result<Layout> l = parseLayout(text);
    EXPECT_TRUE(bool(l)) << text.str();
    return LayoutInverter(*l).decodesDirectly();
  };
  EXPECT_TRUE(directly("S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]"));
  EXPECT_TRUE(directly("SW(3, 3, 3) o S[(128, 64) : (64, 1)]"));
  EXPECT_TRUE(directly("S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] "
                       "+ R[2 : 4@warpid] + 5@warpid"));
  EXPECT_TRUE(directly("S[(4, 3) : (-1, 5)] + R[2 : 17] + 3"));
  EXPECT_TRUE(directly("S[(4, 3) : (0, 1)]"));
  EXPECT_FALSE(directly("S[(4, 4) : (1, 3)]"));
  EXPECT_FALSE(directly("S[(4, 4) : (1, -2)]"));
  EXPECT_FALSE(directly("S[4 : 1] + R[2 : 1]"));
  EXPECT_FALSE(directly("S[(2, 2) : (1, 1)]"));
}

TEST(EnumerateProperty, InverterMatchesApplyNearTheInt64Limits) {
  robust::ExtremeGenerator gen(robust::fuzzSeed(0x1E7));
  int checked = 0, direct = 0;
  for (int n = 0; n < 2000; ++n) {
    TileLayout l = gen.extreme(64);
    if (!robust::checkable(l))
      continue;
    ++checked;
    LayoutInverter inverter(l);
    direct += inverter.decodesDirectly();
    for (int64_t f = 0; f < l.size(); ++f)
      for (const Coord &c : l.apply(f)) {
        Result<int64_t> back = inverter.inverse(c);
        ASSERT_TRUE(bool(back)) << l.str() << ": " << back.message();
        ASSERT_LE(*back, f) << l.str();
        ASSERT_TRUE(toPointSet(l.apply(*back)).count(toPoint(c))) << l.str();
      }
    Coord far;
    far.set("m", robust::kMin);
    far.set("laneid", robust::kMax);
    EXPECT_FALSE(bool(inverter.inverse(far))) << l.str();
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(direct, 100);
}

/// Strides and offsets near the int64 limits, decoded directly: the
/// remainder is taken from the lowest coordinate in unsigned arithmetic.
TEST(Enumerate, DirectDecodingNearTheInt64Limits) {
  const int64_t big = int64_t(1) << 61;
  for (const char *text :
       {"S[(2, 3) : (-1@P, 2305843009213693952@P)] + -4611686018427387896@P",
        "S[(4, 2) : (-2305843009213693952, 1)] + 2305843009213693949",
        "S[(2, 2) : (-4611686018427387904, 2305843009213693952)] + R[2 : 1] "
        "+ 2305843009213693948"}) {
    TileLayout l = parseOrDie(text);
    LayoutInverter inverter(l);
    ASSERT_TRUE(inverter.decodesDirectly()) << text;
    std::map<Point, int64_t> first;
    for (int64_t f = 0; f < l.size(); ++f)
      for (const Coord &c : l.apply(f))
        first.try_emplace(toPoint(c), f);
    for (const auto &[p, f] : first) {
      Result<int64_t> back = inverter.inverse(toCoord(p));
      ASSERT_TRUE(back && *back == f) << text << " at " << toCoord(p).str();
      // Neighbours and far points are off the image.
      for (int64_t delta : {int64_t(1), int64_t(-1), big / 2}) {
        Point q = p;
        const std::string &axis = inverter.axes().front();
        int64_t v = q.count(axis) ? q[axis] : 0;
        if (__builtin_add_overflow(v, delta, &v))
          continue;
        q.erase(axis);
        addTo(q, axis, v);
        ASSERT_EQ(bool(inverter.inverse(toCoord(q))), first.count(q) > 0)
            << text << " at " << toCoord(q).str();
      }
    }
  }
}

TEST(Enumerate, InverterExplainsWhatIsNotInTheImage) {
  TileLayout l = parseOrDie("S[(4, 8) : (1@laneid, 2)] + 3@warpid");
  LayoutInverter inverter(l);
  Result<int64_t> back = inverter.inverse(coord({{"m", 2}, {"warpid", 3}}));
  ASSERT_TRUE(bool(back)) << back.message();
  EXPECT_EQ(*back, 1);
  Result<int64_t> odd = inverter.inverse(coord({{"m", 3}, {"warpid", 3}}));
  ASSERT_FALSE(bool(odd));
  EXPECT_NE(odd.message().find("not in the image"), std::string::npos)
      << odd.message();
}

//===----------------------------------------------------------------------===//
// Span
//===----------------------------------------------------------------------===//

TEST(EnumerateProperty, SpanIsTheExtentOfEveryPlacement) {
  LayoutGenerator gen(0x5BA);
  for (int n = 0; n < 3000; ++n) {
    TileLayout l = gen.layout(256);
    // Each iter moves its axis independently, so max - min over all
    // placements is exactly sum (e-1)|s| per axis.
    std::map<std::string, std::pair<int64_t, int64_t>> range;
    for (const std::string &axis : l.axes())
      range[axis] = {INT64_MAX, INT64_MIN};
    for (int64_t f = 0; f < l.size(); ++f)
      for (const Point &p : referenceApply(l, f))
        for (auto &[axis, r] : range) {
          int64_t v = p.count(axis) ? p.at(axis) : 0;
          r = {std::min(r.first, v), std::max(r.second, v)};
        }
    Coord span = l.span();
    ASSERT_EQ(span.entries().size(), range.size()) << l.str();
    for (const auto &[axis, r] : range) {
      ASSERT_EQ(span.get(axis), r.second - r.first + 1)
          << l.str() << " on " << axis;
      ASSERT_EQ(l.span(axis), r.second - r.first + 1) << l.str();
    }
  }
}

} // namespace
