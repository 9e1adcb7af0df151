//===- RobustAlgebraTest.cpp - Robustness of the layout algebra -----------===//
//
// Canonical form, equivalence, group, tile, direct sum, their inverses and
// slice on extreme arguments: each call fails with a message or returns a
// result the brute force confirms. See RobustnessUtil.h.
//
//===----------------------------------------------------------------------===//

#include "LayoutTestUtil.h"
#include "RobustnessUtil.h"

#include "axe/Layout/Algebra.h"

#include "gtest/gtest.h"

using namespace axe;
using namespace axe::testing;
using namespace axe::testing::robust;

namespace {

//===----------------------------------------------------------------------===//
// (b) Canonical form, equivalence and group
//===----------------------------------------------------------------------===//

TEST(RobustAlgebra, CanonicalizeAndEquivalence) {
  ExtremeGenerator gen(fuzzSeed(1301));
  for (int n = 0; n < 3000; ++n) {
    TileLayout a = gen.extreme(), b = gen.coin() ? gen.extreme() : a;
    if (gen.coin(0.3)) // same map, other form
      b = canonicalize(a);
    SCOPED_TRACE(a.str() + " vs " + b.str());
    TileLayout ca = canonicalize(a);
    ASSERT_TRUE(sameMap(ca, a));
    EXPECT_EQ(canonicalize(ca), ca);
    (void)satisfiesGapCondition(a);
    Result<bool> same = equivalent(a, b);
    expectReason(same, "equivalent");
    if (same && checkable(a) && checkable(b)) {
      bool reference = a.size() == b.size();
      for (int64_t f = 0; reference && f < a.size(); ++f)
        reference = referenceApply(a, f) == referenceApply(b, f);
      EXPECT_EQ(*same, reference);
    }
  }
}

TEST(RobustAlgebra, Group) {
  ExtremeGenerator gen(fuzzSeed(1302));
  for (int n = 0; n < 3000; ++n) {
    TileLayout l = gen.extreme();
    Shape shape = gen.shape(l.size());
    SCOPED_TRACE(ctx(l, shape));
    Result<GroupedLayout> g = group(l, shape);
    expectReason(g, "group");
    if (!g)
      continue;
    ASSERT_EQ(g->blockSizes.size(), shape.size());
    EXPECT_TRUE(sameMap(g->layout, l));
    for (unsigned d = 0; d < shape.size(); ++d) {
      int64_t product = 1;
      for (const Iter &it : g->block(d))
        product *= it.extent;
      EXPECT_EQ(product, shape[d]);
      (void)g->dimContribution(d, shape[d] - 1);
    }
  }
}

//===----------------------------------------------------------------------===//
// (b) tile, direct sum and their inverses
//===----------------------------------------------------------------------===//

/// Checks result(xB * SA + xA) == scale(B(xB)) + A(xA) on every (sampled)
/// element.
::testing::AssertionResult
satisfiesCombine(const TileLayout &result, const TileLayout &inner,
                 llvm::ArrayRef<int64_t> innerShape, const TileLayout &outer,
                 llvm::ArrayRef<int64_t> outerShape, bool scaled) {
  if (!fewReplicas(result) || !fewReplicas(inner) || !fewReplicas(outer))
    return ::testing::AssertionSuccess();
  std::map<std::string, Big> scale;
  if (scaled)
    scale = bigSpan(inner);
  Vec sa = vec(innerShape), sb = vec(outerShape), shape;
  for (size_t d = 0; d < sa.size(); ++d)
    shape.push_back(sa[d] * sb[d]); // result admits it: no overflow.
  if (Big(result.size()) != Big(inner.size()) * outer.size())
    return ::testing::AssertionFailure() << "size " << result.size();
  for (int64_t f : samples(result.size())) {
    Vec x = referenceUnflatten(f, shape), xa(x.size()), xb(x.size());
    for (size_t d = 0; d < x.size(); ++d) {
      xa[d] = x[d] % sa[d];
      xb[d] = x[d] / sa[d];
    }
    BigSet expected;
    for (const BigPoint &b : bigApply(outer, referenceFlatten(xb, sb)))
      for (const BigPoint &a : bigApply(inner, referenceFlatten(xa, sa))) {
        BigPoint p = a;
        for (const auto &[axis, v] : b) {
          auto it = scale.find(axis);
          addBig(p, axis, v * (it == scale.end() ? 1 : it->second));
        }
        expected.insert(p);
      }
    if (bigApply(result, f) != expected)
      return ::testing::AssertionFailure()
             << result.str() << " differs from its operands " << inner.str()
             << " and " << outer.str() << " at flat index " << f;
  }
  return ::testing::AssertionSuccess();
}

/// How many calls answered (so the checks are known to run).
struct Answered {
  int combined = 0, outers = 0, inners = 0;
};

void checkCombineAndInverses(ExtremeGenerator &gen, bool scaled,
                             Answered &answered) {
  auto combine = scaled ? tile : directSum;
  auto outerOf = scaled ? tileOf : directSumOuterOf;
  auto innerOf = scaled ? tileOfOuter : directSumInnerOf;
  TileLayout a = gen.extreme(16), b = gen.extreme(16);
  Shape sa = gen.shape(a.size()), sb = gen.shape(b.size());
  if (gen.coin(0.7) && sa.size() != sb.size() && !sa.empty() &&
      !sb.empty()) { // mostly equal ranks, padding with 1s
    while (sa.size() < sb.size())
      sa.push_back(1);
    while (sb.size() < sa.size())
      sb.push_back(1);
  }
  std::string context =
      ctx(a, sa) + " with " + ctx(b, sb) + (scaled ? " (tile)" : " (sum)");
  SCOPED_TRACE(context);
  Result<TileLayout> t = combine(a, sa, b, sb);
  expectReason(t, "combine");
  if (t) {
    ++answered.combined;
    EXPECT_TRUE(satisfiesCombine(*t, a, sa, b, sb, scaled));
  }

  // The inverses, on the combination (when there is one) or on an unrelated
  // layout and shape.
  TileLayout whole = t && gen.coin(0.8) ? *t : gen.extreme(256);
  Shape shape;
  if (t && whole == *t && sa.size() == sb.size() && gen.coin(0.8))
    for (size_t d = 0; d < sa.size(); ++d)
      shape.push_back(sa[d] * sb[d]);
  else
    shape = gen.shape(whole.size());
  Shape innerShape = gen.coin(0.7) ? sa : gen.divisorShape(shape);
  Shape outerShape = gen.coin(0.7) ? sb : gen.divisorShape(shape);
  SCOPED_TRACE("whole " + ctx(whole, shape));
  Result<TileLayout> outer = outerOf(whole, shape, a, innerShape);
  expectReason(outer, "outer of");
  if (outer) {
    ++answered.outers;
    Shape q;
    for (size_t d = 0; d < shape.size(); ++d)
      q.push_back(shape[d] / innerShape[d]);
    EXPECT_TRUE(satisfiesCombine(whole, a, innerShape, *outer, q, scaled))
        << "outer " << outer->str();
  }
  Result<TileLayout> inner = innerOf(whole, shape, b, outerShape);
  expectReason(inner, "inner of");
  if (inner) {
    ++answered.inners;
    Shape q;
    for (size_t d = 0; d < shape.size(); ++d)
      q.push_back(shape[d] / outerShape[d]);
    EXPECT_TRUE(satisfiesCombine(whole, *inner, q, b, outerShape, scaled))
        << "inner " << inner->str();
  }
}

TEST(RobustAlgebra, TileAndInverses) {
  ExtremeGenerator gen(fuzzSeed(1401));
  Answered answered;
  for (int n = 0; n < 2000; ++n) {
    checkCombineAndInverses(gen, /*scaled=*/true, answered);
    if (::testing::Test::HasFailure())
      return;
  }
  EXPECT_GT(answered.combined, 200);
  EXPECT_GT(answered.outers, 100);
  EXPECT_GT(answered.inners, 100);
}

TEST(RobustAlgebra, DirectSumAndInverses) {
  ExtremeGenerator gen(fuzzSeed(1402));
  Answered answered;
  for (int n = 0; n < 2000; ++n) {
    checkCombineAndInverses(gen, /*scaled=*/false, answered);
    if (::testing::Test::HasFailure())
      return;
  }
  EXPECT_GT(answered.combined, 200);
  EXPECT_GT(answered.outers, 100);
  EXPECT_GT(answered.inners, 100);
}

TEST(RobustAlgebra, TileOverflowsOnlyAfterScaling) {
  // Each operand is fine; scaled by the inner span 2^31 + 1 the outer
  // stride 2^32 leaves int64.
  TileLayout inner = parseOrDie("S[2 : 2147483648]");
  TileLayout outer = parseOrDie("S[2 : 4294967296]");
  Result<TileLayout> t = tile(inner, {2}, outer, {2});
  ASSERT_FALSE(bool(t));
  EXPECT_NE(t.message().find("overflow"), std::string::npos) << t.message();
  // The scaled strides fit but their reach does not.
  outer = parseOrDie("S[(2, 2) : (2147483648, 2147483648)]");
  t = tile(inner, {2}, outer, {4});
  EXPECT_FALSE(bool(t)) << t->str();
  // Only the outer offset overflows when scaled.
  outer = parseOrDie("S[1 : 0] + 4294967296");
  t = tile(inner, {2}, outer, {1});
  EXPECT_FALSE(bool(t)) << t->str();
  // Replicas too.
  outer = parseOrDie("S[1 : 0] + R[2 : 4294967296]");
  t = tile(inner, {2}, outer, {1});
  EXPECT_FALSE(bool(t)) << t->str();
  // The direct sum does not scale, so it fits.
  t = directSum(inner, {2}, parseOrDie("S[2 : 4294967296]"), {2});
  ASSERT_TRUE(bool(t)) << t.message();
  EXPECT_TRUE(satisfiesCombine(*t, inner, {2}, parseOrDie("S[2 : 4294967296]"),
                               {2}, false));
}

TEST(RobustAlgebra, CombineArgumentChecks) {
  TileLayout a = parseOrDie("S[(2, 2) : (2, 1)]");
  for (auto [sa, sb] :
       std::vector<std::pair<Vec, Vec>>{{{2, 2}, {4}},
                                        {{4}, {2, 2}},
                                        {{0, 4}, {2, 2}},
                                        {{-2, -2}, {2, 2}},
                                        {{4}, {kMax}},
                                        {{kMin}, {4}},
                                        {{}, {}},
                                        {{4, 1}, {4, 1}},
                                        {{2, 2, 1}, {2, 2, 1}}}) {
    for (auto op : {tile, directSum}) {
      Result<TileLayout> t = op(a, sa, a, sb);
      expectReason(t, shapeStr(sa) + " " + shapeStr(sb));
      if (t) {
        EXPECT_TRUE(satisfiesCombine(*t, a, sa, a, sb, op == tile));
      }
    }
    for (auto op : {tileOf, tileOfOuter, directSumOuterOf, directSumInnerOf})
      expectReason(op(a, sa, a, sb), shapeStr(sa) + " " + shapeStr(sb));
  }
}

//===----------------------------------------------------------------------===//
// (b) slice
//===----------------------------------------------------------------------===//

/// Checks sliced(y) + extra == layout(lo + y) for every y of the region.
::testing::AssertionResult satisfiesSlice(const TileLayout &sliced,
                                          const TileLayout &layout,
                                          const Vec &shape, const Vec &lo,
                                          const Vec &lengths,
                                          const BigPoint &extra) {
  if (::testing::AssertionResult sized = hasBoxSize(sliced, lengths); !sized)
    return sized;
  int64_t n = sliced.size();
  for (int64_t y : samples(n)) {
    Vec x = referenceUnflatten(y, lengths);
    for (size_t d = 0; d < x.size(); ++d)
      x[d] += lo[d];
    BigSet got;
    for (BigPoint p : bigApply(sliced, y)) {
      for (const auto &[axis, v] : extra)
        addBig(p, axis, v);
      got.insert(p);
    }
    if (got != bigApply(layout, referenceFlatten(x, shape)))
      return ::testing::AssertionFailure()
             << sliced.str() << " differs from " << layout.str()
             << " at region index " << y << " (starts " << shapeStr(lo) << ")";
  }
  return ::testing::AssertionSuccess();
}

/// Checks an answered slice at the extreme and a random allowed start of
/// each dim, completing unknown starts with dimContribution.
::testing::AssertionResult
satisfiesAnySlice(ExtremeGenerator &gen, const TileLayout &sliced,
                  const TileLayout &layout, const Vec &shape,
                  llvm::ArrayRef<SliceStart> starts, const Vec &lengths) {
  if (!fewReplicas(layout))
    return ::testing::AssertionSuccess();
  Result<GroupedLayout> g = group(layout, shape);
  if (!g)
    g = group(canonicalize(layout), shape);
  if (!g)
    return ::testing::AssertionFailure() << "sliced, but does not group";
  for (int round = 0; round < 3; ++round) {
    Vec lo(shape.size());
    BigPoint extra;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (starts[d].known) {
        lo[d] = starts[d].value;
        continue;
      }
      int64_t a = starts[d].alignment, last = (shape[d] - lengths[d]) / a;
      int64_t j = round == 0 ? 0 : round == 1 ? last : gen.uniform(0, last);
      lo[d] = j * a;
      Coord c = g->dimContribution(d, lo[d]);
      for (const auto &[axis, v] : c.entries())
        addBig(extra, axis, v);
    }
    ::testing::AssertionResult r =
        satisfiesSlice(sliced, layout, shape, lo, lengths, extra);
    if (!r)
      return r;
  }
  return ::testing::AssertionSuccess();
}

int64_t adversarialStart(ExtremeGenerator &gen, int64_t n, int64_t len) {
  if (gen.coin(0.8) && n >= len && len >= 1)
    return gen.uniform(0, n - len);
  switch (gen.uniform(0, 4)) {
  case 0:
    return -1;
  case 1:
    return n >= len && len >= 1 ? n - len + 1 : -2;
  case 2:
    return kMin;
  case 3:
    return kMax;
  default:
    return gen.bigValue();
  }
}

TEST(RobustAlgebra, Slice) {
  ExtremeGenerator gen(fuzzSeed(1501));
  int answered = 0;
  for (int n = 0; n < 4000; ++n) {
    TileLayout l = gen.extreme(128);
    Shape shape = gen.shape(l.size());
    llvm::SmallVector<SliceStart, 4> starts;
    Vec lengths, known;
    bool allKnown = true;
    for (int64_t d : shape) {
      int64_t len = d >= 1 && gen.coin(0.9) ? gen.uniform(1, d)
                    : gen.coin()            ? gen.bigValue()
                    : d < kMax              ? d + 1
                                            : 0;
      lengths.push_back(len);
      if (gen.coin(0.5)) {
        known.push_back(adversarialStart(gen, d, len));
        starts.push_back(SliceStart::constant(known.back()));
        continue;
      }
      allKnown = false;
      int64_t align = gen.coin(0.8) && d >= 1 ? gen.uniform(1, d)
                      : gen.coin()            ? gen.bigValue()
                                              : gen.uniform(-2, 0);
      starts.push_back(SliceStart::aligned(align));
    }
    if (gen.coin(0.05))
      lengths.push_back(1);
    if (gen.coin(0.05))
      starts.push_back(SliceStart::constant(0));
    SCOPED_TRACE(ctx(l, shape) + " lengths " + shapeStr(lengths));
    Result<TileLayout> s = slice(l, shape, starts, lengths);
    expectReason(s, "slice");
    if (allKnown && known.size() == starts.size()) {
      Result<TileLayout> s2 = slice(l, shape, known, lengths);
      EXPECT_EQ(bool(s), bool(s2));
      if (s && s2) {
        EXPECT_EQ(*s, *s2);
      }
    }
    if (!s)
      continue;
    ++answered;
    ASSERT_TRUE(satisfiesAnySlice(gen, *s, l, vec(shape), starts, lengths));
  }
  EXPECT_GT(answered, 400);
}

TEST(RobustAlgebra, SliceArgumentChecks) {
  TileLayout l = parseOrDie("S[(128, 2, 64) : (64, 8192, 1)]");
  Vec shape{128, 128};
  // The call the SliceStart aggregate made ambiguous.
  Result<TileLayout> s = slice(l, shape, {0, 32}, {128, 64});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_EQ(s->str(), "S[(128, 2, 32) : (64, 8160, 1)] + 32");
  s = slice(l, {128, 128}, {8, 32}, {1, 2});
  ASSERT_TRUE(bool(s)) << s.message();
  s = slice(l, shape, {SliceStart::constant(0), SliceStart::aligned(32)},
            {128, 32});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_EQ(SliceStart().known, true);
  EXPECT_EQ(SliceStart().value, 0);

  struct Case {
    llvm::SmallVector<SliceStart, 2> starts;
    Vec lengths;
  };
  std::vector<Case> cases = {
      {{SliceStart::constant(-1), SliceStart::constant(0)}, {1, 1}},
      {{SliceStart::constant(kMin), SliceStart::constant(0)}, {1, 1}},
      {{SliceStart::constant(kMax), SliceStart::constant(0)}, {1, 1}},
      {{SliceStart::constant(kMax), SliceStart::constant(0)}, {kMax, 1}},
      {{SliceStart::constant(1), SliceStart::constant(0)}, {128, 1}},
      {{SliceStart::constant(0), SliceStart::constant(0)}, {0, 1}},
      {{SliceStart::constant(0), SliceStart::constant(0)}, {-1, 1}},
      {{SliceStart::constant(0), SliceStart::constant(0)}, {kMin, 1}},
      {{SliceStart::constant(0), SliceStart::constant(0)}, {129, 1}},
      {{SliceStart::constant(0)}, {1}},
      {{SliceStart::constant(0), SliceStart::constant(0)}, {1}},
      {{SliceStart::aligned(0), SliceStart::constant(0)}, {1, 1}},
      {{SliceStart::aligned(-4), SliceStart::constant(0)}, {1, 1}},
      {{SliceStart::aligned(kMin), SliceStart::constant(0)}, {1, 1}},
      {{SliceStart::aligned(kMax), SliceStart::constant(0)}, {1, 1}},
      {{SliceStart::aligned(kMax), SliceStart::aligned(kMax)}, {128, 128}},
      {{SliceStart::aligned(3), SliceStart::aligned(7)}, {5, 9}},
      {{SliceStart::aligned(1), SliceStart::aligned(1)}, {127, 127}},
  };
  ExtremeGenerator gen(fuzzSeed(1502));
  for (const Case &c : cases) {
    SCOPED_TRACE("lengths " + shapeStr(c.lengths));
    Result<TileLayout> r = slice(l, shape, c.starts, c.lengths);
    expectReason(r, "slice");
    if (r) {
      EXPECT_TRUE(satisfiesAnySlice(gen, *r, l, shape, c.starts, c.lengths));
    }
  }
  for (Vec bad : {Vec{}, Vec{0, 128}, Vec{-128, -128}, Vec{kMax, kMax},
                  Vec{128 * 128}, Vec{128, 128, 1}}) {
    llvm::SmallVector<SliceStart, 3> st(bad.size(), SliceStart::constant(0));
    Result<TileLayout> r = slice(l, bad, st, bad);
    expectReason(r, shapeStr(bad));
    if (r) {
      EXPECT_TRUE(satisfiesAnySlice(gen, *r, l, bad, st, bad));
    }
  }
}

TEST(RobustAlgebra, SliceNearTheLimits) {
  // Strides and offsets near the limits, every start.
  TileLayout l = parseOrDie("S[(4, 4) : (2305843009213693952, 1)] + "
                            "-2305843009213693947");
  Result<TileLayout> s = slice(l, {4, 4}, Vec{3, 0}, {1, 4});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_TRUE(satisfiesSlice(*s, l, {4, 4}, {3, 0}, {1, 4}, {}));
  l = parseOrDie("S[(4, 4) : (-2305843009213693952, 1)] + "
                 "2305843009213693947");
  for (int64_t start = 0; start < 4; ++start) {
    s = slice(l, {4, 4}, Vec{start, 1}, {1, 3});
    ASSERT_TRUE(bool(s)) << s.message();
    EXPECT_TRUE(satisfiesSlice(*s, l, {4, 4}, {start, 1}, {1, 3}, {}));
  }
}

} // namespace
