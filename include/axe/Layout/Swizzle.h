//===- Swizzle.h - XOR swizzles and swizzled (composed) layouts -*- C++ -*-===//
//
// A swizzle permutes a linear address on axis m (docs/LayoutSemantics.md
// section 9). A Layout is a TileLayout optionally followed by a swizzle of its
// m coordinate; it is the value a buffer carries.
//
// Text form of a swizzled layout: "SW(M, B, S) o <tile layout>", e.g.
//   SW(3, 3, 3) o S[(8, 64) : (64, 1)]
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_SWIZZLE_H
#define AXE_LAYOUT_SWIZZLE_H

#include "axe/Layout/TileLayout.h"

#include <map>
#include <optional>

namespace axe {

/// Swizzle(M, B, S): keeps the low M bits, then XORs bits [S, S+B) of the
/// rest into its bits [0, B). Requires S >= B, so it is an involution.
struct Swizzle {
  int perElement = 0; // M
  int swizzleLen = 0; // B
  int atomLen = 0;    // S

  static Result<Swizzle> create(int perElement, int swizzleLen, int atomLen);

  int64_t apply(int64_t address) const;
  /// The swizzle is its own inverse.
  int64_t inverse(int64_t address) const { return apply(address); }
  /// Addresses the swizzle permutes within: 2^(M + B + S).
  int64_t period() const;
  /// 2^(M + B): the swizzle rewrites only bits [M, M + B) of an address, so
  /// every address stays inside its aligned block of this many.
  int64_t blockSize() const;
  bool isIdentity() const { return swizzleLen == 0; }
  std::string str() const;

  bool operator==(const Swizzle &o) const {
    return perElement == o.perElement && swizzleLen == o.swizzleLen &&
           atomLen == o.atomLen;
  }
  bool operator!=(const Swizzle &o) const { return !(*this == o); }
};

/// A tile layout, optionally composed with a swizzle of its m coordinate.
class Layout {
public:
  Layout() = default;
  Layout(TileLayout tile) : tileLayout(std::move(tile)) {}
  Layout(Swizzle swizzle, TileLayout tile)
      : tileLayout(std::move(tile)), swizzleFn(swizzle) {}

  const TileLayout &tile() const { return tileLayout; }
  const std::optional<Swizzle> &swizzle() const { return swizzleFn; }
  bool isSwizzled() const { return swizzleFn.has_value(); }
  /// The swizzle unless it is absent or an identity (B == 0): the one that
  /// moves addresses.
  std::optional<Swizzle> effectiveSwizzle() const;
  /// This layout's swizzle (if any) over another tile part, for operations
  /// that act on the tile part only.
  Layout withTile(TileLayout tile) const;

  int64_t size() const { return tileLayout.size(); }
  bool admits(llvm::ArrayRef<int64_t> shape) const {
    return tileLayout.admits(shape);
  }
  /// Every placement of flat index `flat`, the swizzle applied to m.
  llvm::SmallVector<Coord, 4> apply(int64_t flat) const;
  Result<llvm::SmallVector<Coord, 4>>
  apply(llvm::ArrayRef<int64_t> coord, llvm::ArrayRef<int64_t> shape) const;
  /// Un-swizzles m, then inverts the tile layout.
  Result<int64_t> inverse(const Coord &physical) const;
  /// The tile part's span (TileLayout::span), on m rounded up to whole
  /// swizzle blocks (Swizzle::blockSize): the swizzle may move an address
  /// anywhere in its block. Saturates at INT64_MAX.
  Coord span() const;

  std::string str() const;

  bool operator==(const Layout &o) const {
    return tileLayout == o.tileLayout && swizzleFn == o.swizzleFn;
  }
  bool operator!=(const Layout &o) const { return !(*this == o); }

private:
  TileLayout tileLayout;
  std::optional<Swizzle> swizzleFn;
};

/// Parses a tile layout or "SW(M, B, S) o <tile layout>".
Result<Layout> parseLayout(llvm::StringRef text);

/// Canonicalizes the tile part; drops an identity swizzle (B == 0).
Layout canonicalize(const Layout &layout);

/// The coordinates a layout reaches on one axis: [lo, hi], both included.
struct AxisReach {
  int64_t lo = 0;
  int64_t hi = 0;
};

/// The coordinate range a layout reaches on each axis it mentions, replicas
/// and offset included (the footprint of a buffer, the bounds a launch must
/// cover). When a swizzle moves addresses, m is widened to whole swizzle
/// blocks, and is present even if the tile part does not mention it. Fails
/// when a bound does not fit in int64, which TileLayout::create rules out.
Result<std::map<std::string, AxisReach>> axisReach(const Layout &layout);

} // namespace axe

#endif // AXE_LAYOUT_SWIZZLE_H
