//===- Tile.cpp - Tile (Kronecker product), direct sum and their inverses -===//
//
// tile(A, B) and A (+) B interleave the grouped blocks of the outer and inner
// layouts per dim (docs/LayoutSemantics.md section 7; the Axe paper, appendices
// C, D, F). The inverses read a candidate operand off the interleaved grouping
// of the given layout, then confirm it by rebuilding the layout and comparing
// maps: they answer "no" with a reason rather than return a wrong operand.
//
//===----------------------------------------------------------------------===//

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>

using namespace axe;

namespace {

/// Tiling scales the outer layout by the inner span; the direct sum does not.
enum class Mode { Tile, DirectSum };

/// Above this many elements, a block's digit map is not enumerated.
constexpr int64_t kBlockEnumerationLimit = int64_t(1) << 16;

/// "(8 : 65)" for one iter, "(8, 2) : (64, 1@laneid)" for several.
std::string itersStr(llvm::ArrayRef<Iter> iters) {
  if (iters.empty())
    return "()";
  std::string extents, strides;
  for (auto [i, it] : llvm::enumerate(iters)) {
    extents += (i ? ", " : "") + std::to_string(it.extent);
    strides += (i ? ", " : "") + std::to_string(it.stride);
    if (it.axis != kDefaultAxis)
      strides += "@" + it.axis;
  }
  if (iters.size() == 1)
    return "(" + extents + " : " + strides + ")";
  return "(" + extents + ") : (" + strides + ")";
}

std::string iterStr(const Iter &it) {
  return itersStr(llvm::ArrayRef<Iter>(it));
}

/// A layout and the shape it is read with, for argument checks.
struct Operand {
  const TileLayout &layout;
  llvm::ArrayRef<int64_t> shape;
  const char *role;
};

std::optional<Failure> checkAdmits(llvm::StringRef op, const Operand &x) {
  if (Result<int64_t> n = shapeSize(x.shape); !n)
    return fail(op.str() + ": " + x.role + " shape: " + n.message());
  if (!x.layout.admits(x.shape))
    return fail(op.str() + ": the " + x.role + " layout " + x.layout.str() +
                " has " + std::to_string(x.layout.size()) +
                " elements and does not admit shape " + shapeStr(x.shape));
  return std::nullopt;
}

/// group(), retried on the canonical form (same map, often fewer iters)
/// when the layout as written does not group.
Result<GroupedLayout> groupAnyForm(const TileLayout &layout,
                                   llvm::ArrayRef<int64_t> shape) {
  Result<GroupedLayout> grouped = group(layout, shape);
  if (grouped)
    return grouped;
  TileLayout canonical = canonicalize(layout);
  if (canonical == layout)
    return grouped;
  Result<GroupedLayout> retry = group(canonical, shape);
  return retry ? retry : grouped;
}

/// (outer0, inner0, outer1, inner1, ...): the shape tile(A, B) groups by.
Shape interleave(llvm::ArrayRef<int64_t> outer, llvm::ArrayRef<int64_t> inner) {
  Shape out;
  for (auto [o, i] : llvm::zip(outer, inner)) {
    out.push_back(o);
    out.push_back(i);
  }
  return out;
}

/// The factor by which tiling multiplies coordinates on `axis`.
int64_t scaleFactor(Mode mode, const TileLayout &inner, llvm::StringRef axis) {
  return mode == Mode::Tile ? inner.span(axis) : 1;
}

Result<Iter> scaleIter(Iter it, int64_t factor) {
  if (mulOverflows(it.stride, factor, it.stride))
    return fail("scaling iter " + iterStr(it) + " by " +
                std::to_string(factor) + " overflows int64");
  return it;
}

bool addChecked(Coord &c, llvm::StringRef axis, int64_t delta) {
  int64_t sum;
  if (addOverflows(c.get(axis), delta, sum))
    return false;
  c.set(axis, sum);
  return true;
}

/// tile() and directSum(): per dim, the outer block (scaled when tiling),
/// then the inner block.
Result<TileLayout> combine(Mode mode, llvm::StringRef op, Operand inner,
                           Operand outer) {
  if (inner.shape.size() != outer.shape.size())
    return fail(op.str() + ": the inner shape " + shapeStr(inner.shape) +
                " and the outer shape " + shapeStr(outer.shape) +
                " have different ranks");
  if (auto f = checkAdmits(op, inner))
    return *f;
  if (auto f = checkAdmits(op, outer))
    return *f;
  Result<GroupedLayout> gi = groupAnyForm(inner.layout, inner.shape);
  if (!gi)
    return fail(op.str() + ": the inner layout does not group by " +
                shapeStr(inner.shape) + ": " + gi.message());
  Result<GroupedLayout> go = groupAnyForm(outer.layout, outer.shape);
  if (!go)
    return fail(op.str() + ": the outer layout does not group by " +
                shapeStr(outer.shape) + ": " + go.message());

  auto scaled = [&](const Iter &it) {
    return scaleIter(it, scaleFactor(mode, inner.layout, it.axis));
  };
  IterList shard,
      replica(gi->layout.replica().begin(), gi->layout.replica().end());
  for (unsigned d = 0; d < inner.shape.size(); ++d) {
    for (const Iter &it : go->block(d)) {
      Result<Iter> s = scaled(it);
      if (!s)
        return fail(op.str() + ": " + s.message());
      shard.push_back(*s);
    }
    llvm::append_range(shard, gi->block(d));
  }
  for (const Iter &it : go->layout.replica()) {
    Result<Iter> s = scaled(it);
    if (!s)
      return fail(op.str() + ": " + s.message());
    replica.push_back(*s);
  }
  Coord offset = gi->layout.offset();
  for (const auto &[axis, v] : go->layout.offset().entries()) {
    int64_t s;
    if (mulOverflows(v, scaleFactor(mode, inner.layout, axis), s) ||
        !addChecked(offset, axis, s))
      return fail(op.str() + ": the offset on axis '" + axis +
                  "' overflows int64");
  }
  Result<TileLayout> out = TileLayout::create(shard, replica, offset);
  if (!out)
    return fail(op.str() + ": " + out.message());
  return out;
}

//===----------------------------------------------------------------------===//
// Helpers of the inverses
//===----------------------------------------------------------------------===//

Coord blockBase(llvm::ArrayRef<Iter> block, int64_t index) {
  Coord c;
  for (const Iter &it : llvm::reverse(block)) {
    c.add(it.axis, (index % it.extent) * it.stride);
    index /= it.extent;
  }
  return c;
}

int64_t blockSize(llvm::ArrayRef<Iter> block) {
  int64_t n = 1;
  for (const Iter &it : block)
    n *= it.extent;
  return n;
}

/// Whether two iter lists walk the same digit map (exact: a "false" that
/// canonical forms cannot settle is settled by enumeration, or stays false
/// when too large, which makes the caller answer "no").
bool sameDigitMap(llvm::ArrayRef<Iter> x, llvm::ArrayRef<Iter> y) {
  int64_t n = blockSize(x);
  if (n != blockSize(y))
    return false;
  Result<TileLayout> lx = TileLayout::create(IterList(x.begin(), x.end()));
  Result<TileLayout> ly = TileLayout::create(IterList(y.begin(), y.end()));
  if (lx && ly && canonicalize(*lx).shard() == canonicalize(*ly).shard())
    return true;
  if (n > kBlockEnumerationLimit)
    return false;
  for (int64_t f = 0; f < n; ++f)
    if (blockBase(x, f) != blockBase(y, f))
      return false;
  return true;
}

bool trivialReplica(const Iter &it) { return it.extent == 1 || it.stride == 0; }

/// Removes one walk `part` from `rest`: an equal walk, or a piece of a
/// longer one, as (E, s) walks the same points as (E/e, e*s) then (e, s).
bool removeWalk(IterList &rest, const Iter &part) {
  for (auto *it = rest.begin(); it != rest.end(); ++it)
    if (*it == part) {
      rest.erase(it);
      return true;
    }
  for (Iter &w : rest) {
    if (w.axis != part.axis || w.extent % part.extent != 0)
      continue;
    int64_t q = w.extent / part.extent, outerStride;
    if (w.stride == part.stride &&
        !mulOverflows(part.extent, part.stride, outerStride)) {
      w = {q, outerStride, w.axis};
      return true;
    }
    if (!mulOverflows(q, w.stride, outerStride) && outerStride == part.stride) {
      w = {q, w.stride, w.axis};
      return true;
    }
  }
  return false;
}

/// The replica walks of `whole` left after taking out those of `part` (the
/// replica set of a tile is the sum of its operands' sets), or nothing.
std::optional<IterList> subtractReplicas(llvm::ArrayRef<Iter> whole,
                                         llvm::ArrayRef<Iter> part) {
  IterList rest;
  for (const Iter &it : whole)
    if (!trivialReplica(it))
      rest.push_back(it);
  for (const Iter &p : part)
    if (!trivialReplica(p) && !removeWalk(rest, p))
      return std::nullopt;
  return rest;
}

/// Confirms that `rebuilt` (the operation applied to the recovered operand)
/// has the map of `layout`. When equivalent() cannot decide (replica sets
/// too large to enumerate), falls back to a sufficient structural test:
/// equal digit maps block by block and equal canonical replicas and offset.
std::optional<Failure> confirm(const TileLayout &rebuilt,
                               const TileLayout &layout,
                               llvm::ArrayRef<int64_t> interleaved) {
  Result<bool> same = equivalent(rebuilt, layout);
  if (same && *same)
    return std::nullopt;
  if (same)
    return fail("the recovered operand rebuilds " + rebuilt.str() +
                ", whose map differs from the layout's");
  TileLayout cr = canonicalize(rebuilt), cl = canonicalize(layout);
  Result<GroupedLayout> gr = group(cr, interleaved);
  Result<GroupedLayout> gl = group(cl, interleaved);
  bool structural =
      gr && gl && cr.replica() == cl.replica() && cr.offset() == cl.offset();
  for (unsigned b = 0; structural && b < interleaved.size(); ++b)
    structural = sameDigitMap(gr->block(b), gl->block(b));
  if (structural)
    return std::nullopt;
  return fail("cannot confirm that the recovered operand rebuilds the "
              "layout: " +
              same.message());
}

/// Rebuilds the layout from both operands and confirms its map.
std::optional<Failure> confirmRebuild(Mode mode, const TileLayout &inner,
                                      llvm::ArrayRef<int64_t> innerShape,
                                      const TileLayout &outer,
                                      llvm::ArrayRef<int64_t> outerShape,
                                      const TileLayout &layout) {
  Result<TileLayout> rebuilt =
      mode == Mode::Tile ? tile(inner, innerShape, outer, outerShape)
                         : directSum(inner, innerShape, outer, outerShape);
  if (!rebuilt)
    return rebuilt.takeFailure();
  return confirm(*rebuilt, layout, interleave(outerShape, innerShape));
}

/// The given layout grouped by the interleaved shape, and the known operand
/// grouped by its own shape.
struct InverseGroups {
  GroupedLayout whole;
  GroupedLayout known;
};

Result<InverseGroups> groupForInverse(const TileLayout &layout,
                                      const TileLayout &known,
                                      llvm::ArrayRef<int64_t> knownShape,
                                      const char *knownRole,
                                      llvm::ArrayRef<int64_t> outerShape,
                                      llvm::ArrayRef<int64_t> innerShape) {
  Shape interleaved = interleave(outerShape, innerShape);
  Result<GroupedLayout> gl = group(layout, interleaved);
  if (!gl)
    return fail("the layout does not group by the interleaved shape " +
                shapeStr(interleaved) + " (outer " + shapeStr(outerShape) +
                ", inner " + shapeStr(innerShape) + "): " + gl.message());
  Result<GroupedLayout> gk = group(known, knownShape);
  if (!gk)
    return fail(std::string("the ") + knownRole + " layout does not group by " +
                shapeStr(knownShape) + ": " + gk.message());
  return InverseGroups{*gl, *gk};
}

/// The other operand's shape: `shape` divided dim by dim by `part`.
Result<Shape> quotientShape(llvm::StringRef op, llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<int64_t> part, const char *role) {
  if (shape.size() != part.size())
    return fail(op.str() + ": the layout's shape " + shapeStr(shape) +
                " and the " + role + " shape " + shapeStr(part) +
                " have different ranks");
  Shape out;
  for (auto [d, pair] : llvm::enumerate(llvm::zip(shape, part))) {
    auto [n, p] = pair;
    if (p < 1 || n % p != 0)
      return fail(op.str() + ": dim " + std::to_string(d) + " of shape " +
                  shapeStr(shape) + " is not a multiple of dim " +
                  std::to_string(d) + " of the " + role + " shape " +
                  shapeStr(part));
    out.push_back(n / p);
  }
  return out;
}

/// Runs `attempt` on the layouts as written, then on their canonical forms
/// (the same maps, but iters and replicas merged differently); returns the
/// first success, or the first reason.
template <typename Fn>
Result<TileLayout> tryForms(llvm::StringRef op, const TileLayout &layout,
                            const TileLayout &known, Fn attempt) {
  Result<TileLayout> first = attempt(layout, known);
  if (first)
    return first;
  TileLayout cl = canonicalize(layout), ck = canonicalize(known);
  if (cl == layout && ck == known)
    return fail(op.str() + ": " + first.message());
  Result<TileLayout> second = attempt(cl, ck);
  if (second)
    return second;
  return fail(op.str() + ": " + first.message());
}

std::string dimStr(unsigned d) { return "dim " + std::to_string(d); }

//===----------------------------------------------------------------------===//
// Recovering the outer operand (tile_of, direct_sum_outer_of)
//===----------------------------------------------------------------------===//

/// The outer shard: each dim's inner block must walk the inner layout's;
/// its outer block, divided by the inner span, is the outer layout's.
Result<IterList> outerShard(Mode mode, const InverseGroups &g,
                            const TileLayout &inner, unsigned rank) {
  IterList shard;
  for (unsigned d = 0; d < rank; ++d) {
    if (!sameDigitMap(g.whole.block(2 * d + 1), g.known.block(d)))
      return fail("within a tile, " + dimStr(d) + " of the layout walks " +
                  itersStr(g.whole.block(2 * d + 1)) +
                  " but the inner layout walks " + itersStr(g.known.block(d)));
    for (const Iter &it : g.whole.block(2 * d)) {
      int64_t f = scaleFactor(mode, inner, it.axis);
      if (it.stride % f != 0)
        return fail("across tiles, " + dimStr(d) + " steps by " + iterStr(it) +
                    ", whose stride is not a multiple of the inner layout's "
                    "span " +
                    std::to_string(f) + " on axis '" + it.axis + "'");
      shard.push_back({it.extent, it.stride / f, it.axis});
    }
  }
  return shard;
}

/// The outer replicas: the layout's, less the inner layout's, unscaled.
Result<IterList> outerReplicas(Mode mode, const InverseGroups &g,
                               const TileLayout &inner) {
  std::optional<IterList> rest =
      subtractReplicas(g.whole.layout.replica(), g.known.layout.replica());
  if (!rest)
    return fail("the layout's replicas " + itersStr(g.whole.layout.replica()) +
                " do not contain the inner layout's replicas " +
                itersStr(g.known.layout.replica()));
  IterList replica;
  for (const Iter &it : *rest) {
    int64_t f = scaleFactor(mode, inner, it.axis);
    if (it.stride % f != 0)
      return fail("replica " + iterStr(it) +
                  " is neither the inner layout's nor a multiple of its "
                  "span " +
                  std::to_string(f) + " on axis '" + it.axis + "'");
    replica.push_back({it.extent, it.stride / f, it.axis});
  }
  return replica;
}

/// The outer offset: (layout's - inner's) / inner span, axis by axis.
Result<Coord> outerOffset(Mode mode, const InverseGroups &g,
                          const TileLayout &inner) {
  Coord diff = g.whole.layout.offset();
  for (const auto &[axis, v] : g.known.layout.offset().entries())
    if (v == INT64_MIN || !addChecked(diff, axis, -v))
      return fail("the offsets differ by more than int64 holds");
  Coord offset;
  for (const auto &[axis, v] : diff.entries()) {
    int64_t f = scaleFactor(mode, inner, axis);
    if (v % f != 0)
      return fail("the offset on axis '" + axis +
                  "' exceeds the inner layout's by " + std::to_string(v) +
                  ", not a multiple of its span " + std::to_string(f));
    offset.set(axis, v / f);
  }
  return offset;
}

/// One attempt at B with layout == combine(inner, B), on given forms.
Result<TileLayout> recoverOuterOnce(Mode mode, const TileLayout &layout,
                                    const TileLayout &inner,
                                    llvm::ArrayRef<int64_t> innerShape,
                                    llvm::ArrayRef<int64_t> outerShape) {
  Result<InverseGroups> g = groupForInverse(layout, inner, innerShape, "inner",
                                            outerShape, innerShape);
  if (!g)
    return g.takeFailure();
  Result<IterList> shard = outerShard(mode, *g, inner, innerShape.size());
  if (!shard)
    return shard.takeFailure();
  Result<IterList> replica = outerReplicas(mode, *g, inner);
  if (!replica)
    return replica.takeFailure();
  Result<Coord> offset = outerOffset(mode, *g, inner);
  if (!offset)
    return offset.takeFailure();
  Result<TileLayout> outer = TileLayout::create(*shard, *replica, *offset);
  if (!outer)
    return outer.takeFailure();
  if (auto f =
          confirmRebuild(mode, inner, innerShape, *outer, outerShape, layout))
    return *f;
  return outer;
}

Result<TileLayout> recoverOuter(Mode mode, llvm::StringRef op,
                                const TileLayout &layout,
                                llvm::ArrayRef<int64_t> shape,
                                const TileLayout &inner,
                                llvm::ArrayRef<int64_t> innerShape) {
  if (auto f = checkAdmits(op, {layout, shape, "given"}))
    return *f;
  if (auto f = checkAdmits(op, {inner, innerShape, "inner"}))
    return *f;
  Result<Shape> outerShape = quotientShape(op, shape, innerShape, "inner");
  if (!outerShape)
    return outerShape.takeFailure();
  return tryForms(
      op, layout, inner, [&](const TileLayout &l, const TileLayout &i) {
        return recoverOuterOnce(mode, l, i, innerShape, *outerShape);
      });
}

//===----------------------------------------------------------------------===//
// Recovering the inner operand (tile_of_outer, direct_sum_inner_of)
//===----------------------------------------------------------------------===//

/// Tiling multiplies the outer layout's coordinates by the inner span, which
/// is unknown until the inner layout is found. These are the factors per
/// axis, read where the outer layout steps along an axis.
using Factors = std::map<std::string, int64_t>;

/// Reads factors off an outer block of the layout against the outer
/// layout's own block, when both have the same iter structure.
std::optional<Failure> readFactors(llvm::ArrayRef<Iter> got,
                                   llvm::ArrayRef<Iter> outer, unsigned d,
                                   Factors &factors) {
  if (got.size() != outer.size())
    return std::nullopt; // Different structure: the final check decides.
  for (auto [g, o] : llvm::zip(got, outer)) {
    if (g.extent != o.extent || (o.stride != 0 && g.axis != o.axis))
      return std::nullopt;
    if (o.stride == 0)
      continue;
    if (g.stride % o.stride != 0 || g.stride / o.stride < 1)
      return fail("across tiles, " + dimStr(d) + " steps by " + iterStr(g) +
                  ", not a positive multiple of the outer layout's " +
                  iterStr(o));
    int64_t f = g.stride / o.stride;
    auto [slot, inserted] = factors.insert({o.axis, f});
    if (!inserted && slot->second != f)
      return fail("across tiles the layout scales axis '" + o.axis +
                  "' by both " + std::to_string(slot->second) + " and " +
                  std::to_string(f) + "; a tile scales each axis by one span");
  }
  return std::nullopt;
}

int64_t reachOn(llvm::ArrayRef<Iter> iters, llvm::StringRef axis) {
  int64_t r = 0;
  for (const Iter &it : iters)
    if (it.axis == axis)
      r += (it.extent - 1) * std::abs(it.stride);
  return r;
}

IterList onAxis(llvm::ArrayRef<Iter> iters, llvm::StringRef axis) {
  IterList out;
  for (const Iter &it : iters)
    if (it.axis == axis && !trivialReplica(it))
      out.push_back(it);
  return out;
}

/// Finds the factor on an axis that only the replicas tell: a candidate f
/// is right when the inner replicas it leaves give the inner layout span f.
std::optional<int64_t> solveReplicaFactor(llvm::ArrayRef<Iter> innerShard,
                                          llvm::ArrayRef<Iter> layoutReplica,
                                          llvm::ArrayRef<Iter> outerReplica,
                                          llvm::StringRef axis) {
  IterList mine = onAxis(layoutReplica, axis),
           theirs = onAxis(outerReplica, axis);
  std::set<int64_t> candidates;
  for (const Iter &m : mine)
    for (const Iter &t : theirs)
      if (m.stride % t.stride == 0 && m.stride / t.stride >= 1)
        candidates.insert(m.stride / t.stride);
  for (int64_t f : candidates) {
    IterList scaled;
    for (const Iter &t : theirs) {
      Result<Iter> s = scaleIter(t, f);
      if (!s)
        break;
      scaled.push_back(*s);
    }
    if (scaled.size() != theirs.size())
      continue;
    std::optional<IterList> rest = subtractReplicas(mine, scaled);
    if (rest && 1 + reachOn(innerShard, axis) + reachOn(*rest, axis) == f)
      return f;
  }
  return std::nullopt;
}

/// The inner shard (each dim's inner block), and the factors the outer
/// blocks show; with a direct sum, the outer blocks must walk the outer
/// layout's.
Result<IterList> innerShard(Mode mode, const InverseGroups &g, unsigned rank,
                            Factors &factors) {
  IterList shard;
  for (unsigned d = 0; d < rank; ++d) {
    llvm::append_range(shard, g.whole.block(2 * d + 1));
    if (mode == Mode::Tile) {
      if (auto f =
              readFactors(g.whole.block(2 * d), g.known.block(d), d, factors))
        return *f;
    } else if (!sameDigitMap(g.whole.block(2 * d), g.known.block(d))) {
      return fail("across tiles, " + dimStr(d) + " of the layout walks " +
                  itersStr(g.whole.block(2 * d)) +
                  " but the outer layout walks " + itersStr(g.known.block(d)));
    }
  }
  return shard;
}

/// The outer replicas scaled by the factors, solving for the factor of an
/// axis that only the replicas show.
Result<IterList> scaledOuterReplicas(Mode mode, const InverseGroups &g,
                                     llvm::ArrayRef<Iter> shard,
                                     Factors &factors) {
  IterList scaled;
  for (const Iter &it : g.known.layout.replica()) {
    if (trivialReplica(it))
      continue;
    int64_t f = 1;
    if (mode == Mode::Tile) {
      auto known = factors.find(it.axis);
      std::optional<int64_t> solved =
          known != factors.end()
              ? std::optional<int64_t>(known->second)
              : solveReplicaFactor(shard, g.whole.layout.replica(),
                                   g.known.layout.replica(), it.axis);
      if (!solved)
        return fail("the layout's replicas " +
                    itersStr(g.whole.layout.replica()) + " on axis '" +
                    it.axis +
                    "' hold no copy of the outer layout's replicas scaled by "
                    "a consistent inner span");
      f = factors[it.axis] = *solved;
    }
    Result<Iter> s = scaleIter(it, f);
    if (!s)
      return s.takeFailure();
    scaled.push_back(*s);
  }
  return scaled;
}

/// The inner layout without its offset; checks that its span is the factor
/// the layout scales each axis by.
Result<TileLayout> innerWithoutOffset(Mode mode, const InverseGroups &g,
                                      const IterList &shard, Factors &factors) {
  Result<IterList> scaled = scaledOuterReplicas(mode, g, shard, factors);
  if (!scaled)
    return scaled.takeFailure();
  std::optional<IterList> replica =
      subtractReplicas(g.whole.layout.replica(), *scaled);
  if (!replica)
    return fail("the layout's replicas " + itersStr(g.whole.layout.replica()) +
                " do not contain the outer layout's replicas, scaled: " +
                itersStr(*scaled));
  Result<TileLayout> partial = TileLayout::create(shard, *replica);
  if (!partial)
    return partial.takeFailure();
  for (const auto &[axis, f] : factors)
    if (partial->span(axis) != f)
      return fail("across tiles the layout scales axis '" + axis + "' by " +
                  std::to_string(f) +
                  ", but the inner layout it leaves spans " +
                  std::to_string(partial->span(axis)) + " on that axis");
  return partial;
}

/// One attempt at A with layout == combine(A, outer), on given forms.
Result<TileLayout> recoverInnerOnce(Mode mode, const TileLayout &layout,
                                    const TileLayout &outer,
                                    llvm::ArrayRef<int64_t> outerShape,
                                    llvm::ArrayRef<int64_t> innerShape) {
  Result<InverseGroups> g = groupForInverse(layout, outer, outerShape, "outer",
                                            outerShape, innerShape);
  if (!g)
    return g.takeFailure();
  Factors factors;
  Result<IterList> shard = innerShard(mode, *g, innerShape.size(), factors);
  if (!shard)
    return shard.takeFailure();
  Result<TileLayout> partial = innerWithoutOffset(mode, *g, *shard, factors);
  if (!partial)
    return partial.takeFailure();

  Coord offset = g->whole.layout.offset();
  for (const auto &[axis, v] : g->known.layout.offset().entries()) {
    int64_t s;
    if (mulOverflows(v, scaleFactor(mode, *partial, axis), s) ||
        s == INT64_MIN || !addChecked(offset, axis, -s))
      return fail("the offset on axis '" + axis + "' overflows int64");
  }
  Result<TileLayout> inner =
      TileLayout::create(*shard, IterList(partial->replica()), offset);
  if (!inner)
    return inner.takeFailure();
  if (auto f =
          confirmRebuild(mode, *inner, innerShape, outer, outerShape, layout))
    return *f;
  return inner;
}

Result<TileLayout> recoverInner(Mode mode, llvm::StringRef op,
                                const TileLayout &layout,
                                llvm::ArrayRef<int64_t> shape,
                                const TileLayout &outer,
                                llvm::ArrayRef<int64_t> outerShape) {
  if (auto f = checkAdmits(op, {layout, shape, "given"}))
    return *f;
  if (auto f = checkAdmits(op, {outer, outerShape, "outer"}))
    return *f;
  Result<Shape> innerShape = quotientShape(op, shape, outerShape, "outer");
  if (!innerShape)
    return innerShape.takeFailure();
  return tryForms(
      op, layout, outer, [&](const TileLayout &l, const TileLayout &o) {
        return recoverInnerOnce(mode, l, o, outerShape, *innerShape);
      });
}

} // namespace

Result<TileLayout> axe::tile(const TileLayout &inner,
                             llvm::ArrayRef<int64_t> innerShape,
                             const TileLayout &outer,
                             llvm::ArrayRef<int64_t> outerShape) {
  return combine(Mode::Tile, "tile", {inner, innerShape, "inner"},
                 {outer, outerShape, "outer"});
}

Result<TileLayout> axe::directSum(const TileLayout &a,
                                  llvm::ArrayRef<int64_t> aShape,
                                  const TileLayout &b,
                                  llvm::ArrayRef<int64_t> bShape) {
  return combine(Mode::DirectSum, "direct_sum", {a, aShape, "inner"},
                 {b, bShape, "outer"});
}

Result<TileLayout> axe::tileOf(const TileLayout &layout,
                               llvm::ArrayRef<int64_t> shape,
                               const TileLayout &inner,
                               llvm::ArrayRef<int64_t> innerShape) {
  return recoverOuter(Mode::Tile, "tile_of", layout, shape, inner, innerShape);
}

Result<TileLayout> axe::tileOfOuter(const TileLayout &layout,
                                    llvm::ArrayRef<int64_t> shape,
                                    const TileLayout &outer,
                                    llvm::ArrayRef<int64_t> outerShape) {
  return recoverInner(Mode::Tile, "tile_of_outer", layout, shape, outer,
                      outerShape);
}

Result<TileLayout> axe::directSumOuterOf(const TileLayout &layout,
                                         llvm::ArrayRef<int64_t> shape,
                                         const TileLayout &a,
                                         llvm::ArrayRef<int64_t> aShape) {
  return recoverOuter(Mode::DirectSum, "direct_sum_outer_of", layout, shape, a,
                      aShape);
}

Result<TileLayout> axe::directSumInnerOf(const TileLayout &layout,
                                         llvm::ArrayRef<int64_t> shape,
                                         const TileLayout &b,
                                         llvm::ArrayRef<int64_t> bShape) {
  return recoverInner(Mode::DirectSum, "direct_sum_inner_of", layout, shape, b,
                      bShape);
}
