//===- Target.cpp - The table of target descriptions ----------------------===//
//
// Numbers come from the vendors' documentation (CUDA programming guide
// compute-capability tables, the PTX ISA for tensor memory, the Neuron
// architecture guide for trn1). Where the architecture leaves a size open
// (device DRAM, grid and mesh extents) the table says 0 instead of guessing.
//
//===----------------------------------------------------------------------===//

#include "axe/Target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

using namespace axe;

llvm::StringRef axe::targetKindName(TargetKind kind) {
  switch (kind) {
  case TargetKind::GPU:
    return "gpu";
  case TargetKind::CPU:
    return "cpu";
  case TargetKind::Accelerator:
    return "accelerator";
  }
  return "unknown";
}

llvm::StringRef axe::capacityScopeName(CapacityScope scope) {
  switch (scope) {
  case CapacityScope::Device:
    return "device";
  case CapacityScope::Core:
    return "core";
  case CapacityScope::CTA:
    return "cta";
  case CapacityScope::Thread:
    return "thread";
  }
  return "unknown";
}

const TargetAxis *TargetDescription::findAxis(llvm::StringRef axis) const {
  for (const TargetAxis &a : axes)
    if (a.name == axis)
      return &a;
  return nullptr;
}

const TargetMemorySpace *
TargetDescription::findMemorySpace(llvm::StringRef space) const {
  for (const TargetMemorySpace &m : memorySpaces)
    if (m.name == space)
      return &m;
  return nullptr;
}

llvm::StringRef TargetDescription::gridAxisName(unsigned dim) {
  static constexpr llvm::StringLiteral names[] = {"bx", "by", "bz"};
  assert(dim < 3 && "a grid has at most 3 dims");
  return names[dim];
}

int64_t TargetDescription::maxGridExtent(unsigned dim) const {
  const TargetAxis *axis = findAxis(gridAxisName(dim));
  return axis ? axis->extent : 0;
}

std::string TargetDescription::axisNames() const {
  std::string out;
  for (const TargetAxis &a : axes) {
    if (!out.empty())
      out += ", ";
    out += a.name.str();
  }
  return out;
}

std::string TargetDescription::memorySpaceNames() const {
  std::string out;
  for (const TargetMemorySpace &m : memorySpaces) {
    if (!out.empty())
      out += ", ";
    out += m.name.str();
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

namespace {
// Axes every CUDA GPU has. Grid extents are the architectural maxima of
// gridDim (x up to 2^31 - 1, y and z up to 65535), which the kernel verifier
// checks the launch against; the thread-axis extents are maxima, the
// kernel's launch configuration fixes the actual ones.
constexpr TargetAxis kGridAxes[] = {
    {"bx", 2147483647, "CTA index in the grid, x"},
    {"by", 65535, "CTA index in the grid, y"},
    {"bz", 65535, "CTA index in the grid, z"},
};
constexpr TargetAxis kCtaAxes[] = {
    {"tx", 1024, "thread index in the CTA"},
    {"warpid", 32, "warp index in the CTA"},
    {"laneid", 32, "lane index in the warp"},
};
constexpr TargetAxis kWarpgroupAxes[] = {
    {"wgid", 8, "warpgroup index in the CTA"},
    {"wid_in_wg", 4, "warp index in the warpgroup"},
    {"tid_in_wg", 128, "thread index in the warpgroup"},
};
constexpr TargetAxis kClusterAxes[] = {
    {"cbx", 16, "CTA index in the cluster, x"},
    {"cby", 16, "CTA index in the cluster, y"},
    {"cbz", 16, "CTA index in the cluster, z"},
};
constexpr TargetAxis kMemoryAxis = {"m", 0,
                                    "linear memory address / register slot"};
constexpr TargetAxis kDeviceAxis = {"gpuid", 0, "device index in the mesh"};

// 255 32-bit registers per thread on every architecture since sm_35.
constexpr int64_t kRegBytesPerThread = 255 * 4;

template <size_t N>
void append(llvm::SmallVectorImpl<TargetAxis> &axes,
            const TargetAxis (&more)[N]) {
  axes.append(std::begin(more), std::end(more));
}

TargetDescription makeSm80() {
  TargetDescription t{"sm_80",
                      TargetKind::GPU,
                      "NVIDIA Ampere: mma.sync, ldmatrix, cp.async",
                      /*warpSize=*/32,
                      /*warpsPerWarpgroup=*/0,
                      /*maxThreadsPerCTA=*/1024,
                      /*maxClusterSize=*/1,
                      {},
                      {}};
  append(t.axes, kGridAxes);
  append(t.axes, kCtaAxes);
  t.axes.push_back(kMemoryAxis);
  t.axes.push_back(kDeviceAxis);
  t.memorySpaces = {
      {"global", 0, CapacityScope::Device, "device DRAM"},
      // 163 KiB of the 164 KiB per SM are available to one CTA (opt-in).
      {"shared", 163 * 1024, CapacityScope::CTA, "shared memory"},
      {"reg", kRegBytesPerThread, CapacityScope::Thread, "registers"},
  };
  return t;
}

TargetDescription makeSm90() {
  TargetDescription t{"sm_90",
                      TargetKind::GPU,
                      "NVIDIA Hopper: wgmma, TMA, thread-block clusters",
                      /*warpSize=*/32,
                      /*warpsPerWarpgroup=*/4,
                      /*maxThreadsPerCTA=*/1024,
                      /*maxClusterSize=*/16,
                      {},
                      {}};
  append(t.axes, kGridAxes);
  append(t.axes, kClusterAxes);
  append(t.axes, kCtaAxes);
  append(t.axes, kWarpgroupAxes);
  t.axes.push_back(kMemoryAxis);
  t.axes.push_back(kDeviceAxis);
  t.memorySpaces = {
      {"global", 0, CapacityScope::Device, "device DRAM"},
      // 227 KiB of the 228 KiB per SM are available to one CTA (opt-in).
      {"shared", 227 * 1024, CapacityScope::CTA, "shared memory"},
      {"reg", kRegBytesPerThread, CapacityScope::Thread, "registers"},
  };
  return t;
}

TargetDescription makeSm100a() {
  TargetDescription t = makeSm90();
  t.name = "sm_100a";
  t.description = "NVIDIA Blackwell: tcgen05, tensor memory";
  // Tensor memory: 128 lanes x 512 columns of 32-bit cells per SM.
  // TCol coordinates count elements, packed into 32-bit columns.
  t.axes.push_back({"TLane", 128, "tensor-memory lane"});
  t.axes.push_back({"TCol", 512, "tensor-memory column", /*cellBits=*/32});
  // Allocated by columns across all 128 lanes: a lane is a partition.
  t.memorySpaces.push_back({"tmem", 128 * 512 * 4, CapacityScope::CTA,
                            "tensor memory", /*partitions=*/128});
  return t;
}

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
  TargetDescription t{"cpu",
                      TargetKind::CPU,
                      "host CPU running kernels with thread axes as loops",
                      /*warpSize=*/32,
                      /*warpsPerWarpgroup=*/4,
                      /*maxThreadsPerCTA=*/1024,
                      /*maxClusterSize=*/1,
                      {},
                      {}};
  t.axes = {{"bx", 0, "CTA index in the grid, x"},
            {"by", 0, "CTA index in the grid, y"},
            {"bz", 0, "CTA index in the grid, z"}};
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
  return t;
}

TargetDescription makeTrn1() {
  // One NeuronCore: 128 SBUF partitions of 192 KiB, PSUM of 128 partitions x
  // 16 KiB organised as 8 banks of 2 KiB.
  TargetDescription t{"trn1",
                      TargetKind::Accelerator,
                      "AWS Trainium 1 NeuronCore: TensorE into PSUM, "
                      "Vector/Scalar/GpSimd engines over SBUF",
                      /*warpSize=*/0,
                      /*warpsPerWarpgroup=*/0,
                      /*maxThreadsPerCTA=*/1,
                      /*maxClusterSize=*/1,
                      {},
                      {}};
  t.axes = {{"P", 128, "scratchpad partition"},
            // F counts elements, so its reach depends on the element size;
            // the memory spaces' capacities bound it.
            {"F", 0, "free dimension within a partition (elements)"},
            {"Bank", 8, "PSUM bank"},
            kMemoryAxis,
            kDeviceAxis};
  t.memorySpaces = {
      {"hbm", 0, CapacityScope::Device, "device HBM"},
      {"sbuf", 128 * 192 * 1024, CapacityScope::Core, "state buffer (SBUF)",
       /*partitions=*/128},
      {"psum", 128 * 16 * 1024, CapacityScope::Core,
       "partial-sum buffer (PSUM)", /*partitions=*/128, /*banks=*/8},
  };
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

llvm::ArrayRef<TargetDescription> axe::allTargets() {
  static const llvm::SmallVector<TargetDescription, 5> targets = {
      makeSm80(), makeSm90(), makeSm100a(), makeCpu(), makeTrn1()};
  return targets;
}

std::string axe::knownTargetNames() {
  std::string out;
  for (const TargetDescription &t : allTargets()) {
    if (!out.empty())
      out += ", ";
    out += t.name.str();
  }
  return out;
}

Result<const TargetDescription *> axe::lookupTarget(llvm::StringRef name) {
  for (const TargetDescription &t : allTargets())
    if (t.name == name)
      return &t;
  return fail("unknown target '" + name.str() +
              "'; known targets: " + knownTargetNames());
}
