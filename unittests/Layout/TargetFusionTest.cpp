//===- TargetFusionTest.cpp - Thread-axis fusion and element packing ------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/TargetFusion.h"

#include "gtest/gtest.h"

using namespace axe;
using namespace axe::testing;

namespace {

TileLayout fuseOrDie(const TileLayout &l, const ThreadHierarchy &h = {}) {
  Result<TileLayout> f = fuseThreadAxes(l, h);
  EXPECT_TRUE(bool(f)) << l.str() << ": " << f.message();
  return f ? *f : TileLayout();
}

//===----------------------------------------------------------------------===//
// Fusion: the spec's examples and the hierarchy
//===----------------------------------------------------------------------===//

TEST(ThreadFusion, SpecExampleKeepsIters) {
  TileLayout l =
      parseOrDie("S[(2, 8, 2, 4) : (2@warpid, 4@laneid, 1@warpid, 1@laneid)]");
  EXPECT_EQ(fuseOrDie(l),
            parseOrDie("S[(2, 8, 2, 4) : (64@tx, 4@tx, 32@tx, 1@tx)]"));
}

TEST(ThreadFusion, SpecExampleCanonicalizesToOneIter) {
  TileLayout l =
      parseOrDie("S[(2, 2, 8, 4) : (2@warpid, 1@warpid, 4@laneid, 1@laneid)]");
  EXPECT_EQ(canonicalize(fuseOrDie(l)), parseOrDie("S[128 : 1@tx]"));
}

TEST(ThreadFusion, WarpgroupAxes) {
  EXPECT_EQ(fuseOrDie(parseOrDie("S[(4, 32, 2) : (1@wid_in_wg, 1@laneid, 1)]")),
            parseOrDie("S[(4, 32, 2) : (32@tid_in_wg, 1@tid_in_wg, 1)]"));
  EXPECT_EQ(fuseOrDie(parseOrDie("S[(2, 128) : (1@wgid, 1@tid_in_wg)]")),
            parseOrDie("S[(2, 128) : (128@tx, 1@tx)]"));
  EXPECT_EQ(fuseOrDie(parseOrDie(
                "S[(2, 4, 32) : (1@wgid, 1@wid_in_wg, 1@laneid)] + 1@wgid")),
            parseOrDie("S[(2, 4, 32) : (128@tx, 32@tx, 1@tx)] + 128@tx"));
}

TEST(ThreadFusion, OffsetsAndReplicasMove) {
  TileLayout l = parseOrDie("S[(8, 4) : (4@laneid, 1@laneid)] + "
                            "R[2 : 4@warpid] + 5@warpid + 3@m");
  EXPECT_EQ(fuseOrDie(l), parseOrDie("S[(8, 4) : (4@tx, 1@tx)] + "
                                     "R[2 : 128@tx] + 160@tx + 3"));
}

TEST(ThreadFusion, NothingToFuse) {
  for (const char *text : {"S[(8, 4) : (4@laneid, 1@laneid)]",
                           "S[(8, 4) : (4, 1)] + 3@P", "S[32 : 1@tx]"}) {
    TileLayout l = parseOrDie(text);
    EXPECT_EQ(fuseOrDie(l), l) << text;
  }
}

TEST(ThreadFusion, OtherHierarchy) {
  ThreadHierarchy wave64{64, 4};
  EXPECT_EQ(fuseOrDie(parseOrDie("S[(2, 64) : (1@warpid, 1@laneid)]"), wave64),
            parseOrDie("S[(2, 64) : (64@tx, 1@tx)]"));
  EXPECT_FALSE(bool(fuseThreadAxes(parseOrDie("S[64 : 1@laneid] + 1@warpid"),
                                   ThreadHierarchy{32, 4})));
  EXPECT_FALSE(bool(
      fuseThreadAxes(parseOrDie("S[2 : 1@warpid]"), ThreadHierarchy{0, 4})));
}

TEST(ThreadFusion, RefusesLanesOutsideTheWarp) {
  struct Case {
    const char *layout;
    const char *mentions;
  } cases[] = {
      {"S[(2, 8) : (1@warpid, 8@laneid)]", "laneid reaches [0, 56]"},
      {"S[(2, 2) : (1@warpid, 1@laneid)] + 31@laneid",
       "laneid reaches [31, 32]"},
      {"S[(2, 2) : (1@warpid, -1@laneid)]", "laneid reaches [-1, 0]"},
      {"S[2 : 1@warpid] + R[2 : 32@laneid]", "laneid"},
      {"S[(2, 8) : (1@wgid, 1@wid_in_wg)]", "wid_in_wg reaches [0, 7]"},
      {"S[(2, 256) : (1@wgid, 1@tid_in_wg)]", "tid_in_wg"},
      {"S[(4, 64) : (1@wid_in_wg, 1@laneid)]", "laneid"},
  };
  for (const Case &c : cases) {
    Result<TileLayout> r = fuseThreadAxes(parseOrDie(c.layout));
    ASSERT_FALSE(bool(r)) << c.layout << " fused to " << r->str();
    EXPECT_NE(r.message().find(c.mentions), std::string::npos)
        << c.layout << ": " << r.message();
  }
}

TEST(ThreadFusion, RefusesOverlappingNames) {
  for (const char *text :
       {"S[(2, 32) : (1@tx, 1@laneid)]", "S[(2, 4) : (1@warpid, 1@wid_in_wg)]",
        "S[(2, 2) : (1@wgid, 1@warpid)]",
        "S[(4, 32) : (32@tid_in_wg, 1@laneid)]",
        "S[4 : 1@wid_in_wg] + 3@tid_in_wg", "S[4 : 1@tx] + 1@wgid"}) {
    Result<TileLayout> r = fuseThreadAxes(parseOrDie(text));
    ASSERT_FALSE(bool(r)) << text;
    EXPECT_NE(r.message().find("overlapping"), std::string::npos)
        << r.message();
  }
}

TEST(ThreadFusion, RefusesOverflow) {
  Result<TileLayout> r = fuseThreadAxes(
      parseOrDie("S[(2, 2) : (1@laneid, 1000000000000000000@warpid)]"));
  EXPECT_FALSE(bool(r));
}

/// The fusion's meaning, evaluated point by point.
Point fusePoint(const Point &p, bool toTx) {
  Point out;
  for (const auto &[axis, v] : p) {
    int64_t factor = 1;
    std::string dest = toTx ? "tx" : "tid_in_wg";
    if (axis == "warpid" || axis == "wid_in_wg")
      factor = 32;
    else if (axis == "wgid")
      factor = 128;
    else if (axis != "laneid" && axis != "tid_in_wg" && axis != "tx")
      dest = axis;
    addTo(out, dest, v * factor);
  }
  return out;
}

/// A random layout over one family of thread axes plus memory.
TileLayout randomThreadLayout(LayoutGenerator &gen, bool cta) {
  static const char *ctaAxes[] = {"warpid", "laneid", "laneid", "m"};
  static const char *wgAxes[] = {"wgid", "wid_in_wg", "laneid", "m"};
  const char **axes = cta ? ctaAxes : wgAxes;
  IterList shard, replica;
  int64_t size = 1;
  for (int i = 0, n = int(gen.uniform(1, 4)); i < n; ++i) {
    Iter it = gen.iter();
    it.axis = axes[gen.uniform(0, 3)];
    if (size * it.extent > 128)
      break;
    size *= it.extent;
    shard.push_back(it);
  }
  if (gen.coin(0.3)) {
    Iter it = gen.iter();
    it.axis = axes[gen.uniform(0, 3)];
    replica.push_back(it);
  }
  Coord offset;
  if (gen.coin(0.3))
    offset.add(axes[gen.uniform(0, 3)], gen.uniform(-2, 8));
  return *TileLayout::create(shard, replica, offset);
}

/// Whether every point of the layout keeps its child axes inside their
/// parents (the condition under which fusion is meaningful).
bool staysInside(const TileLayout &l) {
  bool usesWg = false;
  for (const std::string &a : l.axes())
    usesWg |= a == "wgid";
  for (int64_t f = 0; f < l.size(); ++f)
    for (const Point &p : referenceApply(l, f))
      for (const auto &[axis, v] : p) {
        if (axis == "laneid" && (v < 0 || v >= 32))
          return false;
        if (axis == "wid_in_wg" && usesWg && (v < 0 || v >= 4))
          return false;
      }
  return true;
}

TEST(ThreadFusion, RandomLayoutsAgreeWithTheHierarchy) {
  LayoutGenerator gen(606);
  int fused = 0, refused = 0;
  for (int n = 0; n < 3000; ++n) {
    bool cta = gen.coin();
    TileLayout l = randomThreadLayout(gen, cta);
    Result<TileLayout> r = fuseThreadAxes(l);
    bool usesParent = false, usesWg = false;
    for (const std::string &a : l.axes()) {
      usesParent |= a == "warpid" || a == "wgid";
      usesWg |= a == "wid_in_wg";
    }
    if (!usesParent && !usesWg) {
      ASSERT_TRUE(bool(r));
      EXPECT_EQ(*r, l);
      continue;
    }
    ASSERT_EQ(bool(r), staysInside(l)) << l.str() << ": " << r.message();
    if (!r) {
      ++refused;
      continue;
    }
    ++fused;
    bool toTx = usesParent;
    for (int64_t f = 0; f < l.size(); ++f) {
      PointSet expected;
      for (const Point &p : referenceApply(l, f))
        expected.insert(fusePoint(p, toTx));
      ASSERT_EQ(referenceApply(*r, f), expected)
          << l.str() << " -> " << r->str();
    }
  }
  EXPECT_GT(fused, 300);
  EXPECT_GT(refused, 100);
}

//===----------------------------------------------------------------------===//
// Packing
//===----------------------------------------------------------------------===//

/// Checks the definition of a word view: word x' (dim d index w) sits where
/// element x (dim d index k*w) sits, with `axis` divided by k, and elements
/// k*w + j sit j further on `axis`.
void expectWordView(const TileLayout &elements, llvm::ArrayRef<int64_t> shape,
                    const TileLayout &words, int64_t k, unsigned d,
                    const std::string &axis) {
  Shape wordShape(shape.begin(), shape.end());
  wordShape[d] /= k;
  ASSERT_TRUE(words.admits(wordShape)) << words.str();
  for (int64_t f = 0; f < elements.size(); ++f) {
    Shape x = unflattenIndex(f, shape);
    int64_t j = x[d] % k;
    Shape xw = x;
    xw[d] /= k;
    PointSet expected;
    for (Point p : referenceApply(words, *flattenCoord(xw, wordShape))) {
      int64_t v = p.count(axis) ? p[axis] : 0;
      p.erase(axis);
      addTo(p, axis, v * k + j);
      expected.insert(p);
    }
    ASSERT_EQ(referenceApply(elements, f), expected)
        << elements.str() << " vs words " << words.str() << " at " << f;
  }
}

TEST(Packing, MmaOperandAToRegisters) {
  Result<TileLayout> a =
      mmaSyncFragment(MmaShape::M16N8K16, MmaOperand::A, MmaType::F16);
  ASSERT_TRUE(bool(a)) << a.message();
  Result<TileLayout> words = packToWords(*a, {16, 16}, 16);
  ASSERT_TRUE(bool(words)) << words.message();
  expectWordView(*a, {16, 16}, *words, 2, 1, "m");
  // Four .f16x2 registers per lane: a0..a3 hold element pairs.
  EXPECT_EQ(words->span("m"), 4);
  Result<TileLayout> back = unpackFromWords(*words, {16, 8}, 16);
  ASSERT_TRUE(bool(back)) << back.message();
  Result<bool> same = equivalent(*back, *a);
  ASSERT_TRUE(bool(same)) << same.message();
  EXPECT_TRUE(*same);
}

TEST(Packing, OperandBPacksAlongK) {
  Result<TileLayout> b =
      mmaSyncFragment(MmaShape::M16N8K16, MmaOperand::B, MmaType::BF16);
  ASSERT_TRUE(bool(b)) << b.message();
  // Along N the two halves of a register are in different lanes.
  Result<TileLayout> alongN = packToWords(*b, {16, 8}, 16);
  ASSERT_FALSE(bool(alongN));
  EXPECT_NE(alongN.message().find("consecutive"), std::string::npos)
      << alongN.message();
  Result<TileLayout> alongK = packToWords(*b, {16, 8}, 16, 0);
  ASSERT_TRUE(bool(alongK)) << alongK.message();
  expectWordView(*b, {16, 8}, *alongK, 2, 0, "m");
  Result<TileLayout> back = unpackFromWords(*alongK, {8, 8}, 16, 0);
  ASSERT_TRUE(bool(back)) << back.message();
  expectWordView(*back, {16, 8}, *alongK, 2, 0, "m");
}

TEST(Packing, BytesIntoWords) {
  TileLayout l = parseOrDie("S[(4, 16) : (16, 1)]");
  Result<TileLayout> words = packToWords(l, {4, 16}, 8);
  ASSERT_TRUE(bool(words)) << words.message();
  EXPECT_EQ(canonicalize(*words), canonicalize(parseOrDie("S[16 : 1]")));
  expectWordView(l, {4, 16}, *words, 4, 1, "m");
}

TEST(Packing, OtherAxis) {
  TileLayout l = parseOrDie("S[(128, 64) : (1@TLane, 1@TCol)]");
  Result<TileLayout> words = packToWords(l, {128, 64}, 16, -1, "TCol");
  ASSERT_TRUE(bool(words)) << words.message();
  expectWordView(l, {128, 64}, *words, 2, 1, "TCol");
}

TEST(Packing, Refusals) {
  // A word would start at an odd address.
  Result<TileLayout> odd = packToWords(parseOrDie("S[8 : 1] + 1"), {8}, 16);
  ASSERT_FALSE(bool(odd));
  EXPECT_NE(odd.message().find("boundary"), std::string::npos);
  Result<TileLayout> stride =
      packToWords(parseOrDie("S[(3, 2) : (3, 1)]"), {3, 2}, 16);
  ASSERT_FALSE(bool(stride));
  EXPECT_NE(stride.message().find("boundary"), std::string::npos);
  // Elements of a word two apart.
  Result<TileLayout> gap = packToWords(parseOrDie("S[8 : 2]"), {8}, 16);
  ASSERT_FALSE(bool(gap));
  EXPECT_NE(gap.message().find("consecutive"), std::string::npos);
  // Not a whole number of words, bad widths, bad dims, shapes not admitted.
  EXPECT_FALSE(bool(packToWords(parseOrDie("S[6 : 1]"), {6}, 8)));
  EXPECT_FALSE(bool(packToWords(parseOrDie("S[8 : 1]"), {8}, 32)));
  EXPECT_FALSE(bool(packToWords(parseOrDie("S[8 : 1]"), {8}, 12)));
  EXPECT_FALSE(bool(packToWords(parseOrDie("S[8 : 1]"), {8}, 16, 1)));
  EXPECT_FALSE(bool(packToWords(parseOrDie("S[8 : 1]"), {4}, 16)));
  EXPECT_FALSE(bool(unpackFromWords(parseOrDie("S[8 : 1]"), {4}, 16)));
  EXPECT_FALSE(
      bool(unpackFromWords(parseOrDie("S[2 : 4611686018427387904]"), {2}, 16)));
  Result<Shape> shape = packedShape({16, 8}, 16, 0);
  ASSERT_TRUE(bool(shape));
  EXPECT_EQ(*shape, Shape({8, 8}));
}

TEST(Packing, RandomLayoutsRoundTrip) {
  LayoutGenerator gen(1234);
  int packed = 0;
  for (int n = 0; n < 3000; ++n) {
    unsigned bits = gen.coin() ? 16 : 8;
    int64_t k = 32 / bits;
    // Build word-aligned layouts often enough: scale a random layout by k
    // on m and append a word iter somewhere along the last dim.
    TileLayout base = gen.layout(32);
    Result<TileLayout> elements = unpackFromWords(base, {base.size()}, bits);
    ASSERT_TRUE(bool(elements)) << base.str() << ": " << elements.message();
    TileLayout l = gen.coin(0.7) ? *elements : gen.layout(128);
    if (l.size() % k != 0)
      continue;
    Shape shape = gen.shapeFor(l.size(), int(gen.uniform(1, 3)));
    int d = int(gen.uniform(0, shape.size() - 1));
    if (shape[d] % k != 0)
      d = int(shape.size()) - 1;
    if (shape[d] % k != 0)
      continue;
    Result<TileLayout> words = packToWords(l, shape, bits, d);
    if (!words) {
      EXPECT_FALSE(words.message().empty());
      continue;
    }
    ++packed;
    expectWordView(l, shape, *words, k, unsigned(d), "m");
    Shape wordShape = *packedShape(shape, bits, d);
    Result<TileLayout> back = unpackFromWords(*words, wordShape, bits, d);
    if (!back) {
      // Only grouping the word layout by its shape can fail here.
      EXPECT_NE(back.message().find("dim"), std::string::npos);
      continue;
    }
    for (int64_t f = 0; f < l.size(); ++f)
      ASSERT_EQ(referenceApply(*back, f), referenceApply(l, f))
          << l.str() << " -> " << words->str() << " -> " << back->str();
  }
  EXPECT_GT(packed, 1000);
}

} // namespace
