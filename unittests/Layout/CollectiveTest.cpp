//===- CollectiveTest.cpp - Collective plans against brute force ----------===//
//
// Plans are run on a brute-force mesh and compared, rank by rank and element
// by element, with what the destination layout places where (computed here
// from the reference model of BruteForce.h, not from the library's apply).
// Structured cases come from a generator that knows the classification it
// built; random cases are arbitrary layouts over device axes.
//
//===----------------------------------------------------------------------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/Collective.h"
#include "axe/Layout/MeshStorage.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <iostream>
#include <numeric>

using namespace axe;
using namespace axe::testing;

namespace {

using Axes = std::vector<std::string>;

Mesh meshOrDie(std::initializer_list<MeshAxis> axes) {
  Result<Mesh> mesh = Mesh::create(std::vector<MeshAxis>(axes));
  EXPECT_TRUE(bool(mesh)) << mesh.message();
  return mesh ? *mesh : Mesh();
}

//===----------------------------------------------------------------------===//
// The reference mesh
//===----------------------------------------------------------------------===//

/// Row-major rank of the mesh point under `p`, or -1 when p leaves the mesh.
int64_t referenceRank(const Point &p, const Mesh &mesh) {
  int64_t rank = 0;
  for (const MeshAxis &axis : mesh.axes()) {
    auto it = p.find(axis.name);
    int64_t c = it == p.end() ? 0 : it->second;
    if (c < 0 || c >= axis.extent)
      return -1;
    rank = rank * axis.extent + c;
  }
  return rank;
}

/// For every flat index, the ranks its placements are on.
std::vector<std::set<int64_t>> referenceHolders(const TileLayout &layout,
                                                const Mesh &mesh) {
  std::vector<std::set<int64_t>> holders;
  for (const PointSet &points : referenceMap(layout)) {
    std::set<int64_t> ranks;
    for (const Point &p : points)
      ranks.insert(referenceRank(p, mesh));
    holders.push_back(ranks);
  }
  return holders;
}

MeshContents referenceContents(const TileLayout &layout, const Mesh &mesh,
                               const std::vector<int64_t> &values) {
  MeshContents contents(mesh.numRanks());
  std::vector<std::set<int64_t>> holders = referenceHolders(layout, mesh);
  for (size_t flat = 0; flat < holders.size(); ++flat)
    for (int64_t r : holders[flat])
      contents[r][flat] = values[flat];
  return contents;
}

/// The source contents: on the ranks that agree off the partial axes, random
/// addends that sum to the value.
MeshContents partialContents(const TileLayout &layout, const Mesh &mesh,
                             const Axes &partial,
                             const std::vector<int64_t> &values,
                             LayoutGenerator &gen) {
  MeshContents contents(mesh.numRanks());
  std::vector<std::set<int64_t>> holders = referenceHolders(layout, mesh);
  for (size_t flat = 0; flat < holders.size(); ++flat) {
    std::map<std::vector<int64_t>, std::vector<int64_t>> groups;
    for (int64_t r : holders[flat]) {
      std::vector<int64_t> key;
      int64_t rest = r;
      for (size_t k = mesh.axes().size(); k-- > 0;) {
        const MeshAxis &axis = mesh.axes()[k];
        bool isPartial = std::count(partial.begin(), partial.end(), axis.name);
        key.push_back(isPartial ? 0 : rest % axis.extent);
        rest /= axis.extent;
      }
      groups[key].push_back(r);
    }
    for (auto &[key, ranks] : groups) {
      int64_t left = values[flat];
      for (size_t i = 0; i + 1 < ranks.size(); ++i) {
        int64_t addend = gen.uniform(-50, 50);
        contents[ranks[i]][flat] = addend;
        left -= addend;
      }
      contents[ranks.back()][flat] = left;
    }
  }
  return contents;
}

::testing::AssertionResult sameContents(const MeshContents &got,
                                        const MeshContents &want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << got.size() << " ranks, expected " << want.size();
  for (size_t r = 0; r < want.size(); ++r)
    if (got[r] != want[r]) {
      auto fail = ::testing::AssertionFailure() << "rank " << r << " holds {";
      for (auto [f, v] : got[r])
        fail << f << ":" << v << " ";
      fail << "}, expected {";
      for (auto [f, v] : want[r])
        fail << f << ":" << v << " ";
      return fail << "}";
    }
  return ::testing::AssertionSuccess();
}

struct Case {
  TileLayout source, destination;
  Shape shape;
  Mesh mesh;
  Axes partial;
};

std::string describe(const Case &c) {
  std::string out = c.mesh.str() + " shape " + shapeStr(c.shape) +
                    "\n  source " + c.source.str();
  for (const std::string &a : c.partial)
    out += " partial " + a;
  return out + "\n  destination " + c.destination.str();
}

/// Runs `plan` on random source contents and compares the result with the
/// destination's placements.
::testing::AssertionResult
runsCorrectly(const Case &c, const CollectivePlan &plan, LayoutGenerator &gen) {
  std::vector<int64_t> values(c.source.size());
  for (int64_t &v : values)
    v = gen.uniform(-1000, 1000);
  MeshContents initial =
      partialContents(c.source, c.mesh, c.partial, values, gen);
  Result<MeshContents> final = simulatePlan(plan, initial);
  if (!final)
    return ::testing::AssertionFailure()
           << describe(c) << "\n"
           << plan.str() << "simulation failed: " << final.message();
  ::testing::AssertionResult same =
      sameContents(*final, referenceContents(c.destination, c.mesh, values));
  if (!same)
    return same << "\n" << describe(c) << "\n" << plan.str();
  return same;
}

/// Both the planned and the exchange-only plan of `c` deliver the
/// destination; returns the planned one, if there is one.
std::optional<CollectivePlan> checkCase(const Case &c, LayoutGenerator &gen) {
  Result<CollectivePlan> plan = planCollective(c.source, c.shape, c.destination,
                                               c.shape, c.mesh, c.partial);
  EXPECT_TRUE(bool(plan)) << describe(c) << "\n" << plan.message();
  if (!plan)
    return std::nullopt;
  EXPECT_TRUE(runsCorrectly(c, *plan, gen));
  Result<CollectivePlan> exchange = planExchange(
      c.source, c.shape, c.destination, c.shape, c.mesh, c.partial);
  EXPECT_TRUE(bool(exchange)) << exchange.message();
  if (exchange) {
    EXPECT_TRUE(runsCorrectly(c, *exchange, gen));
  }
  return *plan;
}

std::vector<CollectiveKind> kinds(const CollectivePlan &plan) {
  std::vector<CollectiveKind> out;
  for (const CollectiveStep &step : plan.steps)
    out.push_back(step.kind);
  return out;
}

/// A named-collective case: checks the plan's steps, their communicators and
/// local shapes, and that it runs correctly.
void expectPlan(const Case &c, std::vector<CollectiveKind> wantKinds,
                std::vector<Axes> wantAxes, std::vector<Shape> wantLocal,
                uint64_t seed = 1) {
  LayoutGenerator gen(seed);
  std::optional<CollectivePlan> plan = checkCase(c, gen);
  if (!plan)
    return;
  EXPECT_EQ(kinds(*plan), wantKinds) << plan->str();
  if (plan->steps.size() != wantKinds.size())
    return;
  ASSERT_EQ(wantLocal.size(), wantKinds.size() + 1);
  for (size_t i = 0; i < wantKinds.size(); ++i) {
    const CollectiveStep &step = plan->steps[i];
    EXPECT_EQ(Axes(step.axes.begin(), step.axes.end()), wantAxes[i])
        << step.str();
    EXPECT_EQ(step.localBefore, wantLocal[i]) << step.str();
    EXPECT_EQ(step.localAfter, wantLocal[i + 1]) << step.str();
  }
}

using K = CollectiveKind;

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

TEST(CollectiveMesh, RanksAreRowMajor) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 3}, {"gpuid", 2}});
  EXPECT_EQ(mesh.numRanks(), 12);
  for (int64_t r = 0; r < 12; ++r) {
    auto c = mesh.coordinates(r);
    EXPECT_EQ(c[0] * 6 + c[1] * 2 + c[2], r);
    EXPECT_EQ(mesh.rankAt(c), r);
  }
  EXPECT_EQ(mesh.str(), "mesh<dx = 2, dy = 3, gpuid = 2>");
}

TEST(CollectiveMesh, Parse) {
  Result<Mesh> mesh = parseMesh("mesh<dx = 2, dy = 4>");
  ASSERT_TRUE(bool(mesh)) << mesh.message();
  EXPECT_EQ(mesh->str(), "mesh<dx = 2, dy = 4>");
  Result<Mesh> bare = parseMesh(" gpuid=8 ");
  ASSERT_TRUE(bool(bare)) << bare.message();
  EXPECT_EQ(bare->numRanks(), 8);
  EXPECT_FALSE(parseMesh("dx = two"));
  EXPECT_FALSE(parseMesh("dx 2"));
  EXPECT_FALSE(parseMesh("mesh<dx = 2"));
}

TEST(CollectiveMesh, BadMeshesAreErrors) {
  auto message = [](std::vector<MeshAxis> axes) {
    Result<Mesh> mesh = Mesh::create(axes);
    EXPECT_FALSE(bool(mesh));
    return mesh.message();
  };
  EXPECT_NE(message({{"dx", 2}, {"dx", 2}}).find("twice"), std::string::npos);
  EXPECT_NE(message({{"dx", 0}}).find("extent 0"), std::string::npos);
  EXPECT_NE(message({{"m", 2}}).find("memory axis"), std::string::npos);
  EXPECT_NE(message({{"laneid", 2}}).find("thread axis"), std::string::npos);
  EXPECT_NE(message({{"2x", 2}}).find("not a valid"), std::string::npos);
  EXPECT_NE(
      message({{"a", int64_t(1) << 40}, {"b", int64_t(1) << 40}}).find("int64"),
      std::string::npos);
}

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

Distribution classifyOrDie(llvm::StringRef layout, Shape shape,
                           const Mesh &mesh, Axes partial = {}) {
  Result<Distribution> d = classify(parseOrDie(layout), shape, mesh, partial);
  EXPECT_TRUE(bool(d)) << layout.str() << ": " << d.message();
  return d ? *d : Distribution();
}

TEST(CollectiveClassify, ClassicPlacements) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 2}});
  // Rows over dx, replicated over dy.
  Distribution rows = classifyOrDie(
      "S[(2, 32, 128) : (1@dx, 128, 1)] + R[2 : 1@dy]", {64, 128}, mesh);
  EXPECT_EQ(rows.str(mesh), "dx: S(0, stride 32), dy: R");
  EXPECT_EQ(rows.localShape(), Shape({32, 128}));
  // 2-D blocks.
  Distribution blocks =
      classifyOrDie("S[(2, 32, 2, 64) : (1@dx, 64, 1@dy, 1)]", {64, 128}, mesh);
  EXPECT_EQ(blocks.str(mesh), "dx: S(0, stride 32), dy: S(1, stride 64)");
  EXPECT_EQ(blocks.localShape(), Shape({32, 64}));
  // Rows over both axes: dy is the less significant digit.
  Distribution both = classifyOrDie("S[(2, 2, 16, 128) : (1@dx, 1@dy, 128, 1)]",
                                    {64, 128}, mesh);
  EXPECT_EQ(both.str(mesh), "dx: S(0, stride 32), dy: S(0, stride 16)");
  EXPECT_EQ(both.localShape(), Shape({16, 128}));
  // Cyclic rows: row r is on dx = r mod 2.
  Distribution cyclic =
      classifyOrDie("S[(32, 2, 128) : (128, 1@dx, 1)] + 1@dy", {64, 128}, mesh);
  EXPECT_EQ(cyclic.str(mesh), "dx: S(0, stride 1), dy: @1");
  // Pending a sum over both axes.
  Distribution partial =
      classifyOrDie("S[(64, 128) : (128, 1)] + R[(2, 2) : (1@dx, 1@dy)]",
                    {64, 128}, mesh, {"dy", "dx"});
  EXPECT_EQ(partial.str(mesh), "dx: P, dy: P");
  EXPECT_TRUE(partial.partial());
}

TEST(CollectiveClassify, IrregularPlacements) {
  Mesh mesh = meshOrDie({{"dx", 4}});
  for (llvm::StringRef layout :
       {"S[(2, 8) : (2@dx, 1)]", "S[(2, 8) : (1@dx, 1)] + 2@dx",
        "S[(2, 2, 4) : (1@dx, 4, 1)] + R[2 : 2@dx]",
        "S[(2, 4, 2) : (1@dx, 1, 2@dx)]"}) {
    Distribution d = classifyOrDie(layout, {16}, mesh);
    EXPECT_FALSE(d.regular()) << layout.str() << ": " << d.str(mesh);
  }
  // The shape puts half of the dx iter in each dim.
  Distribution split = classifyOrDie("S[(4, 4) : (1@dx, 1)]", {2, 8}, mesh);
  EXPECT_FALSE(split.regular()) << split.str(mesh);
}

/// A random structured case: every mesh axis sharded (on a random digit of a
/// random dim), replicated, partial (source only) or on one device, with a
/// memory part in a random order. Keeps the placements it built.
struct Structured {
  TileLayout layout;
  std::vector<AxisPlacement> placements;
  Axes partial;
};

Structured structured(LayoutGenerator &gen, const Mesh &mesh,
                      const Shape &shape, bool allowPartial) {
  struct Digit {
    int64_t extent;
    int axis; // -1: memory
  };
  std::vector<std::vector<Digit>> blocks(shape.size());
  std::vector<int64_t> local(shape.begin(), shape.end());
  Structured out;
  IterList replica;
  Coord offset;
  for (auto [index, axis] : llvm::enumerate(mesh.axes())) {
    int choice = int(gen.uniform(0, allowPartial ? 3 : 2));
    unsigned dim = unsigned(gen.uniform(0, shape.size() - 1));
    if (choice == 0 && axis.extent > 1 && local[dim] % axis.extent == 0) {
      local[dim] /= axis.extent;
      auto &block = blocks[dim];
      block.insert(block.begin() + gen.uniform(0, block.size()),
                   {axis.extent, int(index)});
      out.placements.push_back(AxisPlacement::sharded(dim, 0, axis.extent));
    } else if (choice >= 2 && axis.extent > 1) {
      replica.push_back({axis.extent, 1, axis.name});
      out.placements.push_back(choice == 3 ? AxisPlacement::partial()
                                           : AxisPlacement::replicated());
      if (choice == 3)
        out.partial.push_back(axis.name);
    } else {
      int64_t c = gen.uniform(0, axis.extent - 1);
      offset.add(axis.name, c);
      out.placements.push_back(AxisPlacement::fixed(c));
    }
  }
  // The memory part of each dim in up to two digits around the device ones.
  std::vector<Digit *> memory;
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t inner = gen.shapeFor(local[d], 2)[1];
    auto &block = blocks[d];
    block.insert(block.begin() + gen.uniform(0, block.size()),
                 {local[d] / inner, -1});
    block.insert(block.begin() + gen.uniform(0, block.size()), {inner, -1});
  }
  IterList shard;
  for (auto &block : blocks)
    for (Digit &digit : block)
      shard.push_back(
          {digit.extent, digit.axis < 0 ? 0 : 1,
           digit.axis < 0 ? std::string("m") : mesh.axes()[digit.axis].name});
  // Memory strides in a random order of the memory digits: a packed buffer.
  std::vector<size_t> order;
  for (size_t k = 0; k < shard.size(); ++k)
    if (shard[k].axis == "m")
      order.push_back(k);
  std::shuffle(order.begin(), order.end(), gen.engine());
  int64_t stride = 1;
  for (size_t k : order) {
    shard[k].stride = stride;
    stride *= shard[k].extent;
  }
  // The logical stride of each device digit within its dim.
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t logical = 1;
    for (size_t j = blocks[d].size(); j-- > 0;) {
      if (blocks[d][j].axis >= 0)
        out.placements[blocks[d][j].axis].stride = logical;
      logical *= blocks[d][j].extent;
    }
  }
  Result<TileLayout> layout = TileLayout::create(shard, replica, offset);
  EXPECT_TRUE(bool(layout)) << layout.message();
  out.layout = layout ? *layout : TileLayout();
  return out;
}

Mesh randomMesh(LayoutGenerator &gen, int maxAxes) {
  static const char *names[] = {"dx", "dy", "gpuid"};
  std::vector<MeshAxis> axes;
  int n = int(gen.uniform(1, maxAxes));
  for (int i = 0; i < n; ++i)
    axes.push_back({names[i], gen.uniform(1, 4)});
  if (gen.coin())
    std::reverse(axes.begin(), axes.end());
  return *Mesh::create(axes);
}

Shape randomShape(LayoutGenerator &gen) {
  static const int64_t dims[] = {1, 2, 3, 4, 6, 8, 12};
  Shape shape(gen.uniform(1, 3));
  for (int64_t &d : shape)
    d = dims[gen.uniform(0, 6)];
  return shape;
}

TEST(CollectiveClassify, StructuredLayoutsClassifyAsBuilt) {
  for (uint64_t seed = 0; seed < 400; ++seed) {
    LayoutGenerator gen(seed);
    Mesh mesh = randomMesh(gen, 3);
    Shape shape = randomShape(gen);
    Structured s = structured(gen, mesh, shape, /*allowPartial=*/true);
    Result<Distribution> d = classify(s.layout, shape, mesh, s.partial);
    ASSERT_TRUE(bool(d)) << s.layout.str() << ": " << d.message();
    std::vector<AxisPlacement> got(d->axes.begin(), d->axes.end());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(got[i].str(), s.placements[i].str())
          << "seed " << seed << " " << mesh.str() << " " << s.layout.str()
          << " axis " << mesh.axes()[i].name;
  }
}

TEST(CollectiveClassify, BadInputIsAnError) {
  Mesh mesh = meshOrDie({{"dx", 2}});
  TileLayout rows = parseOrDie("S[(2, 4) : (1@dx, 1)]");
  auto message = [&](const TileLayout &l, Shape shape, const Mesh &m,
                     Axes partial = {}) {
    Result<Distribution> d = classify(l, shape, m, partial);
    EXPECT_FALSE(bool(d)) << l.str();
    return d.message();
  };
  EXPECT_NE(message(rows, {3, 3}, mesh).find("elements"), std::string::npos);
  EXPECT_NE(message(rows, {0, 8}, mesh), "");
  EXPECT_NE(message(parseOrDie("S[8 : 1@gpuid]"), {8}, mesh).find("gpuid"),
            std::string::npos);
  EXPECT_NE(message(parseOrDie("S[8 : 1@laneid]"), {8}, mesh)
                .find("neither a memory axis"),
            std::string::npos);
  EXPECT_NE(message(parseOrDie("S[(4, 2) : (1@dx, 1)]"), {8}, mesh)
                .find("outside mesh<dx = 2>"),
            std::string::npos);
  EXPECT_NE(
      message(parseOrDie("S[(2, 4) : (-1@dx, 1)]"), {8}, mesh).find("outside"),
      std::string::npos);
  EXPECT_NE(message(rows, {8}, mesh, {"dy"}).find("not an axis"),
            std::string::npos);
  EXPECT_NE(message(rows, {8}, mesh, {"dx"}).find("must be replicated"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Named collectives
//===----------------------------------------------------------------------===//

Case classic(llvm::StringRef source, llvm::StringRef destination, Shape shape,
             Mesh mesh, Axes partial = {}) {
  return {parseOrDie(source), parseOrDie(destination), shape, mesh, partial};
}

TEST(CollectivePlan, OneAxisClassics) {
  Mesh mesh = meshOrDie({{"dx", 4}});
  const char *rows = "S[(4, 4, 8) : (1@dx, 8, 1)]";
  const char *cols = "S[(16, 4, 2) : (2, 1@dx, 1)]";
  const char *whole = "S[(16, 8) : (8, 1)] + R[4 : 1@dx]";
  const char *onTwo = "S[(16, 8) : (8, 1)] + 2@dx";
  expectPlan(classic(rows, whole, {16, 8}, mesh), {K::AllGather}, {{"dx"}},
             {{4, 8}, {16, 8}});
  expectPlan(classic(whole, rows, {16, 8}, mesh, {"dx"}), {K::ReduceScatter},
             {{"dx"}}, {{16, 8}, {4, 8}});
  expectPlan(classic(whole, whole, {16, 8}, mesh, {"dx"}), {K::AllReduce},
             {{"dx"}}, {{16, 8}, {16, 8}});
  expectPlan(classic(rows, cols, {16, 8}, mesh), {K::AllToAll}, {{"dx"}},
             {{4, 8}, {16, 2}});
  expectPlan(classic(onTwo, whole, {16, 8}, mesh), {K::Broadcast}, {{"dx"}},
             {{16, 8}, {16, 8}});
  expectPlan(classic(whole, rows, {16, 8}, mesh), {K::LocalSlice}, {{"dx"}},
             {{16, 8}, {4, 8}});
  expectPlan(classic(onTwo, rows, {16, 8}, mesh), {K::Scatter}, {{"dx"}},
             {{16, 8}, {4, 8}});
  expectPlan(classic(rows, onTwo, {16, 8}, mesh), {K::Gather}, {{"dx"}},
             {{4, 8}, {16, 8}});
  expectPlan(classic(whole, onTwo, {16, 8}, mesh, {"dx"}), {K::Reduce},
             {{"dx"}}, {{16, 8}, {16, 8}});
  expectPlan(classic(onTwo, "S[(16, 8) : (8, 1)] + 3@dx", {16, 8}, mesh),
             {K::Permute}, {{"dx"}}, {{16, 8}, {16, 8}});
  expectPlan(classic(rows, "S[(4, 4, 8) : (1@dx, 1, 4)]", {16, 8}, mesh), {},
             {}, {{}});
}

TEST(CollectivePlan, RootsAndPermutationPairs) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 4}});
  LayoutGenerator gen(7);
  Case c = classic("S[(8, 2, 4) : (4, 1@dx, 1)] + 1@dy",
                   "S[(8, 2, 4) : (4, 1@dx, 1)] + 3@dy", {8, 8}, mesh);
  std::optional<CollectivePlan> plan = checkCase(c, gen);
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->steps.size(), 1u);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const Transfer &t : plan->steps[0].transfers)
    pairs.push_back({t.source, t.target});
  // Ranks (x, 1) -> (x, 3): 1 -> 3 and 5 -> 7.
  EXPECT_EQ(pairs, (std::vector<std::pair<int64_t, int64_t>>{{1, 3}, {5, 7}}));

  Case b =
      classic("S[(8, 8) : (8, 1)] + R[2 : 1@dx] + 2@dy",
              "S[(8, 8) : (8, 1)] + R[(2, 4) : (1@dx, 1@dy)]", {8, 8}, mesh);
  std::optional<CollectivePlan> bcast = checkCase(b, gen);
  ASSERT_TRUE(bcast.has_value());
  ASSERT_EQ(kinds(*bcast), std::vector<CollectiveKind>{K::Broadcast});
  EXPECT_EQ(bcast->steps[0].root, 2);
}

TEST(CollectivePlan, TwoAxisClassics) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 2}});
  const char *blocks = "S[(2, 32, 2, 64) : (1@dx, 64, 1@dy, 1)]";
  const char *rowsBoth = "S[(2, 2, 16, 128) : (1@dx, 1@dy, 128, 1)]";
  const char *whole = "S[(64, 128) : (128, 1)] + R[(2, 2) : (1@dx, 1@dy)]";
  const char *rowsX = "S[(2, 32, 128) : (1@dx, 128, 1)] + R[2 : 1@dy]";
  // All-gather over both axes at once; dx is the more significant digit.
  expectPlan(classic(rowsBoth, whole, {64, 128}, mesh), {K::AllGather},
             {{"dx", "dy"}}, {{16, 128}, {64, 128}});
  // The kernel of reduce_scatter_mesh.mlir with the device dim as partial
  // axes: one reduce-scatter over the 2 x 2 group.
  expectPlan(classic(whole, rowsBoth, {64, 128}, mesh, {"dx", "dy"}),
             {K::ReduceScatter}, {{"dx", "dy"}}, {{64, 128}, {16, 128}});
  // dy is the slower digit of the rows here, so it leads the communicator.
  expectPlan(classic(whole, "S[(2, 2, 16, 128) : (1@dy, 1@dx, 128, 1)]",
                     {64, 128}, mesh, {"dx", "dy"}),
             {K::ReduceScatter}, {{"dy", "dx"}}, {{64, 128}, {16, 128}});
  // Reductions first: reduce-scatter over dx, then all-reduce over dy.
  expectPlan(classic(whole, rowsX, {64, 128}, mesh, {"dx", "dy"}),
             {K::ReduceScatter, K::AllReduce}, {{"dx"}, {"dy"}},
             {{64, 128}, {32, 128}, {32, 128}});
  // Gathers last: slice over dy before gathering over dx.
  expectPlan(classic(rowsX, blocks, {64, 128}, mesh), {K::LocalSlice}, {{"dy"}},
             {{32, 128}, {32, 64}});
  expectPlan(classic(blocks, "S[(64, 2, 64) : (64, 1@dy, 1)] + R[2 : 1@dx]",
                     {64, 128}, mesh),
             {K::AllGather}, {{"dx"}}, {{32, 64}, {64, 64}});
  // Moving the dx shard from rows to columns.
  expectPlan(classic(rowsX, "S[(64, 2, 64) : (64, 1@dx, 1)] + R[2 : 1@dy]",
                     {64, 128}, mesh),
             {K::AllToAll}, {{"dx"}}, {{32, 128}, {64, 64}});
  // Slicing dy first would put dx and dy on the same rows; the gather goes
  // first instead.
  expectPlan(classic(rowsX, "S[(2, 32, 128) : (1@dy, 128, 1)] + R[2 : 1@dx]",
                     {64, 128}, mesh),
             {K::AllGather, K::LocalSlice}, {{"dx"}, {"dy"}},
             {{32, 128}, {64, 128}, {32, 128}});
}

/// Every digit a step moves nests with the digits of its other side, so
/// each peer's share is one size (digitPack says where each one lies). One
/// axis at a time: a step over axes of two dims is a separate limitation of
/// the MPI lowering. A local slice onto one device keeps the whole buffer.
void expectEqualShares(const CollectivePlan &plan) {
  for (const CollectiveStep &step : plan.steps) {
    if (step.kind == K::Exchange || step.kind == K::Permute)
      continue;
    for (const std::string &name : step.axes) {
      unsigned axis = *plan.mesh.find(name);
      if (step.kind == K::LocalSlice &&
          step.after.axes[axis].kind == PlacementKind::Fixed)
        continue;
      auto pack = [&](const Distribution &full, const Distribution &sharded) {
        Result<std::vector<int64_t>> p =
            digitPack(plan.mesh, full, sharded, {axis});
        EXPECT_TRUE(bool(p)) << step.str() << ": " << p.message() << "\n"
                             << plan.str();
      };
      switch (step.kind) {
      case K::ReduceScatter:
      case K::LocalSlice:
      case K::Scatter:
        pack(step.before, step.after);
        break;
      case K::AllGather:
      case K::Gather:
        pack(step.after, step.before);
        break;
      case K::AllToAll:
        pack(step.before, step.after);
        pack(step.after, step.before);
        break;
      default:
        break;
      }
    }
  }
}

// An axis that moves from stride 3 to stride 1 of a dim of 6 would send its
// peers shares of 2 and 1 elements; MPI's all-to-all moves equal shares, so
// the plan gathers and slices instead.
TEST(CollectivePlan, MisalignedMovesGoThroughReplicated) {
  Mesh mesh = meshOrDie({{"a", 3}, {"b", 2}});
  const char *halves = "S[(2, 3) : (1@b, 1)] + R[3 : 1@a]";
  const char *single = "S[(3, 2, 1) : (1@a, 1@b, 1)]";
  expectPlan(classic(halves, single, {6}, mesh), {K::AllGather, K::LocalSlice},
             {{"b"}, {"a", "b"}}, {{3}, {6}, {1}});
  expectPlan(classic(single, halves, {6}, mesh), {K::AllGather, K::LocalSlice},
             {{"a", "b"}, {"b"}}, {{1}, {6}, {3}});
  // The addends on a reduce over a first, then b is sliced.
  expectPlan(
      classic("S[(2, 3) : (1@b, 1)] + R[3 : 1@a]", single, {6}, mesh, {"a"}),
      {K::AllGather, K::ReduceScatter, K::LocalSlice}, {{"b"}, {"a"}, {"b"}},
      {{3}, {6}, {2}, {1}});
  Mesh m23 = meshOrDie({{"a", 2}, {"b", 3}});
  LayoutGenerator gen(3);
  std::optional<CollectivePlan> plan =
      checkCase(classic("S[(3, 2, 1, 3) : (1@b, 1@a, 3, 1)]",
                        "S[(2, 3, 3, 1) : (1@a, 1, 1@b, 1)]", {6, 3}, m23),
                gen);
  ASSERT_TRUE(plan.has_value());
  expectEqualShares(*plan);
}

// The MPI lowering's pack refuses such a step rather than move wrong data.
TEST(CollectivePlan, DigitPackRefusesDigitsThatDoNotNest) {
  Mesh mesh = meshOrDie({{"a", 3}, {"b", 2}});
  Case c = classic("S[(2, 3) : (1@b, 1)] + R[3 : 1@a]",
                   "S[(3, 2) : (1, 1@b)] + R[3 : 1@a]", {6}, mesh);
  Result<Distribution> halves = classify(c.source, c.shape, mesh);
  Result<Distribution> pairs = classify(c.destination, c.shape, mesh);
  ASSERT_TRUE(halves && pairs);
  Result<std::vector<int64_t>> p = digitPack(mesh, *halves, *pairs, {1});
  ASSERT_FALSE(bool(p));
  EXPECT_NE(p.message().find("does not nest with digit 2:3"), std::string::npos)
      << p.message();
}

TEST(CollectivePlan, SlicesOverSeveralAxesAreOneStep) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 3}});
  expectPlan(classic("S[(12, 6) : (6, 1)] + R[(2, 3) : (1@dx, 1@dy)]",
                     "S[(3, 4, 2, 3) : (1@dy, 3, 1@dx, 1)]", {12, 6}, mesh),
             {K::LocalSlice}, {{"dy", "dx"}}, {{12, 6}, {4, 3}});
}

TEST(CollectivePlan, LargeBuffersArePlannedWithoutEnumeration) {
  // 16 Mi elements: the named plan never looks at single elements.
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 2}});
  TileLayout whole =
      parseOrDie("S[(4096, 4096) : (4096, 1)] + R[(2, 2) : (1@dx, 1@dy)]");
  TileLayout rows = parseOrDie("S[(2, 2, 1024, 4096) : (1@dx, 1@dy, 4096, 1)]");
  Result<CollectivePlan> plan = planCollective(
      whole, {4096, 4096}, rows, {4096, 4096}, mesh, {"dx", "dy"});
  ASSERT_TRUE(bool(plan)) << plan.message();
  EXPECT_EQ(kinds(*plan), std::vector<CollectiveKind>{K::ReduceScatter});
  EXPECT_EQ(plan->steps[0].localAfter, Shape({1024, 4096}));
  // Swapping the axes needs the element-wise fallback, which refuses a
  // buffer this large instead of exhausting memory.
  Result<CollectivePlan> swapped = planCollective(
      rows, {4096, 4096},
      parseOrDie("S[(2, 2, 1024, 4096) : (1@dy, 1@dx, 4096, 1)]"), {4096, 4096},
      mesh);
  ASSERT_FALSE(bool(swapped));
  EXPECT_NE(swapped.message().find("enumerates"), std::string::npos)
      << swapped.message();
}

TEST(CollectivePlan, SwappedMeshAxesFallBackToAPermutation) {
  // Rank (x, y) holds row block 2x + y and needs block 2y + x: each axis
  // alone would leave dx and dy on one digit, so no named step fits.
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 2}});
  LayoutGenerator gen(3);
  Case c = classic("S[(2, 2, 4, 8) : (1@dx, 1@dy, 8, 1)]",
                   "S[(2, 2, 4, 8) : (1@dy, 1@dx, 8, 1)]", {16, 8}, mesh);
  std::optional<CollectivePlan> plan = checkCase(c, gen);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(kinds(*plan), std::vector<CollectiveKind>{K::Permute})
      << plan->str();
  EXPECT_TRUE(plan->steps[0].axes.empty());

  // The reduction over gpuid still runs first, as a named collective.
  Mesh cube = meshOrDie({{"dx", 2}, {"dy", 2}, {"gpuid", 2}});
  Case partial =
      classic("S[(2, 2, 4, 8) : (1@dx, 1@dy, 8, 1)] + R[2 : 1@gpuid]",
              "S[(2, 2, 4, 8) : (1@dy, 1@dx, 8, 1)] + R[2 : 1@gpuid]", {16, 8},
              cube, {"gpuid"});
  std::optional<CollectivePlan> reduced = checkCase(partial, gen);
  ASSERT_TRUE(reduced.has_value());
  EXPECT_EQ(kinds(*reduced),
            (std::vector<CollectiveKind>{K::AllReduce, K::Permute}))
      << reduced->str();
}

TEST(CollectivePlan, IrregularFallsBackToAnExchange) {
  Mesh mesh = meshOrDie({{"dx", 4}});
  LayoutGenerator gen(5);
  // The source is on dx = 0 and 2 only.
  Case c =
      classic("S[(2, 8) : (2@dx, 1)]", "S[16 : 1] + R[4 : 1@dx]", {16}, mesh);
  std::optional<CollectivePlan> plan = checkCase(c, gen);
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(kinds(*plan), std::vector<CollectiveKind>{K::Exchange});
  const CollectiveStep &step = plan->steps[0];
  EXPECT_FALSE(step.sums);
  // Every rank receives all 16 elements, 8 from each holder.
  int64_t total = 0;
  for (const Transfer &t : step.transfers) {
    EXPECT_TRUE(t.source == 0 || t.source == 2) << t.source;
    total += t.elements.size();
  }
  EXPECT_EQ(total, 64);
  EXPECT_EQ(step.localBefore, Shape({8}));
  EXPECT_EQ(step.localAfter, Shape({16}));
}

TEST(CollectivePlan, PartialIrregularExchangeSums) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 3}});
  LayoutGenerator gen(11);
  // The destination is on dy = 0 and 2 only.
  Case c = classic("S[12 : 1] + R[2 : 1@dx]", "S[(2, 6) : (2@dy, 1)] + 1@dx",
                   {12}, mesh, {"dx"});
  std::optional<CollectivePlan> plan = checkCase(c, gen);
  ASSERT_TRUE(plan.has_value());
  ASSERT_FALSE(plan->steps.empty());
  EXPECT_EQ(plan->steps[0].kind, K::Exchange) << plan->str();
  EXPECT_TRUE(plan->steps[0].sums);
}

TEST(CollectivePlan, BadInputIsAnError) {
  Mesh mesh = meshOrDie({{"dx", 2}});
  TileLayout rows = parseOrDie("S[(2, 4) : (1@dx, 1)]");
  TileLayout whole = parseOrDie("S[8 : 1] + R[2 : 1@dx]");
  Result<CollectivePlan> shapes =
      planCollective(rows, {8}, whole, {2, 4}, mesh);
  ASSERT_FALSE(bool(shapes));
  EXPECT_NE(shapes.message().find("differ"), std::string::npos);
  Result<CollectivePlan> axis =
      planCollective(rows, {8}, parseOrDie("S[8 : 1@gpuid]"), {8}, mesh);
  ASSERT_FALSE(bool(axis));
  EXPECT_NE(axis.message().find("destination: "), std::string::npos);
  Result<CollectivePlan> extent = planCollective(
      parseOrDie("S[(4, 2) : (1@dx, 1)]"), {8}, whole, {8}, mesh);
  ASSERT_FALSE(bool(extent));
  EXPECT_NE(extent.message().find("source: "), std::string::npos);
  // A destination that is partial is not a thing the planner is asked for;
  // a partial axis of the source that is sharded is an error.
  EXPECT_FALSE(planCollective(rows, {8}, whole, {8}, mesh, {"dx"}));
  EXPECT_FALSE(planExchange(rows, {8}, whole, {9}, mesh));
  // The simulator refuses contents for the wrong number of ranks.
  Result<CollectivePlan> plan = planCollective(rows, {8}, whole, {8}, mesh);
  ASSERT_TRUE(bool(plan));
  EXPECT_FALSE(simulatePlan(*plan, MeshContents(3)));
  EXPECT_FALSE(expectedContents(rows, {8}, mesh, {1, 2, 3}));
}

TEST(CollectivePlan, PrintsOneLinePerStep) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 2}});
  Result<CollectivePlan> plan = planCollective(
      parseOrDie("S[(64, 128) : (128, 1)] + R[(2, 2) : (1@dx, 1@dy)]"),
      {64, 128}, parseOrDie("S[(2, 2, 16, 128) : (1@dx, 1@dy, 128, 1)]"),
      {64, 128}, mesh, {"dx", "dy"});
  ASSERT_TRUE(bool(plan)) << plan.message();
  EXPECT_EQ(plan->str(),
            "mesh<dx = 2, dy = 2>, shape 64x128\n"
            "source: dx: P, dy: P (local 64x128)\n"
            "destination: dx: S(0, stride 32), dy: S(0, stride 16) (local "
            "16x128)\n"
            "1. reduce-scatter over (dx, dy): 64x128 -> 16x128\n");
}

//===----------------------------------------------------------------------===//
// The oracle can fail
//===----------------------------------------------------------------------===//

TEST(CollectiveOracle, BrokenPlansAreCaught) {
  Mesh mesh = meshOrDie({{"dx", 2}, {"dy", 2}});
  LayoutGenerator gen(13);
  Case c = classic("S[(64, 8) : (8, 1)] + R[(2, 2) : (1@dx, 1@dy)]",
                   "S[(2, 32, 8) : (1@dx, 8, 1)] + R[2 : 1@dy]", {64, 8}, mesh,
                   {"dx", "dy"});
  std::optional<CollectivePlan> plan = checkCase(c, gen);
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(kinds(*plan),
            (std::vector<CollectiveKind>{K::ReduceScatter, K::AllReduce}));
  // Without the all-reduce the values stay addends.
  CollectivePlan noAllReduce = *plan;
  noAllReduce.steps.pop_back();
  EXPECT_FALSE(runsCorrectly(c, noAllReduce, gen));
  // An all-gather cannot stand in for the all-reduce: copies disagree.
  CollectivePlan gather = *plan;
  gather.steps[1].kind = K::AllGather;
  EXPECT_FALSE(runsCorrectly(c, gather, gen));
  // A reduce-scatter over dx alone leaves dy's addends apart.
  CollectivePlan narrow = *plan;
  narrow.steps[1].axes = {"dx"};
  EXPECT_FALSE(runsCorrectly(c, narrow, gen));
  // An exchange that drops one element.
  Result<CollectivePlan> exchange = planExchange(
      c.source, c.shape, c.destination, c.shape, c.mesh, c.partial);
  ASSERT_TRUE(bool(exchange));
  exchange->steps[0].transfers.back().elements.pop_back();
  EXPECT_FALSE(runsCorrectly(c, *exchange, gen));
}

TEST(CollectiveOracle, ExpectedContentsAgreeWithBruteForce) {
  for (uint64_t seed = 0; seed < 100; ++seed) {
    LayoutGenerator gen(seed);
    Mesh mesh = randomMesh(gen, 3);
    Shape shape = randomShape(gen);
    TileLayout layout = structured(gen, mesh, shape, false).layout;
    std::vector<int64_t> values(layout.size());
    std::iota(values.begin(), values.end(), 100);
    Result<MeshContents> got = expectedContents(layout, shape, mesh, values);
    ASSERT_TRUE(bool(got)) << got.message();
    EXPECT_TRUE(sameContents(*got, referenceContents(layout, mesh, values)))
        << layout.str();
  }
}

//===----------------------------------------------------------------------===//
// Many random pairs
//===----------------------------------------------------------------------===//

/// The collectives one axis needs, from the placements the generator built.
std::vector<CollectiveKind> expectedKinds(const AxisPlacement &from,
                                          const AxisPlacement &to);

std::optional<CollectiveKind> expectedKind(const AxisPlacement &from,
                                           const AxisPlacement &to) {
  using P = PlacementKind;
  if (from.kind == P::Partial)
    return to.kind == P::Sharded      ? K::ReduceScatter
           : to.kind == P::Replicated ? K::AllReduce
                                      : K::Reduce;
  if (from.str() == to.str())
    return std::nullopt;
  if (from.kind == P::Replicated)
    return K::LocalSlice;
  if (from.kind == P::Sharded)
    return to.kind == P::Sharded      ? K::AllToAll
           : to.kind == P::Replicated ? K::AllGather
                                      : K::Gather;
  return to.kind == P::Fixed     ? K::Permute
         : to.kind == P::Sharded ? K::Scatter
                                 : K::Broadcast;
}

std::vector<CollectiveKind> expectedKinds(const AxisPlacement &from,
                                          const AxisPlacement &to) {
  std::optional<CollectiveKind> kind = expectedKind(from, to);
  if (!kind)
    return {};
  // A shard that moves within its dim to digits that do not nest with its
  // old ones is gathered, then sliced (MisalignedMovesGoThroughReplicated).
  if (*kind == K::AllToAll && from.dim == to.dim) {
    auto lo = std::min(std::make_pair(from.stride, from.extent),
                       std::make_pair(to.stride, to.extent));
    auto hi = std::max(std::make_pair(from.stride, from.extent),
                       std::make_pair(to.stride, to.extent));
    if (hi.first % (lo.first * lo.second) != 0)
      return {K::AllGather, K::LocalSlice};
  }
  return {*kind};
}

TEST(CollectiveRandom, StructuredPairsOnOneAxisUseOneNamedStep) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    LayoutGenerator gen(seed);
    Mesh mesh = *Mesh::create({{"dx", gen.uniform(2, 4)}});
    Shape shape = randomShape(gen);
    Structured src = structured(gen, mesh, shape, true);
    Structured dst = structured(gen, mesh, shape, false);
    Case c{src.layout, dst.layout, shape, mesh, src.partial};
    std::optional<CollectivePlan> plan = checkCase(c, gen);
    if (!plan)
      continue;
    std::vector<CollectiveKind> wantKinds =
        expectedKinds(src.placements[0], dst.placements[0]);
    EXPECT_EQ(kinds(*plan), wantKinds) << describe(c) << "\n" << plan->str();
    expectEqualShares(*plan);
  }
}

TEST(CollectiveRandom, StructuredPairsOnMeshesMatchBruteForce) {
  int named = 0, withExchange = 0, delayed = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    LayoutGenerator gen(1000 + seed);
    Mesh mesh = randomMesh(gen, 3);
    Shape shape = randomShape(gen);
    Structured src = structured(gen, mesh, shape, true);
    Structured dst = structured(gen, mesh, shape, false);
    Case c{src.layout, dst.layout, shape, mesh, src.partial};
    std::optional<CollectivePlan> plan = checkCase(c, gen);
    if (!plan)
      continue;
    // The fallback's steps span the whole mesh: no axes.
    bool exchange = llvm::any_of(
        plan->steps, [](const CollectiveStep &s) { return s.axes.empty(); });
    ++(exchange ? withExchange : named);
    expectEqualShares(*plan);
    if (exchange && getenv("SHOWX"))
      std::cout << plan->str() << "\n";
    // Reductions come first. Only a reduce-scatter may wait, and only while
    // another axis shards the dim it scatters.
    bool reducing = true;
    for (const CollectiveStep &step : plan->steps) {
      bool reduces = step.kind == K::ReduceScatter ||
                     step.kind == K::AllReduce || step.kind == K::Reduce;
      if (reduces && !reducing) {
        EXPECT_EQ(step.kind, K::ReduceScatter) << plan->str();
        unsigned axis = *mesh.find(step.axes.front());
        unsigned dim = dst.placements[axis].dim;
        bool blocked = false;
        for (size_t a = 0; a < src.placements.size(); ++a)
          blocked |= a != axis &&
                     src.placements[a].kind == PlacementKind::Sharded &&
                     src.placements[a].dim == dim;
        EXPECT_TRUE(blocked) << plan->str();
        ++delayed;
      }
      reducing &= reduces;
    }
  }
  // Most structured pairs need no fallback.
  EXPECT_GT(named, 4 * withExchange) << named << " vs " << withExchange;
  std::cout << "[ stats    ] " << named << " named plans, " << withExchange
            << " falling back to a permutation or exchange, " << delayed
            << " delayed reduce-scatters\n";
}

/// A random layout over dx, dy and memory, device coordinates shifted into
/// the non-negative range.
TileLayout randomDeviceLayout(LayoutGenerator &gen, int64_t size) {
  static const char *axes[] = {"m", "m", "dx", "dy", "P"};
  static const int64_t extents[] = {2, 3, 4};
  IterList shard;
  for (int64_t rest = size; rest > 1;) {
    int64_t e = extents[gen.uniform(0, 2)];
    if (rest % e)
      continue;
    rest /= e;
    std::string axis = axes[gen.uniform(0, 4)];
    int64_t stride = axis[0] == 'd' ? gen.uniform(0, 2) : gen.uniform(0, 16);
    shard.push_back({e, gen.coin(0.1) ? -stride : stride, axis});
  }
  IterList replica;
  if (gen.coin(0.4))
    replica.push_back(
        {gen.uniform(2, 3), gen.uniform(1, 2), axes[gen.uniform(2, 3)]});
  TileLayout draft = *TileLayout::create(shard, replica);
  Coord offset;
  for (const char *axis : {"dx", "dy"}) {
    int64_t lo = 0;
    for (llvm::ArrayRef<Iter> iters : {draft.shard(), draft.replica()})
      for (const Iter &it : iters)
        if (it.axis == axis && it.stride < 0)
          lo += (it.extent - 1) * it.stride;
    offset.add(axis, -lo + (gen.coin(0.2) ? 1 : 0));
  }
  return *TileLayout::create(shard, replica, offset);
}

/// The smallest mesh over dx and dy that holds both layouts.
Mesh meshFor(const TileLayout &a, const TileLayout &b, LayoutGenerator &gen) {
  std::vector<MeshAxis> axes;
  for (const char *axis : {"dx", "dy"}) {
    int64_t hi = 0;
    for (const TileLayout *l : {&a, &b})
      for (int64_t f = 0; f < l->size(); ++f)
        for (const Point &p : referenceApply(*l, f))
          hi = std::max(hi, p.count(axis) ? p.at(axis) : 0);
    axes.push_back({axis, hi + 1});
  }
  if (gen.coin())
    std::reverse(axes.begin(), axes.end());
  return *Mesh::create(axes);
}

TEST(CollectiveRandom, ArbitraryLayoutPairsMatchBruteForce) {
  int checked = 0, partial = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    LayoutGenerator gen(5000 + seed);
    static const int64_t sizes[] = {1, 6, 8, 12, 16, 24, 36};
    int64_t size = sizes[gen.uniform(0, 6)];
    Case c;
    c.source = randomDeviceLayout(gen, size);
    c.destination = randomDeviceLayout(gen, size);
    c.mesh = meshFor(c.source, c.destination, gen);
    if (c.mesh.numRanks() > 48)
      continue;
    c.shape = gen.shapeFor(size, int(gen.uniform(1, 3)));
    Result<Distribution> d = classify(c.source, c.shape, c.mesh);
    ASSERT_TRUE(bool(d)) << c.source.str() << " " << d.message();
    for (auto [axis, p] : llvm::zip(c.mesh.axes(), d->axes))
      if (p.kind == PlacementKind::Replicated && gen.coin(0.7))
        c.partial.push_back(axis.name);
    partial += !c.partial.empty();
    ++checked;
    checkCase(c, gen);
  }
  EXPECT_GT(checked, 300);
  EXPECT_GT(partial, 10);
  std::cout << "[ stats    ] " << checked << " arbitrary pairs, " << partial
            << " with partial axes\n";
}

TEST(CollectiveRandom, StructuredToArbitraryMatchBruteForce) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    LayoutGenerator gen(9000 + seed);
    Mesh mesh =
        *Mesh::create({{"dx", gen.uniform(1, 3)}, {"dy", gen.uniform(1, 3)}});
    Shape shape = randomShape(gen);
    Structured src = structured(gen, mesh, shape, true);
    int64_t size = src.layout.size();
    TileLayout other;
    // Arbitrary layouts that fit the mesh, in either direction.
    for (int tries = 0; tries < 50; ++tries) {
      TileLayout l = randomDeviceLayout(gen, size);
      if (classify(l, shape, mesh)) {
        other = l;
        break;
      }
    }
    if (other.size() != size)
      continue;
    checkCase({src.layout, other, shape, mesh, src.partial}, gen);
    checkCase({other, src.layout, shape, mesh, {}}, gen);
  }
}

} // namespace
