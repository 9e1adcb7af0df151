//===- TileLayout.cpp - The Axe tile layout: construction and queries -----===//

#include "axe/Layout/TileLayout.h"
#include "axe/Layout/Enumerate.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>

using namespace axe;

namespace {

std::string iterStr(const Iter &it) {
  return "(" + std::to_string(it.extent) + ", " + std::to_string(it.stride) +
         "@" + it.axis + ")";
}

/// Checks extents and axis names of one iter list.
std::optional<Failure> checkIters(llvm::ArrayRef<Iter> iters,
                                  llvm::StringRef part) {
  for (auto [i, it] : llvm::enumerate(iters)) {
    if (it.extent < 1)
      return fail(part.str() + " iter " + std::to_string(i) + " " +
                  iterStr(it) + " has extent " + std::to_string(it.extent) +
                  "; extents must be >= 1");
    if (!isValidAxisName(it.axis))
      return fail(part.str() + " iter " + std::to_string(i) +
                  " has an invalid axis name '" + it.axis + "'");
  }
  return std::nullopt;
}

/// Per-axis sums over a layout's few axes. A flat list searched linearly:
/// layouts mention a handful of axes, and this allocates nothing for them.
class AxisSums {
public:
  int64_t &operator[](llvm::StringRef axis) {
    for (auto &[name, sum] : sums)
      if (name == axis)
        return sum;
    sums.push_back({axis, 0});
    return sums.back().second;
  }
  auto begin() const { return sums.begin(); }
  auto end() const { return sums.end(); }

private:
  llvm::SmallVector<std::pair<llvm::StringRef, int64_t>, 8> sums;
};

/// Adds (e-1)*|s| of every iter to its axis's reach, failing on overflow.
std::optional<Failure> accumulateReach(llvm::ArrayRef<Iter> iters,
                                       AxisSums &reach) {
  for (const Iter &it : iters) {
    int64_t step;
    int64_t &axisReach = reach[it.axis];
    if (it.stride == INT64_MIN ||
        mulOverflows(it.extent - 1, std::abs(it.stride), step) ||
        addOverflows(axisReach, step, axisReach))
      return fail("iter " + iterStr(it) +
                  " reaches past the int64 range on "
                  "axis '" +
                  it.axis + "'");
  }
  return std::nullopt;
}

} // namespace

Result<TileLayout> TileLayout::create(IterList shard, IterList replica,
                                      Coord offset) {
  if (auto f = checkIters(shard, "shard"))
    return *f;
  if (auto f = checkIters(replica, "replica"))
    return *f;
  for (const auto &[axis, v] : offset.entries()) {
    if (!isValidAxisName(axis))
      return fail("offset has an invalid axis name '" + axis + "'");
    if (v == INT64_MIN)
      return fail("offset on axis '" + axis + "' is out of range");
  }

  int64_t product = 1;
  for (const Iter &it : shard)
    if (mulOverflows(product, it.extent, product))
      return fail("the product of the shard extents overflows int64");
  for (const Iter &it : replica)
    if (mulOverflows(product, it.extent, product))
      return fail("the product of the shard and replica extents overflows "
                  "int64");

  // Every reachable coordinate (and every span) must fit in int64, so that
  // apply() and span() never overflow: bound |coordinate| by the sum of the
  // reaches plus |offset|, plus one for the span's leading 1.
  AxisSums reach;
  if (auto f = accumulateReach(shard, reach))
    return *f;
  if (auto f = accumulateReach(replica, reach))
    return *f;
  for (const auto &[axis, v] : offset.entries()) {
    int64_t total;
    if (addOverflows(reach[axis], std::abs(v), total) ||
        addOverflows(total, 1, total))
      return fail("the offset on axis '" + axis +
                  "' moves coordinates past the int64 range");
  }
  for (const auto &[axis, r] : reach) {
    int64_t total;
    if (addOverflows(r, 1, total))
      return fail("the span on axis '" + axis.str() + "' overflows int64");
  }

  TileLayout layout;
  layout.shardIters = std::move(shard);
  layout.replicaIters = std::move(replica);
  layout.offsetCoord = std::move(offset);
  return layout;
}

int64_t TileLayout::size() const {
  int64_t n = 1;
  for (const Iter &it : shardIters)
    n *= it.extent;
  return n;
}

int64_t TileLayout::replicaCount() const {
  int64_t n = 1;
  for (const Iter &it : replicaIters)
    n *= it.extent;
  return n;
}

bool TileLayout::admits(llvm::ArrayRef<int64_t> shape) const {
  Result<int64_t> n = shapeSize(shape);
  return n && *n == size();
}

llvm::SmallVector<std::string, 4> TileLayout::axes() const {
  llvm::SmallVector<std::string, 4> names;
  for (const Iter &it : shardIters)
    names.push_back(it.axis);
  for (const Iter &it : replicaIters)
    names.push_back(it.axis);
  for (const auto &entry : offsetCoord.entries())
    names.push_back(entry.first);
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Coord TileLayout::applyBase(int64_t flat) const {
  assert(flat >= 0 && flat < size() && "flat index out of range");
  Coord c = offsetCoord;
  for (const Iter &it : llvm::reverse(shardIters)) {
    c.add(it.axis, (flat % it.extent) * it.stride);
    flat /= it.extent;
  }
  return c;
}

llvm::SmallVector<Coord, 4> TileLayout::replicaOffsets() const {
  llvm::SmallVector<Coord, 4> offsets{Coord()};
  for (const Iter &it : replicaIters) {
    llvm::SmallVector<Coord, 4> next;
    next.reserve(offsets.size() * it.extent);
    for (const Coord &c : offsets)
      for (int64_t i = 0; i < it.extent; ++i) {
        Coord d = c;
        d.add(it.axis, i * it.stride);
        next.push_back(std::move(d));
      }
    offsets = std::move(next);
  }
  llvm::sort(offsets);
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}

llvm::SmallVector<Coord, 4> TileLayout::apply(int64_t flat) const {
  Coord base = applyBase(flat);
  llvm::SmallVector<Coord, 4> images;
  for (const Coord &r : replicaOffsets())
    images.push_back(base + r);
  llvm::sort(images);
  return images;
}

Result<llvm::SmallVector<Coord, 4>>
TileLayout::apply(llvm::ArrayRef<int64_t> coord,
                  llvm::ArrayRef<int64_t> shape) const {
  if (!admits(shape))
    return fail("layout of size " + std::to_string(size()) +
                " does not admit shape " + shapeStr(shape));
  Result<int64_t> flat = flattenCoord(coord, shape);
  if (!flat)
    return flat.takeFailure();
  return apply(*flat);
}

Result<int64_t> TileLayout::inverse(const Coord &physical) const {
  return LayoutInverter(*this).inverse(physical);
}

Result<Shape> TileLayout::inverse(const Coord &physical,
                                  llvm::ArrayRef<int64_t> shape) const {
  if (!admits(shape))
    return fail("layout of size " + std::to_string(size()) +
                " does not admit shape " + shapeStr(shape));
  Result<int64_t> flat = inverse(physical);
  if (!flat)
    return flat.takeFailure();
  return unflattenIndex(*flat, shape);
}

Coord TileLayout::span() const {
  AxisSums reach;
  for (const Iter &it : shardIters)
    reach[it.axis] += (it.extent - 1) * std::abs(it.stride);
  for (const Iter &it : replicaIters)
    reach[it.axis] += (it.extent - 1) * std::abs(it.stride);
  // Axes the layout mentions only in its offset have span 1.
  for (const auto &entry : offsetCoord.entries())
    reach[entry.first];
  Coord c;
  for (const auto &[axis, r] : reach)
    c.set(axis, r + 1);
  return c;
}

int64_t TileLayout::span(llvm::StringRef axis) const {
  int64_t reach = 0;
  for (const Iter &it : shardIters)
    if (it.axis == axis)
      reach += (it.extent - 1) * std::abs(it.stride);
  for (const Iter &it : replicaIters)
    if (it.axis == axis)
      reach += (it.extent - 1) * std::abs(it.stride);
  return reach + 1;
}

bool TileLayout::operator==(const TileLayout &other) const {
  return shardIters == other.shardIters && replicaIters == other.replicaIters &&
         offsetCoord == other.offsetCoord;
}

Result<int64_t> axe::shapeSize(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 1)
      return fail("shape " + shapeStr(shape) + " has a dim of size " +
                  std::to_string(d) + "; dims must be >= 1");
    if (mulOverflows(n, d, n))
      return fail("the size of shape " + shapeStr(shape) + " overflows int64");
  }
  return n;
}

Result<int64_t> axe::flattenCoord(llvm::ArrayRef<int64_t> coord,
                                  llvm::ArrayRef<int64_t> shape) {
  if (coord.size() != shape.size())
    return fail("coordinate of rank " + std::to_string(coord.size()) +
                " for a shape of rank " + std::to_string(shape.size()));
  int64_t flat = 0;
  for (auto [x, d] : llvm::zip(coord, shape)) {
    if (x < 0 || x >= d)
      return fail("coordinate " + shapeStr(coord) + " is outside shape " +
                  shapeStr(shape));
    if (mulOverflows(flat, d, flat) || addOverflows(flat, x, flat))
      return fail("the flat index of coordinate " + shapeStr(coord) +
                  " in shape " + shapeStr(shape) + " overflows int64");
  }
  return flat;
}

Shape axe::unflattenIndex(int64_t flat, llvm::ArrayRef<int64_t> shape) {
  Shape coord(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    coord[d] = flat % shape[d];
    flat /= shape[d];
  }
  return coord;
}

std::string axe::shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string out;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      out += "x";
    out += std::to_string(d);
  }
  return out.empty() ? "()" : out;
}
