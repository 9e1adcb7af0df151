//===- Cost.h - Instruction costs of a NeuronCore-v2 ------------*- C++ -*-===//
//
// The "Estimated instruction cost" formulas of the nki.isa reference and the
// DMA transfer model (docs/TrnSim.md, "DMA"), as plain functions
// of sizes so that unit tests check them against the formulas directly.
// Compute costs are in cycles of the executing engine; DMA costs in ns.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_TRN_COST_H
#define AXE_TARGET_TRN_COST_H

#include "axe/Target/Trn/Params.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace axe::trnsim {

/// The queues of a NeuronCore that the report names.
enum class Unit { Tensor, Vector, Scalar, GpSimd, DMA };
inline constexpr int kNumUnits = 5;
llvm::StringRef unitName(Unit unit);
/// Clock (GHz) and result latency (cycles) of a compute engine.
double clockGhz(Unit unit, const SimParams &params);
double latencyCycles(Unit unit, const SimParams &params);

namespace cost {
/// nc_matmul: max(min(64, N_stationary), N_moving), times 4 for fp32/tf32.
double matmul(int64_t nStationary, int64_t nMoving, bool fp32,
              const SimParams &params);
/// nc_transpose on TensorE: max(P, min(64, F)).
double tensorTranspose(int64_t partitions, int64_t freeSize);
/// One-input Vector/Scalar/GpSimd instruction over N elements per
/// partition (tensor_scalar, tensor_copy, vector transpose, activation):
/// max(MIN_II, N); an activation that also reduces adds MIN_II.
double streaming(int64_t n, const SimParams &params, bool reduce = false);
/// tensor_tensor: max(MIN_II, N) when one input is in PSUM and the other
/// in SBUF, or both in SBUF, all bf16, add/subtract/multiply; otherwise
/// max(MIN_II, 2N).
double tensorTensor(int64_t n, bool fastPath, const SimParams &params);
/// tensor_reduce: N/2 with bf16 in and out and add or max, else N.
double tensorReduce(int64_t n, bool bf16Fast);
/// memset: max(MIN_II, N/2) for zero in bf16/fp16, else max(MIN_II, N).
double memset(int64_t n, bool halfRate, const SimParams &params);
/// iota and affine_select: GPSIMD_START + N.
double gpsimdPattern(int64_t n, const SimParams &params);

/// The share of one DMA engine in a transfer. `bytes` is what its data path
/// moves (the wider side of a casting copy); `hbmBytes` what it reads from
/// or writes to HBM (both sides of an HBM-to-HBM copy, 0 on chip).
struct DmaPart {
  int engine;
  double bytes;
  double hbmBytes;
  double descriptors;
};
/// Splits a transfer over the DMA engines: partition p goes to engine
/// p / (128 / dma_engines); bytes and descriptors are shared in proportion
/// to the partitions each engine serves.
llvm::SmallVector<DmaPart> splitDma(int64_t startPartition, int64_t partitions,
                                    double bytes, double hbmBytes,
                                    double descriptors,
                                    const SimParams &params);
/// HBM bytes per ns left to each of `activeEngines` engines that move HBM
/// data at the same time: hbm_bw is shared, not a fixed share per engine.
double hbmShareBw(int activeEngines, const SimParams &params);
/// ns of an engine's own time on its share: descriptors x dma_desc_ns plus
/// its bytes at dma_engine_bw, or its HBM bytes at `hbmShare` if longer.
double dmaEngineNs(const DmaPart &part, double hbmShare,
                   const SimParams &params);
/// ns the share takes at least from its queue's start: one descriptor per
/// dma_queue_desc_ns (a queue's descriptors are processed one at a time).
double dmaQueueNs(const DmaPart &part, const SimParams &params);
/// Bytes per ns one engine sustains moving rows of `rowBytes` (one
/// descriptor each) from `queues` busy queues, HBM not binding: the row
/// rate is bounded by the engine's time per row and by the queues' rate.
double dmaStreamBw(double rowBytes, int queues, const SimParams &params);
} // namespace cost

} // namespace axe::trnsim

#endif // AXE_TARGET_TRN_COST_H
