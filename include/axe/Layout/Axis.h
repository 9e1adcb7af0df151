//===- Axis.h - Named hardware axes and physical coordinates ----*- C++ -*-===//
//
// Axes are named; the built-in names carry a kind (thread, memory, device)
// that the dialect and the targets use to check placements. Any other name is
// a user axis and is legal in the algebra.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_AXIS_H
#define AXE_LAYOUT_AXIS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace axe {

enum class AxisKind {
  /// Grid, cluster, CTA, warp, lane and warpgroup coordinates.
  Thread,
  /// Linear memory / register slots (m), scratchpad (P, F), PSUM banks,
  /// tensor memory (TLane, TCol).
  Memory,
  /// Device mesh axes (gpuid).
  Device,
  /// Any other name: legal in the algebra, meaning given by the user.
  User,
};

/// The default memory axis: a stride written without "@axis" is on it.
inline constexpr llvm::StringLiteral kDefaultAxis = "m";

struct AxisInfo {
  llvm::StringLiteral name;
  AxisKind kind;
  llvm::StringLiteral description;
};

/// All built-in axes, in a fixed order.
llvm::ArrayRef<AxisInfo> builtinAxes();

/// The kind of a built-in axis, or AxisKind::User for any other name.
AxisKind axisKind(llvm::StringRef name);

llvm::StringRef axisKindName(AxisKind kind);

/// True when `name` is a syntactically valid axis name: a letter or '_'
/// followed by letters, digits or '_'.
bool isValidAxisName(llvm::StringRef name);

/// A point in physical space: axis -> integer, absent axes are 0. Zero
/// entries are never stored, so two equal points compare equal.
class Coord {
public:
  /// An axis and its (nonzero) coordinate.
  using Entry = std::pair<std::string, int64_t>;

  Coord() = default;

  int64_t get(llvm::StringRef axis) const;
  /// Adds `delta` on `axis`. The caller guarantees no overflow (layouts are
  /// validated so that every reachable coordinate fits in int64).
  void add(llvm::StringRef axis, int64_t delta);
  void set(llvm::StringRef axis, int64_t value);
  Coord &operator+=(const Coord &other);
  Coord operator+(const Coord &other) const;

  bool empty() const { return values.empty(); }
  /// The nonzero entries, sorted by axis name.
  llvm::ArrayRef<Entry> entries() const { return values; }

  bool operator==(const Coord &other) const { return values == other.values; }
  bool operator!=(const Coord &other) const { return values != other.values; }
  bool operator<(const Coord &other) const { return values < other.values; }

  /// "{laneid: 8, m: 1, warpid: 6}" (axis-name order).
  std::string str() const;

private:
  /// Sorted by axis, zeros left out. A coordinate names a handful of axes:
  /// a sorted small vector holds them inline, where a std::map allocated a
  /// node per axis (most of the time of TileLayout::span).
  llvm::SmallVector<Entry, 4> values;
};

} // namespace axe

#endif // AXE_LAYOUT_AXIS_H
