//===- Slice.cpp - Layouts of box regions of a tensor ---------------------===//
//
// slice() works per grouped dim (docs/LayoutSemantics.md section 8; the Axe
// paper, appendix E): the dim's block of iters is a mixed radix, fastest last.
// The fastest digits that the region walks whole are peeled; the next (the
// pivot) is walked either without a wrap (one iter) or across exactly one wrap
// in two equal halves (two iters). With a start known only by its alignment,
// the iters must not depend on the start, so only peeling and the no-wrap form
// apply, and for every allowed start.
//
//===----------------------------------------------------------------------===//

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"

#include <cstdint>
#include <numeric>
#include <optional>
#include <set>

using namespace axe;

namespace {

/// Above this many allowed starts, the largest pivot digit is bounded
/// rather than computed exactly (which can only reject, never mislead).
constexpr int64_t kStartEnumerationLimit = int64_t(1) << 16;

/// Divisors of an extent are searched up to this bound.
constexpr int64_t kDivisorSearchLimit = int64_t(1) << 16;

/// How many alignments the hint search tries before giving up.
constexpr int kHintAttempts = 16;

std::string num(int64_t v) { return std::to_string(v); }

std::string iterStr(const Iter &it) {
  std::string s = "(" + num(it.extent) + " : " + num(it.stride);
  if (it.axis != kDefaultAxis)
    s += "@" + it.axis;
  return s + ")";
}

std::string regionStr(unsigned dim, const SliceStart &start, int64_t len) {
  std::string d = "dim " + num(dim) + " ";
  int64_t end;
  if (start.known && addOverflows(start.value, len, end))
    return d + "[" + num(start.value) + ", " + num(start.value) + " + " +
           num(len) + ")";
  if (start.known)
    return d + "[" + num(start.value) + ", " + num(end) + ")";
  return d + "[s, s + " + num(len) + ") with s a multiple of " +
         num(start.alignment);
}

/// The block's share of the base map at index `value` of its dim.
Coord contribution(llvm::ArrayRef<Iter> block, int64_t value) {
  Coord c;
  for (const Iter &it : llvm::reverse(block)) {
    c.add(it.axis, (value % it.extent) * it.stride);
    value /= it.extent;
  }
  return c;
}

/// One dim of the slice: its iters (fastest last) and, for a known start,
/// the start's contribution.
struct DimSlice {
  IterList iters;
  Coord offset;
};

/// The state of the walk after peeling: the pivot iter, the place value of
/// its digit, the length left in units of that place (1 when the region is
/// walked whole), and the peeled iters (fastest last).
struct Peeled {
  IterList iters;
  int pivot = -1;
  int64_t place = 1;
  int64_t rem = 1;
};

/// Peels the fastest iters while `zeroDigit(i)` says the start's digit of
/// iter i is 0 and the remaining length is a multiple of its extent.
template <typename Fn>
Peeled peel(llvm::ArrayRef<Iter> block, int64_t len, Fn zeroDigit) {
  Peeled p;
  p.rem = len;
  int i = int(block.size()) - 1;
  while (p.rem > 1 && i >= 0 && p.rem % block[i].extent == 0 && zeroDigit(i)) {
    if (block[i].extent > 1)
      p.iters.insert(p.iters.begin(), block[i]);
    p.rem /= block[i].extent;
    p.place *= block[i].extent;
    --i;
  }
  p.pivot = i;
  return p;
}

IterList withLeading(llvm::ArrayRef<Iter> lead, const IterList &rest) {
  IterList out(lead.begin(), lead.end());
  llvm::append_range(out, rest);
  return out;
}

/// What would make a region that wraps at an unaligned start (digit u > 0
/// of an iter of extent e) fit, for a failure message.
std::string knownStartHint(int64_t e, int64_t u, int64_t place, int64_t rem) {
  std::string whole = num(e * place);
  std::string hint = rem <= e || rem % e == 0
                         ? "align the start to " + whole
                         : "align the start to " + whole +
                               " and use a length that is a multiple of " +
                               whole + " or at most " + whole;
  return hint + ", or use a length of at most " + num((e - u) * place);
}

/// The slice of one dim at a known start.
Result<DimSlice> sliceKnown(llvm::ArrayRef<Iter> block, unsigned dim,
                            int64_t start, int64_t len) {
  Shape digits(block.size());
  for (int64_t i = int64_t(block.size()) - 1, v = start; i >= 0; --i) {
    digits[i] = v % block[i].extent;
    v /= block[i].extent;
  }
  Peeled p = peel(block, len, [&](int i) { return digits[i] == 0; });
  DimSlice out{p.iters, contribution(block, start)};
  if (p.rem == 1)
    return out;
  if (p.pivot < 0)
    return fail("slice: dim " + num(dim) + " is longer than its iters");

  const Iter &piv = block[p.pivot];
  int64_t u = digits[p.pivot], e = piv.extent;
  if (u + p.rem <= e) { // No wrap: only the pivot digit moves.
    out.iters = withLeading({Iter{p.rem, piv.stride, piv.axis}}, out.iters);
    return out;
  }

  std::string region = regionStr(dim, SliceStart::constant(start), len);
  int64_t half = p.rem / 2;
  if (p.pivot > 0 && p.rem % 2 == 0 && u + half == e) {
    // One wrap, two equal halves: each walks the pivot without a wrap; the
    // second starts where the carry lands. Its step from the first is the
    // difference of the two starts' contributions (s_left - u * s_pivot
    // when the left digit has room; a longer carry is covered too).
    Coord step = contribution(block, start + half * p.place);
    for (const auto &[axis, v] : out.offset.entries()) {
      int64_t diff;
      if (__builtin_sub_overflow(step.get(axis), v, &diff))
        return fail("slice of " + region + ": the step across the wrap of " +
                    iterStr(piv) + " overflows int64");
      step.set(axis, diff);
    }
    if (step.entries().size() > 1)
      return fail("slice of " + region + " crosses a wrap of the iter " +
                  iterStr(piv) + "; its two halves are " + step.str() +
                  " apart, on more than one axis, which no iter can step; " +
                  knownStartHint(e, u, p.place, p.rem));
    Iter outer{2, 0, std::string(kDefaultAxis)};
    if (!step.empty())
      outer = {2, step.entries().begin()->second,
               step.entries().begin()->first};
    out.iters =
        withLeading({outer, Iter{half, piv.stride, piv.axis}}, out.iters);
    return out;
  }
  // Here u == 0 means the length overruns: had it been a whole number of
  // wraps, the pivot would have been peeled.
  if (u == 0)
    return fail("slice of " + region + " walks " + num(p.rem * p.place) +
                " elements across an iter of extent " + num(e) + " " +
                iterStr(piv) + " (place " + num(p.place) +
                "): more than one wrap, but not a whole number of wraps; use "
                "a length that is a multiple of " +
                num(e * p.place) + " or at most " + num(e * p.place));
  return fail("slice of " + region + " crosses a wrap of an iter of extent " +
              num(e) + " " + iterStr(piv) + " at an unaligned start (digit " +
              num(u) + "); " + knownStartHint(e, u, p.place, p.rem));
}

/// (j * a) mod e without overflow.
int64_t mulMod(int64_t j, int64_t a, int64_t e) {
  return int64_t((__int128(j) * (a % e)) % e);
}

/// The largest of (j * a) mod e for 0 <= j <= count; an upper bound when
/// `count` is too large to enumerate and shorter than the full cycle.
int64_t largestDigit(int64_t a, int64_t e, int64_t count) {
  int64_t g = std::gcd(a, e);
  if (count >= e / g - 1 || count > kStartEnumerationLimit)
    return e - g;
  int64_t best = 0;
  for (int64_t j = 0; j <= count; ++j)
    best = std::max(best, mulMod(j, a, e));
  return best;
}

/// lcm(a, b), or 0 on overflow.
int64_t checkedLcm(int64_t a, int64_t b) {
  int64_t out;
  return mulOverflows(a / std::gcd(a, b), b, out) ? 0 : out;
}

/// Why an aligned-start slice failed, and an alignment that gets past the
/// failing iter (0 when none does).
struct AlignedFailure {
  std::string reason;
  int64_t nextAlignment = 0;
};

/// Smallest multiple m of `a` with gcd(m, e) >= rem (then no multiple of m
/// wraps an iter of extent e within rem steps), or 0. Divisors of huge
/// extents are not searched: e itself always qualifies.
int64_t alignmentAvoidingWrap(int64_t a, int64_t e, int64_t rem) {
  int64_t best = checkedLcm(a, e);
  auto consider = [&](int64_t g) {
    int64_t m = g >= rem ? checkedLcm(a, g) : 0;
    if (m && (best == 0 || m < best))
      best = m;
  };
  for (int64_t g = 1; g <= kDivisorSearchLimit && g <= e / g; ++g)
    if (e % g == 0) {
      consider(g);
      consider(e / g);
    }
  return best;
}

/// The slice of one dim whose start is any multiple of `align` that keeps
/// the region inside [0, dimSize): peeling and the no-wrap form only, since
/// start 0 never wraps and the iters may not depend on the start.
std::optional<DimSlice> sliceAligned(llvm::ArrayRef<Iter> block,
                                     int64_t dimSize, int64_t align,
                                     int64_t len, AlignedFailure &why) {
  int64_t maxStart = dimSize - len;
  int64_t alignLeft = align;
  Peeled p = peel(block, len, [&](int i) {
    if (alignLeft % block[i].extent != 0)
      return false;
    alignLeft /= block[i].extent;
    return true;
  });
  if (p.rem == 1)
    return DimSlice{p.iters, {}};
  if (p.pivot < 0) {
    why.reason = "the dim is longer than its iters";
    return std::nullopt;
  }

  const Iter &piv = block[p.pivot];
  int64_t e = piv.extent;
  // Allowed starts, in units of the pivot's place: j * alignLeft for
  // 0 <= j <= count.
  int64_t count = maxStart / p.place / alignLeft;
  int64_t top = largestDigit(alignLeft, e, count);
  if (top + p.rem <= e)
    return DimSlice{withLeading({Iter{p.rem, piv.stride, piv.axis}}, p.iters),
                    {}};

  if (p.rem > e && p.rem % e != 0) {
    why.reason = "it walks " + num(p.rem * p.place) +
                 " elements across an iter of extent " + num(e) + " " +
                 iterStr(piv) + " (place " + num(p.place) +
                 "), not a whole number of its wraps";
    return std::nullopt;
  }
  int64_t witness = 0;
  for (int64_t j = 1; j <= std::min(count, kStartEnumerationLimit); ++j)
    if (mulMod(j, alignLeft, e) + p.rem > e) {
      witness = j * alignLeft * p.place;
      break;
    }
  why.reason = "it crosses a wrap of an iter of extent " + num(e) + " " +
               iterStr(piv) + " at an unaligned start" +
               (witness ? " (e.g. s = " + num(witness) + ")" : "");
  int64_t m = p.rem <= e ? alignmentAvoidingWrap(alignLeft, e, p.rem)
                         : checkedLcm(alignLeft, e);
  int64_t next;
  why.nextAlignment =
      m && !mulOverflows(m, p.place, next) && next <= maxStart ? next : 0;
  return std::nullopt;
}

/// Follows the failures' suggested alignments to one that works, if any.
std::optional<int64_t> workingAlignment(llvm::ArrayRef<Iter> block,
                                        int64_t dimSize, int64_t align,
                                        int64_t len) {
  for (int k = 0; k < kHintAttempts && align > 0; ++k) {
    AlignedFailure why;
    if (sliceAligned(block, dimSize, align, len, why))
      return align;
    align = why.nextAlignment;
  }
  return std::nullopt;
}

Result<DimSlice> sliceDim(llvm::ArrayRef<Iter> block, int64_t dimSize,
                          unsigned dim, const SliceStart &start, int64_t len) {
  if (start.known)
    return sliceKnown(block, dim, start.value, len);
  // With no other start in range, the start is 0 (contribution 0).
  if (start.alignment > dimSize - len) {
    Result<DimSlice> at0 = sliceKnown(block, dim, 0, len);
    if (at0)
      at0->offset = Coord();
    return at0;
  }
  AlignedFailure why;
  if (std::optional<DimSlice> s =
          sliceAligned(block, dimSize, start.alignment, len, why))
    return *s;
  std::string message =
      "slice of " + regionStr(dim, start, len) + ": " + why.reason;
  if (why.nextAlignment)
    if (std::optional<int64_t> a =
            workingAlignment(block, dimSize, why.nextAlignment, len))
      return fail(message + "; align the start to " + num(*a));
  if (len <= dimSize && dimSize % len == 0 && len != start.alignment)
    if (std::optional<int64_t> a = workingAlignment(block, dimSize, len, len))
      return fail(message + "; align the start to " + num(*a));
  return fail(message + "; no alignment of the start avoids it");
}

std::optional<Failure> checkRegion(const TileLayout &layout,
                                   llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<SliceStart> starts,
                                   llvm::ArrayRef<int64_t> lengths) {
  if (starts.size() != shape.size() || lengths.size() != shape.size())
    return fail("slice: a region of rank " + num(starts.size()) + " (" +
                num(lengths.size()) + " lengths) for a shape of rank " +
                num(shape.size()));
  if (Result<int64_t> n = shapeSize(shape); !n)
    return fail("slice: " + n.message());
  if (!layout.admits(shape))
    return fail("slice: layout " + layout.str() + " of size " +
                num(layout.size()) + " does not admit shape " +
                shapeStr(shape));
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t len = lengths[d];
    if (len < 1 || len > shape[d])
      return fail("slice: dim " + num(d) + " has length " + num(len) +
                  "; it must be in [1, " + num(shape[d]) + "]");
    const SliceStart &s = starts[d];
    if (s.known && (s.value < 0 || s.value > shape[d] - len))
      return fail("slice: " + regionStr(d, s, len) +
                  " is outside the dim's range [0, " + num(shape[d]) + ")");
    if (!s.known && s.alignment < 1)
      return fail("slice: the start of dim " + num(d) + " has alignment " +
                  num(s.alignment) + "; it must be >= 1");
  }
  return std::nullopt;
}

/// The slice over one grouping of the layout.
Result<TileLayout> sliceGrouped(const GroupedLayout &g,
                                llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<SliceStart> starts,
                                llvm::ArrayRef<int64_t> lengths) {
  IterList shard;
  Coord offset = g.layout.offset();
  for (unsigned d = 0; d < shape.size(); ++d) {
    Result<DimSlice> s =
        sliceDim(g.block(d), shape[d], d, starts[d], lengths[d]);
    if (!s)
      return s.takeFailure();
    llvm::append_range(shard, s->iters);
    for (const auto &[axis, v] : s->offset.entries()) {
      int64_t sum;
      if (addOverflows(offset.get(axis), v, sum))
        return fail("slice: the offset on axis '" + axis + "' overflows int64");
      offset.set(axis, sum);
    }
  }
  IterList replica(g.layout.replica().begin(), g.layout.replica().end());
  Result<TileLayout> out = TileLayout::create(shard, replica, offset);
  if (!out)
    return fail("slice: " + out.message());
  return out;
}

} // namespace

Result<TileLayout> axe::slice(const TileLayout &layout,
                              llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<SliceStart> starts,
                              llvm::ArrayRef<int64_t> lengths) {
  if (auto f = checkRegion(layout, shape, starts, lengths))
    return *f;
  // The layout as written, then its canonical form: both group with the
  // same per-dim contributions (canonicalization keeps the base map), but
  // the canonical one may group where the other does not, or fuse iters
  // that slice better.
  std::optional<Failure> first;
  const TileLayout canonical = canonicalize(layout);
  for (const TileLayout *form : {&layout, &canonical}) {
    if (form == &canonical && canonical == layout)
      break;
    Result<GroupedLayout> g = group(*form, shape);
    if (!g) {
      if (!first)
        first = fail("slice: the layout does not group by " + shapeStr(shape) +
                     ": " + g.message());
      continue;
    }
    Result<TileLayout> out = sliceGrouped(*g, shape, starts, lengths);
    if (out)
      return out;
    if (!first)
      first = out.takeFailure();
  }
  return *first;
}

Result<llvm::SmallVector<std::string, 4>>
axe::sliceStartAxes(const TileLayout &layout, llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<SliceStart> starts,
                    llvm::ArrayRef<int64_t> lengths) {
  if (auto f = checkRegion(layout, shape, starts, lengths))
    return *f;
  // Every grouping has the same per-dim contributions (the base map), so
  // the first one that exists answers.
  Result<GroupedLayout> g = group(layout, shape);
  if (!g)
    g = group(canonicalize(layout), shape);
  if (!g)
    return fail("slice: the layout does not group by " + shapeStr(shape) +
                ": " + g.message());
  std::set<std::string> axes;
  for (unsigned d = 0; d < shape.size(); ++d) {
    const SliceStart &s = starts[d];
    if (s.known)
      continue;
    llvm::ArrayRef<Iter> block = g->block(d);
    int64_t count = (shape[d] - lengths[d]) / s.alignment;
    if (count > kStartEnumerationLimit) {
      // Too many starts to try: every axis the dim moves along.
      for (const Iter &it : block)
        if (it.extent > 1 && it.stride != 0)
          axes.insert(it.axis);
      continue;
    }
    for (int64_t k = 1; k <= count; ++k) {
      Coord c = contribution(block, k * s.alignment);
      for (const auto &[axis, v] : c.entries())
        if (v != 0)
          axes.insert(axis);
    }
  }
  return llvm::SmallVector<std::string, 4>(axes.begin(), axes.end());
}

Result<TileLayout> axe::slice(const TileLayout &layout,
                              llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<int64_t> starts,
                              llvm::ArrayRef<int64_t> lengths) {
  llvm::SmallVector<SliceStart, 4> known;
  for (int64_t s : starts)
    known.push_back(SliceStart::constant(s));
  return slice(layout, shape, known, lengths);
}
