//===- TargetFusion.h - Thread-axis fusion and element packing --*- C++ -*-===//
//
// Two rewrites that need facts about a target rather than the algebra alone
// (docs/LayoutSemantics.md section 4, "target axis fusion"):
//
//  * fusing hierarchical thread axes into their parent: with L lanes per warp
//    and W warps per warpgroup,
//      tx        = L * warpid + laneid  = L * W * wgid + tid_in_wg
//      tid_in_wg = L * wid_in_wg + laneid
//    A coordinate on a child axis is only the same thread after fusion when
//    it stays inside its parent (0 <= laneid < L, ...); otherwise the
//    rewrite would alias threads, and it is refused with that reason.
//
//  * packing: a layout of narrow (8- or 16-bit) elements viewed as a layout of
//    32-bit words, and back. Each word holds 32 / bits consecutive elements
//    along one logical dim that sit at consecutive, word-aligned addresses on
//    one memory axis (m for registers, TCol or F elsewhere).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_TARGETFUSION_H
#define AXE_LAYOUT_TARGETFUSION_H

#include "axe/Layout/TileLayout.h"

namespace axe {

/// How a target nests its thread axes.
struct ThreadHierarchy {
  int64_t lanesPerWarp = 32;
  int64_t warpsPerWarpgroup = 4;

  int64_t threadsPerWarpgroup() const {
    return lanesPerWarp * warpsPerWarpgroup;
  }
};

/// Rewrites the thread axes of `layout` into the outermost thread axis it
/// uses:
///   * any of tx, warpid, wgid present -> everything onto tx
///     (warpid x L, wgid x L*W, wid_in_wg x L, tid_in_wg and laneid x 1);
///   * else any of wid_in_wg, tid_in_wg -> onto tid_in_wg
///     (wid_in_wg x L, laneid x 1);
///   * else (only laneid, or no thread axis) the layout is returned as is.
/// The iters keep their order and extents; only strides, axes and offsets
/// change (canonicalize afterwards to merge them). Fails, with the reason,
/// when a fused child axis can leave its range (laneid outside [0, L),
/// wid_in_wg outside [0, W), tid_in_wg outside [0, L*W)), when the layout
/// names one thread both whole and by parts (tx with laneid, warpid with
/// wid_in_wg, ...), or on int64 overflow.
Result<TileLayout> fuseThreadAxes(const TileLayout &layout,
                                  const ThreadHierarchy &hierarchy = {});

/// The shape of the word view: `shape` with dim `dim` divided by
/// 32 / elementBits. `dim` < 0 counts from the end (-1: the last dim).
Result<Shape> packedShape(llvm::ArrayRef<int64_t> shape, unsigned elementBits,
                          int dim = -1);

/// Views `layout` (admitting `shape`, elements of `elementBits` bits, 4, 8 or
/// 16) as a layout of 32-bit words admitting packedShape(shape): word w of
/// dim `dim` holds elements k*w .. k*w + k-1 (k = 32 / elementBits), and its
/// coordinate is the elements' common coordinate with `axis` divided by k.
/// Fails with the reason when the k elements of a word are not at k
/// consecutive addresses on `axis` (same place on every other axis), or a
/// word would not start at a multiple of k.
Result<TileLayout> packToWords(const TileLayout &layout,
                               llvm::ArrayRef<int64_t> shape,
                               unsigned elementBits, int dim = -1,
                               llvm::StringRef axis = kDefaultAxis);

/// The inverse of packToWords: `words` admits `wordShape`; the result admits
/// `wordShape` with dim `dim` multiplied by k, element j of word w sitting at
/// k * (w's coordinate on `axis`) + j.
Result<TileLayout> unpackFromWords(const TileLayout &words,
                                   llvm::ArrayRef<int64_t> wordShape,
                                   unsigned elementBits, int dim = -1,
                                   llvm::StringRef axis = kDefaultAxis);

} // namespace axe

#endif // AXE_LAYOUT_TARGETFUSION_H
