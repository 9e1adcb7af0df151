//===- RandomDispatchTypesTest.cpp - Random kernels of other types --------===//
//
// The RandomDispatch kernels (see RandomDispatchTest.cpp) at element types
// other than f32, larger gemms, and wider inputs.
//
// RandomDispatchTypes: f16, bf16 and i32 in copies, gemm (f16/bf16 A and B
// into f32 C), i32 reductions and casts in elementwise bodies.
// RandomDispatchLarge: gemms 32 to 64 on each side.
//
// The RandomDispatchWide suite widens the inputs, each a shape of kernel
// that once found a defect (issue 8): every element type from i1 (one byte
// per element; read back whole, so a stray bit of a packed vector shows) to
// i64 and f64; rank-0 reduction targets; globals with gaps of up to 3 and
// negative strides; copy_async tokens carried through scf.for iter_args;
// f16/bf16 gemms into f16/bf16 accumulators on the forced naive schedule.
//
//===----------------------------------------------------------------------===//

#include "RandomKernel.h"

using llvm::SmallVector;
using namespace axe;
using namespace axe::randomkernel;
using namespace axe::testing;

namespace {

//===----------------------------------------------------------------------===//
// Element types other than f32
//===----------------------------------------------------------------------===//

class RandomDispatchTypes : public ::testing::TestWithParam<int> {};

const char *const kNarrowFloats[] = {"f16", "bf16"};

// Copies of f16, bf16 and i32 (seed % 3) at every scope (seed % 4).
TEST_P(RandomDispatchTypes, Copy) {
  int seed = GetParam();
  std::mt19937_64 rng(110000 + seed);
  Launch launch = randomLaunch(rng, seed);
  static const char *elems[] = {"f16", "bf16", "i32"};
  copyCase(rng, launch, 1 + seed % 3, elems[seed % 3]);
}

// f16 or bf16 A and B into an f32 C: products of small integers are exact.
TEST_P(RandomDispatchTypes, Gemm) {
  int seed = GetParam();
  std::mt19937_64 rng(120000 + seed);
  Launch launch = randomLaunch(rng, seed);
  int64_t limit = launch.scope == Scope::Thread ? 8 : 32;
  auto size = [&] { return pickAtMost(rng, {2, 4, 6, 8, 12, 16, 32}, limit); };
  int64_t M = size(), N = size(), K = size();
  gemmCase(rng, launch, M, N, K, kNarrowFloats[seed % 2]);
}

// i32 sum / max / min / prod.
TEST_P(RandomDispatchTypes, Reduce) {
  int seed = GetParam();
  std::mt19937_64 rng(130000 + seed);
  Launch launch = randomLaunch(rng, seed);
  reduceCase(rng, launch, 1 + seed % 3, "i32");
}

// Casts in an elementwise body: z = to_z(to_f32(x) * (k + 1) + y) with x of
// f16, bf16 or i32 (seed % 3), y f32 and z f32 or f16 (rounded to nearest
// even, which the reference reproduces).
TEST_P(RandomDispatchTypes, CastElementwise) {
  int seed = GetParam();
  std::mt19937_64 rng(140000 + seed);
  Launch launch = randomLaunch(rng, seed);
  KernelText k(launch);
  static const char *xElems[] = {"f16", "bf16", "i32"};
  std::string xElem = xElems[seed % 3];
  std::string zElem = coin(rng, 50) ? "f16" : "f32";
  Shape shape = smallShape(rng, 1 + seed % 3, maxElements(launch));
  GlobalArray &gx = k.global(rng, shape, xElem);
  GlobalArray &gy = k.global(rng, shape);
  auto xVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = inst;
    for (int64_t v : x)
      f = f * 5 + v;
    return float(f % 61) - 30;
  };
  auto yVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = 2 * inst;
    for (int64_t v : x)
      f = f * 3 + v;
    return float(f % 7) * 0.25f + 0.125f;
  };
  fillTiles(gx, launch.total(), xVal);
  fillTiles(gy, launch.total(), yVal);
  Buf x = k.buffer(rng, shape, false, xElem);
  k.copy(k.view(gx, shape), x);
  Buf y = k.buffer(rng, shape, false);
  k.copy(k.view(gy, shape), y);
  Buf z = k.buffer(rng, shape, true, zElem);
  k.line("%ki = arith.index_cast %k : index to i32");
  k.line("%kf = arith.sitofp %ki : i32 to f32");
  k.line("%scale = arith.addf %kf, " + k.f32(1) + " : f32");
  k.line("axe.elementwise ins(" + x.name + ", " + y.name + " : " + x.type() +
         ", " + y.type() + ") outs(" + z.name + " : " + z.type() + ") at " +
         launch.scopeName() + " {");
  k.line("^bb0(%xe: " + xElem + ", %ye: f32):");
  if (xElem == "i32")
    k.line("  %xf = arith.sitofp %xe : i32 to f32");
  else
    k.line("  %xf = arith.extf %xe : " + xElem + " to f32");
  k.line("  %t = arith.mulf %xf, %scale : f32");
  k.line("  %u = arith.addf %t, %ye : f32");
  if (zElem == "f16") {
    k.line("  %z = arith.truncf %u : f32 to f16");
    k.line("  axe.yield %z : f16");
  } else {
    k.line("  axe.yield %u : f32");
  }
  k.line("}");
  auto outs = storeResult(rng, k, z, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> i) {
    return xVal(inst, i) * float(inst + 1) + yVal(inst, i);
  });
}

/// Seeds whose launch is at cta scope (randomLaunch: seed % 4 == 0).
bool ctaLaunch(int seed) { return seed % 4 == 0; }

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchTypes, ::testing::Range(1, 25));
INSTANTIATE_TEST_SUITE_P(Inferred, RandomDispatchTypes,
                         ::testing::ValuesIn(ctaSeeds(1, 25, ctaLaunch)),
                         seedName);

//===----------------------------------------------------------------------===//
// Larger gemms
//===----------------------------------------------------------------------===//

class RandomDispatchLarge : public ::testing::TestWithParam<int> {};

// 32 to 64 on each side with random layouts at cta, warpgroup or warp
// scope; the first seed is 64x64x32. A and B are sometimes f16 or bf16.
TEST_P(RandomDispatchLarge, Gemm) {
  int seed = GetParam();
  std::mt19937_64 rng(150000 + seed);
  static const Scope scopes[] = {Scope::CTA, Scope::Warpgroup, Scope::Warp};
  Launch launch = randomLaunch(rng, seed);
  launch.scope = scopes[seed % 3];
  if (launch.scope == Scope::Warp)
    launch.threads = 64;
  int64_t M = 64, N = 64, K = 32;
  if (seed > 1) {
    M = pick(rng, {32, 48, 64});
    N = pick(rng, {32, 64});
    K = pick(rng, {16, 32, 64});
  }
  std::string abElem = seed % 4 == 0 ? kNarrowFloats[seed / 4 % 2] : "f32";
  gemmCase(rng, launch, M, N, K, abElem);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchLarge, ::testing::Range(1, 9));
INSTANTIATE_TEST_SUITE_P(
    Inferred, RandomDispatchLarge,
    ::testing::ValuesIn(ctaSeeds(1, 9, [](int seed) { return seed % 3 == 0; })),
    seedName);

//===----------------------------------------------------------------------===//
// Wider inputs: every element type, rank-0 targets, wild memref strides,
// tokens through loops, forced schedules
//===----------------------------------------------------------------------===//

class RandomDispatchWide : public ::testing::TestWithParam<int> {};

const char *const kEveryElement[] = {"i1",  "i8",   "i16", "i32", "i64",
                                     "f16", "bf16", "f32", "f64"};

/// Every element type, i1 on a third of the seeds: whether a schedule
/// vectorizes depends on the random layouts, and i1 is the type whose
/// vectors are laid out differently in memory.
const char *elementOf(int seed) {
  return seed % 3 == 0 ? "i1" : kEveryElement[1 + seed % 8];
}

/// A buffer filled with decoys by an axe.copy_async of the whole of one
/// global, then overwritten by row blocks of another with axe.copy_async,
/// each started before the wait on the previous copy: the token is carried
/// through the loop's iter_args, as software pipelining does; then the
/// buffer is stored. Every element must come from the block copies.
void asyncLoopCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
                   const std::string &elem) {
  KernelText k(launch);
  k.wildStrides = true;
  Shape shape = smallShape(rng, rank, maxElements(launch));
  GlobalArray &in = k.global(rng, shape, elem);
  GlobalArray &decoys = k.global(rng, shape, elem);
  auto value = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return distinctValue(elem, inst, x);
  };
  fillTiles(in, launch.total(), value);
  fillTiles(decoys, launch.total(),
            [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
              float v = value(inst, x);
              return elem == "i1" ? 1 - v : v + 1;
            });
  Buf a = k.buffer(rng, shape, /*replicas=*/false, elem);
  // Row blocks of b rows whose slices at run-time starts exist; the whole
  // buffer (one block) always does.
  SmallVector<int64_t> blocks;
  for (int64_t b = 1; b < shape[0]; ++b)
    if (shape[0] % b == 0)
      blocks.push_back(b);
  std::shuffle(blocks.begin(), blocks.end(), rng);
  blocks.push_back(shape[0]);
  int64_t b = shape[0];
  Shape part = shape;
  SmallVector<SliceStart> known(shape.size(), SliceStart::constant(0));
  for (int64_t cand : blocks) {
    part[0] = cand;
    known[0] = SliceStart::aligned(cand);
    if (k.sliceLayout(a, known, part)) {
      b = cand;
      break;
    }
  }
  part[0] = b;
  known[0] = SliceStart::aligned(b);
  std::string scope = std::string(" at ") + launch.scopeName();
  auto copyAsync = [&](const Buf &from, const Buf &to) {
    std::string t = k.fresh("t");
    k.line(t + " = axe.copy_async " + from.name + " to " + to.name + scope +
           " : " + from.type() + " to " + to.type());
    return t;
  };
  std::string t0 = copyAsync(k.view(decoys, shape), a);
  std::string i = k.fresh("i"), t = k.fresh("t"), tf = k.fresh("t");
  k.open(tf + " = scf.for " + i + " = " + k.index(0) + " to " +
         k.index(shape[0]) + " step " + k.index(b) + " iter_args(" + t + " = " +
         t0 + ") -> (!axe.token) {");
  SmallVector<std::string> starts(shape.size(), "0");
  starts[0] = i;
  Buf s = k.slice(a, starts, known, part);
  std::string next = copyAsync(k.view(in, part, i), s);
  k.line("axe.wait " + t + scope);
  k.line("scf.yield " + next + " : !axe.token");
  k.close();
  k.line("axe.wait " + tf + scope);
  auto outs = storeResult(rng, k, a, coin(rng, 50));
  checkOutputs(k, outs, value);
}

// Copies of every element type (elementOf) at every scope (seed % 4), with
// wild strides on odd seeds: i1 elements are one byte each, as scalar
// accesses see them.
TEST_P(RandomDispatchWide, Copy) {
  int seed = GetParam();
  std::mt19937_64 rng(210000 + seed);
  Launch launch = randomLaunch(rng, seed);
  copyCase(rng, launch, 1 + seed % 3, elementOf(seed), seed % 2);
}

// Fills of every element type, wild strides on odd seeds.
TEST_P(RandomDispatchWide, Fill) {
  int seed = GetParam();
  std::mt19937_64 rng(220000 + seed);
  Launch launch = randomLaunch(rng, seed);
  fillCase(rng, launch, 1 + seed % 3, elementOf(seed), seed % 2);
}

// Reductions into rank-0 targets (half the seeds) of f32, f64, i32, i64,
// from globals with wild strides.
TEST_P(RandomDispatchWide, Reduce) {
  int seed = GetParam();
  std::mt19937_64 rng(230000 + seed);
  Launch launch = randomLaunch(rng, seed);
  static const char *elems[] = {"f32", "i32", "f64", "i64"};
  reduceCase(rng, launch, 1 + seed % 3, elems[seed / 4 % 4], true);
}

// copy_async tokens carried through scf.for iter_args.
TEST_P(RandomDispatchWide, AsyncCopyLoop) {
  int seed = GetParam();
  std::mt19937_64 rng(240000 + seed);
  Launch launch = randomLaunch(rng, seed);
  asyncLoopCase(rng, launch, 1 + seed % 3, elementOf(seed));
}

// f16 or bf16 A and B into an f16 or bf16 C, forced onto cpu.gemm.naive on
// half the seeds (which converts between the two formats through f32);
// sums stay below 256, exact in both formats.
TEST_P(RandomDispatchWide, GemmNarrowAccumulator) {
  int seed = GetParam();
  std::mt19937_64 rng(250000 + seed);
  Launch launch = randomLaunch(rng, seed);
  int64_t limit = launch.scope == Scope::Thread ? 8 : 16;
  auto size = [&] { return pickAtMost(rng, {2, 3, 4, 6, 8, 12, 16}, limit); };
  int64_t M = size(), N = size(), K = size();
  gemmCase(rng, launch, M, N, K, kNarrowFloats[seed % 2],
           kNarrowFloats[seed / 2 % 2], /*forceNaive=*/seed / 4 % 2 == 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchWide, ::testing::Range(1, 37));
INSTANTIATE_TEST_SUITE_P(Inferred, RandomDispatchWide,
                         ::testing::ValuesIn(ctaSeeds(1, 37, ctaLaunch)),
                         seedName);

} // namespace