//===- CollectivePlan.cpp - Plans that move a layout across a mesh --------===//
//
// planExchange (one generic exchange: every element sent from a holder to
// each rank that needs it) and planCollective (named collectives per mesh
// axis, then an exchange for what they leave).
//
//===----------------------------------------------------------------------===//

#include "CollectiveInternal.h"

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

#include <algorithm>
#include <iterator>
#include <tuple>

using namespace axe;
using namespace axe::collective;

//===----------------------------------------------------------------------===//
// The generic exchange
//===----------------------------------------------------------------------===//

Result<Holders> axe::collective::holdersOf(const TileLayout &layout,
                                           const Mesh &mesh) {
  if (Result<bool> ok = checkEnumerable(layout.size(), layout.replicaCount(),
                                        "placing " + layout.str());
      !ok)
    return ok.takeFailure();
  Holders holders(layout.size());
  llvm::SmallVector<int64_t, 4> coords(mesh.axes().size());
  for (int64_t flat = 0; flat < layout.size(); ++flat) {
    for (const Coord &c : layout.apply(flat)) {
      for (auto [index, axis] : llvm::enumerate(mesh.axes()))
        coords[index] = c.get(axis.name);
      holders[flat].push_back(mesh.rankAt(coords));
    }
    llvm::sort(holders[flat]);
    holders[flat].erase(std::unique(holders[flat].begin(), holders[flat].end()),
                        holders[flat].end());
  }
  return holders;
}

namespace {

Result<Holders> holdersOf(const Distribution &dist, const Mesh &mesh) {
  Result<int64_t> size = shapeSize(dist.shape);
  if (!size)
    return size.takeFailure();
  if (Result<bool> ok =
          checkEnumerable(*size, mesh.numRanks(), "placing a distribution");
      !ok)
    return ok.takeFailure();
  Holders holders(*size);
  for (int64_t rank = 0; rank < mesh.numRanks(); ++rank) {
    llvm::SmallVector<int64_t, 4> coords = mesh.coordinates(rank);
    for (int64_t flat = 0; flat < *size; ++flat)
      if (dist.holds(coords, unflattenIndex(flat, dist.shape)))
        holders[flat].push_back(rank);
  }
  return holders;
}

/// The addends of an element that together make its value: the holders
/// that agree on every axis that is not partial (one holder when nothing
/// is partial).
int64_t addendGroup(const Mesh &mesh, const Distribution &dist, int64_t rank) {
  llvm::SmallVector<int64_t, 4> coords = mesh.coordinates(rank);
  for (auto [p, c] : llvm::zip(dist.axes, coords))
    if (p.kind == PlacementKind::Partial)
      c = 0;
  return mesh.rankAt(coords);
}

/// How many mesh coordinates two ranks share: senders that share more with
/// the receiver are nearer (the same node, the same gpuid), and taking each
/// element from the nearest holder keeps whole buffers together.
int64_t sharedCoordinates(const Mesh &mesh, int64_t a, int64_t b) {
  int64_t shared = 0;
  for (auto [x, y] : llvm::zip(mesh.coordinates(a), mesh.coordinates(b)))
    shared += x == y;
  return shared;
}

/// The ranks `target` takes element `flat` from: the addend group of the
/// nearest holder (the target itself when it holds the element), with ties
/// broken by a hash that spreads the senders.
llvm::SmallVector<int64_t, 4> sendersFor(const Mesh &mesh,
                                         const Distribution &from,
                                         llvm::ArrayRef<int64_t> holders,
                                         int64_t target, int64_t flat) {
  llvm::SmallVector<int64_t, 4> nearest;
  int64_t best = -1;
  for (int64_t r : holders) {
    int64_t shared = sharedCoordinates(mesh, r, target);
    if (shared > best)
      nearest.clear();
    if (shared >= best) {
      nearest.push_back(r);
      best = shared;
    }
  }
  int64_t group = addendGroup(
      mesh, from, nearest[(flat + target) % int64_t(nearest.size())]);
  llvm::SmallVector<int64_t, 4> senders;
  for (int64_t r : holders)
    if (addendGroup(mesh, from, r) == group)
      senders.push_back(r);
  return senders;
}

Shape localShapeOf(const Distribution &dist, const Holders &holders,
                   const Mesh &mesh) {
  if (dist.balanced())
    return dist.localShape();
  std::vector<int64_t> counts(mesh.numRanks());
  for (const auto &ranks : holders)
    for (int64_t r : ranks)
      ++counts[r];
  return {*std::max_element(counts.begin(), counts.end())};
}

Result<CollectiveStep> exchangeStep(const Mesh &mesh, const Distribution &from,
                                    const Holders &fromHolders,
                                    const Distribution &to,
                                    const Holders &toHolders) {
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> lists;
  for (int64_t flat = 0; flat < int64_t(toHolders.size()); ++flat) {
    if (fromHolders[flat].empty())
      return fail("no rank holds element " + itos(flat) + " of the source");
    for (int64_t target : toHolders[flat])
      for (int64_t source :
           sendersFor(mesh, from, fromHolders[flat], target, flat))
        lists[{source, target}].push_back(flat);
  }
  CollectiveStep step;
  step.kind = CollectiveKind::Exchange;
  step.before = from;
  step.after = to;
  step.localBefore = localShapeOf(from, fromHolders, mesh);
  step.localAfter = localShapeOf(to, toHolders, mesh);
  step.sums = from.partial();
  for (auto &[pair, elements] : lists)
    step.transfers.push_back({pair.first, pair.second, std::move(elements)});
  return step;
}

/// An exchange in which each rank passes its whole buffer to one rank is a
/// permutation (MPI_Sendrecv); one in which every rank keeps all it has is
/// no step at all.
std::optional<CollectiveStep> simplifyExchange(CollectiveStep step,
                                               const Holders &fromHolders,
                                               const Mesh &mesh) {
  if (step.sums)
    return step;
  std::vector<int64_t> counts(mesh.numRanks()), sent(mesh.numRanks()),
      received(mesh.numRanks());
  for (const auto &ranks : fromHolders)
    for (int64_t r : ranks)
      ++counts[r];
  bool wholeBuffers = true, stays = true;
  for (const Transfer &t : step.transfers) {
    bool whole = int64_t(t.elements.size()) == counts[t.source];
    wholeBuffers &= whole && !sent[t.source] && !received[t.target];
    sent[t.source] = received[t.target] = 1;
    stays &= t.source == t.target;
  }
  if (!wholeBuffers)
    return step;
  if (stays) {
    // Ranks that hold data but send none drop it: a local step an exchange
    // of self-transfers states exactly.
    bool dropsNothing =
        llvm::all_of(llvm::seq<int64_t>(0, mesh.numRanks()),
                     [&](int64_t r) { return sent[r] || !counts[r]; });
    if (dropsNothing)
      return std::nullopt;
    return step;
  }
  step.kind = CollectiveKind::Permute;
  for (Transfer &t : step.transfers)
    t.elements.clear();
  return step;
}

} // namespace

//===----------------------------------------------------------------------===//
// Named collectives
//===----------------------------------------------------------------------===//

namespace {

/// The collective that moves one axis from `from` to `to`; none when the
/// axis already agrees.
std::optional<CollectiveKind> moveKind(const AxisPlacement &from,
                                       const AxisPlacement &to) {
  using K = PlacementKind;
  using C = CollectiveKind;
  if (from == to && from.kind != K::Partial)
    return std::nullopt;
  switch (from.kind) {
  case K::Partial:
    return to.kind == K::Sharded      ? C::ReduceScatter
           : to.kind == K::Replicated ? C::AllReduce
                                      : C::Reduce;
  case K::Sharded:
    return to.kind == K::Sharded      ? C::AllToAll
           : to.kind == K::Replicated ? C::AllGather
                                      : C::Gather;
  case K::Replicated:
    return C::LocalSlice;
  case K::Fixed:
    return to.kind == K::Fixed     ? C::Permute
           : to.kind == K::Sharded ? C::Scatter
                                   : C::Broadcast;
  case K::Irregular:
    break;
  }
  return std::nullopt;
}

/// Every holder along `axis` at coordinate `from` passes its buffer to the
/// rank at coordinate `to`.
std::vector<Transfer> axisPermutation(const Mesh &mesh, unsigned axis,
                                      int64_t from, int64_t to) {
  std::vector<Transfer> transfers;
  for (int64_t rank = 0; rank < mesh.numRanks(); ++rank) {
    llvm::SmallVector<int64_t, 4> coords = mesh.coordinates(rank);
    if (coords[axis] != from)
      continue;
    coords[axis] = to;
    transfers.push_back({rank, mesh.rankAt(coords), {}});
  }
  return transfers;
}

CollectiveStep axisStep(const Mesh &mesh, CollectiveKind kind, unsigned axis,
                        const Distribution &before, const Distribution &after) {
  CollectiveStep step;
  step.kind = kind;
  step.axes.push_back(mesh.axes()[axis].name);
  step.before = before;
  step.after = after;
  step.localBefore = before.localShape();
  step.localAfter = after.localShape();
  bool rootAfter =
      kind == CollectiveKind::Reduce || kind == CollectiveKind::Gather;
  step.root = (rootAfter ? after : before).axes[axis].coordinate;
  if (kind == CollectiveKind::Permute)
    step.transfers = axisPermutation(mesh, axis, before.axes[axis].coordinate,
                                     after.axes[axis].coordinate);
  return step;
}

/// Whether the sharded digits of `before` and `after` together still nest
/// (each dim's digits, both sides' pooled, form one mixed radix). Only then
/// does every pair of peers in the step exchange blocks of one size: an
/// axis that moves from stride 3 to stride 1 of a dim of 6, say, sends its
/// peers 2 and 1 elements.
bool alignedStep(const Distribution &before, const Distribution &after) {
  for (unsigned dim = 0; dim < before.shape.size(); ++dim) {
    llvm::SmallVector<std::pair<int64_t, int64_t>, 8> digits;
    for (const Distribution *d : {&before, &after})
      for (const AxisPlacement &p : d->axes)
        if (p.kind == PlacementKind::Sharded && p.dim == dim)
          digits.push_back({p.stride, p.extent});
    llvm::sort(digits);
    digits.erase(std::unique(digits.begin(), digits.end()), digits.end());
    int64_t end = 1;
    for (auto [stride, extent] : digits) {
      if (stride % end != 0)
        return false;
      end = stride * extent;
    }
  }
  return true;
}

/// The collective that takes an axis to Replicated first, when a move to a
/// sharded placement cannot be one aligned step (the local slice then
/// shards it).
std::optional<CollectiveKind> viaReplicated(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllToAll:
    return CollectiveKind::AllGather;
  case CollectiveKind::ReduceScatter:
    return CollectiveKind::AllReduce;
  case CollectiveKind::Scatter:
    return CollectiveKind::Broadcast;
  default:
    return std::nullopt;
  }
}

/// One axis at a time, in CollectiveKind order, taking the first move whose
/// result is still balanced and whose blocks are all one size (so every
/// collective works on equal blocks). A move that would be balanced but not
/// aligned goes through Replicated instead: a gather, reduce or broadcast
/// then a local slice. Stops early when no move keeps the data balanced;
/// `reached` is where.
llvm::SmallVector<CollectiveStep, 4> namedSteps(const Mesh &mesh,
                                                const Distribution &source,
                                                const Distribution &destination,
                                                Distribution &reached) {
  reached = source;
  llvm::SmallVector<std::pair<CollectiveKind, unsigned>, 4> pending;
  for (unsigned axis = 0; axis < source.axes.size(); ++axis)
    if (auto kind = moveKind(source.axes[axis], destination.axes[axis]))
      pending.push_back({*kind, axis});
  llvm::sort(pending);
  llvm::SmallVector<CollectiveStep, 4> steps;
  for (bool moved = true; moved && !pending.empty();) {
    moved = false;
    auto *misaligned = pending.end();
    for (auto *it = pending.begin(); it != pending.end(); ++it) {
      Distribution next = reached;
      next.axes[it->second] = destination.axes[it->second];
      if (!next.balanced())
        continue;
      if (!alignedStep(reached, next)) {
        if (misaligned == pending.end() && viaReplicated(it->first))
          misaligned = it;
        continue;
      }
      steps.push_back(axisStep(mesh, it->first, it->second, reached, next));
      reached = std::move(next);
      pending.erase(it);
      moved = true;
      break;
    }
    if (moved || misaligned == pending.end())
      continue;
    // Replicating an axis drops a digit, so the rest stays balanced and
    // the step aligned.
    unsigned axis = misaligned->second;
    Distribution next = reached;
    next.axes[axis] = AxisPlacement::replicated();
    steps.push_back(
        axisStep(mesh, *viaReplicated(misaligned->first), axis, reached, next));
    reached = std::move(next);
    *misaligned = {CollectiveKind::LocalSlice, axis};
    llvm::sort(pending);
    moved = true;
  }
  return steps;
}

/// Orders a step's axes as its communicator ranks them: for sharded data
/// the axis of the larger logical stride is the more significant.
void orderAxes(CollectiveStep &step, const Mesh &mesh) {
  const Distribution &sharded =
      step.kind == CollectiveKind::AllGather ? step.before : step.after;
  auto key = [&](const std::string &name) {
    unsigned index = *mesh.find(name);
    const AxisPlacement &p = sharded.axes[index];
    bool isSharded = p.kind == PlacementKind::Sharded;
    return std::make_tuple(!isSharded, isSharded ? p.dim : 0u,
                           isSharded ? -p.stride : 0, index);
  };
  llvm::sort(step.axes, [&](const std::string &a, const std::string &b) {
    return key(a) < key(b);
  });
}

/// Consecutive reduce-scatters, all-reduces, all-gathers or local slices
/// over different axes are one step over the group of those axes.
llvm::SmallVector<CollectiveStep, 4>
mergeSteps(llvm::SmallVector<CollectiveStep, 4> steps, const Mesh &mesh) {
  auto mergeable = [](CollectiveKind kind) {
    return kind == CollectiveKind::ReduceScatter ||
           kind == CollectiveKind::AllReduce ||
           kind == CollectiveKind::AllGather ||
           kind == CollectiveKind::LocalSlice;
  };
  llvm::SmallVector<CollectiveStep, 4> merged;
  for (CollectiveStep &step : steps) {
    if (!merged.empty() && merged.back().kind == step.kind &&
        mergeable(step.kind)) {
      merged.back().axes.append(step.axes.begin(), step.axes.end());
      merged.back().after = std::move(step.after);
      merged.back().localAfter = std::move(step.localAfter);
      continue;
    }
    merged.push_back(std::move(step));
  }
  for (CollectiveStep &step : merged)
    orderAxes(step, mesh);
  return merged;
}

struct Endpoints {
  Distribution source, destination;
};

Result<Endpoints> classifyBoth(const TileLayout &source,
                               llvm::ArrayRef<int64_t> sourceShape,
                               const TileLayout &destination,
                               llvm::ArrayRef<int64_t> destinationShape,
                               const Mesh &mesh,
                               llvm::ArrayRef<std::string> partialAxes) {
  if (!llvm::equal(sourceShape, destinationShape))
    return fail("the source shape " + shapeStr(sourceShape) +
                " and the destination shape " + shapeStr(destinationShape) +
                " differ");
  Result<Distribution> src = classify(source, sourceShape, mesh, partialAxes);
  if (!src)
    return fail("source: " + src.message());
  Result<Distribution> dst = classify(destination, destinationShape, mesh);
  if (!dst)
    return fail("destination: " + dst.message());
  return Endpoints{*src, *dst};
}

/// The generic exchange from `from`, held by `fromHolders`, to `to`, the
/// distribution of `destination`.
Result<CollectiveStep> exchangeTo(const Mesh &mesh, const Distribution &from,
                                  const Holders &fromHolders,
                                  const TileLayout &destination,
                                  const Distribution &to) {
  Result<Holders> toHolders = axe::collective::holdersOf(destination, mesh);
  if (!toHolders)
    return toHolders.takeFailure();
  return exchangeStep(mesh, from, fromHolders, to, *toHolders);
}

} // namespace

Result<CollectivePlan>
axe::planExchange(const TileLayout &source, llvm::ArrayRef<int64_t> sourceShape,
                  const TileLayout &destination,
                  llvm::ArrayRef<int64_t> destinationShape, const Mesh &mesh,
                  llvm::ArrayRef<std::string> partialAxes) {
  Result<Endpoints> ends = classifyBoth(source, sourceShape, destination,
                                        destinationShape, mesh, partialAxes);
  if (!ends)
    return ends.takeFailure();
  Result<Holders> from = holdersOf(source, mesh);
  if (!from)
    return from.takeFailure();
  Result<CollectiveStep> step =
      exchangeTo(mesh, ends->source, *from, destination, ends->destination);
  if (!step)
    return step.takeFailure();
  CollectivePlan plan{mesh, ends->source, ends->destination, {}};
  plan.steps.push_back(std::move(*step));
  return plan;
}

Result<CollectivePlan> axe::planCollective(
    const TileLayout &source, llvm::ArrayRef<int64_t> sourceShape,
    const TileLayout &destination, llvm::ArrayRef<int64_t> destinationShape,
    const Mesh &mesh, llvm::ArrayRef<std::string> partialAxes) {
  Result<Endpoints> ends = classifyBoth(source, sourceShape, destination,
                                        destinationShape, mesh, partialAxes);
  if (!ends)
    return ends.takeFailure();
  CollectivePlan plan{mesh, ends->source, ends->destination, {}};
  Distribution reached = plan.source;
  Result<Holders> from = Holders();
  if (reached.regular() && plan.destination.regular()) {
    plan.steps = mergeSteps(
        namedSteps(mesh, plan.source, plan.destination, reached), mesh);
    if (llvm::equal(reached.axes, plan.destination.axes))
      return plan;
    from = holdersOf(reached, mesh);
  } else {
    from = holdersOf(source, mesh);
  }
  if (!from)
    return from.takeFailure();
  Result<CollectiveStep> step =
      exchangeTo(mesh, reached, *from, destination, plan.destination);
  if (!step)
    return step.takeFailure();
  if (std::optional<CollectiveStep> kept =
          simplifyExchange(std::move(*step), *from, mesh))
    plan.steps.push_back(std::move(*kept));
  return plan;
}
