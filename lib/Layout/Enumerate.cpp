//===- Enumerate.cpp - Whole-tile apply and inverse on dense points -------===//

#include "axe/Layout/Enumerate.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace axe;

llvm::SmallVector<std::string, 4> axe::pointAxes(const TileLayout &layout) {
  // TileLayout::axes() already lists exactly these, sorted and unique.
  return layout.axes();
}

/// The position of `axis` in the sorted `axes`, or -1.
static int axisIndex(llvm::ArrayRef<std::string> axes, llvm::StringRef axis) {
  auto pos = llvm::lower_bound(axes, axis,
                               [](const std::string &a, llvm::StringRef b) {
                                 return llvm::StringRef(a) < b;
                               });
  return pos != axes.end() && *pos == axis ? int(pos - axes.begin()) : -1;
}

//===----------------------------------------------------------------------===//
// Apply: an odometer over the shard digits
//===----------------------------------------------------------------------===//

/// `v`, read as one 64-bit load. The walk writes a point's values one at a
/// time and reads them right back; a loop the compiler vectorizes reads two
/// at once, and a wide load of two narrow stores cannot be forwarded from
/// the store buffer (on x86 it waits for the stores to reach L1: a third
/// of the time of applyAll on small tiles). A relaxed atomic load is a
/// plain load that is never widened.
static int64_t scalarLoad(const int64_t &v) {
  return __atomic_load_n(&v, __ATOMIC_RELAXED);
}

namespace {

/// What the walk over a layout's image needs, on dense axes.
class PlacementWalk {
public:
  explicit PlacementWalk(const Layout &layout)
      : axes(axe::pointAxes(layout.tile())), size(layout.size()) {
    const TileLayout &tile = layout.tile();
    origin.assign(axes.size(), 0);
    for (const auto &[axis, v] : tile.offset().entries())
      origin[axisIndex(axes, axis)] = v;
    // Extent-1 iters never move; the rest are the odometer's wheels.
    for (const Iter &it : tile.shard())
      if (it.extent > 1)
        wheels.push_back(
            {it.extent, it.stride, unsigned(axisIndex(axes, it.axis))});
    collectDisplacements(tile);
    memoryAxis = axisIndex(axes, kDefaultAxis);
    // A coordinate without m has m == 0, which every swizzle fixes.
    if (memoryAxis >= 0)
      swizzle = layout.swizzle();
  }

  llvm::ArrayRef<std::string> pointAxes() const { return axes; }
  int64_t placements() const {
    return axes.empty() ? 1 : int64_t(displacements.size() / axes.size());
  }

  /// Calls visit(flat, point) for every placement, in flat-index order.
  template <typename Visit> void run(Visit &&visit) const {
    size_t numAxes = axes.size();
    llvm::SmallVector<int64_t, 8> base(origin.begin(), origin.end());
    llvm::SmallVector<int64_t, 8> point(numAxes);
    llvm::SmallVector<int64_t, 16> digits(wheels.size(), 0);
    int64_t count = placements();
    for (int64_t flat = 0; flat < size; ++flat) {
      for (int64_t p = 0; p < count; ++p) {
        const int64_t *d = displacements.data() + p * numAxes;
        for (size_t a = 0; a < numAxes; ++a)
          point[a] = scalarLoad(base[a]) + d[a];
        if (swizzle)
          point[memoryAxis] = swizzle->apply(point[memoryAxis]);
        visit(flat, llvm::ArrayRef<int64_t>(point));
      }
      advance(base, digits);
    }
  }

private:
  struct Wheel {
    int64_t extent;
    int64_t stride;
    unsigned axis;
  };

  /// Steps the odometer to the next flat index: the fastest wheel moves by
  /// its stride; a wheel that wraps returns to 0 and carries. Never forms
  /// extent * stride, which need not fit in int64.
  void advance(llvm::SmallVectorImpl<int64_t> &base,
               llvm::SmallVectorImpl<int64_t> &digits) const {
    for (size_t k = wheels.size(); k-- > 0;) {
      const Wheel &w = wheels[k];
      if (digits[k] + 1 < w.extent) {
        ++digits[k];
        base[w.axis] += w.stride;
        return;
      }
      digits[k] = 0;
      base[w.axis] -= (w.extent - 1) * w.stride;
    }
  }

  /// The distinct points of the replica set, each numAxes values. Distinct
  /// displacements stay distinct under the swizzle (a bijection on m), so
  /// deduplicating once serves every element.
  void collectDisplacements(const TileLayout &tile) {
    if (tile.replicaCount() == 1) {
      displacements.assign(axes.size(), 0);
      return;
    }
    std::vector<llvm::SmallVector<int64_t, 8>> points{
        llvm::SmallVector<int64_t, 8>(axes.size(), 0)};
    for (const Iter &it : tile.replica()) {
      unsigned a = axisIndex(axes, it.axis);
      std::vector<llvm::SmallVector<int64_t, 8>> next;
      next.reserve(points.size() * it.extent);
      for (const auto &p : points)
        for (int64_t i = 0; i < it.extent; ++i) {
          next.push_back(p);
          next.back()[a] += i * it.stride;
        }
      points = std::move(next);
    }
    llvm::sort(points);
    points.erase(std::unique(points.begin(), points.end()), points.end());
    for (const auto &p : points)
      displacements.append(p.begin(), p.end());
  }

  llvm::SmallVector<std::string, 4> axes;
  int64_t size;
  llvm::SmallVector<int64_t, 8> origin;
  llvm::SmallVector<Wheel, 8> wheels;
  llvm::SmallVector<int64_t, 8> displacements;
  int memoryAxis = -1;
  std::optional<Swizzle> swizzle;
};

} // namespace

void axe::forEachPlacement(
    const Layout &layout,
    llvm::function_ref<void(int64_t flat, llvm::ArrayRef<int64_t> point)>
        visit) {
  PlacementWalk(layout).run(visit);
}

TileImage axe::applyAll(const Layout &layout) {
  PlacementWalk walk(layout);
  TileImage image;
  image.axisNames.assign(walk.pointAxes().begin(), walk.pointAxes().end());
  image.numElements = layout.size();
  image.numPlacements = walk.placements();
  image.values.resize(image.numElements * image.numPlacements *
                      image.axisNames.size());
  int64_t *next = image.values.data();
  // An element-wise copy: points have a few values each, and std::copy
  // calls memmove for each one (38 % of the time on a 128-element tile).
  walk.run([&](int64_t, llvm::ArrayRef<int64_t> point) {
    for (const int64_t &v : point)
      *next++ = scalarLoad(v);
  });
  return image;
}

llvm::ArrayRef<int64_t> TileImage::point(int64_t flat, int64_t which) const {
  assert(flat >= 0 && flat < numElements && which >= 0 &&
         which < numPlacements && "placement out of range");
  size_t numAxes = axisNames.size();
  return llvm::ArrayRef<int64_t>(values).slice(
      (flat * numPlacements + which) * numAxes, numAxes);
}

llvm::SmallVector<Coord, 4> TileImage::coords(int64_t flat) const {
  llvm::SmallVector<Coord, 4> out;
  for (int64_t p = 0; p < numPlacements; ++p) {
    Coord c;
    for (auto [axis, v] : llvm::zip(axisNames, point(flat, p)))
      c.set(axis, v);
    out.push_back(std::move(c));
  }
  llvm::sort(out);
  return out;
}

//===----------------------------------------------------------------------===//
// Inverse: the depth-first search of TileLayout::inverse on dense axes
//===----------------------------------------------------------------------===//

/// Searches the digits of the shard (slowest first, so the first solution
/// is the smallest flat index) and of the replica that reach a target
/// point, pruning with the range still reachable on each axis.
class LayoutInverter::Search {
public:
  Search(const LayoutInverter &inverter,
         llvm::SmallVectorImpl<int64_t> &remaining)
      : inv(inverter), remaining(remaining), digits(inverter.steps.size(), 0) {}

  Outcome run() { return search(0); }

  int64_t flatIndex() const {
    int64_t flat = 0;
    for (unsigned k = 0; k < inv.numShardSteps; ++k)
      flat = flat * inv.steps[k].extent + digits[k];
    return flat;
  }

private:
  bool reachable(size_t k) const {
    size_t numAxes = remaining.size();
    const int64_t *lo = inv.low.data() + k * numAxes;
    const int64_t *hi = inv.high.data() + k * numAxes;
    for (size_t a = 0; a < numAxes; ++a)
      if (remaining[a] < lo[a] || remaining[a] > hi[a])
        return false;
    return true;
  }

  template <typename Int> static Int floorDiv(Int a, Int b) {
    Int q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  }

  /// The digits d in [0, extent) with low <= v - d * s <= high (s != 0).
  template <typename Int>
  static std::pair<Int, Int> solveDigits(Int v, Int s, Int low, Int high,
                                         Int extent) {
    Int first = s > 0 ? -floorDiv(high - v, s) : -floorDiv(low - v, s);
    Int last = s > 0 ? floorDiv(v - low, s) : floorDiv(v - high, s);
    return {std::max<Int>(first, 0), std::min<Int>(last, extent - 1)};
  }

  /// The digits of step k after which steps k+1.. can still reach the
  /// remainder on the step's axis; empty when first > second. Skipping the
  /// others up front keeps a large extent from being walked digit by digit.
  std::pair<int64_t, int64_t> digitRange(size_t k) const {
    const Step &step = inv.steps[k];
    if (step.stride == 0)
      return {0, step.extent - 1};
    size_t at = (k + 1) * remaining.size() + step.axis;
    int64_t v = remaining[step.axis];
    int64_t low = inv.low[at], high = inv.high[at];
    // The differences fit in int64 when every operand is below 2^62 in
    // magnitude (the usual case); otherwise work in 128 bits.
    constexpr int64_t kSmall = int64_t(1) << 62;
    auto small = [](int64_t x) { return x > -kSmall && x < kSmall; };
    std::pair<int64_t, int64_t> range;
    if (small(v) && small(low) && small(high)) {
      range = solveDigits<int64_t>(v, step.stride, low, high, step.extent);
    } else {
      auto [first, last] =
          solveDigits<__int128>(v, step.stride, low, high, step.extent);
      range = {int64_t(first), int64_t(last)};
    }
    if (range.first > range.second)
      return {1, 0};
    return range;
  }

  Outcome search(size_t k) {
    if (++nodes > kNodeBudget)
      return Outcome::TooLarge;
    if (!reachable(k))
      return Outcome::NotInImage;
    // Past the last step the reachable range is {0} on every axis.
    if (k == inv.steps.size())
      return Outcome::Found;
    const Step &step = inv.steps[k];
    auto [first, last] = digitRange(k);
    for (int64_t d = first; d <= last; ++d) {
      remaining[step.axis] -= d * step.stride;
      digits[k] = d;
      Outcome o = search(k + 1);
      remaining[step.axis] += d * step.stride;
      if (o != Outcome::NotInImage)
        return o;
      // A zero stride makes every digit equivalent: one try suffices.
      if (step.stride == 0)
        break;
    }
    return Outcome::NotInImage;
  }

  /// The budget TileLayout::inverse has always had, so that the same
  /// layouts are reported as too ambiguous.
  static constexpr int64_t kNodeBudget = 50'000'000;
  const LayoutInverter &inv;
  llvm::SmallVectorImpl<int64_t> &remaining;
  llvm::SmallVector<int64_t, 16> digits;
  int64_t nodes = 0;
};

LayoutInverter::LayoutInverter(const Layout &layout)
    : tile(&layout.tile()), swizzle(layout.swizzle()) {
  prepare();
}

LayoutInverter::LayoutInverter(const TileLayout &layout) : tile(&layout) {
  prepare();
}

void LayoutInverter::prepare() {
  axisNames = pointAxes(*tile);
  size_t numAxes = axisNames.size();
  memoryAxis = axisIndex(axisNames, kDefaultAxis);
  offset.assign(numAxes, 0);
  for (const auto &[axis, v] : tile->offset().entries())
    offset[axisIndex(axisNames, axis)] = v;
  // Extent-1 iters have only digit 0 and leave the flat index alone;
  // dropping them bounds the recursion depth by the number of iters of
  // extent >= 2, at most 126 (their extent products fit in int64).
  for (const Iter &it : tile->shard())
    if (it.extent > 1)
      steps.push_back(
          {it.extent, it.stride, unsigned(axisIndex(axisNames, it.axis))});
  numShardSteps = steps.size();
  for (const Iter &it : tile->replica())
    if (it.extent > 1)
      steps.push_back(
          {it.extent, it.stride, unsigned(axisIndex(axisNames, it.axis))});
  // Suffix sums of each step's reach; create() bounds them within int64.
  low.assign((steps.size() + 1) * numAxes, 0);
  high.assign((steps.size() + 1) * numAxes, 0);
  for (size_t k = steps.size(); k-- > 0;) {
    std::copy_n(low.begin() + (k + 1) * numAxes, numAxes,
                low.begin() + k * numAxes);
    std::copy_n(high.begin() + (k + 1) * numAxes, numAxes,
                high.begin() + k * numAxes);
    const Step &step = steps[k];
    int64_t reach = (step.extent - 1) * step.stride;
    low[k * numAxes + step.axis] += std::min<int64_t>(0, reach);
    high[k * numAxes + step.axis] += std::max<int64_t>(0, reach);
  }
  prepareDirect();
}

void LayoutInverter::prepareDirect() {
  size_t numAxes = axisNames.size();
  // What one unit of each shard digit adds to the flat index.
  llvm::SmallVector<uint64_t, 16> weight(steps.size(), 0);
  uint64_t w = 1;
  for (unsigned k = numShardSteps; k-- > 0;) {
    weight[k] = w;
    w *= uint64_t(steps[k].extent);
  }
  auto magnitude = [](int64_t s) {
    return s < 0 ? uint64_t(0) - uint64_t(s) : uint64_t(s);
  };
  llvm::SmallVector<unsigned, 8> onAxis;
  for (size_t a = 0; a < numAxes; ++a) {
    DigitAxis axis;
    // The smallest and largest coordinates the layout reaches on the axis;
    // create() keeps every reachable coordinate within int64.
    if (__builtin_add_overflow(offset[a], low[a], &axis.lowest) ||
        __builtin_add_overflow(offset[a], high[a], &axis.highest))
      return;
    axis.first = digitList.size();
    // Zero strides take digit 0 (the smallest flat index) and reach
    // nothing: they are not digits.
    onAxis.clear();
    for (unsigned k = 0; k < steps.size(); ++k)
      if (steps[k].axis == a && steps[k].stride != 0)
        onAxis.push_back(k);
    llvm::sort(onAxis, [&](unsigned x, unsigned y) {
      return magnitude(steps[x].stride) < magnitude(steps[y].stride);
    });
    // Each stride must exceed the reach of the smaller ones, so that the
    // digits of a point are unique and the division finds them.
    uint64_t reach = 0;
    for (unsigned k : onAxis) {
      uint64_t s = magnitude(steps[k].stride);
      if (s <= reach || __builtin_add_overflow(
                            reach, uint64_t(steps[k].extent - 1) * s, &reach))
        return;
    }
    for (unsigned k : llvm::reverse(onAxis)) {
      const Step &step = steps[k];
      uint64_t s = magnitude(step.stride);
      Digit digit{s, step.extent, weight[k],
                  (s & (s - 1)) == 0 ? __builtin_ctzll(s) : -1};
      // Digit d of a negative stride sits (e - 1 - d) strides above the
      // axis' lowest coordinate.
      if (step.stride < 0) {
        flatBase += uint64_t(step.extent - 1) * weight[k];
        digit.weight = uint64_t(0) - weight[k];
      }
      digitList.push_back(digit);
    }
    axis.end = digitList.size();
    digitAxes.push_back(axis);
  }
  direct = true;
}

LayoutInverter::Outcome LayoutInverter::decode(const int64_t *point,
                                               bool unswizzle,
                                               int64_t &flat) const {
  uint64_t index = flatBase;
  for (size_t a = 0, e = digitAxes.size(); a < e; ++a) {
    const DigitAxis &axis = digitAxes[a];
    int64_t v = point[a];
    if (unswizzle && int(a) == memoryAxis)
      v = swizzle->inverse(v);
    if (v < axis.lowest || v > axis.highest)
      return Outcome::NotInImage;
    uint64_t rest = uint64_t(v) - uint64_t(axis.lowest);
    for (unsigned k = axis.first; k < axis.end; ++k) {
      const Digit &digit = digitList[k];
      uint64_t d = digit.shift >= 0 ? rest >> digit.shift : rest / digit.stride;
      if (d >= uint64_t(digit.extent))
        return Outcome::NotInImage;
      rest -= d * digit.stride;
      index += d * digit.weight;
    }
    if (rest != 0)
      return Outcome::NotInImage;
  }
  flat = int64_t(index);
  return Outcome::Found;
}

LayoutInverter::Outcome
LayoutInverter::invertUnswizzled(llvm::SmallVectorImpl<int64_t> &remaining,
                                 int64_t &flat) const {
  if (direct)
    return decode(remaining.data(), /*unswizzle=*/false, flat);
  for (size_t a = 0; a < remaining.size(); ++a)
    // Every image point is within int64 of the offset (create() bounds the
    // reach), so a point that is not lies outside the image.
    if (__builtin_sub_overflow(remaining[a], offset[a], &remaining[a]))
      return Outcome::NotInImage;
  Search search(*this, remaining);
  Outcome o = search.run();
  if (o == Outcome::Found)
    flat = search.flatIndex();
  return o;
}

LayoutInverter::Outcome LayoutInverter::inverse(llvm::ArrayRef<int64_t> point,
                                                int64_t &flat) const {
  assert(point.size() == axisNames.size() && "point of the wrong rank");
  if (direct)
    return decode(point.data(), /*unswizzle=*/bool(swizzle), flat);
  llvm::SmallVector<int64_t, 8> remaining(point.begin(), point.end());
  if (swizzle && memoryAxis >= 0)
    remaining[memoryAxis] = swizzle->inverse(remaining[memoryAxis]);
  return invertUnswizzled(remaining, flat);
}

Result<int64_t> LayoutInverter::inverse(const Coord &physical) const {
  Coord target = physical;
  if (swizzle)
    target.set(kDefaultAxis, swizzle->inverse(physical.get(kDefaultAxis)));
  auto notInImage = [&] {
    return fail("coordinate " + target.str() +
                " is not in the image of layout " + tile->str());
  };
  llvm::SmallVector<int64_t, 8> remaining(axisNames.size(), 0);
  for (const auto &[axis, v] : target.entries()) {
    int a = axisIndex(axisNames, axis);
    // Coord stores no zeros: a value on an axis the layout never moves is
    // off the image.
    if (a < 0)
      return notInImage();
    remaining[a] = v;
  }
  int64_t flat = 0;
  switch (invertUnswizzled(remaining, flat)) {
  case Outcome::Found:
    return flat;
  case Outcome::NotInImage:
    return notInImage();
  case Outcome::TooLarge:
    return fail("inverse search for " + target.str() +
                " exceeded its budget; the layout is too ambiguous");
  }
  return fail("unreachable");
}

bool axe::samePlacementSets(const Layout &a, const Layout &b) {
  auto placements = [](const Layout &layout, int64_t flat) {
    llvm::SmallVector<Coord, 4> coords = layout.apply(flat);
    // Replicas may coincide; compare sets.
    llvm::sort(coords);
    coords.erase(std::unique(coords.begin(), coords.end()), coords.end());
    return coords;
  };
  for (int64_t f = 0; f < a.size(); ++f)
    if (placements(a, f) != placements(b, f))
      return false;
  return true;
}
