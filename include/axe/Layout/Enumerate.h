//===- Enumerate.h - Whole-tile queries at compiler speed -------*- C++ -*-===//
//
// The per-element queries of TileLayout and Layout (apply, inverse) decode a
// flat index or search for one from scratch and build a std::map per point.
// Passes that visit every element of a tile use these instead: points are
// dense arrays of int64 over a fixed, sorted list of axes, the image of a
// tile is walked by an odometer over the shard digits (one stride added per
// step), and an inverter prepares its search once for many points. Each
// answers exactly what the per-element query answers (docs/Layout.md:
// the map, its canonical form, swizzles).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_ENUMERATE_H
#define AXE_LAYOUT_ENUMERATE_H

#include "axe/Layout/Swizzle.h"
#include "axe/Layout/TileLayout.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace axe {

/// Whether no canonicalization rule (docs/Layout.md) applies, i.e. whether
/// canonicalize(layout) == layout. Allocates nothing.
bool isCanonical(const TileLayout &layout);

/// Every axis a layout mentions (shard, replica, offset), sorted by name:
/// the axes of the dense points below.
llvm::SmallVector<std::string, 4> pointAxes(const TileLayout &layout);

/// Calls `visit(flat, point)` for every placement of every element, in
/// flat-index order: each element's distinct placements (one per distinct
/// replica displacement, in an unspecified but fixed order), swizzle
/// applied. `point` holds one value per axis of pointAxes(layout.tile()) and
/// is valid only during the call.
void forEachPlacement(
    const Layout &layout,
    llvm::function_ref<void(int64_t flat, llvm::ArrayRef<int64_t> point)>
        visit);

/// The placements of every element of a layout, stored densely.
class TileImage {
public:
  /// The axes of every point, sorted by name.
  llvm::ArrayRef<std::string> axes() const { return axisNames; }
  /// The number of elements (the layout's size).
  int64_t size() const { return numElements; }
  /// How many distinct placements each element has.
  int64_t placementsPerElement() const { return numPlacements; }
  /// Placement `which` of element `flat`: one value per axis.
  llvm::ArrayRef<int64_t> point(int64_t flat, int64_t which) const;
  /// Every placement of element `flat` as Layout::apply(flat) gives it:
  /// sorted Coords without zero entries.
  llvm::SmallVector<Coord, 4> coords(int64_t flat) const;

private:
  friend TileImage applyAll(const Layout &layout);
  llvm::SmallVector<std::string, 4> axisNames;
  int64_t numElements = 0;
  int64_t numPlacements = 0;
  std::vector<int64_t> values;
};

/// Layout::apply(f) for every f in [0, size()), in one walk.
TileImage applyAll(const Layout &layout);

/// Whether `a` and `b` (of one size) place every flat index at the same set
/// of coordinates, compared index by index: the caller bounds the work.
bool samePlacementSets(const Layout &a, const Layout &b);

/// Layout::inverse for many points: prepares the search once (dense axes,
/// per-iter reach bounds) so that each query allocates nothing. Views the
/// layout, which must outlive it.
///
/// When on every axis the nonzero strides, sorted by magnitude, each exceed
/// what the smaller ones reach together (a mixed radix with gaps allowed:
/// the usual hardware and memory layouts), a point has at most one set of
/// digits, found by division (a shift for a power of two) from the
/// largest stride down; the inverter then decodes each point directly
/// instead of searching. Both give the same answers, except where the
/// search would exceed its budget: the decoding answers those too.
class LayoutInverter {
public:
  explicit LayoutInverter(const Layout &layout);
  explicit LayoutInverter(const TileLayout &layout);

  /// The axes of the dense points inverse() takes, sorted by name.
  llvm::ArrayRef<std::string> axes() const { return axisNames; }

  /// Exactly Layout::inverse(physical): the smallest flat index whose image
  /// contains `physical`, or why there is none.
  Result<int64_t> inverse(const Coord &physical) const;

  enum class Outcome { Found, NotInImage, TooLarge };
  /// The same for a dense point over axes(); sets `flat` when Found.
  Outcome inverse(llvm::ArrayRef<int64_t> point, int64_t &flat) const;

  /// Whether points are decoded directly rather than searched for.
  bool decodesDirectly() const { return direct; }

private:
  struct Step {
    int64_t extent;
    int64_t stride;
    unsigned axis;
  };
  class Search;

  /// One digit of the direct decoding: the remainder on its axis is
  /// divided by `stride` (the magnitude; a shift by `shift` when >= 0).
  struct Digit {
    uint64_t stride;
    int64_t extent;
    /// What one unit of the digit adds to the flat index (wrapping):
    /// minus the iter's weight for a negative stride, 0 for a replica.
    uint64_t weight;
    int shift;
  };
  /// The reachable range of an axis and its digits, largest stride first.
  struct DigitAxis {
    int64_t lowest, highest;
    unsigned first, end;
  };

  void prepare();
  void prepareDirect();
  Outcome decode(const int64_t *point, bool unswizzle, int64_t &flat) const;
  Outcome invertUnswizzled(llvm::SmallVectorImpl<int64_t> &remaining,
                           int64_t &flat) const;

  const TileLayout *tile;
  std::optional<Swizzle> swizzle;
  llvm::SmallVector<std::string, 4> axisNames;
  /// Index of "m" in axisNames, or -1.
  int memoryAxis = -1;
  llvm::SmallVector<int64_t, 4> offset;
  /// Iters of extent >= 2: the shard's (slowest first), then the replica's.
  llvm::SmallVector<Step, 8> steps;
  unsigned numShardSteps = 0;
  /// The range steps k.. can still reach on axis a:
  /// [low[k * A + a], high[k * A + a]] with A = axisNames.size().
  llvm::SmallVector<int64_t, 32> low, high;
  /// The direct decoding, when `direct`: per axis, its digits.
  bool direct = false;
  llvm::SmallVector<DigitAxis, 4> digitAxes;
  llvm::SmallVector<Digit, 8> digitList;
  /// The flat index of the digits all 0 (negative strides count down).
  uint64_t flatBase = 0;
};

} // namespace axe

#endif // AXE_LAYOUT_ENUMERATE_H
