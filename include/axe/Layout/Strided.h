//===- Strided.h - Layouts that are plain strides on m ----------*- C++ -*-===//
//
// The layouts a memref's strides give: one iter per dim, all on the memory
// axis m. Backends build them (a row-major box) and recognize them (a memory
// operand they can address with one multiply-add per dim).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_STRIDED_H
#define AXE_LAYOUT_STRIDED_H

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace axe {

/// The dense row-major layout of `shape` on m: the last dim of stride 1,
/// each other dim's stride the product of the extents after it.
TileLayout rowMajorLayout(llvm::ArrayRef<int64_t> shape);

/// A layout's m stride per dim and its offset on m.
struct PlainStrides {
  llvm::SmallVector<int64_t, 4> strides;
  int64_t offset = 0;
};

/// The strides of `grouped` (a layout grouped by its shape's `rank` dims)
/// when every dim has at most one iter of extent above 1, on m, and the
/// layout has no replica and no offset off m; nullopt otherwise. A dim of
/// extent 1 gets stride 0.
std::optional<PlainStrides> plainStrides(const GroupedLayout &grouped,
                                         unsigned rank);

/// The layout of a buffer of `shape` that an operator broadcasts to
/// `fullShape` (each dim equal, or 1 where it broadcasts), placed so that
/// whoever holds an element of `full` also holds its source: the iters of
/// each broadcast dim leave the shard, those on axes other than m (threads,
/// lanes, warps) becoming replicas, and the m iters that stay are packed
/// densely in the order of their strides. Fails when a dim neither matches
/// nor is 1, or when `full` does not group by `fullShape`.
Result<TileLayout> broadcastSourceLayout(const TileLayout &full,
                                         llvm::ArrayRef<int64_t> fullShape,
                                         llvm::ArrayRef<int64_t> shape);

} // namespace axe

#endif // AXE_LAYOUT_STRIDED_H
