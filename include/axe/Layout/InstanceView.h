//===- InstanceView.h - The elements one instance of a layout holds -*- C++
//-*-//
//
// A register fragment is a layout over thread axes and storage axes, e.g. the
// mma.sync A operand S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]. Code
// runs per instance (one lane, one warp, one partition): it needs the
// elements that instance holds, their logical coordinates and where it keeps
// them. This is that view (Triton's emitIndices plays the role there).
//
// Given the instance axes A, each placement p of element x
// (docs/LayoutSemantics.md section 2) splits into p|A, the instance that holds
// x, and the rest, where that instance keeps it. A shard iter on an axis of A
// with a non-zero stride is *fixed* by the instance: its digit is solved from
// the instance's coordinate. Every other shard iter is *local*: the instance
// holds each of its values. So the elements of instance t are
//
//   x(t, j) = base(t) + sum over local iters k of digit_k(j) * place_k
//
// for a local index j over the local iters, kept at local(j), a layout over
// the storage axes (the local iters' strides, the replicas and offset on
// storage axes, the swizzle). Replica iters on instance axes make several
// instances hold one element: each holds it, the replica digit is solved
// and dropped. An element held twice by one instance (overlapping iters on
// an instance axis) or a swizzle of an instance axis cannot be written this
// way, and get() says so.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_INSTANCEVIEW_H
#define AXE_LAYOUT_INSTANCEVIEW_H

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Swizzle.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace axe {

/// A digit that an instance's coordinate on one axis fixes (see
/// InstanceAxis for how it is solved). The iter's own digit is the solved
/// digit, or extent - 1 minus it when the iter's stride is negative
/// (`reversed`).
struct InstanceDigit {
  int64_t extent = 1;
  /// |stride| of the iter on the axis, > 0.
  int64_t stride = 1;
  bool reversed = false;
  /// A replica iter: it decides which instances hold an element but not
  /// which element. Otherwise a shard iter of logical dim `dim`, one step of
  /// which adds `logicalStride` to the index along that dim.
  bool replica = false;
  unsigned dim = 0;
  int64_t logicalStride = 0;
};

/// How one instance axis fixes digits: u = coordinate - offset is
/// sum digit * stride over `digits`, in ascending stride order, each stride
/// at least the previous one times its extent, so in at most one way. The
/// digits are found from the largest stride down: digit = rest div stride,
/// then rest = rest mod stride (rest starts at u); the instance holds
/// elements when u >= 0, every digit is below its extent and nothing is
/// left.
struct InstanceAxis {
  std::string axis;
  int64_t offset = 0;
  llvm::SmallVector<InstanceDigit, 4> digits;
  /// The digits' strides overlap (a stride below the previous one times its
  /// extent, e.g. 2 and 3 over extents 2), yet every coordinate is one sum
  /// of digits at most: the digits are found by searching the few sums
  /// (forEachCombination) instead of by division.
  bool tabled = false;
  /// Most digit combinations a tabled axis may have.
  static constexpr int64_t kMaxTabled = 64;
  /// Calls `fn` with each combination of digits (one per entry of
  /// `digits`, before `reversed`) and the coordinate less the offset it
  /// stands for.
  void forEachCombination(
      llvm::function_ref<void(llvm::ArrayRef<int64_t>, int64_t)> fn) const;

  /// Strides 1, e0, e0*e1, ...: exactly the coordinates [offset, offset +
  /// count()) hold elements.
  bool dense() const;
  /// The number of coordinates on the axis that hold elements.
  int64_t count() const;
  /// The digits of coordinate `t` (one per entry of `digits`, before
  /// `reversed`), or nothing when an instance at `t` holds no element.
  std::optional<llvm::SmallVector<int64_t, 4>> solve(int64_t t) const;
};

/// A shard iter the instance does not fix: it holds every value of its digit.
struct LocalIter {
  unsigned dim = 0;
  int64_t logicalStride = 0;
  /// The iter's walk on its storage axis (stride 0 on m when it moves
  /// nothing, e.g. a stride-0 iter of an instance axis).
  Iter storage;
};

/// One element an instance holds.
struct HeldElement {
  int64_t localIndex = 0;
  Shape logical;
  /// Every place the instance keeps it (several with replicas on storage
  /// axes), swizzled, sorted.
  llvm::SmallVector<Coord, 1> storage;
};

class InstanceView {
public:
  /// The view of `layout` over `shape` per instance of the axes
  /// `instanceAxes` (e.g. {laneid, warpid}); the other axes are storage.
  /// Fails when the shape is not admitted, the layout does not group by it,
  /// an instance axis is swizzled, or the iters on one instance axis
  /// overlap (each stride must be at least the previous one times its
  /// extent), where an instance could hold an element twice.
  static Result<InstanceView> get(const Layout &layout,
                                  llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<std::string> instanceAxes);

  llvm::ArrayRef<int64_t> shape() const { return logicalShape; }
  /// One entry per instance axis, sorted by name.
  llvm::ArrayRef<InstanceAxis> instanceAxes() const { return axes; }
  bool isInstanceAxis(llvm::StringRef axis) const;
  /// The local iters, in shard order (slowest first).
  llvm::ArrayRef<LocalIter> localIters() const { return iters; }
  /// Local index -> storage placements. Admits localShape().
  const Layout &local() const { return localLayout; }
  /// One dim per local iter ({1} when there is none), so that the local
  /// index's digits are the local iters' digits.
  Shape localShape() const;
  /// The number of elements each instance that holds any holds.
  int64_t localSize() const { return localLayout.size(); }
  /// How many instances hold each element (its replicas on instance axes).
  int64_t holdersPerElement() const;

  /// The logical coordinate of local element 0 of the instance at
  /// `instance` (its coordinates on the instance axes; other axes are
  /// ignored), or nothing when that instance holds no element.
  std::optional<Shape> instanceBase(const Coord &instance) const;
  /// What local index `j` adds to the instance base, per dim.
  Shape localOffset(int64_t j) const;
  /// Everything the instance at `instance` holds, by local index; empty when
  /// it holds nothing.
  llvm::SmallVector<HeldElement> elementsOf(const Coord &instance) const;

private:
  Shape logicalShape;
  llvm::SmallVector<InstanceAxis, 2> axes;
  llvm::SmallVector<LocalIter, 4> iters;
  Layout localLayout;
};

} // namespace axe

#endif // AXE_LAYOUT_INSTANCEVIEW_H
