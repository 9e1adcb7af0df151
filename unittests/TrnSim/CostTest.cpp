//===- CostTest.cpp - The cost formulas against TRN.md --------------------===//

#include "axe/TrnSim/Cost.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace axe::trnsim;

namespace {

TEST(TrnSimCost, MatmulIsMaxOfShortStationaryAndMoving) {
  SimParams p;
  // max(min(64, N_stationary), N_moving) [TRN.md 1.4].
  EXPECT_EQ(cost::matmul(128, 512, false, p), 512);
  EXPECT_EQ(cost::matmul(128, 16, false, p), 64);
  EXPECT_EQ(cost::matmul(32, 16, false, p), 32);
  EXPECT_EQ(cost::matmul(32, 48, false, p), 48);
  EXPECT_EQ(cost::matmul(128, 512, true, p), 2048);
  p.matmulFp32Factor = 2;
  EXPECT_EQ(cost::matmul(128, 512, true, p), 1024);
}

TEST(TrnSimCost, EngineFormulas) {
  SimParams p;
  EXPECT_EQ(cost::tensorTranspose(128, 128), 128);
  EXPECT_EQ(cost::tensorTranspose(16, 128), 64);
  EXPECT_EQ(cost::tensorTranspose(16, 32), 32);
  EXPECT_EQ(cost::streaming(512, p), 512);
  EXPECT_EQ(cost::streaming(10, p), 64);
  EXPECT_EQ(cost::streaming(512, p, /*reduce=*/true), 576);
  EXPECT_EQ(cost::tensorTensor(512, true, p), 512);
  EXPECT_EQ(cost::tensorTensor(512, false, p), 1024);
  EXPECT_EQ(cost::tensorTensor(20, false, p), 64);
  EXPECT_EQ(cost::tensorReduce(512, true), 256);
  EXPECT_EQ(cost::tensorReduce(512, false), 512);
  EXPECT_EQ(cost::memset(512, true, p), 256);
  EXPECT_EQ(cost::memset(100, true, p), 64);
  EXPECT_EQ(cost::memset(512, false, p), 512);
  EXPECT_EQ(cost::gpsimdPattern(512, p), 662);
}

TEST(TrnSimCost, ClocksAndLatencies) {
  SimParams p;
  EXPECT_EQ(clockGhz(Unit::Tensor, p), 2.8);
  EXPECT_EQ(clockGhz(Unit::Vector, p), 1.12);
  EXPECT_EQ(clockGhz(Unit::Scalar, p), 1.4);
  // Back-to-back dependent tiny activations: MIN_II + latency = 264 cycles
  // (TRN.md 2.1, measured 189 ns).
  EXPECT_EQ(cost::streaming(1, p) + latencyCycles(Unit::Scalar, p), 264);
}

TEST(TrnSimCost, DmaSplitsPartitionsOverEngines) {
  SimParams p;
  auto parts = cost::splitDma(0, 128, 131072, 128, p);
  ASSERT_EQ(parts.size(), 16u);
  for (int e = 0; e < 16; ++e) {
    EXPECT_EQ(parts[e].engine, e);
    EXPECT_DOUBLE_EQ(parts[e].bytes, 8192);
    EXPECT_DOUBLE_EQ(parts[e].descriptors, 8);
  }
  // 32 partitions from 96: engines 12..15.
  parts = cost::splitDma(96, 32, 4096, 32, p);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts.front().engine, 12);
  EXPECT_EQ(parts.back().engine, 15);
  // 4 partitions from 6 straddle engines 0 and 1.
  parts = cost::splitDma(6, 4, 400, 4, p);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_DOUBLE_EQ(parts[0].bytes, 200);
  EXPECT_DOUBLE_EQ(parts[1].bytes, 200);
  // Fewer engines serve more partitions each.
  p.dmaEngines = 4;
  parts = cost::splitDma(0, 128, 128, 0, p);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_DOUBLE_EQ(parts[3].bytes, 32);
}

TEST(TrnSimCost, DmaEngineTime) {
  SimParams p;
  cost::DmaPart part{0, 8192, 8};
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, true, p), 8192 / 17.0);
  p.dmaDescNs = 10;
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, true, p), 80 + 8192 / 17.0);
  // HBM at 136 B/ns leaves each of 16 engines 8.5 B/ns; SBUF-to-SBUF
  // copies do not touch HBM.
  p.dmaDescNs = 0;
  p.hbmBw = 136;
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, true, p), 8192 / 8.5);
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, false, p), 8192 / 17.0);
}

TEST(TrnSimParams, SetAndParse) {
  SimParams p;
  EXPECT_FALSE(bool(p.parseAssignment("dma_engine_bw=6.5")));
  EXPECT_EQ(p.dmaEngineBw, 6.5);
  EXPECT_FALSE(bool(p.parseAssignment(" sem_ns = 0 ")));
  EXPECT_EQ(p.semNs, 0);
  auto fails = [&](llvm::StringRef text) {
    llvm::Error err = p.parseAssignment(text);
    bool failed = bool(err);
    llvm::consumeError(std::move(err));
    return failed;
  };
  EXPECT_TRUE(fails("nope=1"));
  EXPECT_TRUE(fails("dma_engine_bw"));
  EXPECT_TRUE(fails("dma_engine_bw=abc"));
  EXPECT_TRUE(fails("dma_engine_bw=0"));
  EXPECT_TRUE(fails("tensor_ghz=-1"));
  EXPECT_TRUE(fails("sem_ns=inf"));
  // Every parameter has a unique name.
  std::set<std::string> names;
  for (const SimParams::Entry &e : SimParams::all())
    EXPECT_TRUE(names.insert(e.name).second) << e.name;
}

} // namespace
