//===- DepsTest.cpp - The dependency tracker and the DMA timelines --------===//

#include "axe/TrnSim/Deps.h"

#include "gtest/gtest.h"

using namespace axe::trnsim;

namespace {

Region box(int buffer,
           std::initializer_list<std::pair<int64_t, int64_t>> dims) {
  Region r;
  r.buffer = buffer;
  for (auto [lo, hi] : dims) {
    r.lo.push_back(lo);
    r.hi.push_back(hi);
  }
  return r;
}

TEST(TrnSimRegion, OverlapAndCover) {
  Region a = box(0, {{0, 128}, {0, 512}});
  Region left = box(0, {{0, 128}, {0, 256}});
  Region right = box(0, {{0, 128}, {256, 512}});
  EXPECT_TRUE(a.overlaps(left));
  EXPECT_FALSE(left.overlaps(right));
  EXPECT_TRUE(a.covers(left));
  EXPECT_FALSE(left.covers(a));
  EXPECT_FALSE(box(1, {{0, 128}, {0, 256}}).overlaps(left));
  // Tiles of a row-major matrix whose byte ranges interleave do not touch.
  EXPECT_FALSE(
      box(2, {{0, 128}, {0, 512}}).overlaps(box(2, {{0, 128}, {512, 1024}})));
}

TEST(TrnSimDeps, ReadAfterWriteWaitsForCompletionAndSemaphore) {
  SimParams p;
  p.semNs = 50;
  DependencyTracker deps(p);
  Region t = box(0, {{0, 128}, {0, 512}});
  deps.record({{t, true}}, {Unit::Vector, /*complete=*/500, /*readDone=*/400});
  Readiness r = deps.ready({{t, false}}, Unit::Scalar);
  EXPECT_EQ(r.time, 550);
  EXPECT_EQ(r.blocker, Unit::Vector);
  // The same engine needs no semaphore.
  EXPECT_EQ(deps.ready({{t, false}}, Unit::Vector).time, 500);
  // A disjoint region does not wait.
  EXPECT_EQ(
      deps.ready({{box(0, {{0, 128}, {512, 1024}}), false}}, Unit::Scalar).time,
      0);
}

TEST(TrnSimDeps, DmaCompletionCarriesItsOwnLatency) {
  SimParams p;
  DependencyTracker deps(p);
  Region t = box(3, {{0, 128}, {0, 128}});
  deps.record({{t, true}}, {Unit::DMA, 1500, 1500});
  Readiness r = deps.ready({{t, false}}, Unit::Tensor);
  EXPECT_EQ(r.time, 1500);
  EXPECT_EQ(r.blocker, Unit::DMA);
}

TEST(TrnSimDeps, WriteAfterReadAndWrite) {
  SimParams p;
  p.semNs = 10;
  DependencyTracker deps(p);
  Region t = box(0, {{0, 128}, {0, 128}});
  deps.record({{t, true}}, {Unit::DMA, 1000, 1000});
  deps.record({{t, false}}, {Unit::Tensor, 1300, 1200});
  // A new load waits for the reader to have read (WAR) and for the earlier
  // load (WAW): max(1200 + 10, 1000).
  Readiness r = deps.ready({{t, true}}, Unit::DMA);
  EXPECT_EQ(r.time, 1210);
  EXPECT_EQ(r.blocker, Unit::Tensor);
  // TensorE's own accumulating writes are ordered by its queue.
  Region acc = box(1, {{0, 128}, {0, 512}});
  deps.record({{acc, true}}, {Unit::Tensor, 900, 800});
  EXPECT_EQ(deps.ready({{acc, true}}, Unit::Tensor).time, 0);
  EXPECT_EQ(deps.ready({{acc, true}}, Unit::Vector).time, 910);
}

TEST(TrnSimDeps, CoveringWritePrunesOlderAccesses) {
  SimParams p;
  DependencyTracker deps(p);
  Region whole = box(0, {{0, 128}, {0, 512}});
  Region half = box(0, {{0, 128}, {0, 256}});
  Region other = box(0, {{0, 128}, {256, 512}});
  for (int i = 0; i < 10; ++i)
    deps.record({{half, false}}, {Unit::Tensor, 100.0 + i, 100.0 + i});
  // A write elsewhere leaves the reads of `half`.
  deps.record({{other, true}}, {Unit::Vector, 50, 40});
  EXPECT_EQ(deps.size(0), std::make_pair(size_t(1), size_t(10)));
  deps.record({{whole, true}}, {Unit::DMA, 2000, 2000});
  EXPECT_EQ(deps.size(0), std::make_pair(size_t(1), size_t(0)));
  EXPECT_EQ(deps.ready({{half, false}}, Unit::Tensor).time, 2000);
}

TEST(TrnSimTimeline, BooksTheFirstGapLongEnough) {
  Timeline t;
  EXPECT_EQ(t.book(0, 100), 0);
  EXPECT_EQ(t.book(500, 100), 500);
  // Fits between 100 and 500.
  EXPECT_EQ(t.book(0, 300), 100);
  // Does not fit in the 100 ns left before 500: goes after 600.
  EXPECT_EQ(t.book(0, 150), 600);
  EXPECT_EQ(t.lastEnd(), 750);
  // Many bookings stay correct after old intervals become history: the
  // first 100 fill [400, 500), the rest follow 750.
  double last = 0;
  for (int i = 0; i < 2000; ++i)
    last = t.book(0, 1);
  EXPECT_EQ(last, 750 + 1899);
}

} // namespace
