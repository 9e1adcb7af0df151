//===- SwizzleAlgebra.h - Algebra of swizzled layouts -----------*- C++ -*-===//
//
// The operations of Algebra.h on a Layout, a tile layout optionally followed
// by a swizzle of m. Slice and equivalence reduce to the tile part when the
// swizzles allow it.
//
// Shared-memory layouts are usually a swizzle atom (e.g. 8 rows of 128 bytes
// under SW(3, 3, 3)) repeated over a larger tile. tileSwizzledAtom and
// swizzledTileOf build such a layout from its atom and recognise it again
// (docs/LayoutSemantics.md sections 7 and 9).
//
// Tiling a swizzled atom SW o A by an outer layout B means
//
//   T(xB * SA + xA) = scale(B(xB), span(A)) + (SW o A)(xA)
//
// i.e. each copy of the atom is swizzled on its own and then displaced. Since
// SW(a + k * period) == SW(a) + k * period for every a, this equals
// SW o tile(A, B) exactly when every displacement the outer layout makes on m
// is a multiple of the swizzle period; otherwise the tiled map is not a
// swizzled tile layout and the operations fail with that reason.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_SWIZZLEALGEBRA_H
#define AXE_LAYOUT_SWIZZLEALGEBRA_H

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Swizzle.h"

namespace axe {

/// slice() of Algebra.h for a swizzled layout: L'(y) = SW(T(lo + y)), i.e.
/// the tile part sliced and the swizzle kept. The run-time contribution of
/// an unknown start is added to the tile part's coordinate, before the
/// swizzle, as for an unswizzled slice.
Result<Layout> slice(const Layout &layout, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<SliceStart> starts,
                     llvm::ArrayRef<int64_t> lengths);
/// slice() with all starts known.
Result<Layout> slice(const Layout &layout, llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> starts,
                     llvm::ArrayRef<int64_t> lengths);
/// For a braced list of starts; see the TileLayout overload in Algebra.h.
inline Result<Layout> slice(const Layout &layout, llvm::ArrayRef<int64_t> shape,
                            std::initializer_list<int64_t> starts,
                            llvm::ArrayRef<int64_t> lengths) {
  return slice(layout, shape, llvm::ArrayRef<int64_t>(starts), lengths);
}

/// Exact equivalence of two swizzled layouts: the same set of placements for
/// every flat index. A swizzle that moves none of its layout's m coordinates
/// (an identity such as SW(0, 0, 0), or one whose XORed-in bits are zero
/// over the layout's reach on m) counts as no swizzle. Equal swizzles leave
/// the question to equivalent() on the tile parts; otherwise the maps are
/// enumerated, which fails (with a reason) for layouts too large to list.
Result<bool> equivalent(const Layout &a, const Layout &b);

/// The layout of `outer` copies of the (possibly swizzled) atom: admits
/// atomShape * outerShape element-wise. An unswizzled atom gives tile().
Result<Layout> tileSwizzledAtom(const Layout &atom,
                                llvm::ArrayRef<int64_t> atomShape,
                                const TileLayout &outer,
                                llvm::ArrayRef<int64_t> outerShape);

/// The outer layout B with layout == tileSwizzledAtom(atom, B) (same map), or
/// why there is none (different swizzle, not a tile of the atom's tile part,
/// or atoms not aligned to the swizzle period).
Result<TileLayout> swizzledTileOf(const Layout &layout,
                                  llvm::ArrayRef<int64_t> shape,
                                  const Layout &atom,
                                  llvm::ArrayRef<int64_t> atomShape);

} // namespace axe

#endif // AXE_LAYOUT_SWIZZLEALGEBRA_H
