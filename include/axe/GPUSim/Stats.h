//===- Stats.h - Counters of interpreted kernels ----------------*- C++ -*-===//
//
// Per kernel, summed over its launches: instructions by op name (warp
// issues and lane-ops), shared-memory requests and wavefronts and global
// requests and sectors per op location. The JSON schema is in
// docs/GPURun.md.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_STATS_H
#define AXE_GPUSIM_STATS_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace axe::gpusim {

struct Program;

struct SiteStats {
  uint64_t issues = 0;  // warp-level executions
  uint64_t laneOps = 0; // active lanes summed over issues
  uint64_t sharedRequests = 0, sharedWavefronts = 0, sharedIdeal = 0;
  uint64_t globalRequests = 0, globalSectors = 0;
  /// TMA and wgmma: operations (a TMA load per issuing thread, a wgmma per
  /// warpgroup) and the bytes they move, not per-lane accesses.
  uint64_t bulkOps = 0, bulkSharedBytes = 0, bulkGlobalBytes = 0;
  /// Accesses through shared::cluster addresses (!llvm.ptr<7>): warp-wide
  /// requests, those naming another CTA's shared memory, and bytes.
  uint64_t clusterRequests = 0, remoteRequests = 0, clusterBytes = 0;
};

struct KernelStats {
  uint64_t launches = 0, ctas = 0, warps = 0;
  /// Clusters of more than one CTA launched.
  uint64_t clusters = 0;
  double seconds = 0;
  std::vector<SiteStats> sites; // per instruction of the program
};

/// Writes {"kernels": [...]} for each (program, stats) pair.
void writeStatsJSON(
    llvm::raw_ostream &os,
    const std::vector<std::pair<const Program *, const KernelStats *>>
        &kernels);

} // namespace axe::gpusim

#endif // AXE_GPUSIM_STATS_H
