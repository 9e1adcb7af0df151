//===- RobustParseTest.cpp - Robustness of parsing and queries ------------===//
//
// Mutated and random notation fed to the parsers (every layout that parses
// reprints and reparses to itself, and its queries neither crash nor
// overflow), and layout queries at the int64 limits. See RobustnessUtil.h.
//
//===----------------------------------------------------------------------===//

#include "LayoutTestUtil.h"
#include "RobustnessUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Swizzle.h"

#include "gtest/gtest.h"

#include <climits>

using namespace axe;
using namespace axe::testing;
using namespace axe::testing::robust;

namespace {

//===----------------------------------------------------------------------===//
// (a) Parsing mutated and random text
//===----------------------------------------------------------------------===//

const char *const kSeeds[] = {
    "S[(128, 2, 64) : (64, 8192, 1)]",
    "S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]",
    "S[(4, 8) : (1@warpid, 1@laneid)] + R[2 : 64@tx] + 3 + 1@laneid",
    "S[8 : 1] + R[(2, 4) : (-1@P, 0)] + -7@F",
    "S[() : ()]",
    "S[1 : 0]",
    "S[(64, 2, 4) : (1@TLane, 64@TLane, 1@TCol)] + R[() : ()]",
    "SW(3, 3, 3) o S[(8, 64) : (64, 1)]",
    "SW(0, 0, 0) o S[(8, 64) : (64, 1)] + 4",
    "S[(3037000499, 3037000499) : (1, 3037000499)]",
    "S[2 : 4611686018427387903]",
    "S[2 : -4611686018427387903] + R[2 : 4611686018427387903@F]",
    "S[2 : 1] + 9223372036854775805",
    "S[(2, 2) : (1, -1)] + -9223372036854775805@user_axis",
};

const char *const kFragments[] = {
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "99999999999999999999999999999",
    "4611686018427387904",
    "3037000500",
    "0",
    "-1",
    "+",
    "-",
    "(",
    ")",
    "((((((((((((((((",
    "))))))))",
    "()",
    "[",
    "]",
    "[]",
    ":",
    ",",
    ",,",
    "@",
    "@m",
    "@1x",
    "@_",
    "@laneid",
    " + ",
    "R[",
    "S[",
    "SW(",
    " o ",
    "+ R[2 : 1]",
    "+ R[(2, 2) : (1, 1)]",
    "+ 5@laneid",
    "+ 9223372036854775807",
    "+ -9223372036854775808",
    "\t",
    " ",
    "\xff",
    "\xc3\xa9",
};

std::string fragment(LayoutGenerator &gen) {
  if (gen.coin(0.05))
    return std::string(1, '\0');
  return kFragments[gen.uniform(0, std::size(kFragments) - 1)];
}

std::string mutate(LayoutGenerator &gen, std::string s) {
  int steps = gen.uniform(1, 4);
  for (int i = 0; i < steps; ++i) {
    size_t n = s.size();
    size_t at = n ? gen.uniform(0, n - 1) : 0;
    switch (gen.uniform(0, 6)) {
    case 0: // drop a range
      if (n)
        s.erase(at, gen.uniform(1, 4));
      break;
    case 1: // insert a fragment
      s.insert(n ? gen.uniform(0, n) : 0, fragment(gen));
      break;
    case 2: // replace a character
      if (n)
        s[at] = char(gen.uniform(0, 255));
      break;
    case 3: { // replace a number with an extreme one
      size_t start = s.find_first_of("0123456789", at);
      if (start == std::string::npos)
        break;
      size_t end = s.find_first_not_of("0123456789", start);
      s.replace(start, end == std::string::npos ? end : end - start,
                fragment(gen));
      break;
    }
    case 4: // duplicate a substring
      if (n)
        s.insert(at, s.substr(at, gen.uniform(1, 12)));
      break;
    case 5: // truncate
      s.resize(at);
      break;
    default: // empty a part
      if (size_t open = s.find_first_of("([", at); open != std::string::npos)
        if (size_t close = s.find_first_of(")]", open);
            close != std::string::npos)
          s.erase(open + 1, close - open - 1);
      break;
    }
  }
  return s;
}

std::string randomText(LayoutGenerator &gen) {
  std::string s = gen.coin(0.7) ? "S[" : "";
  int n = gen.uniform(0, 30);
  for (int i = 0; i < n; ++i)
    s += gen.coin(0.3) ? std::to_string(gen.uniform(-100, 100)) : fragment(gen);
  return s;
}

/// Queries on a parsed layout (possibly with huge extents, strides and
/// offsets) that must neither crash nor overflow.
void exerciseLayout(const TileLayout &l) {
  SCOPED_TRACE(l.str());
  (void)l.size();
  (void)l.replicaCount();
  (void)l.axes();
  Coord span = l.span();
  for (const std::string &axis : l.axes())
    EXPECT_EQ(span.get(axis), l.span(axis));
  TileLayout c = canonicalize(l);
  EXPECT_EQ(canonicalize(c), c);
  EXPECT_TRUE(sameMap(c, l));
  Result<bool> same = equivalent(l, c);
  EXPECT_TRUE(!same || *same) << same.message();
  Result<GroupedLayout> g = group(l, {l.size()});
  EXPECT_TRUE(bool(g)) << g.message();
  if (g) {
    EXPECT_TRUE(sameMap(g->layout, l));
  }
  // Every coordinate of a layout lies strictly inside the int64 range.
  Coord far;
  far.set("m", kMin);
  far.set("laneid", kMax);
  Result<int64_t> none = l.inverse(far);
  EXPECT_FALSE(bool(none)) << *none;
  if (!checkable(l))
    return;
  for (int64_t f : {int64_t(0), l.size() - 1}) {
    EXPECT_EQ(toPointSet(l.apply(f)), referenceApply(l, f));
    Coord image = l.apply(f).front();
    Result<int64_t> back = l.inverse(image);
    ASSERT_TRUE(bool(back)) << back.message();
    EXPECT_TRUE(referenceApply(l, *back).count(toPoint(image)));
    EXPECT_LE(*back, f);
  }
}

void checkParse(const std::string &text) {
  SCOPED_TRACE("input '" + text + "'");
  Result<TileLayout> t = parseTileLayout(text);
  if (t) {
    Result<TileLayout> again = parseTileLayout(t->str());
    ASSERT_TRUE(bool(again)) << t->str() << ": " << again.message();
    EXPECT_EQ(*again, *t);
    EXPECT_EQ(again->str(), t->str());
    exerciseLayout(*t);
  } else {
    EXPECT_FALSE(t.message().empty());
  }
  Result<Layout> l = parseLayout(text);
  if (l) {
    Result<Layout> again = parseLayout(l->str());
    ASSERT_TRUE(bool(again)) << l->str() << ": " << again.message();
    EXPECT_EQ(*again, *l);
    EXPECT_EQ(again->str(), l->str());
    if (checkable(l->tile()) && l->size() > 0) {
      Result<int64_t> back = l->inverse(l->apply(0).front());
      EXPECT_TRUE(back && *back == 0) << back.message();
    }
  } else {
    EXPECT_FALSE(l.message().empty());
  }
}

TEST(RobustParse, SeedsRoundTrip) {
  for (const char *seed : kSeeds) {
    SCOPED_TRACE(seed);
    Result<Layout> l = parseLayout(seed);
    ASSERT_TRUE(bool(l)) << l.message();
    checkParse(seed);
  }
}

TEST(RobustParse, MutatedLayouts) {
  LayoutGenerator gen(fuzzSeed(1101));
  int accepted = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string text =
        mutate(gen, kSeeds[gen.uniform(0, std::size(kSeeds) - 1)]);
    checkParse(text);
    accepted += bool(parseLayout(text));
    if (::testing::Test::HasFatalFailure())
      return;
  }
  // The mutations keep a fair share valid, so the round trip is exercised.
  EXPECT_GT(accepted, 1000);
}

TEST(RobustParse, RandomText) {
  LayoutGenerator gen(fuzzSeed(1102));
  for (int n = 0; n < 5000; ++n) {
    checkParse(randomText(gen));
    if (::testing::Test::HasFatalFailure())
      return;
  }
}

TEST(RobustParse, ReprintsRandomLayouts) {
  ExtremeGenerator gen(fuzzSeed(1103));
  for (int n = 0; n < 2000; ++n) {
    TileLayout l = gen.extreme();
    checkParse(l.str());
    if (gen.coin(0.3)) {
      Result<Swizzle> sw = Swizzle::create(gen.uniform(0, 4), gen.uniform(0, 3),
                                           gen.uniform(3, 6));
      ASSERT_TRUE(bool(sw));
      checkParse(Layout(*sw, l).str());
    }
  }
}

TEST(RobustParse, IntegerLimits) {
  // The extremes that fit are read exactly; one past them is refused.
  EXPECT_TRUE(bool(parseTileLayout("S[2 : 4611686018427387903]")));
  EXPECT_FALSE(bool(parseTileLayout("S[2 : 9223372036854775808]")));
  EXPECT_FALSE(bool(parseTileLayout("S[2 : -9223372036854775809]")));
  EXPECT_FALSE(bool(parseTileLayout("S[2 : -9223372036854775808]")));
  EXPECT_FALSE(bool(parseTileLayout("S[9223372036854775807 : 2]")));
  EXPECT_FALSE(bool(parseTileLayout("S[(4294967296, 4294967296) : (0, 0)]")));
  EXPECT_TRUE(bool(parseTileLayout("S[1 : 0] + 9223372036854775806")));
  EXPECT_FALSE(bool(parseTileLayout("S[1 : 0] + -9223372036854775808")));
  EXPECT_FALSE(bool(parseLayout("SW(2147483648, 0, 0) o S[1 : 1]")));
  EXPECT_FALSE(bool(parseLayout("SW(-1, 0, 0) o S[1 : 1]")));
}

TEST(RobustParse, RepeatedOffsetsOverflow) {
  // Found by the mutation fuzzer: offsets on one axis were summed unchecked.
  Result<TileLayout> l = parseTileLayout("S[1 : 0] + 9223372036854775807 + 1");
  ASSERT_FALSE(bool(l));
  EXPECT_NE(l.message().find("int64"), std::string::npos) << l.message();
  l = parseTileLayout("S[1 : 0] + -9223372036854775807 + -2@m");
  EXPECT_FALSE(bool(l));
  // Offsets that cancel are fine.
  l = parseTileLayout("S[1 : 0] + 9223372036854775806 + -9223372036854775806");
  ASSERT_TRUE(bool(l)) << l.message();
  EXPECT_EQ(l->str(), "S[1 : 0]");
}

TEST(RobustParse, SwizzleParameterSumOverflow) {
  // M + B + S was summed in int: 3 * 2^30 overflowed.
  Result<Layout> l =
      parseLayout("SW(1073741824, 1073741824, 1073741824) o S[1 : 1]");
  ASSERT_FALSE(bool(l));
  EXPECT_NE(l.message().find("3221225472"), std::string::npos) << l.message();
  EXPECT_FALSE(bool(Swizzle::create(INT_MAX, INT_MAX, INT_MAX)));
  EXPECT_FALSE(bool(Swizzle::create(INT_MIN, 0, 0)));
}

TEST(RobustParse, ManyIters) {
  // Extent-1 iters are unbounded in number; inverse used to recurse once per
  // iter and overflow the stack.
  const int n = 100000;
  std::string extents, strides;
  for (int i = 0; i < n; ++i) {
    extents += i ? ", 1" : "1";
    strides += i ? ", 0" : "0";
  }
  std::string text = "S[(" + extents + ", 2) : (" + strides + ", 3)] + " +
                     "R[(" + extents + ") : (" + strides + ")]";
  Result<TileLayout> l = parseTileLayout(text);
  ASSERT_TRUE(bool(l)) << l.message().substr(0, 200);
  EXPECT_EQ(l->shard().size(), size_t(n + 1));
  Result<int64_t> back = l->inverse(coord({{"m", 3}}));
  ASSERT_TRUE(bool(back)) << back.message().substr(0, 200);
  EXPECT_EQ(*back, 1);
  EXPECT_EQ(canonicalize(*l).str(), "S[2 : 3]");
  Result<TileLayout> again = parseTileLayout(l->str());
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(*again, *l);
}

TEST(RobustParse, DeepNestingAndLongInputs) {
  std::string deep = "S[" + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + " : 1]";
  Result<TileLayout> l = parseTileLayout(deep);
  EXPECT_FALSE(bool(l));
  EXPECT_FALSE(l.message().empty());
  EXPECT_FALSE(bool(parseLayout("SW(" + std::string(100000, '(') + ")")));
  std::string offsets = "S[1 : 0]";
  for (int i = 0; i < 20000; ++i)
    offsets += " + 1@a" + std::to_string(i % 7);
  l = parseTileLayout(offsets);
  ASSERT_TRUE(bool(l));
  EXPECT_EQ(l->offset().get("a3"), 20000 / 7);
  for (const char *text : {"",
                           " ",
                           "S",
                           "S[",
                           "S[]",
                           "S[:]",
                           "S[( : )]",
                           "S[() : ]",
                           "S[1 :]",
                           "S[: 1]",
                           "S[1 : 1",
                           "S[1 : 1]]",
                           "S[1 : 1] +",
                           "S[1 : 1] + R",
                           "S[1 : 1] + R[]",
                           "S[1 : 1] + @m",
                           "S[1 : 1@]",
                           "S[1 : 1@@m]",
                           "S[(1,) : (1,)]",
                           "S[(,1) : (,1)]",
                           "S[0 : 1]",
                           "S[-1 : 1]",
                           "S[1 : 1] + R[0 : 1]",
                           "S[1 : 1] + 1 + R[2 : 1]",
                           "SW",
                           "SW(",
                           "SW()",
                           "SW(1, 1) o S[1 : 1]",
                           "SW(1, 1, 1)",
                           "SW(1, 1, 1) o",
                           "SW(1, 2, 1) o "
                           "S[1 : 1]",
                           "SW(1, 1, 1) o SW(1, 1, 1) o S[1 : 1]"}) {
    SCOPED_TRACE(text);
    checkParse(text);
    EXPECT_FALSE(bool(parseLayout(text)));
  }
}

//===----------------------------------------------------------------------===//
// (b) Layout queries at the limits
//===----------------------------------------------------------------------===//

TEST(RobustQueries, ShapeHelpers) {
  for (Vec shape : {Vec{}, Vec{0}, Vec{-1}, Vec{kMin}, Vec{kMax, 2},
                    Vec{3037000500, 3037000500}, Vec{kMax}, Vec{2, 0, 2}}) {
    Result<int64_t> n = shapeSize(shape);
    expectReason(n, shapeStr(shape));
    if (n) {
      EXPECT_GE(*n, 1);
    }
  }
  EXPECT_EQ(*shapeSize({}), 1);
  EXPECT_EQ(*shapeSize({kMax}), kMax);
  // flattenCoord used to overflow when the shape's size does not fit.
  int64_t b = int64_t(1) << 40;
  Result<int64_t> f = flattenCoord({b - 1, b - 1}, {b, b});
  ASSERT_FALSE(bool(f));
  EXPECT_NE(f.message().find("overflows"), std::string::npos) << f.message();
  EXPECT_EQ(*flattenCoord({0, kMax - 1}, {1, kMax}), kMax - 1);
  EXPECT_FALSE(bool(flattenCoord({1}, {1})));
  EXPECT_FALSE(bool(flattenCoord({-1}, {4})));
  EXPECT_FALSE(bool(flattenCoord({kMin}, {kMax})));
  EXPECT_FALSE(bool(flattenCoord({0}, {0})));
  EXPECT_FALSE(bool(flattenCoord({0}, {4, 4})));
}

TEST(RobustQueries, ApplyAndInverseAtTheLimits) {
  ExtremeGenerator gen(fuzzSeed(1201));
  for (int n = 0; n < 2000; ++n) {
    TileLayout l = gen.extreme();
    SCOPED_TRACE(l.str());
    Shape shape = gen.shape(l.size());
    Vec x;
    for (int64_t d : shape)
      x.push_back(gen.coin(0.8) && d > 0 ? gen.uniform(0, d - 1)
                                         : gen.bigValue());
    if (gen.coin(0.1))
      x.push_back(0);
    Result<llvm::SmallVector<Coord, 4>> images = l.apply(x, shape);
    expectReason(images, shapeStr(shape));
    if (images && fewReplicas(l)) {
      EXPECT_EQ(toPointSet(*images),
                referenceApply(l, *flattenCoord(x, shape)));
    }
    // Arbitrary points, far from the image too.
    Coord at;
    for (const std::string &axis : l.axes())
      if (gen.coin())
        at.set(axis, gen.bigValue());
    if (gen.coin(0.2))
      at.set("nowhere", gen.bigValue());
    Result<int64_t> back = l.inverse(at);
    expectReason(back, at.str());
    if (back && checkable(l)) {
      EXPECT_TRUE(referenceApply(l, *back).count(toPoint(at))) << at.str();
    }
    Result<Shape> coord = l.inverse(at, shape);
    expectReason(coord, at.str());
  }
}

TEST(RobustQueries, InverseBeyondTheOffset) {
  // physical - offset used to overflow.
  TileLayout l = parseOrDie("S[2 : 1] + 5");
  Coord at;
  at.set("m", kMin);
  EXPECT_FALSE(bool(l.inverse(at)));
  l = parseOrDie("S[2 : 1] + -9223372036854775805");
  at.set("m", kMax);
  EXPECT_FALSE(bool(l.inverse(at)));
  at.set("m", -9223372036854775805 + 1);
  Result<int64_t> back = l.inverse(at);
  ASSERT_TRUE(bool(back)) << back.message();
  EXPECT_EQ(*back, 1);
}

} // namespace
