//===- LayoutFuzzer.cpp - libFuzzer target for the layout notation -------===//
//
// axe-layout-fuzz: arbitrary bytes through parseLayout (the notation of
// docs/LayoutSemantics.md section 3, swizzled or not). Every parse either fails
// with a reason or yields a layout on which the algebra's laws are checked:
//
//   * print(parse(x)) parses back to the same layout;
//   * canonicalize is idempotent and keeps the map (brute force, and
//     equivalent() agrees);
//   * apply agrees with a wide-integer (__int128) model of the definition,
//     so a coordinate that does not fit in int64 must have been refused by
//     the library: overflow is reported, never wraps;
//   * inverse finds an element for every placement;
//   * group, slice (known and aligned starts), tile, direct sum and tile_of,
//     when they succeed, agree with the model on every element.
//
// The shapes, regions and second operands the operations take are drawn from
// a hash of the input, so every input is reproducible on its own. A broken
// law prints the law and the input and aborts, which libFuzzer records as a
// crash. Built with -fsanitize=fuzzer,address,undefined (fuzz/CMakeLists.txt),
// so UBSan's signed-integer-overflow check catches wrapping arithmetic in
// the library itself.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Swizzle.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace axe;
using namespace axe::fuzz;

namespace {

//===----------------------------------------------------------------------===//
// Wide-integer model of docs/LayoutSemantics.md section 2
//===----------------------------------------------------------------------===//

// Sums of int64 strides and offsets may not fit in int64; the model must not
// wrap where the library is required to refuse, hence __int128. Points are
// small sorted vectors (axis names fit std::string's inline buffer) and sets
// sorted vectors: the model runs thousands of times per input, and heap
// allocations under ASan would dominate the fuzzer's time.
using Big = __int128;

class BigPoint {
public:
  void add(llvm::StringRef axis, Big v) {
    auto *it = llvm::lower_bound(entries, axis,
                                 [](const std::pair<std::string, Big> &e,
                                    llvm::StringRef a) { return e.first < a; });
    if (it != entries.end() && it->first == axis) {
      it->second += v;
      if (it->second == 0)
        entries.erase(it);
    } else if (v != 0) {
      entries.insert(it, {axis.str(), v});
    }
  }
  bool operator==(const BigPoint &o) const { return entries == o.entries; }
  bool operator!=(const BigPoint &o) const { return entries != o.entries; }
  bool operator<(const BigPoint &o) const { return entries < o.entries; }
  llvm::ArrayRef<std::pair<std::string, Big>> items() const { return entries; }

private:
  llvm::SmallVector<std::pair<std::string, Big>, 4> entries;
};

/// A set of points: sorted, without duplicates.
using BigSet = std::vector<BigPoint>;

BigSet normalized(BigSet s) {
  llvm::sort(s);
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

/// L(f) from the definition: digits last-fastest, replicas enumerated,
/// offset added, `shift` added, every value on an axis of `scale` scaled.
/// Independent of TileLayout::apply.
BigSet modelApply(const TileLayout &l, int64_t flat, const BigPoint &shift = {},
                  const std::map<std::string, Big> *scale = nullptr) {
  auto scaled = [&](const std::string &axis, Big v) -> Big {
    if (!scale)
      return v;
    auto it = scale->find(axis);
    return it == scale->end() ? v : v * it->second;
  };
  BigPoint base = shift;
  int64_t rest = flat;
  for (size_t k = l.shard().size(); k-- > 0;) {
    const Iter &it = l.shard()[k];
    base.add(it.axis, scaled(it.axis, Big(rest % it.extent) * it.stride));
    rest /= it.extent;
  }
  for (const auto &[axis, v] : l.offset().entries())
    base.add(axis, scaled(axis, v));
  BigSet acc{base};
  for (const Iter &r : l.replica()) {
    BigSet next;
    next.reserve(acc.size() * r.extent);
    for (const BigPoint &p : acc)
      for (int64_t i = 0; i < r.extent; ++i) {
        BigPoint q = p;
        q.add(r.axis, scaled(r.axis, Big(i) * r.stride));
        next.push_back(std::move(q));
      }
    acc = std::move(next);
  }
  return normalized(std::move(acc));
}

BigPoint toBigPoint(const Coord &c) {
  BigPoint p;
  for (const auto &[axis, v] : c.entries())
    p.add(axis, v);
  return p;
}

template <typename Range> BigSet toBig(const Range &coords) {
  BigSet out;
  for (const Coord &c : coords)
    out.push_back(toBigPoint(c));
  return normalized(std::move(out));
}

/// Small enough to check every element and every replica. Small bounds keep
/// the fuzzer fast (millions of inputs beat a few large ones); the laws are
/// the same at every size, and the gtest suites check larger layouts.
bool checkable(const TileLayout &l) {
  return l.size() <= 64 && l.replicaCount() <= 8 &&
         l.shard().size() + l.replica().size() <= 32;
}

/// {a + b : a in as, b in bs}.
BigSet minkowski(const BigSet &as, const BigSet &bs) {
  BigSet out;
  for (const BigPoint &a : as)
    for (const BigPoint &b : bs) {
      BigPoint p = a;
      for (const auto &[axis, v] : b.items())
        p.add(axis, v);
      out.push_back(std::move(p));
    }
  return normalized(std::move(out));
}

/// Per-axis span 1 + sum (e-1)|s| (the scale tile() applies to the grid).
std::map<std::string, Big> modelSpan(const TileLayout &l) {
  std::map<std::string, Big> span;
  for (auto iters : {l.shard(), l.replica()})
    for (const Iter &it : iters)
      span[it.axis] +=
          Big(it.extent - 1) * (it.stride < 0 ? -Big(it.stride) : it.stride);
  for (auto &entry : span)
    entry.second += 1;
  return span;
}

std::vector<int64_t> unflatten(int64_t flat, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> x(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    x[d] = flat % shape[d];
    flat /= shape[d];
  }
  return x;
}

int64_t flatten(llvm::ArrayRef<int64_t> x, llvm::ArrayRef<int64_t> shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + x[d];
  return flat;
}

//===----------------------------------------------------------------------===//
// The laws
//===----------------------------------------------------------------------===//

class Checker {
public:
  Checker(llvm::StringRef input) : input(input), rng(hashBytes(input)) {}

  [[noreturn]] void broken(const std::string &law) {
    reportAndAbort("axe-layout-fuzz", law, input);
  }

  void check(bool ok, const std::string &law) {
    if (!ok)
      broken(law);
  }

  template <typename T>
  void checkFailureSaysWhy(const Result<T> &r, const std::string &what) {
    if (!r && r.message().empty())
      broken(what + " failed without a reason");
  }

  /// The library's apply matches the model on every element.
  void checkApply(const TileLayout &l, const std::string &what) {
    for (int64_t f = 0; f < l.size(); ++f)
      if (toBig(l.apply(f)) != modelApply(l, f))
        broken(what + " " + l.str() + ": apply differs from the model at " +
               std::to_string(f));
  }

  void checkSameMap(const TileLayout &a, const TileLayout &b,
                    const std::string &what) {
    check(a.size() == b.size(),
          what + ": sizes differ (" + a.str() + " vs " + b.str() + ")");
    for (int64_t f = 0; f < a.size(); ++f)
      if (modelApply(a, f) != modelApply(b, f))
        broken(what + ": " + a.str() + " and " + b.str() +
               " differ at flat index " + std::to_string(f));
  }

  void run(const Layout &layout) {
    checkRoundTrip(layout);
    const TileLayout &l = layout.tile();
    checkCanonicalize(layout);
    if (!checkable(l))
      return;
    checkApply(l, "layout");
    checkInverse(layout);
    checkSwizzled(layout);
    for (int i = 0; i < 2; ++i)
      checkGroup(l, randomShape(l.size()));
    for (int i = 0; i < 2; ++i)
      checkSlice(l);
    checkTile(l);
  }

private:
  void checkRoundTrip(const Layout &layout) {
    std::string printed = layout.str();
    Result<Layout> again = parseLayout(printed);
    if (!again)
      broken("print(parse(x)) = '" + printed +
             "' does not parse: " + again.message());
    check(*again == layout, "print(parse(x)) = '" + printed +
                                "' parses to a different layout '" +
                                again->str() + "'");
    check(again->str() == printed, "printing is not stable");
    // Without a swizzle the tile parser must agree with the layout parser.
    if (!layout.isSwizzled()) {
      Result<TileLayout> tile = parseTileLayout(printed);
      check(tile && *tile == layout.tile(),
            "parseTileLayout disagrees with parseLayout on '" + printed + "'");
    }
  }

  void checkCanonicalize(const Layout &layout) {
    const TileLayout &l = layout.tile();
    TileLayout c = canonicalize(l);
    check(canonicalize(c) == c, "canonicalize is not idempotent: " + l.str() +
                                    " -> " + c.str() + " -> " +
                                    canonicalize(c).str());
    Layout cl = canonicalize(layout);
    check(canonicalize(cl) == cl, "canonicalize(Layout) is not idempotent");
    check(c.size() == l.size(), "canonicalize changed the size");
    Result<bool> eq = equivalent(l, c);
    checkFailureSaysWhy(eq, "equivalent");
    if (eq)
      check(*eq, "equivalent(L, canonicalize(L)) is false for " + l.str());
    if (!checkable(l) || !checkable(c))
      return;
    checkSameMap(l, c, "canonicalize");
    // Swizzled: the composed map is kept too.
    for (int64_t f = 0; f < l.size(); ++f)
      check(toBig(layout.apply(f)) == toBig(cl.apply(f)),
            "canonicalize(Layout) changed the swizzled map at " +
                std::to_string(f));
  }

  void checkInverse(const Layout &layout) {
    for (int64_t f = 0; f < layout.size(); ++f)
      for (const Coord &p : layout.apply(f)) {
        Result<int64_t> g = layout.inverse(p);
        if (!g)
          broken("inverse fails on " + p.str() + " = L(" + std::to_string(f) +
                 "): " + g.message());
        check(*g >= 0 && *g <= f, "inverse of L(" + std::to_string(f) +
                                      ") is " + std::to_string(*g));
        bool found = false;
        for (const Coord &q : layout.apply(*g))
          found |= q == p;
        check(found, "inverse of " + p.str() + " is " + std::to_string(*g) +
                         ", whose image does not contain it");
      }
  }

  void checkSwizzled(const Layout &layout) {
    if (!layout.swizzle())
      return;
    const Swizzle &sw = *layout.swizzle();
    for (int64_t f = 0; f < layout.size(); ++f)
      for (const Coord &c : layout.tile().apply(f)) {
        int64_t a = c.get(kDefaultAxis);
        int64_t s = sw.apply(a);
        check(sw.apply(s) == a, "swizzle " + sw.str() +
                                    " is not an involution at " +
                                    std::to_string(a));
        // The swizzle permutes within aligned blocks of its period.
        int64_t p = sw.period();
        check(a - ((a % p) + p) % p == s - ((s % p) + p) % p,
              "swizzle " + sw.str() + " leaves its block at " +
                  std::to_string(a));
      }
  }

  void checkGroup(const TileLayout &l, const Shape &shape) {
    Result<GroupedLayout> g = group(l, shape);
    checkFailureSaysWhy(g, "group");
    if (!g)
      return;
    std::string what = "group(" + l.str() + ", " + shapeStr(shape) + ")";
    checkSameMap(l, g->layout, what);
    checkApply(g->layout, what);
    check(g->blockSizes.size() == shape.size(), what + ": wrong block count");
    size_t total = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t product = 1;
      for (const Iter &it : g->block(d))
        product *= it.extent;
      check(product == shape[d], what + ": block " + std::to_string(d) +
                                     " has extent " + std::to_string(product));
      total += g->blockSizes[d];
    }
    check(total == g->layout.shard().size(), what + ": blocks miss iters");
    // base is additive across the dims.
    for (int64_t f = 0; f < l.size(); ++f) {
      std::vector<int64_t> x = unflatten(f, shape);
      BigPoint base = toBigPoint(l.offset());
      for (size_t d = 0; d < shape.size(); ++d) {
        Coord part = g->dimContribution(d, x[d]);
        for (const auto &[axis, v] : part.entries())
          base.add(axis, v);
      }
      check(base == toBigPoint(l.applyBase(f)),
            what + ": dimContribution does not add up at " + std::to_string(f));
    }
  }

  void checkSlice(const TileLayout &l) {
    Shape shape = randomShape(l.size());
    llvm::SmallVector<SliceStart, 4> starts;
    llvm::SmallVector<int64_t, 4> lengths;
    bool anyUnknown = false;
    for (int64_t dim : shape) {
      int64_t len = rng.range(1, dim);
      if (rng.chance(4)) {
        // A loop-variable start: a multiple of an alignment.
        int64_t align = rng.range(1, dim);
        starts.push_back(SliceStart::aligned(align));
        anyUnknown = true;
      } else {
        starts.push_back(SliceStart::constant(rng.range(0, dim - len)));
      }
      lengths.push_back(len);
    }
    Result<TileLayout> s = slice(l, shape, starts, lengths);
    checkFailureSaysWhy(s, "slice");
    if (!s)
      return;
    std::string what = "slice(" + l.str() + ", " + shapeStr(shape) + ")";
    checkApply(*s, what);
    int64_t boxSize = 1;
    for (int64_t len : lengths)
      boxSize *= len;
    check(s->size() == boxSize, what + ": wrong size");
    std::optional<GroupedLayout> grouped;
    if (anyUnknown) {
      Result<GroupedLayout> g = group(l, shape);
      if (!g)
        g = group(canonicalize(l), shape);
      check(bool(g), what + " succeeds with an aligned start, but the layout "
                            "does not group to give the start's contribution");
      grouped = *g;
    }
    // Every allowed start combination (the known ones are fixed).
    std::vector<std::vector<int64_t>> choices;
    for (size_t d = 0; d < shape.size(); ++d) {
      std::vector<int64_t> allowed;
      if (starts[d].known)
        allowed.push_back(starts[d].value);
      else
        for (int64_t st = 0; st + lengths[d] <= shape[d];
             st += starts[d].alignment)
          allowed.push_back(st);
      if (allowed.empty())
        return;
      choices.push_back(allowed);
    }
    std::vector<size_t> pick(shape.size(), 0);
    for (int combos = 0; combos < 8; ++combos) {
      std::vector<int64_t> lo(shape.size());
      BigPoint extra;
      for (size_t d = 0; d < shape.size(); ++d) {
        lo[d] = choices[d][pick[d]];
        if (!starts[d].known) {
          Coord part = grouped->dimContribution(d, lo[d]);
          for (const auto &[axis, v] : part.entries())
            extra.add(axis, v);
        }
      }
      for (int64_t y = 0; y < s->size(); ++y) {
        std::vector<int64_t> x = unflatten(y, lengths);
        for (size_t d = 0; d < x.size(); ++d)
          x[d] += lo[d];
        if (modelApply(*s, y, extra) != modelApply(l, flatten(x, shape)))
          broken(what + " = " + s->str() + " differs at region index " +
                 std::to_string(y) + " (start " + shapeStr(lo) + ")");
      }
      size_t d = 0;
      while (d < shape.size() && ++pick[d] == choices[d].size())
        pick[d++] = 0;
      if (d == shape.size())
        return;
    }
  }

  /// tile / direct sum against the model, with the input as either operand.
  void checkTile(const TileLayout &l) {
    static const char *const others[] = {
        "S[(2, 2) : (1, 2)]", "S[4 : 1@warpid]", "S[(2, 3) : (3@tx, 1)]",
        "S[2 : 1] + R[2 : 1@laneid]", "S[(2, 2) : (-1, 8@P)] + 3"};
    TileLayout other =
        *parseTileLayout(others[rng.range(0, std::size(others) - 1)]);
    int rank = int(rng.range(1, 3));
    Shape ls = randomShape(l.size(), rank),
          os = randomShape(other.size(), rank);
    bool inputInner = rng.chance(2);
    const TileLayout &inner = inputInner ? l : other;
    const TileLayout &outer = inputInner ? other : l;
    const Shape &is = inputInner ? ls : os;
    const Shape &osh = inputInner ? os : ls;
    // The result has l.size() * other.size() elements, each checked against
    // the model: keep it small, and check one of the two operations.
    if (l.size() * other.size() > 96)
      return;
    for (bool scaled : {rng.chance(2)}) {
      Result<TileLayout> r = scaled ? tile(inner, is, outer, osh)
                                    : directSum(inner, is, outer, osh);
      std::string what = std::string(scaled ? "tile" : "directSum") + "(" +
                         inner.str() + ", " + shapeStr(is) + ", " +
                         outer.str() + ", " + shapeStr(osh) + ")";
      checkFailureSaysWhy(r, what);
      if (!r)
        continue;
      checkCombine(*r, inner, is, outer, osh, scaled, what);
      if (!scaled)
        continue;
      // tile_of never answers a B whose tile differs from the layout.
      Result<TileLayout> b = tileOf(*r, shapeTimes(is, osh), inner, is);
      checkFailureSaysWhy(b, "tileOf");
      if (b) {
        Result<TileLayout> again = tile(inner, is, *b, osh);
        check(bool(again), what + ": tileOf answers " + b->str() +
                               " which does not tile back");
        checkSameMap(*r, *again, what + ": tileOf answers " + b->str());
      }
    }
  }

  void checkCombine(const TileLayout &result, const TileLayout &inner,
                    const Shape &is, const TileLayout &outer, const Shape &os,
                    bool scaled, const std::string &what) {
    check(result.size() == inner.size() * outer.size(), what + ": wrong size");
    checkApply(result, what);
    std::map<std::string, Big> scale;
    if (scaled)
      scale = modelSpan(inner);
    Shape shape = shapeTimes(is, os);
    for (int64_t f = 0; f < result.size(); ++f) {
      std::vector<int64_t> x = unflatten(f, shape), xa(x.size()), xb(x.size());
      for (size_t d = 0; d < x.size(); ++d) {
        xa[d] = x[d] % is[d];
        xb[d] = x[d] / is[d];
      }
      BigSet expected =
          minkowski(modelApply(inner, flatten(xa, is)),
                    modelApply(outer, flatten(xb, os), {}, &scale));
      if (modelApply(result, f) != expected)
        broken(what + " = " + result.str() + " differs at flat index " +
               std::to_string(f));
    }
  }

  static Shape shapeTimes(const Shape &a, const Shape &b) {
    Shape out;
    for (size_t d = 0; d < a.size(); ++d)
      out.push_back(a[d] * b[d]);
    return out;
  }

  /// A row-major factorization of `size` (which is small) into 1-3 dims.
  Shape randomShape(int64_t size, int rank = 0) {
    if (rank == 0)
      rank = int(rng.range(1, 3));
    Shape s;
    int64_t rest = size;
    for (int d = 0; d < rank - 1; ++d) {
      std::vector<int64_t> divisors;
      for (int64_t k = 1; k <= rest; ++k)
        if (rest % k == 0)
          divisors.push_back(k);
      s.push_back(divisors[rng.range(0, divisors.size() - 1)]);
      rest /= s.back();
    }
    s.push_back(rest);
    return s;
  }

  llvm::StringRef input;
  SplitMix rng;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Long inputs only slow the search down: every construct of the notation
  // fits in a few hundred bytes.
  if (size > 2048)
    return 0;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  Result<Layout> layout = parseLayout(text);
  Checker checker(text);
  if (!layout) {
    checker.check(!layout.message().empty(), "a parse failure without reason");
    return 0;
  }
  checker.run(*layout);
  return 0;
}

// The defaults every run wants, so that a bare ./axe-layout-fuzz CRASH
// reproduces as the smoke test saw it. ASAN_OPTIONS still overrides them.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0:detect_leaks=1:handle_abort=1";
}
extern "C" const char *__ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}
