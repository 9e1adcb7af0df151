//===- HardwareLayoutsTest.cpp - Constructors against their definitions --===//
//
// Every constructor is checked element by element against an independent
// encoding of the instruction's definition: the test enumerates the
// hardware's side (lane, register index, ...), computes the logical
// coordinate by the documented formula, and checks that the layout maps that
// coordinate to exactly that physical place, covering every element once.
//
//===----------------------------------------------------------------------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/TargetFusion.h"

#include "gtest/gtest.h"

#include <functional>

using namespace axe;
using namespace axe::testing;

namespace {

/// Collects (logical coordinate -> physical point) pairs from a definition
/// and checks the layout against them: each element of `shape` must be
/// defined exactly once and map to exactly its point.
class DefinitionCheck {
public:
  DefinitionCheck(const TileLayout &layout, Shape shape)
      : layout(layout), shape(std::move(shape)) {}

  void expect(llvm::ArrayRef<int64_t> coord, const Point &where) {
    Result<int64_t> flat = flattenCoord(coord, shape);
    ASSERT_TRUE(bool(flat)) << flat.message();
    ASSERT_TRUE(defined.insert(*flat).second)
        << "definition places element " << *flat << " twice";
    PointSet images = referenceApply(layout, *flat);
    ASSERT_EQ(images, PointSet{where})
        << layout.str() << " at " << shapeStr(coord);
  }

  void expectComplete() {
    ASSERT_TRUE(layout.admits(shape))
        << layout.str() << " vs " << shapeStr(shape);
    EXPECT_EQ(int64_t(defined.size()), layout.size()) << layout.str();
  }

private:
  TileLayout layout;
  Shape shape;
  std::set<int64_t> defined;
};

//===----------------------------------------------------------------------===//
// mma.sync (PTX ISA "Matrix Fragments for mma.m16n8k16 / m16n8k8",
// floating-point types)
//===----------------------------------------------------------------------===//

TileLayout mmaOrDie(MmaShape s, MmaOperand o, MmaType t) {
  Result<TileLayout> l = mmaSyncFragment(s, o, t);
  EXPECT_TRUE(bool(l)) << l.message();
  return l ? *l : TileLayout();
}

TEST(MmaSync, M16N8K16OperandA) {
  for (MmaType t : {MmaType::F16, MmaType::BF16}) {
    DefinitionCheck check(mmaOrDie(MmaShape::M16N8K16, MmaOperand::A, t),
                          {16, 16});
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t i = 0; i < 8; ++i) {
        int64_t groupID = lane >> 2, tig = lane % 4;
        int64_t row = (i < 2 || (i >= 4 && i < 6)) ? groupID : groupID + 8;
        int64_t col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
        check.expect({row, col}, point({{"laneid", lane}, {"m", i}}));
      }
    check.expectComplete();
  }
}

TEST(MmaSync, M16N8K16OperandB) {
  DefinitionCheck check(
      mmaOrDie(MmaShape::M16N8K16, MmaOperand::B, MmaType::F16), {16, 8});
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i) {
      int64_t groupID = lane >> 2, tig = lane % 4;
      int64_t row = i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
      check.expect({row, groupID}, point({{"laneid", lane}, {"m", i}}));
    }
  check.expectComplete();
}

/// The 16x8 placement of four registers that the C fragments and the A
/// fragment of m16n8k8 share: a0, a1 on row groupID, a2, a3 on groupID + 8.
void checkRowPairs16x8(const TileLayout &fragment) {
  DefinitionCheck check(fragment, {16, 8});
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i) {
      int64_t groupID = lane >> 2, tig = lane % 4;
      int64_t row = i < 2 ? groupID : groupID + 8;
      int64_t col = tig * 2 + (i & 1);
      check.expect({row, col}, point({{"laneid", lane}, {"m", i}}));
    }
  check.expectComplete();
}

TEST(MmaSync, AccumulatorC) {
  for (MmaShape s : {MmaShape::M16N8K8, MmaShape::M16N8K16})
    for (MmaType t : {MmaType::F32, MmaType::F16})
      checkRowPairs16x8(mmaOrDie(s, MmaOperand::C, t));
}

TEST(MmaSync, M16N8K8OperandA) {
  checkRowPairs16x8(mmaOrDie(MmaShape::M16N8K8, MmaOperand::A, MmaType::BF16));
}

TEST(MmaSync, M16N8K8OperandB) {
  DefinitionCheck check(
      mmaOrDie(MmaShape::M16N8K8, MmaOperand::B, MmaType::F16), {8, 8});
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 2; ++i) {
      int64_t groupID = lane >> 2, tig = lane % 4;
      check.expect({tig * 2 + i, groupID}, point({{"laneid", lane}, {"m", i}}));
    }
  check.expectComplete();
}

TEST(MmaSync, ShapesAndText) {
  EXPECT_EQ(mmaSyncOperandShape(MmaShape::M16N8K16, MmaOperand::A),
            Shape({16, 16}));
  EXPECT_EQ(mmaSyncOperandShape(MmaShape::M16N8K8, MmaOperand::B),
            Shape({8, 8}));
  EXPECT_EQ(mmaSyncOperandShape(MmaShape::M16N8K8, MmaOperand::C),
            Shape({16, 8}));
  EXPECT_EQ(mmaOrDie(MmaShape::M16N8K16, MmaOperand::A, MmaType::F16),
            parseOrDie("S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]"));
}

TEST(MmaSync, RejectsWrongTypes) {
  Result<TileLayout> a =
      mmaSyncFragment(MmaShape::M16N8K16, MmaOperand::A, MmaType::F32);
  ASSERT_FALSE(bool(a));
  EXPECT_NE(a.message().find("f16 or bf16"), std::string::npos);
  EXPECT_FALSE(
      bool(mmaSyncFragment(MmaShape::M16N8K8, MmaOperand::B, MmaType::F32)));
  EXPECT_FALSE(
      bool(mmaSyncFragment(MmaShape::M16N8K8, MmaOperand::C, MmaType::BF16)));
}

TEST(MmaSync, ALoadedByLdmatrixX4) {
  // ldmatrix.x4 puts matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7),
  // (rows 0-7, k 8-15), (rows 8-15, k 8-15) in registers a0..a3: the same
  // placement as the A fragment.
  Result<TileLayout> ld = ldmatrixFragment(4, false);
  ASSERT_TRUE(bool(ld)) << ld.message();
  TileLayout a = mmaOrDie(MmaShape::M16N8K16, MmaOperand::A, MmaType::F16);
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t c = 0; c < 8; ++c) {
        int64_t row = r + 8 * (j % 2), col = c + 8 * (j / 2);
        EXPECT_EQ(referenceApply(*ld, *flattenCoord({j, r, c}, {4, 8, 8})),
                  referenceApply(a, *flattenCoord({row, col}, {16, 16})));
      }
}

//===----------------------------------------------------------------------===//
// ldmatrix (PTX ISA "ldmatrix": each 8x8 matrix's rows come from 8 lanes;
// lane l receives row l/4, elements 2(l%4), 2(l%4)+1; .trans transposes)
//===----------------------------------------------------------------------===//

TEST(Ldmatrix, Fragments) {
  for (int64_t num : {1, 2, 4})
    for (bool trans : {false, true}) {
      Result<TileLayout> l = ldmatrixFragment(num, trans);
      ASSERT_TRUE(bool(l)) << l.message();
      DefinitionCheck check(*l, {num, 8, 8});
      for (int64_t j = 0; j < num; ++j)
        for (int64_t lane = 0; lane < 32; ++lane)
          for (int64_t h = 0; h < 2; ++h) {
            int64_t a = lane / 4, b = 2 * (lane % 4) + h;
            int64_t row = trans ? b : a, col = trans ? a : b;
            check.expect({j, row, col},
                         point({{"laneid", lane}, {"m", 2 * j + h}}));
          }
      check.expectComplete();
    }
}

TEST(Ldmatrix, RowAddresses) {
  for (int64_t num : {1, 2, 4}) {
    Result<TileLayout> l = ldmatrixRowAddresses(num);
    ASSERT_TRUE(bool(l)) << l.message();
    DefinitionCheck check(*l, {num, 8});
    for (int64_t lane = 0; lane < 8 * num; ++lane)
      check.expect({lane / 8, lane % 8}, point({{"laneid", lane}}));
    check.expectComplete();
  }
}

TEST(Ldmatrix, Rejects) {
  for (int64_t num : {0, 3, 8, -1}) {
    EXPECT_FALSE(bool(ldmatrixFragment(num, false))) << num;
    EXPECT_FALSE(bool(ldmatrixRowAddresses(num))) << num;
  }
}

//===----------------------------------------------------------------------===//
// Warpgroup layouts
//===----------------------------------------------------------------------===//

TEST(WgLocal, MatchesTheSpec) {
  Result<TileLayout> l = wgLocalLayout(64);
  ASSERT_TRUE(bool(l)) << l.message();
  EXPECT_EQ(*l, parseOrDie("S[(128, 64) : (1@tid_in_wg, 1)]"));
  Result<TileLayout> small = wgLocalLayout(3, 16);
  ASSERT_TRUE(bool(small));
  DefinitionCheck check(*small, {16, 3});
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 3; ++c)
      check.expect({r, c}, point({{"tid_in_wg", r}, {"m", c}}));
  check.expectComplete();
  EXPECT_FALSE(bool(wgLocalLayout(8, 129)));
  EXPECT_FALSE(bool(wgLocalLayout(8, 0)));
  EXPECT_FALSE(bool(wgLocalLayout(0)));
}

TEST(Wgmma, Accumulator) {
  // PTX ISA wgmma .m64nNk16 D fragment: warp w of the warpgroup holds rows
  // 16w.., d_i at row groupID + 8 * (i % 4 >= 2), col 8(i / 4) + 2t + i % 2.
  for (int64_t n : {8, 16, 64, 120, 256}) {
    Result<TileLayout> l = wgmmaAccumulator(n);
    ASSERT_TRUE(bool(l)) << l.message();
    DefinitionCheck check(*l, {64, n});
    for (int64_t w = 0; w < 4; ++w)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t i = 0; i < n / 2; ++i) {
          int64_t groupID = lane >> 2, tig = lane % 4;
          int64_t row = 16 * w + groupID + 8 * ((i % 4) >= 2 ? 1 : 0);
          int64_t col = 8 * (i / 4) + 2 * tig + (i & 1);
          check.expect({row, col},
                       point({{"tid_in_wg", 32 * w + lane}, {"m", i}}));
        }
    check.expectComplete();
  }
  EXPECT_TRUE(bool(wgmmaAccumulator(64, MmaType::F16)));
  for (int64_t n : {0, 4, 12, 264, -8})
    EXPECT_FALSE(bool(wgmmaAccumulator(n))) << n;
  EXPECT_FALSE(bool(wgmmaAccumulator(64, MmaType::BF16)));
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

TEST(TmemDatapath, SpecExampleD) {
  Result<TileLayout> d = tmemDatapathLayout(TmemDatapath::D, 128, 256);
  ASSERT_TRUE(bool(d)) << d.message();
  EXPECT_EQ(*d, parseOrDie("S[(128, 256) : (1@TLane, 1@TCol)]"));
}

/// The data-path placements as we read the PTX figures, written as row /
/// column formulas (lane, column) = f(row, col).
struct DatapathCase {
  TmemDatapath datapath;
  int64_t rows, cols;
  std::function<std::pair<int64_t, int64_t>(int64_t, int64_t)> place;
};

TEST(TmemDatapath, AllDatapaths) {
  auto identity = [](int64_t r, int64_t c) { return std::make_pair(r, c); };
  auto folded = [](int64_t parts, int64_t rows, int64_t cols) {
    return [=](int64_t r, int64_t c) {
      int64_t per = cols / parts;
      return std::make_pair(r + rows * (c / per), c % per);
    };
  };
  auto scattered = [](int64_t r, int64_t c) {
    return std::make_pair(32 * (r / 16) + r % 16, c);
  };
  DatapathCase cases[] = {
      {TmemDatapath::A, 128, 64, identity},
      {TmemDatapath::D, 128, 512, identity},
      {TmemDatapath::B, 64, 128, folded(2, 64, 128)},
      {TmemDatapath::E, 64, 6, folded(2, 64, 6)},
      {TmemDatapath::C, 64, 32, scattered},
      {TmemDatapath::F, 64, 100, scattered},
      {TmemDatapath::G, 32, 64, folded(4, 32, 64)},
  };
  for (const DatapathCase &c : cases) {
    Result<TileLayout> l = tmemDatapathLayout(c.datapath, c.rows, c.cols);
    ASSERT_TRUE(bool(l)) << tmemDatapathName(c.datapath).str() << ": "
                         << l.message();
    DefinitionCheck check(*l, {c.rows, c.cols});
    std::set<std::pair<int64_t, int64_t>> cells;
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t col = 0; col < c.cols; ++col) {
        auto [lane, tcol] = c.place(r, col);
        EXPECT_LT(lane, 128);
        EXPECT_LT(tcol, 512);
        cells.insert({lane, tcol});
        check.expect({r, col}, point({{"TLane", lane}, {"TCol", tcol}}));
      }
    check.expectComplete();
    EXPECT_EQ(int64_t(cells.size()), c.rows * c.cols);
  }
}

TEST(TmemDatapath, Rejects) {
  EXPECT_FALSE(bool(tmemDatapathLayout(TmemDatapath::D, 64, 64)));
  EXPECT_FALSE(bool(tmemDatapathLayout(TmemDatapath::D, 128, 513)));
  EXPECT_FALSE(bool(tmemDatapathLayout(TmemDatapath::F, 128, 64)));
  EXPECT_FALSE(bool(tmemDatapathLayout(TmemDatapath::B, 64, 7)));
  EXPECT_FALSE(bool(tmemDatapathLayout(TmemDatapath::G, 32, 6)));
  EXPECT_FALSE(bool(tmemDatapathLayout(TmemDatapath::A, 128, 0)));
  EXPECT_TRUE(bool(tmemDatapathLayout(TmemDatapath::B, 64, 1024)));
  EXPECT_FALSE(bool(tmemDatapathLayout(TmemDatapath::B, 64, 1026)));
  Result<TmemDatapath> f = parseTmemDatapath("F");
  ASSERT_TRUE(bool(f));
  EXPECT_EQ(*f, TmemDatapath::F);
  EXPECT_FALSE(bool(parseTmemDatapath("H")));
}

/// The native image of one tcgen05.ld/st instruction: lane l, register r
/// (within the instruction, .num = reps) -> TMEM (lane, 32-bit column)
/// relative to the atom origin.
std::pair<int64_t, int64_t> nativeImage(Tcgen05Shape s, int64_t l, int64_t r) {
  switch (s) {
  case Tcgen05Shape::S32x32b:
    return {l, r};
  case Tcgen05Shape::S16x64b:
    return {l / 4 + 8 * (l % 2), (l / 2) % 2 + 2 * r};
  case Tcgen05Shape::S16x128b:
    return {l / 4 + 8 * (r % 2), l % 4 + 4 * (r / 2)};
  case Tcgen05Shape::S16x256b:
    return {l / 4 + 8 * ((r / 2) % 2), r % 2 + 2 * (l % 4) + 8 * (r / 4)};
  }
  return {0, 0};
}

int64_t cellsPerRep(Tcgen05Shape s) {
  static const int64_t cells[] = {1, 2, 4, 8};
  return cells[static_cast<int>(s)];
}

/// Checks a tcgen05 atom layout of (rows, cols) elements: every warp w
/// issues (for 16-lane shapes over 128 rows) one instruction per 16-lane
/// half q, each with `reps` repetitions; register index r of half q is
/// register q * regsPerHalf + r. The TMEM lane maps back to a tensor row
/// through the data path (F for 64 rows, identity for 128).
void checkTcgen05(Tcgen05Shape s, int64_t rows, int64_t cols, unsigned bits) {
  Result<TileLayout> l = tcgen05AtomLayout(s, {rows, cols}, bits);
  ASSERT_TRUE(bool(l)) << tcgen05ShapeName(s).str() << ": " << l.message();
  int64_t perCell = 32 / bits;
  int64_t tmemCols = cols / perCell;
  bool sixteen = s != Tcgen05Shape::S32x32b;
  int64_t halves = sixteen && rows == 128 ? 2 : 1;
  int64_t regsPerHalf = tmemCols * (sixteen ? 16 : 32) / 32;
  DefinitionCheck check(*l, {rows, cols});
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t q = 0; q < halves; ++q)
      for (int64_t lane = 0; lane < 32; ++lane)
        for (int64_t r = 0; r < regsPerHalf; ++r) {
          auto [tl, tc] = nativeImage(s, lane, r);
          ASSERT_LT(tc, tmemCols);
          // TMEM lane within the warp's slab -> tensor row.
          int64_t slabLane = 16 * q + tl;
          int64_t row = rows == 64 ? 16 * w + slabLane : 32 * w + slabLane;
          for (int64_t h = 0; h < perCell; ++h) {
            int64_t reg = q * regsPerHalf + r;
            check.expect({row, tc * perCell + h},
                         point({{"tid_in_wg", 32 * w + lane},
                                {"m", reg * perCell + h}}));
          }
        }
  check.expectComplete();
}

TEST(Tcgen05Atom, AllShapesAndWidths) {
  for (unsigned bits : {32u, 16u}) {
    checkTcgen05(Tcgen05Shape::S32x32b, 128, 64, bits);
    for (Tcgen05Shape s : {Tcgen05Shape::S16x64b, Tcgen05Shape::S16x128b,
                           Tcgen05Shape::S16x256b})
      for (int64_t rows : {64, 128})
        checkTcgen05(s, rows, cellsPerRep(s) * 4 * (32 / bits), bits);
  }
  checkTcgen05(Tcgen05Shape::S32x32b, 128, 1, 32);
  checkTcgen05(Tcgen05Shape::S16x256b, 64, 256, 32);
}

TEST(Tcgen05Atom, SeedExampleIsWgLocal) {
  // tcgen05_atom_layout("32x32b", (128, 64), "float32") is one row per
  // thread, the columns in its registers.
  Result<TileLayout> l =
      tcgen05AtomLayout(Tcgen05Shape::S32x32b, {128, 64}, 32);
  ASSERT_TRUE(bool(l)) << l.message();
  EXPECT_EQ(*l, canonicalize(*wgLocalLayout(64)));
}

TEST(Tcgen05Atom, MatchesWgmmaAccumulatorOver64Rows) {
  // The 16x256b atom over data path F reads an M=64 accumulator into the
  // same registers wgmma would have used.
  Result<TileLayout> l =
      tcgen05AtomLayout(Tcgen05Shape::S16x256b, {64, 128}, 32);
  Result<TileLayout> w = wgmmaAccumulator(128);
  ASSERT_TRUE(bool(l) && bool(w));
  EXPECT_EQ(*l, *w);
}

TEST(Tcgen05Atom, SixteenBitPacksIntoRegisters) {
  Result<TileLayout> l =
      tcgen05AtomLayout(Tcgen05Shape::S16x256b, {64, 32}, 16);
  ASSERT_TRUE(bool(l)) << l.message();
  Result<TileLayout> regs = packToWords(*l, {64, 32}, 16);
  ASSERT_TRUE(bool(regs)) << regs.message();
  Result<TileLayout> cells =
      tcgen05AtomLayout(Tcgen05Shape::S16x256b, {64, 16}, 32);
  ASSERT_TRUE(bool(cells));
  EXPECT_EQ(canonicalize(*regs), *cells);
}

TEST(Tcgen05Atom, Rejects) {
  EXPECT_FALSE(bool(tcgen05AtomLayout(Tcgen05Shape::S32x32b, {64, 64}, 32)));
  EXPECT_FALSE(bool(tcgen05AtomLayout(Tcgen05Shape::S16x64b, {32, 64}, 32)));
  EXPECT_FALSE(bool(tcgen05AtomLayout(Tcgen05Shape::S16x256b, {64, 12}, 32)));
  EXPECT_FALSE(bool(tcgen05AtomLayout(Tcgen05Shape::S32x32b, {128, 3}, 16)));
  EXPECT_FALSE(bool(tcgen05AtomLayout(Tcgen05Shape::S32x32b, {128, 64}, 8)));
  EXPECT_FALSE(bool(tcgen05AtomLayout(Tcgen05Shape::S32x32b, {128}, 32)));
  EXPECT_FALSE(bool(tcgen05AtomLayout(Tcgen05Shape::S32x32b, {128, 1024}, 32)));
  EXPECT_TRUE(bool(tcgen05AtomLayout(Tcgen05Shape::S32x32b, {128, 1024}, 16)));
  Result<Tcgen05Shape> s = parseTcgen05Shape(".16x128b");
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(*s, Tcgen05Shape::S16x128b);
  EXPECT_FALSE(bool(parseTcgen05Shape("16x32bx2")));
}

//===----------------------------------------------------------------------===//
// Shared-memory swizzle atoms (hardware rule on byte addresses: XOR bits
// [7, 7+B) into bits [4, 4+B), B = 1, 2, 3 for 32, 64, 128 bytes; the line
// repeats every 8 rows)
//===----------------------------------------------------------------------===//

TEST(SwizzleAtom, MatchesByteRule) {
  for (SwizzleMode mode :
       {SwizzleMode::B32, SwizzleMode::B64, SwizzleMode::B128})
    for (unsigned bits : {8u, 16u, 32u, 64u}) {
      Result<Layout> atom = swizzleAtom(mode, bits);
      ASSERT_TRUE(bool(atom)) << atom.message();
      Result<Shape> shape = swizzleAtomShape(mode, bits);
      ASSERT_TRUE(bool(shape));
      int64_t lineBytes = 32 << static_cast<int>(mode);
      int64_t b = static_cast<int>(mode) + 1, elemBytes = bits / 8;
      ASSERT_EQ(*shape, Shape({8, lineBytes / elemBytes}));
      std::set<int64_t> seen;
      for (int64_t r = 0; r < 8; ++r)
        for (int64_t c = 0; c < (*shape)[1]; ++c) {
          uint64_t byte = uint64_t(r * lineBytes + c * elemBytes);
          uint64_t mask = (uint64_t(1) << b) - 1;
          uint64_t swizzled = byte ^ (((byte >> 7) & mask) << 4);
          auto images = atom->apply({r, c}, *shape);
          ASSERT_TRUE(bool(images)) << images.message();
          ASSERT_EQ(images->size(), 1u);
          int64_t m = (*images)[0].get("m");
          EXPECT_EQ(uint64_t(m * elemBytes), swizzled)
              << swizzleModeName(mode).str() << " " << bits << "b (" << r
              << ", " << c << ")";
          seen.insert(m);
        }
      EXPECT_EQ(int64_t(seen.size()), 8 * (*shape)[1]);
      EXPECT_EQ(atom->swizzle()->period(), 8 * (*shape)[1]);
    }
}

TEST(SwizzleAtom, F16Modes) {
  EXPECT_EQ(swizzleAtom(SwizzleMode::B128, 16)->str(),
            "SW(3, 3, 3) o " + parseOrDie("S[(8, 64) : (64, 1)]").str());
  EXPECT_EQ(*swizzleAtom(SwizzleMode::B64, 16)->swizzle(),
            *Swizzle::create(3, 2, 3));
  EXPECT_EQ(*swizzleAtom(SwizzleMode::B32, 32)->swizzle(),
            *Swizzle::create(2, 1, 3));
  EXPECT_FALSE(bool(swizzleAtom(SwizzleMode::B128, 4)));
  EXPECT_FALSE(bool(swizzleAtom(SwizzleMode::B128, 12)));
  EXPECT_FALSE(bool(swizzleAtom(SwizzleMode::B128, 128)));
  Result<SwizzleMode> mode = parseSwizzleMode("64B");
  ASSERT_TRUE(bool(mode));
  EXPECT_EQ(*mode, SwizzleMode::B64);
  EXPECT_FALSE(bool(parseSwizzleMode("16B")));
}

//===----------------------------------------------------------------------===//
// Accelerator memories (128 partitions; 2 KiB PSUM banks, 8 per partition)
//===----------------------------------------------------------------------===//

TEST(Accelerator, PartitionDimFitsPartitions) {
  // Matmul operand A[K, M]: K on the partitions, M on the free dim.
  Result<TileLayout> a = partitionedLayout({128, 64}, 0, 2);
  ASSERT_TRUE(bool(a)) << a.message();
  DefinitionCheck check(*a, {128, 64});
  for (int64_t k = 0; k < 128; ++k)
    for (int64_t m = 0; m < 64; ++m)
      check.expect({k, m}, point({{"P", k}, {"F", m}}));
  check.expectComplete();
}

TEST(Accelerator, PartitionDimSplits) {
  // (2, 256, 3) with dim 1 on the partitions: row i -> P = i % 128, and
  // F enumerates (d0, i / 128, d2) row-major.
  Result<TileLayout> l = partitionedLayout({2, 256, 3}, 1, 4);
  ASSERT_TRUE(bool(l)) << l.message();
  DefinitionCheck check(*l, {2, 256, 3});
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t i = 0; i < 256; ++i)
      for (int64_t c = 0; c < 3; ++c)
        check.expect({a, i, c},
                     point({{"P", i % 128}, {"F", (a * 2 + i / 128) * 3 + c}}));
  check.expectComplete();
  Result<TileLayout> few = partitionedLayout({6, 40}, 1, 4);
  ASSERT_TRUE(bool(few));
  EXPECT_EQ(few->span("P"), 40);
}

TEST(Accelerator, PartitionTiles) {
  // (2, 384, 3) with dim 1 on the partitions, its three 128-row tiles
  // outermost on F: row i -> P = i % 128, F = (i / 128) * 6 + (a * 3 + c).
  Result<TileLayout> l = partitionTiledLayout({2, 384, 3}, 1, 4);
  ASSERT_TRUE(bool(l)) << l.message();
  DefinitionCheck check(*l, {2, 384, 3});
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t i = 0; i < 384; ++i)
      for (int64_t c = 0; c < 3; ++c)
        check.expect({a, i, c},
                     point({{"P", i % 128}, {"F", (i / 128) * 6 + a * 3 + c}}));
  check.expectComplete();
  // A matmul operand A[M, K] with K = 512 on the partitions: K tile t is
  // F in [128 t, 128 t + 128).
  Result<TileLayout> a = partitionTiledLayout({128, 512}, 1, 2);
  ASSERT_TRUE(bool(a)) << a.message();
  DefinitionCheck checkA(*a, {128, 512});
  for (int64_t m = 0; m < 128; ++m)
    for (int64_t k = 0; k < 512; ++k)
      checkA.expect({m, k},
                    point({{"P", k % 128}, {"F", (k / 128) * 128 + m}}));
  checkA.expectComplete();
  // Where the dim fits the partitions, or is dim 0, it is partitionedLayout.
  for (auto [shape, dim] :
       {std::pair<Shape, unsigned>{{6, 40}, 1}, {{256, 3, 2}, 0}}) {
    Result<TileLayout> tiled = partitionTiledLayout(shape, dim, 4);
    Result<TileLayout> plain = partitionedLayout(shape, dim, 4);
    ASSERT_TRUE(tiled && plain);
    EXPECT_EQ(*tiled, *plain) << tiled->str() << " vs " << plain->str();
  }
  // The same refusals.
  EXPECT_FALSE(bool(partitionTiledLayout({4, 200}, 1, 4)));
  EXPECT_FALSE(bool(partitionTiledLayout({4, 128}, 2, 4)));
  EXPECT_FALSE(bool(partitionTiledLayout({49153, 256}, 1, 4)));
}

TEST(Accelerator, PartitionRejects) {
  EXPECT_FALSE(bool(partitionedLayout({200, 4}, 0, 4)));
  EXPECT_FALSE(bool(partitionedLayout({128, 4}, 2, 4)));
  EXPECT_FALSE(bool(partitionedLayout({128, 0}, 0, 4)));
  EXPECT_FALSE(bool(partitionedLayout({128, 49153}, 0, 4)));
  EXPECT_TRUE(bool(partitionedLayout({128, 49152}, 0, 4)));
  EXPECT_FALSE(bool(partitionedLayout({128, 4}, 0, 0)));
}

TEST(Accelerator, PsumTile) {
  // Output C[M, N] in f32: M on P, N over banks of 512 elements.
  Result<TileLayout> c = psumTileLayout(128, 2048, 4);
  ASSERT_TRUE(bool(c)) << c.message();
  DefinitionCheck check(*c, {128, 2048});
  for (int64_t m = 0; m < 128; ++m)
    for (int64_t n = 0; n < 2048; ++n)
      check.expect({m, n},
                   point({{"P", m}, {"Bank", n * 4 / 2048}, {"F", n % 512}}));
  check.expectComplete();
  Result<TileLayout> one = psumTileLayout(64, 300, 4);
  ASSERT_TRUE(bool(one)) << one.message();
  EXPECT_EQ(one->span("F"), 300);
  EXPECT_FALSE(bool(psumTileLayout(64, 700, 4)));
  EXPECT_FALSE(bool(psumTileLayout(129, 64, 4)));
  EXPECT_FALSE(bool(psumTileLayout(64, 512 * 9, 4)));
  EXPECT_TRUE(bool(psumTileLayout(64, 512 * 8, 4)));
  EXPECT_FALSE(bool(psumTileLayout(64, 64, 3)));
}

TEST(Accelerator, BankViewRoundTrip) {
  // A flat F layout with an offset into bank 1 and a bank-stepping iter.
  TileLayout flat =
      parseOrDie("S[(4, 2, 256) : (1@P, 1024@F, 1@F)] + 600@F + 2@P");
  Result<TileLayout> banked = psumBankView(flat, 4);
  ASSERT_TRUE(bool(banked)) << banked.message();
  for (int64_t f = 0; f < flat.size(); ++f) {
    PointSet expected;
    for (Point p : referenceApply(flat, f)) {
      int64_t fv = p.count("F") ? p["F"] : 0;
      p.erase("F");
      addTo(p, "Bank", fv / 512);
      addTo(p, "F", fv % 512);
      expected.insert(p);
    }
    ASSERT_EQ(referenceApply(*banked, f), expected) << banked->str();
  }
  Result<TileLayout> back = psumFlatView(*banked, 4);
  ASSERT_TRUE(bool(back)) << back.message();
  for (int64_t f = 0; f < flat.size(); ++f)
    ASSERT_EQ(referenceApply(*back, f), referenceApply(flat, f));
}

TEST(Accelerator, BankViewRejectsStraddling) {
  Result<TileLayout> r = psumBankView(parseOrDie("S[600 : 1@F]"), 4);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(r.message().find("straddles"), std::string::npos);
  EXPECT_FALSE(bool(psumBankView(parseOrDie("S[2 : 1@F] + 511@F"), 4)));
  EXPECT_FALSE(bool(psumBankView(parseOrDie("S[9 : 512@F]"), 4)));
  EXPECT_FALSE(bool(psumFlatView(parseOrDie("S[2 : 512@F]"), 4)));
}

} // namespace
