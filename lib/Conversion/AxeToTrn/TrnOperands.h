//===- TrnOperands.h - axe buffers as trn tile views ------------*- C++ -*-===//
//
// Where a buffer's elements are on a NeuronCore, as the trn schedules use
// it. An SBUF or PSUM buffer is stored as one tile of [partitions, free
// elements] (its Bank iters count 2 KiB of free bytes each); an HBM buffer
// is its memref in #trn.space<hbm>. Every iter of the buffer's layout is
// then a linear stride in that storage, so any box of the buffer, its dims
// in any order, is one memref.reinterpret_cast of the storage: the views
// trn instructions take.
//
// An operator's operands are refined against each other into one
// iteration space (OpSpace): per logical dim, the common refinement of the
// operands' iters, so every space iter moves every operand by one stride.
// A schedule picks the space iters its instruction covers; the others
// become loops (emitSpaceLoops).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_CONVERSION_AXETOTRN_TRNOPERANDS_H
#define AXE_LIB_CONVERSION_AXETOTRN_TRNOPERANDS_H

#include "axe/Codegen/BufferRef.h"
#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Dialect/Trn/IR/TrnDialect.h"
#include "axe/Layout/Result.h"
#include "axe/Layout/TileLayout.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace axe::trnconv {

/// What an iter of a buffer's layout moves: the partition, the free
/// elements of a partition (Bank iters included, as free bytes), or the
/// elements of an HBM memref.
enum class IterKind { Partition, Free, Bank, Memory };

/// One iter of an operand: extent and stride in elements of its storage.
struct StorageIter {
  int64_t extent = 1;
  int64_t stride = 0;
  IterKind kind = IterKind::Free;
};

/// A buffer operand resolved to its storage.
struct TrnOperand {
  mlir::Value buffer;
  /// The buffer resolved through its slices (BufferRef.h): the axe.alloc or
  /// axe.view holding its memory, its layout, shape and element type; the
  /// run-time offsets of its slice starts once materialize() emitted them.
  BufferRef ref;
  /// The storage memref (an SBUF/PSUM tile, or the HBM memref) and the
  /// element offset of the buffer's origin in it: set by materialize().
  mlir::Value base;
  mlir::Value offset;
  /// The part of the offset known statically.
  int64_t staticOffset = 0;
  trn::MemorySpace space = trn::MemorySpace::SBUF;
  /// ref.layout as the plain tile the engines address (no swizzle, no
  /// replicas: analyzeOperand checks).
  TileLayout layout;
  /// Free elements of a partition (the partition stride) of an SBUF/PSUM
  /// storage; 0 in HBM.
  int64_t pitch = 0;

  bool onChip() const { return space != trn::MemorySpace::HBM; }
};

/// The storage type of an axe buffer in SBUF or PSUM, or a failure saying
/// why it has none (a swizzle, replicas, an axis that is not P/F/Bank).
Result<mlir::MemRefType> getStorageType(BufferType type);

/// Resolves `buffer` (an axe.alloc or axe.view, through slices) from the
/// types alone, so a schedule can decide without emitting IR.
Result<TrnOperand> analyzeOperand(mlir::Value buffer);
/// Emits the operand's storage value and offset at `b`'s insertion point.
mlir::LogicalResult materialize(mlir::OpBuilder &b, mlir::Location loc,
                                TrnOperand &op);

/// One iter of an operator's iteration space: its logical dim, extent, and
/// what it moves in each operand (nothing when the operand broadcasts
/// along it).
struct SpaceIter {
  unsigned dim = 0;
  int64_t extent = 1;
  llvm::SmallVector<std::optional<StorageIter>, 4> at;
};

class OpSpace {
public:
  /// `dimOf[k][d]`: the space dim operand k's logical dim d runs along, or
  /// -1 when that dim has extent 1 (a broadcast or a kept reduced dim).
  static Result<OpSpace> build(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<const TrnOperand *> operands,
                               llvm::ArrayRef<llvm::SmallVector<int, 4>> dimOf);

  llvm::ArrayRef<SpaceIter> iters() const { return spaceIters; }
  const SpaceIter &iter(unsigned i) const { return spaceIters[i]; }
  unsigned size() const { return spaceIters.size(); }
  unsigned getNumOperands() const { return numOperands; }

  /// The iters that move operand k along `kind`.
  llvm::SmallVector<unsigned, 2> itersOfKind(unsigned k, IterKind kind) const;
  /// Splits iter i into (extent / inner, inner), adjacent, outer first.
  void split(unsigned i, int64_t inner);

  /// The view of operand k covering the space iters `viewIters` in that
  /// order, at loop offsets `offsets[k]` (null: none). Its dim 0 is the
  /// partition dim when the operand is on chip: a leading iter of kind
  /// Partition, or a dim of size 1 when none is given. `unitFreeDim` adds a
  /// trailing dim of size 1 (a [P, 1] per-partition scalar).
  mlir::Value view(mlir::OpBuilder &b, mlir::Location loc, const TrnOperand &op,
                   unsigned k, llvm::ArrayRef<unsigned> viewIters,
                   mlir::Value loopOffset, bool unitFreeDim = false) const;

private:
  llvm::SmallVector<SpaceIter, 8> spaceIters;
  unsigned numOperands = 0;
};

/// Emits scf.for loops over the space iters `loopIters` (outermost first)
/// and calls `body` inside them with each operand's element offset from
/// those loops and the loop ivs (one per loop iter).
void emitSpaceLoops(
    mlir::OpBuilder &b, mlir::Location loc, const OpSpace &space,
    llvm::ArrayRef<unsigned> loopIters,
    llvm::function_ref<void(mlir::OpBuilder &, llvm::ArrayRef<mlir::Value>,
                            llvm::ArrayRef<mlir::Value>)>
        body);

/// A tile in SBUF for intermediate values of `partitions` x `free`.
mlir::Value allocTemp(mlir::OpBuilder &b, mlir::Location loc,
                      int64_t partitions, llvm::ArrayRef<int64_t> free,
                      mlir::Type elementType,
                      trn::MemorySpace space = trn::MemorySpace::SBUF);

} // namespace axe::trnconv

#endif // AXE_LIB_CONVERSION_AXETOTRN_TRNOPERANDS_H
