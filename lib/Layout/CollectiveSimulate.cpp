//===- CollectiveSimulate.cpp - The brute-force mesh ----------------------===//
//
// expectedContents (what every rank holds of a layout) and simulatePlan
// (a plan's steps run element by element on every rank), which check the
// planner's plans.
//
//===----------------------------------------------------------------------===//

#include "CollectiveInternal.h"

#include "axe/Layout/Algebra.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

using namespace axe;
using namespace axe::collective;

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
