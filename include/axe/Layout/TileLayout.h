//===- TileLayout.h - The Axe tile layout (shard, replica, offset) -*- C++ -*-//
//
// A TileLayout maps a flat logical index to a *set* of physical coordinates
// over named axes (docs/LayoutSemantics.md sections 1-2). This header holds the
// object and its direct queries; the algebra on it lives in Algebra.h.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_TILELAYOUT_H
#define AXE_LAYOUT_TILELAYOUT_H

#include "axe/Layout/Axis.h"
#include "axe/Layout/Result.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace axe {

/// A logical shape (row-major). Tiles have static shapes.
using Shape = llvm::SmallVector<int64_t, 4>;

/// A strided walk 0, s, 2s, ..., (e-1)s on one axis.
struct Iter {
  int64_t extent = 1;
  int64_t stride = 0;
  std::string axis = std::string(kDefaultAxis);

  bool operator==(const Iter &other) const {
    return extent == other.extent && stride == other.stride &&
           axis == other.axis;
  }
  bool operator!=(const Iter &other) const { return !(*this == other); }
};

using IterList = llvm::SmallVector<Iter, 4>;

class TileLayout {
public:
  /// The layout of a single element at the origin: S[1 : 1].
  TileLayout() = default;

  /// Builds a layout, checking that every extent is >= 1, every axis name is
  /// valid, and that the size and every reachable coordinate fit in int64.
  static Result<TileLayout> create(IterList shard, IterList replica = {},
                                   Coord offset = {});

  llvm::ArrayRef<Iter> shard() const { return shardIters; }
  llvm::ArrayRef<Iter> replica() const { return replicaIters; }
  const Coord &offset() const { return offsetCoord; }

  /// Product of the shard extents: the number of logical elements.
  int64_t size() const;
  /// Product of the replica extents: how many placements each element has.
  int64_t replicaCount() const;
  /// Whether a logical shape has exactly size() elements.
  bool admits(llvm::ArrayRef<int64_t> shape) const;
  /// Every axis the layout mentions (shard, replica, offset), sorted by name.
  llvm::SmallVector<std::string, 4> axes() const;

  /// base(f) + O: the placement of flat index `flat` without replicas.
  /// Requires 0 <= flat < size().
  Coord applyBase(int64_t flat) const;
  /// The set of replica displacements Rset ({0} without replicas).
  llvm::SmallVector<Coord, 4> replicaOffsets() const;
  /// L(f): every placement of flat index `flat`, sorted. Requires
  /// 0 <= flat < size().
  llvm::SmallVector<Coord, 4> apply(int64_t flat) const;
  /// L(x) for a logical coordinate of an admitted shape.
  Result<llvm::SmallVector<Coord, 4>>
  apply(llvm::ArrayRef<int64_t> coord, llvm::ArrayRef<int64_t> shape) const;

  /// The flat logical index whose image contains `physical`, or a failure
  /// when `physical` is not in the image. Replicas map back to the same
  /// element. When several indices reach `physical` (a non-injective shard),
  /// the smallest is returned.
  Result<int64_t> inverse(const Coord &physical) const;
  /// inverse() unflattened into a logical coordinate of `shape`.
  Result<Shape> inverse(const Coord &physical,
                        llvm::ArrayRef<int64_t> shape) const;

  /// Per-axis span 1 + sum (e-1)|s| over shard and replica iters on the axis
  /// (docs/LayoutSemantics.md section 5). Axes of the layout without iters
  /// have span 1.
  Coord span() const;
  int64_t span(llvm::StringRef axis) const;

  /// The text notation of docs/LayoutSemantics.md section 3.
  std::string str() const;

  /// Structural equality (same iters in the same order, same offset).
  bool operator==(const TileLayout &other) const;
  bool operator!=(const TileLayout &other) const { return !(*this == other); }

private:
  /// Rewrites a copy in place: its rules keep every size and reach, so the
  /// result needs no second validation (Canonicalize.cpp).
  friend TileLayout canonicalize(const TileLayout &layout);

  IterList shardIters;
  IterList replicaIters;
  Coord offsetCoord;
};

/// Parses the notation of docs/LayoutSemantics.md section 3. Failures say
/// where.
Result<TileLayout> parseTileLayout(llvm::StringRef text);

/// Product of a shape's dims, failing on non-positive dims or overflow.
Result<int64_t> shapeSize(llvm::ArrayRef<int64_t> shape);
/// Row-major flattening of a coordinate inside a shape, failing when out of
/// bounds or of the wrong rank.
Result<int64_t> flattenCoord(llvm::ArrayRef<int64_t> coord,
                             llvm::ArrayRef<int64_t> shape);
/// Inverse of flattenCoord. Requires 0 <= flat < shapeSize(shape).
Shape unflattenIndex(int64_t flat, llvm::ArrayRef<int64_t> shape);

/// "8x16" for {8, 16}.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

} // namespace axe

#endif // AXE_LAYOUT_TILELAYOUT_H
