//===- Collective.cpp - Plans that move a layout across a device mesh -----===//

#include "axe/Layout/Collective.h"

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <iterator>
#include <tuple>

using namespace axe;

namespace {

/// Element-by-element work (the generic exchange, the brute-force mesh)
/// stops here rather than exhausting memory on a huge buffer.
constexpr int64_t kMaxEnumerated = int64_t(1) << 22;

std::string itos(int64_t v) { return std::to_string(v); }

/// Fails when `count` things of `each` would be too many to enumerate.
Result<bool> checkEnumerable(int64_t count, int64_t each,
                             llvm::StringRef what) {
  int64_t total;
  if (mulOverflows(count, each, total) || total > kMaxEnumerated)
    return fail(what.str() + " needs " + itos(count) + " x " + itos(each) +
                " entries, more than the " + itos(kMaxEnumerated) +
                " it enumerates");
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

Result<Mesh> Mesh::create(llvm::ArrayRef<MeshAxis> axes) {
  Mesh mesh;
  for (const MeshAxis &axis : axes) {
    std::string quoted = "mesh axis '" + axis.name + "'";
    if (!isValidAxisName(axis.name))
      return fail(quoted + " is not a valid axis name");
    AxisKind kind = axisKind(axis.name);
    if (kind == AxisKind::Memory || kind == AxisKind::Thread)
      return fail(quoted + " is a " + axisKindName(kind).str() +
                  " axis, not a device axis");
    if (mesh.find(axis.name))
      return fail(quoted + " appears twice");
    if (axis.extent < 1)
      return fail(quoted + " has extent " + itos(axis.extent) +
                  "; extents must be >= 1");
    if (mulOverflows(mesh.ranks, axis.extent, mesh.ranks))
      return fail("the mesh has more ranks than fit in int64");
    mesh.meshAxes.push_back(axis);
  }
  return mesh;
}

std::optional<unsigned> Mesh::find(llvm::StringRef name) const {
  for (auto [index, axis] : llvm::enumerate(meshAxes))
    if (axis.name == name)
      return unsigned(index);
  return std::nullopt;
}

llvm::SmallVector<int64_t, 4> Mesh::coordinates(int64_t rank) const {
  assert(rank >= 0 && rank < ranks && "rank out of range");
  llvm::SmallVector<int64_t, 4> coords(meshAxes.size());
  for (size_t k = meshAxes.size(); k-- > 0;) {
    coords[k] = rank % meshAxes[k].extent;
    rank /= meshAxes[k].extent;
  }
  return coords;
}

int64_t Mesh::rankAt(llvm::ArrayRef<int64_t> coords) const {
  assert(coords.size() == meshAxes.size() && "one coordinate per axis");
  int64_t rank = 0;
  for (auto [axis, c] : llvm::zip(meshAxes, coords))
    rank = rank * axis.extent + c;
  return rank;
}

std::string Mesh::str() const {
  std::string out = "mesh<";
  for (auto [index, axis] : llvm::enumerate(meshAxes))
    out += (index ? ", " : "") + axis.name + " = " + itos(axis.extent);
  return out + ">";
}

Result<Mesh> axe::parseMesh(llvm::StringRef text) {
  llvm::StringRef body = text.trim();
  if (body.starts_with("mesh") && body.drop_front(4).ltrim().starts_with("<")) {
    body = body.drop_front(4).ltrim().drop_front();
    if (!body.consume_back(">"))
      return fail("mesh '" + text.str() +
                  "': expected mesh<axis = extent, ...>");
  }
  llvm::SmallVector<MeshAxis, 4> axes;
  llvm::SmallVector<llvm::StringRef, 4> entries;
  if (!body.trim().empty())
    body.split(entries, ',');
  for (llvm::StringRef entry : entries) {
    auto [name, extent] = entry.split('=');
    MeshAxis axis{name.trim().str(), 0};
    if (!entry.contains('=') || extent.trim().getAsInteger(10, axis.extent))
      return fail("mesh '" + text.str() + "': expected 'axis = extent', got '" +
                  entry.trim().str() + "'");
    axes.push_back(axis);
  }
  return Mesh::create(axes);
}

//===----------------------------------------------------------------------===//
// AxisPlacement and Distribution
//===----------------------------------------------------------------------===//

AxisPlacement AxisPlacement::sharded(unsigned dim, int64_t stride,
                                     int64_t extent) {
  AxisPlacement p;
  p.kind = PlacementKind::Sharded;
  p.dim = dim;
  p.stride = stride;
  p.extent = extent;
  return p;
}

AxisPlacement AxisPlacement::replicated() {
  AxisPlacement p;
  p.kind = PlacementKind::Replicated;
  return p;
}

AxisPlacement AxisPlacement::partial() {
  AxisPlacement p;
  p.kind = PlacementKind::Partial;
  return p;
}

AxisPlacement AxisPlacement::fixed(int64_t coordinate) {
  AxisPlacement p;
  p.coordinate = coordinate;
  return p;
}

AxisPlacement AxisPlacement::irregular(std::string reason) {
  AxisPlacement p;
  p.kind = PlacementKind::Irregular;
  p.reason = std::move(reason);
  return p;
}

std::string AxisPlacement::str() const {
  switch (kind) {
  case PlacementKind::Sharded:
    return "S(" + itos(dim) + ", stride " + itos(stride) + ")";
  case PlacementKind::Replicated:
    return "R";
  case PlacementKind::Partial:
    return "P";
  case PlacementKind::Fixed:
    return "@" + itos(coordinate);
  case PlacementKind::Irregular:
    return "irregular (" + reason + ")";
  }
  return "?";
}

bool AxisPlacement::operator==(const AxisPlacement &other) const {
  if (kind != other.kind)
    return false;
  switch (kind) {
  case PlacementKind::Sharded:
    return dim == other.dim && stride == other.stride && extent == other.extent;
  case PlacementKind::Fixed:
    return coordinate == other.coordinate;
  case PlacementKind::Irregular:
    return reason == other.reason;
  default:
    return true;
  }
}

bool Distribution::regular() const {
  return llvm::none_of(axes, [](const AxisPlacement &p) {
    return p.kind == PlacementKind::Irregular;
  });
}

bool Distribution::partial() const {
  return llvm::any_of(axes, [](const AxisPlacement &p) {
    return p.kind == PlacementKind::Partial;
  });
}

bool Distribution::balanced() const {
  if (!regular())
    return false;
  for (unsigned dim = 0; dim < shape.size(); ++dim) {
    llvm::SmallVector<std::pair<int64_t, int64_t>, 4> digits;
    for (const AxisPlacement &p : axes)
      if (p.kind == PlacementKind::Sharded && p.dim == dim)
        digits.push_back({p.stride, p.extent});
    llvm::sort(digits);
    // Disjoint digits of a mixed radix: each one starts where the previous
    // one ends (or at a multiple of that), and the last fits in the dim.
    int64_t end = 1;
    for (auto [stride, extent] : digits) {
      if (stride % end != 0)
        return false;
      end = stride * extent;
    }
    if (shape[dim] % end != 0)
      return false;
  }
  return true;
}

Shape Distribution::localShape() const {
  assert(regular() && "an irregular distribution has no local shape");
  Shape local = shape;
  for (const AxisPlacement &p : axes)
    if (p.kind == PlacementKind::Sharded)
      local[p.dim] /= p.extent;
  return local;
}

bool Distribution::holds(llvm::ArrayRef<int64_t> meshCoordinates,
                         llvm::ArrayRef<int64_t> logical) const {
  assert(regular() && "an irregular distribution cannot answer holds()");
  for (auto [p, c] : llvm::zip(axes, meshCoordinates)) {
    if (p.kind == PlacementKind::Fixed && c != p.coordinate)
      return false;
    if (p.kind == PlacementKind::Sharded &&
        (logical[p.dim] / p.stride) % p.extent != c)
      return false;
  }
  return true;
}

std::string Distribution::str(const Mesh &mesh) const {
  std::string out;
  for (auto [index, p] : llvm::enumerate(axes))
    out += (index ? ", " : "") + mesh.axes()[index].name + ": " + p.str();
  return out.empty() ? "one device" : out;
}

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

namespace {

/// The lowest and highest coordinate `layout` reaches on `axis`: every iter
/// adds its digit independently, so the extremes add up.
std::pair<int64_t, int64_t> reach(const TileLayout &layout,
                                  llvm::StringRef axis) {
  int64_t lo = layout.offset().get(axis), hi = lo;
  for (llvm::ArrayRef<Iter> iters : {layout.shard(), layout.replica()})
    for (const Iter &it : iters)
      if (it.axis == axis)
        (it.stride < 0 ? lo : hi) += (it.extent - 1) * it.stride;
  return {lo, hi};
}

/// Mesh scope holds data in memory on devices: every axis is one or the
/// other, and device coordinates stay inside the mesh.
Result<bool> checkAxes(const TileLayout &layout, const Mesh &mesh) {
  for (const std::string &axis : layout.axes()) {
    std::optional<unsigned> index = mesh.find(axis);
    if (!index) {
      if (axisKind(axis) == AxisKind::Memory)
        continue;
      return fail("layout " + layout.str() + " uses axis '" + axis +
                  "', which is neither a memory axis nor an axis of " +
                  mesh.str());
    }
    auto [lo, hi] = reach(layout, axis);
    int64_t extent = mesh.axes()[*index].extent;
    if (lo < 0 || hi >= extent)
      return fail("layout " + layout.str() + " reaches " + axis + " = " +
                  itos(lo) + ".." + itos(hi) + ", outside " + mesh.str());
  }
  return true;
}

Result<bool> checkShape(const TileLayout &layout,
                        llvm::ArrayRef<int64_t> shape) {
  Result<int64_t> size = shapeSize(shape);
  if (!size)
    return size.takeFailure();
  if (*size != layout.size())
    return fail("layout " + layout.str() + " has " + itos(layout.size()) +
                " elements, not the " + itos(*size) + " of shape " +
                shapeStr(shape));
  return true;
}

/// Where the one shard iter on `axis` falls among the logical digits.
AxisPlacement shardedPlacement(const Result<GroupedLayout> &grouped,
                               llvm::StringRef axis) {
  if (!grouped)
    return AxisPlacement::irregular(grouped.message());
  std::optional<AxisPlacement> found;
  for (unsigned dim = 0; dim < grouped->blockSizes.size(); ++dim) {
    llvm::ArrayRef<Iter> block = grouped->block(dim);
    int64_t logicalStride = 1;
    for (size_t k = block.size(); k-- > 0;) {
      if (block[k].axis == axis && block[k].stride != 0) {
        if (found)
          return AxisPlacement::irregular("the shape splits the iter on " +
                                          axis.str() + " over two dims");
        found = AxisPlacement::sharded(dim, logicalStride, block[k].extent);
      }
      logicalStride *= block[k].extent;
    }
  }
  if (!found)
    return AxisPlacement::irregular("no shard iter on " + axis.str());
  return *found;
}

/// `canonical` is canonical, so extent-1 and stride-0 iters are gone and
/// each remaining iter on the axis moves data to another device.
AxisPlacement classifyAxis(const TileLayout &canonical,
                           const Result<GroupedLayout> &grouped,
                           const MeshAxis &axis) {
  auto onAxis = [&](const Iter &it) { return it.axis == axis.name; };
  IterList shard, replica;
  llvm::copy_if(canonical.shard(), std::back_inserter(shard), onAxis);
  llvm::copy_if(canonical.replica(), std::back_inserter(replica), onAxis);
  int64_t shards = shard.size(), replicas = replica.size();
  int64_t offset = canonical.offset().get(axis.name);
  if (shards + replicas == 0)
    return AxisPlacement::fixed(offset);
  if (shards + replicas > 1)
    return AxisPlacement::irregular(itos(shards + replicas) + " iters on " +
                                    axis.name);
  const Iter &it = shards ? shard.front() : replica.front();
  if (it.stride != 1 || it.extent != axis.extent || offset != 0)
    return AxisPlacement::irregular("iter (" + itos(it.extent) + " : " +
                                    itos(it.stride) + "@" + axis.name +
                                    ") and offset " + itos(offset) +
                                    " do not put one copy on each of the " +
                                    itos(axis.extent) + " devices");
  if (replicas)
    return AxisPlacement::replicated();
  return shardedPlacement(grouped, axis.name);
}

} // namespace

Result<Distribution> axe::classify(const TileLayout &layout,
                                   llvm::ArrayRef<int64_t> shape,
                                   const Mesh &mesh,
                                   llvm::ArrayRef<std::string> partialAxes) {
  if (Result<bool> ok = checkShape(layout, shape); !ok)
    return ok.takeFailure();
  TileLayout canonical = canonicalize(layout);
  if (Result<bool> ok = checkAxes(canonical, mesh); !ok)
    return ok.takeFailure();
  for (const std::string &axis : partialAxes)
    if (!mesh.find(axis))
      return fail("partial axis '" + axis + "' is not an axis of " +
                  mesh.str());

  Result<GroupedLayout> grouped = group(canonical, shape);
  Distribution dist;
  dist.shape = Shape(shape.begin(), shape.end());
  for (const MeshAxis &axis : mesh.axes()) {
    AxisPlacement p = classifyAxis(canonical, grouped, axis);
    // On an axis of extent 1 the one addend is the value: nothing to sum.
    if (llvm::is_contained(partialAxes, axis.name) && axis.extent > 1) {
      if (p.kind != PlacementKind::Replicated)
        return fail("partial axis '" + axis.name + "' must be replicated in " +
                    layout.str() + " (one addend per device), but it is " +
                    p.str());
      p = AxisPlacement::partial();
    }
    dist.axes.push_back(p);
  }
  return dist;
}

//===----------------------------------------------------------------------===//
// Step names and printing
//===----------------------------------------------------------------------===//

llvm::StringRef axe::collectiveKindName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::ReduceScatter:
    return "reduce-scatter";
  case CollectiveKind::AllReduce:
    return "all-reduce";
  case CollectiveKind::Reduce:
    return "reduce";
  case CollectiveKind::AllToAll:
    return "all-to-all";
  case CollectiveKind::LocalSlice:
    return "local-slice";
  case CollectiveKind::Permute:
    return "permute";
  case CollectiveKind::Scatter:
    return "scatter";
  case CollectiveKind::Gather:
    return "gather";
  case CollectiveKind::Broadcast:
    return "broadcast";
  case CollectiveKind::AllGather:
    return "all-gather";
  case CollectiveKind::Exchange:
    return "exchange";
  }
  return "?";
}

namespace {

bool hasRoot(CollectiveKind kind) {
  return kind == CollectiveKind::Reduce || kind == CollectiveKind::Scatter ||
         kind == CollectiveKind::Gather || kind == CollectiveKind::Broadcast;
}

int64_t elementCount(const std::vector<Transfer> &transfers) {
  int64_t n = 0;
  for (const Transfer &t : transfers)
    n += t.elements.size();
  return n;
}

} // namespace

std::string CollectiveStep::str() const {
  std::string out = collectiveKindName(kind).str();
  if (kind == CollectiveKind::Exchange)
    out +=
        std::string(sums ? " (alltoallv, summing addends)" : " (alltoallv)") +
        " over the whole mesh, " + itos(transfers.size()) + " rank pairs, " +
        itos(elementCount(transfers)) + " elements";
  else if (axes.empty())
    out += " over the whole mesh";
  else
    out += " over (" + llvm::join(axes, ", ") + ")";
  if (hasRoot(kind))
    out += " root " + itos(root);
  if (kind == CollectiveKind::Permute)
    for (const Transfer &t : transfers)
      out += " " + itos(t.source) + "->" + itos(t.target);
  return out + ": " + shapeStr(localBefore) + " -> " + shapeStr(localAfter);
}

std::string CollectivePlan::str() const {
  auto describe = [&](const Distribution &d) {
    std::string local = d.regular() ? shapeStr(d.localShape()) : "irregular";
    return d.str(mesh) + " (local " + local + ")\n";
  };
  std::string out = mesh.str() + ", shape " + shapeStr(source.shape) + "\n";
  out += "source: " + describe(source);
  out += "destination: " + describe(destination);
  if (steps.empty())
    out += "no communication\n";
  for (auto [index, step] : llvm::enumerate(steps))
    out += itos(index + 1) + ". " + step.str() + "\n";
  return out;
}

//===----------------------------------------------------------------------===//
// The generic exchange
//===----------------------------------------------------------------------===//

namespace {

/// For every flat logical index, the ranks that hold it, ascending.
using Holders = std::vector<llvm::SmallVector<int64_t, 2>>;

Result<Holders> holdersOf(const TileLayout &layout, const Mesh &mesh) {
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

/// One axis at a time, in CollectiveKind order, taking the first move whose
/// result is still balanced (so every collective works on equal blocks).
/// Stops early when no move keeps the data balanced; `reached` is where.
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
    for (auto *it = pending.begin(); it != pending.end(); ++it) {
      Distribution next = reached;
      next.axes[it->second] = destination.axes[it->second];
      if (!next.balanced())
        continue;
      steps.push_back(axisStep(mesh, it->first, it->second, reached, next));
      reached = std::move(next);
      pending.erase(it);
      moved = true;
      break;
    }
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
  Result<Holders> to = holdersOf(destination, mesh);
  if (!to)
    return to.takeFailure();
  Result<CollectiveStep> step =
      exchangeStep(mesh, ends->source, *from, ends->destination, *to);
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
  Result<Holders> to = holdersOf(destination, mesh);
  if (!to)
    return to.takeFailure();
  Result<CollectiveStep> step =
      exchangeStep(mesh, reached, *from, plan.destination, *to);
  if (!step)
    return step.takeFailure();
  if (std::optional<CollectiveStep> kept =
          simplifyExchange(std::move(*step), *from, mesh))
    plan.steps.push_back(std::move(*kept));
  return plan;
}

//===----------------------------------------------------------------------===//
// The brute-force mesh
//===----------------------------------------------------------------------===//

Result<MeshContents> axe::expectedContents(const TileLayout &layout,
                                           llvm::ArrayRef<int64_t> shape,
                                           const Mesh &mesh,
                                           llvm::ArrayRef<int64_t> values) {
  if (Result<Distribution> dist = classify(layout, shape, mesh); !dist)
    return dist.takeFailure();
  if (int64_t(values.size()) != layout.size())
    return fail("expected " + itos(layout.size()) + " values, got " +
                itos(values.size()));
  Result<Holders> holders = holdersOf(layout, mesh);
  if (!holders)
    return holders.takeFailure();
  MeshContents contents(mesh.numRanks());
  for (auto [flat, ranks] : llvm::enumerate(*holders))
    for (int64_t r : ranks)
      contents[r][flat] = values[flat];
  return contents;
}

namespace {

Result<bool> addInto(int64_t &sum, int64_t value) {
  if (addOverflows(sum, value, sum))
    return fail("a sum overflows int64");
  return true;
}

/// The ranks that rank `rank` may take data from in a named step.
Result<llvm::SmallVector<int64_t, 4>>
peersOf(const Mesh &mesh, const CollectiveStep &step, int64_t rank) {
  llvm::SmallVector<bool, 4> inGroup(mesh.axes().size(), false);
  for (const std::string &name : step.axes) {
    std::optional<unsigned> index = mesh.find(name);
    if (!index)
      return fail("axis '" + name + "' is not in " + mesh.str());
    inGroup[*index] = true;
  }
  if (step.kind == CollectiveKind::LocalSlice)
    return llvm::SmallVector<int64_t, 4>{rank};
  llvm::SmallVector<int64_t, 4> self = mesh.coordinates(rank);
  llvm::SmallVector<int64_t, 4> peers;
  bool rooted = step.kind == CollectiveKind::Broadcast ||
                step.kind == CollectiveKind::Scatter;
  for (int64_t other = 0; other < mesh.numRanks(); ++other) {
    llvm::SmallVector<int64_t, 4> coords = mesh.coordinates(other);
    bool member =
        llvm::all_of(llvm::seq<size_t>(0, coords.size()), [&](size_t k) {
          return inGroup[k] || coords[k] == self[k];
        });
    if (member && rooted && coords[*mesh.find(step.axes.front())] != step.root)
      member = false;
    if (member)
      peers.push_back(other);
  }
  return peers;
}

bool reduces(CollectiveKind kind) {
  return kind == CollectiveKind::ReduceScatter ||
         kind == CollectiveKind::AllReduce || kind == CollectiveKind::Reduce;
}

/// The value rank `rank` ends up with for element `flat`: the sum of every
/// peer's addend, or the one value the peers that hold it agree on.
Result<int64_t> receive(const MeshContents &state, CollectiveKind kind,
                        llvm::ArrayRef<int64_t> peers, int64_t rank,
                        int64_t flat) {
  std::optional<int64_t> value;
  for (int64_t peer : peers) {
    auto it = state[peer].find(flat);
    if (it == state[peer].end()) {
      if (reduces(kind))
        return fail("rank " + itos(peer) + " has no addend of element " +
                    itos(flat) + " for rank " + itos(rank));
      continue;
    }
    if (reduces(kind)) {
      int64_t sum = value.value_or(0);
      if (Result<bool> ok = addInto(sum, it->second); !ok)
        return ok.takeFailure();
      value = sum;
    } else if (value && *value != it->second) {
      return fail("copies of element " + itos(flat) + " that rank " +
                  itos(rank) + " may take disagree");
    } else {
      value = it->second;
    }
  }
  if (!value)
    return fail("rank " + itos(rank) + " needs element " + itos(flat) +
                ", which no rank it receives from holds");
  return *value;
}

Result<MeshContents> simulateNamed(const Mesh &mesh, const CollectiveStep &step,
                                   const MeshContents &state) {
  if (!step.after.regular())
    return fail("a named collective needs a regular destination");
  Result<int64_t> size = shapeSize(step.after.shape);
  if (!size)
    return size.takeFailure();
  if (Result<bool> ok = checkEnumerable(*size, mesh.numRanks(), "simulating");
      !ok)
    return ok.takeFailure();
  MeshContents next(mesh.numRanks());
  for (int64_t rank = 0; rank < mesh.numRanks(); ++rank) {
    Result<llvm::SmallVector<int64_t, 4>> peers = peersOf(mesh, step, rank);
    if (!peers)
      return peers.takeFailure();
    llvm::SmallVector<int64_t, 4> coords = mesh.coordinates(rank);
    for (int64_t flat = 0; flat < *size; ++flat) {
      if (!step.after.holds(coords, unflattenIndex(flat, step.after.shape)))
        continue;
      Result<int64_t> value = receive(state, step.kind, *peers, rank, flat);
      if (!value)
        return value.takeFailure();
      next[rank][flat] = *value;
    }
  }
  return next;
}

Result<MeshContents> simulateTransfers(const Mesh &mesh,
                                       const CollectiveStep &step,
                                       const MeshContents &state) {
  MeshContents next(mesh.numRanks());
  std::vector<bool> filled(mesh.numRanks());
  for (const Transfer &t : step.transfers) {
    if (t.source < 0 || t.source >= mesh.numRanks() || t.target < 0 ||
        t.target >= mesh.numRanks())
      return fail("a transfer names a rank outside " + mesh.str());
    if (step.kind == CollectiveKind::Permute) {
      if (filled[t.target])
        return fail("rank " + itos(t.target) + " receives two buffers");
      filled[t.target] = true;
      next[t.target] = state[t.source];
      continue;
    }
    for (int64_t flat : t.elements) {
      auto it = state[t.source].find(flat);
      if (it == state[t.source].end())
        return fail("rank " + itos(t.source) + " sends element " + itos(flat) +
                    ", which it does not hold");
      auto [slot, fresh] = next[t.target].try_emplace(flat, 0);
      if (!fresh && !step.sums)
        return fail("element " + itos(flat) + " reaches rank " +
                    itos(t.target) + " twice");
      if (Result<bool> ok = addInto(slot->second, it->second); !ok)
        return ok.takeFailure();
    }
  }
  return next;
}

} // namespace

Result<MeshContents> axe::simulatePlan(const CollectivePlan &plan,
                                       MeshContents state) {
  if (int64_t(state.size()) != plan.mesh.numRanks())
    return fail("the contents cover " + itos(state.size()) + " ranks, " +
                plan.mesh.str() + " has " + itos(plan.mesh.numRanks()));
  for (auto [index, step] : llvm::enumerate(plan.steps)) {
    bool byTransfers = step.kind == CollectiveKind::Exchange ||
                       step.kind == CollectiveKind::Permute;
    Result<MeshContents> next = byTransfers
                                    ? simulateTransfers(plan.mesh, step, state)
                                    : simulateNamed(plan.mesh, step, state);
    if (!next)
      return fail("step " + itos(index + 1) + " (" + step.str() +
                  "): " + next.message());
    state = std::move(*next);
  }
  return state;
}
