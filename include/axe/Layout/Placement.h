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

} // namespace axe

#endif // AXE_LAYOUT_PLACEMENT_H
