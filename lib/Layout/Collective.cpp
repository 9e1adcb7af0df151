//===- Collective.cpp - Meshes, distributions and their classification ----===//
//
// A device mesh and its parsing, where a layout's elements lie on it (axis
// placements, distributions), the classification of a layout over a mesh,
// and the names and printing of collective steps and plans. The planner is
// in CollectivePlan.cpp, the brute-force mesh in CollectiveSimulate.cpp.
//
//===----------------------------------------------------------------------===//

#include "CollectiveInternal.h"

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace axe;
using namespace axe::collective;

Result<bool> axe::collective::checkEnumerable(int64_t count, int64_t each,
                                              llvm::StringRef what) {
  int64_t total;
  if (mulOverflows(count, each, total) || total > kMaxEnumerated)
    return fail(what.str() + " needs " + itos(count) + " x " + itos(each) +
                " entries, more than the " + itos(kMaxEnumerated) +
                " it enumerates");
  return true;
}

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
