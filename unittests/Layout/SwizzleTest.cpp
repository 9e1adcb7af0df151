//===- SwizzleTest.cpp - Swizzles, composed layouts, swizzled tiling ------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Swizzle.h"
#include "axe/Layout/SwizzleAlgebra.h"

#include "gtest/gtest.h"

#include <set>

using namespace axe;
using namespace axe::testing;

namespace {

Swizzle sw(int m, int b, int s) {
  Result<Swizzle> r = Swizzle::create(m, b, s);
  EXPECT_TRUE(bool(r)) << r.message();
  return r ? *r : Swizzle();
}

/// The bit-level definition, independent of Swizzle::apply: XOR address
/// bits [M+S, M+S+B) into bits [M, M+B) (two's complement for negatives).
int64_t referenceSwizzle(int m, int b, int s, int64_t address) {
  uint64_t a = uint64_t(address);
  uint64_t mask = (uint64_t(1) << b) - 1;
  return int64_t(a ^ (((a >> (m + s)) & mask) << m));
}

/// L(f) of a composed layout from the brute-force model: every image of the
/// tile part with its m coordinate swizzled.
PointSet referenceSwizzledApply(const Swizzle &s, const TileLayout &tile,
                                int64_t flat) {
  PointSet out;
  for (Point p : referenceApply(tile, flat)) {
    int64_t m = p.count("m") ? p["m"] : 0;
    p.erase("m");
    addTo(p, "m", referenceSwizzle(s.perElement, s.swizzleLen, s.atomLen, m));
    out.insert(p);
  }
  return out;
}

PointSet referenceLayoutApply(const Layout &l, int64_t flat) {
  if (!l.isSwizzled())
    return referenceApply(l.tile(), flat);
  return referenceSwizzledApply(*l.swizzle(), l.tile(), flat);
}

/// Whether two composed layouts of equal size have the same map.
void expectSameMap(const Layout &a, const Layout &b) {
  ASSERT_EQ(a.size(), b.size()) << a.str() << " vs " << b.str();
  for (int64_t f = 0; f < a.size(); ++f)
    ASSERT_EQ(referenceLayoutApply(a, f), referenceLayoutApply(b, f))
        << a.str() << " vs " << b.str() << " at " << f;
}

Swizzle randomSwizzle(LayoutGenerator &gen) {
  int b = int(gen.uniform(0, 3));
  return sw(int(gen.uniform(0, 3)), b, int(gen.uniform(b, 4)));
}

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

TEST(Swizzle, CreateValidates) {
  EXPECT_TRUE(bool(Swizzle::create(3, 3, 3)));
  EXPECT_TRUE(bool(Swizzle::create(0, 0, 0)));
  EXPECT_TRUE(bool(Swizzle::create(4, 2, 5)));
  Result<Swizzle> overlap = Swizzle::create(3, 3, 2);
  ASSERT_FALSE(bool(overlap));
  EXPECT_NE(overlap.message().find("S >= B"), std::string::npos);
  EXPECT_FALSE(bool(Swizzle::create(-1, 3, 3)));
  EXPECT_FALSE(bool(Swizzle::create(3, -1, 3)));
  EXPECT_FALSE(bool(Swizzle::create(3, 3, -3)));
  EXPECT_FALSE(bool(Swizzle::create(30, 20, 20)));
  EXPECT_TRUE(bool(Swizzle::create(20, 20, 22)));
}

TEST(Swizzle, WorkedExample128B) {
  // Spec section 9: (i, j) -> 64i + 8((j div 8) xor i) + j mod 8.
  Swizzle s = sw(3, 3, 3);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 64; ++j)
      EXPECT_EQ(s.apply(64 * i + j), 64 * i + 8 * ((j / 8) ^ i) + j % 8)
          << i << "," << j;
}

TEST(Swizzle, WorkedExampleBanks) {
  Layout l(sw(3, 3, 3), parseOrDie("S[(8, 64) : (64, 1)]"));
  Layout plain(parseOrDie("S[(8, 64) : (64, 1)]"));
  auto bank = [](int64_t address) { return (2 * address / 4) % 32; };
  for (int64_t i = 0; i < 8; ++i) {
    auto images = l.apply({i, 0}, {8, 64});
    ASSERT_TRUE(bool(images)) << images.message();
    ASSERT_EQ(images->size(), 1u);
    EXPECT_EQ(bank((*images)[0].get("m")), 4 * i);
    auto unswizzled = plain.apply({i, 0}, {8, 64});
    ASSERT_TRUE(bool(unswizzled));
    EXPECT_EQ(bank((*unswizzled)[0].get("m")), 0);
  }
}

TEST(Swizzle, MatchesBitDefinition) {
  for (int m = 0; m <= 3; ++m)
    for (int b = 0; b <= 3; ++b)
      for (int s = b; s <= 4; ++s) {
        Swizzle x = sw(m, b, s);
        int64_t p = x.period();
        for (int64_t a = -2 * p; a < 2 * p; ++a)
          ASSERT_EQ(x.apply(a), referenceSwizzle(m, b, s, a))
              << x.str() << " at " << a;
      }
}

TEST(Swizzle, InvolutionPermutationAndPeriod) {
  for (int m = 0; m <= 3; ++m)
    for (int b = 0; b <= 3; ++b)
      for (int s = b; s <= 4; ++s) {
        Swizzle x = sw(m, b, s);
        int64_t p = x.period();
        EXPECT_EQ(p, int64_t(1) << (m + b + s));
        std::set<int64_t> image;
        for (int64_t a = 0; a < p; ++a) {
          int64_t y = x.apply(a);
          EXPECT_EQ(x.apply(y), a);
          EXPECT_EQ(x.inverse(y), a);
          EXPECT_GE(y, 0);
          EXPECT_LT(y, p);
          image.insert(y);
          for (int64_t k : {-3, -1, 1, 5})
            EXPECT_EQ(x.apply(a + k * p), y + k * p);
        }
        EXPECT_EQ(int64_t(image.size()), p) << x.str();
      }
}

TEST(Swizzle, ExtremeAddresses) {
  Swizzle x = sw(20, 20, 22);
  for (int64_t a : {INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 5,
                    int64_t(-1), int64_t(0)}) {
    EXPECT_EQ(x.apply(a), referenceSwizzle(20, 20, 22, a));
    EXPECT_EQ(x.apply(x.apply(a)), a);
  }
}

TEST(Swizzle, Str) {
  EXPECT_EQ(sw(3, 3, 3).str(), "SW(3, 3, 3)");
  EXPECT_EQ(sw(2, 1, 4).str(), "SW(2, 1, 4)");
  EXPECT_TRUE(sw(3, 0, 0).isIdentity());
  EXPECT_FALSE(sw(3, 1, 3).isIdentity());
}

//===----------------------------------------------------------------------===//
// Layout: apply, inverse, print, parse, canonicalize
//===----------------------------------------------------------------------===//

TEST(SwizzledLayout, ApplyAgreesWithBruteForce) {
  LayoutGenerator gen(9001);
  for (int n = 0; n < 2000; ++n) {
    Swizzle s = randomSwizzle(gen);
    TileLayout t = gen.layout(128);
    Layout l(s, t);
    for (int64_t f = 0; f < l.size(); ++f)
      ASSERT_EQ(toPointSet(l.apply(f)), referenceSwizzledApply(s, t, f))
          << l.str() << " at " << f;
  }
}

TEST(SwizzledLayout, ApplyByCoordinate) {
  Layout l(sw(3, 3, 3),
           parseOrDie("S[(8, 64) : (64, 1)] + R[2 : 1@warpid] + 4@laneid"));
  auto images = l.apply({3, 17}, {8, 64});
  ASSERT_TRUE(bool(images)) << images.message();
  ASSERT_EQ(images->size(), 2u);
  for (const Coord &c : *images) {
    EXPECT_EQ(c.get("m"), 64 * 3 + 8 * (2 ^ 3) + 1);
    EXPECT_EQ(c.get("laneid"), 4);
  }
  EXPECT_FALSE(bool(l.apply({8, 0}, {8, 64})));
  EXPECT_FALSE(bool(l.apply({0, 0}, {8, 32})));
}

TEST(SwizzledLayout, InverseOfApply) {
  LayoutGenerator gen(77);
  for (int n = 0; n < 1000; ++n) {
    Layout l(randomSwizzle(gen), gen.layout(64));
    for (int64_t f = 0; f < l.size(); ++f)
      for (const Coord &c : l.apply(f)) {
        Result<int64_t> g = l.inverse(c);
        ASSERT_TRUE(bool(g))
            << l.str() << " " << c.str() << ": " << g.message();
        // A non-injective shard may return another index reaching c.
        EXPECT_TRUE(llvm::is_contained(l.apply(*g), c)) << l.str();
        if (*g != f) {
          EXPECT_LT(*g, f);
        }
      }
  }
}

TEST(SwizzledLayout, InverseOfTheWorkedExample) {
  Layout l(sw(3, 3, 3), parseOrDie("S[(8, 64) : (64, 1)]"));
  for (int64_t f = 0; f < 512; ++f) {
    Result<int64_t> g = l.inverse(coord({{"m", f}}));
    ASSERT_TRUE(bool(g));
    int64_t i = *g / 64, j = *g % 64;
    EXPECT_EQ(64 * i + 8 * ((j / 8) ^ i) + j % 8, f);
  }
  EXPECT_FALSE(bool(l.inverse(coord({{"m", 512}}))));
}

TEST(SwizzledLayout, PrintAndParse) {
  Layout l(sw(3, 3, 3), parseOrDie("S[(8, 64) : (64, 1)]"));
  EXPECT_EQ(l.str(), "SW(3, 3, 3) o " + l.tile().str());
  Result<Layout> back = parseLayout(l.str());
  ASSERT_TRUE(bool(back)) << back.message();
  EXPECT_EQ(*back, l);

  Result<Layout> tight = parseLayout("  SW(3,3,3)o S[(8,64):(64,1)]");
  ASSERT_TRUE(bool(tight)) << tight.message();
  EXPECT_EQ(*tight, l);

  Result<Layout> plain = parseLayout("S[(8, 64) : (64, 1)]");
  ASSERT_TRUE(bool(plain)) << plain.message();
  EXPECT_FALSE(plain->isSwizzled());
  EXPECT_EQ(plain->tile(), l.tile());
}

TEST(SwizzledLayout, ParsePrintRoundTrip) {
  LayoutGenerator gen(4242);
  for (int n = 0; n < 3000; ++n) {
    TileLayout t = gen.layout(256);
    Layout l = gen.coin() ? Layout(randomSwizzle(gen), t) : Layout(t);
    Result<Layout> back = parseLayout(l.str());
    ASSERT_TRUE(bool(back)) << l.str() << ": " << back.message();
    ASSERT_EQ(*back, l) << l.str() << " vs " << back->str();
  }
}

TEST(SwizzledLayout, ParseErrors) {
  for (const char *bad :
       {"SW(3, 3) o S[8 : 1]", "SW(3, 3, 3) S[8 : 1]", "SW(3, 3, 3) o",
        "SW(3, 3, 3) o S[8 : ", "SW 3, 3, 3) o S[8 : 1]",
        "SW(1, 2, 1) o S[8:1]", "SW(-1, 0, 0) o S[8 : 1]",
        "SW(a, 3, 3) o S[8 : 1]", "SW(3, 3, 3) o S[8 : 1] junk",
        "SW(99999999999, 3, 3) o S[8 : 1]", "SW(40, 10, 20) o S[8:1]", "SW"}) {
    Result<Layout> r = parseLayout(bad);
    EXPECT_FALSE(bool(r)) << bad;
    EXPECT_FALSE(r.message().empty()) << bad;
  }
  Result<Layout> r = parseLayout("SW(1, 2, 1) o S[8:1]");
  EXPECT_NE(r.message().find("S >= B"), std::string::npos) << r.message();
}

TEST(SwizzledLayout, Canonicalize) {
  Layout identity(sw(3, 0, 0), parseOrDie("S[(2, 3, 6) : (18, 6, 1)]"));
  Layout c = canonicalize(identity);
  EXPECT_FALSE(c.isSwizzled());
  EXPECT_EQ(c.tile(), canonicalize(identity.tile()));

  LayoutGenerator gen(31337);
  for (int n = 0; n < 1000; ++n) {
    Layout l(randomSwizzle(gen), gen.layout(128));
    Layout canon = canonicalize(l);
    EXPECT_EQ(canon.isSwizzled(), !l.swizzle()->isIdentity());
    EXPECT_EQ(canon.tile(), canonicalize(l.tile()));
    expectSameMap(l, canon);
  }
}

//===----------------------------------------------------------------------===//
// Reach, slice and equivalence of swizzled layouts
//===----------------------------------------------------------------------===//

/// A random layout: no swizzle, an identity swizzle or a random one.
Layout randomLayout(LayoutGenerator &gen, int64_t maxSize) {
  TileLayout t = gen.layout(maxSize);
  switch (gen.uniform(0, 3)) {
  case 0:
    return Layout(t);
  case 1:
    return Layout(sw(int(gen.uniform(0, 3)), 0, int(gen.uniform(0, 3))), t);
  default:
    return Layout(randomSwizzle(gen), t);
  }
}

/// The smallest and largest value of each of `axes` over every placement of
/// the tile part, read off the brute-force model (absent axes are 0).
std::map<std::string, std::pair<int64_t, int64_t>>
referenceTileBounds(const TileLayout &tile) {
  std::map<std::string, std::pair<int64_t, int64_t>> bounds;
  for (const std::string &axis : tile.axes())
    bounds[axis] = {INT64_MAX, INT64_MIN};
  for (int64_t f = 0; f < tile.size(); ++f)
    for (const Point &p : referenceApply(tile, f))
      for (auto &[axis, b] : bounds) {
        auto it = p.find(axis);
        int64_t v = it == p.end() ? 0 : it->second;
        b = {std::min(b.first, v), std::max(b.second, v)};
      }
  return bounds;
}

TEST(SwizzledLayout, AxisReachAgreesWithBruteForce) {
  LayoutGenerator gen(1618);
  for (int n = 0; n < 2000; ++n) {
    Layout l = randomLayout(gen, 128);
    Result<std::map<std::string, AxisReach>> reach = axisReach(l);
    ASSERT_TRUE(bool(reach)) << l.str() << ": " << reach.message();
    auto bounds = referenceTileBounds(l.tile());
    std::optional<Swizzle> s = l.effectiveSwizzle();
    if (s && !bounds.count("m"))
      bounds["m"] = {0, 0};
    std::set<std::string> keys;
    for (const auto &entry : *reach)
      keys.insert(entry.first);
    std::set<std::string> expectedKeys;
    for (const auto &entry : bounds)
      expectedKeys.insert(entry.first);
    ASSERT_EQ(keys, expectedKeys) << l.str();
    for (const auto &[axis, b] : bounds) {
      AxisReach r = reach->at(axis);
      if (axis != "m" || !s) {
        EXPECT_EQ(r.lo, b.first) << l.str() << " on " << axis;
        EXPECT_EQ(r.hi, b.second) << l.str() << " on " << axis;
        continue;
      }
      // Whole swizzle blocks, and the fewest of them.
      int64_t block = int64_t(1) << (s->perElement + s->swizzleLen);
      EXPECT_EQ(r.lo % block, 0) << l.str();
      EXPECT_EQ((r.hi + 1) % block, 0) << l.str();
      EXPECT_TRUE(r.lo <= b.first && b.first < r.lo + block) << l.str();
      EXPECT_TRUE(r.hi - block < b.second && b.second <= r.hi) << l.str();
    }
    // Every placement of the swizzled layout lies inside the reach.
    for (int64_t f = 0; f < l.size(); ++f)
      for (const Point &p : referenceLayoutApply(l, f))
        for (const auto &[axis, v] : p) {
          AxisReach r = reach->at(axis);
          EXPECT_TRUE(r.lo <= v && v <= r.hi)
              << l.str() << ": " << axis << " = " << v << " at " << f;
        }
  }
}

TEST(SwizzledLayout, SpanRoundsToWholeBlocks) {
  auto span = [](llvm::StringRef text) {
    Result<Layout> l = parseLayout(text);
    EXPECT_TRUE(bool(l)) << l.message();
    return l ? l->span() : Coord();
  };
  EXPECT_EQ(span("SW(3, 3, 3) o S[100 : 1]").get("m"), 128);
  EXPECT_EQ(span("SW(3, 3, 3) o S[(8, 64) : (64, 1)]").get("m"), 512);
  // An identity swizzle moves nothing, so nothing is rounded.
  EXPECT_EQ(span("SW(3, 0, 3) o S[100 : 1]").get("m"), 100);
  EXPECT_EQ(span("SW(3, 3, 3) o S[100 : 1@laneid]").get("laneid"), 100);
}

TEST(SwizzledLayout, SliceAgreesWithBruteForce) {
  LayoutGenerator gen(5772);
  int sliced = 0;
  for (int n = 0; n < 2000; ++n) {
    Layout l = randomLayout(gen, 128);
    Shape shape = gen.shapeFor(l.size(), int(gen.uniform(1, 3)));
    Shape starts, lengths;
    for (int64_t extent : shape) {
      int64_t length = gen.uniform(1, extent);
      lengths.push_back(length);
      starts.push_back(gen.uniform(0, extent - length));
    }
    Result<Layout> out = slice(l, shape, starts, lengths);
    Result<TileLayout> tileOut = slice(l.tile(), shape, starts, lengths);
    ASSERT_EQ(bool(out), bool(tileOut)) << l.str();
    if (!out)
      continue;
    ++sliced;
    EXPECT_EQ(out->swizzle(), l.swizzle()) << l.str();
    // L'(y) = L(lo + y) for every y of the region.
    for (int64_t f = 0; f < out->size(); ++f) {
      Vec y = referenceUnflatten(f, vec(lengths));
      for (size_t d = 0; d < y.size(); ++d)
        y[d] += starts[d];
      ASSERT_EQ(referenceLayoutApply(*out, f),
                referenceLayoutApply(l, referenceFlatten(y, vec(shape))))
          << l.str() << " sliced to " << out->str() << " at " << f;
    }
  }
  EXPECT_GT(sliced, 1000);
}

TEST(SwizzledLayout, SliceAtAnAlignedStartAddsBeforeTheSwizzle) {
  Layout l(sw(3, 3, 3), parseOrDie("S[(128, 64) : (64, 1)]"));
  llvm::SmallVector<SliceStart, 2> starts = {SliceStart::aligned(32),
                                             SliceStart::constant(0)};
  Result<Layout> out = slice(l, {128, 64}, starts, {32, 64});
  ASSERT_TRUE(bool(out)) << out.message();
  Result<GroupedLayout> grouped = group(l.tile(), {128, 64});
  ASSERT_TRUE(bool(grouped)) << grouped.message();
  for (int64_t start : {0, 32, 64, 96}) {
    // The run-time contribution joins the tile part's offset.
    Coord offset = out->tile().offset() + grouped->dimContribution(0, start);
    Result<TileLayout> moved = TileLayout::create(
        IterList(out->tile().shard()), IterList(out->tile().replica()), offset);
    ASSERT_TRUE(bool(moved)) << moved.message();
    Layout at = out->withTile(*moved);
    for (int64_t f = 0; f < at.size(); ++f)
      ASSERT_EQ(referenceLayoutApply(at, f),
                referenceLayoutApply(l, start * 64 + f))
          << "start " << start << " at " << f;
  }
}

/// Whether two layouts have the same map, from the brute-force model.
bool referenceEquivalent(const Layout &a, const Layout &b) {
  if (a.size() != b.size())
    return false;
  for (int64_t f = 0; f < a.size(); ++f)
    if (referenceLayoutApply(a, f) != referenceLayoutApply(b, f))
      return false;
  return true;
}

TEST(SwizzledLayout, EquivalentAgreesWithBruteForce) {
  LayoutGenerator gen(2236);
  int same = 0, different = 0;
  for (int n = 0; n < 4000; ++n) {
    Layout a = randomLayout(gen, 64);
    Layout b;
    switch (gen.uniform(0, 3)) {
    case 0: // The same tile part under another (or no) swizzle.
      b = randomLayout(gen, 64).withTile(a.tile());
      break;
    case 1: // Another form of the same tile part.
      b = a.withTile(canonicalize(a.tile()));
      break;
    case 2: // Another form under another swizzle.
      b = randomLayout(gen, 64).withTile(canonicalize(a.tile()));
      break;
    default: // Unrelated; sizes may differ.
      b = randomLayout(gen, 64);
      break;
    }
    Result<bool> answer = equivalent(a, b);
    ASSERT_TRUE(bool(answer))
        << a.str() << " vs " << b.str() << ": " << answer.message();
    bool expected = referenceEquivalent(a, b);
    ASSERT_EQ(*answer, expected) << a.str() << " vs " << b.str();
    ASSERT_EQ(*equivalent(b, a), expected) << b.str() << " vs " << a.str();
    ++(expected ? same : different);
  }
  EXPECT_GT(same, 1000);
  EXPECT_GT(different, 1000);
}

TEST(SwizzledLayout, EquivalentIgnoresSwizzlesThatMoveNothing) {
  auto equiv = [](llvm::StringRef a, llvm::StringRef b) {
    Result<Layout> la = parseLayout(a), lb = parseLayout(b);
    EXPECT_TRUE(la && lb);
    Result<bool> r = equivalent(*la, *lb);
    EXPECT_TRUE(bool(r)) << r.message();
    return r && *r;
  };
  EXPECT_TRUE(equiv("SW(0, 0, 0) o S[(4, 8) : (8, 1)]", "S[(4, 8) : (8, 1)]"));
  EXPECT_TRUE(equiv("SW(3, 0, 3) o S[(4, 8) : (8, 1)]", "S[32 : 1]"));
  // Addresses below 2^(M + S) = 64 have no bits to XOR in.
  EXPECT_TRUE(equiv("SW(3, 3, 3) o S[(8, 8) : (8, 1)]", "S[64 : 1]"));
  EXPECT_TRUE(equiv("SW(3, 3, 3) o S[64 : 1]", "SW(2, 2, 4) o S[64 : 1]"));
  // Bits [6, 9) of 512..575 are zero too.
  EXPECT_TRUE(equiv("SW(3, 3, 3) o S[64 : 1] + 512", "S[64 : 1] + 512"));
  EXPECT_FALSE(equiv("SW(3, 3, 3) o S[64 : 1] + 64", "S[64 : 1] + 64"));
  EXPECT_FALSE(equiv("SW(3, 3, 3) o S[(8, 64) : (64, 1)]", "S[512 : 1]"));
  EXPECT_TRUE(
      equiv("SW(3, 3, 3) o S[(8, 64) : (64, 1)]", "SW(3, 3, 3) o S[512 : 1]"));
}

TEST(SwizzledLayout, EquivalentTooLargeToListFails) {
  Layout a(sw(3, 3, 3), parseOrDie("S[(4096, 4096) : (4096, 1)]"));
  Layout b(sw(2, 3, 3), parseOrDie("S[16777216 : 1]"));
  Result<bool> r = equivalent(a, b);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(r.message().find("cannot decide"), std::string::npos)
      << r.message();
  // Equal swizzles need no listing, however large.
  Result<bool> tiles = equivalent(a, Layout(sw(3, 3, 3), b.tile()));
  ASSERT_TRUE(bool(tiles)) << tiles.message();
  EXPECT_TRUE(*tiles);
}

//===----------------------------------------------------------------------===//
// Tiling with a swizzled atom, and recognising such tilings
//===----------------------------------------------------------------------===//

/// The definition of tiling a swizzled atom, evaluated by brute force:
/// T(xB * SA + xA) = scale(B(xB), span(A)) + (SW o A)(xA).
PointSet referenceTiledAtom(const Layout &atom, llvm::ArrayRef<int64_t> sa,
                            const TileLayout &outer, llvm::ArrayRef<int64_t> sb,
                            int64_t flat) {
  Shape full;
  for (size_t d = 0; d < sa.size(); ++d)
    full.push_back(sa[d] * sb[d]);
  Shape x = unflattenIndex(flat, full), xa, xb;
  for (size_t d = 0; d < sa.size(); ++d) {
    xa.push_back(x[d] % sa[d]);
    xb.push_back(x[d] / sa[d]);
  }
  PointSet out;
  Coord span = atom.tile().span();
  for (Point pb : referenceApply(outer, *flattenCoord(xb, sb)))
    for (const Point &pa : referenceLayoutApply(atom, *flattenCoord(xa, sa))) {
      Point p = pa;
      for (const auto &[axis, v] : pb) {
        int64_t s = span.get(axis);
        addTo(p, axis, v * (s == 0 ? 1 : s));
      }
      out.insert(p);
    }
  return out;
}

void expectTilingDefinition(const Layout &result, const Layout &atom,
                            llvm::ArrayRef<int64_t> sa, const TileLayout &outer,
                            llvm::ArrayRef<int64_t> sb) {
  for (int64_t f = 0; f < result.size(); ++f)
    ASSERT_EQ(referenceLayoutApply(result, f),
              referenceTiledAtom(atom, sa, outer, sb, f))
        << result.str() << " at " << f;
}

Layout atom128B() {
  return Layout(sw(3, 3, 3), parseOrDie("S[(8, 64) : (64, 1)]"));
}

TEST(SwizzledTiling, Atom128BOver128x64) {
  Layout atom = atom128B();
  TileLayout outer = parseOrDie("S[(16, 1) : (1, 1)]");
  Result<Layout> tiled = tileSwizzledAtom(atom, {8, 64}, outer, {16, 1});
  ASSERT_TRUE(bool(tiled)) << tiled.message();
  EXPECT_EQ(*tiled->swizzle(), sw(3, 3, 3));
  EXPECT_EQ(canonicalize(*tiled),
            Layout(sw(3, 3, 3), canonicalize(parseOrDie("S[8192 : 1]"))));
  expectTilingDefinition(*tiled, atom, {8, 64}, outer, {16, 1});
  // Row i of the whole tile keeps the atom pattern of row i mod 8.
  for (int64_t i = 0; i < 128; ++i) {
    auto images = tiled->apply({i, 8}, {128, 64});
    ASSERT_TRUE(bool(images));
    EXPECT_EQ((*images)[0].get("m"), 64 * i + 8 * (1 ^ (i % 8)));
  }
}

TEST(SwizzledTiling, AtomsAlongBothDims) {
  // A 128 x 128 f16 tile: two atom columns, atoms column-major (K-major).
  Layout atom = atom128B();
  TileLayout outer = parseOrDie("S[(16, 2) : (1, 16)]");
  Result<Layout> tiled = tileSwizzledAtom(atom, {8, 64}, outer, {16, 2});
  ASSERT_TRUE(bool(tiled)) << tiled.message();
  expectTilingDefinition(*tiled, atom, {8, 64}, outer, {16, 2});

  Result<TileLayout> back = swizzledTileOf(*tiled, {128, 128}, atom, {8, 64});
  ASSERT_TRUE(bool(back)) << back.message();
  Result<Layout> again = tileSwizzledAtom(atom, {8, 64}, *back, {16, 2});
  ASSERT_TRUE(bool(again)) << again.message();
  expectSameMap(*again, *tiled);
}

TEST(SwizzledTiling, OuterOnOtherAxes) {
  // Each warp owns its own swizzled atom; the swizzle acts on m only.
  Layout atom = atom128B();
  TileLayout outer = parseOrDie("S[(2, 2) : (1@warpid, 1)] + R[2 : 1@cbx]");
  Result<Layout> tiled = tileSwizzledAtom(atom, {8, 64}, outer, {2, 2});
  ASSERT_TRUE(bool(tiled)) << tiled.message();
  expectTilingDefinition(*tiled, atom, {8, 64}, outer, {2, 2});
}

TEST(SwizzledTiling, MisalignedAtomsAreRefused) {
  // Half an atom (4 rows of 128 bytes) spans 256 elements, half a period.
  Layout half(sw(3, 3, 3), parseOrDie("S[(4, 64) : (64, 1)]"));
  TileLayout outer = parseOrDie("S[(2, 1) : (1, 1)]");
  Result<Layout> tiled = tileSwizzledAtom(half, {4, 64}, outer, {2, 1});
  ASSERT_FALSE(bool(tiled));
  EXPECT_NE(tiled.message().find("period 512"), std::string::npos)
      << tiled.message();
  // And the refusal is right: SW o tile(A, B) is not the tiled map.
  Result<TileLayout> plain = tile(half.tile(), {4, 64}, outer, {2, 1});
  ASSERT_TRUE(bool(plain)) << plain.message();
  Layout wrong(sw(3, 3, 3), *plain);
  bool differs = false;
  for (int64_t f = 0; f < wrong.size() && !differs; ++f)
    differs = referenceLayoutApply(wrong, f) !=
              referenceTiledAtom(half, {4, 64}, outer, {2, 1}, f);
  EXPECT_TRUE(differs);

  Result<Layout> offset = tileSwizzledAtom(
      atom128B(), {8, 64}, parseOrDie("S[(2, 1) : (1, 1)] + 1"), {2, 1});
  EXPECT_TRUE(bool(offset)) << offset.message();
}

TEST(SwizzledTiling, UnswizzledAtomIsPlainTile) {
  Layout atom(parseOrDie("S[(2, 4) : (1, 2)]"));
  TileLayout outer = parseOrDie("S[(8, 8) : (8, 1)]");
  Result<Layout> tiled = tileSwizzledAtom(atom, {2, 4}, outer, {8, 8});
  ASSERT_TRUE(bool(tiled)) << tiled.message();
  EXPECT_FALSE(tiled->isSwizzled());
  EXPECT_EQ(canonicalize(tiled->tile()),
            canonicalize(parseOrDie("S[(8, 2, 32) : (64, 1, 2)]")));
}

TEST(SwizzledTiling, RandomOutersAgreeWithDefinition) {
  LayoutGenerator gen(2718);
  Layout atoms[] = {atom128B(),
                    Layout(sw(3, 2, 3), parseOrDie("S[(8, 32) : (32, 1)]")),
                    Layout(sw(3, 1, 3), parseOrDie("S[(8, 16) : (16, 1)]")),
                    Layout(sw(2, 3, 3), parseOrDie("S[(8, 32) : (32, 1)]"))};
  Shape atomShapes[] = {{8, 64}, {8, 32}, {8, 16}, {8, 32}};
  int accepted = 0;
  for (int n = 0; n < 300; ++n) {
    int a = int(gen.uniform(0, 3));
    TileLayout outer = gen.layout(8);
    Shape sb = gen.shapeFor(outer.size(), 2);
    Result<Layout> tiled = tileSwizzledAtom(atoms[a], atomShapes[a], outer, sb);
    if (!tiled) {
      EXPECT_FALSE(tiled.message().empty());
      continue;
    }
    ++accepted;
    expectTilingDefinition(*tiled, atoms[a], atomShapes[a], outer, sb);
  }
  EXPECT_GT(accepted, 100);
}

TEST(SwizzledTileOf, RecognisesTheSwizzled128x64Tile) {
  Result<Layout> layout = parseLayout("SW(3, 3, 3) o S[(128, 64) : (64, 1)]");
  ASSERT_TRUE(bool(layout)) << layout.message();
  Result<TileLayout> outer =
      swizzledTileOf(*layout, {128, 64}, atom128B(), {8, 64});
  ASSERT_TRUE(bool(outer)) << outer.message();
  EXPECT_EQ(outer->size(), 16);
  Result<Layout> again = tileSwizzledAtom(atom128B(), {8, 64}, *outer, {16, 1});
  ASSERT_TRUE(bool(again)) << again.message();
  expectSameMap(*again, *layout);
}

TEST(SwizzledTileOf, ReasonsForNo) {
  Layout atom = atom128B();
  auto parse = [](llvm::StringRef text) {
    Result<Layout> l = parseLayout(text);
    EXPECT_TRUE(bool(l)) << l.message();
    return l ? *l : Layout();
  };
  Result<TileLayout> otherSwizzle = swizzledTileOf(
      parse("SW(3, 2, 3) o S[(128, 64) : (64, 1)]"), {128, 64}, atom, {8, 64});
  ASSERT_FALSE(bool(otherSwizzle));
  EXPECT_NE(otherSwizzle.message().find("SW(3, 2, 3)"), std::string::npos);

  Result<TileLayout> unswizzled =
      swizzledTileOf(parse("S[(128, 64) : (64, 1)]"), {128, 64}, atom, {8, 64});
  ASSERT_FALSE(bool(unswizzled));
  EXPECT_NE(unswizzled.message().find("no swizzle"), std::string::npos);

  // Rows padded to 72 elements: the tile part is not a tile of the atom's.
  Result<TileLayout> padded = swizzledTileOf(
      parse("SW(3, 3, 3) o S[(128, 64) : (72, 1)]"), {128, 64}, atom, {8, 64});
  EXPECT_FALSE(bool(padded));

  // Half-atoms repeated: the tile parts agree but the swizzle does not.
  Layout half(sw(3, 3, 3), *parseTileLayout("S[(4, 64) : (64, 1)]"));
  Result<TileLayout> misaligned = swizzledTileOf(
      parse("SW(3, 3, 3) o S[(8, 64) : (64, 1)]"), {8, 64}, half, {4, 64});
  ASSERT_FALSE(bool(misaligned));
  EXPECT_NE(misaligned.message().find("period"), std::string::npos)
      << misaligned.message();
}

TEST(SwizzledTileOf, IdentitySwizzleCountsAsNone) {
  Layout atom(sw(3, 0, 0), parseOrDie("S[(2, 4) : (1, 2)]"));
  Result<Layout> layout = parseLayout("S[(8, 2, 32) : (64, 1, 2)]");
  ASSERT_TRUE(bool(layout));
  Result<TileLayout> outer = swizzledTileOf(*layout, {16, 32}, atom, {2, 4});
  ASSERT_TRUE(bool(outer)) << outer.message();
}

} // namespace
