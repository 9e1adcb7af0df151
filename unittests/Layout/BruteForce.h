//===- BruteForce.h - Reference semantics and random layouts ----*- C++ -*-===//
//
// An independent, deliberately naive model of docs/LayoutSemantics.md section 2
// that the property tests compare the algebra against, and a seeded generator
// of random layouts. Nothing here calls the algebra's apply().
//
//===----------------------------------------------------------------------===//

#ifndef AXE_UNITTESTS_LAYOUT_BRUTEFORCE_H
#define AXE_UNITTESTS_LAYOUT_BRUTEFORCE_H

#include "axe/Layout/Swizzle.h"
#include "axe/Layout/TileLayout.h"

#include <initializer_list>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace axe::testing {

/// A physical point as a plain map without zero entries.
using Point = std::map<std::string, int64_t>;
using PointSet = std::set<Point>;

inline void addTo(Point &p, const std::string &axis, int64_t v) {
  int64_t &slot = p[axis];
  slot += v;
  if (slot == 0)
    p.erase(axis);
}

/// A point written out: point({{"laneid", 8}, {"m", 1}}).
inline Point
point(std::initializer_list<std::pair<const char *, int64_t>> entries) {
  Point p;
  for (auto [axis, v] : entries)
    addTo(p, axis, v);
  return p;
}

/// L(f) computed straight from the definition: digits last-fastest, replica
/// sets enumerated, offset added.
inline PointSet referenceApply(const TileLayout &layout, int64_t flat) {
  Point base;
  int64_t rest = flat;
  auto shard = layout.shard();
  for (size_t k = shard.size(); k-- > 0;) {
    int64_t digit = rest % shard[k].extent;
    rest /= shard[k].extent;
    addTo(base, shard[k].axis, digit * shard[k].stride);
  }
  for (const auto &[axis, v] : layout.offset().entries())
    addTo(base, axis, v);
  std::vector<Point> acc{base};
  for (const Iter &r : layout.replica()) {
    std::vector<Point> next;
    for (const Point &p : acc)
      for (int64_t i = 0; i < r.extent; ++i) {
        Point q = p;
        addTo(q, r.axis, i * r.stride);
        next.push_back(q);
      }
    acc = std::move(next);
  }
  return PointSet(acc.begin(), acc.end());
}

/// The whole map as a vector indexed by flat index.
inline std::vector<PointSet> referenceMap(const TileLayout &layout) {
  std::vector<PointSet> out;
  for (int64_t f = 0; f < layout.size(); ++f)
    out.push_back(referenceApply(layout, f));
  return out;
}

inline Point toPoint(const Coord &c) {
  return Point(c.entries().begin(), c.entries().end());
}

template <typename Range> PointSet toPointSet(const Range &coords) {
  PointSet s;
  for (const Coord &c : coords)
    s.insert(toPoint(c));
  return s;
}

/// A shape or coordinate as the reference functions below take it.
using Vec = std::vector<int64_t>;

inline Vec vec(llvm::ArrayRef<int64_t> a) { return Vec(a.begin(), a.end()); }

/// Row-major digits of `flat` in `shape` (independent of the library's).
inline std::vector<int64_t>
referenceUnflatten(int64_t flat, const std::vector<int64_t> &shape) {
  std::vector<int64_t> x(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    x[d] = flat % shape[d];
    flat /= shape[d];
  }
  return x;
}

inline int64_t referenceFlatten(const std::vector<int64_t> &x,
                                const std::vector<int64_t> &shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + x[d];
  return flat;
}

/// Every point of `points` moved by `delta`.
inline PointSet shifted(const PointSet &points, const Point &delta) {
  PointSet out;
  for (Point p : points) {
    for (const auto &[axis, v] : delta)
      addTo(p, axis, v);
    out.insert(p);
  }
  return out;
}

/// Seeded generator of small random layouts: several axes, zero and negative
/// strides, replicas and offsets, sizes kept small enough to enumerate.
class LayoutGenerator {
public:
  explicit LayoutGenerator(uint64_t seed) : rng(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng); }

  std::string axis() {
    static const char *axes[] = {"m", "m", "laneid", "warpid", "P", "F"};
    return axes[uniform(0, 5)];
  }

  Iter iter(bool allowNegative = true, bool allowZero = true) {
    static const int64_t extents[] = {1, 2, 2, 3, 4, 4, 8};
    Iter it;
    it.extent = extents[uniform(0, 6)];
    it.axis = axis();
    int64_t s = uniform(allowZero ? 0 : 1, 16);
    if (allowNegative && coin(0.15))
      s = -s;
    it.stride = s;
    return it;
  }

  /// A layout with at most `maxSize` elements.
  TileLayout layout(int64_t maxSize = 256, bool withReplica = true,
                    bool withOffset = true) {
    IterList shard;
    int64_t size = 1;
    int n = uniform(0, 5);
    for (int i = 0; i < n; ++i) {
      Iter it = iter();
      if (size * it.extent > maxSize)
        break;
      size *= it.extent;
      shard.push_back(it);
    }
    IterList replica;
    if (withReplica && coin(0.4)) {
      int r = uniform(1, 2);
      for (int i = 0; i < r; ++i) {
        Iter it = iter();
        it.extent = std::min<int64_t>(it.extent, 4);
        replica.push_back(it);
      }
    }
    Coord offset;
    if (withOffset && coin(0.4))
      offset.add(axis(), uniform(-8, 8));
    return *TileLayout::create(shard, replica, offset);
  }

  /// A random factorization of `size` into `rank` dims (row-major shape).
  Shape shapeFor(int64_t size, int rank) {
    Shape s(rank, 1);
    int64_t rest = size;
    for (int d = 0; d < rank - 1; ++d) {
      std::vector<int64_t> divisors;
      for (int64_t k = 1; k <= rest; ++k)
        if (rest % k == 0)
          divisors.push_back(k);
      s[d] = divisors[uniform(0, divisors.size() - 1)];
      rest /= s[d];
    }
    s[rank - 1] = rest;
    return s;
  }

  std::mt19937_64 &engine() { return rng; }

private:
  std::mt19937_64 rng;
};

/// A case for the per-instance view: a layout of at most `maxSize` elements,
/// swizzled about one time in three, a shape for it, and a random subset of
/// `axisChoices` as the instance axes.
struct InstanceCase {
  Layout layout;
  Shape shape;
  std::vector<std::string> axes;
};

inline InstanceCase
randomInstanceCase(LayoutGenerator &gen, int64_t maxSize,
                   std::initializer_list<const char *> axisChoices) {
  TileLayout tile = gen.layout(maxSize);
  Shape shape = gen.shapeFor(tile.size(), int(gen.uniform(1, 3)));
  std::vector<std::string> axes;
  for (const char *a : axisChoices)
    if (gen.coin())
      axes.push_back(a);
  Layout layout(tile);
  if (gen.coin(0.3)) {
    int b = int(gen.uniform(0, 2));
    layout = Layout(
        *Swizzle::create(int(gen.uniform(0, 2)), b, int(gen.uniform(b, 3))),
        tile);
  }
  return {layout, shape, axes};
}

} // namespace axe::testing

#endif // AXE_UNITTESTS_LAYOUT_BRUTEFORCE_H
