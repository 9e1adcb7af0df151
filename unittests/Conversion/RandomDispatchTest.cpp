//===- RandomDispatchTest.cpp - Random axe kernels through axe-to-cpu -----===//
//
// Writes axe kernels as text whose buffers have seeded random layouts
// (shared, swizzled, registers of a CTA or of each warp or thread,
// replicated destinations) around axe.copy / gemm / reduce / fill /
// elementwise, with axe.view of global memrefs and axe.slice at run-time
// starts inside scf.for loops; runs the real pipeline (axe-dispatch{target=
// cpu}, convert-axe-to-cpu, upstream conversions to llvm) in-process, JIT-
// compiles the result and checks every element of every global memref
// against a C++ reference. The unit tests in CPUCodegenTest.cpp check the
// code generator alone; these check dispatch, per-warp execution and the
// structural lowering around it.
//
// Operators run at cta, warpgroup, warp or thread scope, or in producer and
// consumer partitions of a warp-specialized CTA. At warpgroup (warp,
// thread) scope every instance works on its own tile of the global arrays
// and on its own slice of shared buffers, so the kernels are race-free SPMD
// programs. Register buffers place data on one family of thread axes that
// do not alias: laneid/warpid, tx, tid_in_wg/wgid or laneid/wid_in_wg/wgid.
//
// Replicated destinations (up to two replica iters of extent 2 or 3, on m
// or thread axes) are read back once per replica: through whole-buffer
// slices whose equivalent layouts make that replica the one a copy reads,
// so a schedule that skips any replica is caught.
//
// Elements are f32, and f16, bf16 and i32 in copies, gemm (f16/bf16 A and B
// into f32 C), i32 reductions and casts in elementwise bodies; values are
// exact in their types, so results are compared exactly after rounding the
// reference to the output's type. A few gemms are 32 to 64 on each side.
//
// The RandomDispatchWide suite widens the inputs, each a shape of kernel
// that once found a defect (issue 8): every element type from i1 (one byte
// per element; read back whole, so a stray bit of a packed vector shows) to
// i64 and f64; rank-0 reduction targets; globals with gaps of up to 3 and
// negative strides; copy_async tokens carried through scf.for iter_args;
// f16/bf16 gemms into f16/bf16 accumulators on the forced naive schedule.
// Every suite slices register tiles at loop-variable starts that move
// along thread axes (such a slice stays with the scope of those axes).
//
// This file holds the f32 suite; RandomDispatchTypesTest.cpp the typed,
// large and wide suites; RandomDispatchExchangeTest.cpp the shapes that
// broke real GPUs (replicated register tiles stored to memory, exchanges
// between threads through shared memory and fill + gemm, with the barriers
// left to axe-insert-barriers). RandomKernel.h declares what they share:
// the kernel-text generator (RandomKernelText.cpp), running and checking
// (RandomKernelRun.cpp) and the kernels both draw (RandomKernelCases.cpp).
// With AXE_RANDOM_EXPORT_DIR set, every kernel checked is also written out
// with a host @main to run elsewhere, on a GPU (RandomKernelExport.cpp,
// bench/gpu/README.md).
//
// The `?` mode (issue 27): every suite has a second instantiation, Inferred,
// over its seeds whose operators run at cta scope. Inferred/S.T/i is the
// kernel of Seeds/S.T/i with every shared and register layout written `?`
// (global views keep theirs), so that axe-infer-layouts, the first pass of
// axe-to-cpu and axe-to-nvvm, chooses them; it is checked against the same
// reference. The warp-specialized kernels run at warp scope and have no
// twin (their suite is RandomDispatchSpecialized).
//
//===----------------------------------------------------------------------===//

#include "RandomKernel.h"

using namespace axe;
using namespace axe::randomkernel;
using namespace axe::testing;

namespace {

//===----------------------------------------------------------------------===//
// The kernels
//===----------------------------------------------------------------------===//

class RandomDispatch : public ::testing::TestWithParam<int> {};

TEST_P(RandomDispatch, Copy) {
  int seed = GetParam();
  std::mt19937_64 rng(10000 + seed);
  Launch launch = randomLaunch(rng, seed);
  copyCase(rng, launch, 1 + seed % 3);
}

// C (+)= A x B on small tiles, f32.
TEST_P(RandomDispatch, Gemm) {
  int seed = GetParam();
  std::mt19937_64 rng(20000 + seed);
  Launch launch = randomLaunch(rng, seed);
  int64_t limit = launch.scope == Scope::Thread ? 8 : 16;
  auto size = [&] { return pickAtMost(rng, {2, 3, 4, 6, 8, 12, 16}, limit); };
  int64_t M = size(), N = size(), K = size();
  gemmCase(rng, launch, M, N, K);
}

TEST_P(RandomDispatch, Reduce) {
  int seed = GetParam();
  std::mt19937_64 rng(30000 + seed);
  Launch launch = randomLaunch(rng, seed);
  reduceCase(rng, launch, 1 + seed % 3);
}

TEST_P(RandomDispatch, Fill) {
  int seed = GetParam();
  std::mt19937_64 rng(40000 + seed);
  Launch launch = randomLaunch(rng, seed);
  fillCase(rng, launch, 1 + seed % 3);
}

// z = x * (k + 1) + y with y broadcast along its dims of extent 1; the
// scale is computed from the instance number outside the operator and
// captured by its body.
TEST_P(RandomDispatch, Elementwise) {
  int seed = GetParam();
  std::mt19937_64 rng(50000 + seed);
  Launch launch = randomLaunch(rng, seed);
  KernelText k(launch);
  Shape shape = smallShape(rng, 1 + seed % 3, maxElements(launch));
  Shape yShape = shape;
  for (int64_t &e : yShape)
    if (coin(rng, 35))
      e = 1;
  GlobalArray &gx = k.global(rng, shape);
  GlobalArray &gy = k.global(rng, yShape);
  auto xVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = inst;
    for (int64_t v : x)
      f = f * 5 + v;
    return float(f % 17) - 8;
  };
  auto yVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = 2 * inst;
    for (int64_t v : x)
      f = f * 3 + v;
    return float(f % 7) * 0.5f;
  };
  fillTiles(gx, launch.total(), xVal);
  fillTiles(gy, launch.total(), yVal);
  Buf x = k.buffer(rng, shape, false);
  k.copy(k.view(gx, shape), x);
  Buf y = k.buffer(rng, yShape, false);
  k.copy(k.view(gy, yShape), y);
  Buf z = k.buffer(rng, shape, true);
  k.line("%ki = arith.index_cast %k : index to i32");
  k.line("%kf = arith.sitofp %ki : i32 to f32");
  k.line("%scale = arith.addf %kf, " + k.f32(1) + " : f32");
  k.line("axe.elementwise ins(" + x.name + ", " + y.name + " : " + x.type() +
         ", " + y.type() + ") outs(" + z.name + " : " + z.type() + ") at " +
         launch.scopeName() + " {");
  k.line("^bb0(%xe: f32, %ye: f32):");
  k.line("  %t = arith.mulf %xe, %scale : f32");
  k.line("  %u = arith.addf %t, %ye : f32");
  k.line("  axe.yield %u : f32");
  k.line("}");
  auto outs = storeResult(rng, k, z, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> i) {
    Shape yi(i.begin(), i.end());
    for (size_t d = 0; d < yi.size(); ++d)
      if (yShape[d] == 1)
        yi[d] = 0;
    return xVal(inst, i) * float(inst + 1) + yVal(inst, yi);
  });
}

/// Seeds whose launch is at cta scope (randomLaunch: seed % 4 == 0).
bool ctaLaunch(int seed) { return seed % 4 == 0; }

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatch, ::testing::Range(1, 51));
// The cta-scope kernels of Seeds with every shared and register layout `?`.
INSTANTIATE_TEST_SUITE_P(Inferred, RandomDispatch,
                         ::testing::ValuesIn(ctaSeeds(1, 51, ctaLaunch)),
                         seedName);

// Its own suite: a warp-specialized kernel runs its operators at warp
// scope, so the `?` mode has no twin of it.
class RandomDispatchSpecialized : public ::testing::TestWithParam<int> {};

// Warp specialization: producer warps stage their tiles into their slices
// of a shared buffer; after a CTA barrier the consumer warps copy theirs
// into a buffer allocated inside their partition (per-warp registers or a
// slice of shared memory) and store it, whole or by row blocks.
TEST_P(RandomDispatchSpecialized, WarpSpecialized) {
  int seed = GetParam();
  std::mt19937_64 rng(60000 + seed);
  Launch launch;
  launch.scope = Scope::Warp;
  launch.specialized = true;
  launch.grid = coin(rng, 50) ? 2 : 1;
  launch.threads = coin(rng, 50) ? 128 : 256;
  int64_t half = launch.warps() / 2;
  KernelText k(launch);
  Shape shape = smallShape(rng, 1 + seed % 3, 512);
  GlobalArray &in = k.global(rng, shape);
  auto value = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = 0;
    for (int64_t v : x)
      f = f * 41 + v;
    return float(inst * 8192 + f + 1);
  };
  fillTiles(in, launch.total(), value);
  Shape stackedShape{half};
  stackedShape.append(shape.begin(), shape.end());
  Buf all;
  all.name = k.fresh("all");
  all.shape = shape;
  all.shape[0] *= half;
  all.layout = randomLayout(rng, stackedShape, RandomLayoutOptions());
  all.space = "shared";
  k.line(all.name + " = axe.alloc : " + all.type());
  std::string cHalf = k.index(half);
  auto defineInstance = [&](const std::string &inst) {
    k.line("%first = arith.muli %bx, " + cHalf + " : index");
    k.line("%k = arith.addi %first, " + inst + " : index");
  };
  k.open("axe.warp_specialize {");
  k.open("axe.partition warps [0, " + std::to_string(half) + ") {");
  k.line("%inst = axe.axis_id warpid");
  defineInstance("%inst");
  Buf mine = k.instanceSlice(all, shape);
  k.copy(k.view(in, shape), mine, coin(rng, 25));
  k.line("axe.barrier at cta");
  k.close();
  k.open("axe.partition warps [" + std::to_string(half) + ", " +
         std::to_string(launch.warps()) + ") {");
  k.line("axe.barrier at cta");
  k.line("%w = axe.axis_id warpid");
  k.line("%inst = arith.subi %w, " + cHalf + " : index");
  defineInstance("%inst");
  Buf theirs = k.instanceSlice(all, shape);
  Buf r = k.buffer(rng, shape, /*replicas=*/true);
  k.copy(theirs, r, coin(rng, 25));
  auto outs = storeResult(rng, k, r, coin(rng, 50));
  k.close();
  k.close();
  checkOutputs(k, outs, value);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchSpecialized,
                         ::testing::Range(1, 51));

} // namespace
