//===- InstructionAtomTest.cpp - Atoms: shapes, layouts, limits, lookup ---===//
//
// An atom's layout must be the one HardwareLayouts constructs (whose own
// tests check it against the ISA's definition), must cover its operand's
// shape exactly once over the hardware's places, and must agree with the
// other atoms it is used with (ldmatrix feeds mma.sync, a wgmma register A is
// the warps' mma.sync A, a tcgen05.ld reads only its warp's TMEM lanes).
//
//===----------------------------------------------------------------------===//

#include "TargetTestUtils.h"
#include "axe/Target/Target.h"

#include "gtest/gtest.h"

#include <set>
#include <vector>

using namespace axe;

namespace {

const Layout &layoutOf(const InstructionAtom &atom, llvm::StringRef operand) {
  const AtomOperand *op = atom.findOperand(operand);
  EXPECT_TRUE(op && op->layout) << atom.name << " " << operand.str();
  static const Layout empty;
  return op && op->layout ? *op->layout : empty;
}

/// Fails unless `layout` puts each element of `shape` at one place, no two
/// at the same place, on no axis but those of `ranges`, with every
/// coordinate on `axis` in [0, extent) for each (axis, extent) given.
::testing::AssertionResult
coversOnce(const Layout &layout, llvm::ArrayRef<int64_t> shape,
           llvm::ArrayRef<std::pair<const char *, int64_t>> ranges) {
  if (!layout.admits(shape))
    return ::testing::AssertionFailure()
           << layout.str() << " does not admit " << shapeStr(shape);
  int64_t places = 1;
  for (auto [axis, extent] : ranges)
    places *= extent;
  // One bit per place of the box the ranges span, numbered row-major.
  std::vector<bool> taken(places, false);
  for (int64_t flat = 0; flat < layout.size(); ++flat) {
    llvm::SmallVector<Coord, 4> at = layout.apply(flat);
    if (at.size() != 1)
      return ::testing::AssertionFailure()
             << layout.str() << " places element " << flat << " " << at.size()
             << " times";
    int64_t index = 0;
    size_t known = 0;
    for (auto [axis, extent] : ranges) {
      int64_t v = at.front().get(axis);
      if (v < 0 || v >= extent)
        return ::testing::AssertionFailure()
               << layout.str() << " puts element " << flat << " at " << axis
               << " = " << v << ", outside [0, " << extent << ")";
      index = index * extent + v;
      known += v != 0;
    }
    if (known != at.front().entries().size())
      return ::testing::AssertionFailure()
             << layout.str() << " puts element " << flat << " at "
             << at.front().str() << ", on an axis outside the box";
    if (taken[index])
      return ::testing::AssertionFailure()
             << layout.str() << " puts two elements at " << at.front().str();
    taken[index] = true;
  }
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// Element types and queries
//===----------------------------------------------------------------------===//

TEST(AtomTypes, BitsAndMatching) {
  EXPECT_EQ(elementTypeBits("f16"), 16u);
  EXPECT_EQ(elementTypeBits("bf16"), 16u);
  EXPECT_EQ(elementTypeBits("tf32"), 32u);
  EXPECT_EQ(elementTypeBits("i8"), 8u);
  EXPECT_EQ(elementTypeBits("f8E4M3FN"), 8u);
  EXPECT_EQ(elementTypeBits("f80"), 80u);
  EXPECT_EQ(elementTypeBits("b64"), 64u);
  EXPECT_EQ(elementTypeBits("vector"), std::nullopt);
  EXPECT_EQ(elementTypeBits("f"), std::nullopt);

  EXPECT_TRUE(elementTypeMatches("f16", "f16"));
  EXPECT_FALSE(elementTypeMatches("f16", "bf16"));
  EXPECT_TRUE(elementTypeMatches("b16", "bf16"));
  EXPECT_TRUE(elementTypeMatches("b16", "i16"));
  EXPECT_FALSE(elementTypeMatches("b16", "f32"));
  EXPECT_TRUE(elementTypeMatches("", "f64"));
}

TEST(AtomLookup, ByKindTypesAndShape) {
  const TargetDescription &sm80 = target("sm_80");
  EXPECT_EQ(sm80.findAtoms(AtomKind::MmaSync).size(), 6u);
  EXPECT_EQ(sm80.findAtoms(AtomKind::LdMatrix).size(), 6u);
  EXPECT_TRUE(sm80.findAtoms(AtomKind::Wgmma).empty());
  EXPECT_TRUE(sm80.findAtoms(AtomKind::StMatrix).empty());
  EXPECT_TRUE(sm80.findAtoms(AtomKind::TmaBox).empty());

  // The larger k comes first.
  const InstructionAtom *mma = sm80.findAtom(AtomKind::MmaSync, "f16", "f32");
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->name, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
  EXPECT_EQ(mma->scope, ExecutionScope::Warp);
  EXPECT_EQ(mma->k, 16);
  const InstructionAtom *k8 =
      sm80.findAtom(AtomQuery{AtomKind::MmaSync, "bf16", "f32", 16, 8, 8});
  ASSERT_NE(k8, nullptr);
  EXPECT_EQ(k8->name, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32");
  EXPECT_EQ(sm80.findAtom(AtomKind::MmaSync, "bf16", "f16"), nullptr);
  EXPECT_EQ(sm80.findAtom(AtomKind::MmaSync, "f32"), nullptr);

  // ldmatrix moves any 16-bit type.
  const InstructionAtom *ld = sm80.findAtom(AtomKind::LdMatrix, "bf16");
  ASSERT_NE(ld, nullptr);
  EXPECT_EQ(ld->name, "ldmatrix.sync.aligned.m8n8.x4.shared.b16");
  EXPECT_EQ(ld->bytes, 512);
  EXPECT_EQ(sm80.findAtom(AtomKind::LdMatrix, "f32"), nullptr);

  // Newer generations keep the older instructions.
  for (llvm::StringRef name : {"sm_90", "sm_100a"}) {
    const TargetDescription &t = target(name);
    EXPECT_EQ(t.findAtoms(AtomKind::MmaSync).size(), 6u) << name.str();
    EXPECT_EQ(t.findAtoms(AtomKind::LdMatrix).size(), 6u) << name.str();
    EXPECT_EQ(t.findAtoms(AtomKind::StMatrix).size(), 6u) << name.str();
    EXPECT_EQ(t.findAtoms(AtomKind::TmaBox).size(), 16u) << name.str();
    EXPECT_EQ(t.findAtoms(AtomKind::CpAsync).size(), 1u) << name.str();
  }
  // 32 widths of n: A in shared or in registers for three 16-bit type
  // pairs, A in shared for the two 8-bit floats (k = 32).
  EXPECT_EQ(target("sm_90").findAtoms(AtomKind::Wgmma).size(),
            32u * 2 * 3 + 32u * 2);
  const InstructionAtom *fp8 =
      target("sm_90").findAtom(AtomKind::Wgmma, "f8E4M3FN", "f32");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->k, 32);
  EXPECT_EQ(fp8->name, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3");
  EXPECT_EQ(fp8->operands[0].memorySpaces[0], "shared");
  EXPECT_TRUE(target("sm_100a").findAtoms(AtomKind::Wgmma).empty());
  EXPECT_TRUE(target("sm_90").findAtoms(AtomKind::Tcgen05Mma).empty());
  EXPECT_FALSE(target("sm_100a").findAtoms(AtomKind::Tcgen05Mma).empty());
  EXPECT_TRUE(target("cpu").findAtoms(AtomKind::MmaSync).empty());
  EXPECT_TRUE(target("trn1").findAtoms(AtomKind::CpAsync).empty());
}

// Every atom's layouts admit their operand's shape, and its operands live in
// memory spaces the target has (registerTarget checks the latter too).
TEST(AtomLayouts, AdmitTheirShapes) {
  for (const TargetDescription *t : allTargets())
    for (const InstructionAtom &atom : t->atoms)
      for (const AtomOperand &op : atom.operands) {
        for (llvm::StringRef space : op.memorySpaces)
          EXPECT_TRUE(t->hasMemorySpace(space))
              << t->name.str() << " " << atom.name << " " << op.name;
        if (op.layout) {
          EXPECT_TRUE(op.layout->admits(op.shape))
              << atom.name << " " << op.name << ": " << op.layout->str()
              << " vs " << shapeStr(op.shape);
        }
      }
}

//===----------------------------------------------------------------------===//
// sm_80: mma.sync, ldmatrix, cp.async
//===----------------------------------------------------------------------===//

TEST(AtomLayouts, MmaSyncM16N8K16) {
  const InstructionAtom *mma =
      target("sm_80").findAtom(AtomKind::MmaSync, "f16", "f32");
  ASSERT_NE(mma, nullptr);
  EXPECT_EQ(mma->m, 16);
  EXPECT_EQ(mma->n, 8);
  const AtomOperand *a = mma->findOperand("A");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->shape, Shape({16, 16}));
  EXPECT_EQ(a->memorySpaces.size(), 1u);
  EXPECT_EQ(a->memorySpaces.front(), "reg");
  // 32 lanes x 8 f16 elements cover the 16x16 tile exactly once.
  EXPECT_TRUE(
      coversOnce(layoutOf(*mma, "A"), {16, 16}, {{"laneid", 32}, {"m", 8}}));
  EXPECT_EQ(layoutOf(*mma, "A").size(), 32 * 8);
  EXPECT_TRUE(
      coversOnce(layoutOf(*mma, "B"), {16, 8}, {{"laneid", 32}, {"m", 4}}));
  EXPECT_TRUE(
      coversOnce(layoutOf(*mma, "C"), {16, 8}, {{"laneid", 32}, {"m", 4}}));

  EXPECT_EQ(layoutOf(*mma, "A"),
            Layout(*mmaSyncFragment(MmaShape::M16N8K16, MmaOperand::A,
                                    MmaType::F16)));
  EXPECT_EQ(layoutOf(*mma, "B"),
            Layout(*mmaSyncFragment(MmaShape::M16N8K16, MmaOperand::B,
                                    MmaType::F16)));
  EXPECT_EQ(layoutOf(*mma, "C"),
            Layout(*mmaSyncFragment(MmaShape::M16N8K16, MmaOperand::C,
                                    MmaType::F32)));
}

// ldmatrix.x4 loads the four 8x8 quarters of an m16n8k16 A tile into the A
// fragment: the two atoms fit together.
TEST(AtomLayouts, LdmatrixFeedsMmaSync) {
  const TargetDescription &sm80 = target("sm_80");
  const InstructionAtom *ld = sm80.findAtom(AtomKind::LdMatrix, "f16");
  const InstructionAtom *mma = sm80.findAtom(AtomKind::MmaSync, "f16", "f32");
  ASSERT_TRUE(ld && mma);
  EXPECT_EQ(layoutOf(*ld, "fragment"), Layout(*ldmatrixFragment(4, false)));
  EXPECT_EQ(layoutOf(*ld, "rows"), Layout(*ldmatrixRowAddresses(4)));
  EXPECT_EQ(ld->accessBytes, std::vector<int64_t>({16}));
  const Layout &fragment = layoutOf(*ld, "fragment");
  const Layout &a = layoutOf(*mma, "A");
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t c = 0; c < 8; ++c) {
        auto loaded = fragment.apply({j, r, c}, {4, 8, 8});
        auto wanted = a.apply({r + 8 * (j % 2), c + 8 * (j / 2)}, {16, 16});
        ASSERT_TRUE(loaded && wanted);
        EXPECT_EQ(*loaded, *wanted) << j << " " << r << " " << c;
      }
  // stmatrix stores the same placement.
  const InstructionAtom *st =
      target("sm_90").findAtom(AtomKind::StMatrix, "f16");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->name, "stmatrix.sync.aligned.m8n8.x4.shared.b16");
  EXPECT_EQ(layoutOf(*st, "fragment"), fragment);
}

TEST(AtomLimits, CopySizes) {
  const InstructionAtom *cp =
      target("sm_80").findAtom(AtomQuery{AtomKind::CpAsync});
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->accessBytes, std::vector<int64_t>({16, 8, 4}));
  EXPECT_TRUE(cp->naturallyAligned);
  EXPECT_TRUE(cp->findOperand("src")->allowsMemorySpace("global"));
  EXPECT_TRUE(cp->findOperand("dst")->allowsMemorySpace("shared"));
  EXPECT_FALSE(cp->findOperand("dst")->allowsMemorySpace("reg"));

  const InstructionAtom *gpuVector =
      target("sm_90").findAtom(AtomQuery{AtomKind::VectorLoad});
  ASSERT_NE(gpuVector, nullptr);
  EXPECT_EQ(gpuVector->accessBytes.front(), 16);

  const TargetDescription &cpu = target("cpu");
  const InstructionAtom *vector = cpu.findAtom(AtomQuery{AtomKind::VectorLoad});
  ASSERT_NE(vector, nullptr);
  EXPECT_EQ(vector->bytes, cpu.vectorUnit->vectorBits / 8);
  EXPECT_EQ(vector->accessBytes.front(), cpu.vectorUnit->vectorBits / 8);
  EXPECT_EQ(vector->accessBytes.back(), 16);
}

//===----------------------------------------------------------------------===//
// sm_90: wgmma, TMA
//===----------------------------------------------------------------------===//

TEST(AtomLayouts, WgmmaAccumulators) {
  const TargetDescription &sm90 = target("sm_90");
  const InstructionAtom *widest = sm90.findAtom(AtomKind::Wgmma, "f16", "f32");
  ASSERT_NE(widest, nullptr);
  EXPECT_EQ(widest->name,
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16");
  EXPECT_EQ(widest->scope, ExecutionScope::Warpgroup);
  EXPECT_EQ(widest->findOperand("A")->swizzleBytes, Shape({0, 32, 64, 128}));
  for (const InstructionAtom *atom :
       sm90.findAtoms(AtomQuery{AtomKind::Wgmma, "bf16", "f32"})) {
    EXPECT_EQ(atom->m, 64);
    EXPECT_EQ(atom->k, 16);
    EXPECT_EQ(atom->n % 8, 0);
    EXPECT_EQ(layoutOf(*atom, "D"),
              Layout(*wgmmaAccumulator(atom->n, MmaType::F32)));
    // 128 threads x n/2 f32 accumulators cover 64 x n once.
    EXPECT_TRUE(coversOnce(layoutOf(*atom, "D"), {64, atom->n},
                           {{"tid_in_wg", 128}, {"m", atom->n / 2}}));
  }
}

// A wgmma A fragment in registers is each warp's mma.sync m16n8k16 A
// fragment, warp w holding rows [16w, 16w + 16).
TEST(AtomLayouts, WgmmaRegisterAIsFourMmaSyncAs) {
  const TargetDescription &sm90 = target("sm_90");
  const InstructionAtom *rs = nullptr;
  for (const InstructionAtom *atom :
       sm90.findAtoms(AtomQuery{AtomKind::Wgmma, "f16", "f32", 64, 64, 16}))
    if (atom->findOperand("A")->allowsMemorySpace("reg"))
      rs = atom;
  ASSERT_NE(rs, nullptr);
  const Layout &a = layoutOf(*rs, "A");
  const Layout &mmaA =
      layoutOf(*sm90.findAtom(AtomKind::MmaSync, "f16", "f32"), "A");
  for (int64_t row = 0; row < 64; ++row)
    for (int64_t col = 0; col < 16; ++col) {
      auto wg = a.apply({row, col}, {64, 16});
      auto warp = mmaA.apply({row % 16, col}, {16, 16});
      ASSERT_TRUE(wg && warp && wg->size() == 1 && warp->size() == 1);
      int64_t tid = wg->front().get("tid_in_wg");
      EXPECT_EQ(tid / 32, row / 16);
      EXPECT_EQ(tid % 32, warp->front().get("laneid"));
      EXPECT_EQ(wg->front().get("m"), warp->front().get("m"));
    }
}

TEST(AtomLimits, TmaBoxes) {
  const TargetDescription &sm90 = target("sm_90");
  // The first box for 16-bit data is the 128-byte swizzle.
  const InstructionAtom *box = sm90.findAtom(AtomKind::TmaBox, "bf16");
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->name, "cp.async.bulk.tensor.tile.swizzle_128b.b16");
  ASSERT_TRUE(box->tma);
  EXPECT_EQ(box->tma->maxBoxDim, 256);
  EXPECT_EQ(box->tma->maxRank, 5);
  EXPECT_EQ(box->tma->innerBoxBytesMultiple, 16);
  EXPECT_EQ(box->tma->swizzleLineBytes(), 128);
  EXPECT_EQ(box->tma->sharedAddressAlign, 1024);
  const AtomOperand *smem = box->findOperand("box");
  ASSERT_TRUE(smem && smem->layout);
  EXPECT_EQ(smem->shape, Shape({8, 64}));
  EXPECT_EQ(*smem->layout, *swizzleAtom(SwizzleMode::B128, 16));

  std::set<int64_t> lines;
  for (const InstructionAtom *atom :
       sm90.findAtoms(AtomQuery{AtomKind::TmaBox, "f32"})) {
    lines.insert(atom->tma->swizzleLineBytes());
    if (!atom->tma->swizzle) {
      EXPECT_EQ(atom->tma->sharedAddressAlign, 128);
      EXPECT_FALSE(atom->findOperand("box")->layout);
    }
  }
  EXPECT_EQ(lines, std::set<int64_t>({0, 32, 64, 128}));
}

//===----------------------------------------------------------------------===//
// sm_100a: tcgen05
//===----------------------------------------------------------------------===//

TEST(AtomLayouts, Tcgen05MmaAccumulators) {
  const TargetDescription &sm100 = target("sm_100a");
  const InstructionAtom *m128 = sm100.findAtom(
      AtomQuery{AtomKind::Tcgen05Mma, "f16", "f32", 128, 256, 16});
  ASSERT_NE(m128, nullptr);
  EXPECT_EQ(layoutOf(*m128, "D"),
            Layout(*tmemDatapathLayout(TmemDatapath::D, 128, 256)));
  EXPECT_TRUE(coversOnce(layoutOf(*m128, "D"), {128, 256},
                         {{"TLane", 128}, {"TCol", 512}}));
  const InstructionAtom *m64 =
      sm100.findAtom(AtomQuery{AtomKind::Tcgen05Mma, "bf16", "f32", 64, 8, 16});
  ASSERT_NE(m64, nullptr);
  EXPECT_EQ(layoutOf(*m64, "D"),
            Layout(*tmemDatapathLayout(TmemDatapath::F, 64, 8)));
  // M = 128 steps N by 16.
  EXPECT_EQ(sm100.findAtom(
                AtomQuery{AtomKind::Tcgen05Mma, "f16", "f32", 128, 24, 16}),
            nullptr);
}

// Each warp of the warpgroup reaches only its own 32-lane TMEM
// sub-partition: the register side and the TMEM side of a tcgen05.ld or
// tcgen05.st must agree on which warp holds an element.
TEST(AtomLayouts, Tcgen05MovesStayInTheirSubpartition) {
  const TargetDescription &sm100 = target("sm_100a");
  for (AtomKind kind : {AtomKind::Tcgen05Ld, AtomKind::Tcgen05St}) {
    llvm::SmallVector<const InstructionAtom *, 8> atoms = sm100.findAtoms(kind);
    ASSERT_EQ(atoms.size(), 8u);
    for (const InstructionAtom *atom : atoms) {
      const AtomOperand *tmem = atom->findOperand("tmem");
      const AtomOperand *reg = atom->findOperand("reg");
      ASSERT_TRUE(tmem && reg && tmem->layout && reg->layout);
      EXPECT_EQ(tmem->shape, reg->shape);
      int64_t rows = reg->shape[0], cols = reg->shape[1];
      EXPECT_TRUE(coversOnce(*reg->layout, reg->shape,
                             {{"tid_in_wg", 128}, {"m", rows * cols / 128}}))
          << atom->name;
      EXPECT_TRUE(coversOnce(*tmem->layout, tmem->shape,
                             {{"TLane", 128}, {"TCol", 512}}))
          << atom->name;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          auto inTmem = tmem->layout->apply({r, c}, tmem->shape);
          auto inRegs = reg->layout->apply({r, c}, reg->shape);
          ASSERT_TRUE(inTmem && inRegs);
          EXPECT_EQ(inTmem->front().get("TLane") / 32,
                    inRegs->front().get("tid_in_wg") / 32)
              << atom->name << " at " << r << ", " << c;
        }
    }
  }
}

//===----------------------------------------------------------------------===//
// trn1: TensorE and DMA
//===----------------------------------------------------------------------===//

TEST(AtomLayouts, TensorEMatmul) {
  const TargetDescription &trn = target("trn1");
  const InstructionAtom *mm =
      trn.findAtom(AtomKind::TensorEMatmul, "bf16", "f32");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->m, 128);
  EXPECT_EQ(mm->n, 512);
  EXPECT_EQ(mm->k, 128);
  ASSERT_TRUE(mm->tensorE);
  EXPECT_EQ(mm->tensorE->maxContractionPartitions, 128);
  EXPECT_EQ(mm->tensorE->maxStationaryFree, 128);
  EXPECT_EQ(mm->tensorE->maxMovingFree, 512);
  EXPECT_EQ(mm->tensorE->psumBankBytes, 2048);
  EXPECT_EQ(layoutOf(*mm, "stationary"),
            Layout(*partitionedLayout({128, 128}, 0, 2)));
  EXPECT_EQ(layoutOf(*mm, "moving"),
            Layout(*partitionedLayout({128, 512}, 0, 2)));
  EXPECT_EQ(layoutOf(*mm, "dst"), Layout(*psumTileLayout(128, 512, 4)));
  // 512 f32 per partition fill exactly one 2 KiB bank.
  EXPECT_TRUE(coversOnce(layoutOf(*mm, "dst"), {128, 512},
                         {{"P", 128}, {"Bank", 1}, {"F", 512}}));
  EXPECT_TRUE(coversOnce(layoutOf(*mm, "moving"), {128, 512},
                         {{"P", 128}, {"F", 512}}));
  // Accumulation is f32 whatever the inputs.
  EXPECT_EQ(trn.findAtom(AtomKind::TensorEMatmul, "f32", "bf16"), nullptr);
  EXPECT_NE(trn.findAtom(AtomKind::TensorEMatmul, "f8E4M3FN", "f32"), nullptr);

  const InstructionAtom *dma = trn.findAtom(AtomQuery{AtomKind::Dma});
  ASSERT_TRUE(dma && dma->dma);
  EXPECT_EQ(dma->dma->engines, 16);
  EXPECT_EQ(dma->dma->minEfficientBytesPerPartition, 2048);
  for (const AtomOperand &op : dma->operands) {
    EXPECT_TRUE(op.allowsMemorySpace("hbm") && op.allowsMemorySpace("sbuf"));
    EXPECT_FALSE(op.allowsMemorySpace("psum"));
  }
}

} // namespace
