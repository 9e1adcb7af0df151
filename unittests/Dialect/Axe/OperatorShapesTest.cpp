//===- OperatorShapesTest.cpp - Shape rules of the collective operators ---===//
//
// The rules the verifiers and the code generators share: what each accepts,
// how it maps dims, and the message of each rejection (the verifier's
// diagnostic, which the lit tests check after "'axe.op' op ").
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "gtest/gtest.h"

using namespace axe;

namespace {

using Shapes = llvm::SmallVector<llvm::ArrayRef<int64_t>>;

TEST(OperatorShapesTest, CopyNeedsEqualShapes) {
  EXPECT_TRUE(bool(checkCopyShapes({8, 4}, {8, 4})));
  Result<bool> r = checkCopyShapes({8, 4}, {4, 8});
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(r.message(), "copies between different shapes 8x4 and 4x8");
}

TEST(OperatorShapesTest, GemmOperandDimsFollowTheTransposes) {
  using D = GemmDim;
  using Dims = std::array<GemmDim, 2>;
  EXPECT_EQ(gemmOperandDims(GemmOperand::A, false), (Dims{D::M, D::K}));
  EXPECT_EQ(gemmOperandDims(GemmOperand::A, true), (Dims{D::K, D::M}));
  EXPECT_EQ(gemmOperandDims(GemmOperand::B, false), (Dims{D::K, D::N}));
  EXPECT_EQ(gemmOperandDims(GemmOperand::B, true), (Dims{D::N, D::K}));
  EXPECT_EQ(gemmOperandDims(GemmOperand::C, false), (Dims{D::M, D::N}));
  EXPECT_EQ(gemmExtent({32, 64}, GemmOperand::A, true, D::M), 64);
  EXPECT_EQ(gemmExtent({32, 64}, GemmOperand::A, true, D::K), 32);
  EXPECT_EQ(gemmExtent({32, 64}, GemmOperand::B, false, D::N), 64);
}

TEST(OperatorShapesTest, GemmProblemReadsMNK) {
  // A^T is 64x32 (M x K), B^T is 32x128 (K x N).
  Result<GemmProblem> p =
      gemmProblem({32, 64}, true, {128, 32}, true, {64, 128});
  ASSERT_TRUE(bool(p)) << p.message();
  EXPECT_EQ(p->m, 64);
  EXPECT_EQ(p->n, 128);
  EXPECT_EQ(p->k, 32);
  EXPECT_EQ(p->extent(GemmDim::K), 32);
  EXPECT_EQ(p->dimsOf(GemmOperand::B),
            (std::array<GemmDim, 2>{GemmDim::N, GemmDim::K}));
  EXPECT_EQ(p->dimsOf(GemmOperand::C),
            (std::array<GemmDim, 2>{GemmDim::M, GemmDim::N}));
}

std::string gemmError(llvm::ArrayRef<int64_t> a, bool ta,
                      llvm::ArrayRef<int64_t> b, bool tb,
                      llvm::ArrayRef<int64_t> c) {
  Result<GemmProblem> p = gemmProblem(a, ta, b, tb, c);
  EXPECT_FALSE(bool(p));
  return p.message();
}

TEST(OperatorShapesTest, GemmRejectionsSayWhich) {
  EXPECT_EQ(gemmError({2, 8, 8}, false, {8, 8}, false, {8, 8}),
            "A must be a rank-2 buffer, got shape 2x8x8");
  EXPECT_EQ(gemmError({8, 8}, false, {8, 8}, false, {8}),
            "C must be a rank-2 buffer, got shape 8");
  EXPECT_EQ(gemmError({64, 32}, false, {16, 128}, false, {64, 128}),
            "A is 64x32 but B is 16x128: the K dims differ");
  EXPECT_EQ(gemmError({64, 32}, true, {128, 16}, true, {32, 128}),
            "A^T is 32x64 but B^T is 16x128: the K dims differ");
  EXPECT_EQ(gemmError({64, 32}, false, {32, 128}, false, {128, 64}),
            "C is 128x64 but A x B is 64x128");
}

TEST(OperatorShapesTest, ReduceDims) {
  EXPECT_TRUE(bool(checkReduceDims(3, {0, 2})));
  EXPECT_EQ(checkReduceDims(2, {}).message(),
            "needs at least one dim to reduce");
  EXPECT_EQ(checkReduceDims(2, {2}).message(),
            "dim 2 is out of range for a rank-2 source");
  EXPECT_EQ(checkReduceDims(2, {-1}).message(),
            "dim -1 is out of range for a rank-2 source");
  EXPECT_EQ(checkReduceDims(2, {1, 0}).message(),
            "dims must be strictly increasing");
  EXPECT_EQ(checkReduceDims(2, {1, 1}).message(),
            "dims must be strictly increasing");
}

TEST(OperatorShapesTest, ReduceKeepingDimsMapsEveryDim) {
  Result<ReduceMapping> m = reduceMapping({16, 64}, {1}, {16, 1});
  ASSERT_TRUE(bool(m)) << m.message();
  EXPECT_TRUE(m->keepDims);
  EXPECT_EQ(m->reduced, (llvm::SmallVector<bool, 4>{false, true}));
  EXPECT_EQ(m->targetDims, (llvm::SmallVector<unsigned, 4>{0, 1}));
}

TEST(OperatorShapesTest, ReduceDroppingDimsMapsTheKeptOnes) {
  Result<ReduceMapping> m = reduceMapping({4, 8, 2}, {0, 2}, {8});
  ASSERT_TRUE(bool(m)) << m.message();
  EXPECT_FALSE(m->keepDims);
  EXPECT_EQ(m->reduced, (llvm::SmallVector<bool, 4>{true, false, true}));
  EXPECT_EQ(m->targetDims, (llvm::SmallVector<unsigned, 4>{1}));
  EXPECT_EQ(reduceShapeKeepingDims({4, 8, 2}, {0, 2}), (Shape{1, 8, 1}));
  EXPECT_EQ(reduceShapeDroppingDims({4, 8, 2}, {0, 2}), (Shape{8}));
}

TEST(OperatorShapesTest, ReduceOfEveryDimIsAScalarOrOnes) {
  Result<ReduceMapping> scalar = reduceMapping({4, 8}, {0, 1}, {});
  ASSERT_TRUE(bool(scalar)) << scalar.message();
  EXPECT_FALSE(scalar->keepDims);
  EXPECT_TRUE(scalar->targetDims.empty());
  Result<ReduceMapping> ones = reduceMapping({4, 8}, {0, 1}, {1, 1});
  ASSERT_TRUE(bool(ones)) << ones.message();
  EXPECT_TRUE(ones->keepDims);
}

TEST(OperatorShapesTest, ReduceRejectsOtherTargets) {
  EXPECT_EQ(reduceMapping({16, 64}, {1}, {64}).message(),
            "target shape 64 is neither 16x1 (reduced dims kept as 1) nor 16 "
            "(reduced dims dropped)");
  EXPECT_EQ(reduceMapping({16}, {0}, {2}).message(),
            "target shape 2 is neither 1 (reduced dims kept as 1) nor a "
            "scalar (reduced dims dropped)");
  // The dims are checked before the target.
  EXPECT_EQ(reduceMapping({16, 64}, {2}, {64}).message(),
            "dim 2 is out of range for a rank-2 source");
}

TEST(OperatorShapesTest, BroadcastIsSameRankEachDimEqualOrOne) {
  EXPECT_TRUE(broadcastsTo({16, 64}, {16, 64}));
  EXPECT_TRUE(broadcastsTo({16, 1}, {16, 64}));
  EXPECT_TRUE(broadcastsTo({1, 1}, {16, 64}));
  EXPECT_FALSE(broadcastsTo({16}, {16, 64}));
  EXPECT_FALSE(broadcastsTo({16, 2}, {16, 64}));
  // Broadcasting goes one way: an output dim of 1 does not stretch.
  EXPECT_FALSE(broadcastsTo({16, 64}, {16, 1}));
}

TEST(OperatorShapesTest, ElementwiseRunsOverTheOutputsShape) {
  llvm::SmallVector<int64_t> tile{16, 64}, row{16, 1};
  Result<Shape> s = elementwiseShape(Shapes{tile, row}, Shapes{tile, tile});
  ASSERT_TRUE(bool(s)) << s.message();
  EXPECT_EQ(*s, (Shape{16, 64}));
  // No inputs: a body of constants.
  EXPECT_TRUE(bool(elementwiseShape({}, Shapes{tile})));
}

TEST(OperatorShapesTest, ElementwiseRejectionsSayWhich) {
  llvm::SmallVector<int64_t> tile{16, 64}, bad{16, 2}, v8{8}, v16{16};
  EXPECT_EQ(elementwiseShape(Shapes{tile}, {}).message(),
            "needs at least one output");
  EXPECT_EQ(elementwiseShape(Shapes{bad}, Shapes{tile}).message(),
            "input #0 has shape 16x2, which does not broadcast to the "
            "outputs' shape 16x64 (same rank, each dim equal or 1)");
  EXPECT_EQ(elementwiseShape({}, Shapes{v16, v8}).message(),
            "output #1 has shape 8, but output #0 has shape 16");
  // An output does not broadcast, even along a dim of 1.
  llvm::SmallVector<int64_t> ones{16, 1};
  EXPECT_EQ(elementwiseShape({}, Shapes{tile, ones}).message(),
            "output #1 has shape 16x1, but output #0 has shape 16x64");
}

} // namespace
