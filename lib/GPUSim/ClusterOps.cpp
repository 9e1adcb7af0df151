//===- ClusterOps.cpp - Thread-block clusters (sm_90) ---------------------===//
//
// The CTAs of a cluster run together: the Machine's members hold the
// running CTA's state and the others are parked (switchCta swaps them). The
// cluster barrier (nvvm.cluster.arrive/wait) counts arrivals per thread: a
// phase completes when every thread of every CTA of the cluster has arrived
// or exited, and releases the warps waiting for it. Distributed shared
// memory: nvvm.mapa gives a shared::cluster address naming a CTA of the
// cluster (include/axe/GPUSim/Cluster.h); llvm.load/store through
// !llvm.ptr<7> read and write that CTA's shared buffers, checked against
// its window and, with --check-races, against its threads' accesses.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "axe/GPUSim/Cluster.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace axe::gpusim;

void Machine::swapCtaState(CtaState &s) {
  std::swap_ranges(ctaId, ctaId + 3, s.ctaId);
  std::swap(sharedBuffers, s.sharedBuffers);
  std::swap(dynamicShared, s.dynamicShared);
  std::swap(warps, s.warps);
  std::swap(epoch, s.epoch);
  std::swap(tmem, s.tmem);
  std::swap(tmemAllocator, s.tmemAllocator);
  std::swap(tmemAllocSites, s.tmemAllocSites);
  std::swap(tmemRelinquished, s.tmemRelinquished);
  std::swap(arrivals, s.arrivals);
}

void Machine::switchCta(unsigned rank) {
  if (rank == curRank)
    return;
  // Park the running CTA, then take `rank`'s state (the vectors' elements
  // keep their addresses, so Warp pointers stay valid).
  swapCtaState(parked[curRank]);
  swapCtaState(parked[rank]);
  curRank = rank;
  cur = nullptr;
}

void Machine::advanceClusterEpoch() {
  clusterClock = ++epochClock;
  for (unsigned r = 0; r < clusterCtas; ++r)
    (r == curRank ? epoch : parked[r].epoch) = (clusterClock << 4) | r;
}

std::string Machine::ctaName(unsigned rank) const {
  int64_t id[3];
  ctaOfRank(clusterPos, dims.cluster, rank, id);
  return llvm::formatv("block ({0}, {1}, {2}) (rank {3})", id[0], id[1], id[2],
                       rank);
}

std::string Machine::threadName(int32_t t) const {
  std::string s = "thread " + std::to_string(t % 1024);
  if (clusterCtas > 1)
    s += " of " + ctaName(unsigned(t / 1024));
  return s;
}

std::string Machine::ctaOfBuffer(const Buffer &b) const {
  if (clusterCtas == 1)
    return "";
  unsigned id = unsigned(&b - buffers.data());
  for (unsigned r = 0; r < clusterCtas; ++r)
    if (llvm::is_contained(clusterShared[r], id))
      return " of " + ctaName(r);
  return "";
}

//===----------------------------------------------------------------------===//
// The cluster barrier
//===----------------------------------------------------------------------===//

void Machine::execCluster(const Inst &i, Warp &w, int32_t &pc) {
  (void)pc;
  auto op = ClusterOp(i.sub);
  if (i.imm[0] && mask != w.launched)
    return fail(i, -1,
                llvm::formatv("divergent .aligned cluster barrier: lanes "
                              "{0:x8} of the warp are active, all of {1:x8} "
                              "must execute it together",
                              mask, w.launched));
  if (op != ClusterOp::Wait) {
    if (uint32_t again = mask & w.clusterUnwaited)
      return fail(i, __builtin_ctz(again),
                  llvm::formatv("lanes {0:x8} arrive at the cluster barrier "
                                "again before waiting for their previous "
                                "arrival (nvvm.cluster.wait)",
                                again));
    w.clusterArrived |= mask;
    w.clusterUnwaited |= mask;
    w.clusterArrivePhase = clusterPhase;
    return;
  }
  if (uint32_t early = mask & ~w.clusterUnwaited)
    return fail(i, __builtin_ctz(early),
                llvm::formatv("lanes {0:x8} wait at the cluster barrier "
                              "without having arrived (nvvm.cluster.arrive "
                              "must come first)",
                              early));
  w.clusterUnwaited &= ~mask;
  if (w.clusterArrivePhase < clusterPhase)
    return; // the phase it arrived in has completed
  w.state = Warp::AtCluster;
}

/// Completes the cluster barrier's phase when every thread of every CTA of
/// the cluster has arrived or exited (and at least one arrived): the
/// waiting warps resume and the race detector orders every CTA's accesses
/// before the barrier against every CTA's after it.
bool Machine::releaseClusterBarrier() {
  bool anyArrived = false;
  for (unsigned r = 0; r < clusterCtas; ++r)
    for (const Warp &w : r == curRank ? warps : parked[r].warps) {
      if (w.state == Warp::Exited)
        continue;
      if (w.clusterArrived != w.launched)
        return false;
      anyArrived = true;
    }
  if (!anyArrived)
    return false;
  ++clusterPhase;
  // What one warp of the cluster observed of mbarrier phases, all know.
  llvm::DenseMap<uint64_t, uint64_t> known;
  for (unsigned r = 0; r < clusterCtas; ++r)
    for (const Warp &w : r == curRank ? warps : parked[r].warps)
      mergeObserved(known, w.observed);
  for (unsigned r = 0; r < clusterCtas; ++r)
    for (Warp &w : r == curRank ? warps : parked[r].warps) {
      w.observed = known;
      w.clusterArrived = 0;
      if (w.state == Warp::AtCluster && w.clusterArrivePhase < clusterPhase)
        w.state = Warp::Ready;
    }
  advanceClusterEpoch();
  return true;
}

//===----------------------------------------------------------------------===//
// Distributed shared memory
//===----------------------------------------------------------------------===//

/// nvvm.mapa %p, %rank (imm 0): the shared::cluster address of %p's offset
/// in CTA %rank; llvm.addrspacecast 7 -> 3 (imm 1): the shared::cta address
/// of a shared::cluster address of the executing CTA.
void Machine::execMapa(const Inst &i) {
  uint64_t m = widthMask(i.bits);
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    uint64_t a = reg(i.in[0], 0, l);
    if (i.imm[0] == 0) {
      int64_t rank = signExtend(reg(i.in[1], 0, l), 32);
      if (rank < 0 || rank >= int64_t(clusterCtas))
        return fail(i, l,
                    llvm::formatv("mapa to CTA rank {0}, outside the cluster "
                                  "of {1} CTA(s) (ranks 0..{2})",
                                  rank, clusterCtas, clusterCtas - 1));
      if (a >> kClusterOffsetBits)
        return fail(i, l,
                    llvm::formatv("mapa of address {0:x}, which is not in "
                                  "the CTA's shared window",
                                  a));
      reg(i.out[0], 0, l) = clusterAddress(unsigned(rank), a) & m;
      return;
    }
    ClusterAddress c = decodeClusterAddress(a, curRank);
    if (!c.valid || c.rank != curRank)
      return fail(i, l,
                  llvm::formatv("addrspacecast of shared::cluster address "
                                "{0:x} to shared::cta, but it is {1}",
                                a,
                                c.valid ? "in " + ctaName(c.rank)
                                        : std::string("not in the cluster's "
                                                      "window")));
    reg(i.out[0], 0, l) = c.offset & m;
  });
}

bool Machine::resolveRemote(const Inst &i, int lane, uint64_t address,
                            int64_t bytes, bool isLoad, Buffer *&buf,
                            int64_t &byte, bool atomic) {
  const char *what = isLoad ? "read" : "write";
  ClusterAddress c = decodeClusterAddress(address, curRank);
  if (!c.valid) {
    fail(i, lane,
         llvm::formatv("{0} of {1} bytes at address {2:x}, which is not a "
                       "shared::cluster address (nvvm.mapa gives them)",
                       what, bytes, address));
    return false;
  }
  if (c.rank >= clusterCtas) {
    fail(i, lane,
         llvm::formatv("{0} of {1} bytes at shared::cluster address {2:x} of "
                       "CTA rank {3}, outside the cluster of {4} CTA(s)",
                       what, bytes, address, c.rank, clusterCtas));
    return false;
  }
  int64_t offset = int64_t(c.offset), windowEnd = 0;
  for (unsigned id : clusterShared[c.rank]) {
    Buffer &b = buffers[id];
    windowEnd = std::max(windowEnd, b.sharedBase + b.hi);
    int64_t at = offset - b.sharedBase;
    if (at < b.lo || at >= std::max(b.hi, b.lo + 1))
      continue;
    if (at + bytes > b.hi) {
      fail(i, lane,
           llvm::formatv("out-of-bounds remote {0} of shared memory: bytes "
                         "[{1}, {2}) of {3} of {4} (shared::cluster address "
                         "{5:x}), which has {6} bytes",
                         what, at, at + bytes, b.name, ctaName(c.rank), address,
                         b.hi));
      return false;
    }
    buf = &b;
    byte = at;
    return atomic || checkBytes(i, lane, b, at, bytes, isLoad);
  }
  fail(i, lane,
       llvm::formatv("out-of-bounds remote {0} of {1} bytes at "
                     "shared::cluster address {2:x}: byte {3} of the shared "
                     "window of {4}, which no shared buffer of that CTA holds "
                     "(its buffers end at byte {5})",
                     what, bytes, address, offset, ctaName(c.rank), windowEnd));
  return false;
}
