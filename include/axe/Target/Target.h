//===- Target.h - Descriptions of the machines axe compiles for -*- C++ -*-===//
//
// A target says which axes exist, what each one numbers and how far it
// reaches, which memory spaces exist and how large they are, how threads are
// grouped (warp and warpgroup sizes), which features the machine has and
// which instructions (atoms) it offers with the layouts they require.
// Schedules, verifiers and lowerings read these facts from here so that no
// other file hard-codes "sm_90". Plain C++ on the layout library's types: no
// MLIR IR. docs/Targets.md describes how a backend adds a target.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_TARGET_H
#define AXE_TARGET_TARGET_H

#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/Result.h"
#include "axe/Layout/TargetFusion.h"
#include "axe/Target/InstructionAtom.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

/// "gpu", "cpu", "accelerator".
llvm::StringRef targetKindName(TargetKind kind);

/// Lanes per warp and warps per warpgroup on the NVIDIA GPUs, and on the CPU,
/// which mirrors their hierarchy so that GPU kernels run on it unchanged.
/// Code without a target at hand (a kernel with no #axe.target) falls back to
/// these, never to literals of its own.
inline constexpr int64_t kWarpSize = 32;
inline constexpr int64_t kWarpsPerWarpgroup = 4;

/// What one step along an axis numbers.
enum class AxisRole {
  /// Threads: tx, laneid, tid_in_wg.
  Thread,
  /// Warps: warpid, wid_in_wg.
  Warp,
  /// Warpgroups: wgid.
  Warpgroup,
  /// CTAs: in the grid (bx, by, bz) or in the cluster (cbx, cby, cbz).
  CTA,
  /// Devices in the mesh: gpuid.
  Device,
  /// Addresses, not executors: m, P, F, Bank, TLane, TCol.
  Memory,
};

/// "thread", "warp", "warpgroup", "cta", "device", "memory".
llvm::StringRef axisRoleName(AxisRole role);

/// The execution scope one step of an axis with `role` is (a laneid step is
/// one thread, a cbx step one CTA, a gpuid step a whole kernel's device);
/// nullopt for memory axes.
std::optional<ExecutionScope> unitOfRole(AxisRole role);

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
  AxisRole role = AxisRole::Memory;
  /// The scope whose instances the axis numbers its units within: laneid
  /// numbers threads within a warp, warpid warps within a CTA, cbx CTAs
  /// within a cluster, bx CTAs within the kernel, gpuid devices within the
  /// mesh. nullopt for memory axes.
  std::optional<ExecutionScope> scope;
  /// Which dim of a grid or cluster index the axis is (x 0, y 1, z 2); 0
  /// for every other axis.
  unsigned dim = 0;
  /// A memory axis whose coordinates the hardware works on side by side
  /// rather than one after another (trn's P: every engine streams the 128
  /// partitions at once).
  bool parallel = false;

  bool isMemory() const { return role == AxisRole::Memory; }
  /// Numbers threads, warps, warpgroups or CTAs of a kernel.
  bool isThreadAxis() const {
    return role != AxisRole::Memory && role != AxisRole::Device;
  }
};

/// How a thread axis walks the threads of one CTA: a step is `threadsPerStep`
/// threads, and the coordinate starts over every `wrap` steps (0 when it
/// does not wrap inside a CTA: tx, warpid, wgid).
struct AxisStep {
  /// What one step is (a thread, a warp, a warpgroup).
  ExecutionScope unit;
  int64_t threadsPerStep;
  int64_t wrap;
};

/// The shape of one launch, for the extents of its thread axes.
struct LaunchShape {
  int64_t threadsPerCTA = 1;
  /// CTAs per cluster along x, y, z; missing dims are 1.
  llvm::SmallVector<int64_t, 3> cluster;
  /// CTAs in the grid along x, y, z; empty when not known (grids are
  /// usually sized at run time).
  llvm::SmallVector<int64_t, 3> grid;
};

/// Who a memory space's capacity belongs to: a limit per CTA means every CTA
/// may use that much, and so on.
enum class CapacityScope { Device, Core, CTA, Thread };

/// "device", "core", "CTA", "thread", as diagnostics say "per CTA".
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
  /// What one bytesPerPartition() is counted for, in diagnostics ("allows
  /// 196608 per partition"): "partition" for a partitioned space, else
  /// capacityScopeName.
  llvm::StringRef capacityUnit() const;
};

/// The rules every SBUF/PSUM operand of a Trainium instruction obeys
/// (NeuronCore-v2 access patterns).
struct PartitionAccessRules {
  /// Partitions one access covers, as one contiguous run (no partition
  /// stride).
  int64_t maxPartitions = 128;
  /// Free dims of the per-partition access pattern, the largest size of
  /// each (uint16) and the range of their strides in elements (int16). All
  /// partitions use the same free pattern.
  int64_t maxFreeDims = 4;
  int64_t maxFreeDimSize = 65535;
  int64_t minFreeStride = -32768;
  int64_t maxFreeStride = 32767;
  /// Vector/Scalar engine instructions take at most this many free elements
  /// per partition from SBUF, and from PSUM.
  int64_t maxFreeElementsSbuf = 64 * 1024;
  int64_t maxFreeElementsPsum = 4 * 1024;
  /// An innermost stride above this many bytes halves the SBUF/PSUM
  /// interface bandwidth.
  int64_t fullBandwidthStrideBytes = 16;

  /// Whether an access to `partitions` partitions may start at partition
  /// `start`: more than 64 start at 0; 33-64 at 0 or 64; up to 32 at a
  /// multiple of 32.
  bool isValidStartPartition(int64_t start, int64_t partitions) const;
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
  llvm::StringLiteral name = "";
  TargetKind kind = TargetKind::GPU;
  llvm::StringLiteral description = "";
  /// Lanes per warp; 0 when the target has no warps.
  int64_t warpSize = 0;
  /// Warps per warpgroup; 0 when the target has no warpgroups (before sm_90).
  int64_t warpsPerWarpgroup = 0;
  /// The most threads one CTA may have.
  int64_t maxThreadsPerCTA = 1;
  /// The most CTAs one cluster may have (non-portable limit); 1 when the
  /// target has no clusters.
  int64_t maxClusterSize = 1;
  llvm::SmallVector<TargetAxis, 16> axes;
  llvm::SmallVector<TargetMemorySpace, 4> memorySpaces;
  /// The SIMD unit (CPU targets: the host's); nullopt elsewhere.
  std::optional<CPUVectorUnit> vectorUnit;
  /// NVIDIA compute capability x 10 (80, 90, 100); 0 for other targets.
  int64_t smVersion = 0;
  /// The chip name code generation targets ("sm_90a": wgmma and setmaxnreg
  /// exist only in the arch-specific variant); empty for non-NVIDIA targets.
  llvm::StringLiteral chip = "";
  /// The PTX ISA version x 10 the chip's code needs at least (70, 80, 86);
  /// 0 for non-NVIDIA targets.
  int64_t ptxVersion = 0;
  /// Shared memory a kernel may declare statically; a kernel that needs
  /// more takes it as dynamic shared memory, which its launch sizes. 0 for
  /// targets without shared memory.
  int64_t staticSharedBytes = 0;
  /// What the machine has, by name: instruction families ("mma.sync",
  /// "ldmatrix", "wgmma", "tcgen05", "tensore", "dma"), memories ("tmem",
  /// "psum") and mechanisms ("clusters", "vector"). Predicates and schedules
  /// test these instead of target names.
  llvm::SmallVector<std::string, 16> features;
  /// The instructions schedules build on, with their layouts and limits.
  std::vector<InstructionAtom> atoms;
  /// Rules for partitioned-scratchpad operands (trn1); nullopt elsewhere.
  std::optional<PartitionAccessRules> partitionAccess;

  //===--------------------------------------------------------------------===//
  // Axes
  //===--------------------------------------------------------------------===//

  const TargetAxis *findAxis(llvm::StringRef axis) const;
  bool hasAxis(llvm::StringRef axis) const { return findAxis(axis); }
  /// The axes that number threads, warps, warpgroups or CTAs, in
  /// declaration order.
  llvm::SmallVector<const TargetAxis *, 16> threadAxes() const;
  /// The memory axes, in declaration order.
  llvm::SmallVector<const TargetAxis *, 8> memoryAxes() const;
  /// The scope within which `axis` numbers its units (laneid: warp, wgid:
  /// cta, cbx: cluster, bx: kernel, gpuid: mesh); nullopt for memory axes
  /// and for axes this target does not have.
  std::optional<ExecutionScope> scopeOfAxis(llvm::StringRef axis) const;
  /// The axis that numbers `unit`s within `within`, `dim` picking x, y or z
  /// of a grid or cluster index: (warp, cta) is warpid, (thread, warp) is
  /// laneid, (cta, kernel, 1) is by. Null when the target has none.
  const TargetAxis *axisNumbering(ExecutionScope unit, ExecutionScope within,
                                  unsigned dim = 0) const;
  /// How `axis` walks the threads of a CTA; nullopt for axes constant in a
  /// CTA (grid, cluster, device), memory axes and axes the target lacks.
  std::optional<AxisStep> stepOfAxis(llvm::StringRef axis) const;

  //===--------------------------------------------------------------------===//
  // Thread hierarchy
  //===--------------------------------------------------------------------===//

  bool hasWarps() const { return warpSize > 0; }
  bool hasWarpgroups() const { return warpsPerWarpgroup > 0; }
  bool hasClusters() const { return maxClusterSize > 1; }
  /// Threads per warpgroup; 0 without warpgroups.
  int64_t warpgroupSize() const { return warpSize * warpsPerWarpgroup; }
  /// The hierarchy fuseThreadAxes rewrites with. Without warpgroups no
  /// layout can use a warpgroup axis, so the warpgroup size is never
  /// consulted and kWarpsPerWarpgroup stands in to keep it well formed.
  ThreadHierarchy threadHierarchy() const;
  /// Threads in one instance of `scope` in a CTA of `threadsPerCTA`
  /// threads: 1, the warp size, the warpgroup size, or the whole CTA for cta
  /// and wider scopes. 0 for a warp or warpgroup the target lacks.
  int64_t threadsPerInstance(ExecutionScope scope, int64_t threadsPerCTA) const;
  /// Instances of `scope` in a CTA of `threadsPerCTA` threads (1 for cta and
  /// wider), or why the CTA is not made of whole instances.
  Result<int64_t> instancesPerCTA(ExecutionScope scope,
                                  int64_t threadsPerCTA) const;
  /// The extent of thread axis `axis` in `launch`: its coordinates run over
  /// [0, extent). nullopt for memory and device axes, axes the target lacks,
  /// and grid axes when the launch does not give the grid.
  std::optional<int64_t> launchExtent(llvm::StringRef axis,
                                      const LaunchShape &launch) const;
  /// launchExtent of every thread axis that has one, in declaration order.
  llvm::SmallVector<std::pair<llvm::StringRef, int64_t>, 16>
  launchExtents(const LaunchShape &launch) const;

  /// The most CTAs a grid may have along dim `dim` (0, 1, 2: the extent of
  /// axis bx, by, bz); 0 when the target does not bound it.
  int64_t maxGridExtent(unsigned dim) const;
  /// "bx", "by", "bz".
  static llvm::StringRef gridAxisName(unsigned dim);

  //===--------------------------------------------------------------------===//
  // Memory, features, atoms
  //===--------------------------------------------------------------------===//

  const TargetMemorySpace *findMemorySpace(llvm::StringRef space) const;
  bool hasMemorySpace(llvm::StringRef space) const {
    return findMemorySpace(space);
  }
  /// The SBUF/PSUM geometry of an accelerator, for the HardwareLayouts
  /// constructors (partitionedLayout, psumTileLayout); nullopt for a target
  /// without both spaces.
  std::optional<AcceleratorConfig> acceleratorConfig() const;

  bool hasFeature(llvm::StringRef feature) const;

  /// Every atom of `kind`, in table order.
  llvm::SmallVector<const InstructionAtom *, 8> findAtoms(AtomKind kind) const;
  /// Every atom the query matches, in table order.
  llvm::SmallVector<const InstructionAtom *, 8>
  findAtoms(const AtomQuery &query) const;
  /// The first atom of `kind` for elements of `elementType` accumulating
  /// into `accumulatorType` (empty: any), or null.
  const InstructionAtom *findAtom(AtomKind kind, llvm::StringRef elementType,
                                  llvm::StringRef accumulatorType = {}) const;
  /// The first atom the query matches, or null.
  const InstructionAtom *findAtom(const AtomQuery &query) const;

  /// "laneid, warpid, ..." in declaration order, for diagnostics.
  std::string axisNames() const;
  /// "global, shared, reg" in declaration order, for diagnostics.
  std::string memorySpaceNames() const;
  /// "mma.sync, ldmatrix, ..." in declaration order, for diagnostics.
  std::string featureNames() const;
};

/// Why `target` is not a well-formed description on its own: an empty name,
/// two axes or memory spaces of one name, a built-in axis name (laneid, m,
/// ...) in a role other than its own, warp or warpgroup axes without the
/// sizes they need, or an atom operand in a memory space the target lacks.
/// nullopt when it is well formed.
std::optional<Failure> checkTargetDescription(const TargetDescription &target);

/// Adds `target` to the targets lookupTarget and allTargets see, for a
/// backend library that brings its own. Fails when checkTargetDescription
/// does, when the name is taken, or when an axis it shares by name with a
/// known target has another role or scope there (an axis name means one
/// thing on every target). Register before compiling starts, the way passes
/// are registered; the result stays valid for the whole process.
Result<const TargetDescription *> registerTarget(TargetDescription target);

/// Every target: the built-in ones in a fixed order (sm_80, sm_90, sm_100a,
/// cpu, trn1), then the registered ones in registration order. The pointers
/// stay valid for the whole process.
llvm::SmallVector<const TargetDescription *, 8> allTargets();

/// The target called `name`; the failure lists the known names.
Result<const TargetDescription *> lookupTarget(llvm::StringRef name);

/// "sm_80, sm_90, sm_100a, cpu, trn1" (and any registered ones).
std::string knownTargetNames();

/// The axis called `name` on the first target that has it. Its role and
/// scope are the same on every target (registerTarget enforces it), so code
/// without a target at hand may ask where an axis name sits.
const TargetAxis *findAxisOnAnyTarget(llvm::StringRef name);

} // namespace axe

#endif // AXE_TARGET_TARGET_H
