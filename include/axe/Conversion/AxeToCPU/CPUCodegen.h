//===- CPUCodegen.h - Collective operators as CPU loops ---------*- C++ -*-===//
//
// The bodies of the CPU schedules, independent of the axe ops: each takes
// buffers described by (layout, shape, flat storage) and emits scf / arith /
// memref / vector IR. A CTA runs as one CPU thread, so every axis of a layout
// (m, thread axes, ...) is a dim of the buffer's flat storage. The schedules
// adapt axe ops to these; tests and benchmarks call them directly too.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CONVERSION_AXETOCPU_CPUCODEGEN_H
#define AXE_CONVERSION_AXETOCPU_CPUCODEGEN_H

#include "axe/Codegen/ElementOperand.h"
#include "axe/Codegen/ElementOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Region.h"

#include <optional>

namespace axe {

/// A tile as the CPU code sees it: the layout and logical shape from its
/// type, the 1-D memref holding its storage (every axis its layout reaches
/// is a dim of it, StoragePlan), and the run-time offsets of its slice
/// starts.
using CPUBuffer = ElementOperand;

/// Knobs of the emitted code.
struct CPUCodegenOptions {
  /// Vector lanes for 32-bit elements (scaled for other widths); 1 disables
  /// vectorization.
  int64_t vectorLanes32 = 8;
  /// Vector registers of that width (sizes the gemm's register block).
  int64_t vectorRegisters = 16;
  /// Enables the in-register transpose when the two sides of a copy are
  /// contiguous along different loops.
  bool transposeVectors = true;
  /// Elements along the source's contiguous loop in one cache block of the
  /// in-register transpose (its tiles run inside the block); at most the
  /// vector width disables blocking.
  int64_t transposeBlock = 4096;
  /// The same along the destination's contiguous loop (rows of a row-major
  /// source): with the default, a block is a strip of 32 rows read along
  /// their length. 0 takes transposeBlock.
  int64_t transposeBlockDst = 32;
  /// Destinations of at least this many bytes take streaming
  /// (non-temporal) stores in the transpose, where each tile's addresses
  /// are aligned to the vector; 0 disables them.
  int64_t transposeStreamingBytes = 8 << 20;
  /// Lets the packed gemm keep B's packed panels from one CTA to the next
  /// (per worker, within a launch) instead of packing them in every CTA.
  bool reusePackedPanels = true;
};

/// dst[x] = src[x] at every placement of dst (every replica), reading any one
/// placement of src. Element types may differ (a cast is emitted).
Result<bool> emitCopy(mlir::OpBuilder &b, mlir::Location loc,
                      const CPUBuffer &src, const CPUBuffer &dst,
                      const CPUCodegenOptions &opts = {});

/// Whether emitCopy would vectorize (and how): for match reasons and tests.
std::string describeCopyPlan(const CPUBuffer &src, const CPUBuffer &dst,
                             const CPUCodegenOptions &opts = {});

/// dst[x] = value everywhere.
Result<bool> emitFill(mlir::OpBuilder &b, mlir::Location loc,
                      const CPUBuffer &dst, mlir::Value value,
                      const CPUCodegenOptions &opts = {});

/// M, N, K of C (MxN) = A (MxK) x B (KxN) by the verifier's rule
/// (gemmProblem), or why the operands do not form a gemm.
Result<GemmProblem> gemmShape(const CPUBuffer &a, bool transA,
                              const CPUBuffer &bb, bool transB,
                              const CPUBuffer &c);

/// `count` consecutive blocks of `rows` rows of C, the first at row `first`.
struct GemmRowBlocks {
  int64_t first = 0, count = 0, rows = 0;
};

/// How the packed gemm blocks an M x N x K problem: an `mr` x (`vectors` x
/// `lanes`) block of C in registers, over K blocks of `kc`.
struct GemmBlocking {
  int64_t lanes = 1, vectors = 1, mr = 1, kc = 1;
  /// Whether A is kept in micro-panels of `mr` rows (mr divides M). When
  /// the register file fits many more rows than the largest divisor of M,
  /// A is kept k-major instead, where a block of any height reads it, and
  /// a tail of lower blocks covers M % mr.
  bool aPanels = true;
  /// The register blocks covering M's rows, in order.
  llvm::SmallVector<GemmRowBlocks, 3> rowBlocks;
  int64_t nr() const { return vectors * lanes; }
};
GemmBlocking chooseGemmBlocking(int64_t m, int64_t n, int64_t k,
                                const CPUCodegenOptions &opts);

/// The layout (in the notation of parseLayout) in which the packed gemm
/// reads A (M x K, or K x M when `transA`) in place, and into which it packs
/// any other A; likewise for B (K x N, or N x K when `transB`). A kernel
/// that stages its operands in these layouts packs them with its copies.
std::string gemmPanelLayoutA(int64_t m, int64_t k, bool transA,
                             const GemmBlocking &g);
std::string gemmPanelLayoutB(int64_t k, int64_t n, bool transB,
                             const GemmBlocking &g);

/// Whether emitGemmPacked packs nothing: A and B already f32 in the panels
/// above, C f32 rows of unit stride. The buffers need only their layout,
/// shape, element type and storage (no memory), so a match step can ask.
bool gemmReadsPanelsInPlace(const CPUBuffer &a, bool transA, const CPUBuffer &b,
                            bool transB, const CPUBuffer &c,
                            const CPUCodegenOptions &opts = {});

/// C (+)= A x B by a scalar loop nest straight on the layouts.
Result<bool> emitGemmNaive(mlir::OpBuilder &b, mlir::Location loc,
                           const CPUBuffer &a, bool transA, const CPUBuffer &bb,
                           bool transB, const CPUBuffer &c, bool accumulate);

/// C (+)= A x B: B in f32 micro-panels, A in f32 micro-panels or in rows or
/// columns of unit stride (each read in place when its layout already is
/// one of these, else packed by a layout copy that widens f16 and bf16), a
/// register-blocked vector micro-kernel sized by `opts`, C in place when it
/// is row-major f32 (else through a row-major copy).
Result<bool> emitGemmPacked(mlir::OpBuilder &b, mlir::Location loc,
                            const CPUBuffer &a, bool transA,
                            const CPUBuffer &bb, bool transB,
                            const CPUBuffer &c, bool accumulate,
                            const CPUCodegenOptions &opts = {});

/// dst = reduce(src over `dims`) (combined with dst's old value when
/// `accumulate`). dst's shape is src's shape without `dims`, or with them as
/// 1 (`keepDims`).
Result<bool> emitReduce(mlir::OpBuilder &b, mlir::Location loc,
                        const CPUBuffer &src, const CPUBuffer &dst,
                        llvm::ArrayRef<int64_t> dims, Combiner kind,
                        bool accumulate, const CPUCodegenOptions &opts = {});

/// (outputs[0][x], ...) = body(inputs[0][x], ..., inputs[n-1][x]); an input
/// dim of extent 1 broadcasts along the outputs' dim. `body`
/// has one block with one scalar argument per input and a terminator
/// yielding one value per output; it is cloned per element (per vector of
/// elements when every op in it is elementwise arith/math).
Result<bool> emitElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             llvm::ArrayRef<CPUBuffer> inputs,
                             llvm::ArrayRef<CPUBuffer> outputs,
                             mlir::Region &body,
                             const CPUCodegenOptions &opts = {});

/// `lanes` elements (a scalar when 1) at element `addr` of the flat memref
/// `memory`, and the store back.
mlir::Value loadCPUElements(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value memory, mlir::Value addr,
                            mlir::Type elementType, int64_t lanes);
void storeCPUElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                      mlir::Value memory, mlir::Value addr);

/// Scratch memory of `size` elements for the duration of the enclosing
/// allocation scope (a CTA: the kernel body or its alloca scope; else the
/// function): allocated at its start, so no loop allocates, on the stack
/// while the scope's stack allocations stay within 1 MiB, else on the heap
/// and freed at its end. CTAs running in parallel each get their own.
mlir::Value allocScratch(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type elementType, int64_t size);

/// The attributes by which convert-axe-to-cpu recognizes per-worker memory
/// (allocPerWorker) at the start of a kernel's body.
constexpr llvm::StringLiteral kPerWorkerAttr = "axe_cpu_per_worker";
constexpr llvm::StringLiteral kPerWorkerFillAttr = "axe_cpu_per_worker_fill";
/// The grid dim a worker's CTAs should run fastest in (per-worker memory
/// reused by CTAs that differ in that dim only).
constexpr llvm::StringLiteral kPerWorkerFastestAttr =
    "axe_cpu_per_worker_fastest";

/// The `axe.kernel` whose body holds `block` (at any depth), or null.
mlir::Operation *enclosingKernel(mlir::Block *block);

/// Memory that a CPU worker (a thread running a run of a kernel's CTAs one
/// after another) keeps from one of its CTAs to the next within a launch:
/// a heap allocation of `type` at the start of the enclosing `axe.kernel`'s
/// body, marked so that convert-axe-to-cpu allocates it when the worker
/// starts, fills it with `fill` (if given), and frees it when the worker
/// ends. Null outside a kernel.
mlir::Value allocPerWorker(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::MemRefType type,
                           std::optional<int64_t> fill = std::nullopt);

} // namespace axe

#endif // AXE_CONVERSION_AXETOCPU_CPUCODEGEN_H
