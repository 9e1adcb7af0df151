//===- TileLayout.cpp - The Axe tile layout: construction and queries -----===//

#include "axe/Layout/TileLayout.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdlib>
#include <map>

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

/// Adds (e-1)*|s| of every iter to its axis's reach, failing on overflow.
std::optional<Failure> accumulateReach(llvm::ArrayRef<Iter> iters,
                                       std::map<std::string, int64_t> &reach) {
  for (const Iter &it : iters) {
    int64_t step;
    if (it.stride == INT64_MIN ||
        mulOverflows(it.extent - 1, std::abs(it.stride), step) ||
        addOverflows(reach[it.axis], step, reach[it.axis]))
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
  std::map<std::string, int64_t> reach;
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
      return fail("the span on axis '" + axis + "' overflows int64");
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

namespace {

/// Depth-first search for digits of the shard (slowest first, so the first
/// solution is the smallest flat index) and of the replica that reach a
/// target coordinate. Prunes with the reach still available per axis.
class InverseSearch {
public:
  InverseSearch(const TileLayout &layout, Coord target)
      : remaining(std::move(target)) {
    // Extent-1 iters have only digit 0 and leave the flat index alone;
    // dropping them bounds the recursion depth by the number of iters of
    // extent >= 2, at most 126 (their extent products fit in int64).
    for (const Iter &it : layout.shard())
      if (it.extent > 1)
        iters.push_back(it);
    numShard = iters.size();
    for (const Iter &it : layout.replica())
      if (it.extent > 1)
        iters.push_back(it);
    // suffixLow/High[k]: per-axis range still reachable by iters k..end.
    suffixLow.resize(iters.size() + 1);
    suffixHigh.resize(iters.size() + 1);
    for (size_t k = iters.size(); k-- > 0;) {
      suffixLow[k] = suffixLow[k + 1];
      suffixHigh[k] = suffixHigh[k + 1];
      const Iter &it = iters[k];
      int64_t step = (it.extent - 1) * it.stride;
      suffixLow[k][it.axis] += std::min<int64_t>(0, step);
      suffixHigh[k][it.axis] += std::max<int64_t>(0, step);
    }
    digits.assign(iters.size(), 0);
  }

  enum class Outcome { Found, NotFound, TooLarge };

  Outcome run() { return search(0); }

  int64_t flatIndex() const {
    int64_t flat = 0;
    for (size_t k = 0; k < numShard; ++k)
      flat = flat * iters[k].extent + digits[k];
    return flat;
  }

private:
  bool reachable(size_t k) const {
    // Axes with a nonzero remainder but no iters left are unreachable.
    for (const auto &[axis, v] : remaining.entries()) {
      auto lo = suffixLow[k].find(axis);
      auto hi = suffixHigh[k].find(axis);
      int64_t low = lo == suffixLow[k].end() ? 0 : lo->second;
      int64_t high = hi == suffixHigh[k].end() ? 0 : hi->second;
      if (v < low || v > high)
        return false;
    }
    return true;
  }

  static __int128 floorDiv(__int128 a, __int128 b) {
    __int128 q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  }

  /// The digits of iter k after which iters k+1.. can still reach the
  /// remainder on the iter's axis; empty when first > second. Skipping the
  /// others up front keeps a large extent from being walked digit by digit.
  std::pair<int64_t, int64_t> digitRange(size_t k) const {
    const Iter &it = iters[k];
    if (it.stride == 0)
      return {0, it.extent - 1};
    auto find = [&](const std::map<std::string, int64_t> &m) -> __int128 {
      auto pos = m.find(it.axis);
      return pos == m.end() ? 0 : pos->second;
    };
    // low <= v - d * s <= high, in 128 bits (the differences may not fit).
    __int128 v = remaining.get(it.axis), s = it.stride;
    __int128 low = find(suffixLow[k + 1]), high = find(suffixHigh[k + 1]);
    __int128 first = s > 0 ? -floorDiv(high - v, s) : -floorDiv(low - v, s);
    __int128 last = s > 0 ? floorDiv(v - low, s) : floorDiv(v - high, s);
    first = std::max<__int128>(first, 0);
    last = std::min<__int128>(last, it.extent - 1);
    if (first > last)
      return {1, 0};
    return {int64_t(first), int64_t(last)};
  }

  Outcome search(size_t k) {
    if (++nodes > kNodeBudget)
      return Outcome::TooLarge;
    if (!reachable(k))
      return Outcome::NotFound;
    if (k == iters.size())
      return remaining.empty() ? Outcome::Found : Outcome::NotFound;
    const Iter &it = iters[k];
    auto [first, last] = digitRange(k);
    for (int64_t d = first; d <= last; ++d) {
      remaining.add(it.axis, -d * it.stride);
      digits[k] = d;
      Outcome o = search(k + 1);
      remaining.add(it.axis, d * it.stride);
      if (o != Outcome::NotFound)
        return o;
      // A zero stride makes every digit equivalent: one try suffices.
      if (it.stride == 0)
        break;
    }
    return Outcome::NotFound;
  }

  static constexpr int64_t kNodeBudget = 50'000'000;
  llvm::SmallVector<Iter, 8> iters;
  size_t numShard = 0;
  std::vector<std::map<std::string, int64_t>> suffixLow, suffixHigh;
  std::vector<int64_t> digits;
  Coord remaining;
  int64_t nodes = 0;
};

} // namespace

Result<int64_t> TileLayout::inverse(const Coord &physical) const {
  Coord target = physical;
  for (const auto &[axis, v] : offsetCoord.entries()) {
    // Every image point is within int64 of the offset (create() bounds the
    // reach), so a point that is not lies outside the image.
    int64_t diff;
    if (__builtin_sub_overflow(target.get(axis), v, &diff))
      return fail("coordinate " + physical.str() +
                  " is not in the image of layout " + str());
    target.set(axis, diff);
  }
  InverseSearch search(*this, target);
  switch (search.run()) {
  case InverseSearch::Outcome::Found:
    return search.flatIndex();
  case InverseSearch::Outcome::NotFound:
    return fail("coordinate " + physical.str() +
                " is not in the image of layout " + str());
  case InverseSearch::Outcome::TooLarge:
    return fail("inverse search for " + physical.str() +
                " exceeded its budget; the layout is too ambiguous");
  }
  return fail("unreachable");
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
  std::map<std::string, int64_t> reach;
  for (const std::string &axis : axes())
    reach[axis] = 0;
  for (const Iter &it : shardIters)
    reach[it.axis] += (it.extent - 1) * std::abs(it.stride);
  for (const Iter &it : replicaIters)
    reach[it.axis] += (it.extent - 1) * std::abs(it.stride);
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
