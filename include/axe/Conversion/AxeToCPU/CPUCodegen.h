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

#include "axe/Dialect/Axe/Transforms/LayoutCodegen.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Region.h"

namespace axe {

/// A tile as the CPU code sees it: the layout and logical shape from its
/// type, the 1-D memref holding its storage, and where it sits in it.
struct CPUBuffer {
  Layout layout;
  Shape shape;
  mlir::Type elementType;
  /// A rank-1 memref of elementType (any strided form with unit stride).
  mlir::Value memory;
  /// How coordinates map into `memory`.
  StoragePlan storage = StoragePlan::linear(0);
  /// Run-time offsets added before the swizzle (dynamic region starts).
  CoordValue extra;
  /// A known divisor of the run-time offset on m (0 when there is none), so
  /// swizzled vector accesses can be proven not to cross a swizzle block.
  int64_t extraAlignment = 0;
};

/// Knobs of the emitted code.
struct CPUCodegenOptions {
  /// Vector lanes for 32-bit elements (scaled for other widths); 1 disables
  /// vectorization.
  int64_t vectorLanes32 = 8;
  /// Enables the in-register transpose when the two sides of a copy are
  /// contiguous along different loops.
  bool transposeVectors = true;
  /// Elements along each of the two transposed loops in one cache block of
  /// the in-register transpose (its tiles run inside the block); at most the
  /// vector width disables blocking.
  int64_t transposeBlock = 128;
};

/// How a reduction combines two elements (mirrors the dialect's reduce kinds;
/// this file does not depend on the dialect).
enum class Combiner { Sum, Max, Min, Prod };

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

/// C (+)= A x B by a scalar loop nest straight on the layouts.
Result<bool> emitGemmNaive(mlir::OpBuilder &b, mlir::Location loc,
                           const CPUBuffer &a, bool transA, const CPUBuffer &bb,
                           bool transB, const CPUBuffer &c, bool accumulate);

/// C (+)= A x B: packs A and B (through layout copies) into f32 panels,
/// runs a register-blocked vector micro-kernel, and unpacks C.
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

/// Converts a scalar or vector of one element type to another (ext, trunc,
/// int <-> float); identity when equal.
mlir::Value castElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type elementType);

/// The identity of a reduction for an element type.
mlir::Value reductionIdentity(mlir::OpBuilder &b, mlir::Location loc,
                              Combiner kind, mlir::Type elementType);
mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc, Combiner kind,
                    mlir::Value x, mlir::Value y);

/// Scratch memory of `size` elements for the duration of the enclosing CTA
/// body (the nearest scf.parallel / function body): allocated at its start
/// and freed at its end, so no loop allocates.
mlir::Value allocScratch(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type elementType, int64_t size);

} // namespace axe

#endif // AXE_CONVERSION_AXETOCPU_CPUCODEGEN_H
