//===- Scheduler.cpp - Placing instructions in time -----------------------===//
//
// The Scheduler: each compute Instr waits for its engine's in-order queue,
// the regions it depends on and the shared SBUF/PSUM ports; each DMA Instr
// is split over the DMA engines of its partitions, booked into their
// timelines on its queue, sharing HBM bandwidth with the engines moving HBM
// data at the time. Stalls, busy time and the trace are recorded in the
// SimResult (docs/TrnSim.md, "Timing").
//
//===----------------------------------------------------------------------===//

#include "SimulatorInternal.h"

#include <cmath>

using namespace mlir;
using namespace axe;
using namespace axe::trnsim;
using namespace axe::trnsim::detail;

void Scheduler::schedule(const Instr &instr) {
  ++result.instructions;
  if (instr.unit == Unit::DMA)
    scheduleDma(instr);
  else
    scheduleCompute(instr);
}

void Scheduler::addStall(Unit unit, StringRef reason, double ns) {
  if (ns > 0)
    result.stalls[unitName(unit).str()][reason.str()] += ns;
}

void Scheduler::scheduleCompute(const Instr &instr) {
  int u = int(instr.unit);
  double ghz = clockGhz(instr.unit, p);
  double issue = instr.cycles / ghz;
  Readiness r = deps.ready(instr.accesses, instr.unit);
  double port = 0;
  StringRef portName;
  if (instr.usesSbufPort && sbufPortFree > port)
    port = sbufPortFree, portName = "port_sbuf";
  if (instr.usesPsumPort && psumPortFree > port)
    port = psumPortFree, portName = "port_psum";
  double start = std::max({queueFree[u], r.time, port});
  if (start > queueFree[u]) {
    if (port > r.time)
      addStall(instr.unit, portName, start - queueFree[u]);
    else
      addStall(instr.unit,
               ("wait_" + unitName(r.blocker.value_or(instr.unit))).str(),
               start - queueFree[u]);
  }
  double end = start + issue;
  queueFree[u] = end;
  if (instr.usesSbufPort)
    sbufPortFree = end;
  if (instr.usesPsumPort)
    psumPortFree = end;
  double complete = end + latencyCycles(instr.unit, p) / ghz;
  deps.record(instr.accesses, {instr.unit, complete, end});
  result.busyNs[u] += issue;
  result.totalNs = std::max(result.totalNs, complete);
  if (trace)
    result.trace.push_back(
        {instr.name, unitName(instr.unit).str(), start, issue});
}

/// Engines that move HBM data at `time`: this transfer's own, and the
/// others whose last HBM share ends later. They share hbm_bw.
int Scheduler::activeHbmEngines(ArrayRef<cost::DmaPart> parts,
                                double time) const {
  SmallVector<bool, 16> active(dmaEngines.size(), false);
  for (const cost::DmaPart &part : parts)
    active[part.engine] = true;
  for (size_t e = 0; e < active.size(); ++e)
    active[e] = active[e] || hbmBusyUntil[e] > time;
  return int(llvm::count(active, true));
}

void Scheduler::scheduleDma(const Instr &instr) {
  Readiness r = deps.ready(instr.accesses, Unit::DMA);
  size_t q = size_t(instr.queue) % queueEnd.size();
  SmallVector<cost::DmaPart> parts =
      cost::splitDma(instr.startPartition, instr.partitions, instr.bytes,
                     instr.hbmBytes, instr.descriptors, p);
  double queueReady = INFINITY;
  for (const cost::DmaPart &part : parts)
    queueReady = std::min(queueReady, queueEnd[q][part.engine]);
  double hbmShare = cost::hbmShareBw(
      activeHbmEngines(parts, std::max(r.time, queueReady)), p);
  double first = INFINITY, last = 0, free = INFINITY;
  for (const cost::DmaPart &part : parts) {
    Timeline &engine = dmaEngines[part.engine];
    free = std::min(free, engine.lastEnd());
    // The engine is busy for `ns`; the queue's descriptors, one at a
    // time, stretch the share to at least `queueNs` from when the queue
    // took it. Other queues fill the engine's idle time meanwhile.
    double ns = cost::dmaEngineNs(part, hbmShare, p);
    double ready = std::max(r.time, queueEnd[q][part.engine]);
    double start = engine.book(ready, ns);
    double end = std::max(start + ns, ready + cost::dmaQueueNs(part, p));
    queueEnd[q][part.engine] = end;
    if (part.hbmBytes > 0)
      hbmBusyUntil[part.engine] = std::max(hbmBusyUntil[part.engine], end);
    first = std::min(first, start);
    last = std::max(last, end);
    result.busyNs[int(Unit::DMA)] += ns / dmaEngines.size();
  }
  if (r.time > free)
    addStall(Unit::DMA,
             ("wait_" + unitName(r.blocker.value_or(Unit::DMA))).str(),
             r.time - free);
  double complete = last + p.dmaFixedNs;
  deps.record(instr.accesses, {Unit::DMA, complete, complete});
  result.dmaBytes += instr.bytes;
  result.hbmBytes += instr.hbmBytes;
  result.totalNs = std::max(result.totalNs, complete);
  if (trace)
    result.trace.push_back(
        {instr.name, "dma q" + std::to_string(q), first, last - first});
}
