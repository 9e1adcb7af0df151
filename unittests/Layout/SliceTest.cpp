//===- SliceTest.cpp - Layouts of box regions, known and aligned starts ---===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"

#include "gtest/gtest.h"

#include <limits>
#include <set>

using namespace axe;
using namespace axe::testing;

namespace {

/// Checks sliced(y) + extra == layout(lo + y) for every y of the region.
::testing::AssertionResult satisfiesSlice(const TileLayout &sliced,
                                          const TileLayout &layout,
                                          const Vec &shape, const Vec &lo,
                                          const Vec &lengths,
                                          const Point &extra = {}) {
  if (::testing::AssertionResult sized = hasBoxSize(sliced, lengths); !sized)
    return sized;
  int64_t n = sliced.size();
  for (int64_t y = 0; y < n; ++y) {
    Vec x = referenceUnflatten(y, lengths);
    for (size_t d = 0; d < x.size(); ++d)
      x[d] += lo[d];
    PointSet expected = referenceApply(layout, referenceFlatten(x, shape));
    if (shifted(referenceApply(sliced, y), extra) != expected)
      return ::testing::AssertionFailure()
             << sliced.str() << " differs from " << layout.str()
             << " at region index " << y;
  }
  return ::testing::AssertionSuccess();
}

/// The grouping a caller uses to add an unknown start's contribution: the
/// layout as written, or its canonical form (same contributions).
std::optional<GroupedLayout> groupForCaller(const TileLayout &layout,
                                            const Vec &shape) {
  Result<GroupedLayout> g = group(layout, shape);
  if (!g)
    g = group(canonicalize(layout), shape);
  if (!g)
    return std::nullopt;
  return *g;
}

/// Checks a slice with unknown starts at every allowed start combination,
/// completing the offset with dimContribution.
::testing::AssertionResult
satisfiesAlignedSlice(const TileLayout &sliced, const TileLayout &layout,
                      const Vec &shape, llvm::ArrayRef<SliceStart> starts,
                      const Vec &lengths) {
  std::optional<GroupedLayout> grouped = groupForCaller(layout, shape);
  if (!grouped)
    return ::testing::AssertionFailure() << "the layout does not group";
  const GroupedLayout &g = *grouped;
  std::vector<Vec> choices;
  for (size_t d = 0; d < shape.size(); ++d) {
    Vec allowed;
    if (starts[d].known)
      allowed.push_back(starts[d].value);
    else
      for (int64_t v = 0; v + lengths[d] <= shape[d]; v += starts[d].alignment)
        allowed.push_back(v);
    choices.push_back(allowed);
  }
  Vec pick(shape.size(), 0);
  while (true) {
    Vec lo(shape.size());
    Coord extra;
    for (size_t d = 0; d < shape.size(); ++d) {
      lo[d] = choices[d][pick[d]];
      if (!starts[d].known)
        extra += g.dimContribution(d, lo[d]);
    }
    ::testing::AssertionResult r =
        satisfiesSlice(sliced, layout, shape, lo, lengths, toPoint(extra));
    if (!r)
      return r << " (starts " << shapeStr(lo) << ")";
    size_t d = 0;
    while (d < shape.size() && ++pick[d] == int64_t(choices[d].size()))
      pick[d++] = 0;
    if (d == shape.size())
      return ::testing::AssertionSuccess();
  }
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

//===----------------------------------------------------------------------===//
// Worked examples and messages
//===----------------------------------------------------------------------===//

const char *kSpecLayout = "S[(128,2,64):(64,8192,1)]";

TEST(Slice, SpecExample) {
  TileLayout l = parseOrDie(kSpecLayout);
  Result<TileLayout> s = slice(l, {128, 128}, Vec{0, 32}, {128, 64});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_EQ(s->str(), "S[(128, 2, 32) : (64, 8160, 1)] + 32");
  EXPECT_TRUE(satisfiesSlice(*s, l, {128, 128}, {0, 32}, {128, 64}));
}

TEST(Slice, NoWrapAndPeeling) {
  TileLayout l = parseOrDie(kSpecLayout);
  Result<TileLayout> s = slice(l, {128, 128}, Vec{16, 64}, {32, 64});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_EQ(s->str(), "S[(32, 64) : (64, 1)] + 9216");
  Result<TileLayout> one = slice(l, {128, 128}, Vec{5, 70}, {1, 1});
  ASSERT_TRUE(bool(one)) << one.message();
  EXPECT_TRUE(one->shard().empty());
  EXPECT_EQ(one->offset().get("m"), 5 * 64 + 8192 + 6);
}

TEST(Slice, KeepsReplicasAndOffset) {
  TileLayout l = parseOrDie("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + "
                            "R[2:4@warpid] + 5@warpid");
  Result<TileLayout> s = slice(l, {8, 16}, Vec{2, 8}, {4, 8});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_TRUE(satisfiesSlice(*s, l, {8, 16}, {2, 8}, {4, 8}));
  EXPECT_EQ(s->replica(), l.replica());
}

TEST(Slice, WrapAtUnalignedStartSaysWhatWouldFit) {
  TileLayout l = parseOrDie("S[(2,2,4):(100,10,1)]");
  Result<TileLayout> s = slice(l, {2, 8}, Vec{0, 3}, {2, 4});
  ASSERT_FALSE(bool(s));
  EXPECT_TRUE(contains(s.message(), "slice of dim 1 [3, 7) crosses a wrap of "
                                    "an iter of extent 4"))
      << s.message();
  EXPECT_TRUE(contains(s.message(), "align the start to 4")) << s.message();
  // And the suggestion works.
  EXPECT_TRUE(bool(slice(l, {2, 8}, Vec{0, 4}, {2, 4})));
}

TEST(Slice, OneWrapAcrossTwoAxesIsRefused) {
  TileLayout l = parseOrDie("S[(2,4):(1@warpid,1@laneid)]");
  Result<TileLayout> s = slice(l, {8}, Vec{2}, {4});
  ASSERT_FALSE(bool(s));
  EXPECT_TRUE(contains(s.message(), "more than one axis")) << s.message();
  // On one axis, the same region is two halves.
  TileLayout m = parseOrDie("S[(2,4):(16,1)]");
  Result<TileLayout> ok = slice(m, {8}, Vec{2}, {4});
  ASSERT_TRUE(bool(ok)) << ok.message();
  EXPECT_EQ(ok->str(), "S[(2, 2) : (14, 1)] + 2");
}

TEST(Slice, CarryPastTheLeftDigit) {
  // The left digit is at its last value: the carry runs one digit further.
  TileLayout l = parseOrDie("S[(2,2,4):(100,10,1)]");
  Result<TileLayout> s = slice(l, {16}, Vec{6}, {4});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_TRUE(satisfiesSlice(*s, l, {16}, {6}, {4}));
  EXPECT_EQ(s->str(), "S[(2, 2) : (88, 1)] + 12");
}

TEST(Slice, RejectsBadRegions) {
  TileLayout l = parseOrDie(kSpecLayout);
  Result<TileLayout> rank = slice(l, {128, 128}, Vec{0}, Vec{4});
  ASSERT_FALSE(bool(rank));
  EXPECT_TRUE(contains(rank.message(), "rank")) << rank.message();
  Result<TileLayout> out = slice(l, {128, 128}, Vec{0, 100}, {4, 64});
  ASSERT_FALSE(bool(out));
  EXPECT_TRUE(contains(out.message(), "dim 1 [100, 164) is outside"))
      << out.message();
  Result<TileLayout> empty = slice(l, {128, 128}, Vec{0, 0}, {0, 4});
  ASSERT_FALSE(bool(empty));
  EXPECT_TRUE(contains(empty.message(), "length 0")) << empty.message();
  Result<TileLayout> shape = slice(l, {128, 64}, Vec{0, 0}, {4, 4});
  ASSERT_FALSE(bool(shape));
  EXPECT_TRUE(contains(shape.message(), "does not admit")) << shape.message();
  SliceStart bad = SliceStart::aligned(0);
  Result<TileLayout> align = slice(
      l, {128, 128},
      llvm::SmallVector<SliceStart, 2>{SliceStart::constant(0), bad}, {4, 4});
  ASSERT_FALSE(bool(align));
  EXPECT_TRUE(contains(align.message(), "alignment 0")) << align.message();
}

TEST(Slice, HugeStartsAreRefused) {
  TileLayout l = parseOrDie(kSpecLayout);
  int64_t huge = std::numeric_limits<int64_t>::max();
  Result<TileLayout> s = slice(l, {128, 128}, Vec{0, huge}, {4, 4});
  ASSERT_FALSE(bool(s));
  EXPECT_TRUE(contains(s.message(), "is outside")) << s.message();
  llvm::SmallVector<SliceStart, 2> starts{SliceStart::constant(0),
                                          SliceStart::aligned(huge)};
  Result<TileLayout> t = slice(l, {128, 128}, starts, {4, 4});
  ASSERT_TRUE(bool(t)) << "only start 0 is in range: " << t.message();
  EXPECT_EQ(t->str(), "S[(4, 4) : (64, 1)]");
}

TEST(SliceAligned, TileLoopOverColumns) {
  TileLayout l = parseOrDie(kSpecLayout);
  llvm::SmallVector<SliceStart, 2> starts{SliceStart::aligned(16),
                                          SliceStart::aligned(32)};
  Result<TileLayout> s = slice(l, {128, 128}, starts, {16, 32});
  ASSERT_TRUE(bool(s)) << s.message();
  // The offset leaves out both unknown starts' contributions.
  EXPECT_EQ(s->str(), "S[(16, 32) : (64, 1)]");
  EXPECT_TRUE(satisfiesAlignedSlice(*s, l, {128, 128}, starts, {16, 32}));
}

TEST(SliceAligned, WrapSaysWhichAlignmentWorks) {
  TileLayout l = parseOrDie(kSpecLayout);
  llvm::SmallVector<SliceStart, 2> starts{SliceStart::constant(0),
                                          SliceStart::aligned(32)};
  Result<TileLayout> s = slice(l, {128, 128}, starts, {128, 64});
  ASSERT_FALSE(bool(s));
  EXPECT_TRUE(contains(s.message(), "crosses a wrap of an iter of extent 64"))
      << s.message();
  EXPECT_TRUE(contains(s.message(), "align the start to 64")) << s.message();
  starts[1] = SliceStart::aligned(64);
  Result<TileLayout> ok = slice(l, {128, 128}, starts, {128, 64});
  ASSERT_TRUE(bool(ok)) << ok.message();
  EXPECT_TRUE(satisfiesAlignedSlice(*ok, l, {128, 128}, starts, {128, 64}));
}

TEST(SliceAligned, NoAlignmentHelps) {
  TileLayout l = parseOrDie("S[(4,8):(100,1)]");
  llvm::SmallVector<SliceStart, 1> starts{SliceStart::aligned(4)};
  Result<TileLayout> s = slice(l, {32}, starts, {12});
  ASSERT_FALSE(bool(s));
  EXPECT_TRUE(contains(s.message(), "no alignment")) << s.message();
}

TEST(SliceAligned, KnownStartsMatchConstantOverload) {
  TileLayout l = parseOrDie(kSpecLayout);
  llvm::SmallVector<SliceStart, 2> starts{SliceStart::constant(8),
                                          SliceStart::constant(32)};
  Result<TileLayout> a = slice(l, {128, 128}, starts, {8, 64});
  Result<TileLayout> b = slice(l, {128, 128}, Vec{8, 32}, {8, 64});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
}

TEST(SliceAligned, OnlyStartZeroInRange) {
  TileLayout l = parseOrDie("S[(2,4):(100,1)]");
  llvm::SmallVector<SliceStart, 1> starts{SliceStart::aligned(3)};
  // Length 6 of 8: only start 0 is a multiple of 3 in range, and [0, 6) is
  // not a box of the (2, 4) block.
  Result<TileLayout> s = slice(l, {8}, starts, {6});
  EXPECT_FALSE(bool(s)) << s->str();
  Result<TileLayout> t = slice(l, {8}, starts, {8});
  ASSERT_TRUE(bool(t)) << t.message();
  EXPECT_TRUE(satisfiesAlignedSlice(*t, l, {8}, starts, {8}));
}

//===----------------------------------------------------------------------===//
// Properties against the reference model
//===----------------------------------------------------------------------===//

constexpr int kCases = 3000;

struct Case {
  TileLayout layout;
  Vec shape;
};

Case randomCase(LayoutGenerator &gen) {
  TileLayout l = gen.layout(256);
  Shape s = gen.shapeFor(l.size(), gen.uniform(1, 3));
  return {l, vec(s)};
}

/// A random layout with a shape it groups by: its shard cut into
/// consecutive runs of iters.
Case groupableCase(LayoutGenerator &gen) {
  TileLayout l = gen.layout(256);
  int rank = gen.uniform(1, 3);
  Vec cuts{0, int64_t(l.shard().size())};
  for (int d = 1; d < rank; ++d)
    cuts.push_back(gen.uniform(0, l.shard().size()));
  llvm::sort(cuts);
  Vec shape;
  for (int d = 0; d < rank; ++d) {
    int64_t n = 1;
    for (int64_t i = cuts[d]; i < cuts[d + 1]; ++i)
      n *= l.shard()[i].extent;
    shape.push_back(n);
  }
  return {l, shape};
}

TEST(SliceProperty, RandomRegionsAreRightWhenAnswered) {
  LayoutGenerator gen(41);
  int answered = 0, refused = 0;
  for (int c = 0; c < kCases; ++c) {
    Case k = gen.coin() ? groupableCase(gen) : randomCase(gen);
    Vec lo, len;
    for (int64_t n : k.shape) {
      len.push_back(gen.uniform(1, n));
      lo.push_back(gen.uniform(0, n - len.back()));
    }
    Result<TileLayout> s = slice(k.layout, k.shape, lo, len);
    if (!s) {
      ++refused;
      EXPECT_FALSE(s.message().empty());
      continue;
    }
    ++answered;
    ASSERT_TRUE(satisfiesSlice(*s, k.layout, k.shape, lo, len))
        << k.layout.str() << " " << shapeStr(k.shape) << " at " << shapeStr(lo)
        << " len " << shapeStr(len);
  }
  EXPECT_GT(answered, kCases / 4);
  EXPECT_GT(refused, 0);
}

/// The block's place value right of iter `p`.
int64_t placeRightOf(llvm::ArrayRef<Iter> block, int p) {
  int64_t place = 1;
  for (size_t i = p + 1; i < block.size(); ++i)
    place *= block[i].extent;
  return place;
}

/// A region of one dim that the spec says is sliceable at a known start:
/// peeled digits zero, then the pivot walked without a wrap, or across one
/// wrap in two halves whose step stays on one axis.
std::pair<int64_t, int64_t> sliceableRegion(LayoutGenerator &gen,
                                            const GroupedLayout &g,
                                            unsigned dim, int64_t dimSize) {
  llvm::ArrayRef<Iter> block = g.block(dim);
  if (block.empty())
    return {0, 1};
  int p = gen.uniform(0, block.size() - 1);
  int64_t place = placeRightOf(block, p), e = block[p].extent;
  for (int attempt = 0; attempt < 8; ++attempt) {
    int64_t high = 0; // the digits left of the pivot, as a number
    for (int i = 0; i < p; ++i)
      high = high * block[i].extent + gen.uniform(0, block[i].extent - 1);
    bool wrap = p > 0 && e >= 2 && gen.coin();
    int64_t u, rem;
    if (wrap) {
      int64_t half = gen.uniform(1, e - 1);
      u = e - half;
      rem = 2 * half;
    } else {
      u = gen.uniform(0, e - 1);
      rem = gen.uniform(1, e - u);
    }
    int64_t start = (high * e + u) * place, len = rem * place;
    if (start + len > dimSize)
      continue;
    if (wrap) {
      Coord a = g.dimContribution(dim, start);
      Coord b = g.dimContribution(dim, start + rem / 2 * place);
      Point step = toPoint(b);
      for (const auto &[axis, v] : a.entries())
        addTo(step, axis, -v);
      if (step.size() > 1)
        continue;
    }
    return {start, len};
  }
  return {0, 1};
}

TEST(SliceProperty, ConstructedRegionsAlwaysSlice) {
  LayoutGenerator gen(42);
  int wide = 0;
  for (int c = 0; c < kCases; ++c) {
    Case k = groupableCase(gen);
    std::optional<GroupedLayout> grouped = groupForCaller(k.layout, k.shape);
    ASSERT_TRUE(grouped) << k.layout.str() << " " << shapeStr(k.shape);
    const GroupedLayout &g = *grouped;
    Vec lo, len;
    for (size_t d = 0; d < k.shape.size(); ++d) {
      auto [start, n] = sliceableRegion(gen, g, d, k.shape[d]);
      lo.push_back(start);
      len.push_back(n);
      wide += n > 1;
    }
    Result<TileLayout> s = slice(k.layout, k.shape, lo, len);
    ASSERT_TRUE(bool(s)) << k.layout.str() << " " << shapeStr(k.shape) << " at "
                         << shapeStr(lo) << " len " << shapeStr(len) << ": "
                         << s.message();
    ASSERT_TRUE(satisfiesSlice(*s, k.layout, k.shape, lo, len))
        << k.layout.str() << " " << shapeStr(k.shape) << " at " << shapeStr(lo)
        << " len " << shapeStr(len);
  }
  EXPECT_GT(wide, kCases / 2);
}

/// A region of one dim sliceable at every multiple of the alignment: the
/// pivot's length fits in a divisor g of its extent, the alignment is a
/// multiple of g times the place.
std::pair<int64_t, int64_t> alignedRegion(LayoutGenerator &gen,
                                          llvm::ArrayRef<Iter> block) {
  if (block.empty())
    return {1, 1};
  int p = gen.uniform(0, block.size() - 1);
  int64_t place = placeRightOf(block, p), e = block[p].extent;
  Vec divisors;
  for (int64_t g = 1; g <= e; ++g)
    if (e % g == 0)
      divisors.push_back(g);
  int64_t g = divisors[gen.uniform(0, divisors.size() - 1)];
  int64_t len = gen.uniform(1, g) * place;
  return {g * place * gen.uniform(1, 3), len};
}

TEST(SliceAlignedProperty, ConstructedRegionsAlwaysSlice) {
  LayoutGenerator gen(43);
  int starts = 0;
  for (int c = 0; c < kCases; ++c) {
    Case k = groupableCase(gen);
    std::optional<GroupedLayout> grouped = groupForCaller(k.layout, k.shape);
    ASSERT_TRUE(grouped) << k.layout.str() << " " << shapeStr(k.shape);
    const GroupedLayout &g = *grouped;
    llvm::SmallVector<SliceStart, 4> st;
    Vec len;
    for (size_t d = 0; d < k.shape.size(); ++d) {
      auto [align, n] = alignedRegion(gen, g.block(d));
      st.push_back(SliceStart::aligned(align));
      len.push_back(n);
      starts += (k.shape[d] - n) / align + 1;
    }
    Result<TileLayout> s = slice(k.layout, k.shape, st, len);
    ASSERT_TRUE(bool(s)) << k.layout.str() << " " << shapeStr(k.shape)
                         << " len " << shapeStr(len) << ": " << s.message();
    ASSERT_TRUE(satisfiesAlignedSlice(*s, k.layout, k.shape, st, len))
        << k.layout.str() << " " << shapeStr(k.shape) << " len "
        << shapeStr(len);
  }
  EXPECT_GT(starts, 2 * kCases);
}

/// Whether the known-start slices at every allowed start exist and agree
/// as maps once the unknown starts' contributions are removed: then an
/// aligned slice exists. Varies one unknown dim at a time.
bool everyStartAgrees(const Case &k, llvm::ArrayRef<SliceStart> st,
                      const Vec &len, const GroupedLayout &g) {
  Vec lo(k.shape.size(), 0);
  for (size_t d = 0; d < k.shape.size(); ++d)
    if (st[d].known)
      lo[d] = st[d].value;
  std::vector<Vec> starts{lo};
  for (size_t d = 0; d < k.shape.size(); ++d)
    for (int64_t v = st[d].alignment; !st[d].known && v + len[d] <= k.shape[d];
         v += st[d].alignment) {
      starts.push_back(lo);
      starts.back()[d] = v;
    }
  std::optional<std::vector<PointSet>> first;
  for (const Vec &at : starts) {
    Result<TileLayout> s = slice(k.layout, k.shape, at, len);
    if (!s)
      return false;
    Point back;
    for (size_t e = 0; e < k.shape.size(); ++e) {
      if (st[e].known)
        continue;
      Coord c = g.dimContribution(e, at[e]);
      for (const auto &[axis, value] : c.entries())
        addTo(back, axis, -value);
    }
    std::vector<PointSet> map;
    for (int64_t y = 0; y < s->size(); ++y)
      map.push_back(shifted(referenceApply(*s, y), back));
    if (first && *first != map)
      return false;
    first = map;
  }
  return true;
}

TEST(SliceAlignedProperty, RandomRegionsAreRightWhenAnswered) {
  LayoutGenerator gen(44);
  int answered = 0, refused = 0, moving = 0;
  for (int c = 0; c < kCases; ++c) {
    Case k = gen.coin() ? groupableCase(gen) : randomCase(gen);
    llvm::SmallVector<SliceStart, 4> st;
    Vec len;
    bool severalStarts = false;
    for (int64_t n : k.shape) {
      len.push_back(gen.uniform(1, n));
      if (gen.coin(0.7)) {
        st.push_back(SliceStart::aligned(gen.uniform(1, n)));
        severalStarts |= st.back().alignment + len.back() <= n;
      } else {
        st.push_back(SliceStart::constant(gen.uniform(0, n - len.back())));
      }
    }
    std::string ctx =
        k.layout.str() + " " + shapeStr(k.shape) + " len " + shapeStr(len);
    Result<TileLayout> s = slice(k.layout, k.shape, st, len);
    if (!s) {
      ++refused;
      // A refusal where every allowed start slices alike is needless.
      if (std::optional<GroupedLayout> g = groupForCaller(k.layout, k.shape)) {
        EXPECT_FALSE(everyStartAgrees(k, st, len, *g))
            << ctx << ": " << s.message();
      }
      continue;
    }
    ++answered;
    moving += severalStarts;
    ASSERT_TRUE(satisfiesAlignedSlice(*s, k.layout, k.shape, st, len)) << ctx;
  }
  EXPECT_GT(answered, kCases / 4);
  EXPECT_GT(moving, kCases / 10);
  EXPECT_GT(refused, kCases / 10);
}

// sliceStartAxes names exactly the axes on which the placement of a region's
// first element moves as its unknown starts range over what they allow,
// by the reference model (layouts without replicas: one placement each).
TEST(SliceAlignedProperty, StartAxesAreWhereStartsMove) {
  LayoutGenerator gen(45);
  int checked = 0, nonEmpty = 0;
  for (int c = 0; c < kCases; ++c) {
    Case k = gen.coin() ? groupableCase(gen) : randomCase(gen);
    if (!k.layout.replica().empty())
      continue;
    llvm::SmallVector<SliceStart, 4> st;
    Vec len;
    for (int64_t n : k.shape) {
      len.push_back(gen.uniform(1, n));
      if (gen.coin(0.7))
        st.push_back(SliceStart::aligned(gen.uniform(1, n)));
      else
        st.push_back(SliceStart::constant(gen.uniform(0, n - len.back())));
    }
    Result<llvm::SmallVector<std::string, 4>> axes =
        sliceStartAxes(k.layout, k.shape, st, len);
    if (!axes)
      continue;
    std::set<std::string> expected;
    Vec base(k.shape.size(), 0);
    PointSet at0 = referenceApply(k.layout, referenceFlatten(base, k.shape));
    ASSERT_EQ(at0.size(), 1u);
    for (size_t d = 0; d < k.shape.size(); ++d) {
      if (st[d].known)
        continue;
      for (int64_t v = st[d].alignment; v + len[d] <= k.shape[d];
           v += st[d].alignment) {
        Vec x = base;
        x[d] = v;
        PointSet at = referenceApply(k.layout, referenceFlatten(x, k.shape));
        ASSERT_EQ(at.size(), 1u);
        Point delta = *at.begin();
        for (const auto &[axis, value] : *at0.begin())
          addTo(delta, axis, -value);
        for (const auto &[axis, value] : delta)
          expected.insert(axis);
      }
    }
    ++checked;
    nonEmpty += !expected.empty();
    EXPECT_EQ(std::set<std::string>(axes->begin(), axes->end()), expected)
        << k.layout.str() << " " << shapeStr(k.shape) << " len "
        << shapeStr(len);
  }
  EXPECT_GT(checked, kCases / 10);
  EXPECT_GT(nonEmpty, kCases / 20);
}

} // namespace
