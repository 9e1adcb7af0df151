//===- Group.cpp - Re-split a layout's shard into blocks of a shape -------===//

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace axe;

namespace {

std::string iterStr(const Iter &it) {
  std::string out =
      "(" + std::to_string(it.extent) + " : " + std::to_string(it.stride);
  if (it.axis != kDefaultAxis)
    out += "@" + it.axis;
  return out + ")";
}

/// The shard after D0-D2: fusing first never removes a block boundary a
/// split could reach (a fused iter splits at every divisor of its extent
/// product), and it leaves the fewest iters to split.
IterList normalizedShard(const TileLayout &layout) {
  Result<TileLayout> shardOnly = TileLayout::create(
      IterList(layout.shard().begin(), layout.shard().end()));
  assert(shardOnly && "the shard of a valid layout is a valid layout");
  TileLayout canonical = canonicalize(*shardOnly);
  return IterList(canonical.shard().begin(), canonical.shard().end());
}

Failure groupFailure(const TileLayout &layout, llvm::ArrayRef<int64_t> shape,
                     const std::string &why) {
  return fail("cannot group " + layout.str() + " by shape " + shapeStr(shape) +
              ": " + why);
}

} // namespace

llvm::ArrayRef<Iter> GroupedLayout::block(unsigned dim) const {
  assert(dim < blockSizes.size() && "dim out of range");
  unsigned start =
      std::accumulate(blockSizes.begin(), blockSizes.begin() + dim, 0u);
  return layout.shard().slice(start, blockSizes[dim]);
}

Coord GroupedLayout::dimContribution(unsigned dim, int64_t value) const {
  assert(value >= 0 && "negative index");
  llvm::ArrayRef<Iter> iters = block(dim);
  Coord c;
  // Digits last-fastest; the slowest iter takes whatever is left, so an
  // index past the block extends its walk linearly.
  for (size_t k = iters.size(); k-- > 0;) {
    int64_t digit = k == 0 ? value : value % iters[k].extent;
    c.add(iters[k].axis, digit * iters[k].stride);
    value /= iters[k].extent;
  }
  return c;
}

Result<GroupedLayout> axe::group(const TileLayout &layout,
                                 llvm::ArrayRef<int64_t> shape) {
  Result<int64_t> size = shapeSize(shape);
  if (!size)
    return groupFailure(layout, shape, size.message());
  if (*size != layout.size())
    return groupFailure(layout, shape,
                        "the shape has " + std::to_string(*size) +
                            " elements but the layout has " +
                            std::to_string(layout.size()));

  // Walk the dims from the slowest, taking iters while they divide what the
  // block still needs and splitting off the slow part of one that is larger.
  // Block boundaries are fixed by the shape, so this is the only grouping of
  // the normalized shard, and it splits only where a boundary falls inside
  // an iter: the fewest iters.
  IterList pending = normalizedShard(layout);
  IterList iters;
  llvm::SmallVector<unsigned, 4> blockSizes;
  size_t next = 0;
  for (auto [dim, extent] : llvm::enumerate(shape)) {
    int64_t need = extent;
    unsigned count = 0;
    while (need > 1) {
      assert(next < pending.size() && "sizes agree, so iters remain");
      Iter &it = pending[next];
      if (need % it.extent == 0) {
        need /= it.extent;
        iters.push_back(it);
        ++next;
      } else if (it.extent % need == 0) {
        // (e1*e2, s) -> (e1, e2*s)(e2, s) with e1 = need.
        int64_t rest = it.extent / need;
        iters.push_back({need, it.stride * rest, it.axis});
        it.extent = rest;
        need = 1;
      } else {
        return groupFailure(
            layout, shape,
            "dim " + std::to_string(dim) + " (extent " +
                std::to_string(extent) + ") still needs a factor " +
                std::to_string(need) + " at iter " + iterStr(it) +
                ", and neither of " + std::to_string(need) + " and " +
                std::to_string(it.extent) + " divides the other");
      }
      ++count;
    }
    blockSizes.push_back(count);
  }

  Result<TileLayout> grouped = TileLayout::create(
      iters, IterList(layout.replica().begin(), layout.replica().end()),
      layout.offset());
  if (!grouped) // Splits never grow a reach; kept for safety.
    return groupFailure(layout, shape, grouped.message());
  return GroupedLayout{*grouped, blockSizes};
}
