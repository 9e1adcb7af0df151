//===- Deps.h - Dependencies over buffer regions ----------------*- C++ -*-===//
//
// The compiler inserts semaphores between instructions that touch the same
// bytes; the simulator finds the same pairs. A region is a box of element
// indices in the dims of the buffer that holds it (a subview of a subview
// is still a box, strided views give their bounding box), so two tiles of
// one HBM matrix that share no element do not wait on each other even when
// their byte ranges interleave.
//
// The tracker keeps, per buffer, the writes and the reads since the last
// write that covers them; a later access waits for what it overlaps:
// read-after-write until the writer completes, write-after-read until the
// reader has read, write-after-write until the earlier write completes.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TRNSIM_DEPS_H
#define AXE_TRNSIM_DEPS_H

#include "axe/Target/Trn/Cost.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace axe::trnsim {

/// Elements [lo[d], hi[d]) in each dim d of buffer `buffer`.
struct Region {
  int buffer = -1;
  llvm::SmallVector<int64_t, 4> lo, hi;

  bool overlaps(const Region &other) const;
  bool covers(const Region &other) const;
};

struct Access {
  Region region;
  bool write = false;
};

/// When an instruction's effects become visible.
struct AccessTimes {
  Unit unit;
  /// Its results are readable (RAW, WAW wait for this).
  double complete;
  /// It has read its inputs (WAR waits for this).
  double readDone;
};

/// The earliest start an instruction's accesses allow, and the queue of the
/// instruction that set it (for stall reasons).
struct Readiness {
  double time = 0;
  std::optional<Unit> blocker;
};

class DependencyTracker {
public:
  explicit DependencyTracker(const SimParams &params) : params(params) {}

  /// When an instruction of `unit` touching `accesses` may start. A wait
  /// between different compute engines adds the semaphore latency; a DMA's
  /// completion already includes its own.
  Readiness ready(llvm::ArrayRef<Access> accesses, Unit unit) const;
  /// Records an instruction's accesses once it is scheduled.
  void record(llvm::ArrayRef<Access> accesses, const AccessTimes &times);

  /// Records kept for `buffer` (writes, reads), for tests.
  std::pair<size_t, size_t> size(int buffer) const;

private:
  struct Entry {
    Region region;
    AccessTimes times;
  };
  struct PerBuffer {
    std::vector<Entry> writes, reads;
  };
  double edge(const AccessTimes &from, double time, Unit to) const;

  const SimParams &params;
  llvm::DenseMap<int, PerBuffer> buffers;
};

/// A server (one DMA engine) booked in intervals: a transfer takes the
/// first gap at or after its ready time that is long enough, so a transfer
/// waiting on a dependency does not hold up the ones behind it.
class Timeline {
public:
  /// Books `duration` at the earliest time >= `ready`; returns the start.
  double book(double ready, double duration);
  /// The end of the last booked interval.
  double lastEnd() const { return end; }

private:
  // Disjoint busy intervals, sorted; everything before `floor` is busy.
  std::vector<std::pair<double, double>> busy;
  double floor = 0;
  double end = 0;
};

} // namespace axe::trnsim

#endif // AXE_TRNSIM_DEPS_H
