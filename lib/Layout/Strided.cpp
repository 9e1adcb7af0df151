//===- Strided.cpp - Layouts that are plain strides on m ------------------===//

#include "axe/Layout/Strided.h"

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>

namespace axe {

TileLayout rowMajorLayout(llvm::ArrayRef<int64_t> shape) {
  IterList iters;
  int64_t stride = 1;
  for (int64_t extent : llvm::reverse(shape)) {
    iters.insert(iters.begin(), Iter{extent, stride});
    stride *= extent;
  }
  Result<TileLayout> layout = TileLayout::create(iters);
  assert(layout && "a row-major layout of a valid shape is valid");
  return *layout;
}

std::optional<PlainStrides> plainStrides(const GroupedLayout &grouped,
                                         unsigned rank) {
  if (!grouped.layout.replica().empty())
    return std::nullopt;
  for (const auto &[axis, value] : grouped.layout.offset().entries())
    if (axis != kDefaultAxis && value != 0)
      return std::nullopt;
  PlainStrides p;
  p.offset = grouped.layout.offset().get(kDefaultAxis);
  for (unsigned d = 0; d < rank; ++d) {
    int64_t stride = 0, iters = 0;
    for (const Iter &it : grouped.block(d)) {
      if (it.extent == 1)
        continue;
      if (it.axis != kDefaultAxis)
        return std::nullopt;
      stride = it.stride;
      ++iters;
    }
    if (iters > 1)
      return std::nullopt;
    p.strides.push_back(stride);
  }
  return p;
}

Result<TileLayout> broadcastSourceLayout(const TileLayout &full,
                                         llvm::ArrayRef<int64_t> fullShape,
                                         llvm::ArrayRef<int64_t> shape) {
  if (shape.size() != fullShape.size())
    return fail("a broadcast keeps the rank: " + shapeStr(shape) + " against " +
                shapeStr(fullShape));
  for (auto [d, e] : llvm::enumerate(shape))
    if (e != fullShape[d] && e != 1)
      return fail("dim " + std::to_string(d) + " of " + shapeStr(shape) +
                  " neither matches " + shapeStr(fullShape) + " nor is 1");
  auto grouped = group(full, fullShape);
  if (!grouped)
    return grouped.takeFailure();
  IterList shard;
  IterList replica(full.replica().begin(), full.replica().end());
  for (unsigned d = 0; d < shape.size(); ++d)
    for (const Iter &it : grouped->block(d)) {
      bool broadcast = shape[d] != fullShape[d];
      if (!broadcast)
        shard.push_back(it);
      else if (it.axis != kDefaultAxis && it.extent > 1)
        replica.push_back(it);
    }
  // The storage left after the broadcast dims are dropped, without gaps.
  llvm::SmallVector<unsigned, 8> storage;
  for (auto [i, it] : llvm::enumerate(shard))
    if (it.axis == kDefaultAxis && it.extent > 1)
      storage.push_back(i);
  llvm::stable_sort(storage, [&](unsigned a, unsigned b) {
    return shard[a].stride < shard[b].stride;
  });
  int64_t place = 1;
  for (unsigned i : storage) {
    shard[i].stride = place;
    place *= shard[i].extent;
  }
  Coord offset;
  for (const auto &[axis, value] : full.offset().entries())
    if (axis != kDefaultAxis)
      offset.set(axis, value);
  return TileLayout::create(shard, replica, offset);
}

} // namespace axe
