//===- Strided.cpp - Layouts that are plain strides on m ------------------===//

#include "axe/Layout/Strided.h"

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

} // namespace axe
