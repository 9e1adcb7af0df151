//===- Canonicalize.cpp - Canonical form and exact equivalence of layouts -===//

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Enumerate.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

using namespace axe;

namespace {

/// Above this many flat indices (or replica points on one axis) equivalent()
/// stops enumerating and reports that it cannot decide.
constexpr int64_t kEnumerationLimit = int64_t(1) << 22;
/// The most placements `equivalent` compares one by one where canonical
/// forms are out of reach.
constexpr int64_t kPointwiseLimit = int64_t(1) << 16;

/// D1: (e1, s1, a)(e2, s2, a) -> (e1*e2, s2, a) when s1 == e2*s2.
bool canMergeShard(const Iter &prev, const Iter &next) {
  int64_t reach;
  if (prev.axis != next.axis || mulOverflows(next.extent, next.stride, reach))
    return false;
  return prev.stride == reach;
}

/// One left-to-right pass of D0, D2 and D1, in place; returns whether
/// anything changed.
bool normalizeShardOnce(IterList &shard) {
  size_t kept = 0;
  bool changed = false;
  for (Iter &it : shard) {
    if (it.extent == 1) { // D0
      changed = true;
      continue;
    }
    if (it.stride == 0 && it.axis != kDefaultAxis) { // D2
      it.axis = std::string(kDefaultAxis);
      changed = true;
    }
    if (kept > 0 && canMergeShard(shard[kept - 1], it)) { // D1
      shard[kept - 1].extent *= it.extent;
      shard[kept - 1].stride = it.stride;
      changed = true;
      continue;
    }
    if (&shard[kept] != &it)
      shard[kept] = std::move(it);
    ++kept;
  }
  shard.truncate(kept);
  return changed;
}

/// D0-D2 to a fixpoint. (One pass already reaches it: a merged iter keeps
/// the reach of its slow part, so it cannot enable a merge to its left. The
/// loop keeps this robust.)
void normalizeShard(IterList &shard) {
  while (normalizeShardOnce(shard))
    ;
}

bool replicaOrder(const Iter &a, const Iter &b) {
  return std::tie(a.axis, a.stride, a.extent) <
         std::tie(b.axis, b.stride, b.extent);
}

/// C0 on every replica iter: those that place no second copy.
void dropTrivialReplicas(IterList &replica) {
  llvm::erase_if(
      replica, [](const Iter &it) { return it.extent == 1 || it.stride == 0; });
}

/// C0 and C1 on every replica iter; C1 moves the walk's low end into the
/// offset so that the set of points is unchanged. Returns whether it moved
/// the offset.
bool dropAndFlipReplicas(IterList &replica, Coord &offset) {
  bool flipped = false;
  dropTrivialReplicas(replica);
  for (Iter &it : replica) {
    if (it.stride < 0) { // C1
      offset.add(it.axis, (it.extent - 1) * it.stride);
      it.stride = -it.stride;
      flipped = true;
    }
  }
  return flipped;
}

/// The extent of the contiguous walk C2 makes of `a` and `b` on one axis,
/// or nothing when C2 does not apply to the pair.
std::optional<int64_t> absorbedExtent(const Iter &a, const Iter &b) {
  if (a.axis != b.axis || b.stride % a.stride != 0)
    return std::nullopt;
  int64_t k = b.stride / a.stride;
  if (k < 1 || k > a.extent)
    return std::nullopt;
  // Each copy of `a` shifted by a multiple of k*s overlaps or abuts the
  // next, so the union is the contiguous walk e1 + (e2-1)*k long.
  return a.extent + (b.extent - 1) * k;
}

/// One C2 absorption, if any applies. Pairs are tried in replica order
/// (smallest stride first as absorber), so the result is deterministic.
bool absorbOnce(IterList &replica) {
  for (size_t i = 0; i < replica.size(); ++i)
    for (size_t j = 0; j < replica.size(); ++j) {
      if (i == j)
        continue;
      if (std::optional<int64_t> extent =
              absorbedExtent(replica[i], replica[j])) {
        replica[i].extent = *extent;
        replica.erase(replica.begin() + j);
        return true;
      }
    }
  return false;
}

/// C0-C2 and the replica ordering, to a fixpoint. Returns whether C1 moved
/// the offset.
bool normalizeReplica(IterList &replica, Coord &offset) {
  bool flipped = dropAndFlipReplicas(replica, offset);
  llvm::sort(replica, replicaOrder);
  while (absorbOnce(replica))
    llvm::sort(replica, replicaOrder);
  return flipped;
}

/// The replica strides and extents on each axis, by axis name.
std::map<std::string, llvm::SmallVector<std::pair<int64_t, int64_t>, 4>>
replicaByAxis(const TileLayout &canonical) {
  std::map<std::string, llvm::SmallVector<std::pair<int64_t, int64_t>, 4>> out;
  for (const Iter &it : canonical.replica())
    out[it.axis].push_back({it.stride, it.extent});
  return out;
}

/// Every point of the replica walk on one axis, or nothing when more than
/// the enumeration limit.
std::optional<std::set<int64_t>>
enumerateAxis(llvm::ArrayRef<std::pair<int64_t, int64_t>> iters) {
  int64_t count = 1;
  for (auto [stride, extent] : iters)
    if (mulOverflows(count, extent, count) || count > kEnumerationLimit)
      return std::nullopt;
  std::set<int64_t> points{0};
  for (auto [stride, extent] : iters) {
    std::set<int64_t> next;
    for (int64_t p : points)
      for (int64_t i = 0; i < extent; ++i)
        next.insert(p + i * stride);
    points = std::move(next);
  }
  return points;
}

/// Compares the replica sets of two canonical layouts axis by axis (the set
/// is the product of its per-axis walks, as each iter moves one axis).
Result<bool> sameReplicaSets(const TileLayout &a, const TileLayout &b) {
  auto byAxisA = replicaByAxis(a), byAxisB = replicaByAxis(b);
  std::set<std::string> axes;
  for (const auto &entry : byAxisA)
    axes.insert(entry.first);
  for (const auto &entry : byAxisB)
    axes.insert(entry.first);
  for (const std::string &axis : axes) {
    auto pointsA = enumerateAxis(byAxisA[axis]);
    auto pointsB = enumerateAxis(byAxisB[axis]);
    if (!pointsA || !pointsB)
      return fail("cannot decide equivalence of " + a.str() + " and " +
                  b.str() + ": their replicas on axis '" + axis +
                  "' break the gap condition and have too many points to "
                  "enumerate");
    if (*pointsA != *pointsB)
      return false;
  }
  return true;
}

/// The gap condition on a canonical layout, whose replicas are sorted by
/// stride within an axis: each stride exceeds the reach of the smaller ones.
bool gapConditionHolds(const TileLayout &canonical) {
  for (auto &[axis, iters] : replicaByAxis(canonical)) {
    int64_t reach = 0;
    for (auto [stride, extent] : iters) {
      if (stride <= reach)
        return false;
      reach += (extent - 1) * stride;
    }
  }
  return true;
}

} // namespace

bool axe::isCanonical(const TileLayout &layout) {
  llvm::ArrayRef<Iter> shard = layout.shard();
  for (size_t k = 0; k < shard.size(); ++k) {
    const Iter &it = shard[k];
    if (it.extent == 1 || (it.stride == 0 && it.axis != kDefaultAxis))
      return false; // D0, D2
    if (k > 0 && canMergeShard(shard[k - 1], it))
      return false; // D1
  }
  llvm::ArrayRef<Iter> replica = layout.replica();
  for (const Iter &it : replica)
    if (it.extent == 1 || it.stride <= 0)
      return false; // C0, C1
  if (!llvm::is_sorted(replica, replicaOrder))
    return false;
  for (size_t i = 0; i < replica.size(); ++i)
    for (size_t j = 0; j < replica.size(); ++j)
      if (i != j && absorbedExtent(replica[i], replica[j]))
        return false; // C2
  // Coord never stores a zero offset.
  return true;
}

TileLayout axe::canonicalize(const TileLayout &layout) {
  // Most layouts the compiler carries are already canonical; checking that
  // allocates nothing, where rewriting builds a new layout.
  if (isCanonical(layout))
    return layout;
  TileLayout out = layout;
  normalizeShard(out.shardIters);
  // D0-D2, C0 and C2 keep every reach, size and replica count, so the
  // result is as valid as the input. C1 moves the offset, which can then
  // come near the int64 limits: that result is checked.
  if (!normalizeReplica(out.replicaIters, out.offsetCoord))
    return out;
  Result<TileLayout> checked =
      TileLayout::create(std::move(out.shardIters), std::move(out.replicaIters),
                         std::move(out.offsetCoord));
  if (checked)
    return std::move(*checked);
  // Where C1 cannot move the offset (rare: rebuilt here rather than copied
  // on every call), every step that needs no move still applies, with the
  // same map and every reach as the input's: the normalized shard, and the
  // replicas without C0's iters, in order.
  TileLayout partial = layout;
  normalizeShard(partial.shardIters);
  dropTrivialReplicas(partial.replicaIters);
  llvm::sort(partial.replicaIters, replicaOrder);
  return partial;
}

bool axe::satisfiesGapCondition(const TileLayout &layout) {
  return gapConditionHolds(canonicalize(layout));
}

Result<bool> axe::equivalent(const TileLayout &a, const TileLayout &b) {
  if (a.size() != b.size())
    return false;
  TileLayout ca = canonicalize(a), cb = canonicalize(b);
  if (ca == cb)
    return true;
  // Canonical forms under the gap condition are unique (the Axe paper, Theorem
  // A.14), so differing forms mean differing maps.
  if (gapConditionHolds(ca) && gapConditionHolds(cb))
    return false;

  auto positive = [](const Iter &it) { return it.stride > 0; };
  if (!llvm::all_of(ca.replica(), positive) ||
      !llvm::all_of(cb.replica(), positive)) {
    // Near the int64 limits, small maps are compared point by point (every
    // placement of a well-formed layout fits int64).
    int64_t points;
    if (!mulOverflows(ca.size(), std::max(ca.replicaCount(), cb.replicaCount()),
                      points) &&
        points <= kPointwiseLimit)
      return samePlacementSets(Layout(ca), Layout(cb));
    return fail("cannot decide equivalence of " + a.str() + " and " + b.str() +
                ": their offsets are too close to the int64 limits "
                "to canonicalize");
  }
  // Canonical replica strides are positive, so each image set is its
  // componentwise minimum (base + offset) plus the replica set: the maps are
  // equal iff the minima agree at every index and the replica sets agree.
  if (ca.shard() != cb.shard() || ca.offset() != cb.offset()) {
    // A normalized shard and the offset are fixed by the minima (Theorem
    // A.8, Lemma A.13); enumeration only double-checks small cases.
    if (ca.size() > kEnumerationLimit)
      return false;
    for (int64_t f = 0; f < ca.size(); ++f)
      if (ca.applyBase(f) != cb.applyBase(f))
        return false;
  }
  return sameReplicaSets(ca, cb);
}
