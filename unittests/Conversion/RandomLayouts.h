//===- RandomLayouts.h - Seeded random layouts that can be stored -*- C++
//-*-===//
//
// Layouts a CPU buffer can hold: every dim split into random factors, the
// factors placed in a random physical order on m (or on thread axes), with
// optional gaps, swizzle, replicas and offset. Used to check generated code
// beyond hand-picked cases.
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
  static const char *threadAxes[] = {"laneid", "warpid"};
  bool onlyM = true;
  for (Factor &f : factors)
    if (opts.threadAxes && coin(30)) {
      f.axis = threadAxes[coin(50)];
      onlyM = false;
    }
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
    if (opts.gaps && !(opts.swizzle && f.axis == "m") && coin(15))
      n *= 2;
    f.stride = n;
    n *= f.extent;
  }
  IterList shard;
  for (const Factor &f : factors)
    shard.push_back({f.extent, f.stride, f.axis});
  IterList replica;
  if (opts.replicas && coin(60)) {
    std::string axis = opts.threadAxes && coin(50) ? "warpid" : "m";
    int64_t base = next.count(axis) ? next[axis] : 1;
    replica.push_back({coin(50) ? 2 : 3, base, axis});
  }
  Coord offset;
  if (opts.offset && coin(30))
    offset.set("m", std::uniform_int_distribution<int64_t>(1, 5)(rng) * 8);
  Result<TileLayout> tile = TileLayout::create(shard, replica, offset);
  assert(tile && "generated layout must be valid");
  if (opts.swizzle && onlyM && coin(40)) {
    int64_t mSpan = next.count("m") ? next["m"] : 1;
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
