//===- InstanceView.h - Emit the elements one instance holds ----*- C++ -*-===//
//
// The per-instance view of a layout (axe/Layout/InstanceView.h) as IR: given
// the run-time coordinates of one instance (a lane, a warp, a partition; e.g.
// from ThreadTargetCodegen::axisValue), the logical indices of the elements it
// holds and where it keeps them, as index Values. Triton's emitIndices plays
// this role there. The instance's coordinates fix a logical base once; each
// element adds a constant (unrolled code, registers) or a loop's step to it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_INSTANCEVIEW_H
#define AXE_CODEGEN_INSTANCEVIEW_H

#include "axe/Codegen/LayoutEmitter.h"
#include "axe/Layout/InstanceView.h"

namespace axe {

/// What the coordinates of one instance fix.
struct InstanceBase {
  /// The logical index of its local element 0, per dim. Meaningful only
  /// where `holds` is true.
  llvm::SmallVector<mlir::Value, 4> logical;
  /// i1: whether the instance holds any element.
  mlir::Value holds;
  /// i1: whether it holds them and is the first of their holders on the
  /// instance axes (every replica digit 0). Where several instances hold an
  /// element, this one writes it to memory: plain stores of one byte by
  /// several threads race even when the values agree.
  mlir::Value primary;
};

/// One element an instance holds.
struct InstanceElement {
  /// Its local index, one digit per dim of InstanceView::localShape().
  llvm::SmallVector<mlir::Value, 4> localIndex;
  /// Its logical index, per dim.
  llvm::SmallVector<mlir::Value, 4> logical;
  /// Where the instance keeps it on the storage axes, before the swizzle
  /// and without storage replicas (InstanceEmitter::storage and
  /// forEachPlacement add them).
  CoordValue unswizzled;
};

class InstanceEmitter {
public:
  /// Fails where InstanceView::get does.
  static Result<InstanceEmitter> get(const Layout &layout,
                                     llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<std::string> instanceAxes);

  const InstanceView &view() const { return instanceView; }
  /// The emitter of the local layout over view().localShape(): one dim per
  /// local iter, for callers that build their own iteration space over it.
  const LayoutEmitter &local() const { return localEmitter; }

  /// The base of the instance at `instance` (one Value per instance axis;
  /// an absent axis is 0, as in a layout).
  InstanceBase emitBase(mlir::OpBuilder &b, mlir::Location loc,
                        const CoordValue &instance) const;

  /// Local element `j` (in [0, view().localSize())): constant offsets from
  /// the base and a constant storage coordinate, for unrolled code.
  InstanceElement emitElement(mlir::OpBuilder &b, mlir::Location loc,
                              const InstanceBase &base, int64_t j) const;
  /// The local element at the local indices `localIndex` (one Value per dim
  /// of view().localShape()).
  InstanceElement emitElement(mlir::OpBuilder &b, mlir::Location loc,
                              const InstanceBase &base,
                              mlir::ValueRange localIndex) const;
  /// Runs `body` once per local element in a scf.for nest over the local
  /// iters (none for a single element). The caller guards it with
  /// `base.holds` where an instance may hold nothing.
  void emitLoop(mlir::OpBuilder &b, mlir::Location loc,
                const InstanceBase &base,
                llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                        const InstanceElement &)>
                    body) const;

  /// The element's first storage placement, swizzled: where to read it.
  CoordValue storage(mlir::OpBuilder &b, mlir::Location loc,
                     const InstanceElement &e) const;
  /// Calls `fn` with each storage placement of the element, swizzled: where
  /// to write it.
  void
  forEachPlacement(mlir::OpBuilder &b, mlir::Location loc,
                   const InstanceElement &e,
                   llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                           const CoordValue &)>
                       fn) const;

private:
  InstanceEmitter(InstanceView view, LayoutEmitter local)
      : instanceView(std::move(view)), localEmitter(std::move(local)) {}

  InstanceView instanceView;
  LayoutEmitter localEmitter;
};

} // namespace axe

#endif // AXE_CODEGEN_INSTANCEVIEW_H
