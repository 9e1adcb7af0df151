//===- RobustnessTest.cpp - Adversarial inputs never crash the algebra ----===//
//
// LAYOUT_SPEC.md section 11: no input may crash the library or produce a
// silently wrong layout, and int64 overflow is detected and reported. These
// tests feed mutated notation to the parsers and extreme arguments (empty,
// zero, negative and huge dims, rank mismatches, regions out of bounds,
// strides and offsets near the int64 limits, bad alignments, enum values
// that are no enumerator) to every operation. Each call must either fail with
// a message or return a result that the brute-force model of BruteForce.h
// confirms (at every element of a small result, at sampled elements of a
// large one). Run under ASan and UBSan to catch undefined behaviour as well;
// set AXE_FUZZ_SEED=<n> to fuzz with other seeds.
//
//===----------------------------------------------------------------------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/Swizzle.h"
#include "axe/Layout/SwizzleAlgebra.h"
#include "axe/Layout/TargetFusion.h"

#include "gtest/gtest.h"

#include <climits>
#include <cstdlib>
#include <limits>

using namespace axe;
using namespace axe::testing;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2p62 = int64_t(1) << 62;

/// The generators' seed: `base`, moved by AXE_FUZZ_SEED when set, so that
/// a longer fuzzing session can explore other inputs with the same checks.
uint64_t fuzzSeed(uint64_t base) {
  const char *env = std::getenv("AXE_FUZZ_SEED");
  return base + (env ? std::strtoull(env, nullptr, 10) * 7919 : 0);
}

/// A failure must say why.
template <typename T>
void expectReason(const Result<T> &r, const std::string &context) {
  if (!r) {
    EXPECT_FALSE(r.message().empty()) << context;
  }
}

//===----------------------------------------------------------------------===//
// Wide-integer reference (sums of int64 coordinates may not fit in int64)
//===----------------------------------------------------------------------===//

using Big = __int128;
using BigPoint = std::map<std::string, Big>;
using BigSet = std::set<BigPoint>;

void addBig(BigPoint &p, const std::string &axis, Big v) {
  Big &slot = p[axis];
  slot += v;
  if (slot == 0)
    p.erase(axis);
}

BigSet bigApply(const TileLayout &l, int64_t flat) {
  BigSet out;
  for (const Point &p : referenceApply(l, flat))
    out.insert(BigPoint(p.begin(), p.end()));
  return out;
}

/// Small enough to enumerate every element and every replica.
bool checkable(const TileLayout &l) {
  return l.size() <= 256 && l.replicaCount() <= 16;
}

/// Few enough replicas to enumerate the image of one element.
bool fewReplicas(const TileLayout &l) { return l.replicaCount() <= 16; }

/// The flat indices a check visits: all of a small layout; the ends and a
/// fixed pseudo-random sample of a large one.
std::vector<int64_t> samples(int64_t size) {
  std::vector<int64_t> out;
  if (size <= 256) {
    for (int64_t f = 0; f < size; ++f)
      out.push_back(f);
    return out;
  }
  std::mt19937_64 rng(size);
  out = {0, 1, size / 2, size - 2, size - 1};
  for (int i = 0; i < 27; ++i)
    out.push_back(std::uniform_int_distribution<int64_t>(0, size - 1)(rng));
  return out;
}

std::string ctx(const TileLayout &l, llvm::ArrayRef<int64_t> shape) {
  return l.str() + " shape " + shapeStr(shape);
}

/// 1 + sum (e-1)|s| per axis, in wide integers.
std::map<std::string, Big> bigSpan(const TileLayout &l) {
  std::map<std::string, Big> span;
  for (auto iters : {l.shard(), l.replica()})
    for (const Iter &it : iters)
      span[it.axis] += Big(it.extent - 1) *
                       (it.stride < 0 ? -Big(it.stride) : Big(it.stride));
  for (auto &entry : span)
    entry.second += 1;
  return span;
}

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

::testing::AssertionResult sameMap(const TileLayout &a, const TileLayout &b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure()
           << a.str() << " and " << b.str() << " differ in size";
  if (!fewReplicas(a) || !fewReplicas(b))
    return ::testing::AssertionSuccess();
  for (int64_t f : samples(a.size()))
    if (referenceApply(a, f) != referenceApply(b, f))
      return ::testing::AssertionFailure()
             << a.str() << " and " << b.str() << " differ at flat index " << f;
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// Generators of adversarial arguments
//===----------------------------------------------------------------------===//

/// Small random layouts blown up toward the int64 limits: strides on each
/// axis scaled by a large factor, offsets pushed out; few elements, so the
/// brute force checks every answer. Sometimes a layout of up to 2^62
/// elements instead, checked at sampled elements.
class ExtremeGenerator : public LayoutGenerator {
public:
  using LayoutGenerator::LayoutGenerator;

  int64_t bigFactor() {
    switch (uniform(0, 4)) {
    case 0:
      return 1;
    case 1:
      return int64_t(1) << uniform(20, 61);
    case 2:
      return (int64_t(1) << uniform(30, 62)) - 1;
    case 3:
      return uniform(1, kMax / 4);
    default:
      return 3037000499; // ~sqrt(2^63)
    }
  }

  int64_t bigValue() {
    switch (uniform(0, 5)) {
    case 0:
      return uniform(-8, 8);
    case 1:
      return kMax - uniform(0, 1 << 20);
    case 2:
      return kMin + uniform(0, 1 << 20);
    case 3:
      return uniform(-k2p62, k2p62);
    case 4:
      return kMax;
    default:
      return kMin;
    }
  }

  int64_t hugeExtent() {
    switch (uniform(0, 3)) {
    case 0:
      return int64_t(1) << uniform(1, 40);
    case 1:
      return 3 * (int64_t(1) << uniform(0, 30));
    case 2:
      return uniform(2, 1 << 20);
    default:
      return (int64_t(1) << uniform(2, 31)) - 1;
    }
  }

  TileLayout huge() {
    for (int attempt = 0; attempt < 50; ++attempt) {
      IterList shard, replica;
      int64_t size = 1;
      for (int i = 0, n = uniform(1, 4); i < n; ++i) {
        Iter it = iter();
        it.extent = hugeExtent();
        if (mulOverflows(size, it.extent, size) || size > k2p62)
          break;
        if (coin(0.3))
          it.stride = coin() ? uniform(-(1 << 20), 1 << 20) : bigFactor();
        shard.push_back(it);
      }
      if (coin(0.3)) {
        Iter it = iter();
        it.extent = uniform(2, 4);
        if (coin())
          it.stride = bigFactor();
        replica.push_back(it);
      }
      Coord offset;
      if (coin(0.3))
        offset.set(axis(), bigValue());
      Result<TileLayout> out = TileLayout::create(shard, replica, offset);
      if (out)
        return *out;
    }
    return *TileLayout::create({Iter{int64_t(1) << 40, 1, "m"}});
  }

  TileLayout extreme(int64_t maxSize = 64) {
    if (coin(0.15))
      return huge();
    for (int attempt = 0;; ++attempt) {
      TileLayout base = layout(maxSize);
      if (attempt == 20)
        return base;
      std::map<std::string, int64_t> factor;
      auto scaled = [&](llvm::ArrayRef<Iter> iters, IterList &out) {
        for (Iter it : iters) {
          auto [slot, inserted] = factor.try_emplace(it.axis, 1);
          if (inserted && coin(0.6))
            slot->second = bigFactor();
          if (mulOverflows(it.stride, slot->second, it.stride))
            return false;
          out.push_back(it);
        }
        return true;
      };
      IterList shard, replica;
      if (!scaled(base.shard(), shard) || !scaled(base.replica(), replica))
        continue;
      Coord offset = base.offset();
      if (coin(0.4))
        offset.set(axis(), bigValue());
      Result<TileLayout> out = TileLayout::create(shard, replica, offset);
      if (out)
        return *out;
    }
  }

  /// A random split of `size` into `rank` dims by its prime factors (trial
  /// division; a large cofactor stays whole).
  Shape split(int64_t size, int rank) {
    Vec primes;
    int64_t rest = size;
    for (int64_t p = 2; p <= (1 << 16) && p * p <= rest; ++p)
      while (rest % p == 0) {
        primes.push_back(p);
        rest /= p;
      }
    if (rest > 1)
      primes.push_back(rest);
    Shape s(rank, 1);
    for (int64_t p : primes)
      s[uniform(0, rank - 1)] *= p;
    return s;
  }

  /// Usually a factorization of `size`; sometimes a shape no layout of that
  /// size admits, or that is not a shape at all.
  Shape shape(int64_t size) {
    if (!coin(0.25))
      return split(size, uniform(1, 3));
    switch (uniform(0, 11)) {
    case 0:
      return {};
    case 1:
      return {0};
    case 2:
      return {-size};
    case 3:
      return {size, 0};
    case 4:
      return {-1, -size};
    case 5:
      return {kMax};
    case 6:
      return {kMin};
    case 7:
      return {kMax, kMax};
    case 8:
      return {3037000500, 3037000500};
    case 9:
      return {size < kMax ? size + 1 : 0};
    case 10:
      return {int64_t(1) << 32, int64_t(1) << 32, size};
    default:
      return {1, size, 1};
    }
  }

  /// An element-wise quotient-compatible split of `shape` (inner dims
  /// dividing it), or an adversarial one.
  Shape divisorShape(llvm::ArrayRef<int64_t> shape) {
    Shape out;
    for (int64_t n : shape)
      out.push_back(n < 1 ? n : split(n, 2)[0]);
    if (coin(0.1))
      out.push_back(2);
    if (coin(0.1) && !out.empty())
      out[0] = bigValue();
    return out;
  }
};

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

//===----------------------------------------------------------------------===//
// (b) Swizzles
//===----------------------------------------------------------------------===//

/// Swizzle(M, B, S) on a wide integer: floor-periodic, bits XORed.
Big referenceSwizzle(int m, int b, int s, Big address) {
  Big p = Big(1) << (m + b + s);
  Big r = address % p;
  if (r < 0)
    r += p;
  Big x = r >> m;
  x ^= (x >> s) & ((Big(1) << b) - 1);
  return address - r + ((x << m) | (r & ((Big(1) << m) - 1)));
}

TEST(RobustSwizzle, ApplyAtTheLimits) {
  ExtremeGenerator gen(fuzzSeed(1601));
  for (int n = 0; n < 3000; ++n) {
    int b = gen.uniform(0, 20), s = gen.uniform(b, 30),
        m = gen.uniform(0, 62 - b - s);
    Result<Swizzle> sw = Swizzle::create(m, b, s);
    ASSERT_TRUE(bool(sw)) << m << " " << b << " " << s;
    int64_t a = gen.bigValue();
    int64_t y = sw->apply(a);
    EXPECT_EQ(Big(y), referenceSwizzle(m, b, s, a)) << sw->str() << " " << a;
    EXPECT_EQ(sw->apply(y), a);
  }
  for (int m : {INT_MIN, -1, 0, 1, 31, 62, 63, INT_MAX})
    for (int b : {INT_MIN, -1, 0, 1, 31, 62, INT_MAX})
      for (int s : {INT_MIN, -1, 0, 1, 31, 62, INT_MAX})
        expectReason(Swizzle::create(m, b, s), "swizzle");
}

TEST(RobustSwizzle, TilingSwizzledAtoms) {
  ExtremeGenerator gen(fuzzSeed(1602));
  int tiled = 0;
  for (int n = 0; n < 2000; ++n) {
    int b = gen.uniform(0, 2), s = gen.uniform(b, 3), m = gen.uniform(0, 2);
    Swizzle sw = *Swizzle::create(m, b, s);
    TileLayout atomTile =
        gen.coin()
            ? *TileLayout::create({Iter{int64_t(1) << (m + b + s), 1, "m"}})
            : gen.extreme(32);
    Layout atom(sw, atomTile);
    TileLayout outer = gen.extreme(16);
    Shape sa = gen.shape(atomTile.size()), sb = gen.shape(outer.size());
    if (gen.coin(0.8)) {
      sa = {atomTile.size()};
      sb = {outer.size()};
    }
    SCOPED_TRACE(atom.str() + " " + shapeStr(sa) + " outer " + ctx(outer, sb));
    Result<Layout> t = tileSwizzledAtom(atom, sa, outer, sb);
    expectReason(t, "tileSwizzledAtom");
    if (t && sa.size() == 1 && sb.size() == 1 && checkable(t->tile()) &&
        checkable(atomTile) && checkable(outer)) {
      ++tiled;
      // T(xB * SA + xA) = scale(B(xB), span(A)) + SW(A(xA)).
      std::map<std::string, Big> scale = bigSpan(atomTile);
      for (int64_t f = 0; f < t->size(); ++f) {
        int64_t xa = f % atomTile.size(), xb = f / atomTile.size();
        BigSet expected, got;
        for (const BigPoint &bp : bigApply(outer, xb))
          for (BigPoint a : bigApply(atomTile, xa)) {
            Big am = a.count("m") ? a["m"] : 0;
            a.erase("m");
            addBig(a, "m", referenceSwizzle(m, b, s, am));
            for (const auto &[axis, v] : bp) {
              auto it = scale.find(axis);
              addBig(a, axis, v * (it == scale.end() ? 1 : it->second));
            }
            expected.insert(a);
          }
        for (BigPoint p : bigApply(t->tile(), f)) {
          if (t->isSwizzled()) {
            Big pm = p.count("m") ? p["m"] : 0;
            p.erase("m");
            const Swizzle &ts = *t->swizzle();
            addBig(
                p, "m",
                referenceSwizzle(ts.perElement, ts.swizzleLen, ts.atomLen, pm));
          }
          got.insert(p);
        }
        ASSERT_EQ(got, expected) << t->str() << " at " << f;
      }
    }
    // And back.
    if (t) {
      Shape shape;
      for (size_t d = 0; d < sa.size() && sa.size() == sb.size(); ++d)
        shape.push_back(sa[d] * sb[d]);
      Result<TileLayout> back = swizzledTileOf(*t, shape, atom, sa);
      expectReason(back, "swizzledTileOf");
      if (back) {
        // Not necessarily `outer` (the atom may repeat itself), but an
        // outer layout that rebuilds the same map.
        Result<Layout> again = tileSwizzledAtom(atom, sa, *back, sb);
        ASSERT_TRUE(bool(again)) << back->str() << ": " << again.message();
        EXPECT_EQ(again->swizzle(), t->swizzle());
        EXPECT_TRUE(sameMap(again->tile(), t->tile())) << back->str();
      }
    }
    Result<TileLayout> other =
        swizzledTileOf(Layout(sw, gen.extreme()), gen.shape(64), atom, sa);
    expectReason(other, "swizzledTileOf");
  }
  EXPECT_GT(tiled, 100);
}

//===----------------------------------------------------------------------===//
// (b) Thread fusion and packing
//===----------------------------------------------------------------------===//

TileLayout threadLayout(ExtremeGenerator &gen) {
  static const char *axes[] = {"tx",        "warpid",    "laneid", "wgid",
                               "wid_in_wg", "tid_in_wg", "m"};
  TileLayout base = gen.extreme(64);
  IterList shard, replica;
  for (const Iter &it : base.shard())
    shard.push_back({it.extent, it.stride, axes[gen.uniform(0, 6)]});
  for (const Iter &it : base.replica())
    replica.push_back({it.extent, it.stride, axes[gen.uniform(0, 6)]});
  Coord offset;
  for (const auto &[axis, v] : base.offset().entries())
    offset.set(axes[gen.uniform(0, 6)], v);
  Result<TileLayout> l = TileLayout::create(shard, replica, offset);
  return l ? *l : base;
}

TEST(RobustFusion, FuseThreadAxes) {
  ExtremeGenerator gen(fuzzSeed(1701));
  int fused = 0;
  for (int n = 0; n < 4000; ++n) {
    TileLayout l = threadLayout(gen);
    ThreadHierarchy h;
    if (gen.coin(0.3)) {
      static const int64_t choices[] = {kMin, -1,         0,     1,   2,
                                        32,   3037000500, k2p62, kMax};
      h.lanesPerWarp = choices[gen.uniform(0, 8)];
      h.warpsPerWarpgroup = choices[gen.uniform(0, 8)];
    }
    SCOPED_TRACE(l.str() + " lanes " + std::to_string(h.lanesPerWarp) +
                 " warps " + std::to_string(h.warpsPerWarpgroup));
    Result<TileLayout> r = fuseThreadAxes(l, h);
    expectReason(r, "fuse");
    if (!r || !fewReplicas(l))
      continue;
    std::set<std::string> used;
    for (const std::string &a : l.axes())
      used.insert(a);
    Big lanes = h.lanesPerWarp, warps = h.warpsPerWarpgroup;
    std::map<std::string, Big> factor;
    std::string target;
    if (used.count("tx") || used.count("warpid") || used.count("wgid")) {
      target = "tx";
      factor = {{"warpid", lanes},
                {"laneid", 1},
                {"wgid", lanes * warps},
                {"wid_in_wg", lanes},
                {"tid_in_wg", 1}};
    } else if (used.count("wid_in_wg") || used.count("tid_in_wg")) {
      target = "tid_in_wg";
      factor = {{"wid_in_wg", lanes}, {"laneid", 1}};
    }
    ++fused;
    for (int64_t f : samples(l.size())) {
      BigSet expected;
      for (const BigPoint &p : bigApply(l, f)) {
        BigPoint q;
        for (const auto &[axis, v] : p) {
          auto it = factor.find(axis);
          if (it == factor.end())
            addBig(q, axis, v);
          else
            addBig(q, target, v * it->second);
        }
        expected.insert(q);
      }
      ASSERT_EQ(bigApply(*r, f), expected) << r->str();
    }
  }
  EXPECT_GT(fused, 800);
}

/// Checks the word view: element x (dim d index k*w + j) sits where word
/// (dim d index w) sits with `axis` multiplied by k, plus j.
::testing::AssertionResult isWordView(const TileLayout &elements,
                                      const Vec &shape, const TileLayout &words,
                                      int64_t k, unsigned d,
                                      const std::string &axis) {
  if (!fewReplicas(elements) || !fewReplicas(words))
    return ::testing::AssertionSuccess();
  Vec wordShape = shape;
  wordShape[d] /= k;
  if (Big(elements.size()) != Big(words.size()) * k)
    return ::testing::AssertionFailure() << "sizes";
  for (int64_t f : samples(elements.size())) {
    Vec x = referenceUnflatten(f, shape);
    int64_t j = x[d] % k;
    Vec xw = x;
    xw[d] /= k;
    BigSet expected;
    for (BigPoint p : bigApply(words, referenceFlatten(xw, wordShape))) {
      Big v = p.count(axis) ? p[axis] : 0;
      p.erase(axis);
      addBig(p, axis, v * k + j);
      expected.insert(p);
    }
    if (bigApply(elements, f) != expected)
      return ::testing::AssertionFailure()
             << elements.str() << " vs words " << words.str() << " at " << f;
  }
  return ::testing::AssertionSuccess();
}

TEST(RobustPacking, PackAndUnpack) {
  ExtremeGenerator gen(fuzzSeed(1801));
  static const unsigned bitChoices[] = {0, 1, 4, 8, 16, 32, 64, UINT_MAX};
  static const int dimChoices[] = {INT_MIN, -4, -2, -1, 0, 1, 3, INT_MAX};
  static const char *axisChoices[] = {"m", "m", "F", "laneid", "", "9x"};
  int packed = 0, unpacked = 0;
  for (int n = 0; n < 4000; ++n) {
    TileLayout l = gen.extreme(128);
    if (gen.coin(0.5)) { // make packable: a unit-stride iter last
      IterList shard(l.shard().begin(), l.shard().end());
      shard.push_back({int64_t(1) << gen.uniform(1, 3), 1, "m"});
      if (Result<TileLayout> p =
              TileLayout::create(shard, IterList(l.replica()), l.offset()))
        l = *p;
    }
    Shape shape = gen.shape(l.size());
    unsigned bits =
        gen.coin(0.7) ? (gen.coin() ? 16 : 8) : bitChoices[gen.uniform(0, 7)];
    int dim = gen.coin(0.7) ? -1 : dimChoices[gen.uniform(0, 7)];
    std::string axis = axisChoices[gen.uniform(0, 5)];
    SCOPED_TRACE(ctx(l, shape) + " bits " + std::to_string(bits) + " dim " +
                 std::to_string(dim) + " axis '" + axis + "'");
    Result<Shape> ws = packedShape(shape, bits, dim);
    expectReason(ws, "packedShape");
    Result<TileLayout> w = packToWords(l, shape, bits, dim, axis);
    expectReason(w, "pack");
    if (w) {
      ++packed;
      ASSERT_TRUE(bool(ws));
      int64_t k = 32 / bits;
      unsigned d = dim < 0 ? shape.size() + dim : dim;
      EXPECT_TRUE(isWordView(l, vec(shape), *w, k, d, axis));
      Result<TileLayout> back = unpackFromWords(*w, *ws, bits, dim, axis);
      ASSERT_TRUE(bool(back)) << back.message();
      EXPECT_TRUE(sameMap(*back, l)) << back->str();
    }
    // Unpacking an arbitrary layout read as words.
    Result<TileLayout> u = unpackFromWords(l, shape, bits, dim, axis);
    expectReason(u, "unpack");
    if (u) {
      ++unpacked;
      int64_t k = 32 / bits;
      unsigned d = dim < 0 ? shape.size() + dim : dim;
      Vec elementShape = vec(shape);
      elementShape[d] *= k;
      EXPECT_TRUE(isWordView(*u, elementShape, l, k, d, axis));
    }
  }
  EXPECT_GT(packed, 50);
  EXPECT_GT(unpacked, 200);
}

//===----------------------------------------------------------------------===//
// (b) Hardware constructors
//===----------------------------------------------------------------------===//

/// A constructor's layout admits the shape it documents (when it answers).
void expectAdmits(const Result<TileLayout> &l, llvm::ArrayRef<int64_t> shape,
                  const std::string &what) {
  expectReason(l, what);
  if (l) {
    EXPECT_TRUE(l->admits(shape)) << what << ": " << l->str();
  }
}

TEST(RobustHardware, EnumValuesThatAreNoEnumerator) {
  // Out-of-range enum values used to index name tables past their end and
  // to divide by zero in tcgen05AtomLayout.
  auto badShape = static_cast<Tcgen05Shape>(7);
  auto badPath = static_cast<TmemDatapath>(-1);
  auto badMode = static_cast<SwizzleMode>(100);
  EXPECT_EQ(tcgen05ShapeName(badShape), "?");
  EXPECT_EQ(tmemDatapathName(badPath), "?");
  EXPECT_EQ(swizzleModeName(badMode), "?");
  EXPECT_FALSE(bool(tcgen05AtomLayout(badShape, {128, 32}, 32)));
  EXPECT_FALSE(bool(tmemDatapathLayout(badPath, 128, 32)));
  EXPECT_FALSE(bool(swizzleAtomShape(badMode, 16)));
  EXPECT_FALSE(bool(swizzleAtom(badMode, 16)));
  EXPECT_FALSE(bool(swizzleAtom(static_cast<SwizzleMode>(-3), 16)));
  EXPECT_FALSE(bool(
      mmaSyncFragment(static_cast<MmaShape>(5), MmaOperand::A, MmaType::F16)));
  EXPECT_FALSE(bool(mmaSyncFragment(MmaShape::M16N8K8,
                                    static_cast<MmaOperand>(9), MmaType::F16)));
  EXPECT_FALSE(bool(mmaSyncFragment(MmaShape::M16N8K8, MmaOperand::C,
                                    static_cast<MmaType>(9))));
  EXPECT_FALSE(bool(wgmmaAccumulator(64, static_cast<MmaType>(9))));
  (void)mmaShapeName(static_cast<MmaShape>(5));
  (void)mmaTypeName(static_cast<MmaType>(9));
  (void)mmaSyncOperandShape(MmaShape::M16N8K8, static_cast<MmaOperand>(9));
}

TEST(RobustHardware, ExtremeArguments) {
  const int64_t values[] = {kMin, -129, -1,  0,    1,    2,     7,
                            8,    16,   32,  63,   64,   128,   129,
                            256,  257,  512, 1024, 4096, k2p62, kMax};
  for (int64_t v : values) {
    std::string at = std::to_string(v);
    for (bool trans : {false, true})
      expectAdmits(ldmatrixFragment(v, trans), {v, 8, 8}, "ldmatrix " + at);
    expectAdmits(ldmatrixRowAddresses(v), {v, 8}, "ldmatrix rows " + at);
    for (int64_t rows :
         {kMin, int64_t(0), int64_t(1), int64_t(128), int64_t(129), kMax})
      expectAdmits(wgLocalLayout(v, rows), {rows, v}, "wg_local " + at);
    for (MmaType type : {MmaType::F16, MmaType::BF16, MmaType::F32})
      expectAdmits(wgmmaAccumulator(v, type), {64, v}, "wgmma " + at);
    for (TmemDatapath p :
         {TmemDatapath::A, TmemDatapath::B, TmemDatapath::C, TmemDatapath::D,
          TmemDatapath::E, TmemDatapath::F, TmemDatapath::G})
      for (int64_t rows : {int64_t(32), int64_t(64), int64_t(128), v})
        expectAdmits(tmemDatapathLayout(p, rows, v), {rows, v},
                     "tmem " + tmemDatapathName(p).str() + " " + at);
    for (Tcgen05Shape s : {Tcgen05Shape::S32x32b, Tcgen05Shape::S16x64b,
                           Tcgen05Shape::S16x128b, Tcgen05Shape::S16x256b})
      for (unsigned bits : {0u, 16u, 32u, 64u, UINT_MAX})
        for (Vec shape :
             {Vec{128, v}, Vec{64, v}, Vec{v, 32}, Vec{v}, Vec{128, v, 1}})
          expectAdmits(tcgen05AtomLayout(s, shape, bits), shape,
                       "tcgen05 " + tcgen05ShapeName(s).str() + " " +
                           shapeStr(shape));
    for (unsigned bytes : {0u, 1u, 2u, 4u, 3u, UINT_MAX}) {
      AcceleratorConfig config;
      for (int variant = 0; variant < 4; ++variant) {
        if (variant == 1)
          config.partitions = v;
        if (variant == 2)
          config.psumBankBytes = v, config.psumBanks = v;
        if (variant == 3)
          config.sbufPartitionBytes = v;
        std::string what = "accelerator " + at + " bytes " +
                           std::to_string(bytes) + " variant " +
                           std::to_string(variant);
        expectAdmits(psumTileLayout(v, 512, bytes, config), {v, 512}, what);
        expectAdmits(psumTileLayout(128, v, bytes, config), {128, v}, what);
        for (Vec shape : {Vec{v, 64}, Vec{64, v}, Vec{v}, Vec{}})
          for (unsigned pd : {0u, 1u, 2u, UINT_MAX})
            expectAdmits(partitionedLayout(shape, pd, bytes, config), shape,
                         what + " " + shapeStr(shape));
      }
    }
  }
  for (unsigned bits : {0u, 1u, 4u, 8u, 16u, 32u, 64u, 128u, UINT_MAX})
    for (SwizzleMode mode :
         {SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128}) {
      Result<Shape> shape = swizzleAtomShape(mode, bits);
      Result<Layout> atom = swizzleAtom(mode, bits);
      EXPECT_EQ(bool(shape), bool(atom)) << bits;
      if (shape && atom) {
        EXPECT_TRUE(atom->admits(*shape));
      }
    }
}

TEST(RobustHardware, PsumViewsAtTheLimits) {
  // The Bank offset used to be moved unchecked.
  TileLayout l =
      parseOrDie("S[1 : 0] + 9223372036854775806@Bank + 9223372036854775806@F");
  Result<TileLayout> v = psumBankView(l, 4);
  ASSERT_FALSE(bool(v));
  EXPECT_NE(v.message().find("overflow"), std::string::npos) << v.message();

  ExtremeGenerator gen(fuzzSeed(1901));
  static const char *axes[] = {"F", "F", "Bank", "P"};
  int viewed = 0;
  for (int n = 0; n < 3000; ++n) {
    TileLayout base = gen.extreme(64);
    IterList shard, replica;
    for (const Iter &it : base.shard())
      shard.push_back({it.extent, it.stride, axes[gen.uniform(0, 3)]});
    for (const Iter &it : base.replica())
      replica.push_back({it.extent, it.stride, axes[gen.uniform(0, 3)]});
    Coord offset;
    for (const auto &[axis, value] : base.offset().entries())
      offset.set(axes[gen.uniform(0, 3)], value);
    if (gen.coin(0.3))
      offset.set("F", gen.uniform(-600, 600));
    Result<TileLayout> made = TileLayout::create(shard, replica, offset);
    if (!made)
      continue;
    TileLayout l = *made;
    AcceleratorConfig config;
    if (gen.coin(0.3)) {
      static const int64_t choices[] = {kMin, -1, 0, 1, 2, 2048, kMax};
      config.psumBankBytes = choices[gen.uniform(0, 6)];
      config.psumBanks = choices[gen.uniform(0, 6)];
    }
    unsigned bytes = gen.coin(0.8) ? 4 : unsigned(gen.uniform(0, 9));
    SCOPED_TRACE(l.str() + " bytes " + std::to_string(bytes) + " bank " +
                 std::to_string(config.psumBankBytes));
    Result<TileLayout> bank = psumBankView(l, bytes, config);
    expectReason(bank, "bank view");
    Result<TileLayout> flat = psumFlatView(l, bytes, config);
    expectReason(flat, "flat view");
    if (!fewReplicas(l) || bytes == 0 || config.psumBankBytes < 1)
      continue;
    Big w = config.psumBankBytes / bytes;
    auto floorDiv = [](Big a, Big b) {
      Big q = a / b;
      return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
    };
    if (bank) {
      ++viewed;
      for (int64_t f : samples(l.size())) {
        BigSet expected;
        for (BigPoint p : bigApply(l, f)) {
          Big fv = p.count("F") ? p["F"] : 0;
          p.erase("F");
          addBig(p, "F", fv - floorDiv(fv, w) * w);
          addBig(p, "Bank", floorDiv(fv, w));
          expected.insert(p);
        }
        ASSERT_EQ(bigApply(*bank, f), expected) << bank->str();
      }
    }
    if (flat) {
      for (int64_t f : samples(l.size())) {
        BigSet expected;
        for (BigPoint p : bigApply(l, f)) {
          Big b = p.count("Bank") ? p["Bank"] : 0;
          p.erase("Bank");
          addBig(p, "F", b * w);
          expected.insert(p);
        }
        ASSERT_EQ(bigApply(*flat, f), expected) << flat->str();
      }
    }
  }
  EXPECT_GT(viewed, 100);
}

} // namespace
