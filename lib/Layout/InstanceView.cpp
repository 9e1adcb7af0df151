//===- InstanceView.cpp - The elements one instance of a layout holds -----===//

#include "axe/Layout/InstanceView.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace axe;

//===----------------------------------------------------------------------===//
// InstanceAxis
//===----------------------------------------------------------------------===//

bool InstanceAxis::dense() const {
  int64_t expected = 1;
  for (const InstanceDigit &d : digits) {
    if (d.stride != expected)
      return false;
    expected *= d.extent;
  }
  return true;
}

int64_t InstanceAxis::count() const {
  int64_t n = 1;
  for (const InstanceDigit &d : digits)
    n *= d.extent;
  return n;
}

void InstanceAxis::forEachCombination(
    llvm::function_ref<void(llvm::ArrayRef<int64_t>, int64_t)> fn) const {
  llvm::SmallVector<int64_t, 4> digit(digits.size(), 0);
  for (int64_t n = 0, total = count(); n < total; ++n) {
    int64_t u = 0;
    for (auto [j, d] : llvm::enumerate(digits))
      u += digit[j] * d.stride;
    fn(digit, u);
    for (size_t j = 0; j < digit.size(); ++j) {
      if (++digit[j] < digits[j].extent)
        break;
      digit[j] = 0;
    }
  }
}

std::optional<llvm::SmallVector<int64_t, 4>>
InstanceAxis::solve(int64_t t) const {
  int64_t u;
  if (__builtin_sub_overflow(t, offset, &u) || u < 0)
    return std::nullopt;
  if (tabled) {
    std::optional<llvm::SmallVector<int64_t, 4>> found;
    forEachCombination([&](llvm::ArrayRef<int64_t> digit, int64_t sum) {
      if (sum == u)
        found.emplace(digit.begin(), digit.end());
    });
    return found;
  }
  llvm::SmallVector<int64_t, 4> out(digits.size());
  // Each stride exceeds what the smaller digits can add up to, so the
  // largest digit is rest div stride.
  int64_t rest = u;
  for (size_t j = digits.size(); j-- > 0;) {
    out[j] = rest / digits[j].stride;
    rest %= digits[j].stride;
    if (out[j] >= digits[j].extent)
      return std::nullopt;
  }
  // A remainder below the smallest stride, or in a gap between strides.
  if (rest != 0)
    return std::nullopt;
  return out;
}

//===----------------------------------------------------------------------===//
// Building the view
//===----------------------------------------------------------------------===//

namespace {

/// A shard iter of the grouped layout with where it sits in the logical
/// index.
struct PlacedIter {
  Iter iter;
  unsigned dim;
  int64_t logicalStride;
};

/// The grouped shard iters, each with its dim and place value in that dim.
llvm::SmallVector<PlacedIter> placeIters(const GroupedLayout &grouped,
                                         unsigned rank) {
  llvm::SmallVector<PlacedIter> out;
  for (unsigned d = 0; d < rank; ++d) {
    llvm::ArrayRef<Iter> block = grouped.block(d);
    llvm::SmallVector<PlacedIter, 4> placed;
    int64_t place = 1;
    for (const Iter &it : llvm::reverse(block)) {
      placed.push_back({it, d, place});
      place *= it.extent;
    }
    out.append(placed.rbegin(), placed.rend());
  }
  return out;
}

std::string axesStr(llvm::ArrayRef<std::string> axes) {
  std::string out = "{";
  for (auto [i, a] : llvm::enumerate(axes))
    out += (i ? ", " : "") + a;
  return out + "}";
}

std::string digitStr(const InstanceDigit &d) {
  return std::string(d.replica ? "replica" : "shard") + " iter (" +
         std::to_string(d.extent) + " : " + std::to_string(d.stride) + ")";
}

/// Whether every sum of the axis's digits is reached by one combination
/// only (few combinations; their sums cannot overflow then).
bool sumsAreUnique(const InstanceAxis &axis) {
  int64_t combinations = 1;
  for (const InstanceDigit &d : axis.digits)
    if (mulOverflows(combinations, d.extent, combinations) ||
        combinations > InstanceAxis::kMaxTabled ||
        d.stride > (int64_t(1) << 40))
      return false;
  llvm::SmallVector<int64_t> sums;
  axis.forEachCombination(
      [&](llvm::ArrayRef<int64_t>, int64_t u) { sums.push_back(u); });
  llvm::sort(sums);
  return std::adjacent_find(sums.begin(), sums.end()) == sums.end();
}

/// Orders the digits of one axis by stride. Where they overlap, every
/// coordinate must still be one sum of digits (solve() searches them);
/// else an instance would hold an element twice.
Result<bool> orderDigits(InstanceAxis &axis) {
  llvm::stable_sort(axis.digits,
                    [](const InstanceDigit &a, const InstanceDigit &b) {
                      return a.stride < b.stride;
                    });
  for (size_t j = 0; j + 1 < axis.digits.size(); ++j) {
    InstanceDigit &lo = axis.digits[j];
    const InstanceDigit &hi = axis.digits[j + 1];
    int64_t reach;
    if (!mulOverflows(lo.stride, lo.extent, reach) && hi.stride >= reach)
      continue;
    if (sumsAreUnique(axis)) {
      axis.tabled = true;
      return true;
    }
    return fail("on instance axis '" + axis.axis + "' the " + digitStr(hi) +
                " overlaps the " + digitStr(lo) +
                " (|strides| ignoring sign), so one instance would hold "
                "an element twice or several elements per digit");
  }
  return true;
}

/// A digit that an instance's coordinate on `it.axis` fixes; a negative
/// stride becomes positive and moves the axis's offset to the walk's low
/// end.
Result<bool> addDigit(InstanceAxis &axis, const Iter &it, bool replica,
                      unsigned dim, int64_t logicalStride) {
  InstanceDigit d;
  d.extent = it.extent;
  d.stride = it.stride;
  d.replica = replica;
  d.dim = dim;
  d.logicalStride = logicalStride;
  if (it.stride < 0) {
    int64_t low;
    if (mulOverflows(it.extent - 1, it.stride, low) ||
        addOverflows(axis.offset, low, axis.offset))
      return fail("the reach of instance axis '" + axis.axis +
                  "' overflows int64");
    d.stride = -it.stride;
    d.reversed = true;
  }
  axis.digits.push_back(d);
  return true;
}

/// Failure with the common prefix naming the request.
Failure viewFailure(const Layout &layout, llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<std::string> axes, const std::string &why) {
  return fail("no per-instance view of " + layout.str() + " over " +
              shapeStr(shape) + " per instance of " + axesStr(axes) + ": " +
              why);
}

Result<bool> checkAxes(const Layout &layout, llvm::ArrayRef<std::string> axes) {
  for (auto [i, a] : llvm::enumerate(axes)) {
    if (!isValidAxisName(a))
      return fail("'" + a + "' is not an axis name");
    if (llvm::is_contained(axes.take_front(i), a))
      return fail("axis '" + a + "' is named twice");
  }
  // The swizzle mixes m coordinates, so instances on m would not hold a
  // digit-aligned set of elements.
  if (layout.effectiveSwizzle() && llvm::is_contained(axes, kDefaultAxis))
    return fail("the swizzle " + layout.swizzle()->str() +
                " permutes m, an instance axis");
  return true;
}

} // namespace

Result<InstanceView> InstanceView::get(const Layout &layout,
                                       llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<std::string> axesIn) {
  llvm::SmallVector<std::string, 2> names(axesIn.begin(), axesIn.end());
  llvm::sort(names);
  auto failWith = [&](const std::string &why) {
    return viewFailure(layout, shape, names, why);
  };
  if (auto ok = checkAxes(layout, axesIn); !ok)
    return failWith(ok.message());
  if (!layout.admits(shape))
    return failWith("the layout does not admit the shape");
  Result<GroupedLayout> grouped = group(layout.tile(), shape);
  if (!grouped)
    return failWith(grouped.message());
  // C0-C2 leave one replica iter per run of a walk, with positive strides:
  // the fewest digits to solve.
  Result<TileLayout> replicaPart = TileLayout::create(
      {},
      IterList(layout.tile().replica().begin(), layout.tile().replica().end()),
      layout.tile().offset());
  if (!replicaPart)
    return failWith(replicaPart.message());
  TileLayout replicas = canonicalize(*replicaPart);

  InstanceView view;
  view.logicalShape.assign(shape.begin(), shape.end());
  for (const std::string &a : names)
    view.axes.push_back({a, replicas.offset().get(a), {}});
  auto axisOf = [&](llvm::StringRef a) -> InstanceAxis * {
    for (InstanceAxis &ia : view.axes)
      if (ia.axis == a)
        return &ia;
    return nullptr;
  };

  IterList localShard;
  for (const PlacedIter &p : placeIters(*grouped, shape.size())) {
    InstanceAxis *ia = axisOf(p.iter.axis);
    if (ia && p.iter.stride != 0) {
      if (auto ok = addDigit(*ia, p.iter, false, p.dim, p.logicalStride); !ok)
        return failWith(ok.message());
      continue;
    }
    LocalIter local{p.dim, p.logicalStride, p.iter};
    if (p.iter.stride == 0)
      local.storage.axis = std::string(kDefaultAxis);
    view.iters.push_back(local);
    localShard.push_back(local.storage);
  }

  IterList localReplica;
  for (const Iter &r : replicas.replica()) {
    if (InstanceAxis *ia = axisOf(r.axis)) {
      if (auto ok = addDigit(*ia, r, true, 0, 0); !ok)
        return failWith(ok.message());
    } else {
      localReplica.push_back(r);
    }
  }
  for (InstanceAxis &ia : view.axes)
    if (auto ok = orderDigits(ia); !ok)
      return failWith(ok.message());

  Coord localOffset;
  for (const auto &[a, v] : replicas.offset().entries())
    if (!axisOf(a))
      localOffset.add(a, v);
  Result<TileLayout> local =
      TileLayout::create(localShard, localReplica, localOffset);
  if (!local)
    return failWith(local.message());
  view.localLayout = layout.withTile(*local);
  return view;
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

bool InstanceView::isInstanceAxis(llvm::StringRef axis) const {
  return llvm::any_of(axes,
                      [&](const InstanceAxis &a) { return a.axis == axis; });
}

Shape InstanceView::localShape() const {
  Shape s;
  for (const LocalIter &it : iters)
    s.push_back(it.storage.extent);
  if (s.empty())
    s.push_back(1);
  return s;
}

int64_t InstanceView::holdersPerElement() const {
  int64_t n = 1;
  for (const InstanceAxis &a : axes)
    for (const InstanceDigit &d : a.digits)
      if (d.replica)
        n *= d.extent;
  return n;
}

std::optional<Shape> InstanceView::instanceBase(const Coord &instance) const {
  Shape base(logicalShape.size(), 0);
  for (const InstanceAxis &a : axes) {
    auto digits = a.solve(instance.get(a.axis));
    if (!digits)
      return std::nullopt;
    for (auto [d, digit] : llvm::zip_equal(a.digits, *digits)) {
      if (d.replica)
        continue;
      int64_t own = d.reversed ? d.extent - 1 - digit : digit;
      base[d.dim] += own * d.logicalStride;
    }
  }
  return base;
}

Shape InstanceView::localOffset(int64_t j) const {
  assert(j >= 0 && j < localSize() && "local index out of range");
  Shape offset(logicalShape.size(), 0);
  // Local digits last-fastest, as the local layout reads j.
  for (const LocalIter &it : llvm::reverse(iters)) {
    offset[it.dim] += (j % it.storage.extent) * it.logicalStride;
    j /= it.storage.extent;
  }
  return offset;
}

llvm::SmallVector<HeldElement>
InstanceView::elementsOf(const Coord &instance) const {
  llvm::SmallVector<HeldElement> out;
  std::optional<Shape> base = instanceBase(instance);
  if (!base)
    return out;
  for (int64_t j = 0; j < localSize(); ++j) {
    HeldElement e;
    e.localIndex = j;
    e.logical = localOffset(j);
    for (auto [x, b] : llvm::zip_equal(e.logical, *base))
      x += b;
    for (const Coord &c : localLayout.apply(j))
      e.storage.push_back(c);
    llvm::sort(e.storage);
    out.push_back(std::move(e));
  }
  return out;
}
