//===- Program.h - A gpu.func decoded for the interpreter -------*- C++ -*-===//
//
// A kernel is decoded once into a flat list of instructions. Every SSA
// value gets a block of words in a warp's register file: element e of lane
// l of the value at `base` is word `base + e * 32 + l`. Structured control
// flow becomes marker instructions (If/Else/EndIf, For/EndFor,
// While/Cond/EndWhile) that the interpreter runs with active masks, so a
// warp's position is one instruction index plus a stack of frames and can
// stop at a barrier and resume later.
//
// A memref value takes 2 + 2 * rank words per lane: the buffer id, the
// offset in elements, the sizes and the strides.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_PROGRAM_H
#define AXE_GPUSIM_PROGRAM_H

#include "axe/GPUSim/Values.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>
#include <vector>

namespace axe::gpusim {

enum class Opc : uint8_t {
  // Structured control flow.
  If,
  Else,
  EndIf,
  IfYield,
  For,
  EndFor,
  While,
  Cond,
  EndWhile,
  Return,
  Barrier,
  // bar.arrive: in = barrier id, thread count.
  BarrierArrive,
  Nop,
  // Element-wise (a lane loop over `n` elements).
  IBin,
  FBin,
  IUn,
  FUn,
  Fma,
  CmpI,
  CmpF,
  Select,
  Cast,
  Gather,
  ExtractDyn,
  InsertDyn,
  VBitcast,
  Reduce,
  // Memory.
  Load,
  Store,
  Alloca,
  View,
  Dim,
  ExtractMeta,
  ExtractPtr,
  // gpu / nvvm.
  SReg,
  Shuffle,
  Vote,
  Redux,
  // nvgpu.
  LdMatrix,
  Mma,
  AsyncCopy,
  AsyncGroup,
  AsyncWait,
  MBarrier,
  Printf,
  // Raw pointers (llvm.ptr addresses) and the nvvm ops that take them.
  Gep,
  StMatrix,
  // sm_90: TMA loads, wgmma (a warpgroup collective) and its groups.
  TmaLoad,
  Wgmma,
  WgmmaCommit,
  WgmmaWait,
  // sm_100: tcgen05 (Inst::sub is a Tcgen05Op).
  Tcgen05,
  // sm_90 clusters: the cluster barrier (Inst::sub is a ClusterOp), mapa
  // and shared::cluster -> shared::cta casts.
  Cluster,
  Mapa,
  // Ordering between CTAs through global memory: llvm.atomicrmw add (in =
  // pointer, value; imm = address space, MemOrder) and fences (sub: a
  // FenceKind).
  AtomicAdd,
  Fence,
};

/// The ordering of an atomic access (imm of AtomicAdd, imm[2] of an atomic
/// llvm.load).
enum class MemOrder : uint8_t { Relaxed, Acquire, Release, AcqRel };

/// What a fence orders (Inst::sub of Opc::Fence): llvm.fence at GPU scope
/// or wider, and the generic / async proxy fence of global memory.
enum class FenceKind : uint8_t { Acquire, Release, AcqRel, AsyncProxy };

/// Sub-operations (Inst::sub).
enum class IBinOp : uint8_t {
  Add,
  Sub,
  Mul,
  DivS,
  DivU,
  RemS,
  RemU,
  FloorDivS,
  CeilDivS,
  CeilDivU,
  And,
  Or,
  Xor,
  Shl,
  ShrS,
  ShrU,
  MaxS,
  MaxU,
  MinS,
  MinU,
  MulHiS,
  MulHiU
};
enum class FBinOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  Pow,
  Atan2,
  CopySign
};
enum class IUnOp : uint8_t { AbsI, Ctlz, Cttz, Ctpop };
enum class FUnOp : uint8_t {
  Neg,
  Abs,
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log10,
  Log1p,
  Sqrt,
  Rsqrt,
  Tanh,
  Sin,
  Cos,
  Tan,
  Atan,
  Erf,
  Ceil,
  Floor,
  Round,
  RoundEven,
  Trunc
};
enum class CastOp : uint8_t {
  ExtS,
  ExtU,
  Trunc,
  SIToFP,
  UIToFP,
  FPToSI,
  FPToUI,
  FPToFP,
  Bitcast
};
enum class ReduceOp : uint8_t {
  Add,
  Mul,
  MinS,
  MinU,
  MaxS,
  MaxU,
  And,
  Or,
  Xor,
  MinF,
  MaxF,
  MinimumF,
  MaximumF
};
enum class ViewOp : uint8_t {
  Copy,
  Reinterpret,
  Subview,
  Collapse,
  Expand,
  ByteView
};
enum class SRegOp : uint8_t {
  TidX,
  TidY,
  TidZ,
  NTidX,
  NTidY,
  NTidZ,
  CtaIdX,
  CtaIdY,
  CtaIdZ,
  NCtaIdX,
  NCtaIdY,
  NCtaIdZ,
  LaneId,
  WarpId,
  NWarpId,
  // Clusters (sm_90): position in the cluster, its shape, the rank, the
  // cluster's position in the grid and the grid's shape in clusters.
  ClusterCtaIdX,
  ClusterCtaIdY,
  ClusterCtaIdZ,
  ClusterNCtaIdX,
  ClusterNCtaIdY,
  ClusterNCtaIdZ,
  ClusterCtaRank,
  ClusterNCtaRank,
  ClusterIdX,
  ClusterIdY,
  ClusterIdZ,
  NClusterIdX,
  NClusterIdY,
  NClusterIdZ
};
enum class ClusterOp : uint8_t { Arrive, ArriveRelaxed, Wait };
enum class ShuffleMode : uint8_t { Xor, Up, Down, Idx };
enum class VoteOp : uint8_t { Ballot, Any, All, Uni };
enum class MBarrierOp : uint8_t {
  Init,
  Arrive,
  ArriveNoComplete,
  ArriveExpectTx,
  ExpectTx,
  TestWait,
  TryWaitParity,
  Get
};

enum class Tcgen05Op : uint8_t {
  Alloc,
  Dealloc,
  Relinquish,
  Mma,
  Commit,
  Ld,
  St,
  Cp,
  Shift
};

/// Opc::Nop's `sub` for bar.warp.sync: the lanes of the warp are ordered.
constexpr uint8_t kWarpSyncNop = 1;

/// One instruction. `in` and `out` are register-file bases of operands and
/// results; `imm` and `imm2` hold static data whose meaning is per opcode.
struct Inst {
  Opc opc = Opc::Nop;
  uint8_t sub = 0;
  Kind kind = Kind::Int;  // element kind of the result (or stored value)
  Kind kind2 = Kind::Int; // element kind of the source (casts, compares)
  uint16_t bits = 64;     // integer width of kind (Int)
  uint16_t bits2 = 64;    // integer width of kind2 (Int)
  uint32_t n = 1;         // elements per lane of the result / access
  int32_t target = -1;    // jump target (control flow)
  int32_t target2 = -1;
  llvm::SmallVector<uint32_t, 4> in, out;
  llvm::SmallVector<int64_t, 4> imm, imm2;
};

/// A value's place in the register file.
struct Slot {
  uint32_t base = 0;
  uint32_t words = 1; // words per lane
};

/// How a kernel argument is passed.
struct ArgInfo {
  Slot slot;
  Kind kind = Kind::Int;
  unsigned bits = 64;
  bool isMemRef = false;
  mlir::Type type;
};

/// A workgroup or private buffer of the kernel (attribution, memref.global,
/// memref.alloca): its static shape and layout.
struct BufferDecl {
  int64_t bytes = 0;
  int64_t align = 0; // llvm.align of a workgroup attribution (0: none)
  unsigned rank = 0;
  llvm::SmallVector<int64_t, 4> sizes, strides;
  int64_t offset = 0;
  std::string name;
};

struct Program {
  /// Mutable: diagnostics are emitted on it.
  mutable mlir::gpu::GPUFuncOp func;
  std::string name;
  std::vector<Inst> code;
  std::vector<mlir::Operation *> ops; // per instruction
  uint32_t regWords = 0;              // words of one warp's register file
  struct Const {
    uint32_t base;
    llvm::SmallVector<uint64_t, 4> words; // per element
  };
  std::vector<Const> consts;
  std::vector<ArgInfo> args;
  /// Workgroup attributions and memref.globals in workgroup space: one
  /// buffer each per CTA; the slot gets its memref (globals: -1 slot).
  std::vector<std::pair<int64_t, BufferDecl>> shared; // (slot base or -1)
  /// Private attributions: one buffer each per lane.
  std::vector<std::pair<uint32_t, BufferDecl>> privates;
  /// memref.alloca sites (Inst::imm[0] indexes this).
  std::vector<BufferDecl> allocas;
  bool usesDynamicShared = false;
  /// gpu.printf formats (Inst::imm[0] indexes this).
  std::vector<std::string> formats;
};

/// Decodes `func`. Unsupported ops and types are reported on `func`'s
/// diagnostic engine and fail.
mlir::FailureOr<std::unique_ptr<Program>>
decodeKernel(mlir::gpu::GPUFuncOp func);

/// The op name an instruction counts under in statistics.
llvm::StringRef statName(const Program &p, size_t inst);

} // namespace axe::gpusim

#endif // AXE_GPUSIM_PROGRAM_H
