//===- RobustnessUtil.cpp - Shared parts of the robustness tests ----------===//
//
// The wide-integer reference and the generator of adversarial layouts that
// RobustnessUtil.h declares.
//
//===----------------------------------------------------------------------===//

#include "RobustnessUtil.h"

#include "axe/Layout/Algebra.h"

namespace axe::testing::robust {

void addBig(BigPoint &p, const std::string &axis, Big v) {
  Big &slot = p[axis];
  slot += v;
  if (slot == 0)
    p.erase(axis);
}

BigSet bigApply(const TileLayout &l, int64_t flat) {
  BigSet out;
  for (const Point &p : referenceApply(l, flat))
    out.insert(BigPoint(p.begin(), p.end()));
  return out;
}

std::vector<int64_t> samples(int64_t size) {
  std::vector<int64_t> out;
  if (size <= 256) {
    for (int64_t f = 0; f < size; ++f)
      out.push_back(f);
    return out;
  }
  std::mt19937_64 rng(size);
  out = {0, 1, size / 2, size - 2, size - 1};
  for (int i = 0; i < 27; ++i)
    out.push_back(std::uniform_int_distribution<int64_t>(0, size - 1)(rng));
  return out;
}

std::map<std::string, Big> bigSpan(const TileLayout &l) {
  std::map<std::string, Big> span;
  for (auto iters : {l.shard(), l.replica()})
    for (const Iter &it : iters)
      span[it.axis] += Big(it.extent - 1) *
                       (it.stride < 0 ? -Big(it.stride) : Big(it.stride));
  for (auto &entry : span)
    entry.second += 1;
  return span;
}

::testing::AssertionResult sameMap(const TileLayout &a, const TileLayout &b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure()
           << a.str() << " and " << b.str() << " differ in size";
  if (!fewReplicas(a) || !fewReplicas(b))
    return ::testing::AssertionSuccess();
  for (int64_t f : samples(a.size()))
    if (referenceApply(a, f) != referenceApply(b, f))
      return ::testing::AssertionFailure()
             << a.str() << " and " << b.str() << " differ at flat index " << f;
  return ::testing::AssertionSuccess();
}

//===----------------------------------------------------------------------===//
// Generators of adversarial arguments
//===----------------------------------------------------------------------===//

int64_t ExtremeGenerator::bigFactor() {
  switch (uniform(0, 4)) {
  case 0:
    return 1;
  case 1:
    return int64_t(1) << uniform(20, 61);
  case 2:
    return (int64_t(1) << uniform(30, 62)) - 1;
  case 3:
    return uniform(1, kMax / 4);
  default:
    return 3037000499; // ~sqrt(2^63)
  }
}

int64_t ExtremeGenerator::bigValue() {
  switch (uniform(0, 5)) {
  case 0:
    return uniform(-8, 8);
  case 1:
    return kMax - uniform(0, 1 << 20);
  case 2:
    return kMin + uniform(0, 1 << 20);
  case 3:
    return uniform(-k2p62, k2p62);
  case 4:
    return kMax;
  default:
    return kMin;
  }
}

int64_t ExtremeGenerator::hugeExtent() {
  switch (uniform(0, 3)) {
  case 0:
    return int64_t(1) << uniform(1, 40);
  case 1:
    return 3 * (int64_t(1) << uniform(0, 30));
  case 2:
    return uniform(2, 1 << 20);
  default:
    return (int64_t(1) << uniform(2, 31)) - 1;
  }
}

TileLayout ExtremeGenerator::huge() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    IterList shard, replica;
    int64_t size = 1;
    for (int i = 0, n = uniform(1, 4); i < n; ++i) {
      Iter it = iter();
      it.extent = hugeExtent();
      if (mulOverflows(size, it.extent, size) || size > k2p62)
        break;
      if (coin(0.3))
        it.stride = coin() ? uniform(-(1 << 20), 1 << 20) : bigFactor();
      shard.push_back(it);
    }
    if (coin(0.3)) {
      Iter it = iter();
      it.extent = uniform(2, 4);
      if (coin())
        it.stride = bigFactor();
      replica.push_back(it);
    }
    Coord offset;
    if (coin(0.3))
      offset.set(axis(), bigValue());
    Result<TileLayout> out = TileLayout::create(shard, replica, offset);
    if (out)
      return *out;
  }
  return *TileLayout::create({Iter{int64_t(1) << 40, 1, "m"}});
}

TileLayout ExtremeGenerator::extreme(int64_t maxSize) {
  if (coin(0.15))
    return huge();
  for (int attempt = 0;; ++attempt) {
    TileLayout base = layout(maxSize);
    if (attempt == 20)
      return base;
    std::map<std::string, int64_t> factor;
    auto scaled = [&](llvm::ArrayRef<Iter> iters, IterList &out) {
      for (Iter it : iters) {
        auto [slot, inserted] = factor.try_emplace(it.axis, 1);
        if (inserted && coin(0.6))
          slot->second = bigFactor();
        if (mulOverflows(it.stride, slot->second, it.stride))
          return false;
        out.push_back(it);
      }
      return true;
    };
    IterList shard, replica;
    if (!scaled(base.shard(), shard) || !scaled(base.replica(), replica))
      continue;
    Coord offset = base.offset();
    if (coin(0.4))
      offset.set(axis(), bigValue());
    Result<TileLayout> out = TileLayout::create(shard, replica, offset);
    if (out)
      return *out;
  }
}

Shape ExtremeGenerator::split(int64_t size, int rank) {
  Vec primes;
  int64_t rest = size;
  for (int64_t p = 2; p <= (1 << 16) && p * p <= rest; ++p)
    while (rest % p == 0) {
      primes.push_back(p);
      rest /= p;
    }
  if (rest > 1)
    primes.push_back(rest);
  Shape s(rank, 1);
  for (int64_t p : primes)
    s[uniform(0, rank - 1)] *= p;
  return s;
}

Shape ExtremeGenerator::shape(int64_t size) {
  if (!coin(0.25))
    return split(size, uniform(1, 3));
  switch (uniform(0, 11)) {
  case 0:
    return {};
  case 1:
    return {0};
  case 2:
    return {-size};
  case 3:
    return {size, 0};
  case 4:
    return {-1, -size};
  case 5:
    return {kMax};
  case 6:
    return {kMin};
  case 7:
    return {kMax, kMax};
  case 8:
    return {3037000500, 3037000500};
  case 9:
    return {size < kMax ? size + 1 : 0};
  case 10:
    return {int64_t(1) << 32, int64_t(1) << 32, size};
  default:
    return {1, size, 1};
  }
}

Shape ExtremeGenerator::divisorShape(llvm::ArrayRef<int64_t> shape) {
  Shape out;
  for (int64_t n : shape)
    out.push_back(n < 1 ? n : split(n, 2)[0]);
  if (coin(0.1))
    out.push_back(2);
  if (coin(0.1) && !out.empty())
    out[0] = bigValue();
  return out;
}

} // namespace axe::testing::robust
