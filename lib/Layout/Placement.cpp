//===- Placement.cpp - Where a layout puts elements apart -----------------===//

#include "axe/Layout/Placement.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <cassert>
#include <cstdlib>

namespace axe {

llvm::SmallVector<std::string, 4> placementAxes(const TileLayout &layout) {
  llvm::SmallVector<std::string, 4> axes;
  auto add = [&](llvm::StringRef axis) {
    if (!llvm::is_contained(axes, axis))
      axes.push_back(axis.str());
  };
  for (llvm::ArrayRef<Iter> iters : {layout.shard(), layout.replica()})
    for (const Iter &it : iters)
      if (it.extent > 1 && it.stride != 0)
        add(it.axis);
  for (const auto &[axis, value] : layout.offset().entries())
    if (value != 0)
      add(axis);
  llvm::sort(axes);
  return axes;
}

TileLayout withoutDeviceCopies(const TileLayout &layout) {
  IterList replica;
  for (const Iter &it : layout.replica())
    if (!isDeviceAxis(it.axis))
      replica.push_back(it);
  Coord offset;
  for (const auto &[axis, value] : layout.offset().entries())
    if (!isDeviceAxis(axis))
      offset.set(axis, value);
  // Dropping replicas and offset entries from a valid layout only shrinks
  // its reach, so this cannot fail.
  Result<TileLayout> local = TileLayout::create(
      IterList(layout.shard().begin(), layout.shard().end()), replica, offset);
  assert(local && "a part of a valid layout is a valid layout");
  return *local;
}

namespace {

/// One digit of an axis: an iter of extent above 1, and for a shard iter
/// the weight of its digit in the flat index (0 for a replica iter).
struct AxisDigit {
  int64_t extent, stride, weight;
};

/// Whether the digits, ordered by |stride|, nest: each |stride| at least the
/// reach of the smaller ones, so that no two combinations meet.
bool digitsNest(llvm::SmallVector<AxisDigit, 8> digits) {
  llvm::sort(digits, [](const AxisDigit &a, const AxisDigit &b) {
    return std::llabs(a.stride) < std::llabs(b.stride);
  });
  int64_t reach = 1;
  for (const AxisDigit &d : digits) {
    int64_t s = std::llabs(d.stride); // create() refuses INT64_MIN
    if (s < reach)
      return false;
    // Past int64, no later |stride| can reach it: the next one fails.
    if (mulOverflows(s, d.extent, reach))
      reach = INT64_MAX;
  }
  return true;
}

/// Calls `visit(index, value)` for every combination of `digits`: the flat
/// index part (sum of digit x weight) and the coordinate (sum of digit x
/// stride). The caller bounds the number of combinations and the layout
/// bounds every coordinate inside int64.
template <typename Visit>
void forEachDigitSum(llvm::ArrayRef<AxisDigit> digits, Visit visit) {
  llvm::SmallVector<int64_t, 8> d(digits.size(), 0);
  int64_t index = 0, value = 0;
  while (true) {
    visit(index, value);
    // Odometer order; a digit past its top is never formed (extent x
    // stride may leave int64 where (extent - 1) x stride does not).
    size_t i = 0;
    for (; i < digits.size(); ++i) {
      if (d[i] + 1 < digits[i].extent) {
        ++d[i];
        index += digits[i].weight;
        value += digits[i].stride;
        break;
      }
      index -= digits[i].weight * d[i];
      value -= digits[i].stride * d[i];
      d[i] = 0;
    }
    if (i == digits.size())
      return;
  }
}

/// Two shard-digit combinations of one axis that reach one value, as the
/// flat index parts and the replica parts that get them there.
struct AxisMeeting {
  int64_t firstIndex, secondIndex, firstReplica, secondReplica;
};

std::optional<AxisMeeting> findAxisMeeting(llvm::ArrayRef<AxisDigit> shard,
                                           llvm::ArrayRef<AxisDigit> replica) {
  // value -> (flat index part, replica part) of the first combination there.
  llvm::DenseMap<int64_t, std::pair<int64_t, int64_t>> seen;
  std::optional<AxisMeeting> meeting;
  forEachDigitSum(shard, [&](int64_t index, int64_t shardValue) {
    if (meeting)
      return;
    forEachDigitSum(replica, [&](int64_t, int64_t replicaValue) {
      if (meeting)
        return;
      auto [it, inserted] =
          seen.try_emplace(shardValue + replicaValue, index, replicaValue);
      if (!inserted && it->second.first != index)
        meeting = AxisMeeting{it->second.first, index, it->second.second,
                              replicaValue};
    });
  });
  return meeting;
}

} // namespace

std::optional<SharedPlace> findSharedPlace(const TileLayout &layout) {
  llvm::ArrayRef<Iter> shard = layout.shard();
  llvm::SmallVector<int64_t, 8> weight(shard.size());
  int64_t w = 1;
  for (size_t i = shard.size(); i-- > 0;) {
    weight[i] = w;
    w *= shard[i].extent; // size() fits int64 (TileLayout::create)
  }
  for (const std::string &axis : layout.axes()) {
    llvm::SmallVector<AxisDigit, 8> shardDigits, replicaDigits, all;
    int64_t combinations = 1;
    bool tooMany = false;
    auto collect = [&](llvm::ArrayRef<Iter> iters, bool isShard) {
      for (auto [i, it] : llvm::enumerate(iters)) {
        if (it.axis != axis || it.extent == 1)
          continue;
        AxisDigit d{it.extent, it.stride, isShard ? weight[i] : 0};
        (isShard ? shardDigits : replicaDigits).push_back(d);
        all.push_back(d);
        if (mulOverflows(combinations, it.extent, combinations) ||
            combinations > kMaxSharedPlaceCombinations)
          tooMany = true;
      }
    };
    collect(shard, true);
    collect(layout.replica(), false);
    if (shardDigits.empty() || digitsNest(all) || tooMany)
      continue;
    std::optional<AxisMeeting> m = findAxisMeeting(shardDigits, replicaDigits);
    if (!m)
      continue;
    // The other axes' digits stay 0 in both elements, so both lie at the
    // first element's place with this axis's replica digits chosen.
    SharedPlace place;
    place.first = std::min(m->firstIndex, m->secondIndex);
    place.second = std::max(m->firstIndex, m->secondIndex);
    place.at = layout.applyBase(m->firstIndex);
    place.at.add(axis, m->firstReplica);
    return place;
  }
  return std::nullopt;
}

namespace {

/// Pairs of axes that name the same thread twice (a whole and its part, or
/// two overlapping parts).
const std::pair<llvm::StringLiteral, llvm::StringLiteral> kThreadConflicts[] = {
    {"tx", "warpid"},        {"tx", "laneid"},
    {"tx", "wgid"},          {"tx", "wid_in_wg"},
    {"tx", "tid_in_wg"},     {"warpid", "wgid"},
    {"warpid", "wid_in_wg"}, {"warpid", "tid_in_wg"},
    {"tid_in_wg", "laneid"}, {"tid_in_wg", "wid_in_wg"},
};

} // namespace

Result<bool> checkThreadAxesDistinct(const TileLayout &layout) {
  llvm::SmallVector<std::string, 4> axes = layout.axes();
  for (const auto &[a, b] : kThreadConflicts)
    if (llvm::is_contained(axes, a) && llvm::is_contained(axes, b))
      return fail("layout places data on both '" + a.str() + "' and '" +
                  b.str() +
                  "', which name overlapping parts of one thread: no thread "
                  "is both");
  return true;
}

} // namespace axe
