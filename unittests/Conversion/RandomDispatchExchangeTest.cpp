//===- RandomDispatchExchangeTest.cpp - Replicated tiles, exchanges -------===//
//
// The shapes of kernel that broke real GPUs (issue 25), drawn at random and
// checked element by element like the other RandomDispatch suites, on the
// CPU and through axe-to-nvvm in the GPU interpreter (races checked):
//
// * ReplicatedStore: a register tile held by several threads per element
//   (a layout that leaves a thread axis of the scope out, so that every
//   lane of a warp holds the warp's elements, or a replica iter over the
//   lanes or warps the data does not fill) stored to shared and global
//   memory by copy and by elementwise: one holder per element must store.
// * SharedExchange: global -> shared -> registers of another distribution
//   (the writers' layout mirrored, so that lane l reads what lane 31 - l
//   wrote, or another layout, often on other warps), then the shared buffer
//   overwritten and stored: with no axe.barrier written, so that
//   axe-insert-barriers must order each read after the write it depends on
//   and each overwrite after the reads.
// * FillGemm: a fill of a global or shared accumulator, then gemms at the
//   operators' scope reading it, their operands staged global -> shared
//   (-> registers), whole or by K blocks in a loop that restages the same
//   shared buffers every iteration; no axe.barrier written either.
//
// Operators run at cta scope on half the seeds, at warp or warpgroup scope
// on the others (each instance on its own tiles and shared slices).
//
//===----------------------------------------------------------------------===//

#include "RandomKernel.h"

#include <numeric>

using llvm::SmallVector;
using namespace axe;
using namespace axe::randomkernel;
using namespace axe::testing;

namespace {

/// cta scope on even seeds, warp (seed % 4 == 1) or warpgroup (3) on odd
/// ones; one or two CTAs.
Launch exchangeLaunch(std::mt19937_64 &rng, int seed) {
  static const Scope scopes[] = {Scope::CTA, Scope::Warp, Scope::CTA,
                                 Scope::Warpgroup};
  Launch l;
  l.scope = scopes[seed % 4];
  l.grid = coin(rng, 50) ? 2 : 1;
  switch (l.scope) {
  case Scope::CTA:
    l.threads = pick(rng, {64, 128, 256});
    break;
  case Scope::Warpgroup:
    l.threads = coin(rng, 50) ? 128 : 256;
    break;
  default:
    l.threads = coin(rng, 50) ? 64 : 128;
    break;
  }
  return l;
}

bool isThreadAxis(const std::string &axis) {
  return axis == "laneid" || axis == "warpid" || axis == "tx" ||
         axis == "wgid" || axis == "wid_in_wg" || axis == "tid_in_wg";
}

/// `l` with one more replica iter of `extent` on `axis`, past the span the
/// layout already reaches there.
Layout withReplica(const Layout &l, const std::string &axis, int64_t extent) {
  const TileLayout &t = l.tile();
  IterList replica(t.replica().begin(), t.replica().end());
  replica.push_back({extent, t.span(axis), axis});
  Result<TileLayout> r = TileLayout::create(
      IterList(t.shard().begin(), t.shard().end()), replica, t.offset());
  EXPECT_TRUE(bool(r)) << r.message();
  return r ? Layout(*r) : l;
}

/// `l` with every thread-axis iter of its shard walked backwards: the
/// thread that held the last element of such an iter holds its first, so
/// lane l holds what lane 31 - l held (warp w what warp W - 1 - w held).
Layout mirrored(const Layout &l) {
  const TileLayout &t = l.tile();
  IterList shard;
  Coord offset = t.offset();
  for (const Iter &it : t.shard()) {
    if (!isThreadAxis(it.axis) || it.extent == 1) {
      shard.push_back(it);
      continue;
    }
    shard.push_back({it.extent, -it.stride, it.axis});
    offset.add(it.axis, (it.extent - 1) * it.stride);
  }
  Result<TileLayout> r = TileLayout::create(
      shard, IterList(t.replica().begin(), t.replica().end()), offset);
  EXPECT_TRUE(bool(r)) << r.message();
  return r ? Layout(*r) : l;
}

/// A register layout of `shape`, owned by the operators' scope, whose
/// elements each have several holders: a layout that leaves out a thread
/// axis the scope spans (lanes, or the threads of a warpgroup), or one with
/// a replica iter over the lanes or warps that its data leaves free.
Layout replicatedLayout(std::mt19937_64 &rng, llvm::ArrayRef<int64_t> shape,
                        const Launch &launch) {
  RandomLayoutOptions opts;
  opts.threadAxes = true;
  opts.swizzle = false;
  opts.replicas = coin(rng, 30);
  opts.maxReplicaIters = 1;
  opts.threadOffsets = true;
  int64_t warps = launch.warps(), wgs = launch.threads / 128;
  // The axis an explicit replica iter goes on, and how far it may reach.
  std::string axis;
  int64_t room = 0;
  auto someLanes = [&] { return pick(rng, {1, 2, 4, 8, 16}); };
  switch (launch.scope) {
  case Scope::CTA: {
    int variant = std::uniform_int_distribution<int>(0, wgs > 1 ? 3 : 2)(rng);
    if (variant == 0) {
      // Warps hold the data, every lane of a warp all of the warp's.
      opts.axes = {"warpid"};
      opts.axisLimit = {{"warpid", warps}};
      opts.requireAxis = "warpid";
    } else if (variant == 1) {
      // Some lanes (none for 1) and warps, a replica over the other lanes.
      opts.axes = {"laneid", "warpid"};
      opts.axisLimit = {{"laneid", someLanes()}, {"warpid", warps}};
      opts.requireAxis = "warpid";
      axis = "laneid";
      room = 32;
    } else if (variant == 2) {
      // Lanes, replicated over the warps.
      opts.axes = {"laneid"};
      opts.axisLimit = {{"laneid", 32}};
      opts.requireAxis = "laneid";
      axis = "warpid";
      room = warps;
    } else {
      // Warpgroups, every thread of one holding all of its elements.
      opts.axes = {"wgid"};
      opts.axisLimit = {{"wgid", wgs}};
      opts.requireAxis = "wgid";
    }
    break;
  }
  case Scope::Warpgroup:
    if (coin(rng, 50)) {
      // The warps of the warpgroup, all lanes holding a warp's elements.
      opts.axes = {"wid_in_wg"};
      opts.axisLimit = {{"wid_in_wg", 4}};
      opts.requireAxis = "wid_in_wg";
    } else {
      opts.axes = {"laneid", "wid_in_wg"};
      opts.axisLimit = {{"laneid", someLanes()}, {"wid_in_wg", 4}};
      opts.requireAxis = "wid_in_wg";
      axis = "laneid";
      room = 32;
    }
    break;
  default:
    // Some lanes of the warp (the replica alone for 1).
    opts.axes = {"laneid"};
    opts.axisLimit = {{"laneid", someLanes()}};
    opts.requireAxis = "laneid";
    axis = "laneid";
    room = 32;
    break;
  }
  Layout l = randomLayout(rng, shape, opts);
  if (!axis.empty()) {
    int64_t rest = room / l.tile().span(axis);
    SmallVector<int64_t> extents;
    for (int64_t e = 2; e <= rest; ++e)
      if (rest % e == 0)
        extents.push_back(e);
    if (!extents.empty())
      l = withReplica(l, axis, coin(rng, 25) ? rest : extents.front());
  }
  return l;
}

/// A register layout of `shape` whose 32 fastest elements lie on the 32
/// lanes and whose slowest are spread over the warps of the scope (of the
/// CTA, or of the warpgroup; replicated over them when the size does not
/// split), if the size is a multiple of 32: mirrored, lane l holds what
/// lane 31 - l held.
std::optional<Layout> acrossLanes(llvm::ArrayRef<int64_t> shape,
                                  const Launch &launch) {
  int64_t n = product(shape);
  if (n % 32 != 0)
    return std::nullopt;
  int64_t rest = n / 32, scopeWarps = 1;
  std::string warpAxis;
  if (launch.scope == Scope::CTA) {
    warpAxis = "warpid";
    scopeWarps = launch.warps();
  } else if (launch.scope == Scope::Warpgroup) {
    warpAxis = "wid_in_wg";
    scopeWarps = 4;
  }
  int64_t warps = std::gcd(rest, scopeWarps);
  IterList shard, replica;
  if (warps > 1)
    shard.push_back({warps, 1, warpAxis});
  else if (scopeWarps > 1) // A CTA's (a warpgroup's) tile is on its warps.
    replica.push_back({scopeWarps, 1, warpAxis});
  if (rest / warps > 1)
    shard.push_back({rest / warps, 1, "m"});
  shard.push_back({32, 1, "laneid"});
  Result<TileLayout> t = TileLayout::create(shard, replica);
  if (!t || !axe::group(*t, shape))
    return std::nullopt;
  return Layout(*t);
}

/// Whether the operators' scope owns register buffer `b` (so it may use it).
bool owned(const KernelText &k, const Buf &b) {
  SmallVector<SliceStart> zero(b.shape.size(), SliceStart::constant(0));
  return k.sliceLayout(b, zero, b.shape).has_value();
}

/// The i-th element type of a suite: f32 on most seeds.
std::string elementOf(int seed) {
  static const char *elems[] = {"f32", "f16", "i32", "f32", "i8", "bf16"};
  return elems[seed / 4 % 6];
}

/// Writes the body of an elementwise op that yields x + x, of `elem` (f16
/// and bf16 added in f32, exact for the values the suites use).
void doubledBody(KernelText &k, const std::string &elem) {
  k.line("^bb0(%x: " + elem + "):");
  if (isInteger(elem) || elem == "f32") {
    k.line("  %y = arith.add" + std::string(isInteger(elem) ? "i" : "f") +
           " %x, %x : " + elem);
  } else {
    k.line("  %w = arith.extf %x : " + elem + " to f32");
    k.line("  %s = arith.addf %w, %w : f32");
    k.line("  %y = arith.truncf %s : f32 to " + elem);
  }
  k.line("  axe.yield %y : " + elem);
}

/// storeResult, with every replica of `b` read back when it has a few; a
/// tile replicated over all lanes is stored once.
std::vector<GlobalArray *> store(std::mt19937_64 &rng, KernelText &k,
                                 const Buf &b, bool blockwise) {
  if (b.layout.tile().replicaCount() <= 8)
    return storeResult(rng, k, b, blockwise);
  GlobalArray &g = k.global(rng, b.shape, b.elem);
  k.copy(b, k.view(g, b.shape));
  return {&g};
}

class RandomDispatchExchange : public ::testing::TestWithParam<int> {};

// A replicated register tile into shared and global memory, by copy and by
// elementwise (2x); barriers written on half the seeds.
TEST_P(RandomDispatchExchange, ReplicatedStore) {
  int seed = GetParam();
  std::mt19937_64 rng(310000 + seed);
  Launch launch = exchangeLaunch(rng, seed);
  KernelText k(launch);
  k.autoBarriers = coin(rng, 50);
  std::string elem = elementOf(seed);
  Shape shape = smallShape(rng, 1 + seed % 2, 256);
  GlobalArray &in = k.global(rng, shape, elem);
  TileValue value = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return distinctValue(elem, inst, x);
  };
  TileValue twice = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return 2 * distinctValue(elem, inst, x);
  };
  fillTiles(in, launch.total(), value);
  Buf r = k.alloc(shape, replicatedLayout(rng, shape, launch), "reg", elem);
  ASSERT_TRUE(owned(k, r)) << r.layout.str();
  k.copy(k.view(in, shape), r, coin(rng, 25));
  std::vector<GlobalArray *> outs;
  std::vector<TileValue> values;
  auto expect = [&](const std::vector<GlobalArray *> &more, TileValue v) {
    for (GlobalArray *g : more) {
      outs.push_back(g);
      values.push_back(v);
    }
  };
  auto twiceInto = [&](const Buf &dst) {
    k.line("axe.elementwise ins(" + r.name + " : " + r.type() + ") outs(" +
           dst.name + " : " + dst.type() + ") at " + launch.scopeName() + " {");
    doubledBody(k, elem);
    k.line("}");
  };
  // By copy into shared memory, then out.
  Buf s = k.sharedBuffer(rng, shape, coin(rng, 30), elem);
  k.copy(r, s, coin(rng, 25));
  expect(store(rng, k, s, coin(rng, 50)), value);
  // By copy straight to global memory (and every replica of the tile).
  expect(store(rng, k, r, coin(rng, 50)), value);
  // By elementwise into global memory.
  GlobalArray &g2 = k.global(rng, shape, elem);
  twiceInto(k.view(g2, shape));
  expect({&g2}, twice);
  // By elementwise into shared memory, then out.
  Buf s2 = k.sharedBuffer(rng, shape, false, elem);
  twiceInto(s2);
  expect(store(rng, k, s2, coin(rng, 50)), twice);
  checkOutputs(k, outs, values);
}

// global -> shared -> registers of another distribution, no barriers
// written; then the shared buffer is overwritten (by a fill or a copy) and
// stored too.
TEST_P(RandomDispatchExchange, SharedExchange) {
  int seed = GetParam();
  std::mt19937_64 rng(320000 + seed);
  Launch launch = exchangeLaunch(rng, seed);
  KernelText k(launch);
  k.autoBarriers = false;
  std::string elem = elementOf(seed);
  Shape shape = smallShape(rng, 1 + seed % 2, 256);
  GlobalArray &in = k.global(rng, shape, elem);
  TileValue value = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return distinctValue(elem, inst, x);
  };
  fillTiles(in, launch.total(), value);
  Buf s = k.sharedBuffer(rng, shape, false, elem);
  std::optional<Buf> a;
  std::optional<Layout> lanes = acrossLanes(shape, launch);
  bool allLanes = lanes && coin(rng, 70);
  if (allLanes) {
    // Every lane writes; mirrored below, lane l reads what lane 31 - l
    // wrote.
    a = k.alloc(shape, *lanes, "reg", elem);
    k.copy(k.view(in, shape), *a, coin(rng, 25));
    k.copy(*a, s, coin(rng, 25));
  } else if (coin(rng, 40)) {
    // The copy's own split of the work writes the shared buffer.
    k.copy(k.view(in, shape), s, coin(rng, 25));
  } else {
    // The holders of register tile a write it.
    a = k.registerBuffer(rng, shape, false, elem);
    k.copy(k.view(in, shape), *a, coin(rng, 25));
    k.copy(*a, s, coin(rng, 25));
  }
  // The readers: a's layout mirrored, a replicated layout, or any.
  Buf b;
  if (a && (allLanes || coin(rng, 60)))
    b = k.alloc(shape, mirrored(a->layout), "reg", elem);
  else if (coin(rng, 40))
    b = k.alloc(shape, replicatedLayout(rng, shape, launch), "reg", elem);
  else
    b = k.registerBuffer(rng, shape, coin(rng, 40), elem);
  ASSERT_TRUE(owned(k, b)) << b.layout.str();
  k.copy(s, b, coin(rng, 25));
  // Overwrite s once every reader is done with it.
  std::optional<TileValue> later;
  if (coin(rng, 50)) {
    k.line("axe.fill " + s.name + ", " + k.constant(5, elem) + " at " +
           launch.scopeName() + " : " + s.type());
    later = [](int64_t, llvm::ArrayRef<int64_t>) { return 5.f; };
  } else if (coin(rng, 60)) {
    GlobalArray &in2 = k.global(rng, shape, elem);
    TileValue other = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
      return distinctValue(elem, inst + 3, x);
    };
    fillTiles(in2, launch.total(), other);
    k.copy(k.view(in2, shape), s, coin(rng, 25));
    later = other;
  }
  std::vector<GlobalArray *> outs = store(rng, k, b, coin(rng, 40));
  std::vector<TileValue> values(outs.size(), value);
  if (later)
    for (GlobalArray *g : store(rng, k, s, coin(rng, 40))) {
      outs.push_back(g);
      values.push_back(*later);
    }
  checkOutputs(k, outs, values);
}

// C = fill + A x B with C a global tile or a shared buffer, A and B staged
// through shared memory (and sometimes registers), whole or per K block in
// a loop; no barriers written.
TEST_P(RandomDispatchExchange, FillGemm) {
  int seed = GetParam();
  std::mt19937_64 rng(330000 + seed);
  Launch launch = exchangeLaunch(rng, seed);
  KernelText k(launch);
  k.autoBarriers = false;
  auto size = [&] { return pick(rng, {2, 3, 4, 6, 8, 12, 16}); };
  int64_t M = size(), N = size(), K = size();
  std::string abElem = seed % 3 == 2 ? "f16" : "f32";
  // A is stored K x M (transposed) when the loop takes row blocks of it.
  SmallVector<int64_t> blocks;
  for (int64_t b = 1; b < K; ++b)
    if (K % b == 0)
      blocks.push_back(b);
  int64_t kb = !blocks.empty() && coin(rng, 50) ? pick(rng, blocks) : K;
  bool ta = kb < K || coin(rng, 50);
  Shape aShape = ta ? Shape{K, M} : Shape{M, K};
  GlobalArray &ga = k.global(rng, aShape, abElem);
  GlobalArray &gb = k.global(rng, {K, N}, abElem);
  auto aVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] * 3 + x[1] * 5 + inst) % 7) - 3;
  };
  auto bVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] * 2 + x[1] * 7 + 2 * inst) % 5) - 2;
  };
  fillTiles(ga, launch.total(), aVal);
  fillTiles(gb, launch.total(), bVal);
  bool globalC = coin(rng, 50);
  float init = coin(rng, 50) ? 0.f : 2.f;
  GlobalArray *gc = globalC ? &k.global(rng, {M, N}) : nullptr;
  Buf c = gc ? k.view(*gc, {M, N}) : k.sharedBuffer(rng, {M, N}, false);
  k.line("axe.fill " + c.name + ", " + k.f32(init) + " at " +
         launch.scopeName() + " : " + c.type());
  // Shared staging buffers for one block, and sometimes registers after.
  Shape aPart = ta ? Shape{kb, M} : Shape{M, kb};
  Shape bPart{kb, N};
  Buf sa = k.sharedBuffer(rng, aPart, false, abElem);
  Buf sb = k.sharedBuffer(rng, bPart, false, abElem);
  std::optional<Buf> ra, rb;
  if (coin(rng, 50))
    ra = k.registerBuffer(rng, aPart, false, abElem);
  if (coin(rng, 50))
    rb = k.registerBuffer(rng, bPart, false, abElem);
  std::string row;
  if (kb < K)
    row = k.beginFor(K, kb);
  k.copy(k.view(ga, aPart, row), sa, coin(rng, 25));
  k.copy(k.view(gb, bPart, row), sb, coin(rng, 25));
  if (ra)
    k.copy(sa, *ra);
  if (rb)
    k.copy(sb, *rb);
  const Buf &x = ra ? *ra : sa, &y = rb ? *rb : sb;
  k.line("axe.gemm " + x.name + ", " + y.name + " into " + c.name + " at " +
         launch.scopeName() + (ta ? " {transpose_a}" : "") + " : " + x.type() +
         ", " + y.type() + " into " + c.type());
  if (kb < K)
    k.endFor();
  std::vector<GlobalArray *> outs{gc};
  if (!gc)
    outs = storeResult(rng, k, c, coin(rng, 40));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> i) {
    float s = init;
    for (int64_t kk = 0; kk < K; ++kk)
      s += (ta ? aVal(inst, {kk, i[0]}) : aVal(inst, {i[0], kk})) *
           bVal(inst, {kk, i[1]});
    return s;
  });
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchExchange,
                         ::testing::Range(1, 41));
// exchangeLaunch: cta scope on even seeds.
INSTANTIATE_TEST_SUITE_P(Inferred, RandomDispatchExchange,
                         ::testing::ValuesIn(ctaSeeds(
                             1, 41, [](int seed) { return seed % 2 == 0; })),
                         seedName);

} // namespace
