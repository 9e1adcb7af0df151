//===- GroupTest.cpp - Grouping a layout's shard by a logical shape -------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Algebra.h"

#include "gtest/gtest.h"

#include <deque>
#include <set>

using namespace axe;
using namespace axe::testing;

namespace {

GroupedLayout groupOrDie(llvm::StringRef text, llvm::ArrayRef<int64_t> shape) {
  Result<GroupedLayout> g = group(parseOrDie(text), shape);
  EXPECT_TRUE(bool(g)) << text.str() << " by " << shapeStr(shape) << ": "
                       << g.message();
  return g ? *g : GroupedLayout();
}

std::string groupFailure(llvm::StringRef text, llvm::ArrayRef<int64_t> shape) {
  Result<GroupedLayout> g = group(parseOrDie(text), shape);
  EXPECT_FALSE(bool(g)) << text.str() << " by " << shapeStr(shape);
  return g.message();
}

using Block = std::vector<Iter>;

std::vector<Block> blocks(const GroupedLayout &g) {
  std::vector<Block> out;
  for (unsigned d = 0; d < g.blockSizes.size(); ++d)
    out.emplace_back(g.block(d).begin(), g.block(d).end());
  return out;
}

Iter it(int64_t e, int64_t s, const char *axis = "m") { return {e, s, axis}; }

//===----------------------------------------------------------------------===//
// Worked examples
//===----------------------------------------------------------------------===//

TEST(Group, SpecExamples) {
  EXPECT_EQ(blocks(groupOrDie("S[30:1]", {6, 5})),
            (std::vector<Block>{{it(6, 5)}, {it(5, 1)}}));
  EXPECT_EQ(blocks(groupOrDie("S[30:1]", {2, 15})),
            (std::vector<Block>{{it(2, 15)}, {it(15, 1)}}));
  EXPECT_EQ(groupOrDie("S[30:1]", {6, 5}).layout.str(), "S[(6, 5) : (5, 1)]");
}

TEST(Group, FusesBeforeSplitting) {
  // (2 : 3)(3 : 1) has no boundary after 3 elements; (6 : 1) does.
  EXPECT_EQ(blocks(groupOrDie("S[(2,3):(3,1)]", {3, 2})),
            (std::vector<Block>{{it(3, 2)}, {it(2, 1)}}));
  EXPECT_EQ(blocks(groupOrDie("S[(2,3,6):(18,6,1)]", {6, 6})),
            (std::vector<Block>{{it(6, 6)}, {it(6, 1)}}));
  // Stride-0 iters merge whatever their axis.
  EXPECT_EQ(blocks(groupOrDie("S[(2,3):(0@laneid,0@warpid)]", {3, 2})),
            (std::vector<Block>{{it(3, 0)}, {it(2, 0)}}));
}

TEST(Group, SplitsOneIterAcrossSeveralDims) {
  EXPECT_EQ(blocks(groupOrDie("S[64:1]", {2, 4, 8})),
            (std::vector<Block>{{it(2, 32)}, {it(4, 8)}, {it(8, 1)}}));
  EXPECT_EQ(blocks(groupOrDie("S[(4,6):(1@tx,2)]", {2, 4, 3})),
            (std::vector<Block>{
                {it(2, 2, "tx")}, {it(2, 1, "tx"), it(2, 6)}, {it(3, 2)}}));
}

TEST(Group, UnitDimsHaveEmptyBlocks) {
  GroupedLayout g = groupOrDie("S[8:1]", {1, 8, 1});
  EXPECT_EQ(g.blockSizes, (llvm::SmallVector<unsigned, 4>{0, 1, 0}));
  EXPECT_TRUE(g.block(0).empty());
  EXPECT_TRUE(g.block(2).empty());
  EXPECT_TRUE(g.dimContribution(0, 0).empty());
  GroupedLayout one = groupOrDie("S[(1,1):(5,3@tx)]", {1, 1});
  EXPECT_EQ(one.blockSizes, (llvm::SmallVector<unsigned, 4>{0, 0}));
  EXPECT_TRUE(one.layout.shard().empty());
  EXPECT_TRUE(groupOrDie("S[1:5]", {}).blockSizes.empty());
}

TEST(Group, KeepsReplicaAndOffset) {
  EXPECT_EQ(
      groupOrDie("S[(4,2):(2,1)] + R[2:-1@tx] + 3@warpid", {2, 4}).layout.str(),
      "S[(2, 4) : (4, 1)] + R[2 : -1@tx] + 3@warpid");
}

TEST(Group, SeedTileBlocksAndContributions) {
  GroupedLayout g = groupOrDie(
      "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid",
      {8, 16});
  EXPECT_EQ(blocks(g), (std::vector<Block>{{it(8, 4, "laneid")},
                                           {it(2, 1, "warpid"),
                                            it(4, 1, "laneid"), it(2, 1)}}));
  // Element (2, 9): laneid 4*2 + (9/2)%4 = 8, warpid 9/8 = 1, m 9%2 = 1.
  Coord row, col;
  row.add("laneid", 8);
  col.add("warpid", 1);
  col.add("m", 1);
  EXPECT_EQ(g.dimContribution(0, 2), row);
  EXPECT_EQ(g.dimContribution(1, 9), col);
}

TEST(Group, FailsNamingTheDimAndIter) {
  std::string why = groupFailure("S[(2,3):(1,2)]", {3, 2});
  EXPECT_NE(why.find("dim 0"), std::string::npos) << why;
  EXPECT_NE(why.find("(2 : 1)"), std::string::npos) << why;
  why = groupFailure("S[(4,6):(7,1)]", {3, 8});
  EXPECT_NE(why.find("dim 0"), std::string::npos) << why;
  EXPECT_NE(why.find("(4 : 7)"), std::string::npos) << why;
  // Dim 0 splits (4 : 7) into (2 : 14)(2 : 7); dim 1 then needs 3.
  why = groupFailure("S[(4,6):(7,1)]", {2, 3, 4});
  EXPECT_NE(why.find("dim 1"), std::string::npos) << why;
  EXPECT_NE(why.find("(2 : 7)"), std::string::npos) << why;
}

TEST(Group, RejectsShapesThatAreNotAdmitted) {
  std::string why = groupFailure("S[8:1]", {3, 3});
  EXPECT_NE(why.find("9"), std::string::npos) << why;
  EXPECT_NE(why.find("8"), std::string::npos) << why;
  why = groupFailure("S[8:1]", {0, 8});
  EXPECT_NE(why.find(">= 1"), std::string::npos) << why;
  why = groupFailure("S[8:1]", {-2, -4});
  EXPECT_NE(why.find(">= 1"), std::string::npos) << why;
}

//===----------------------------------------------------------------------===//
// Reference: search over split and fuse choices
//===----------------------------------------------------------------------===//

std::string key(const IterList &iters) {
  std::string k;
  for (const Iter &i : iters)
    k += std::to_string(i.extent) + "," + std::to_string(i.stride) + "@" +
         i.axis + ";";
  return k;
}

/// Whether whole iters (none of extent 1) fill the dims in order.
bool isGrouping(const IterList &iters, llvm::ArrayRef<int64_t> shape) {
  size_t k = 0;
  for (int64_t dim : shape) {
    int64_t product = 1;
    while (product < dim && k < iters.size())
      product *= iters[k++].extent;
    if (product != dim)
      return false;
  }
  return k == iters.size() &&
         llvm::none_of(iters, [](const Iter &i) { return i.extent == 1; });
}

/// Every shard reachable from `shard` by the map-preserving moves: split
/// (e1*e2, s) -> (e1, e2*s)(e2, s), its inverse fuse, dropping an extent-1
/// iter, and moving a stride-0 iter to m. Returns the fewest iters of a
/// reachable grouping, or -1 when none is reachable.
int fewestItersByBruteForce(llvm::ArrayRef<Iter> shard,
                            llvm::ArrayRef<int64_t> shape) {
  std::set<std::string> seen;
  std::deque<IterList> queue{IterList(shard.begin(), shard.end())};
  seen.insert(key(queue.front()));
  int best = -1;
  auto visit = [&](IterList next) {
    if (seen.insert(key(next)).second)
      queue.push_back(std::move(next));
  };
  while (!queue.empty()) {
    IterList cur = std::move(queue.front());
    queue.pop_front();
    if (isGrouping(cur, shape) && (best < 0 || int(cur.size()) < best))
      best = cur.size();
    for (size_t i = 0; i < cur.size(); ++i) {
      if (cur[i].extent == 1) {
        IterList next = cur;
        next.erase(next.begin() + i);
        visit(next);
      }
      if (cur[i].stride == 0 && cur[i].axis != "m") {
        IterList next = cur;
        next[i].axis = "m";
        visit(next);
      }
      if (i + 1 < cur.size() && cur[i].axis == cur[i + 1].axis &&
          cur[i].stride == cur[i + 1].extent * cur[i + 1].stride) {
        IterList next = cur;
        next[i] = it(cur[i].extent * cur[i + 1].extent, cur[i + 1].stride);
        next[i].axis = cur[i].axis;
        next.erase(next.begin() + i + 1);
        visit(next);
      }
      for (int64_t e2 = 2; e2 < cur[i].extent; ++e2) {
        if (cur[i].extent % e2)
          continue;
        IterList next = cur;
        next[i].extent = e2;
        Iter slow = cur[i];
        slow.extent = cur[i].extent / e2;
        slow.stride = cur[i].stride * e2;
        next.insert(next.begin() + i, slow);
        visit(next);
      }
    }
    EXPECT_LT(seen.size(), 200000u) << "reference search too large";
  }
  return best;
}

TEST(GroupProperty, FailsExactlyWhenNoGroupingExistsAndUsesFewestIters) {
  LayoutGenerator gen(0x6E0);
  int grouped = 0, failed = 0;
  for (int i = 0; i < 3000; ++i) {
    TileLayout l = gen.layout(48);
    Shape shape = gen.shapeFor(l.size(), gen.uniform(1, 4));
    int best = fewestItersByBruteForce(l.shard(), shape);
    Result<GroupedLayout> g = group(l, shape);
    std::string what = l.str() + " by " + shapeStr(shape);
    if (best < 0) {
      ASSERT_FALSE(bool(g)) << what << " gave " << g->layout.str();
      ++failed;
      continue;
    }
    ASSERT_TRUE(bool(g)) << what << ": " << g.message();
    EXPECT_EQ(int(g->layout.shard().size()), best) << what;
    ++grouped;
  }
  EXPECT_GT(grouped, 1000);
  EXPECT_GT(failed, 200);
}

TEST(GroupProperty, ResultHasTheSameMapAndBlocksOfTheShape) {
  LayoutGenerator gen(0x6E1);
  int grouped = 0;
  for (int i = 0; i < 3000; ++i) {
    TileLayout l = gen.layout(256);
    Shape shape = gen.shapeFor(l.size(), gen.uniform(1, 4));
    Result<GroupedLayout> g = group(l, shape);
    std::string what = l.str() + " by " + shapeStr(shape);
    if (!g) {
      ASSERT_NE(g.message().find("dim "), std::string::npos) << g.message();
      continue;
    }
    ++grouped;
    ASSERT_EQ(referenceMap(g->layout), referenceMap(l)) << what;
    ASSERT_EQ(g->layout.replica(), l.replica()) << what;
    ASSERT_EQ(g->layout.offset(), l.offset()) << what;
    ASSERT_EQ(g->blockSizes.size(), shape.size()) << what;
    size_t total = 0;
    for (unsigned d = 0; d < shape.size(); ++d) {
      int64_t product = 1;
      for (const Iter &i : g->block(d))
        product *= i.extent;
      ASSERT_EQ(product, shape[d]) << what << " dim " << d;
      total += g->blockSizes[d];
    }
    ASSERT_EQ(total, g->layout.shard().size()) << what;

    // The base map is the sum of the dims' contributions (plus the offset).
    TileLayout baseOnly = *TileLayout::create(
        IterList(l.shard().begin(), l.shard().end()), {}, l.offset());
    for (int64_t f = 0; f < l.size(); ++f) {
      Shape x = unflattenIndex(f, shape);
      Coord sum = l.offset();
      for (unsigned d = 0; d < shape.size(); ++d)
        sum += g->dimContribution(d, x[d]);
      ASSERT_EQ(PointSet{toPoint(sum)}, referenceApply(baseOnly, f))
          << what << " at " << shapeStr(x);
    }
  }
  EXPECT_GT(grouped, 1500);
}

} // namespace
