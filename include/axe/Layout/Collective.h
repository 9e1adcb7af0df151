//===- Collective.h - Moving a layout across a device mesh -----*- C++ -*-===//
//
//
// A layout over device axes says which device of a mesh holds which logical
// element. Changing the layout of a distributed buffer is communication; this
// header classifies each mesh axis of a source and a destination layout
// (sharded, replicated, partial, on one device) and plans the collectives
// that move the data: reductions first, gathers last, a generic exchange of
// element lists (an Alltoallv) when no named collective fits.
//
// The plan is plain data; nothing here talks to MPI. A brute-force model of
// the mesh (every rank's buffer as a map from logical element to value) runs
// plans, so tests and tools can check a plan against the layouts directly.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_COLLECTIVE_H
#define AXE_LAYOUT_COLLECTIVE_H

#include "axe/Layout/TileLayout.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace axe {

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

struct MeshAxis {
  std::string name;
  int64_t extent = 1;
};

/// An ordered list of device axes. Ranks enumerate the mesh coordinates
/// row-major (the last axis fastest), as `mesh<dx = 2, dy = 2>` and MLIR's
/// shard.grid do: rank = dx * 2 + dy.
class Mesh {
public:
  /// The one-rank mesh without axes.
  Mesh() = default;

  /// Checks that names are valid, distinct and not memory or thread axes,
  /// that extents are >= 1, and that the rank count fits in int64.
  static Result<Mesh> create(llvm::ArrayRef<MeshAxis> axes);

  llvm::ArrayRef<MeshAxis> axes() const { return meshAxes; }
  int64_t numRanks() const { return ranks; }
  std::optional<unsigned> find(llvm::StringRef name) const;

  /// The coordinates of `rank` (0 <= rank < numRanks()), one per axis.
  llvm::SmallVector<int64_t, 4> coordinates(int64_t rank) const;
  /// The rank at in-range coordinates, one per axis.
  int64_t rankAt(llvm::ArrayRef<int64_t> coordinates) const;

  /// "mesh<dx = 2, dy = 2>".
  std::string str() const;

private:
  llvm::SmallVector<MeshAxis, 4> meshAxes;
  int64_t ranks = 1;
};

/// Parses "dx = 2, dy = 2", optionally wrapped in "mesh<...>".
Result<Mesh> parseMesh(llvm::StringRef text);

//===----------------------------------------------------------------------===//
// Classification of each mesh axis
//===----------------------------------------------------------------------===//

enum class PlacementKind {
  /// Each device along the axis holds one slice of a logical dim.
  Sharded,
  /// Every device along the axis holds the same elements.
  Replicated,
  /// Every device along the axis holds one addend of each element; the value
  /// is their sum (layouts have no such state: the caller says so).
  Partial,
  /// Only the device at one coordinate of the axis holds anything.
  Fixed,
  /// Anything else (strided or partial coverage, several iters on the axis,
  /// an axis split over two dims); only the generic exchange handles it.
  Irregular,
};

struct AxisPlacement {
  PlacementKind kind = PlacementKind::Fixed;
  /// Sharded: the device coordinate of logical element x is
  /// (x[dim] / stride) mod extent. stride * extent == shape[dim] is the
  /// usual block sharding, stride 1 the cyclic one.
  unsigned dim = 0;
  int64_t stride = 1;
  int64_t extent = 1;
  /// Fixed: the coordinate of the one device that holds the data.
  int64_t coordinate = 0;
  /// Irregular: why the axis fits none of the other kinds.
  std::string reason;

  static AxisPlacement sharded(unsigned dim, int64_t stride, int64_t extent);
  static AxisPlacement replicated();
  static AxisPlacement partial();
  static AxisPlacement fixed(int64_t coordinate);
  static AxisPlacement irregular(std::string reason);

  /// "S(0, stride 32)", "R", "P", "@1", "irregular (...)".
  std::string str() const;

  bool operator==(const AxisPlacement &other) const;
  bool operator!=(const AxisPlacement &other) const {
    return !(*this == other);
  }
};

/// How a buffer of `shape` lies on a mesh: one placement per mesh axis, in
/// mesh order.
struct Distribution {
  Shape shape;
  llvm::SmallVector<AxisPlacement, 4> axes;

  /// No axis is Irregular: holds() and localShape() answer.
  bool regular() const;
  bool partial() const;
  /// Regular, and the sharded axes of each dim take disjoint mixed-radix
  /// digits of it, so that every device that holds data holds a buffer of
  /// localShape().
  bool balanced() const;
  /// The buffer each holding device keeps: shape[d] divided by the extents
  /// of the axes that shard dim d. Requires regular().
  Shape localShape() const;
  /// Whether the device at `meshCoordinates` holds the element at `logical`.
  /// Requires regular().
  bool holds(llvm::ArrayRef<int64_t> meshCoordinates,
             llvm::ArrayRef<int64_t> logical) const;

  /// "dx: S(0, stride 32), dy: R".
  std::string str(const Mesh &mesh) const;
};

/// Classifies every mesh axis of `layout` (admitting `shape`). Axes the
/// layout uses must be mesh axes or memory axes (m, P, F, ...); mesh axes
/// must stay inside the mesh's extents. `partialAxes` names the mesh axes on
/// which the buffer holds addends; each must be replicated in the layout
/// (on an axis of extent 1 the one addend is the value, and the axis is
/// classified as if it were not listed).
Result<Distribution> classify(const TileLayout &layout,
                              llvm::ArrayRef<int64_t> shape, const Mesh &mesh,
                              llvm::ArrayRef<std::string> partialAxes = {});

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// In plan order: reductions, then re-sharding, local slicing and point to
/// point moves, then gathers.
enum class CollectiveKind {
  ReduceScatter,
  AllReduce,
  /// Sum onto the device at `root`.
  Reduce,
  AllToAll,
  /// Each device keeps part of what it holds; no communication.
  LocalSlice,
  /// Whole buffers move between device pairs (MPI_Sendrecv).
  Permute,
  /// From the device at `root` to every device along the axis.
  Scatter,
  /// Onto the device at `root`.
  Gather,
  /// From the device at `root` to every device along the axis.
  Broadcast,
  AllGather,
  /// The fallback: an Alltoallv of explicit element lists over the whole
  /// mesh.
  Exchange,
};

llvm::StringRef collectiveKindName(CollectiveKind kind);

/// What one rank sends another in an exchange, or (in a permutation) that it
/// sends its whole buffer.
struct Transfer {
  int64_t source = 0;
  int64_t target = 0;
  /// Flat logical indices, ascending; empty in a permutation.
  std::vector<int64_t> elements;
};

struct CollectiveStep {
  CollectiveKind kind = CollectiveKind::Exchange;
  /// The communicator: ranks that differ only on these mesh axes talk. For
  /// sharded data the most significant axis comes first (the communicator's
  /// rank order); empty for an exchange, which spans the mesh.
  llvm::SmallVector<std::string, 2> axes;
  /// Reduce, Scatter, Gather, Broadcast: the root's coordinate on the
  /// step's one axis.
  int64_t root = 0;
  /// The data before and after the step. An exchange may start or end at an
  /// irregular distribution.
  Distribution before, after;
  /// The buffer of a rank that holds data, before and after; flat (the
  /// largest count on any rank) where the distribution is irregular.
  Shape localBefore, localAfter;
  /// Exchange: receivers add what they receive (the source is partial).
  bool sums = false;
  /// Exchange and Permute: who sends what to whom, ordered by (source,
  /// target).
  std::vector<Transfer> transfers;

  /// One line: "reduce-scatter over (dx, dy): 64x128 -> 16x128".
  std::string str() const;
};

struct CollectivePlan {
  Mesh mesh;
  Distribution source, destination;
  llvm::SmallVector<CollectiveStep, 4> steps;

  /// The mesh, both distributions and one line per step.
  std::string str() const;
};

/// Plans the move of a buffer from `source` to `destination`, which must
/// admit the same shape. `partialAxes` marks the source as pending a sum
/// over those mesh axes (the destination holds finished values).
Result<CollectivePlan>
planCollective(const TileLayout &source, llvm::ArrayRef<int64_t> sourceShape,
               const TileLayout &destination,
               llvm::ArrayRef<int64_t> destinationShape, const Mesh &mesh,
               llvm::ArrayRef<std::string> partialAxes = {});

/// The generic exchange alone, built from the element placements of the two
/// layouts: the fallback of planCollective, and a plan to compare it with.
Result<CollectivePlan>
planExchange(const TileLayout &source, llvm::ArrayRef<int64_t> sourceShape,
             const TileLayout &destination,
             llvm::ArrayRef<int64_t> destinationShape, const Mesh &mesh,
             llvm::ArrayRef<std::string> partialAxes = {});

//===----------------------------------------------------------------------===//
// The brute-force mesh
//===----------------------------------------------------------------------===//

/// One rank's buffer: flat logical index -> value (an addend where the data
/// is partial). Local replicas of an element are one entry.
using RankContents = std::map<int64_t, int64_t>;
/// Indexed by rank.
using MeshContents = std::vector<RankContents>;

/// What every rank holds when `layout` places finished values:
/// values[flat] on every rank that one of the element's placements is on.
Result<MeshContents> expectedContents(const TileLayout &layout,
                                      llvm::ArrayRef<int64_t> shape,
                                      const Mesh &mesh,
                                      llvm::ArrayRef<int64_t> values);

/// Runs `plan` on `initial` (the source contents), step by step, with each
/// step's own semantics: a rank gets data only from its communicator (or
/// its root, or itself), reductions need every member's addend, and copies
/// of one element must agree. Fails saying which step broke which rule.
Result<MeshContents> simulatePlan(const CollectivePlan &plan,
                                  MeshContents initial);

} // namespace axe

#endif // AXE_LAYOUT_COLLECTIVE_H
