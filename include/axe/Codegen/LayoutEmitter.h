//===- LayoutEmitter.h - Emit layout address arithmetic as IR ---*- C++ -*-===//
//
// Turns the layout algebra into arith IR: the physical coordinate of a logical
// coordinate (digits from group(), strides, swizzle XOR, replicas) and
// iteration spaces whose loops step every operand's address linearly. Every
// schedule on every target computes addresses through this file; none writes
// its own formula. Where a coordinate lives (a flat CPU array, a shared-memory
// address, a register slot) is the backend's decision, not this file's.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_LAYOUTEMITTER_H
#define AXE_CODEGEN_LAYOUTEMITTER_H

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Swizzle.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"

#include <map>
#include <string>

namespace axe {

/// An index constant, reusing an existing one in the same block when cheap
/// folding allows (createOrFold keeps emitted IR free of dead constants).
mlir::Value indexConstant(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// a + b, a * c, folding constants and the identities 0 and 1.
mlir::Value addIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                     mlir::Value c);
mlir::Value mulIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                     int64_t c);

/// A physical coordinate in IR: one index Value per axis; an absent axis is
/// 0. Ordered by axis name so emitted IR is deterministic.
class CoordValue {
public:
  /// The value on `axis`, or a null Value when it is 0.
  mlir::Value lookup(llvm::StringRef axis) const;
  /// The value on `axis`, materializing 0 when absent.
  mlir::Value get(mlir::OpBuilder &b, mlir::Location loc,
                  llvm::StringRef axis) const;
  void set(llvm::StringRef axis, mlir::Value v);
  void add(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef axis,
           mlir::Value v);
  void add(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef axis,
           int64_t v);
  void add(mlir::OpBuilder &b, mlir::Location loc, const Coord &c);
  void add(mlir::OpBuilder &b, mlir::Location loc, const CoordValue &c);

  const std::map<std::string, mlir::Value> &entries() const { return values; }

private:
  std::map<std::string, mlir::Value> values;
};

/// Applies Swizzle(M, B, S) to a linear address `m` (docs/LayoutSemantics.md
/// section 9): bits [M, M+B) of m are XORed with bits [M+S, M+S+B).
mlir::Value emitSwizzle(mlir::OpBuilder &b, mlir::Location loc,
                        const Swizzle &swizzle, mlir::Value m);

/// Emits the placement of a layout that admits a static logical shape.
class LayoutEmitter {
public:
  static Result<LayoutEmitter> get(const Layout &layout,
                                   llvm::ArrayRef<int64_t> shape);

  const Layout &layout() const { return fullLayout; }
  const GroupedLayout &grouped() const { return groupedLayout; }
  llvm::ArrayRef<int64_t> shape() const { return tileShape; }
  unsigned rank() const { return tileShape.size(); }

  /// Adds to `acc` the contribution of logical `index` along `dim` (the
  /// digits of index over the dim's block of iters, times their strides).
  void addDimContribution(mlir::OpBuilder &b, mlir::Location loc, unsigned dim,
                          mlir::Value index, CoordValue &acc) const;
  /// base(x) + O: the placement of logical coordinate `indices` without
  /// replicas and before the swizzle, plus `extra` (dynamic region offsets,
  /// which the swizzle must see, so they are added here).
  CoordValue emitUnswizzled(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::ValueRange indices,
                            const CoordValue *extra = nullptr) const;
  /// Applies the swizzle (if any) to the m entry of `c` in place.
  void applySwizzle(mlir::OpBuilder &b, mlir::Location loc,
                    CoordValue &c) const;
  /// Calls `fn` with every placement (replica) of the unswizzled coordinate
  /// `base`, swizzled. Few replicas are unrolled; many become scf.for loops.
  void
  forEachPlacement(mlir::OpBuilder &b, mlir::Location loc,
                   const CoordValue &base,
                   llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                           const CoordValue &)>
                       fn,
                   int64_t maxUnrolled = 16) const;

private:
  Layout fullLayout;
  GroupedLayout groupedLayout;
  Shape tileShape;
};

//===----------------------------------------------------------------------===//
// Iteration spaces shared by several operands
//===----------------------------------------------------------------------===//

/// How one operand's placement moves along one loop of an iteration space.
struct LoopStep {
  std::string axis = std::string(kDefaultAxis);
  int64_t stride = 0;
};

/// One loop: `extent` steps; `logicalStride` is what one step adds to the
/// logical index of dim `dim`; `steps[k]` is operand k's movement.
struct SpaceLoop {
  unsigned dim = 0;
  int64_t extent = 1;
  int64_t logicalStride = 1;
  llvm::SmallVector<LoopStep, 4> steps;
};

/// An operand of an iteration space: its emitter and, for each of its logical
/// dims, the space dim it runs along.
struct SpaceOperand {
  const LayoutEmitter *emitter = nullptr;
  llvm::SmallVector<unsigned, 4> dimOf;
};

/// The loops of a space over `shape`: per space dim, the common refinement of
/// every operand's digit decomposition (slowest first), so each loop moves
/// every operand by a constant stride. A dim whose decompositions do not
/// refine (e.g. 6 = 2x3 against 3x2) is one loop marked nonlinear; operand
/// placements along it are computed with digits at each step.
class IterSpace {
public:
  static IterSpace build(llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<SpaceOperand> operands);

  llvm::ArrayRef<int64_t> shape() const { return spaceShape; }
  llvm::ArrayRef<SpaceLoop> loops() const { return spaceLoops; }
  llvm::MutableArrayRef<SpaceLoop> loops() { return spaceLoops; }
  bool isLinear(unsigned dim) const { return linearDims[dim]; }
  llvm::ArrayRef<SpaceOperand> operands() const { return spaceOperands; }

  /// Splits loop `index` into (extent / inner, inner), both adjacent; the
  /// inner part keeps the strides, the outer one scales them.
  void split(unsigned index, int64_t inner);

  /// Unswizzled placement of operand `k` at loop ivs `ivs` (one per loop;
  /// a null Value means 0), plus `extra`.
  CoordValue emitPlacement(mlir::OpBuilder &b, mlir::Location loc, unsigned k,
                           mlir::ValueRange ivs,
                           const CoordValue *extra = nullptr) const;
  /// The logical index along each space dim at loop ivs `ivs`.
  llvm::SmallVector<mlir::Value> emitLogical(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::ValueRange ivs) const;

private:
  Shape spaceShape;
  llvm::SmallVector<SpaceLoop, 8> spaceLoops;
  llvm::SmallVector<bool, 4> linearDims;
  llvm::SmallVector<SpaceOperand, 4> spaceOperands;
};

} // namespace axe

#endif // AXE_CODEGEN_LAYOUTEMITTER_H
