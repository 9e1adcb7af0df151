//===- MeshStorage.cpp - How processes store distributed buffers ----------===//

#include "axe/Layout/MeshStorage.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Placement.h"

#include "llvm/ADT/STLExtras.h"

namespace axe {

using llvm::ArrayRef;
using llvm::StringRef;

namespace {

std::string itos(int64_t v) { return std::to_string(v); }

int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

} // namespace

bool onDevices(const Mesh &mesh, StringRef axis) {
  return isDeviceAxis(axis) &&
         (axisKind(axis) == AxisKind::Device || mesh.find(axis).has_value());
}

Result<std::pair<TileLayout, std::vector<std::string>>>
partialSource(const Mesh &mesh, const TileLayout &layout,
              ArrayRef<int64_t> shape, ArrayRef<int64_t> reducedDims) {
  auto grouped = group(layout, shape);
  if (!grouped)
    return grouped.takeFailure();
  IterList shard;
  IterList replica(layout.replica().begin(), layout.replica().end());
  std::vector<std::string> partial;
  for (unsigned d = 0; d < shape.size(); ++d) {
    bool reduced = llvm::is_contained(reducedDims, int64_t(d));
    for (const Iter &it : grouped->block(d)) {
      if (!reduced) {
        shard.push_back(it);
        continue;
      }
      if (!onDevices(mesh, it.axis))
        return fail("reduced dim " + itos(d) +
                    " of the source has an iter on '" + it.axis +
                    "'; a reduce at mesh scope sums across devices only, so "
                    "reduce the local part first at cta scope");
      replica.push_back(it);
      if (!llvm::is_contained(partial, it.axis))
        partial.push_back(it.axis);
    }
  }
  auto out = TileLayout::create(shard, replica, layout.offset());
  if (!out)
    return out.takeFailure();
  return std::make_pair(*out, partial);
}

Result<bool> checkDenseLocalStorage(const Mesh &mesh, const TileLayout &layout,
                                    ArrayRef<int64_t> shape,
                                    const Distribution &dist, StringRef role) {
  auto grouped = group(layout, shape);
  if (!grouped)
    return grouped.takeFailure();
  Shape local = dist.localShape();
  for (const Iter &it : grouped->layout.replica())
    if (!onDevices(mesh, it.axis) && it.extent > 1)
      return fail("the " + role.str() + " has replicas on '" + it.axis +
                  "'; each process must hold one copy of its shard");
  for (const auto &[axis, value] : layout.offset().entries())
    if (!onDevices(mesh, axis) && value != 0)
      return fail("the " + role.str() + " layout has an offset on '" + axis +
                  "'");
  int64_t rowStride = 1;
  for (unsigned d = shape.size(); d-- > 0;) {
    int64_t memoryPlace = 1;
    for (const Iter &it : llvm::reverse(grouped->block(d))) {
      if (onDevices(mesh, it.axis) || it.extent == 1)
        continue;
      int64_t expected = memoryPlace * rowStride;
      if (it.axis != kDefaultAxis || it.stride != expected)
        return fail("the " + role.str() +
                    " must be stored densely and "
                    "row-major as its local shape " +
                    shapeStr(local) + " on every process; along dim " +
                    itos(d) + " the iter " + itos(it.extent) + ":" +
                    itos(it.stride) + "@" + it.axis + " should have stride " +
                    itos(expected) + "@m");
      memoryPlace *= it.extent;
    }
    rowStride *= local[d];
  }
  return true;
}

Result<std::vector<int64_t>> digitPack(const Mesh &mesh,
                                       const Distribution &full,
                                       const Distribution &sharded,
                                       ArrayRef<unsigned> axes) {
  std::optional<unsigned> dim;
  for (unsigned a : axes) {
    const AxisPlacement &p = sharded.axes[a];
    if (p.kind != PlacementKind::Sharded)
      return fail("mesh axis '" + mesh.axes()[a].name + "' is " + p.str() +
                  ", not sharded, on one side of the step");
    if (dim && *dim != p.dim)
      return fail("the step shards dims " + itos(*dim) + " and " + itos(p.dim) +
                  " at once");
    dim = p.dim;
  }
  Shape local = full.localShape();
  std::vector<int64_t> out;
  if (!dim) {
    out = {1, product(local), 1, 0};
    return out;
  }
  int64_t outer = product(ArrayRef<int64_t>(local).take_front(*dim));
  int64_t inner = product(ArrayRef<int64_t>(local).drop_front(*dim + 1));
  out = {outer, local[*dim], inner, int64_t(axes.size())};
  for (unsigned a : axes) {
    const AxisPlacement &p = sharded.axes[a];
    // The digit's place in the full side's local index: its global stride
    // less the digits that side already removed below it.
    // Chunks are equal and contiguous in the mixed radix only when every
    // digit the full side removed nests with this one: wholly below it, at
    // a place that divides its stride, or wholly above it, at a multiple of
    // its end. Otherwise peers would owe each other shares of different
    // sizes, which MPI's fixed-count collectives cannot move.
    int64_t stride = p.stride;
    for (const AxisPlacement &q : full.axes) {
      if (q.kind != PlacementKind::Sharded || q.dim != *dim || q == p)
        continue;
      bool below = q.stride < p.stride;
      bool nests = below ? p.stride % (q.stride * q.extent) == 0
                         : q.stride % (p.stride * p.extent) == 0;
      if (!nests)
        return fail("mesh axis '" + mesh.axes()[a].name + "' takes digit " +
                    itos(p.extent) + ":" + itos(p.stride) + " of dim " +
                    itos(*dim) + ", which does not nest with digit " +
                    itos(q.extent) + ":" + itos(q.stride) +
                    " of the other side, so the processes' shares differ "
                    "in size");
      if (below)
        stride /= q.extent;
    }
    out.push_back(stride);
    out.push_back(p.extent);
  }
  return out;
}

} // namespace axe
