//===- Stats.cpp - The --stats JSON ---------------------------------------===//

#include "axe/GPUSim/Stats.h"

#include "axe/GPUSim/Program.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace axe::gpusim;

static std::string locationOf(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto f = llvm::dyn_cast<mlir::FileLineColLoc>(op->getLoc()))
    os << f.getFilename().getValue() << ":" << f.getLine() << ":"
       << f.getColumn();
  else
    op->getLoc().print(os);
  return s;
}

static void writeKernel(llvm::json::OStream &j, const Program &p,
                        const KernelStats &s) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> byName;
  uint64_t issues = 0, laneOps = 0;
  SiteStats shared, global, bulk, cluster;
  for (size_t i = 0; i < s.sites.size(); ++i) {
    const SiteStats &site = s.sites[i];
    auto &n = byName[statName(p, i).str()];
    n.first += site.issues;
    n.second += site.laneOps;
    issues += site.issues;
    laneOps += site.laneOps;
    shared.sharedRequests += site.sharedRequests;
    shared.sharedWavefronts += site.sharedWavefronts;
    shared.sharedIdeal += site.sharedIdeal;
    global.globalRequests += site.globalRequests;
    global.globalSectors += site.globalSectors;
    bulk.bulkOps += site.bulkOps;
    bulk.bulkSharedBytes += site.bulkSharedBytes;
    bulk.bulkGlobalBytes += site.bulkGlobalBytes;
    cluster.clusterRequests += site.clusterRequests;
    cluster.remoteRequests += site.remoteRequests;
    cluster.clusterBytes += site.clusterBytes;
  }
  j.attribute("name", p.name);
  j.attribute("launches", int64_t(s.launches));
  j.attribute("ctas", int64_t(s.ctas));
  j.attribute("clusters", int64_t(s.clusters));
  j.attribute("warps", int64_t(s.warps));
  j.attribute("seconds", s.seconds);
  j.attribute("warp_instructions", int64_t(issues));
  j.attribute("lane_ops", int64_t(laneOps));
  j.attributeObject("instructions", [&] {
    for (auto &[name, counts] : byName) {
      if (counts.first == 0)
        continue;
      j.attributeObject(name, [&] {
        j.attribute("issues", int64_t(counts.first));
        j.attribute("lane_ops", int64_t(counts.second));
      });
    }
  });
  j.attributeObject("shared_total", [&] {
    j.attribute("requests", int64_t(shared.sharedRequests));
    j.attribute("wavefronts", int64_t(shared.sharedWavefronts));
    j.attribute("ideal_wavefronts", int64_t(shared.sharedIdeal));
    j.attribute("bank_conflicts",
                int64_t(shared.sharedWavefronts - shared.sharedIdeal));
  });
  j.attributeObject("global_total", [&] {
    j.attribute("requests", int64_t(global.globalRequests));
    j.attribute("sectors", int64_t(global.globalSectors));
  });
  // Distributed shared memory: accesses through shared::cluster addresses.
  j.attributeObject("dsmem_total", [&] {
    j.attribute("requests", int64_t(cluster.clusterRequests));
    j.attribute("remote_requests", int64_t(cluster.remoteRequests));
    j.attribute("bytes", int64_t(cluster.clusterBytes));
  });
  // TMA loads and wgmma: whole-tile transfers, not per-lane accesses.
  j.attributeObject("bulk_total", [&] {
    j.attribute("ops", int64_t(bulk.bulkOps));
    j.attribute("shared_bytes", int64_t(bulk.bulkSharedBytes));
    j.attribute("global_bytes", int64_t(bulk.bulkGlobalBytes));
  });
  j.attributeArray("bulk", [&] {
    for (size_t i = 0; i < s.sites.size(); ++i) {
      const SiteStats &site = s.sites[i];
      if (!site.bulkOps)
        continue;
      j.object([&] {
        j.attribute("op", statName(p, i));
        j.attribute("loc", locationOf(p.ops[i]));
        j.attribute("ops", int64_t(site.bulkOps));
        j.attribute("shared_bytes", int64_t(site.bulkSharedBytes));
        j.attribute("global_bytes", int64_t(site.bulkGlobalBytes));
      });
    }
  });
  j.attributeArray("shared", [&] {
    for (size_t i = 0; i < s.sites.size(); ++i) {
      const SiteStats &site = s.sites[i];
      if (!site.sharedRequests)
        continue;
      j.object([&] {
        j.attribute("op", statName(p, i));
        j.attribute("loc", locationOf(p.ops[i]));
        j.attribute("requests", int64_t(site.sharedRequests));
        j.attribute("wavefronts", int64_t(site.sharedWavefronts));
        j.attribute("ideal_wavefronts", int64_t(site.sharedIdeal));
        j.attribute("bank_conflicts",
                    int64_t(site.sharedWavefronts - site.sharedIdeal));
      });
    }
  });
  j.attributeArray("global", [&] {
    for (size_t i = 0; i < s.sites.size(); ++i) {
      const SiteStats &site = s.sites[i];
      if (!site.globalRequests)
        continue;
      j.object([&] {
        j.attribute("op", statName(p, i));
        j.attribute("loc", locationOf(p.ops[i]));
        j.attribute("requests", int64_t(site.globalRequests));
        j.attribute("sectors", int64_t(site.globalSectors));
        j.attribute("sectors_per_request",
                    double(site.globalSectors) / double(site.globalRequests));
      });
    }
  });
}

void axe::gpusim::writeStatsJSON(
    llvm::raw_ostream &os,
    const std::vector<std::pair<const Program *, const KernelStats *>>
        &kernels) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("version", 1);
    j.attributeArray("kernels", [&] {
      for (auto [p, s] : kernels)
        j.object([&] { writeKernel(j, *p, *s); });
    });
  });
  os << "\n";
}
