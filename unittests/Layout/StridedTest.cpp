//===- StridedTest.cpp - Row-major layouts and plain strides --------------===//

#include "LayoutTestUtil.h"

#include "axe/Layout/Placement.h"
#include "axe/Layout/Strided.h"

#include "gtest/gtest.h"

using namespace axe;
using axe::testing::parseOrDie;

namespace {

/// Every element of a row-major layout lands on its linear index, and
/// nowhere else.
TEST(Strided, RowMajorIsTheLinearIndex) {
  for (Shape shape : {Shape{7}, Shape{3, 5}, Shape{2, 1, 4}, Shape{4, 3, 2}}) {
    TileLayout layout = rowMajorLayout(shape);
    int64_t size = 1;
    for (int64_t e : shape)
      size *= e;
    for (int64_t linear = 0; linear < size; ++linear) {
      Shape index(shape.size());
      for (int64_t d = shape.size() - 1, rest = linear; d >= 0; --d) {
        index[d] = rest % shape[d];
        rest /= shape[d];
      }
      auto places = layout.apply(index, shape);
      ASSERT_TRUE(places && places->size() == 1);
      EXPECT_EQ(places->front().get(kDefaultAxis), linear);
    }
  }
}

TEST(Strided, PlainStridesReadBackTheStrides) {
  TileLayout layout = parseOrDie("S[(4, 8) : (16, 1)] + 3");
  auto grouped = group(layout, {4, 8});
  ASSERT_TRUE(grouped);
  auto plain = plainStrides(*grouped, 2);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->strides, (llvm::SmallVector<int64_t, 4>{16, 1}));
  EXPECT_EQ(plain->offset, 3);
}

TEST(Strided, PlainStridesRefuseWhatOneStrideCannotSay) {
  // Two iters in one dim, a thread axis, a replica.
  for (const char *text :
       {"S[(2, 2, 8) : (64, 8, 1)]", "S[(4, 8) : (1@laneid, 1)]",
        "S[(4, 8) : (8, 1)] + R[2 : 1@warpid]"}) {
    TileLayout layout = parseOrDie(text);
    auto grouped = group(layout, {4, 8});
    ASSERT_TRUE(grouped) << text;
    EXPECT_FALSE(plainStrides(*grouped, 2)) << text;
  }
}

TEST(Placement, AxesAndDeviceCopies) {
  TileLayout layout =
      parseOrDie("S[(4, 8) : (1@laneid, 1)] + R[2 : 1@gpuid] + 1@warpid");
  EXPECT_EQ(placementAxes(layout), (llvm::SmallVector<std::string, 4>{
                                       "gpuid", "laneid", "m", "warpid"}));
  TileLayout local = withoutDeviceCopies(layout);
  EXPECT_TRUE(local.replica().empty());
  EXPECT_EQ(local.offset().get("warpid"), 1);
  EXPECT_TRUE(isDeviceAxis("gpuid"));
  EXPECT_TRUE(isDeviceAxis("dx"));
  EXPECT_FALSE(isDeviceAxis("laneid"));
  EXPECT_FALSE(isDeviceAxis("m"));
}

} // namespace
