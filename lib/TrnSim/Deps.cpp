//===- Deps.cpp - Dependencies over buffer regions ------------------------===//

#include "axe/TrnSim/Deps.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace axe::trnsim;

bool Region::overlaps(const Region &other) const {
  if (buffer != other.buffer || lo.size() != other.lo.size())
    return buffer == other.buffer;
  for (size_t d = 0; d < lo.size(); ++d)
    if (hi[d] <= other.lo[d] || other.hi[d] <= lo[d])
      return false;
  return true;
}

bool Region::covers(const Region &other) const {
  if (buffer != other.buffer || lo.size() != other.lo.size())
    return false;
  for (size_t d = 0; d < lo.size(); ++d)
    if (other.lo[d] < lo[d] || hi[d] < other.hi[d])
      return false;
  return true;
}

double DependencyTracker::edge(const AccessTimes &from, double time,
                               Unit to) const {
  if (from.unit == to || from.unit == Unit::DMA)
    return time;
  return time + params.semNs;
}

Readiness DependencyTracker::ready(llvm::ArrayRef<Access> accesses,
                                   Unit unit) const {
  Readiness r;
  auto consider = [&](const Entry &e, double time) {
    double t = edge(e.times, time, unit);
    if (t > r.time) {
      r.time = t;
      r.blocker = e.times.unit;
    }
  };
  for (const Access &a : accesses) {
    auto it = buffers.find(a.region.buffer);
    if (it == buffers.end())
      continue;
    for (const Entry &w : it->second.writes) {
      if (!w.region.overlaps(a.region))
        continue;
      // An engine's own writes land in issue order, so only another
      // queue's write must complete before this one writes over it.
      if (a.write && w.times.unit == unit)
        continue;
      consider(w, w.times.complete);
    }
    if (!a.write)
      continue;
    for (const Entry &rd : it->second.reads)
      if (rd.times.unit != unit && rd.region.overlaps(a.region))
        consider(rd, rd.times.readDone);
  }
  return r;
}

void DependencyTracker::record(llvm::ArrayRef<Access> accesses,
                               const AccessTimes &times) {
  for (const Access &a : accesses) {
    PerBuffer &b = buffers[a.region.buffer];
    if (!a.write) {
      b.reads.push_back({a.region, times});
      continue;
    }
    // A covered access is ordered before this write, which anything later
    // that overlaps it waits for: it can no longer set a start time.
    auto covered = [&](const Entry &e) { return a.region.covers(e.region); };
    llvm::erase_if(b.writes, covered);
    llvm::erase_if(b.reads, covered);
    b.writes.push_back({a.region, times});
  }
}

std::pair<size_t, size_t> DependencyTracker::size(int buffer) const {
  auto it = buffers.find(buffer);
  if (it == buffers.end())
    return {0, 0};
  return {it->second.writes.size(), it->second.reads.size()};
}

double Timeline::book(double ready, double duration) {
  double t = std::max(ready, floor);
  // The first interval that ends after t; gaps before it are too early.
  auto it = std::upper_bound(busy.begin(), busy.end(), t,
                             [](double v, const std::pair<double, double> &iv) {
                               return v < iv.second;
                             });
  for (; it != busy.end(); ++it) {
    if (t + duration <= it->first)
      break;
    t = std::max(t, it->second);
  }
  if (duration > 0) {
    busy.insert(it, {t, t + duration});
  }
  end = std::max(end, t + duration);
  // Keep the search short: the oldest half becomes solid history.
  if (busy.size() > 512) {
    floor = std::max(floor, busy[256].second);
    busy.erase(busy.begin(), busy.begin() + 257);
  }
  return t;
}
