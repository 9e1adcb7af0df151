//===- CanonicalizeTest.cpp - Canonical form, gap condition, equivalence --===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <functional>
#include <tuple>

using namespace axe;
using namespace axe::testing;

namespace {

TileLayout make(IterList shard, IterList replica = {}, Coord offset = {}) {
  Result<TileLayout> l = TileLayout::create(shard, replica, offset);
  EXPECT_TRUE(bool(l)) << l.message();
  return l ? *l : TileLayout();
}

/// canonicalize(text) printed, for the worked examples.
std::string canon(llvm::StringRef text) {
  return canonicalize(parseOrDie(text)).str();
}

bool sameMap(const TileLayout &a, const TileLayout &b) {
  return a.size() == b.size() && referenceMap(a) == referenceMap(b);
}

//===----------------------------------------------------------------------===//
// Worked examples, one per rule
//===----------------------------------------------------------------------===//

TEST(Canonicalize, SpecExamples) {
  EXPECT_EQ(canon("S[(2,3,6):(18,6,1)]"), "S[36 : 1]");
  EXPECT_EQ(canon("S[(8,4):(4@laneid,1@laneid)]"), "S[32 : 1@laneid]");
}

TEST(Canonicalize, D0DropsUnitExtents) {
  // Dropping the unit iter makes (4 : 2)(2 : 1) adjacent, so D1 follows.
  EXPECT_EQ(canon("S[(4,1,2):(2,7@warpid,1)]"), "S[8 : 1]");
  EXPECT_EQ(canon("S[1:5]"), canonicalize(TileLayout()).str());
  EXPECT_TRUE(canonicalize(parseOrDie("S[(1,1):(3,4@tx)]")).shard().empty());
}

TEST(Canonicalize, D1MergesOnlyChainsOnOneAxis) {
  EXPECT_EQ(canon("S[(2,2):(-2,-1)]"), "S[4 : -1]");
  EXPECT_EQ(canon("S[(2,4):(4@tx,1)]"), "S[(2, 4) : (4@tx, 1)]");
  EXPECT_EQ(canon("S[(2,4):(5,1)]"), "S[(2, 4) : (5, 1)]");
  EXPECT_EQ(canon("S[(2,2,2):(2,8@tx,1)]"), "S[(2, 2, 2) : (2, 8@tx, 1)]");
}

TEST(Canonicalize, D2MovesStrideZeroToM) {
  EXPECT_EQ(canon("S[(2,3):(0@laneid,0@warpid)]"), "S[6 : 0]");
  EXPECT_EQ(canon("S[(2,3):(0@laneid,1@laneid)]"), "S[(2, 3) : (0, 1@laneid)]");
}

TEST(Canonicalize, C0DropsTrivialReplicas) {
  EXPECT_EQ(canon("S[4:1] + R[(1,4):(3@tx,0@tx)]"), "S[4 : 1]");
}

TEST(Canonicalize, C1FlipsNegativeStridesIntoTheOffset) {
  EXPECT_EQ(canon("S[4:1] + R[3:-2@warpid]"), "S[4 : 1] + R[3 : 2@warpid] + "
                                              "-4@warpid");
  EXPECT_EQ(canon("S[4:1] + R[3:-2@warpid] + 4@warpid"),
            "S[4 : 1] + R[3 : 2@warpid]");
}

TEST(Canonicalize, C2AbsorbsMultiples) {
  // The paper's case, k == e1: (4, 1) and (2, 4) tile [0, 8).
  EXPECT_EQ(canon("S[2:1] + R[(2,4):(4,1)]"), "S[2 : 1] + R[8 : 1]");
  // k < e1: {0..3} + {0, 2, 4} = {0..7}.
  EXPECT_EQ(canon("S[2:1] + R[(4,3):(1,2)]"), "S[2 : 1] + R[8 : 1]");
  // k == 1: equal strides add up.
  EXPECT_EQ(canon("S[2:1] + R[(3,2):(5@tx,5@tx)]"), "S[2 : 1] + R[4 : 5@tx]");
  // A chain: (2, 2), (2, 4), (2, 6) all end in (7, 2).
  EXPECT_EQ(canon("S[2:1] + R[(2,2,2):(6,4,2)]"), "S[2 : 1] + R[7 : 2]");
  // k > e1 leaves a gap: nothing to absorb.
  EXPECT_EQ(canon("S[2:1] + R[(2,2):(3,1)]"), "S[2 : 1] + R[(2, 2) : (1, 3)]");
  // Other axes never interact.
  EXPECT_EQ(canon("S[2:1] + R[(2,2):(2@tx,1)]"),
            "S[2 : 1] + R[(2, 2) : (1, 2@tx)]");
}

TEST(Canonicalize, ReplicasSortedByAxisStrideExtent) {
  EXPECT_EQ(canon("S[2:1] + R[(2,3,2,2):(1@warpid,32,8,1@laneid)]"),
            "S[2 : 1] + R[(2, 2, 3, 2) : (1@laneid, 8, 32, 1@warpid)]");
  EXPECT_EQ(canonicalize(parseOrDie("S[2:1] + R[(2,2):(9,4)]")),
            canonicalize(parseOrDie("S[2:1] + R[(2,2):(4,9)]")));
}

TEST(Canonicalize, ZeroOffsetsDropped) {
  TileLayout c = canonicalize(parseOrDie("S[4:1] + R[2:-3@tx] + 3@tx"));
  EXPECT_TRUE(c.offset().empty());
  EXPECT_EQ(c.str(), "S[4 : 1] + R[2 : 3@tx]");
}

TEST(Canonicalize, SeedTileIsAlreadyCanonical) {
  const char *text = "S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + "
                     "R[2 : 4@warpid] + 5@warpid";
  EXPECT_EQ(canon(text), text);
}

//===----------------------------------------------------------------------===//
// Gap condition and equivalence, worked cases
//===----------------------------------------------------------------------===//

TEST(GapCondition, Examples) {
  EXPECT_TRUE(satisfiesGapCondition(parseOrDie("S[4:1]")));
  EXPECT_TRUE(satisfiesGapCondition(parseOrDie("S[4:1] + R[(2,2):(1,2)]")));
  // 3 > (2-1)*1 holds; then 7 > 1 + 3 holds.
  EXPECT_TRUE(satisfiesGapCondition(parseOrDie("S[4:1] + R[(2,2,2):(1,3,7)]")));
  // 3 is not beyond the reach 2*2 = 4 of (3, 2).
  EXPECT_FALSE(satisfiesGapCondition(parseOrDie("S[4:1] + R[(3,2):(2,3)]")));
  // 5 only equals the reach 2 + 3 of the smaller strides (2 + 3 == 5 is
  // reached twice).
  EXPECT_FALSE(
      satisfiesGapCondition(parseOrDie("S[4:1] + R[(2,2,2):(2,3,5)]")));
  // Judged after canonicalization: the negative stride flips first.
  EXPECT_TRUE(satisfiesGapCondition(parseOrDie("S[4:1] + R[(2,2):(-1,4)]")));
  // Per axis: the tx iter does not count against the m iter.
  EXPECT_TRUE(satisfiesGapCondition(parseOrDie("S[4:1] + R[(8,2):(1@tx,3)]")));
}

TEST(Equivalent, Examples) {
  auto equiv = [](llvm::StringRef a, llvm::StringRef b) {
    Result<bool> r = equivalent(parseOrDie(a), parseOrDie(b));
    EXPECT_TRUE(bool(r)) << r.message();
    return r && *r;
  };
  EXPECT_TRUE(equiv("S[(2,3,6):(18,6,1)]", "S[36:1]"));
  EXPECT_TRUE(equiv("S[(8,4):(4@laneid,1@laneid)]", "S[32:1@laneid]"));
  EXPECT_FALSE(equiv("S[(8,4):(4@laneid,1@laneid)]", "S[32:1@warpid]"));
  EXPECT_FALSE(equiv("S[8:1]", "S[16:1]"));
  EXPECT_TRUE(equiv("S[4:1] + R[3:-2@tx]", "S[4:1] + R[3:2@tx] + -4@tx"));
  // Different canonical forms of one map (the gap condition fails): both
  // replica sets are {0, 2, 3, ..., 11, 13}.
  EXPECT_NE(canon("S[2:1] + R[(6,2):(2,3)]"), canon("S[2:1] + R[(3,4):(2,3)]"));
  EXPECT_TRUE(equiv("S[2:1] + R[(6,2):(2,3)]", "S[2:1] + R[(3,4):(2,3)]"));
  EXPECT_FALSE(equiv("S[2:1] + R[(6,2):(2,3)]", "S[2:1] + R[(3,3):(2,3)]"));
  EXPECT_FALSE(equiv("S[2:1] + R[(6,2):(2,3)]", "S[2:2] + R[(3,4):(2,3)]"));
}

TEST(Equivalent, TooLargeToEnumerateFailsWithAReason) {
  TileLayout a = make({{2, 1, "m"}}, {{int64_t(1) << 23, 2, "m"}, {2, 3, "m"}});
  TileLayout b = make({{2, 1, "m"}}, {{int64_t(1) << 23, 2, "m"}, {2, 5, "m"}});
  Result<bool> r = equivalent(a, b);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(r.message().find("gap condition"), std::string::npos)
      << r.message();
  EXPECT_NE(r.message().find("axis 'm'"), std::string::npos) << r.message();
}

TEST(Equivalent, NearTheInt64LimitsNeverWrong) {
  // C1 would move the offset to -2^62 while the reach stays 2^62: past what
  // a layout may hold, so canonicalize keeps the input.
  const int64_t big = int64_t(1) << 62;
  TileLayout a = make({}, {{2, -big, "m"}});
  TileLayout b = make({}, {{2, -big / 2, "m"}, {2, -big / 2, "m"}});
  EXPECT_TRUE(sameMap(canonicalize(a), a));
  EXPECT_TRUE(sameMap(canonicalize(b), b));
  Result<bool> self = equivalent(a, a);
  EXPECT_TRUE(self && *self);
  Result<bool> r = equivalent(a, b);
  EXPECT_TRUE(!r || !*r) << "answered equal for different maps";
}

TEST(Canonicalize, NearTheInt64LimitsStillNormalizesWhatNeedsNoMove) {
  // C1 cannot move the offset by -2^62 here, but D0, D1 and C0 need no
  // move: the shard merges to S[4 : 1] and the extent-1 replica goes.
  TileLayout l = parseOrDie(
      "S[(2, 1, 2) : (2, 5, 1)] + R[(2, 1) : (-4611686018427387904, 1)]");
  TileLayout c = canonicalize(l);
  EXPECT_EQ(c.str(), "S[4 : 1] + R[2 : -4611686018427387904]");
  EXPECT_TRUE(sameMap(c, l));
  EXPECT_EQ(canonicalize(c), c);
}

TEST(Equivalent, NearTheInt64LimitsDecidedPointByPoint) {
  // The same map in two forms that C1 cannot bring together.
  Result<bool> r = equivalent(
      parseOrDie(
          "S[(2, 1, 2) : (2, 5, 1)] + R[(2, 1) : (-4611686018427387904, 1)]"),
      parseOrDie("S[4 : 1] + R[2 : -4611686018427387904]"));
  ASSERT_TRUE(bool(r)) << r.message();
  EXPECT_TRUE(*r);
  // Only the replica order differs.
  r = equivalent(
      parseOrDie("S[() : ()] + R[(2, 4) : (1, -2305843009213693952)]"),
      parseOrDie("S[() : ()] + R[(4, 2) : (-2305843009213693952, 1)]"));
  ASSERT_TRUE(bool(r)) << r.message();
  EXPECT_TRUE(*r);
  // One replica apart.
  r = equivalent(
      parseOrDie("S[() : ()] + R[(2, 4) : (1, -2305843009213693952)]"),
      parseOrDie("S[() : ()] + R[(2, 3) : (1, -2305843009213693952)]"));
  EXPECT_TRUE(r && !*r);
}

//===----------------------------------------------------------------------===//
// Map-preserving rewrites: random layouts with a known-equal partner
//===----------------------------------------------------------------------===//

/// Mutable copy of a layout's parts.
struct Parts {
  IterList shard, replica;
  Coord offset;

  explicit Parts(const TileLayout &l)
      : shard(l.shard().begin(), l.shard().end()),
        replica(l.replica().begin(), l.replica().end()), offset(l.offset()) {}
  TileLayout build() const { return make(shard, replica, offset); }
};

llvm::SmallVector<int64_t, 4> properDivisors(int64_t n) {
  llvm::SmallVector<int64_t, 4> out;
  for (int64_t d = 2; d < n; ++d)
    if (n % d == 0)
      out.push_back(d);
  return out;
}

/// (e1*e2, s) -> (e1, e2*s)(e2, s) at a random position of `iters`.
bool splitIter(IterList &iters, LayoutGenerator &gen) {
  if (iters.empty())
    return false;
  size_t i = gen.uniform(0, iters.size() - 1);
  auto divisors = properDivisors(iters[i].extent);
  if (divisors.empty())
    return false;
  int64_t e2 = divisors[gen.uniform(0, divisors.size() - 1)];
  Iter slow{iters[i].extent / e2, iters[i].stride * e2, iters[i].axis};
  iters[i].extent = e2;
  iters.insert(iters.begin() + i, slow);
  return true;
}

/// The inverse of C2: (E, s) -> (e1, s)(e2, k*s) with E = e1 + (e2-1)*k.
bool unabsorbReplica(Parts &p, LayoutGenerator &gen) {
  if (p.replica.empty())
    return false;
  size_t i = gen.uniform(0, p.replica.size() - 1);
  Iter it = p.replica[i];
  int64_t e2 = gen.uniform(2, 3), k = gen.uniform(1, 3);
  int64_t e1 = it.extent - (e2 - 1) * k;
  if (e1 < k || e1 < 1)
    return false;
  p.replica[i].extent = e1;
  p.replica.push_back({e2, it.stride * k, it.axis});
  return true;
}

/// (e, s) -> (e, -s) with the offset moved to keep the same points.
bool negateReplica(Parts &p, LayoutGenerator &gen) {
  if (p.replica.empty())
    return false;
  Iter &it = p.replica[gen.uniform(0, p.replica.size() - 1)];
  p.offset.add(it.axis, (it.extent - 1) * it.stride);
  it.stride = -it.stride;
  return true;
}

bool insertUnitShardIter(Parts &p, LayoutGenerator &gen) {
  Iter it = gen.iter();
  it.extent = 1;
  p.shard.insert(p.shard.begin() + gen.uniform(0, p.shard.size()), it);
  return true;
}

bool moveStrideZeroShardIter(Parts &p, LayoutGenerator &gen) {
  for (Iter &it : p.shard)
    if (it.stride == 0) {
      it.axis = gen.axis();
      return true;
    }
  return false;
}

bool insertTrivialReplica(Parts &p, LayoutGenerator &gen) {
  Iter it = gen.iter();
  if (gen.coin())
    it.extent = 1;
  else
    it.stride = 0;
  p.replica.push_back(it);
  return true;
}

bool shuffleReplica(Parts &p, LayoutGenerator &gen) {
  std::shuffle(p.replica.begin(), p.replica.end(), gen.engine());
  return true;
}

/// Applies a few random map-preserving rewrites.
TileLayout rewriteRandomly(const TileLayout &layout, LayoutGenerator &gen) {
  using Rewrite = std::function<bool(Parts &, LayoutGenerator &)>;
  static const Rewrite rewrites[] = {
      [](Parts &p, LayoutGenerator &g) { return splitIter(p.shard, g); },
      [](Parts &p, LayoutGenerator &g) { return splitIter(p.replica, g); },
      unabsorbReplica,
      negateReplica,
      insertUnitShardIter,
      moveStrideZeroShardIter,
      insertTrivialReplica,
      shuffleReplica,
  };
  Parts p(layout);
  int n = gen.uniform(1, 6);
  for (int i = 0; i < n; ++i)
    rewrites[gen.uniform(0, std::size(rewrites) - 1)](p, gen);
  return p.build();
}

/// Random layouts with more, denser replicas than the shared generator, so
/// that C2 and the gap condition are exercised both ways.
TileLayout replicaHeavyLayout(LayoutGenerator &gen) {
  TileLayout base = gen.layout(64, /*withReplica=*/false);
  Parts p(base);
  int r = gen.uniform(0, 3);
  for (int i = 0; i < r; ++i) {
    Iter it{gen.uniform(1, 5), gen.uniform(-4, 6), gen.coin(0.7) ? "m" : "tx"};
    p.replica.push_back(it);
  }
  return p.build();
}

TileLayout randomLayout(LayoutGenerator &gen) {
  return gen.coin() ? gen.layout(128) : replicaHeavyLayout(gen);
}

//===----------------------------------------------------------------------===//
// Properties against the brute-force model
//===----------------------------------------------------------------------===//

TEST(CanonicalizeProperty, PreservesTheMap) {
  LayoutGenerator gen(0xCA9011);
  for (int i = 0; i < 4000; ++i) {
    TileLayout l = randomLayout(gen);
    TileLayout c = canonicalize(l);
    ASSERT_EQ(c.size(), l.size()) << l.str();
    ASSERT_EQ(referenceMap(c), referenceMap(l)) << l.str() << " -> " << c.str();
  }
}

// canonicalize rewrites without revalidating (only a C1 flip is checked):
// every result must still pass TileLayout::create's checks, including for
// layouts whose strides and offsets come near the int64 limits.
TEST(CanonicalizeProperty, ResultsPassCreate) {
  LayoutGenerator gen(0xC4EA7E);
  for (int i = 0; i < 4000; ++i) {
    TileLayout l = randomLayout(gen);
    TileLayout c = canonicalize(l);
    auto rebuilt = TileLayout::create(
        IterList(c.shard().begin(), c.shard().end()),
        IterList(c.replica().begin(), c.replica().end()), c.offset());
    ASSERT_TRUE(bool(rebuilt)) << l.str() << " -> " << c.str();
    ASSERT_EQ(*rebuilt, c) << l.str();
  }
  const int64_t big = int64_t(1) << 61;
  int checkedNearLimits = 0;
  for (int64_t offset : {big, -big, big + big / 2, -(big + big / 2)}) {
    Coord at;
    at.set("m", offset);
    auto l = TileLayout::create({{2, 1, "m"}, {1, 7, "m"}, {3, 0, "laneid"}},
                                {{2, -big, "m"}, {1, 5, "m"}, {2, 0, "m"}}, at);
    if (!l)
      continue;
    ++checkedNearLimits;
    TileLayout c = canonicalize(*l);
    auto rebuilt = TileLayout::create(
        IterList(c.shard().begin(), c.shard().end()),
        IterList(c.replica().begin(), c.replica().end()), c.offset());
    ASSERT_TRUE(bool(rebuilt)) << l->str() << " -> " << c.str();
    ASSERT_EQ(referenceMap(c), referenceMap(*l)) << l->str();
  }
  EXPECT_GT(checkedNearLimits, 0);
}

TEST(CanonicalizeProperty, IsIdempotentAndNormal) {
  LayoutGenerator gen(0x1DE3);
  for (int i = 0; i < 4000; ++i) {
    TileLayout l = randomLayout(gen);
    TileLayout c = canonicalize(l);
    ASSERT_EQ(canonicalize(c), c) << l.str();
    // No rule applies any more (checked directly, not via canonicalize).
    auto shard = c.shard();
    for (size_t k = 0; k < shard.size(); ++k) {
      ASSERT_GT(shard[k].extent, 1) << c.str();
      if (shard[k].stride == 0) {
        ASSERT_EQ(shard[k].axis, "m") << c.str();
      }
      if (k + 1 < shard.size() && shard[k].axis == shard[k + 1].axis) {
        ASSERT_NE(shard[k].stride, shard[k + 1].extent * shard[k + 1].stride)
            << c.str();
      }
    }
    for (const Iter &r : c.replica()) {
      ASSERT_GT(r.extent, 1) << c.str();
      ASSERT_GT(r.stride, 0) << c.str();
      for (const Iter &q : c.replica())
        if (&q != &r && q.axis == r.axis && q.stride % r.stride == 0) {
          ASSERT_GT(q.stride / r.stride, r.extent) << c.str();
        }
    }
    ASSERT_TRUE(std::is_sorted(c.replica().begin(), c.replica().end(),
                               [](const Iter &a, const Iter &b) {
                                 return std::tie(a.axis, a.stride, a.extent) <
                                        std::tie(b.axis, b.stride, b.extent);
                               }))
        << c.str();
  }
}

TEST(CanonicalizeProperty, RewrittenLayoutsHaveEqualFormsUnderTheGapCondition) {
  LayoutGenerator gen(0x6A9);
  int underGap = 0;
  for (int i = 0; i < 4000; ++i) {
    TileLayout l = randomLayout(gen);
    TileLayout m = rewriteRandomly(l, gen);
    // The rewrites themselves are checked against the reference.
    ASSERT_TRUE(sameMap(l, m)) << l.str() << " vs " << m.str();
    Result<bool> eq = equivalent(l, m);
    ASSERT_TRUE(eq && *eq) << l.str() << " vs " << m.str() << eq.message();
    if (satisfiesGapCondition(l) && satisfiesGapCondition(m)) {
      ++underGap;
      ASSERT_EQ(canonicalize(l), canonicalize(m))
          << l.str() << " vs " << m.str();
    }
  }
  EXPECT_GT(underGap, 2000); // the property was exercised
}

/// A small random change that usually (not always) changes the map.
TileLayout perturb(const TileLayout &layout, LayoutGenerator &gen) {
  Parts p(layout);
  switch (gen.uniform(0, 3)) {
  case 0:
    if (!p.shard.empty())
      p.shard[gen.uniform(0, p.shard.size() - 1)].stride += gen.coin() ? 1 : -1;
    break;
  case 1:
    if (!p.replica.empty())
      p.replica[gen.uniform(0, p.replica.size() - 1)].stride += 1;
    break;
  case 2:
    p.offset.add(gen.axis(), gen.coin() ? 1 : -1);
    break;
  case 3:
    if (!p.shard.empty())
      p.shard[gen.uniform(0, p.shard.size() - 1)].axis = gen.axis();
    break;
  }
  return p.build();
}

TEST(EquivalentProperty, AgreesWithBruteForce) {
  LayoutGenerator gen(0xE9);
  int equal = 0, different = 0;
  for (int i = 0; i < 4000; ++i) {
    TileLayout l = randomLayout(gen);
    TileLayout m = rewriteRandomly(l, gen);
    if (i % 2)
      m = perturb(m, gen);
    if (i % 7 == 0) // an unrelated layout of the same size
      m = make({{l.size(), gen.uniform(-3, 3), gen.axis()}},
               {{gen.uniform(1, 3), gen.uniform(1, 4), "m"}});
    bool expected = sameMap(l, m);
    Result<bool> got = equivalent(l, m);
    ASSERT_TRUE(bool(got)) << got.message();
    ASSERT_EQ(*got, expected) << l.str() << " vs " << m.str();
    Result<bool> back = equivalent(m, l);
    ASSERT_TRUE(back && *back == expected) << m.str() << " vs " << l.str();
    (expected ? equal : different)++;
  }
  EXPECT_GT(equal, 1000);
  EXPECT_GT(different, 1000);
}

//===----------------------------------------------------------------------===//
// Exhaustive small families: every map's representations, side by side
//===----------------------------------------------------------------------===//

/// Buckets layouts by their reference map, then checks, within each bucket,
/// that forms satisfying the gap condition are equal and that equivalent()
/// says yes; across neighbouring buckets of one size, that it says no.
void checkFamily(const std::vector<TileLayout> &family) {
  std::map<std::pair<int64_t, std::vector<PointSet>>, std::vector<size_t>>
      buckets;
  for (size_t i = 0; i < family.size(); ++i)
    buckets[{family[i].size(), referenceMap(family[i])}].push_back(i);
  const TileLayout *previous = nullptr;
  for (const auto &[key, members] : buckets) {
    const TileLayout &first = family[members.front()];
    std::optional<TileLayout> gapForm;
    for (size_t i : members) {
      const TileLayout &l = family[i];
      if (satisfiesGapCondition(l)) {
        if (!gapForm)
          gapForm = canonicalize(l);
        ASSERT_EQ(canonicalize(l), *gapForm) << l.str();
      }
      Result<bool> eq = equivalent(first, l);
      ASSERT_TRUE(eq && *eq) << first.str() << " vs " << l.str();
    }
    // Buckets are ordered by size, then map: neighbours differ.
    if (previous && previous->size() == first.size()) {
      Result<bool> eq = equivalent(*previous, first);
      ASSERT_TRUE(eq && !*eq) << previous->str() << " vs " << first.str();
    }
    previous = &first;
  }
}

TEST(CanonicalizeExhaustive, ShardsOverTwoAxes) {
  // Every shard of up to three iters with extents {1, 2, 4}, strides
  // {-1, 0, 1, 2, 4} and axes {m, tx}: the base map alone fixes the form.
  std::vector<Iter> choices;
  for (int64_t e : {1, 2, 4})
    for (int64_t s : {-1, 0, 1, 2, 4})
      for (const char *a : {"m", "tx"})
        choices.push_back({e, s, a});
  std::vector<TileLayout> family{TileLayout()};
  for (const Iter &x : choices) {
    family.push_back(make({x}));
    for (const Iter &y : choices) {
      family.push_back(make({x, y}));
      for (const Iter &z : choices)
        family.push_back(make({x, y, z}));
    }
  }
  checkFamily(family);
}

TEST(CanonicalizeExhaustive, ReplicasOnOneAxis) {
  // Every multiset of up to three replica iters with extents 1..4 and
  // strides -3..6 on m, over a two-element shard: many share a set.
  std::vector<Iter> choices;
  for (int64_t e = 1; e <= 4; ++e)
    for (int64_t s = -3; s <= 6; ++s)
      choices.push_back({e, s, "m"});
  std::vector<TileLayout> family;
  Iter shard{2, 1, "tx"};
  for (size_t i = 0; i < choices.size(); ++i) {
    family.push_back(make({shard}, {choices[i]}));
    for (size_t j = i; j < choices.size(); ++j) {
      family.push_back(make({shard}, {choices[i], choices[j]}));
      for (size_t k = j; k < choices.size(); ++k)
        family.push_back(make({shard}, {choices[i], choices[j], choices[k]}));
    }
  }
  checkFamily(family);
}

} // namespace
