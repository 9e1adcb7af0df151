//===- StridedTest.cpp - Row-major layouts and plain strides --------------===//

#include "LayoutTestUtil.h"

#include "axe/Layout/Placement.h"
#include "axe/Layout/Strided.h"

#include "gtest/gtest.h"

#include <map>
#include <set>

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

/// The index of `linear` in `shape`, last dim fastest.
Shape indexOf(int64_t linear, llvm::ArrayRef<int64_t> shape) {
  Shape index(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

/// A placement without its m entry: who holds the element.
Coord holder(Coord c) {
  c.set(kDefaultAxis, 0);
  return c;
}

/// By enumeration: every holder of an element of the full buffer holds its
/// source in the broadcast one, and each holder keeps its source elements
/// at distinct m from 0 up, without gaps.
void expectBroadcastSource(llvm::StringRef fullText, Shape fullShape,
                           Shape shape) {
  TileLayout full = parseOrDie(fullText);
  auto source = broadcastSourceLayout(full, fullShape, shape);
  ASSERT_TRUE(source) << source.message();
  int64_t fullSize = 1, size = 1;
  for (int64_t e : fullShape)
    fullSize *= e;
  for (int64_t e : shape)
    size *= e;
  for (int64_t linear = 0; linear < fullSize; ++linear) {
    Shape y = indexOf(linear, fullShape);
    Shape x(y);
    for (auto [d, e] : llvm::enumerate(shape))
      if (e == 1)
        x[d] = 0;
    auto fullPlaces = full.apply(y, fullShape);
    auto sourcePlaces = source->apply(x, shape);
    ASSERT_TRUE(fullPlaces && sourcePlaces);
    std::set<Coord> holders;
    for (const Coord &c : *sourcePlaces)
      holders.insert(holder(c));
    for (const Coord &c : *fullPlaces)
      EXPECT_TRUE(holders.count(holder(c)))
          << "element " << linear << " of " << fullText.str()
          << " is not held in " << source->str();
  }
  std::map<Coord, std::set<int64_t>> storage;
  for (int64_t linear = 0; linear < size; ++linear) {
    auto places = source->apply(indexOf(linear, shape), shape);
    ASSERT_TRUE(places);
    for (const Coord &c : *places)
      EXPECT_TRUE(storage[holder(c)].insert(c.get(kDefaultAxis)).second)
          << "two elements at one register in " << source->str();
  }
  for (const auto &[who, slots] : storage)
    EXPECT_EQ(*slots.rbegin() + 1, int64_t(slots.size()))
        << "gaps in the storage of " << source->str();
}

TEST(Strided, BroadcastSourceIsHeldByEveryUser) {
  // The mma.sync accumulator over 4x2 warps: a bias row, a row maximum.
  llvm::StringRef mma = "S[(4, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, "
                        "4@laneid, 1@warpid, 4, 1@laneid, 1)]";
  expectBroadcastSource(mma, {128, 64}, {1, 64});
  expectBroadcastSource(mma, {128, 64}, {128, 1});
  expectBroadcastSource(mma, {128, 64}, {1, 1});
  expectBroadcastSource(mma, {128, 64}, {128, 64});
  // Round-robin 16-byte runs, with a replica and an offset.
  expectBroadcastSource("S[(8, 16, 16, 4) : (4, 16@tx, 1@tx, 1)]", {128, 64},
                        {1, 64});
  expectBroadcastSource("S[(4, 8) : (1@laneid, 1)] + R[2 : 4@laneid] + 1@tx",
                        {4, 8}, {4, 1});
}

TEST(Strided, BroadcastSourceNeedsOnesWhereShapesDiffer) {
  TileLayout full = parseOrDie("S[(4, 8) : (8, 1)]");
  EXPECT_FALSE(broadcastSourceLayout(full, {4, 8}, {2, 8}));
  EXPECT_FALSE(broadcastSourceLayout(full, {4, 8}, {8}));
}

} // namespace
