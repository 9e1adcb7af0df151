//===- BuiltinTargets.cpp - The table of target descriptions --------------===//
//
// Numbers come from the vendors' documentation (CUDA programming guide
// compute-capability tables, the PTX ISA for tensor memory and for which
// instructions need which sm, the Neuron architecture guide for trn1). Where
// the architecture leaves a size open (device DRAM, grid and mesh extents)
// the table says 0 instead of guessing.
//
//===----------------------------------------------------------------------===//

#include "BuiltinTargets.h"

#include "axe/Target/Trn/Machine.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

using namespace axe;
using namespace axe::detail;

namespace {

constexpr TargetAxis threadAxis(llvm::StringLiteral name, int64_t extent,
                                llvm::StringLiteral description, AxisRole role,
                                ExecutionScope scope, unsigned dim = 0) {
  return TargetAxis{name, extent, description, /*cellBits=*/0,
                    role, scope,  dim,         /*parallel=*/false};
}

constexpr TargetAxis memoryAxis(llvm::StringLiteral name, int64_t extent,
                                llvm::StringLiteral description,
                                int64_t cellBits = 0, bool parallel = false) {
  return TargetAxis{name,      extent,           description,
                    cellBits,  AxisRole::Memory, std::nullopt,
                    /*dim=*/0, parallel};
}

// Axes every CUDA GPU has. Grid extents are the architectural maxima of
// gridDim (x up to 2^31 - 1, y and z up to 65535), which the kernel verifier
// checks the launch against; the thread-axis extents are maxima, the
// kernel's launch configuration fixes the actual ones.
constexpr TargetAxis kGridAxes[] = {
    threadAxis("bx", 2147483647, "CTA index in the grid, x", AxisRole::CTA,
               ExecutionScope::Kernel, 0),
    threadAxis("by", 65535, "CTA index in the grid, y", AxisRole::CTA,
               ExecutionScope::Kernel, 1),
    threadAxis("bz", 65535, "CTA index in the grid, z", AxisRole::CTA,
               ExecutionScope::Kernel, 2),
};
constexpr TargetAxis kCtaAxes[] = {
    threadAxis("tx", 1024, "thread index in the CTA", AxisRole::Thread,
               ExecutionScope::CTA),
    threadAxis("warpid", 32, "warp index in the CTA", AxisRole::Warp,
               ExecutionScope::CTA),
    threadAxis("laneid", kWarpSize, "lane index in the warp", AxisRole::Thread,
               ExecutionScope::Warp),
};
constexpr TargetAxis kWarpgroupAxes[] = {
    threadAxis("wgid", 8, "warpgroup index in the CTA", AxisRole::Warpgroup,
               ExecutionScope::CTA),
    threadAxis("wid_in_wg", kWarpsPerWarpgroup, "warp index in the warpgroup",
               AxisRole::Warp, ExecutionScope::Warpgroup),
    threadAxis("tid_in_wg", kWarpSize *kWarpsPerWarpgroup,
               "thread index in the warpgroup", AxisRole::Thread,
               ExecutionScope::Warpgroup),
};
constexpr TargetAxis kClusterAxes[] = {
    threadAxis("cbx", 16, "CTA index in the cluster, x", AxisRole::CTA,
               ExecutionScope::Cluster, 0),
    threadAxis("cby", 16, "CTA index in the cluster, y", AxisRole::CTA,
               ExecutionScope::Cluster, 1),
    threadAxis("cbz", 16, "CTA index in the cluster, z", AxisRole::CTA,
               ExecutionScope::Cluster, 2),
};
constexpr TargetAxis kMemoryAxis =
    memoryAxis("m", 0, "linear memory address / register slot");
constexpr TargetAxis kDeviceAxis =
    threadAxis("gpuid", 0, "device index in the mesh", AxisRole::Device,
               ExecutionScope::Mesh);

// 255 32-bit registers per thread on every architecture since sm_35.
constexpr int64_t kRegBytesPerThread = 255 * 4;

template <size_t N>
void append(llvm::SmallVectorImpl<TargetAxis> &axes,
            const TargetAxis (&more)[N]) {
  axes.append(std::begin(more), std::end(more));
}

void addFeatures(TargetDescription &t,
                 std::initializer_list<llvm::StringLiteral> names) {
  for (llvm::StringLiteral n : names)
    t.features.push_back(n.str());
}

//===----------------------------------------------------------------------===//
// NVIDIA
//===----------------------------------------------------------------------===//

/// What sets one NVIDIA generation apart from the others in the table.
struct NvidiaGeneration {
  llvm::StringLiteral name;
  llvm::StringLiteral chip;
  llvm::StringLiteral description;
  int64_t smVersion;
  /// The PTX ISA version x 10 that first has the chip's instructions (7.0
  /// for sm_80, 8.0 for sm_90a, 8.6 for sm_100a).
  int64_t ptxVersion;
  /// 0 before Hopper, which introduced warpgroups.
  int64_t warpsPerWarpgroup;
  /// 1 before Hopper, which introduced clusters.
  int64_t maxClusterSize;
  /// Shared memory one CTA may opt into: the SM's, less the 1 KiB the
  /// system reserves per CTA.
  int64_t sharedBytesPerCTA;
};

TargetDescription makeNvidia(const NvidiaGeneration &g) {
  TargetDescription t;
  t.name = g.name;
  t.kind = TargetKind::GPU;
  t.description = g.description;
  t.warpSize = kWarpSize;
  t.warpsPerWarpgroup = g.warpsPerWarpgroup;
  t.maxThreadsPerCTA = 1024;
  t.maxClusterSize = g.maxClusterSize;
  t.smVersion = g.smVersion;
  t.chip = g.chip;
  t.ptxVersion = g.ptxVersion;
  // CUDA's limit on static shared memory, the same on every generation.
  t.staticSharedBytes = 48 * 1024;
  append(t.axes, kGridAxes);
  if (t.hasClusters())
    append(t.axes, kClusterAxes);
  append(t.axes, kCtaAxes);
  if (t.hasWarpgroups())
    append(t.axes, kWarpgroupAxes);
  t.axes.push_back(kMemoryAxis);
  t.axes.push_back(kDeviceAxis);
  t.memorySpaces = {
      {"global", 0, CapacityScope::Device, "device DRAM"},
      {"shared", g.sharedBytesPerCTA, CapacityScope::CTA, "shared memory"},
      {"reg", kRegBytesPerThread, CapacityScope::Thread, "registers"},
  };
  // Warp-level primitives every generation since sm_80 has; mbarrier came
  // with sm_80's cp.async (its tx-count for TMA with sm_90).
  addFeatures(t, {"mma.sync", "ldmatrix", "cp.async", "shfl", "vote",
                  "redux.sync", "mbarrier"});
  addAmpereAtoms(t);
  if (g.smVersion >= 90) {
    addFeatures(t, {"stmatrix", "tma", "clusters", "elect.sync", "setmaxnreg"});
    addHopperCopyAtoms(t);
  }
  return t;
}

TargetDescription makeSm80() {
  return makeNvidia(
      {"sm_80", "sm_80", "NVIDIA Ampere: mma.sync, ldmatrix, cp.async", 80,
       /*ptxVersion=*/70, /*warpsPerWarpgroup=*/0, /*maxClusterSize=*/1,
       /*sharedBytesPerCTA=*/163 * 1024});
}

TargetDescription makeSm90() {
  // wgmma and setmaxnreg exist only in the arch-specific sm_90a.
  TargetDescription t = makeNvidia(
      {"sm_90", "sm_90a", "NVIDIA Hopper: wgmma, TMA, thread-block clusters",
       90, /*ptxVersion=*/80, kWarpsPerWarpgroup, /*maxClusterSize=*/16,
       /*sharedBytesPerCTA=*/227 * 1024});
  addFeatures(t, {"wgmma"});
  addWgmmaAtoms(t);
  return t;
}

TargetDescription makeSm100a() {
  TargetDescription t = makeNvidia(
      {"sm_100a", "sm_100a", "NVIDIA Blackwell: tcgen05, tensor memory", 100,
       /*ptxVersion=*/86, kWarpsPerWarpgroup, /*maxClusterSize=*/16,
       /*sharedBytesPerCTA=*/227 * 1024});
  // Tensor memory: 128 lanes x 512 columns of 32-bit cells per SM.
  // TCol coordinates count elements, packed into 32-bit columns.
  t.axes.push_back(memoryAxis("TLane", 128, "tensor-memory lane"));
  t.axes.push_back(
      memoryAxis("TCol", 512, "tensor-memory column", /*cellBits=*/32));
  // Allocated by columns across all 128 lanes: a lane is a partition.
  t.memorySpaces.push_back({"tmem", 128 * 512 * 4, CapacityScope::CTA,
                            "tensor memory", /*partitions=*/128});
  addFeatures(t, {"tcgen05", "tmem"});
  addTcgen05Atoms(t);
  return t;
}

//===----------------------------------------------------------------------===//
// CPU
//===----------------------------------------------------------------------===//

CPUVectorUnit detectHostVectorUnit() {
  CPUVectorUnit unit;
  unit.cpuName = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto has = [&](llvm::StringRef f) { return features.lookup(f); };
  // AVX-512F doubles both the width and the register file (zmm0-31).
  if (has("avx512f")) {
    unit.vectorBits = 512;
    unit.vectorRegisters = 32;
  } else if (has("avx")) {
    unit.vectorBits = 256;
    unit.vectorRegisters = 16;
  } else if (has("sse2") || has("neon")) {
    unit.vectorBits = 128;
    unit.vectorRegisters = has("neon") ? 32 : 16;
  } else {
    unit.vectorBits = 128;
    unit.vectorRegisters = 16;
  }
  unit.hasFMA = has("fma") || has("neon");
  return unit;
}

TargetDescription makeCpu() {
  // The CPU runs GPU-style kernels: a CTA is one host thread and every thread
  // axis becomes a loop, so the thread hierarchy mirrors the GPUs' (same warp
  // size, so a kernel written for sm_80 runs unchanged). There are no
  // clusters and no tensor memory. Host memory bounds nothing up front.
  TargetDescription t;
  t.name = "cpu";
  t.kind = TargetKind::CPU;
  t.description = "host CPU running kernels with thread axes as loops";
  t.warpSize = kWarpSize;
  t.warpsPerWarpgroup = kWarpsPerWarpgroup;
  t.maxThreadsPerCTA = 1024;
  t.maxClusterSize = 1;
  t.axes = {threadAxis("bx", 0, "CTA index in the grid, x", AxisRole::CTA,
                       ExecutionScope::Kernel, 0),
            threadAxis("by", 0, "CTA index in the grid, y", AxisRole::CTA,
                       ExecutionScope::Kernel, 1),
            threadAxis("bz", 0, "CTA index in the grid, z", AxisRole::CTA,
                       ExecutionScope::Kernel, 2)};
  append(t.axes, kCtaAxes);
  append(t.axes, kWarpgroupAxes);
  t.axes.push_back(kMemoryAxis);
  t.axes.push_back(kDeviceAxis);
  t.vectorUnit = hostVectorUnit();
  t.memorySpaces = {
      {"global", 0, CapacityScope::Device, "host memory"},
      {"shared", 0, CapacityScope::CTA, "host memory standing in for shared"},
      {"reg", 0, CapacityScope::Thread,
       "host memory standing in for registers"},
  };
  addFeatures(t, {"vector"});
  if (t.vectorUnit->hasFMA)
    addFeatures(t, {"fma"});
  addCPUAtoms(t);
  return t;
}

//===----------------------------------------------------------------------===//
// Trainium
//===----------------------------------------------------------------------===//

TargetDescription makeTrn1() {
  // One NeuronCore: 128 SBUF partitions of 192 KiB, PSUM of 128 partitions x
  // 16 KiB organised as 8 banks of 2 KiB (Trn/Machine.h).
  using namespace trn::machine;
  TargetDescription t;
  t.name = "trn1";
  t.kind = TargetKind::Accelerator;
  t.description = "AWS Trainium 1 NeuronCore: TensorE into PSUM, "
                  "Vector/Scalar/GpSimd engines over SBUF";
  t.warpSize = 0;
  t.warpsPerWarpgroup = 0;
  t.maxThreadsPerCTA = 1;
  t.maxClusterSize = 1;
  t.axes = {memoryAxis("P", kPartitions, "scratchpad partition",
                       /*cellBits=*/0,
                       /*parallel=*/true),
            // F counts elements, so its reach depends on the element size;
            // the memory spaces' capacities bound it.
            memoryAxis("F", 0, "free dimension within a partition (elements)"),
            memoryAxis("Bank", kPsumBanks, "PSUM bank"), kMemoryAxis,
            kDeviceAxis};
  t.memorySpaces = {
      {"hbm", 0, CapacityScope::Device, "device HBM"},
      {"sbuf", kSbufBytes, CapacityScope::Core, "state buffer (SBUF)",
       kPartitions},
      {"psum", kPsumBytes, CapacityScope::Core, "partial-sum buffer (PSUM)",
       kPartitions, kPsumBanks},
  };
  t.partitionAccess = PartitionAccessRules();
  addFeatures(t, {"tensore", "vectore", "scalare", "gpsimd", "dma", "psum"});
  addTrainiumAtoms(t);
  return t;
}

} // namespace

llvm::StringRef axe::CPUVectorUnit::isaName() const {
  if (vectorBits >= 512)
    return "avx512";
  if (vectorBits >= 256)
    return hasFMA ? "avx2" : "avx";
  return "sse";
}

const CPUVectorUnit &axe::hostVectorUnit() {
  static const CPUVectorUnit unit = detectHostVectorUnit();
  return unit;
}

Result<CPUVectorUnit> axe::cpuVectorUnit(int64_t vectorBits) {
  CPUVectorUnit unit = hostVectorUnit();
  if (vectorBits == 0 || vectorBits == unit.vectorBits)
    return unit;
  if (vectorBits != 128 && vectorBits != 256 && vectorBits != 512)
    return fail("vector width " + std::to_string(vectorBits) +
                " bits: expected 0 (the host's), 128, 256 or 512");
  if (vectorBits > unit.vectorBits)
    return fail("vector width " + std::to_string(vectorBits) +
                " bits: this host (" + unit.cpuName + ") has " +
                std::to_string(unit.vectorBits));
  unit.vectorBits = vectorBits;
  // Sized as a host of that width alone would be (AVX2: 16 ymm), so code
  // tuned here is the code such a host gets.
  unit.vectorRegisters = std::min<int64_t>(unit.vectorRegisters, 16);
  return unit;
}

std::vector<TargetDescription> axe::detail::builtinTargets() {
  std::vector<TargetDescription> targets;
  // Growing would copy every atom: a description's moves may throw
  // (SmallVector), so std::vector copies on reallocation.
  targets.reserve(5);
  targets.push_back(makeSm80());
  targets.push_back(makeSm90());
  targets.push_back(makeSm100a());
  targets.push_back(makeCpu());
  targets.push_back(makeTrn1());
  return targets;
}
