//===- Target.h - Descriptions of the machines axe compiles for -*- C++ -*-===//
//
// A target says which axes exist and how far they reach, which memory spaces
// exist and how large they are, and how threads are grouped (warp and
// warpgroup sizes). Schedules, verifiers and lowerings read these facts from
// here so that no other file hard-codes "sm_90". Plain C++ on the layout
// library's types: no MLIR IR.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_TARGET_H
#define AXE_TARGET_TARGET_H

#include "axe/Layout/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace axe {

enum class TargetKind {
  /// An NVIDIA GPU: grids of CTAs of warps of lanes.
  GPU,
  /// A host CPU that runs GPU-style kernels by turning thread axes into loops.
  CPU,
  /// A Trainium-like accelerator: one control thread per core driving engines
  /// over a partitioned scratchpad.
  Accelerator,
};

llvm::StringRef targetKindName(TargetKind kind);

/// An axis the target has. `extent` is the largest number of distinct
/// coordinates the hardware offers on it (for bx/by/bz: the most CTAs a grid
/// may have along that dim); 0 means the architecture does not bound it
/// (device axes, memory axes that only a capacity bounds, a CPU's grid).
struct TargetAxis {
  llvm::StringLiteral name;
  int64_t extent;
  llvm::StringLiteral description;
  /// Nonzero for a memory axis whose hardware cells hold this many bits
  /// while a layout's coordinates on it count elements (TCol: 32-bit
  /// columns; 16-bit elements pack two to a column). `extent` then counts
  /// cells, so a layout reaching coordinate c with b-bit elements takes
  /// ceil((c + 1) * b / cellBits) of them.
  int64_t cellBits = 0;
};

/// Who a memory space's capacity belongs to: a limit per CTA means every CTA
/// may use that much, and so on.
enum class CapacityScope { Device, Core, CTA, Thread };

llvm::StringRef capacityScopeName(CapacityScope scope);

/// A memory space the target has, by the dialect's memory-space name
/// (global, shared, reg, tmem, sbuf, psum, hbm).
struct TargetMemorySpace {
  llvm::StringLiteral name;
  /// Bytes available; 0 when the architecture does not fix it (device DRAM
  /// comes in many sizes).
  int64_t capacityBytes;
  CapacityScope capacityScope;
  llvm::StringLiteral description;
  /// Partitions the space is split into (sbuf and psum: the P axis; tmem:
  /// the TLane lanes); 0 for a space addressed linearly by m. Allocations
  /// take the same addresses in every partition, so capacity is counted per
  /// partition: bytesPerPartition() each.
  int64_t partitions = 0;
  /// Banks each partition is split into (psum); 0 when it has none. A layout
  /// on the Bank axis keeps its free axis inside one bank of
  /// bytesPerBank() and takes whole banks.
  int64_t banks = 0;

  bool isPartitioned() const { return partitions > 0; }
  /// The capacity of one partition (of the whole space when unpartitioned).
  int64_t bytesPerPartition() const {
    return isPartitioned() ? capacityBytes / partitions : capacityBytes;
  }
  /// The capacity of one bank of one partition; 0 without banks.
  int64_t bytesPerBank() const {
    return banks > 0 ? bytesPerPartition() / banks : 0;
  }
};

/// The SIMD unit of a CPU, as the code generator sizes vectors and register
/// blocks from it.
struct CPUVectorUnit {
  /// Width of the widest vector register the code should use.
  int64_t vectorBits = 256;
  /// Architectural vector registers of that width.
  int64_t vectorRegisters = 16;
  /// Fused multiply-add.
  bool hasFMA = true;
  /// LLVM's name for the CPU ("znver5", "skylake-avx512", ...), for reports.
  std::string cpuName;

  /// Lanes of a vector of 32-bit elements.
  int64_t lanes32() const { return vectorBits / 32; }
  /// "avx512", "avx2", "sse": the widest x86 vector extension in use.
  llvm::StringRef isaName() const;
};

/// The vector unit of the machine this process runs on, read once from the
/// host's CPU features (cpuid on x86).
const CPUVectorUnit &hostVectorUnit();

/// The vector unit of width `vectorBits` on this host: the host's, narrowed
/// (512 -> 256 drops AVX-512's extra registers). 0 means the host's width;
/// a width the host lacks is an error.
Result<CPUVectorUnit> cpuVectorUnit(int64_t vectorBits);

class TargetDescription {
public:
  llvm::StringLiteral name;
  TargetKind kind;
  llvm::StringLiteral description;
  /// Lanes per warp; 0 when the target has no warps.
  int64_t warpSize;
  /// Warps per warpgroup; 0 when the target has no warpgroups (before sm_90).
  int64_t warpsPerWarpgroup;
  /// The most threads one CTA may have.
  int64_t maxThreadsPerCTA;
  /// The most CTAs one cluster may have (non-portable limit); 1 when the
  /// target has no clusters.
  int64_t maxClusterSize;
  llvm::SmallVector<TargetAxis, 16> axes;
  llvm::SmallVector<TargetMemorySpace, 4> memorySpaces;
  /// The SIMD unit (CPU targets: the host's); nullopt elsewhere.
  std::optional<CPUVectorUnit> vectorUnit;

  const TargetAxis *findAxis(llvm::StringRef axis) const;
  bool hasAxis(llvm::StringRef axis) const { return findAxis(axis); }
  const TargetMemorySpace *findMemorySpace(llvm::StringRef space) const;
  bool hasMemorySpace(llvm::StringRef space) const {
    return findMemorySpace(space);
  }

  bool hasWarps() const { return warpSize > 0; }
  bool hasWarpgroups() const { return warpsPerWarpgroup > 0; }
  bool hasClusters() const { return maxClusterSize > 1; }
  /// Threads per warpgroup; 0 without warpgroups.
  int64_t warpgroupSize() const { return warpSize * warpsPerWarpgroup; }

  /// The most CTAs a grid may have along dim `dim` (0, 1, 2: the extent of
  /// axis bx, by, bz); 0 when the target does not bound it.
  int64_t maxGridExtent(unsigned dim) const;
  /// "bx", "by", "bz".
  static llvm::StringRef gridAxisName(unsigned dim);

  /// "laneid, warpid, ..." in declaration order, for diagnostics.
  std::string axisNames() const;
  /// "global, shared, reg" in declaration order, for diagnostics.
  std::string memorySpaceNames() const;
};

/// Every target, in a fixed order: sm_80, sm_90, sm_100a, cpu, trn1.
llvm::ArrayRef<TargetDescription> allTargets();

/// The target called `name`; the failure lists the known names.
Result<const TargetDescription *> lookupTarget(llvm::StringRef name);

/// "sm_80, sm_90, sm_100a, cpu, trn1".
std::string knownTargetNames();

} // namespace axe

#endif // AXE_TARGET_TARGET_H
