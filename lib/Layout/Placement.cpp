//===- Placement.cpp - Where a layout puts elements apart -----------------===//

#include "axe/Layout/Placement.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>

namespace axe {

llvm::SmallVector<std::string, 4> placementAxes(const TileLayout &layout) {
  llvm::SmallVector<std::string, 4> axes;
  auto add = [&](llvm::StringRef axis) {
    if (!llvm::is_contained(axes, axis))
      axes.push_back(axis.str());
  };
  for (llvm::ArrayRef<Iter> iters : {layout.shard(), layout.replica()})
    for (const Iter &it : iters)
      if (it.extent > 1 && it.stride != 0)
        add(it.axis);
  for (const auto &[axis, value] : layout.offset().entries())
    if (value != 0)
      add(axis);
  llvm::sort(axes);
  return axes;
}

TileLayout withoutDeviceCopies(const TileLayout &layout) {
  IterList replica;
  for (const Iter &it : layout.replica())
    if (!isDeviceAxis(it.axis))
      replica.push_back(it);
  Coord offset;
  for (const auto &[axis, value] : layout.offset().entries())
    if (!isDeviceAxis(axis))
      offset.set(axis, value);
  // Dropping replicas and offset entries from a valid layout only shrinks
  // its reach, so this cannot fail.
  Result<TileLayout> local = TileLayout::create(
      IterList(layout.shard().begin(), layout.shard().end()), replica, offset);
  assert(local && "a part of a valid layout is a valid layout");
  return *local;
}

} // namespace axe
