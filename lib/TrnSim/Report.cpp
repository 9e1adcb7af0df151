//===- Report.cpp - The report and the trace of a simulation --------------===//

#include "axe/Target/Trn/Machine.h"
#include "axe/TrnSim/Simulator.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace axe::trnsim;

double SimResult::hfu(const SimParams &params) const {
  // 128x128 MACs, 2 FLOPs each, per TensorE cycle: 91.75 TFLOPS at 2.8 GHz.
  double peakPerNs = double(axe::trn::machine::kPartitions) *
                     axe::trn::machine::kMatmulMaxStationaryFree * 2.0 *
                     params.tensorGhz;
  return totalNs > 0 ? matmulFlops / (peakPerNs * totalNs) : 0;
}

std::string axe::trnsim::reportJson(const SimResult &r,
                                    const SimParams &params) {
  llvm::json::Object engines;
  for (int u = 0; u < kNumUnits; ++u)
    engines[unitName(Unit(u))] = llvm::json::Object{
        {"busy_ns", r.busyNs[u]},
        {"utilization", r.totalNs > 0 ? r.busyNs[u] / r.totalNs : 0.0}};
  llvm::json::Object stalls;
  for (int u = 0; u < kNumUnits; ++u) {
    llvm::json::Object reasons;
    auto it = r.stalls.find(unitName(Unit(u)).str());
    if (it != r.stalls.end())
      for (const auto &[reason, ns] : it->second)
        reasons[reason] = ns;
    stalls[unitName(Unit(u))] = std::move(reasons);
  }
  llvm::json::Object report{
      {"total_ns", r.totalNs},   {"engines", std::move(engines)},
      {"hfu", r.hfu(params)},    {"stalls", std::move(stalls)},
      {"dma_bytes", r.dmaBytes}, {"hbm_bytes", r.hbmBytes}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  return s;
}

std::string axe::trnsim::traceJson(const SimResult &r) {
  // One thread per track; Perfetto names them from the metadata events.
  std::vector<std::string> tracks;
  std::map<std::string, int> tid;
  for (const TraceEvent &e : r.trace)
    if (tid.emplace(e.track, int(tid.size())).second)
      tracks.push_back(e.track);
  llvm::json::Array events;
  for (size_t i = 0; i < tracks.size(); ++i)
    events.push_back(
        llvm::json::Object{{"name", "thread_name"},
                           {"ph", "M"},
                           {"pid", 0},
                           {"tid", int64_t(i)},
                           {"args", llvm::json::Object{{"name", tracks[i]}}}});
  for (const TraceEvent &e : r.trace)
    events.push_back(llvm::json::Object{{"name", e.name},
                                        {"ph", "X"},
                                        {"pid", 0},
                                        {"tid", tid[e.track]},
                                        {"ts", e.startNs / 1000.0},
                                        {"dur", e.durationNs / 1000.0}});
  llvm::json::Object root{{"traceEvents", std::move(events)},
                          {"displayTimeUnit", "ns"}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(root)) << "\n";
  return s;
}
