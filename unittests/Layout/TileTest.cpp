//===- TileTest.cpp - tile, tile_of, tile_of_outer, direct sum ------------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"

#include "gtest/gtest.h"

using namespace axe;
using namespace axe::testing;

namespace {

//===----------------------------------------------------------------------===//
// Reference helpers (independent of the algebra)
//===----------------------------------------------------------------------===//

/// 1 + sum (e-1)|s| per axis over shard and replica iters.
std::map<std::string, int64_t> referenceSpan(const TileLayout &l) {
  std::map<std::string, int64_t> span;
  for (auto iters : {l.shard(), l.replica()})
    for (const Iter &it : iters)
      span[it.axis] +=
          (it.extent - 1) * (it.stride < 0 ? -it.stride : it.stride);
  for (auto &entry : span)
    entry.second += 1;
  return span;
}

/// {scale(b) + a : a in as, b in bs}, scale multiplying axis-wise.
PointSet minkowski(const PointSet &as, const PointSet &bs,
                   const std::map<std::string, int64_t> &scale) {
  PointSet out;
  for (const Point &b : bs)
    for (const Point &a : as) {
      Point p = a;
      for (const auto &[axis, v] : b) {
        auto it = scale.find(axis);
        addTo(p, axis, v * (it == scale.end() ? 1 : it->second));
      }
      out.insert(p);
    }
  return out;
}

/// Checks op(A, B)(xB * SA + xA) == scale(B(xB)) + A(xA) on every element.
::testing::AssertionResult
satisfiesCombine(const TileLayout &result, const TileLayout &inner,
                 llvm::ArrayRef<int64_t> innerShape, const TileLayout &outer,
                 llvm::ArrayRef<int64_t> outerShape, bool scaled) {
  std::map<std::string, int64_t> scale;
  if (scaled)
    scale = referenceSpan(inner);
  std::vector<int64_t> sa(innerShape.begin(), innerShape.end());
  std::vector<int64_t> sb(outerShape.begin(), outerShape.end()), shape;
  for (size_t d = 0; d < sa.size(); ++d)
    shape.push_back(sa[d] * sb[d]);
  if (result.size() != inner.size() * outer.size())
    return ::testing::AssertionFailure() << "size " << result.size();
  for (int64_t f = 0; f < result.size(); ++f) {
    std::vector<int64_t> x = referenceUnflatten(f, shape), xa(x.size()),
                         xb(x.size());
    for (size_t d = 0; d < x.size(); ++d) {
      xa[d] = x[d] % sa[d];
      xb[d] = x[d] / sa[d];
    }
    PointSet expected =
        minkowski(referenceApply(inner, referenceFlatten(xa, sa)),
                  referenceApply(outer, referenceFlatten(xb, sb)), scale);
    if (referenceApply(result, f) != expected)
      return ::testing::AssertionFailure()
             << result.str() << " at flat index " << f;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult sameMap(const TileLayout &a, const TileLayout &b) {
  if (a.size() != b.size() || referenceMap(a) != referenceMap(b))
    return ::testing::AssertionFailure()
           << a.str() << " and " << b.str() << " differ";
  return ::testing::AssertionSuccess();
}

/// A random layout built dim by dim, so that it groups by its shape.
struct Shaped {
  TileLayout layout;
  Shape shape;
};

Shaped blockedLayout(LayoutGenerator &gen, int rank, int64_t maxSize,
                     bool withReplica = true) {
  IterList shard;
  Shape shape;
  int64_t size = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t dim = 1;
    int n = gen.uniform(0, 2);
    for (int i = 0; i < n; ++i) {
      Iter it = gen.iter();
      if (size * it.extent > maxSize)
        continue;
      size *= it.extent;
      dim *= it.extent;
      shard.push_back(it);
    }
    shape.push_back(dim);
  }
  IterList replica;
  if (withReplica && gen.coin(0.35))
    for (int i = 0, r = gen.uniform(1, 2); i < r; ++i) {
      Iter it = gen.iter();
      it.extent = std::min<int64_t>(it.extent, 3);
      replica.push_back(it);
    }
  Coord offset;
  if (gen.coin(0.4))
    offset.add(gen.axis(), gen.uniform(-8, 8));
  return {*TileLayout::create(shard, replica, offset), shape};
}

Shape times(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  Shape out;
  for (size_t d = 0; d < a.size(); ++d)
    out.push_back(a[d] * b[d]);
  return out;
}

//===----------------------------------------------------------------------===//
// Worked examples
//===----------------------------------------------------------------------===//

TEST(Tile, SpecExample) {
  TileLayout inner = parseOrDie("S[(2,4):(1,2)]");
  TileLayout outer = parseOrDie("S[(8,8):(8,1)]");
  Result<TileLayout> t = tile(inner, {2, 4}, outer, {8, 8});
  ASSERT_TRUE(bool(t)) << t.message();
  EXPECT_EQ(canonicalize(*t).str(), "S[(8, 2, 32) : (64, 1, 2)]");
  EXPECT_TRUE(satisfiesCombine(*t, inner, {2, 4}, outer, {8, 8}, true));
  // The result groups by the interleaved shape (outer0, inner0, ...).
  EXPECT_TRUE(bool(group(*t, {8, 2, 8, 4})));
}

TEST(Tile, ScalesPerAxisAndCarriesReplicasAndOffsets) {
  TileLayout inner = parseOrDie("S[(2,4):(1@laneid,2)] + R[2:1@warpid] + 1");
  TileLayout outer = parseOrDie("S[(2,2):(1@laneid,1@m)] + R[2:1@warpid] + "
                                "3@laneid");
  Result<TileLayout> t = tile(inner, {2, 4}, outer, {2, 2});
  ASSERT_TRUE(bool(t)) << t.message();
  // Spans of the inner layout: laneid 2, m 7, warpid 2.
  EXPECT_EQ(t->str(), "S[(2, 2, 2, 4) : (2@laneid, 1@laneid, 7, 2)] + "
                      "R[(2, 2) : (1@warpid, 2@warpid)] + 6@laneid + 1");
  EXPECT_TRUE(satisfiesCombine(*t, inner, {2, 4}, outer, {2, 2}, true));
}

TEST(Tile, RejectsBadOperands) {
  TileLayout a = parseOrDie("S[(2,4):(1,2)]");
  Result<TileLayout> rank = tile(a, {2, 4}, a, {8});
  ASSERT_FALSE(bool(rank));
  EXPECT_NE(rank.message().find("different ranks"), std::string::npos);
  Result<TileLayout> size = tile(a, {2, 4}, a, {3, 3});
  ASSERT_FALSE(bool(size));
  EXPECT_NE(size.message().find("does not admit shape 3x3"), std::string::npos)
      << size.message();
  Result<TileLayout> grouping =
      tile(parseOrDie("S[(3,2):(2,1)]"), {2, 3}, a, {2, 4});
  EXPECT_TRUE(bool(grouping)) << "a fused form groups: " << grouping.message();
  Result<TileLayout> none =
      tile(parseOrDie("S[(3,2):(5,1)]"), {2, 3}, a, {2, 4});
  ASSERT_FALSE(bool(none));
  EXPECT_NE(none.message().find("does not group"), std::string::npos)
      << none.message();
}

TEST(Tile, OverflowIsReported) {
  // The inner span 2^40 + 1 scales the outer stride 2^40 past int64.
  TileLayout big = parseOrDie("S[2:1099511627776]");
  Result<TileLayout> t = tile(big, {2}, big, {2});
  ASSERT_FALSE(bool(t));
  EXPECT_NE(t.message().find("overflows int64"), std::string::npos)
      << t.message();
  Result<TileLayout> s = directSum(big, {2}, big, {2});
  EXPECT_TRUE(bool(s)) << s.message();
}

TEST(TileOf, SpecExampleRoundTrips) {
  TileLayout inner = parseOrDie("S[(2,4):(1,2)]");
  TileLayout layout = parseOrDie("S[(8,2,32):(64,1,2)]");
  Result<TileLayout> outer = tileOf(layout, {16, 32}, inner, {2, 4});
  ASSERT_TRUE(bool(outer)) << outer.message();
  EXPECT_TRUE(sameMap(*outer, parseOrDie("S[(8,8):(8,1)]")));
  Result<TileLayout> back = tileOfOuter(layout, {16, 32}, *outer, {8, 8});
  ASSERT_TRUE(bool(back)) << back.message();
  EXPECT_TRUE(sameMap(*back, inner));
}

TEST(TileOf, SaysWhyNot) {
  // A 2x2 block of a width-4 matrix: span 6, so an outer step of 8 is not a
  // scaled one (the Axe paper, appendix F.4: a direct sum but not a tile).
  TileLayout block = parseOrDie("S[(2,2):(4,1)]");
  TileLayout whole = parseOrDie("S[16:1]");
  Result<TileLayout> outer = tileOf(whole, {4, 4}, block, {2, 2});
  ASSERT_FALSE(bool(outer));
  EXPECT_NE(outer.message().find("span 6"), std::string::npos)
      << outer.message();

  Result<TileLayout> shape = tileOf(whole, {4, 4}, block, {3, 2});
  ASSERT_FALSE(bool(shape));
  EXPECT_NE(shape.message().find("does not admit"), std::string::npos)
      << shape.message();
  Result<TileLayout> divides =
      tileOf(whole, {4, 4}, parseOrDie("S[(3,2):(2,1)]"), {3, 2});
  ASSERT_FALSE(bool(divides));
  EXPECT_NE(divides.message().find("not a multiple"), std::string::npos)
      << divides.message();

  // Inner walk differs from the inner layout's.
  Result<TileLayout> walk =
      tileOf(whole, {4, 4}, parseOrDie("S[(2,2):(1,2)]"), {2, 2});
  ASSERT_FALSE(bool(walk));
  EXPECT_NE(walk.message().find("walks"), std::string::npos) << walk.message();
}

TEST(TileOf, RefusesANearMiss) {
  // tile(S[(2,4):(1,2)], S[(8,8):(8,1)]) with one outer stride off by one.
  TileLayout inner = parseOrDie("S[(2,4):(1,2)]");
  Result<TileLayout> outer =
      tileOf(parseOrDie("S[(8,2,8,4):(65,1,8,2)]"), {16, 32}, inner, {2, 4});
  ASSERT_FALSE(bool(outer)) << outer->str();
  EXPECT_NE(outer.message().find("(8 : 65)"), std::string::npos)
      << outer.message();
}

TEST(TileOfOuter, SaysWhyNot) {
  // Outer steps of 8 with an inner of span 4 would need the inner to span 8.
  TileLayout outer = parseOrDie("S[(2,2):(2,1)]");
  Result<TileLayout> inner =
      tileOfOuter(parseOrDie("S[(2,2,2,2):(16,2,8,1)]"), {4, 4}, outer, {2, 2});
  ASSERT_FALSE(bool(inner));
  EXPECT_NE(inner.message().find("spans"), std::string::npos)
      << inner.message();
}

TEST(DirectSum, SeedExampleIsContiguous) {
  TileLayout block = parseOrDie("S[(2,2):(4,1)]");
  TileLayout origins = parseOrDie("S[(2,2):(8,2)]");
  Result<TileLayout> sum = directSum(block, {2, 2}, origins, {2, 2});
  ASSERT_TRUE(bool(sum)) << sum.message();
  EXPECT_EQ(canonicalize(*sum).str(), "S[16 : 1]");
  EXPECT_TRUE(satisfiesCombine(*sum, block, {2, 2}, origins, {2, 2}, false));

  TileLayout whole = parseOrDie("S[16:1]");
  Result<TileLayout> outer = directSumOuterOf(whole, {4, 4}, block, {2, 2});
  ASSERT_TRUE(bool(outer)) << outer.message();
  EXPECT_TRUE(sameMap(*outer, origins));
  Result<TileLayout> inner = directSumInnerOf(whole, {4, 4}, origins, {2, 2});
  ASSERT_TRUE(bool(inner)) << inner.message();
  EXPECT_TRUE(sameMap(*inner, block));

  Result<TileLayout> none =
      directSumOuterOf(whole, {4, 4}, parseOrDie("S[(2,2):(4,2)]"), {2, 2});
  ASSERT_FALSE(bool(none));
  EXPECT_NE(none.message().find("walks"), std::string::npos) << none.message();
}

//===----------------------------------------------------------------------===//
// Properties against the reference model
//===----------------------------------------------------------------------===//

constexpr int kCases = 2000;

TEST(TileProperty, EquationOnEveryElement) {
  LayoutGenerator gen(11);
  for (int c = 0; c < kCases; ++c) {
    int rank = gen.uniform(1, 3);
    Shaped a = blockedLayout(gen, rank, 32), b = blockedLayout(gen, rank, 8);
    Result<TileLayout> t = tile(a.layout, a.shape, b.layout, b.shape);
    ASSERT_TRUE(bool(t)) << t.message();
    ASSERT_TRUE(
        satisfiesCombine(*t, a.layout, a.shape, b.layout, b.shape, true))
        << "A = " << a.layout.str() << " " << shapeStr(a.shape)
        << ", B = " << b.layout.str() << " " << shapeStr(b.shape);
  }
}

TEST(DirectSumProperty, EquationOnEveryElement) {
  LayoutGenerator gen(12);
  for (int c = 0; c < kCases; ++c) {
    int rank = gen.uniform(1, 3);
    Shaped a = blockedLayout(gen, rank, 32), b = blockedLayout(gen, rank, 8);
    Result<TileLayout> s = directSum(a.layout, a.shape, b.layout, b.shape);
    ASSERT_TRUE(bool(s)) << s.message();
    ASSERT_TRUE(
        satisfiesCombine(*s, a.layout, a.shape, b.layout, b.shape, false))
        << "A = " << a.layout.str() << ", B = " << b.layout.str();
  }
}

/// Which inverse a property exercises.
enum class Inverse { TileOf, TileOfOuter, SumOuterOf, SumInnerOf };

/// Recovers the missing operand of `layout` (built from a and b) and
/// rebuilds the layout from it.
Result<TileLayout> recoverAndRebuild(Inverse inv, const TileLayout &layout,
                                     llvm::ArrayRef<int64_t> shape,
                                     const Shaped &a, const Shaped &b) {
  switch (inv) {
  case Inverse::TileOf: {
    Result<TileLayout> r = tileOf(layout, shape, a.layout, a.shape);
    return r ? tile(a.layout, a.shape, *r, b.shape) : r;
  }
  case Inverse::TileOfOuter: {
    Result<TileLayout> r = tileOfOuter(layout, shape, b.layout, b.shape);
    return r ? tile(*r, a.shape, b.layout, b.shape) : r;
  }
  case Inverse::SumOuterOf: {
    Result<TileLayout> r = directSumOuterOf(layout, shape, a.layout, a.shape);
    return r ? directSum(a.layout, a.shape, *r, b.shape) : r;
  }
  case Inverse::SumInnerOf: {
    Result<TileLayout> r = directSumInnerOf(layout, shape, b.layout, b.shape);
    return r ? directSum(*r, a.shape, b.layout, b.shape) : r;
  }
  }
  return fail("unreachable");
}

/// The inverse recovers an operand from op(A, B) as built, and from its
/// canonical form; the rebuilt layout has the same map (by enumeration).
void checkRoundTrip(Inverse inv, uint64_t seed) {
  bool scaled = inv == Inverse::TileOf || inv == Inverse::TileOfOuter;
  LayoutGenerator gen(seed);
  int canonicalHits = 0;
  for (int c = 0; c < kCases; ++c) {
    int rank = gen.uniform(1, 3);
    Shaped a = blockedLayout(gen, rank, 16), b = blockedLayout(gen, rank, 8);
    Result<TileLayout> built =
        scaled ? tile(a.layout, a.shape, b.layout, b.shape)
               : directSum(a.layout, a.shape, b.layout, b.shape);
    ASSERT_TRUE(bool(built)) << built.message();
    Shape shape = times(a.shape, b.shape);
    std::string ctx = "A = " + a.layout.str() + " " + shapeStr(a.shape) +
                      ", B = " + b.layout.str() + " " + shapeStr(b.shape) +
                      ", layout " + built->str();

    Result<TileLayout> rebuilt = recoverAndRebuild(inv, *built, shape, a, b);
    ASSERT_TRUE(bool(rebuilt)) << ctx << ": " << rebuilt.message();
    ASSERT_TRUE(sameMap(*rebuilt, *built)) << ctx;

    // The canonical form merges iters and replicas across the operands;
    // when recovery still succeeds, it must be right.
    TileLayout canonical = canonicalize(*built);
    Result<TileLayout> again = recoverAndRebuild(inv, canonical, shape, a, b);
    if (again) {
      ++canonicalHits;
      ASSERT_TRUE(sameMap(*again, *built)) << ctx << " (canonical form)";
    }
  }
  // Most canonical forms keep the structure the inverses read.
  EXPECT_GT(canonicalHits, kCases * 9 / 10);
}

TEST(TileOfProperty, RecoversTheOuterLayout) {
  checkRoundTrip(Inverse::TileOf, 21);
}
TEST(TileOfOuterProperty, RecoversTheInnerLayout) {
  checkRoundTrip(Inverse::TileOfOuter, 22);
}
TEST(DirectSumOuterOfProperty, RecoversTheOuterLayout) {
  checkRoundTrip(Inverse::SumOuterOf, 23);
}
TEST(DirectSumInnerOfProperty, RecoversTheInnerLayout) {
  checkRoundTrip(Inverse::SumInnerOf, 24);
}

/// Changes one stride or the offset of a layout, keeping its iters.
TileLayout perturb(LayoutGenerator &gen, const TileLayout &l) {
  IterList shard(l.shard().begin(), l.shard().end());
  IterList replica(l.replica().begin(), l.replica().end());
  Coord offset = l.offset();
  int pick = gen.uniform(0, 2);
  if (pick == 0 && !shard.empty())
    shard[gen.uniform(0, shard.size() - 1)].stride += gen.uniform(1, 3);
  else if (pick == 1 && !replica.empty())
    replica[gen.uniform(0, replica.size() - 1)].stride += 1;
  else
    offset.add(gen.axis(), gen.uniform(1, 5));
  return *TileLayout::create(shard, replica, offset);
}

/// On perturbed and unrelated layouts, any answer must be right.
void checkNeverWrong(Inverse inv, uint64_t seed) {
  bool scaled = inv == Inverse::TileOf || inv == Inverse::TileOfOuter;
  LayoutGenerator gen(seed);
  int answered = 0, refused = 0;
  for (int c = 0; c < kCases; ++c) {
    int rank = gen.uniform(1, 2);
    Shaped a = blockedLayout(gen, rank, 16), b = blockedLayout(gen, rank, 8);
    Result<TileLayout> built =
        scaled ? tile(a.layout, a.shape, b.layout, b.shape)
               : directSum(a.layout, a.shape, b.layout, b.shape);
    ASSERT_TRUE(bool(built));
    Shape shape = times(a.shape, b.shape);
    TileLayout layout = gen.coin(0.7) ? perturb(gen, *built)
                                      : gen.layout(built->size(), true, true);
    if (!layout.admits(shape))
      continue;
    Result<TileLayout> rebuilt = recoverAndRebuild(inv, layout, shape, a, b);
    if (!rebuilt) {
      ++refused;
      EXPECT_FALSE(rebuilt.message().empty());
      continue;
    }
    ++answered;
    ASSERT_TRUE(sameMap(*rebuilt, layout))
        << "wrong answer for " << layout.str() << " with A = " << a.layout.str()
        << ", B = " << b.layout.str();
  }
  // Both outcomes occur, so the property is not vacuous.
  EXPECT_GT(answered, 0);
  EXPECT_GT(refused, kCases / 10);
}

TEST(TileOfProperty, NeverWrong) { checkNeverWrong(Inverse::TileOf, 31); }
TEST(TileOfOuterProperty, NeverWrong) {
  checkNeverWrong(Inverse::TileOfOuter, 32);
}
TEST(DirectSumOuterOfProperty, NeverWrong) {
  checkNeverWrong(Inverse::SumOuterOf, 33);
}
TEST(DirectSumInnerOfProperty, NeverWrong) {
  checkNeverWrong(Inverse::SumInnerOf, 34);
}

} // namespace
