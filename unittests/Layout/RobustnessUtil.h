//===- RobustnessUtil.h - Shared by the robustness tests --------*- C++ -*-===//
//
// docs/LayoutSemantics.md section 11: no input may crash the library or produce
// a silently wrong layout, and int64 overflow is detected and reported. These
// tests feed mutated notation to the parsers and extreme arguments (empty,
// zero, negative and huge dims, rank mismatches, regions out of bounds, strides
// and offsets near the int64 limits, bad alignments, enum values that are no
// enumerator) to every operation. Each call must either fail with a message or
// return a result that the brute-force model of BruteForce.h confirms (at every
// element of a small result, at sampled elements of a large one). Run under
// ASan and UBSan to catch undefined behaviour as well; set AXE_FUZZ_SEED=<n> to
// fuzz with other seeds.
//
// The robustness tests are split by what they feed: RobustParseTest.cpp
// (parsing mutated and random text, layout queries at the limits),
// RobustAlgebraTest.cpp (canonical form, equivalence, group, tile, direct
// sum, their inverses and slice) and RobustHardwareTest.cpp (swizzles,
// thread fusion, packing and the hardware constructors). This header holds
// what they share: the limits, the fuzzing seed, the wide-integer reference
// and the generator of adversarial layouts.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_UNITTESTS_LAYOUT_ROBUSTNESSUTIL_H
#define AXE_UNITTESTS_LAYOUT_ROBUSTNESSUTIL_H

#include "BruteForce.h"

#include "axe/Layout/TileLayout.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace axe::testing::robust {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2p62 = int64_t(1) << 62;

/// The generators' seed: `base`, moved by AXE_FUZZ_SEED when set, so that
/// a longer fuzzing session can explore other inputs with the same checks.
inline uint64_t fuzzSeed(uint64_t base) {
  const char *env = std::getenv("AXE_FUZZ_SEED");
  return base + (env ? std::strtoull(env, nullptr, 10) * 7919 : 0);
}

/// A failure must say why.
template <typename T>
void expectReason(const Result<T> &r, const std::string &context) {
  if (!r) {
    EXPECT_FALSE(r.message().empty()) << context;
  }
}

//===----------------------------------------------------------------------===//
// Wide-integer reference (sums of int64 coordinates may not fit in int64)
//===----------------------------------------------------------------------===//

using Big = __int128;
using BigPoint = std::map<std::string, Big>;
using BigSet = std::set<BigPoint>;

void addBig(BigPoint &p, const std::string &axis, Big v);

BigSet bigApply(const TileLayout &l, int64_t flat);

/// Small enough to enumerate every element and every replica.
inline bool checkable(const TileLayout &l) {
  return l.size() <= 256 && l.replicaCount() <= 16;
}

/// Few enough replicas to enumerate the image of one element.
inline bool fewReplicas(const TileLayout &l) { return l.replicaCount() <= 16; }

/// The flat indices a check visits: all of a small layout; the ends and a
/// fixed pseudo-random sample of a large one.
std::vector<int64_t> samples(int64_t size);

inline std::string ctx(const TileLayout &l, llvm::ArrayRef<int64_t> shape) {
  return l.str() + " shape " + shapeStr(shape);
}

/// 1 + sum (e-1)|s| per axis, in wide integers.
std::map<std::string, Big> bigSpan(const TileLayout &l);

/// Whether `a` and `b` map every (sampled) element alike.
::testing::AssertionResult sameMap(const TileLayout &a, const TileLayout &b);

//===----------------------------------------------------------------------===//
// Generators of adversarial arguments
//===----------------------------------------------------------------------===//

/// Small random layouts blown up toward the int64 limits: strides on each
/// axis scaled by a large factor, offsets pushed out; few elements, so the
/// brute force checks every answer. Sometimes a layout of up to 2^62
/// elements instead, checked at sampled elements.
class ExtremeGenerator : public LayoutGenerator {
public:
  using LayoutGenerator::LayoutGenerator;

  int64_t bigFactor();
  int64_t bigValue();
  int64_t hugeExtent();
  TileLayout huge();
  TileLayout extreme(int64_t maxSize = 64);

  /// A random split of `size` into `rank` dims by its prime factors (trial
  /// division; a large cofactor stays whole).
  Shape split(int64_t size, int rank);

  /// Usually a factorization of `size`; sometimes a shape no layout of that
  /// size admits, or that is not a shape at all.
  Shape shape(int64_t size);

  /// An element-wise quotient-compatible split of `shape` (inner dims
  /// dividing it), or an adversarial one.
  Shape divisorShape(llvm::ArrayRef<int64_t> shape);
};

} // namespace axe::testing::robust

#endif // AXE_UNITTESTS_LAYOUT_ROBUSTNESSUTIL_H
