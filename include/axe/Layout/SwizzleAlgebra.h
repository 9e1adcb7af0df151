//===- SwizzleAlgebra.h - Tiling with swizzled atoms ------------*- C++ -*-===//
//
// Shared-memory layouts are usually a swizzle atom (e.g. 8 rows of 128 bytes
// under SW(3, 3, 3)) repeated over a larger tile. These operations build such
// a layout from its atom and recognise it again (LAYOUT_SPEC.md sections 7
// and 9).
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

#include "axe/Layout/Swizzle.h"

namespace axe {

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
