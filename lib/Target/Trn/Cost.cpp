//===- Cost.cpp - Instruction costs of a NeuronCore-v2 --------------------===//

#include "axe/Target/Trn/Cost.h"

#include <algorithm>
#include <cmath>

using namespace axe::trnsim;

llvm::StringRef axe::trnsim::unitName(Unit unit) {
  switch (unit) {
  case Unit::Tensor:
    return "tensor";
  case Unit::Vector:
    return "vector";
  case Unit::Scalar:
    return "scalar";
  case Unit::GpSimd:
    return "gpsimd";
  case Unit::DMA:
    return "dma";
  }
  return "";
}

double axe::trnsim::clockGhz(Unit unit, const SimParams &p) {
  switch (unit) {
  case Unit::Tensor:
    return p.tensorGhz;
  case Unit::Vector:
    return p.vectorGhz;
  case Unit::Scalar:
    return p.scalarGhz;
  case Unit::GpSimd:
    return p.gpsimdGhz;
  case Unit::DMA:
    return 1;
  }
  return 1;
}

double axe::trnsim::latencyCycles(Unit unit, const SimParams &p) {
  switch (unit) {
  case Unit::Tensor:
    return p.tensorLatency;
  case Unit::Vector:
    return p.vectorLatency;
  case Unit::Scalar:
    return p.scalarLatency;
  case Unit::GpSimd:
    return p.gpsimdLatency;
  case Unit::DMA:
    return 0;
  }
  return 0;
}

double cost::matmul(int64_t nStationary, int64_t nMoving, bool fp32,
                    const SimParams &p) {
  double cycles = std::max<double>(std::min<int64_t>(64, nStationary), nMoving);
  return fp32 ? cycles * p.matmulFp32Factor : cycles;
}

double cost::tensorTranspose(int64_t partitions, int64_t freeSize) {
  return std::max<double>(partitions, std::min<int64_t>(64, freeSize));
}

double cost::streaming(int64_t n, const SimParams &p, bool reduce) {
  return std::max<double>(p.minII, n) + (reduce ? p.minII : 0);
}

double cost::tensorTensor(int64_t n, bool fastPath, const SimParams &p) {
  return std::max<double>(p.minII, fastPath ? n : 2 * n);
}

double cost::tensorReduce(int64_t n, bool bf16Fast) {
  return bf16Fast ? n / 2.0 : double(n);
}

double cost::memset(int64_t n, bool halfRate, const SimParams &p) {
  return std::max<double>(p.minII, halfRate ? n / 2.0 : double(n));
}

double cost::gpsimdPattern(int64_t n, const SimParams &p) {
  return p.gpsimdStart + n;
}

llvm::SmallVector<cost::DmaPart>
cost::splitDma(int64_t startPartition, int64_t partitions, double bytes,
               double hbmBytes, double descriptors, const SimParams &p) {
  int engines = std::max(1, int(p.dmaEngines));
  // Partitions each engine serves: 8 of 128 with 16 engines.
  int64_t perEngine = std::max<int64_t>(1, (128 + engines - 1) / engines);
  llvm::SmallVector<DmaPart> parts;
  partitions = std::max<int64_t>(1, partitions);
  for (int64_t q = startPartition; q < startPartition + partitions;) {
    int engine = int(std::min<int64_t>(q / perEngine, engines - 1));
    int64_t end =
        std::min(startPartition + partitions,
                 engine == engines - 1 ? INT64_MAX : (engine + 1) * perEngine);
    double share = double(end - q) / partitions;
    parts.push_back(
        {engine, bytes * share, hbmBytes * share, descriptors * share});
    q = end;
  }
  return parts;
}

double cost::hbmShareBw(int activeEngines, const SimParams &p) {
  return p.hbmBw / std::max(1, activeEngines);
}

double cost::dmaEngineNs(const DmaPart &part, double hbmShare,
                         const SimParams &p) {
  // HBM's share bounds the engine's mean rate over the whole share: while
  // one engine handles a descriptor, the others' data flows.
  double engine = part.descriptors * p.dmaDescNs + part.bytes / p.dmaEngineBw;
  if (part.hbmBytes > 0)
    engine = std::max(engine, part.hbmBytes / hbmShare);
  return engine;
}

double cost::dmaQueueNs(const DmaPart &part, const SimParams &p) {
  return part.descriptors * p.dmaQueueDescNs;
}

double cost::dmaStreamBw(double rowBytes, int queues, const SimParams &p) {
  double engine = p.dmaDescNs + rowBytes / p.dmaEngineBw;
  double queue = p.dmaQueueDescNs / std::max(1, queues);
  return rowBytes / std::max(engine, queue);
}
