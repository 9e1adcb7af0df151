//===- RobustHardwareTest.cpp - Robust swizzles and hardware layouts ------===//
//
// Swizzles, thread fusion, packing and the hardware constructors on
// extreme arguments and enum values that are no enumerator: each call fails
// with a message or returns a result the brute force confirms. See
// RobustnessUtil.h.
//
//===----------------------------------------------------------------------===//

#include "LayoutTestUtil.h"
#include "RobustnessUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/Swizzle.h"
#include "axe/Layout/SwizzleAlgebra.h"
#include "axe/Layout/TargetFusion.h"

#include "gtest/gtest.h"

#include <climits>

using namespace axe;
using namespace axe::testing;
using namespace axe::testing::robust;

namespace {

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
