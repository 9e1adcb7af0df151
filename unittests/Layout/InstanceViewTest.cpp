//===- InstanceViewTest.cpp - The elements one instance holds -------------===//
//
// InstanceView against the brute-force model: every placement of every
// element is split into the instance that holds it and where it is kept,
// and each instance's elements must be exactly what the view enumerates.
//
//===----------------------------------------------------------------------===//

#include "BruteForce.h"
#include "LayoutTestUtil.h"

#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/InstanceView.h"

#include "gtest/gtest.h"

using namespace axe;
using namespace axe::testing;

namespace {

/// XOR address bits [M+S, M+S+B) into bits [M, M+B), two's complement for
/// negatives; independent of Swizzle::apply.
int64_t referenceSwizzle(const Swizzle &s, int64_t address) {
  uint64_t a = uint64_t(address);
  uint64_t mask = (uint64_t(1) << s.swizzleLen) - 1;
  return int64_t(a ^
                 (((a >> (s.perElement + s.atomLen)) & mask) << s.perElement));
}

std::string pointStr(const Point &p) {
  Coord c;
  for (const auto &[axis, v] : p)
    c.add(axis, v);
  return c.str();
}

/// What each instance holds: flat index -> the places it keeps it.
using Holdings = std::map<int64_t, PointSet>;

/// The brute-force holdings of every instance that holds anything, keyed by
/// the instance's point on `axes`.
std::map<Point, Holdings> referenceHoldings(const Layout &layout,
                                            const std::set<std::string> &axes) {
  std::map<Point, Holdings> out;
  for (int64_t f = 0; f < layout.size(); ++f)
    for (Point p : referenceApply(layout.tile(), f)) {
      if (layout.swizzle()) {
        int64_t m = p.count("m") ? p["m"] : 0;
        p.erase("m");
        addTo(p, "m", referenceSwizzle(*layout.swizzle(), m));
      }
      Point instance, storage;
      for (const auto &[axis, v] : p)
        (axes.count(axis) ? instance : storage)[axis] = v;
      out[instance][f].insert(storage);
    }
  return out;
}

/// The view's holdings of one instance; fails on an element held twice or
/// local indices out of order.
::testing::AssertionResult viewHoldings(const InstanceView &view,
                                        const Point &instance, Holdings &out) {
  Coord c;
  for (const auto &[axis, v] : instance)
    c.add(axis, v);
  int64_t expectedIndex = 0;
  for (const HeldElement &e : view.elementsOf(c)) {
    if (e.localIndex != expectedIndex++)
      return ::testing::AssertionFailure() << "local indices out of order";
    int64_t f = referenceFlatten(vec(e.logical), vec(view.shape()));
    if (out.count(f))
      return ::testing::AssertionFailure() << "element " << f << " twice";
    out[f] = toPointSet(e.storage);
  }
  return ::testing::AssertionSuccess();
}

/// Every point of the box [lo - 1, hi + 1] on each of `axes`.
std::vector<Point> instanceBox(const std::map<Point, Holdings> &reference,
                               const std::vector<std::string> &axes) {
  std::vector<Point> box{Point()};
  for (const std::string &axis : axes) {
    int64_t lo = 0, hi = 0;
    for (const auto &[p, h] : reference) {
      auto it = p.find(axis);
      int64_t v = it == p.end() ? 0 : it->second;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    std::vector<Point> next;
    for (const Point &p : box)
      for (int64_t v = lo - 1; v <= hi + 1; ++v) {
        Point q = p;
        addTo(q, axis, v);
        next.push_back(q);
      }
    box = std::move(next);
  }
  return box;
}

/// Checks the view of `layout` against the brute-force holdings of every
/// instance in and around its reach.
::testing::AssertionResult
matchesReference(const InstanceView &view, const Layout &layout,
                 const std::vector<std::string> &axes) {
  std::set<std::string> axisSet(axes.begin(), axes.end());
  std::map<Point, Holdings> reference = referenceHoldings(layout, axisSet);
  for (const Point &instance : instanceBox(reference, axes)) {
    Holdings got;
    if (auto ok = viewHoldings(view, instance, got); !ok)
      return ok;
    auto it = reference.find(instance);
    Holdings expected = it == reference.end() ? Holdings() : it->second;
    if (got != expected)
      return ::testing::AssertionFailure()
             << "instance " << pointStr(instance) << " holds " << got.size()
             << " elements in the view, " << expected.size()
             << " by brute force";
    if (!got.empty() && int64_t(got.size()) != view.localSize())
      return ::testing::AssertionFailure() << "holds fewer than localSize";
  }
  // Every element has holdersPerElement() holders.
  std::map<int64_t, int64_t> holders;
  for (const auto &[instance, h] : reference)
    for (const auto &[f, places] : h)
      ++holders[f];
  for (const auto &[f, n] : holders)
    if (n != view.holdersPerElement())
      return ::testing::AssertionFailure()
             << "element " << f << " has " << n << " holders, not "
             << view.holdersPerElement();
  return ::testing::AssertionSuccess();
}

Layout parseLayoutOrDie(llvm::StringRef text) {
  Result<Layout> l = parseLayout(text);
  EXPECT_TRUE(bool(l)) << text.str() << ": " << l.message();
  return l ? *l : Layout();
}

//===----------------------------------------------------------------------===//
// Worked examples
//===----------------------------------------------------------------------===//

TEST(InstanceView, SpecExample) {
  // docs/LayoutSemantics.md section 2: (2, 9) lands on {warpid 6, laneid 8,
  // m 1} and {warpid 10, laneid 8, m 1}.
  Layout l = parseLayoutOrDie(
      "S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] "
      "+ 5@warpid");
  auto view = InstanceView::get(l, {8, 16}, {"warpid", "laneid"});
  ASSERT_TRUE(bool(view)) << view.message();
  EXPECT_EQ(view->localSize(), 2);
  EXPECT_EQ(view->holdersPerElement(), 2);
  ASSERT_EQ(view->instanceAxes().size(), 2u);
  EXPECT_EQ(view->instanceAxes()[0].axis, "laneid");
  EXPECT_TRUE(view->instanceAxes()[0].dense());
  EXPECT_FALSE(view->instanceAxes()[1].dense());
  for (int64_t warp : {6, 10}) {
    auto held = view->elementsOf(coord({{"warpid", warp}, {"laneid", 8}}));
    ASSERT_EQ(held.size(), 2u);
    EXPECT_EQ(held[1].logical, Shape({2, 9}));
    ASSERT_EQ(held[1].storage.size(), 1u);
    EXPECT_EQ(held[1].storage[0], coord({{"m", 1}}));
  }
  EXPECT_TRUE(view->elementsOf(coord({{"warpid", 7}})).empty());
  EXPECT_TRUE(view->elementsOf(coord({{"warpid", 4}})).empty());
  EXPECT_TRUE(matchesReference(*view, l, {"laneid", "warpid"}));
}

TEST(InstanceView, OverlappingDigitsSolvedBySearch) {
  // Lanes 2 d + 3 r (r a replica digit) hold the rows 2 i + d: strides 2
  // and 3 over extents 2 overlap, but each lane is one sum, so the view
  // searches the sums instead of dividing.
  Layout l = parseLayoutOrDie("S[(12, 2, 1) : (1, 2@laneid, 12)] + "
                              "R[(2, 2) : (3@laneid, 12)] + 7");
  auto view = InstanceView::get(l, {24, 1}, {"laneid"});
  ASSERT_TRUE(bool(view)) << view.message();
  ASSERT_EQ(view->instanceAxes().size(), 1u);
  EXPECT_TRUE(view->instanceAxes()[0].tabled);
  EXPECT_EQ(view->holdersPerElement(), 2);
  for (int64_t lane : {0, 2, 3, 5}) {
    auto held = view->elementsOf(coord({{"laneid", lane}}));
    ASSERT_EQ(held.size(), 12u) << "lane " << lane;
    EXPECT_EQ(held[0].logical, Shape({lane % 3 == 0 ? 0 : 1, 0}));
    // Each element twice in the thread's registers (m 7 + i and 19 + i).
    EXPECT_EQ(held[0].storage.size(), 2u);
  }
  for (int64_t lane : {1, 4, 6, 31})
    EXPECT_TRUE(view->elementsOf(coord({{"laneid", lane}})).empty());
  EXPECT_TRUE(matchesReference(*view, l, {"laneid"}));
}

TEST(InstanceView, MmaSyncFragmentPerLane) {
  // PTX ISA m16n8k16 A: groupID = lane >> 2, t = lane % 4,
  // row = groupID + 8 * ((i >> 1) & 1), col = 2t + (i & 1) + 8 * (i >> 2).
  auto frag = mmaSyncFragment(MmaShape::M16N8K16, MmaOperand::A, MmaType::F16);
  ASSERT_TRUE(bool(frag)) << frag.message();
  auto view = InstanceView::get(*frag, {16, 16}, {"laneid"});
  ASSERT_TRUE(bool(view)) << view.message();
  EXPECT_EQ(view->localSize(), 8);
  EXPECT_EQ(view->localIters().size(), 3u);
  for (int64_t lane = 0; lane < 32; ++lane) {
    auto held = view->elementsOf(coord({{"laneid", lane}}));
    ASSERT_EQ(held.size(), 8u);
    std::set<std::pair<int64_t, int64_t>> expected, got;
    for (int64_t i = 0; i < 8; ++i)
      expected.insert({i, ((lane >> 2) + 8 * ((i >> 1) & 1)) * 16 +
                              2 * (lane % 4) + (i & 1) + 8 * (i >> 2)});
    for (const HeldElement &e : held)
      got.insert({e.storage[0].get("m"), e.logical[0] * 16 + e.logical[1]});
    EXPECT_EQ(got, expected) << "lane " << lane;
  }
  EXPECT_TRUE(view->elementsOf(coord({{"laneid", 32}})).empty());
}

TEST(InstanceView, NegativeStridesAndBroadcast) {
  // A reversed lane walk and a stride-0 lane iter (every lane holds all
  // values of that digit, in one register).
  Layout l =
      parseLayoutOrDie("S[(4, 2, 8) : (-1@laneid, 0@laneid, 2)] + 3@laneid");
  auto view = InstanceView::get(l, {8, 8}, {"laneid"});
  ASSERT_TRUE(bool(view)) << view.message();
  EXPECT_EQ(view->localSize(), 16);
  EXPECT_EQ(view->instanceAxes()[0].offset, 0);
  EXPECT_TRUE(matchesReference(*view, l, {"laneid"}));
}

TEST(InstanceView, SwizzledStorage) {
  Layout l = parseLayoutOrDie("SW(1, 2, 2) o S[(4, 32) : (1@warpid, 1)]");
  auto view = InstanceView::get(l, {4, 32}, {"warpid"});
  ASSERT_TRUE(bool(view)) << view.message();
  EXPECT_TRUE(view->local().isSwizzled());
  EXPECT_TRUE(matchesReference(*view, l, {"warpid"}));
}

TEST(InstanceView, Refusals) {
  auto message = [](llvm::StringRef layout, Shape shape,
                    std::vector<std::string> axes) {
    Result<Layout> l = parseLayout(layout);
    EXPECT_TRUE(bool(l)) << l.message();
    auto view = InstanceView::get(*l, shape, axes);
    EXPECT_FALSE(bool(view)) << layout.str();
    return view.message();
  };
  EXPECT_NE(message("SW(1, 1, 1) o S[(4, 4) : (4, 1)]", {4, 4}, {"m"})
                .find("permutes m, an instance axis"),
            std::string::npos);
  // Lane t holds elements t and t - 1.
  EXPECT_NE(message("S[4 : 1@laneid] + R[2 : 1@laneid]", {4}, {"laneid"})
                .find("overlaps"),
            std::string::npos);
  EXPECT_NE(message("S[(2, 2) : (1@laneid, 1@laneid)]", {4}, {"laneid"})
                .find("overlaps"),
            std::string::npos);
  EXPECT_NE(message("S[4 : 1]", {4}, {"laneid", "laneid"}).find("twice"),
            std::string::npos);
  EXPECT_NE(message("S[6 : 1]", {4}, {"laneid"}).find("does not admit"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

TEST(InstanceView, RandomLayoutsMatchBruteForce) {
  int accepted = 0;
  const int trials = 2000;
  for (uint64_t seed = 0; seed < trials; ++seed) {
    LayoutGenerator gen(seed);
    auto [layout, shape, axes] =
        randomInstanceCase(gen, 128, {"laneid", "warpid", "P"});
    auto view = InstanceView::get(layout, shape, axes);
    if (!view) {
      // Refusals here: overlapping instance digits, or a shape the shard
      // does not group by.
      bool known = view.message().find("overlaps") != std::string::npos ||
                   view.message().find("cannot group") != std::string::npos;
      EXPECT_TRUE(known) << "seed " << seed << ": " << view.message();
      continue;
    }
    ++accepted;
    EXPECT_TRUE(matchesReference(*view, layout, axes))
        << "seed " << seed << ": " << layout.str() << " over "
        << shapeStr(shape);
  }
  // The generator's strides often overlap on one axis; most must still be
  // accepted for the property to mean something.
  EXPECT_GT(accepted, trials / 2);
}

} // namespace
