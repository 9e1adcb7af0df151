//===- TargetFusion.cpp - Thread-axis fusion and element packing ----------===//

#include "axe/Layout/TargetFusion.h"
#include "axe/Layout/Algebra.h"
#include "axe/Layout/Placement.h"

#include "llvm/ADT/STLExtras.h"

#include <set>

using namespace axe;

//===----------------------------------------------------------------------===//
// Thread-axis fusion
//===----------------------------------------------------------------------===//

namespace {

/// How one child axis folds into the fusion target.
struct FusionRule {
  llvm::StringLiteral axis;
  int64_t factor;
  /// Coordinates on the child must stay in [0, limit); 0 means unbounded
  /// (the child is the outermost part, so leaving the range means leaving
  /// the CTA or warpgroup on both sides of the rewrite alike).
  int64_t limit;
  /// What the limit counts, for the message.
  llvm::StringLiteral parentUnit;
};

/// The smallest and largest coordinate `layout` reaches on `axis`. Every
/// shard digit and replica index ranges independently, so both ends are
/// attained.
std::pair<int64_t, int64_t> reachOn(const TileLayout &layout,
                                    llvm::StringRef axis) {
  // TileLayout::create bounds every reachable coordinate inside int64.
  int64_t lo = layout.offset().get(axis), hi = lo;
  auto visit = [&](llvm::ArrayRef<Iter> iters) {
    for (const Iter &it : iters) {
      if (it.axis != axis)
        continue;
      int64_t step = (it.extent - 1) * it.stride;
      (step < 0 ? lo : hi) += step;
    }
  };
  visit(layout.shard());
  visit(layout.replica());
  return {lo, hi};
}

std::optional<Failure> checkRange(const TileLayout &layout,
                                  const FusionRule &rule,
                                  llvm::StringRef target) {
  if (rule.limit == 0)
    return std::nullopt;
  auto [lo, hi] = reachOn(layout, rule.axis);
  if (lo >= 0 && hi < rule.limit)
    return std::nullopt;
  return fail(rule.axis.str() + " reaches [" + std::to_string(lo) + ", " +
              std::to_string(hi) + "] but a " + rule.parentUnit.str() +
              " has " + std::to_string(rule.limit) + " of them; fusing " +
              rule.axis.str() + " into " + target.str() +
              " would alias threads, so the layout is left unfused");
}

/// Moves every iter and offset on a rule's axis onto `target`, scaling by
/// the rule's factor.
Result<TileLayout> applyRules(const TileLayout &layout,
                              llvm::ArrayRef<FusionRule> rules,
                              llvm::StringRef target) {
  auto ruleFor = [&](llvm::StringRef axis) -> const FusionRule * {
    for (const FusionRule &r : rules)
      if (r.axis == axis)
        return &r;
    return nullptr;
  };
  std::optional<Failure> overflow;
  auto rewrite = [&](llvm::ArrayRef<Iter> iters) {
    IterList out;
    for (Iter it : iters) {
      if (const FusionRule *r = ruleFor(it.axis)) {
        if (mulOverflows(it.stride, r->factor, it.stride))
          overflow = fail("fusing " + it.axis + " into " + target.str() +
                          " overflows int64");
        it.axis = target.str();
      }
      out.push_back(std::move(it));
    }
    return out;
  };
  IterList shard = rewrite(layout.shard());
  IterList replica = rewrite(layout.replica());
  Coord offset;
  for (const auto &[axis, v] : layout.offset().entries()) {
    int64_t scaled = v;
    const FusionRule *r = ruleFor(axis);
    if (r && mulOverflows(v, r->factor, scaled))
      overflow = fail("fusing the offset on " + axis + " into " + target.str() +
                      " overflows int64");
    int64_t sum;
    llvm::StringRef dest = r ? target : llvm::StringRef(axis);
    if (addOverflows(offset.get(dest), scaled, sum))
      overflow =
          fail("the fused offset on " + target.str() + " overflows int64");
    else
      offset.set(dest, sum);
  }
  if (overflow)
    return *overflow;
  return TileLayout::create(std::move(shard), std::move(replica),
                            std::move(offset));
}

} // namespace

Result<TileLayout> axe::fuseThreadAxes(const TileLayout &layout,
                                       const ThreadHierarchy &hierarchy) {
  int64_t lanes = hierarchy.lanesPerWarp, warps = hierarchy.warpsPerWarpgroup;
  int64_t threadsPerWg;
  if (lanes < 1 || warps < 1 || mulOverflows(lanes, warps, threadsPerWg))
    return fail("thread hierarchy needs lanesPerWarp >= 1 and "
                "warpsPerWarpgroup >= 1 (got " +
                std::to_string(lanes) + " and " + std::to_string(warps) + ")");
  llvm::SmallVector<std::string, 4> axes = layout.axes();
  std::set<std::string> used(axes.begin(), axes.end());
  if (auto distinct = checkThreadAxesDistinct(layout); !distinct)
    return fail(distinct.message() + "; it has no fused form");

  auto uses = [&](llvm::StringRef a) { return used.count(a.str()) > 0; };
  llvm::SmallVector<FusionRule, 5> rules;
  llvm::StringRef target;
  if (uses("tx") || uses("warpid") || uses("wgid")) {
    target = "tx";
    rules = {{"warpid", lanes, 0, "CTA"},
             {"laneid", 1, lanes, "warp"},
             {"wgid", threadsPerWg, 0, "CTA"},
             {"wid_in_wg", lanes, warps, "warpgroup"},
             {"tid_in_wg", 1, threadsPerWg, "warpgroup"}};
  } else if (uses("wid_in_wg") || uses("tid_in_wg")) {
    target = "tid_in_wg";
    rules = {{"wid_in_wg", lanes, 0, "warpgroup"},
             {"laneid", 1, lanes, "warp"}};
  } else {
    // Only lanes (or no thread axis): laneid is already the finest name.
    return layout;
  }
  for (const FusionRule &rule : rules)
    if (uses(rule.axis))
      if (auto f = checkRange(layout, rule, target))
        return *f;
  return applyRules(layout, rules, target);
}

//===----------------------------------------------------------------------===//
// Packing narrow elements into 32-bit words
//===----------------------------------------------------------------------===//

namespace {

constexpr unsigned kWordBits = 32;

Result<int64_t> elementsPerWord(unsigned elementBits) {
  if (elementBits != 4 && elementBits != 8 && elementBits != 16)
    return fail("packing into 32-bit words needs 4-, 8- or 16-bit elements "
                "(got " +
                std::to_string(elementBits) + " bits)");
  return int64_t(kWordBits / elementBits);
}

Result<unsigned> resolveDim(llvm::ArrayRef<int64_t> shape, int dim) {
  int rank = int(shape.size());
  int d = dim < 0 ? rank + dim : dim;
  if (rank == 0 || d < 0 || d >= rank)
    return fail("dim " + std::to_string(dim) + " is not a dim of shape " +
                shapeStr(shape));
  return unsigned(d);
}

/// The coordinate that digit value `index` of a block of iters contributes
/// (digits split row-major, last iter fastest).
Coord blockContribution(llvm::ArrayRef<Iter> block, int64_t index) {
  Coord c;
  for (const Iter &it : llvm::reverse(block)) {
    c.add(it.axis, (index % it.extent) * it.stride);
    index /= it.extent;
  }
  return c;
}

/// Fails unless every displacement on `axis` outside the word is a multiple
/// of k, i.e. every word starts on a word boundary.
std::optional<Failure> checkWordAligned(llvm::ArrayRef<Iter> iters,
                                        const Coord &offset,
                                        llvm::StringRef axis, int64_t k) {
  for (const Iter &it : iters)
    if (it.axis == axis && it.extent > 1 && it.stride % k != 0)
      return fail("iter (" + std::to_string(it.extent) + " : " +
                  std::to_string(it.stride) + "@" + it.axis +
                  ") moves words by a step that is not a multiple of " +
                  std::to_string(k) +
                  " elements, so words would not start "
                  "on a 32-bit boundary");
  if (offset.get(axis) % k != 0)
    return fail("offset " + std::to_string(offset.get(axis)) + "@" +
                axis.str() + " is not a multiple of " + std::to_string(k) +
                " elements, so words would not start on a 32-bit boundary");
  return std::nullopt;
}

/// Divides (or multiplies) the strides on `axis` by k.
IterList rescale(llvm::ArrayRef<Iter> iters, llvm::StringRef axis, int64_t k,
                 bool divide, bool &overflow) {
  IterList out;
  for (Iter it : iters) {
    if (it.axis == axis) {
      if (divide)
        it.stride /= k;
      else
        overflow |= mulOverflows(it.stride, k, it.stride);
    }
    out.push_back(std::move(it));
  }
  return out;
}

} // namespace

Result<Shape> axe::packedShape(llvm::ArrayRef<int64_t> shape,
                               unsigned elementBits, int dim) {
  Result<int64_t> k = elementsPerWord(elementBits);
  if (!k)
    return k.takeFailure();
  Result<unsigned> d = resolveDim(shape, dim);
  if (!d)
    return d.takeFailure();
  if (shape[*d] % *k != 0)
    return fail("dim " + std::to_string(*d) + " of shape " + shapeStr(shape) +
                " has " + std::to_string(shape[*d]) +
                " elements, not a whole number of 32-bit words of " +
                std::to_string(*k) + " elements");
  Shape out(shape.begin(), shape.end());
  out[*d] /= *k;
  return out;
}

Result<TileLayout> axe::packToWords(const TileLayout &layout,
                                    llvm::ArrayRef<int64_t> shape,
                                    unsigned elementBits, int dim,
                                    llvm::StringRef axis) {
  Result<Shape> words = packedShape(shape, elementBits, dim);
  if (!words)
    return words.takeFailure();
  if (!layout.admits(shape))
    return fail("layout " + layout.str() + " does not admit shape " +
                shapeStr(shape));
  int64_t k = kWordBits / elementBits;
  unsigned d = *resolveDim(shape, dim);
  // Split dim d into (words, k) so the elements of one word form a block.
  Shape split(shape.begin(), shape.end());
  split[d] /= k;
  split.insert(split.begin() + d + 1, k);
  Result<GroupedLayout> grouped = group(layout, split);
  if (!grouped)
    return fail("cannot split dim " + std::to_string(d) + " into words of " +
                std::to_string(k) + " elements: " + grouped.message());

  IterList outer;
  llvm::ArrayRef<Iter> word;
  llvm::ArrayRef<Iter> all = grouped->layout.shard();
  size_t pos = 0;
  for (auto [i, n] : llvm::enumerate(grouped->blockSizes)) {
    if (i == d + 1)
      word = all.slice(pos, n);
    else
      outer.append(all.begin() + pos, all.begin() + pos + n);
    pos += n;
  }
  for (int64_t j = 1; j < k; ++j) {
    Coord expected;
    expected.set(axis, j);
    Coord got = blockContribution(word, j);
    if (got != expected)
      return fail("element " + std::to_string(j) + " of a word along dim " +
                  std::to_string(d) + " lands at " + got.str() +
                  " from element 0; a 32-bit word needs its " +
                  std::to_string(k) + " elements at consecutive addresses on " +
                  axis.str());
  }
  const TileLayout &g = grouped->layout;
  if (auto f = checkWordAligned(outer, g.offset(), axis, k))
    return *f;
  if (auto f = checkWordAligned(g.replica(), g.offset(), axis, k))
    return *f;
  bool overflow = false;
  IterList shard = rescale(outer, axis, k, /*divide=*/true, overflow);
  IterList replica = rescale(g.replica(), axis, k, /*divide=*/true, overflow);
  Coord offset = g.offset();
  offset.set(axis, offset.get(axis) / k);
  return TileLayout::create(std::move(shard), std::move(replica),
                            std::move(offset));
}

Result<TileLayout> axe::unpackFromWords(const TileLayout &words,
                                        llvm::ArrayRef<int64_t> wordShape,
                                        unsigned elementBits, int dim,
                                        llvm::StringRef axis) {
  Result<int64_t> k = elementsPerWord(elementBits);
  if (!k)
    return k.takeFailure();
  Result<unsigned> d = resolveDim(wordShape, dim);
  if (!d)
    return d.takeFailure();
  if (!words.admits(wordShape))
    return fail("layout " + words.str() + " does not admit shape " +
                shapeStr(wordShape));
  // The element iter goes right after the iters of dim d; for the last dim
  // that is the end of the shard, and no grouping is needed.
  TileLayout g = words;
  size_t insertAt = words.shard().size();
  if (*d + 1 != wordShape.size()) {
    Result<GroupedLayout> grouped = group(words, wordShape);
    if (!grouped)
      return fail("cannot find the iters of dim " + std::to_string(*d) + ": " +
                  grouped.message());
    g = grouped->layout;
    insertAt = 0;
    for (unsigned i = 0; i <= *d; ++i)
      insertAt += grouped->blockSizes[i];
  }
  bool overflow = false;
  IterList shard = rescale(g.shard(), axis, *k, /*divide=*/false, overflow);
  shard.insert(shard.begin() + insertAt, Iter{*k, 1, axis.str()});
  IterList replica = rescale(g.replica(), axis, *k, /*divide=*/false, overflow);
  Coord offset = g.offset();
  int64_t scaled;
  overflow |= mulOverflows(offset.get(axis), *k, scaled);
  if (overflow)
    return fail("unpacking " + words.str() + " overflows int64 on " +
                axis.str());
  offset.set(axis, scaled);
  return TileLayout::create(std::move(shard), std::move(replica),
                            std::move(offset));
}
