//===- InstructionAtom.h - Instructions a target offers, as data -*- C++
//-*-===//
//
// An instruction atom is one hardware instruction a schedule can build on
// (mma.sync m16n8k16, ldmatrix.x4, a TMA box copy, a TensorE matmul): its
// shape, its element types, the placement it requires of each operand as an
// ordinary layout from axe/Layout/HardwareLayouts.h, and the limits the
// hardware puts on it. Targets list their atoms (TargetDescription::atoms) so
// a schedule asks "which mma does this target have for f16 into f32" instead
// of knowing that sm_80 means mma.sync.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_INSTRUCTIONATOM_H
#define AXE_TARGET_INSTRUCTIONATOM_H

#include "axe/Layout/HardwareLayouts.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace axe {

/// The levels of execution, narrowest first. Same order and values as the
/// dialect's ScopeKind (thread .. mesh), so the dialect converts between the
/// two with a static_cast.
enum class ExecutionScope {
  Thread,
  Warp,
  Warpgroup,
  CTA,
  Cluster,
  Kernel,
  Mesh,
};

/// "thread", "warp", "warpgroup", "cta", "cluster", "kernel", "mesh": the
/// dialect's spelling of the same scopes.
llvm::StringRef executionScopeName(ExecutionScope scope);

enum class AtomKind {
  /// mma.sync: a warp multiplies register fragments (sm_80 and newer).
  MmaSync,
  /// ldmatrix / stmatrix: a warp moves 8x8 16-bit matrices between shared
  /// memory and register fragments.
  LdMatrix,
  StMatrix,
  /// cp.async: a thread copies 4, 8 or 16 bytes global -> shared, without
  /// passing through registers.
  CpAsync,
  /// A vector load or store by one thread (ld.v4 on a GPU, a SIMD register
  /// on a CPU).
  VectorLoad,
  /// wgmma.mma_async: a warpgroup multiplies shared-memory (or register) A
  /// by shared-memory B into register accumulators (sm_90a).
  Wgmma,
  /// A TMA tensor copy of one box between global and shared memory.
  TmaBox,
  /// tcgen05.mma: one thread issues a multiply of shared-memory operands
  /// into a tensor-memory accumulator (sm_100a).
  Tcgen05Mma,
  /// tcgen05.ld / tcgen05.st: a warpgroup moves tensor memory <-> registers.
  Tcgen05Ld,
  Tcgen05St,
  /// Trainium TensorE: stationary^T @ moving from SBUF into a PSUM bank.
  TensorEMatmul,
  /// A Trainium DMA transfer between HBM and SBUF.
  Dma,
};

llvm::StringRef atomKindName(AtomKind kind);

/// The width in bits of an element type written as the dialect prints it
/// (f16, bf16, f32, tf32, i8, f8E4M3FN, ...), or as a bit-pattern type (b8,
/// b16, b32, b64) that stands for any type of that width; nullopt for a
/// name it does not know.
std::optional<unsigned> elementTypeBits(llvm::StringRef type);

/// Whether an atom declared for `atomType` takes elements of `type`: the same
/// name, an atom type "bN" and any N-bit type, or an atom type "" (any).
bool elementTypeMatches(llvm::StringRef atomType, llvm::StringRef type);

/// One operand of an atom: where it lives and where the instruction requires
/// each of its elements.
struct AtomOperand {
  /// "A", "B", "C" (mma: C is also where D goes), "D", "fragment", "rows",
  /// "src", "dst", "box", "stationary", "moving", ...
  std::string name;
  /// The memory spaces it may be in, by the dialect's names (reg, shared,
  /// global, tmem, sbuf, psum, hbm).
  llvm::SmallVector<llvm::StringLiteral, 2> memorySpaces;
  /// The logical shape the layout admits; empty when the atom fixes none.
  Shape shape;
  /// The placement the instruction requires, admitting `shape`. nullopt
  /// where no single layout is required: operands read through a
  /// descriptor (wgmma's and tcgen05's shared operands: any of
  /// `swizzleBytes`), or copied by address under the atom's limits.
  std::optional<Layout> layout;
  /// For a shared-memory operand read through a matrix descriptor: the
  /// swizzle modes it accepts, in bytes (0 for none, 32, 64, 128).
  llvm::SmallVector<int64_t, 4> swizzleBytes;

  bool allowsMemorySpace(llvm::StringRef space) const;
};

/// TMA (cuTensorMapEncodeTiled and cp.async.bulk.tensor) limits.
struct TmaLimits {
  /// Tensor dims a descriptor may have.
  int64_t maxRank = 5;
  /// Elements of a box along any dim.
  int64_t maxBoxDim = 256;
  /// The innermost box dim spans a multiple of this many bytes (without
  /// interleave).
  int64_t innerBoxBytesMultiple = 16;
  /// This atom's swizzle; nullopt for none. With a swizzle the innermost box
  /// dim must fit in one swizzle line: at most swizzleLineBytes() bytes.
  std::optional<SwizzleMode> swizzle;
  /// Alignment of the global base address, and the multiple every global
  /// stride must be, in bytes.
  int64_t globalAddressAlign = 16;
  int64_t globalStrideMultiple = 16;
  /// Alignment of the shared-memory box: the 128 bytes the hardware needs,
  /// or a whole swizzle atom (8 lines) when swizzled, because the XOR reads
  /// address bits, so only an atom-aligned box sees the pattern that
  /// swizzleAtom describes from its row 0.
  int64_t sharedAddressAlign = 128;
  /// Largest element stride (traversal stride) per dim.
  int64_t maxElementStride = 8;

  /// 32, 64 or 128 with a swizzle; 0 without.
  int64_t swizzleLineBytes() const;
};

/// Trainium TensorE matmul limits (NeuronCore-v2).
struct TensorELimits {
  /// K: the contraction dim, on partitions for both inputs.
  int64_t maxContractionPartitions = 128;
  /// M: free size of the stationary input (the output's partitions).
  int64_t maxStationaryFree = 128;
  /// N: free size of the moving input (the output's free size).
  int64_t maxMovingFree = 512;
  /// The output must fit one PSUM bank per partition: 512 fp32.
  int64_t psumBankBytes = 2048;
  /// The PE array tiles rows and columns in multiples of this (v2: rows as
  /// 2 x 64; a row and a column tile may not both be 32).
  int64_t peTileMultiple = 32;
  /// Accumulation is always fp32, whatever the inputs.
  llvm::StringLiteral accumulatorType = "f32";
};

/// Trainium DMA facts (NeuronCore-v2). The byte sizes are where the
/// bandwidth guide puts efficiency, not hard limits.
struct DmaLimits {
  /// DMA engines per NeuronCore, queues per engine, and the SBUF partitions
  /// each engine usually serves (128 / 16).
  int64_t engines = 16;
  int64_t queuesPerEngine = 16;
  int64_t partitionsPerEngine = 8;
  /// Below this many bytes per partition a transfer is badly
  /// overhead-bound; at least the next is needed for efficiency, and the
  /// one after that saturates the engines.
  int64_t overheadBoundBytesPerPartition = 256;
  int64_t minEfficientBytesPerPartition = 2048;
  int64_t saturatingBytesPerPartition = 4096;
  /// A whole transfer this large reaches the ideal bandwidth.
  int64_t idealTransferBytes = 32 * 1024;
  /// NeuronCore-v2 has no hardware descriptor generation: descriptors are
  /// made ahead by the runtime or in software on GpSimd.
  bool hardwareDescriptors = false;
};

struct InstructionAtom {
  AtomKind kind;
  /// The instruction as its ISA spells it, with its variant
  /// ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32").
  std::string name;
  /// Who executes one instance together: a warp for mma.sync and ldmatrix,
  /// a warpgroup for wgmma and tcgen05.ld (whose layouts are over
  /// tid_in_wg), a thread for cp.async, TMA and tcgen05.mma (one thread
  /// issues them).
  ExecutionScope scope = ExecutionScope::Thread;
  /// The matrix shape of a multiply (m x k times k x n); for TensorE the
  /// largest one. 0 for atoms that are not multiplies.
  int64_t m = 0, n = 0, k = 0;
  /// Bytes one instance moves (ldmatrix.x4: 512; TMA: 0, set by its box).
  int64_t bytes = 0;
  /// Type of the multiplied or moved elements ("f16", "b16" for any 16-bit
  /// type, "" for any type).
  std::string elementType;
  /// Type of the accumulator of a multiply; "" for other atoms.
  std::string accumulatorType;
  // std::vector rather than SmallVector: its moves are noexcept, so a table
  // of atoms grows by moving them, not by copying every layout.
  std::vector<AtomOperand> operands;
  /// The sizes one access may have, in bytes (cp.async: 4, 8, 16; vector
  /// loads: the widths the unit has). Empty when the shape fixes it.
  std::vector<int64_t> accessBytes;
  /// Every access must be aligned to its own size.
  bool naturallyAligned = false;
  std::optional<TmaLimits> tma;
  std::optional<TensorELimits> tensorE;
  std::optional<DmaLimits> dma;

  const AtomOperand *findOperand(llvm::StringRef name) const;
  bool isMultiply() const { return m > 0; }
};

/// What a schedule looks for. Empty strings and zero sizes match anything.
struct AtomQuery {
  AtomKind kind;
  /// The element type the data has ("f16"; matches an atom's "b16").
  llvm::StringRef elementType;
  llvm::StringRef accumulatorType;
  int64_t m = 0, n = 0, k = 0;

  bool matches(const InstructionAtom &atom) const;
};

} // namespace axe

#endif // AXE_TARGET_INSTRUCTIONATOM_H
