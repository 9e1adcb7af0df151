//===- CostTest.cpp - The cost formulas against the nki.isa docs ----------===//

#include "axe/Target/Trn/Cost.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace axe::trnsim;

namespace {

TEST(TrnSimCost, MatmulIsMaxOfShortStationaryAndMoving) {
  SimParams p;
  // max(min(64, N_stationary), N_moving) [nki.isa cost formulas].
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
  // (NKI performance guide: measured 189 ns).
  EXPECT_EQ(cost::streaming(1, p) + latencyCycles(Unit::Scalar, p), 264);
}

TEST(TrnSimCost, DmaSplitsPartitionsOverEngines) {
  SimParams p;
  auto parts = cost::splitDma(0, 128, 131072, 65536, 128, p);
  ASSERT_EQ(parts.size(), 16u);
  for (int e = 0; e < 16; ++e) {
    EXPECT_EQ(parts[e].engine, e);
    EXPECT_DOUBLE_EQ(parts[e].bytes, 8192);
    EXPECT_DOUBLE_EQ(parts[e].hbmBytes, 4096);
    EXPECT_DOUBLE_EQ(parts[e].descriptors, 8);
  }
  // 32 partitions from 96: engines 12..15.
  parts = cost::splitDma(96, 32, 4096, 4096, 32, p);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts.front().engine, 12);
  EXPECT_EQ(parts.back().engine, 15);
  // 4 partitions from 6 straddle engines 0 and 1.
  parts = cost::splitDma(6, 4, 400, 0, 4, p);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_DOUBLE_EQ(parts[0].bytes, 200);
  EXPECT_DOUBLE_EQ(parts[1].bytes, 200);
  EXPECT_DOUBLE_EQ(parts[1].hbmBytes, 0);
  // Fewer engines serve more partitions each.
  p.dmaEngines = 4;
  parts = cost::splitDma(0, 128, 128, 128, 0, p);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_DOUBLE_EQ(parts[3].bytes, 32);
}

TEST(TrnSimCost, DmaEngineTime) {
  SimParams p = SimParams::documented();
  cost::DmaPart part{0, 8192, 8192, 8};
  double alone = cost::hbmShareBw(1, p);
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, alone, p), 8192 / 17.0);
  p.dmaDescNs = 10;
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, alone, p), 80 + 8192 / 17.0);
  // HBM at 136 B/ns shared by 16 engines leaves each 8.5 B/ns, below the
  // engine's 17; by 4 engines, 34 B/ns, so the engine bounds it again.
  p.dmaDescNs = 0;
  p.hbmBw = 136;
  EXPECT_DOUBLE_EQ(cost::hbmShareBw(16, p), 8.5);
  EXPECT_DOUBLE_EQ(cost::hbmShareBw(0, p), 136);
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, cost::hbmShareBw(16, p), p),
                   8192 / 8.5);
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, cost::hbmShareBw(4, p), p),
                   8192 / 17.0);
  // HBM bounds the engine's mean rate, descriptors included: 8 at 50 ns
  // and 8 KiB at 16 B/ns take 912 ns, which 16 B/ns of HBM (8192 / 16 =
  // 512 ns) does not slow and 8 B/ns (1024 ns) does.
  SimParams q = p;
  q.dmaDescNs = 50;
  q.dmaEngineBw = 16;
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, 16, q), 912);
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(part, 8, q), 1024);
  // SBUF-to-SBUF moves no HBM bytes: HBM's share does not matter.
  cost::DmaPart onChip{0, 8192, 0, 8};
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(onChip, cost::hbmShareBw(16, p), p),
                   8192 / 17.0);
  // A casting store f32 -> bf16: the engine reads 8 KiB and HBM receives
  // 4 KiB. At 8.5 B/ns of HBM that is 4096 / 8.5 = 8192 / 17 ns, no more
  // than the engine's time; at 4.25 B/ns (68 B/ns over 16 engines) HBM's
  // 4 KiB bind. Counting 8 KiB there would double it.
  cost::DmaPart cast{0, 8192, 4096, 8};
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(cast, cost::hbmShareBw(16, p), p),
                   8192 / 17.0);
  p.hbmBw = 68;
  EXPECT_DOUBLE_EQ(cost::dmaEngineNs(cast, cost::hbmShareBw(16, p), p),
                   4096 / 4.25);
}

TEST(TrnSimCost, DmaQueueTime) {
  SimParams p;
  p.dmaQueueDescNs = 100;
  EXPECT_DOUBLE_EQ(cost::dmaQueueNs({0, 8192, 8192, 8}, p), 800);
  EXPECT_DOUBLE_EQ(cost::dmaQueueNs({0, 8192, 8192, 0.5}, p), 50);
  EXPECT_DOUBLE_EQ(
      cost::dmaQueueNs({0, 8192, 8192, 8}, SimParams::documented()), 0);
}

TEST(TrnSimCost, DmaStreamBandwidth) {
  // Without per-descriptor costs (the documented set) every row size
  // moves at the engine's 17 B/ns.
  SimParams doc = SimParams::documented();
  EXPECT_DOUBLE_EQ(cost::dmaStreamBw(256, 1, doc), 17);
  EXPECT_DOUBLE_EQ(cost::dmaStreamBw(4096, 16, doc), 17);
  // By hand: 1 KiB rows at 50 ns a descriptor and 16 B/ns take
  // 50 + 64 = 114 ns of the engine; one queue at 200 ns a descriptor bounds
  // them at 1024 / 200, two queues at 1024 / 114.
  SimParams p;
  p.dmaDescNs = 50;
  p.dmaQueueDescNs = 200;
  p.dmaEngineBw = 16;
  EXPECT_DOUBLE_EQ(cost::dmaStreamBw(1024, 1, p), 1024 / 200.0);
  EXPECT_DOUBLE_EQ(cost::dmaStreamBw(1024, 2, p), 1024 / 114.0);
  // The calibrated machine follows the DMA guides' curve for 128-partition
  // transfers: under 256 B a row is a small fraction of the table's
  // 17 B/ns, 2 KiB approaches it and 4 KiB reaches it (within 10 %).
  SimParams cal = SimParams::calibrated();
  double peak = 17;
  for (int queues : {1, 16}) {
    EXPECT_LT(cost::dmaStreamBw(256, queues, cal), 0.25 * peak);
    EXPECT_GT(cost::dmaStreamBw(2048, queues, cal), 0.7 * peak);
    EXPECT_NEAR(cost::dmaStreamBw(4096, queues, cal), peak, 0.1 * peak);
    double last = 0;
    for (double row = 64; row <= 65536; row *= 2) {
      double bw = cost::dmaStreamBw(row, queues, cal);
      EXPECT_GT(bw, last) << row;
      EXPECT_LE(bw, cal.dmaEngineBw);
      last = bw;
    }
  }
}

TEST(TrnSimParams, NamedSets) {
  llvm::Expected<SimParams> cal = SimParams::named("calibrated");
  ASSERT_TRUE(bool(cal));
  SimParams defaults;
  for (const SimParams::Entry &e : SimParams::all())
    EXPECT_EQ((*cal).*(e.field), defaults.*(e.field)) << e.name;
  llvm::Expected<SimParams> doc = SimParams::named("documented");
  ASSERT_TRUE(bool(doc));
  EXPECT_EQ(doc->dmaEngineBw, 17);
  EXPECT_EQ(doc->dmaDescNs, 0);
  EXPECT_EQ(doc->dmaQueueDescNs, 0);
  EXPECT_EQ(doc->dmaFixedNs, 1300);
  EXPECT_EQ(doc->hbmBw, 410);
  llvm::Expected<SimParams> bad = SimParams::named("fitted");
  ASSERT_FALSE(bool(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "unknown parameter set 'fitted' (expected calibrated or "
            "documented)");
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
