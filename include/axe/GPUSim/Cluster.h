//===- Cluster.h - Thread-block clusters (sm_90) ----------------*- C++ -*-===//
//
// The arithmetic of thread-block clusters, written from the PTX ISA's
// "Cluster of Cooperative Thread Arrays" and "Distributed shared memory"
// sections: the CTAs of a cluster are consecutive in the grid (x fastest),
// a CTA's rank in its cluster is x + cx * (y + cy * z) of its position in
// the cluster, and a shared::cluster address names the CTA it lives in.
//
// The interpreter's shared::cluster window: a shared::cta address (an
// offset in the CTA's own shared window, below 2^24) is also a valid
// shared::cluster address of the executing CTA, as on the hardware, where
// the CTA's window lies inside the cluster's; `mapa` gives addresses tagged
// with the target's rank, 0x40000000 | rank << 24 | offset.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_CLUSTER_H
#define AXE_GPUSIM_CLUSTER_H

#include <cstdint>

namespace axe::gpusim {

/// At most 16 CTAs per cluster (the non-portable maximum).
constexpr unsigned kMaxClusterCtas = 16;
/// Offsets in a CTA's shared window are below 2^24.
constexpr unsigned kClusterOffsetBits = 24;
constexpr uint64_t kClusterTag = 0x40000000;

inline int64_t clusterCtaCount(const int64_t cluster[3]) {
  return cluster[0] * cluster[1] * cluster[2];
}

/// The rank of the CTA at grid position `cta` in its cluster.
inline unsigned clusterRank(const int64_t cta[3], const int64_t cluster[3]) {
  int64_t x = cta[0] % cluster[0], y = cta[1] % cluster[1],
          z = cta[2] % cluster[2];
  return unsigned(x + cluster[0] * (y + cluster[1] * z));
}

/// The grid position of the CTA of rank `rank` in the cluster at cluster
/// position `clusterId` (in clusters, as %clusterid gives it).
inline void ctaOfRank(const int64_t clusterId[3], const int64_t cluster[3],
                      unsigned rank, int64_t cta[3]) {
  int64_t r = rank;
  int64_t x = r % cluster[0], y = (r / cluster[0]) % cluster[1],
          z = r / (cluster[0] * cluster[1]);
  cta[0] = clusterId[0] * cluster[0] + x;
  cta[1] = clusterId[1] * cluster[1] + y;
  cta[2] = clusterId[2] * cluster[2] + z;
}

/// The shared::cluster address of byte `offset` of the shared window of
/// the CTA of rank `rank` (offset below 2^24, rank below 16).
inline uint64_t clusterAddress(unsigned rank, uint64_t offset) {
  return kClusterTag | uint64_t(rank) << kClusterOffsetBits | offset;
}

/// What a shared::cluster address names: the CTA's rank and the offset in
/// its shared window; invalid for an address outside the window.
struct ClusterAddress {
  bool valid = false;
  unsigned rank = 0;
  uint64_t offset = 0;
};

inline ClusterAddress decodeClusterAddress(uint64_t address, unsigned ownRank) {
  uint64_t offsetMask = (uint64_t(1) << kClusterOffsetBits) - 1;
  if ((address >> kClusterOffsetBits) == 0)
    return {true, ownRank, address};
  if ((address >> (kClusterOffsetBits + 4)) == (kClusterTag >> 28))
    return {true, unsigned((address >> kClusterOffsetBits) & 15),
            address & offsetMask};
  return {};
}

} // namespace axe::gpusim

#endif // AXE_GPUSIM_CLUSTER_H
