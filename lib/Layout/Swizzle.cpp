//===- Swizzle.cpp - XOR swizzles, swizzled layouts and their tiling ------===//

#include "axe/Layout/Swizzle.h"
#include "axe/Layout/Algebra.h"
#include "axe/Layout/Enumerate.h"
#include "axe/Layout/SwizzleAlgebra.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace axe;

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

// The period 2^(M+B+S) must fit in int64 with room for the floor-division
// arithmetic in apply().
static constexpr int kMaxSwizzleBits = 62;

Result<Swizzle> Swizzle::create(int perElement, int swizzleLen, int atomLen) {
  if (perElement < 0 || swizzleLen < 0 || atomLen < 0)
    return fail("swizzle SW(" + std::to_string(perElement) + ", " +
                std::to_string(swizzleLen) + ", " + std::to_string(atomLen) +
                ") has a negative parameter");
  if (atomLen < swizzleLen)
    return fail("swizzle needs S >= B (got B = " + std::to_string(swizzleLen) +
                ", S = " + std::to_string(atomLen) +
                "): the XORed bit groups would overlap");
  // Each parameter fits in an int, their sum may not.
  int64_t bits = int64_t(perElement) + swizzleLen + atomLen;
  if (bits > kMaxSwizzleBits)
    return fail("swizzle period 2^(M + B + S) = 2^" + std::to_string(bits) +
                " does not fit in int64 (at most 2^" +
                std::to_string(kMaxSwizzleBits) + ")");
  Swizzle s;
  s.perElement = perElement;
  s.swizzleLen = swizzleLen;
  s.atomLen = atomLen;
  return s;
}

int64_t Swizzle::period() const {
  return int64_t(1) << (perElement + swizzleLen + atomLen);
}

int64_t Swizzle::blockSize() const {
  return int64_t(1) << (perElement + swizzleLen);
}

int64_t Swizzle::apply(int64_t address) const {
  // The permutation only touches the low M+B+S bits, so split the address
  // into an aligned base and a remainder in [0, period). The period is a
  // power of two, so masking gives the floored remainder (negative
  // addresses get the two's-complement meaning) without a division.
  int64_t periodMask = period() - 1;
  int64_t rem = address & periodMask;
  int64_t base = address & ~periodMask;
  int64_t low = rem & ((int64_t(1) << perElement) - 1);
  int64_t x = rem >> perElement;
  x ^= (x >> atomLen) & ((int64_t(1) << swizzleLen) - 1);
  return base + ((x << perElement) | low);
}

std::string Swizzle::str() const {
  return "SW(" + std::to_string(perElement) + ", " +
         std::to_string(swizzleLen) + ", " + std::to_string(atomLen) + ")";
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

llvm::SmallVector<Coord, 4> Layout::apply(int64_t flat) const {
  llvm::SmallVector<Coord, 4> coords = tileLayout.apply(flat);
  if (!swizzleFn)
    return coords;
  for (Coord &c : coords)
    c.set(kDefaultAxis, swizzleFn->apply(c.get(kDefaultAxis)));
  // The swizzle may reorder m values; keep the sorted-set contract.
  llvm::sort(coords);
  coords.erase(std::unique(coords.begin(), coords.end()), coords.end());
  return coords;
}

Result<llvm::SmallVector<Coord, 4>>
Layout::apply(llvm::ArrayRef<int64_t> coord,
              llvm::ArrayRef<int64_t> shape) const {
  if (!admits(shape))
    return fail("shape " + shapeStr(shape) + " is not admitted by " + str() +
                " (size " + std::to_string(size()) + ")");
  Result<int64_t> flat = flattenCoord(coord, shape);
  if (!flat)
    return flat.takeFailure();
  return apply(*flat);
}

Result<int64_t> Layout::inverse(const Coord &physical) const {
  return LayoutInverter(*this).inverse(physical);
}

std::optional<Swizzle> Layout::effectiveSwizzle() const {
  if (!swizzleFn || swizzleFn->isIdentity())
    return std::nullopt;
  return swizzleFn;
}

Layout Layout::withTile(TileLayout tile) const {
  Layout out(std::move(tile));
  out.swizzleFn = swizzleFn;
  return out;
}

Coord Layout::span() const {
  Coord span = tileLayout.span();
  std::optional<Swizzle> sw = effectiveSwizzle();
  if (!sw)
    return span;
  int64_t mask = sw->blockSize() - 1;
  int64_t m = span.get(kDefaultAxis), rounded;
  // The tile's span fits in int64; whole blocks may not, and then INT64_MAX
  // is the honest bound.
  if (addOverflows(m, mask, rounded))
    span.set(kDefaultAxis, INT64_MAX);
  else
    span.set(kDefaultAxis, rounded & ~mask);
  return span;
}

std::string Layout::str() const {
  if (!swizzleFn)
    return tileLayout.str();
  return swizzleFn->str() + " o " + tileLayout.str();
}

Result<std::map<std::string, AxisReach>> axe::axisReach(const Layout &layout) {
  const TileLayout &tile = layout.tile();
  std::map<std::string, AxisReach> reach;
  // Start from the offset and add each iter's far end on its side: every
  // partial sum is a coordinate the layout reaches (those iters at their
  // last index, the others at 0), so for a layout TileLayout::create
  // accepted none of them leaves int64.
  for (const auto &[axis, v] : tile.offset().entries())
    reach[axis] = {v, v};
  for (llvm::ArrayRef<Iter> iters : {tile.shard(), tile.replica()}) {
    for (const Iter &it : iters) {
      AxisReach &r = reach[it.axis];
      int64_t far;
      int64_t &bound = it.stride < 0 ? r.lo : r.hi;
      if (mulOverflows(it.extent - 1, it.stride, far) ||
          addOverflows(bound, far, bound))
        return fail("the reach of " + layout.str() + " on axis '" + it.axis +
                    "' overflows int64");
    }
  }
  if (std::optional<Swizzle> sw = layout.effectiveSwizzle()) {
    // Masking rounds down (lo) and up to the block's last address (hi) in
    // two's complement; blocks are aligned, so neither can leave int64.
    int64_t mask = sw->blockSize() - 1;
    AxisReach &r = reach[std::string(kDefaultAxis)];
    r.lo &= ~mask;
    r.hi |= mask;
  }
  return reach;
}

//===----------------------------------------------------------------------===//
// Parsing "SW(M, B, S) o <tile layout>"
//===----------------------------------------------------------------------===//

namespace {
/// A cursor over the swizzle prefix; the tile part is parsed elsewhere.
class SwizzlePrefixParser {
public:
  explicit SwizzlePrefixParser(llvm::StringRef text) : full(text), rest(text) {}

  Result<Layout> parse();

private:
  size_t column() const { return full.size() - rest.size() + 1; }
  Failure error(const std::string &what) const {
    return fail("swizzled layout: " + what + " at column " +
                std::to_string(column()));
  }
  void skipSpace() { rest = rest.ltrim(); }
  bool consume(llvm::StringRef token) {
    skipSpace();
    return rest.consume_front(token);
  }
  Result<int> parseInt();

  llvm::StringRef full;
  llvm::StringRef rest;
};
} // namespace

Result<int> SwizzlePrefixParser::parseInt() {
  skipSpace();
  long long value = 0;
  if (rest.consumeInteger(10, value))
    return error("expected an integer");
  if (value < INT32_MIN || value > INT32_MAX)
    return error("swizzle parameter " + std::to_string(value) +
                 " is out of range");
  return int(value);
}

Result<Layout> SwizzlePrefixParser::parse() {
  if (!consume("SW"))
    return error("expected 'SW'");
  if (!consume("("))
    return error("expected '(' after 'SW'");
  int params[3];
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && !consume(","))
      return error("expected ',' between swizzle parameters");
    Result<int> v = parseInt();
    if (!v)
      return v.takeFailure();
    params[i] = *v;
  }
  if (!consume(")"))
    return error("expected ')' after the three swizzle parameters");
  Result<Swizzle> swizzle = Swizzle::create(params[0], params[1], params[2]);
  if (!swizzle)
    return swizzle.takeFailure();
  skipSpace();
  // "o" must stand alone: "oS[...]" is accepted, "or" is not a token here.
  if (!rest.consume_front("o"))
    return error("expected 'o' (composition) after " + swizzle->str());
  size_t tileColumn = column();
  Result<TileLayout> tile = parseTileLayout(rest);
  if (!tile)
    return fail("swizzled layout: in the tile layout starting at column " +
                std::to_string(tileColumn) + ": " + tile.message());
  return Layout(*swizzle, *tile);
}

Result<Layout> axe::parseLayout(llvm::StringRef text) {
  if (!text.ltrim().starts_with("SW")) {
    Result<TileLayout> tile = parseTileLayout(text);
    if (!tile)
      return tile.takeFailure();
    return Layout(*tile);
  }
  return SwizzlePrefixParser(text).parse();
}

Layout axe::canonicalize(const Layout &layout) {
  // One copy of a canonical layout, not a copy of its tile part and a move
  // into a new layout (moving inline iters costs as much as copying them).
  if (layout.swizzle() == layout.effectiveSwizzle() &&
      isCanonical(layout.tile()))
    return layout;
  TileLayout tile = canonicalize(layout.tile());
  if (std::optional<Swizzle> sw = layout.effectiveSwizzle())
    return Layout(*sw, std::move(tile));
  return Layout(std::move(tile));
}

//===----------------------------------------------------------------------===//
// Slice and equivalence
//===----------------------------------------------------------------------===//

Result<Layout> axe::slice(const Layout &layout, llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<SliceStart> starts,
                          llvm::ArrayRef<int64_t> lengths) {
  // The swizzle acts on the tile part's image, so it commutes with
  // restricting the domain.
  Result<TileLayout> tile = slice(layout.tile(), shape, starts, lengths);
  if (!tile)
    return tile.takeFailure();
  return layout.withTile(std::move(*tile));
}

Result<Layout> axe::slice(const Layout &layout, llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<int64_t> starts,
                          llvm::ArrayRef<int64_t> lengths) {
  llvm::SmallVector<SliceStart, 4> known;
  for (int64_t start : starts)
    known.push_back(SliceStart::constant(start));
  return slice(layout, shape, known, lengths);
}

/// The most placements equivalent() lists per layout when the swizzles
/// differ; the tile-level test has the same order of limit.
static constexpr int64_t kEnumerationLimit = int64_t(1) << 22;

/// The swizzle of `layout` if it moves some m coordinate the layout reaches.
/// SW(M, B, S) XORs bits [M + S, M + S + B) into bits [M, M + B), so it
/// fixes every address whose bits [M + S, M + S + B) are zero; a reach on m
/// inside one aligned window of 2^(M + S) addresses whose window index has
/// zero low B bits is left alone. Anything else is taken to move (the caller
/// then enumerates, which is exact).
static std::optional<Swizzle> movingSwizzle(const Layout &layout) {
  std::optional<Swizzle> sw = layout.effectiveSwizzle();
  if (!sw)
    return std::nullopt;
  Result<std::map<std::string, AxisReach>> reach = axisReach(layout.tile());
  if (!reach)
    return sw;
  auto m = reach->find(std::string(kDefaultAxis));
  if (m == reach->end())
    return std::nullopt; // Every placement has m = 0, a fixed point.
  int64_t window = int64_t(1) << (sw->perElement + sw->atomLen);
  int64_t first = llvm::divideFloorSigned(m->second.lo, window);
  int64_t last = llvm::divideFloorSigned(m->second.hi, window);
  int64_t xored = (int64_t(1) << sw->swizzleLen) - 1;
  if (first == last && (first & xored) == 0)
    return std::nullopt;
  return sw;
}

/// Fails when `layout` has more than kEnumerationLimit placements.
static Result<bool> checkEnumerable(const Layout &layout) {
  int64_t total = layout.size();
  bool tooMany = total > kEnumerationLimit;
  // Replica extents can multiply past int64: count with overflow checks.
  for (const Iter &r : layout.tile().replica())
    tooMany = tooMany || mulOverflows(total, r.extent, total) ||
              total > kEnumerationLimit;
  if (tooMany)
    return fail(layout.str() + " has more than " +
                std::to_string(kEnumerationLimit) + " placements to list");
  return true;
}

Result<bool> axe::equivalent(const Layout &a, const Layout &b) {
  if (a.size() != b.size())
    return false;
  // A swizzle is a bijection on m applied to each placement, so under equal
  // swizzles the maps agree exactly when the tile parts' maps do.
  if (movingSwizzle(a) == movingSwizzle(b))
    return equivalent(a.tile(), b.tile());
  for (const Layout *layout : {&a, &b})
    if (Result<bool> ok = checkEnumerable(*layout); !ok)
      return fail("cannot decide equivalence of " + a.str() + " and " +
                  b.str() + ": " + ok.message());
  return samePlacementSets(a, b);
}

//===----------------------------------------------------------------------===//
// Tiling with a swizzled atom
//===----------------------------------------------------------------------===//

/// (a * b) mod p without overflow, p > 0, result in [0, p).
static int64_t mulMod(int64_t a, int64_t b, int64_t p) {
  __int128 r = (__int128(a) * __int128(b)) % p;
  if (r < 0)
    r += p;
  return int64_t(r);
}

/// Checks that every m displacement outer copies of the atom make,
/// scale(B(xB), span(A)), is a multiple of the swizzle period, so that the
/// swizzle of the whole equals the swizzle of each atom shifted.
static std::optional<std::string> misalignedOuterStep(const TileLayout &outer,
                                                      int64_t atomSpanM,
                                                      const Swizzle &swizzle) {
  int64_t p = swizzle.period();
  auto check = [&](int64_t step,
                   const std::string &what) -> std::optional<std::string> {
    if (mulMod(step, atomSpanM, p) == 0)
      return std::nullopt;
    return what + " moves the atom by " + std::to_string(step) + " * " +
           std::to_string(atomSpanM) +
           " on m, which is not a multiple of the " + swizzle.str() +
           " period " + std::to_string(p) +
           "; atoms must start on whole swizzle periods";
  };
  auto checkIters = [&](llvm::ArrayRef<Iter> iters,
                        llvm::StringRef kind) -> std::optional<std::string> {
    for (const Iter &it : iters) {
      if (it.axis != kDefaultAxis || it.extent == 1)
        continue;
      std::string what = "outer " + kind.str() + " iter (" +
                         std::to_string(it.extent) + " : " +
                         std::to_string(it.stride) + ")";
      if (auto why = check(it.stride, what))
        return why;
    }
    return std::nullopt;
  };
  if (auto why = checkIters(outer.shard(), "shard"))
    return why;
  if (auto why = checkIters(outer.replica(), "replica"))
    return why;
  return check(outer.offset().get(kDefaultAxis), "the outer offset");
}

Result<Layout> axe::tileSwizzledAtom(const Layout &atom,
                                     llvm::ArrayRef<int64_t> atomShape,
                                     const TileLayout &outer,
                                     llvm::ArrayRef<int64_t> outerShape) {
  Result<TileLayout> tiled = tile(atom.tile(), atomShape, outer, outerShape);
  if (!tiled)
    return tiled.takeFailure();
  std::optional<Swizzle> swizzle = atom.effectiveSwizzle();
  if (!swizzle)
    return Layout(*tiled);
  if (auto why =
          misalignedOuterStep(outer, atom.tile().span(kDefaultAxis), *swizzle))
    return fail("cannot tile the swizzled atom " + atom.str() + ": " + *why);
  return Layout(*swizzle, *tiled);
}

Result<TileLayout> axe::swizzledTileOf(const Layout &layout,
                                       llvm::ArrayRef<int64_t> shape,
                                       const Layout &atom,
                                       llvm::ArrayRef<int64_t> atomShape) {
  std::optional<Swizzle> layoutSw = layout.effectiveSwizzle();
  std::optional<Swizzle> atomSw = atom.effectiveSwizzle();
  // The swizzle is a bijection applied last, so two swizzled layouts agree
  // only if their tile parts do: the swizzles themselves must match.
  if (layoutSw != atomSw) {
    auto name = [](const std::optional<Swizzle> &s) {
      return s ? s->str() : std::string("no swizzle");
    };
    return fail("layout " + layout.str() + " has " + name(layoutSw) +
                " but the atom " + atom.str() + " has " + name(atomSw));
  }
  Result<TileLayout> outer =
      tileOf(layout.tile(), shape, atom.tile(), atomShape);
  if (!outer)
    return fail("the tile part of " + layout.str() +
                " is not a tile of the atom's: " + outer.message());
  if (!atomSw)
    return outer;
  if (auto why =
          misalignedOuterStep(*outer, atom.tile().span(kDefaultAxis), *atomSw))
    return fail("layout " + layout.str() +
                " repeats the atom's tile but not its swizzle: " + *why);
  return outer;
}
