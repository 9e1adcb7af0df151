//===- LoopNest.h - Loop nests over iteration spaces ------------*- C++ -*-===//
//
// The questions every schedule asks of an iteration space before it picks an
// instruction width: may `lanes` steps of a loop move as one contiguous access
// for an operand (a vector load, a 16-byte cp.async, a TMA box row, a DMA
// descriptor's inner dim), or does the operand not move along it (a
// broadcast)? And the scf loop nests that run the space.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_LOOPNEST_H
#define AXE_CODEGEN_LOOPNEST_H

#include "axe/Codegen/LayoutEmitter.h"

namespace axe {

/// A run-time offset added to an operand's m coordinate before its swizzle
/// (a slice at a dynamic start), as far as vector legality needs to know it.
struct DynamicOffset {
  bool present = false;
  /// A known divisor of the offset; 0 when none is known.
  int64_t alignment = 0;
};

/// Whether operand `k` reads or writes `lanes` consecutive steps of loop `v`
/// as one contiguous run of memory, for every value of the other loops (and
/// every replica when `replicas`). Swizzles keep runs of 2^M together, so a
/// swizzled run must also start aligned.
/// Whether every run of `lanes` steps of loop `v` in operand `k` starts on
/// a multiple of `lanes` on m, as far as the layout says: its offset, the
/// other loops' strides (and the replicas' when `replicas`) are multiples
/// of `lanes`. Run-time offsets are the caller's to check.
bool alignedAlong(const IterSpace &space, unsigned v, unsigned k, int64_t lanes,
                  bool replicas);

bool contiguousAlong(const IterSpace &space, unsigned v, unsigned k,
                     int64_t lanes, bool replicas,
                     const DynamicOffset &offset = {});

/// Whether operand `k` does not move along loop `v` (a broadcast read).
bool constantAlong(const IterSpace &space, unsigned v, unsigned k);

/// Emits one scf.for per loop in `order` (outermost first), skipping loops of
/// extent 1; `ivs` holds each loop's induction variable (null when absent).
void emitNest(mlir::OpBuilder &b, mlir::Location loc, const IterSpace &space,
              llvm::ArrayRef<unsigned> order,
              llvm::SmallVectorImpl<mlir::Value> &ivs,
              llvm::function_ref<void(mlir::OpBuilder &)> body);

/// Like emitNest, carrying one value through the loops (a reduction).
mlir::Value emitCarryNest(
    mlir::OpBuilder &b, mlir::Location loc, const IterSpace &space,
    llvm::ArrayRef<unsigned> order, llvm::SmallVectorImpl<mlir::Value> &ivs,
    mlir::Value init,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Value)> body);

/// Moves loop `from` to the end of the loop list, keeping the others in
/// order; the caller's indices past `from` shift down by one.
void moveToEnd(IterSpace &space, unsigned from);

/// Every loop index of `space` not in `skip`, in order.
llvm::SmallVector<unsigned> allLoopsExcept(const IterSpace &space,
                                           llvm::ArrayRef<unsigned> skip);

/// 0, 1, ..., n-1.
llvm::SmallVector<unsigned, 4> iota(unsigned n);

} // namespace axe

#endif // AXE_CODEGEN_LOOPNEST_H
