//===- Placement.h - Where a layout puts elements apart ---------*- C++ -*-===//
//
// Queries the dialect's verifiers and the backends ask of a layout about the
// axes it places elements on, and the part of it that one device holds.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_PLACEMENT_H
#define AXE_LAYOUT_PLACEMENT_H

#include "axe/Layout/TileLayout.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace axe {

/// Whether `name` may number devices: gpuid, or a name the user gives a
/// device mesh's axis (dx, dy, ...). The mesh a scope declares says which
/// user names are its axes.
inline bool isDeviceAxis(llvm::StringRef name) {
  AxisKind kind = axisKind(name);
  return kind == AxisKind::Device || kind == AxisKind::User;
}

/// The axes on which `layout` places elements apart: those of its shard and
/// replica iters that move (extent above 1, nonzero stride) and of its
/// nonzero offset entries, sorted by name.
llvm::SmallVector<std::string, 4> placementAxes(const TileLayout &layout);

/// `layout` without its replicas and offset entries on device axes
/// (isDeviceAxis): those say which devices hold copies of an element, not
/// where the element lies in one device's memory.
TileLayout withoutDeviceCopies(const TileLayout &layout);

/// Two elements (flat indices, `first` < `second`) that a layout places at
/// one coordinate, `at`.
struct SharedPlace {
  int64_t first = 0, second = 0;
  Coord at;
};

/// Two different elements that `layout` places at the same coordinate: a
/// shard iter of stride 0, shard iters that overlap on an axis, or a replica
/// of one element landing on another element. Storage laid out this way
/// cannot hold every element at once.
///
/// The digits of different axes range independently, so a coordinate shared
/// by two elements exists exactly when some axis alone reaches one value
/// from two different combinations of its shard digits (with any replica
/// digits); the axes are decided one at a time. An axis whose digits nest
/// (each stride, ignoring sign, at least the reach of the smaller ones) is
/// injective; any other axis is enumerated, up to `kMaxSharedPlaceCombinations`
/// digit combinations. std::nullopt when no axis shares a place, or when an
/// axis too large to enumerate is left undecided.
std::optional<SharedPlace> findSharedPlace(const TileLayout &layout);

inline constexpr int64_t kMaxSharedPlaceCombinations = int64_t(1) << 16;

/// Fails, naming the pair, when `layout` uses two thread axes of which one
/// names part of the other (tx with laneid or warpid, warpid with
/// wid_in_wg, ...): no thread is both, and no target fuses them.
Result<bool> checkThreadAxesDistinct(const TileLayout &layout);

} // namespace axe

#endif // AXE_LAYOUT_PLACEMENT_H
