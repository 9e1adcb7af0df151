//===- OperatorShapes.h - Shape rules of the collective operators -*- C++
//-*-===//
//
// How the operands of copy, gemm, reduce and elementwise relate by shape:
// which dim of a gemm operand is M, N or K, which source dim a reduce target
// runs along, which outputs' shape an elementwise input broadcasts to. The
// verifiers report the failures unchanged (after "'axe.op' op "), and code
// generators use the same answers, so the two cannot drift apart. Plain C++
// over shapes: no MLIR types, so every layer above the dialect can use it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_DIALECT_AXE_IR_OPERATORSHAPES_H
#define AXE_DIALECT_AXE_IR_OPERATORSHAPES_H

#include "axe/Layout/Result.h"
#include "axe/Layout/TileLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <array>

namespace axe {

//===----------------------------------------------------------------------===//
// copy
//===----------------------------------------------------------------------===//

/// A copy needs the same logical shape on both sides (layouts may differ).
Result<bool> checkCopyShapes(llvm::ArrayRef<int64_t> source,
                             llvm::ArrayRef<int64_t> target);

//===----------------------------------------------------------------------===//
// gemm: C (M x N) += A (M x K) x B (K x N)
//===----------------------------------------------------------------------===//

enum class GemmDim : unsigned { M = 0, N = 1, K = 2 };
enum class GemmOperand { A, B, C };

/// The problem dim that each of the two dims of `operand` spans: A is
/// (M, K), B (K, N), C (M, N); a transposed operand swaps the pair.
std::array<GemmDim, 2> gemmOperandDims(GemmOperand operand, bool transposed);

/// The extent of `dim` in the rank-2 `shape` of `operand`; `dim` must be one
/// the operand spans.
int64_t gemmExtent(llvm::ArrayRef<int64_t> shape, GemmOperand operand,
                   bool transposed, GemmDim dim);

/// A gemm whose operand shapes agree.
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false;

  int64_t extent(GemmDim dim) const;
  /// gemmOperandDims with this problem's transposes.
  std::array<GemmDim, 2> dimsOf(GemmOperand operand) const;
};

/// M, N and K of the operand shapes, or why they do not form a gemm: an
/// operand not of rank 2, K of A and B differing, C not M x N.
Result<GemmProblem> gemmProblem(llvm::ArrayRef<int64_t> a, bool transposeA,
                                llvm::ArrayRef<int64_t> b, bool transposeB,
                                llvm::ArrayRef<int64_t> c);

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

/// The reduced dims are at least one, in range and strictly increasing.
Result<bool> checkReduceDims(int64_t rank, llvm::ArrayRef<int64_t> dims);

/// How a reduce target indexes its source.
struct ReduceMapping {
  /// Per source dim, whether it is reduced.
  llvm::SmallVector<bool, 4> reduced;
  /// Whether the target keeps the reduced dims with extent 1 (else it drops
  /// them, a rank-0 target when every dim is reduced).
  bool keepDims = false;
  /// Per target dim, the source dim it runs along.
  llvm::SmallVector<unsigned, 4> targetDims;
};

/// The target shape with the reduced dims kept as 1.
Shape reduceShapeKeepingDims(llvm::ArrayRef<int64_t> source,
                             llvm::ArrayRef<int64_t> dims);
/// The target shape with the reduced dims dropped.
Shape reduceShapeDroppingDims(llvm::ArrayRef<int64_t> source,
                              llvm::ArrayRef<int64_t> dims);

/// The mapping of a reduce of `source` over `dims` into `target`, or why
/// there is none (bad dims, a target shape of neither form).
Result<ReduceMapping> reduceMapping(llvm::ArrayRef<int64_t> source,
                                    llvm::ArrayRef<int64_t> dims,
                                    llvm::ArrayRef<int64_t> target);

//===----------------------------------------------------------------------===//
// elementwise
//===----------------------------------------------------------------------===//

/// Whether an input of shape `from` broadcasts to `to`: the same rank, each
/// dim equal or 1 (a row maximum against its tile).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// The shape an elementwise operator runs over (its outputs'), or why the
/// operands do not fit: no output, an input that does not broadcast to it,
/// outputs of different shapes.
Result<Shape> elementwiseShape(llvm::ArrayRef<llvm::ArrayRef<int64_t>> inputs,
                               llvm::ArrayRef<llvm::ArrayRef<int64_t>> outputs);

} // namespace axe

#endif // AXE_DIALECT_AXE_IR_OPERATORSHAPES_H
