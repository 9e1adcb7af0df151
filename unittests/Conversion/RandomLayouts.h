//===- RandomLayouts.h - Seeded random layouts that can be stored -*- C++
//-*-===//
//
// Layouts a CPU buffer can hold: every dim split into random factors, the
// factors placed in a random physical order on m (or on a family of thread
// axes), with optional gaps, swizzle, replicas (up to two iters of extent 2
// or 3, on m or the thread axes) and offsets (on m; on a thread axis where
// asked). Used to check generated code beyond hand-picked cases.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_UNITTESTS_CONVERSION_RANDOMLAYOUTS_H
#define AXE_UNITTESTS_CONVERSION_RANDOMLAYOUTS_H

#include "axe/Layout/Swizzle.h"

#include <algorithm>
#include <map>
#include <random>

namespace axe::testing {

struct RandomLayoutOptions {
  bool threadAxes = false;
  bool swizzle = true;
  bool replicas = false;
  bool gaps = true;
  bool offset = true;
  /// The span a thread axis may reach (absent: any; 1: the axis is not
  /// used), so that a layout fits a launch (32 lanes, a CTA's warps) and a
  /// buffer belongs to the scope an operator runs at. Limited axes get no
  /// gaps.
  std::map<std::string, int64_t> axisLimit;
  /// A thread axis that must place data (a factor, or failing that a
  /// replica): what makes a register buffer belong to a warp (laneid) or a
  /// CTA (warpid).
  std::string requireAxis;
  /// The thread axes that factors and replicas may use (with threadAxes): a
  /// family whose coordinates do not alias one another's threads.
  std::vector<std::string> axes = {"laneid", "warpid"};
  /// At most this many replica iters (each of extent 2 or 3), on `m` or on
  /// the thread axes.
  int maxReplicaIters = 2;
  /// Now and then an offset on a limited thread axis the layout uses, within
  /// its limit: data on lanes 3..10 rather than 0..7, groups of threads that
  /// do not start at a multiple of their span.
  bool threadOffsets = false;
};

inline Layout randomLayout(std::mt19937_64 &rng, llvm::ArrayRef<int64_t> shape,
                           const RandomLayoutOptions &opts = {}) {
  auto coin = [&](int percent) {
    return std::uniform_int_distribution<int>(0, 99)(rng) < percent;
  };
  struct Factor {
    int64_t extent;
    std::string axis = "m";
    int64_t stride = 0;
  };
  // Factors in logical order (dims slowest first, each dim slowest first).
  std::vector<Factor> factors;
  for (int64_t extent : shape) {
    std::vector<int64_t> parts;
    int64_t rest = extent;
    while (rest > 1) {
      std::vector<int64_t> divisors;
      for (int64_t d = 2; d <= rest; ++d)
        if (rest % d == 0)
          divisors.push_back(d);
      int64_t d = divisors[std::uniform_int_distribution<size_t>(
          0, divisors.size() - 1)(rng)];
      if (coin(40))
        d = rest;
      parts.push_back(d);
      rest /= d;
    }
    for (int64_t p : parts)
      factors.push_back({p});
  }
  // Product of the extents placed on each limited axis so far.
  std::map<std::string, int64_t> used;
  auto fits = [&](const std::string &axis, int64_t extent) {
    auto it = opts.axisLimit.find(axis);
    if (it == opts.axisLimit.end())
      return true;
    int64_t u = used.count(axis) ? used[axis] : 1;
    return u * extent <= it->second;
  };
  auto place = [&](Factor &f, const std::string &axis) {
    f.axis = axis;
    used[axis] = (used.count(axis) ? used[axis] : 1) * f.extent;
  };
  bool onlyM = true;
  for (Factor &f : factors)
    if (opts.threadAxes && !opts.axes.empty() && coin(30)) {
      // A random axis of the family, else the next one that fits.
      size_t first =
          std::uniform_int_distribution<size_t>(0, opts.axes.size() - 1)(rng);
      for (size_t i = 0; i < opts.axes.size(); ++i) {
        const std::string &axis = opts.axes[(first + i) % opts.axes.size()];
        if (!fits(axis, f.extent))
          continue;
        place(f, axis);
        onlyM = false;
        break;
      }
    }
  bool required = opts.requireAxis.empty();
  for (Factor &f : factors)
    required |= f.axis == opts.requireAxis;
  if (!required)
    for (Factor &f : factors)
      if (f.axis == "m" && fits(opts.requireAxis, f.extent)) {
        place(f, opts.requireAxis);
        onlyM = false;
        required = true;
        break;
      }
  auto limited = [&](const std::string &axis) {
    return opts.axisLimit.count(axis) != 0;
  };
  // Physical order per axis: a random permutation, strides compact with
  // occasional gaps.
  std::map<std::string, int64_t> span;
  std::vector<size_t> order(factors.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::map<std::string, int64_t> next;
  for (size_t i : order) {
    Factor &f = factors[i];
    int64_t &n = next.try_emplace(f.axis, 1).first->second;
    if (opts.gaps && !(opts.swizzle && f.axis == "m") && !limited(f.axis) &&
        coin(15))
      n *= 2;
    f.stride = n;
    n *= f.extent;
  }
  IterList shard;
  for (const Factor &f : factors)
    shard.push_back({f.extent, f.stride, f.axis});
  IterList replica;
  auto spanOf = [&](const std::string &axis) {
    return next.count(axis) ? next[axis] : int64_t(1);
  };
  // The span of m without replicas: what a swizzle may permute.
  int64_t shardSpanM = spanOf("m");
  int replicaIters =
      opts.replicas && coin(60) ? (coin(40) ? opts.maxReplicaIters : 1) : 0;
  for (int r = 0; r < replicaIters; ++r) {
    std::vector<std::string> candidates = {"m"};
    if (opts.threadAxes)
      candidates.insert(candidates.end(), opts.axes.begin(), opts.axes.end());
    std::string axis = candidates[std::uniform_int_distribution<size_t>(
        0, candidates.size() - 1)(rng)];
    int64_t extent = coin(50) ? 2 : 3;
    // A limited axis takes the replica only if its span stays in bounds;
    // memory otherwise.
    if (limited(axis) && spanOf(axis) * extent > opts.axisLimit.at(axis))
      axis = "m";
    replica.push_back({extent, spanOf(axis), axis});
    next[axis] = spanOf(axis) * extent;
    required |= axis == opts.requireAxis;
    onlyM &= axis == "m";
  }
  if (!required) {
    // No factor fits the axis: a replica on it places the data there (the
    // optional replica above went to another axis).
    int64_t base = spanOf(opts.requireAxis);
    int64_t room = limited(opts.requireAxis)
                       ? opts.axisLimit.at(opts.requireAxis) / base
                       : 2;
    if (room >= 2) {
      replica.push_back({2, base, opts.requireAxis});
      onlyM = false;
    }
  }
  Coord offset;
  if (opts.offset && coin(30))
    offset.set("m", std::uniform_int_distribution<int64_t>(1, 5)(rng) * 8);
  if (opts.threadAxes && opts.threadOffsets && coin(25)) {
    std::vector<std::pair<std::string, int64_t>> room;
    for (const auto &[axis, limit] : opts.axisLimit)
      if (next.count(axis) && limit > spanOf(axis))
        room.push_back({axis, limit - spanOf(axis)});
    if (!room.empty()) {
      const auto &[axis, free] =
          room[std::uniform_int_distribution<size_t>(0, room.size() - 1)(rng)];
      offset.set(axis, std::uniform_int_distribution<int64_t>(1, free)(rng));
    }
  }
  Result<TileLayout> tile = TileLayout::create(shard, replica, offset);
  assert(tile && "generated layout must be valid");
  if (opts.swizzle && onlyM && coin(40)) {
    int64_t mSpan = shardSpanM;
    int bits = 0;
    while ((int64_t(1) << (bits + 1)) <= mSpan)
      ++bits;
    if (bits >= 2) {
      int perElement =
          std::uniform_int_distribution<int>(0, std::min(2, bits - 2))(rng);
      int room = bits - perElement;
      int len =
          std::uniform_int_distribution<int>(1, std::max(1, room / 2))(rng);
      int atom = std::uniform_int_distribution<int>(
          len, std::max(len, room - len))(rng);
      if (perElement + len + atom <= bits)
        if (Result<Swizzle> sw = Swizzle::create(perElement, len, atom))
          return Layout(*sw, *tile);
    }
  }
  return Layout(*tile);
}

inline Shape randomShape(std::mt19937_64 &rng, unsigned rank) {
  static const int64_t extents[] = {1, 2, 3, 4, 6, 8, 12, 16, 32};
  Shape shape;
  for (unsigned i = 0; i < rank; ++i)
    shape.push_back(extents[std::uniform_int_distribution<int>(1, 8)(rng)]);
  return shape;
}

} // namespace axe::testing

#endif // AXE_UNITTESTS_CONVERSION_RANDOMLAYOUTS_H
