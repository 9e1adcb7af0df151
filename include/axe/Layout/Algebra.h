//===- Algebra.h - Operations on tile layouts -------------------*- C++ -*-===//
//
// Canonicalization, equivalence, group, tile and its inverses, direct sum and
// its inverses, slice (docs/LayoutSemantics.md sections 4-8). Every operation
// that can fail returns a Result whose message says what did not fit.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_ALGEBRA_H
#define AXE_LAYOUT_ALGEBRA_H

#include "axe/Layout/TileLayout.h"

#include <initializer_list>

namespace axe {

//===----------------------------------------------------------------------===//
// Canonical form and equivalence (section 4)
//===----------------------------------------------------------------------===//

/// Rewrites with D0-D2, C0-C2 and the replica ordering; never changes the
/// map.
TileLayout canonicalize(const TileLayout &layout);

/// Whether each axis's replica iters satisfy the gap condition, under which
/// equal maps have equal canonical forms.
bool satisfiesGapCondition(const TileLayout &layout);

/// Exact equivalence of the maps of two layouts of equal size. Answers from
/// canonical forms when they decide, otherwise by enumeration; fails (with a
/// reason) only when the layouts are too large to enumerate.
Result<bool> equivalent(const TileLayout &a, const TileLayout &b);

//===----------------------------------------------------------------------===//
// Group (section 6)
//===----------------------------------------------------------------------===//

struct GroupedLayout {
  /// The layout with its shard re-split so that consecutive blocks of iters
  /// have extent products shape[0], shape[1], ...
  TileLayout layout;
  /// The number of shard iters in each block (one entry per dim; a dim of
  /// extent 1 has an empty block).
  llvm::SmallVector<unsigned, 4> blockSizes;

  /// The shard iters of dim `dim`.
  llvm::ArrayRef<Iter> block(unsigned dim) const;
  /// The physical contribution of index `value` along dim `dim`
  /// (base is additive across the dims of a grouped layout).
  Coord dimContribution(unsigned dim, int64_t value) const;
};

Result<GroupedLayout> group(const TileLayout &layout,
                            llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Tile, tile_of, tile_of_outer, direct sum (section 7)
//===----------------------------------------------------------------------===//

/// tile(A, B): A the tile (admits innerShape), B the grid of tiles (admits
/// outerShape). The result admits innerShape * outerShape element-wise.
Result<TileLayout> tile(const TileLayout &inner,
                        llvm::ArrayRef<int64_t> innerShape,
                        const TileLayout &outer,
                        llvm::ArrayRef<int64_t> outerShape);

/// The B with layout == tile(inner, B) (same map), or why there is none.
Result<TileLayout> tileOf(const TileLayout &layout,
                          llvm::ArrayRef<int64_t> shape,
                          const TileLayout &inner,
                          llvm::ArrayRef<int64_t> innerShape);

/// The A with layout == tile(A, outer) (same map), or why there is none.
Result<TileLayout> tileOfOuter(const TileLayout &layout,
                               llvm::ArrayRef<int64_t> shape,
                               const TileLayout &outer,
                               llvm::ArrayRef<int64_t> outerShape);

/// (A (+) B)(xB * SA + xA) = A(xA) + B(xB): tiling without span scaling.
Result<TileLayout> directSum(const TileLayout &a,
                             llvm::ArrayRef<int64_t> aShape,
                             const TileLayout &b,
                             llvm::ArrayRef<int64_t> bShape);

/// The B with layout == directSum(a, B), or why there is none.
Result<TileLayout> directSumOuterOf(const TileLayout &layout,
                                    llvm::ArrayRef<int64_t> shape,
                                    const TileLayout &a,
                                    llvm::ArrayRef<int64_t> aShape);

/// The A with layout == directSum(A, b), or why there is none.
Result<TileLayout> directSumInnerOf(const TileLayout &layout,
                                    llvm::ArrayRef<int64_t> shape,
                                    const TileLayout &b,
                                    llvm::ArrayRef<int64_t> bShape);

//===----------------------------------------------------------------------===//
// Slice (section 8)
//===----------------------------------------------------------------------===//

/// What is known of a region start along one dim: its value, or only that it
/// is a multiple of `alignment` (a loop variable). Made with constant() or
/// aligned(); not an aggregate, so a braced list of start values is never
/// read as one SliceStart.
struct SliceStart {
  bool known = true;
  int64_t value = 0;
  int64_t alignment = 1;

  /// The known start 0.
  SliceStart() = default;

  static SliceStart constant(int64_t v) { return SliceStart(true, v, 0); }
  static SliceStart aligned(int64_t a) { return SliceStart(false, 0, a); }

private:
  SliceStart(bool known, int64_t value, int64_t alignment)
      : known(known), value(value), alignment(alignment) {}
};

/// L' with L'(y) = L(lo + y) for every y in [0, lengths). The offset of L'
/// includes the contribution of every known start; the contribution of an
/// unknown start along dim d is group(L, shape).dimContribution(d, start),
/// added by the caller at run time. Fails with a reason (which dim, which
/// iter, what alignment would work) when no such layout exists for every
/// start allowed by what is known.
Result<TileLayout> slice(const TileLayout &layout,
                         llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<SliceStart> starts,
                         llvm::ArrayRef<int64_t> lengths);

/// The axes along which the run-time part of a slice's offset may move: for
/// every unknown start, the axes on which the contribution of some start it
/// allows (a multiple of its alignment that keeps the region inside the dim)
/// is non-zero. The result layout of slice() leaves these out, so what holds
/// the slice (a lane, a warp) is known only up to them. Sorted by name.
Result<llvm::SmallVector<std::string, 4>>
sliceStartAxes(const TileLayout &layout, llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<SliceStart> starts,
               llvm::ArrayRef<int64_t> lengths);

/// slice() with all starts known.
Result<TileLayout> slice(const TileLayout &layout,
                         llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<int64_t> starts,
                         llvm::ArrayRef<int64_t> lengths);

/// slice() with all starts known, given as a braced list. Without it
/// slice(l, shape, {0, 32}, lengths) is ambiguous: {0, 32} also matches the
/// (pointer, length) constructor of ArrayRef<SliceStart>, 0 being a null
/// pointer constant.
inline Result<TileLayout> slice(const TileLayout &layout,
                                llvm::ArrayRef<int64_t> shape,
                                std::initializer_list<int64_t> starts,
                                llvm::ArrayRef<int64_t> lengths) {
  return slice(layout, shape, llvm::ArrayRef<int64_t>(starts), lengths);
}

} // namespace axe

#endif // AXE_LAYOUT_ALGEBRA_H
