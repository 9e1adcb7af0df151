//===- LayoutBench.cpp - google-benchmark of the layout algebra ----------===//
//
// Parse, canonicalize, apply, inverse, span, group, tile and slice on the
// layouts kernels actually carry: mma.sync fragments, a 128x64 swizzled
// shared-memory tile, and a tensor distributed over a 2x2 device mesh of
// user axes (dx, dy).
// The figures are recorded in docs/Benchmarks.md.
//
//===----------------------------------------------------------------------===//

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Enumerate.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/Swizzle.h"

#include <benchmark/benchmark.h>

#include <string>

using namespace axe;

namespace {

/// A realistic layout with the logical shape it is used with.
struct Case {
  std::string text;
  Shape shape;
};

/// An mma.sync m16n8k16 fragment as the hardware-layout constructor builds
/// it, so the benchmark follows the library's own definition.
Case mmaCase(MmaOperand operand, MmaType type) {
  auto l = mmaSyncFragment(MmaShape::M16N8K16, operand, type);
  return {l ? l->str() : "invalid",
          mmaSyncOperandShape(MmaShape::M16N8K16, operand)};
}

// A (f16, 16x16): S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)].
const Case kMmaA = mmaCase(MmaOperand::A, MmaType::F16);
// C (f32, 16x8): S[(2, 32, 2) : (2, 1@laneid, 1)].
const Case kMmaC = mmaCase(MmaOperand::C, MmaType::F32);
// The seeds' (8, 16) example: two warps, replicated to two more.
const Case kSeed = {"S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + "
                    "R[2 : 4@warpid] + 5@warpid",
                    {8, 16}};
// A 128x64 f16 shared-memory tile under the 128-byte swizzle.
const Case kSwizzled = {"SW(3, 3, 3) o S[(128, 64) : (64, 1)]", {128, 64}};
// 256x256 split over a 2x2 mesh: rows over dx, columns over dy.
const Case kMesh = {"S[(2, 128, 2, 128) : (1@dx, 128, 1@dy, 1)]", {256, 256}};
// The same tensor with rows split over dx and replicated over dy.
const Case kMeshReplicated = {"S[(2, 128, 256) : (1@dx, 256, 1)] + R[2 : 1@dy]",
                              {256, 256}};

bool check(benchmark::State &state, bool ok, const std::string &what) {
  if (!ok)
    state.SkipWithError(what.c_str());
  return ok;
}

/// Parses a case, or marks the benchmark as failed.
bool load(benchmark::State &state, const Case &c, Layout &out) {
  Result<Layout> l = parseLayout(c.text);
  if (!check(state, bool(l), l.message()))
    return false;
  out = *l;
  return true;
}

//===----------------------------------------------------------------------===//
// Parse, canonicalize, apply
//===----------------------------------------------------------------------===//

void BM_Parse(benchmark::State &state, Case c) {
  for (auto _ : state) {
    Result<Layout> l = parseLayout(c.text);
    if (!check(state, bool(l), l.message()))
      return;
    benchmark::DoNotOptimize(l);
  }
}

void BM_Canonicalize(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  for (auto _ : state)
    benchmark::DoNotOptimize(canonicalize(l));
}

/// The whole tile's image in one odometer walk (applyAll); items/s counts
/// elements.
void BM_ApplyAll(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  for (auto _ : state)
    benchmark::DoNotOptimize(applyAll(l));
  state.SetItemsProcessed(state.iterations() * l.size());
}

/// The same walk without storing the points (forEachPlacement).
void BM_ForEachPlacement(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  for (auto _ : state)
    forEachPlacement(l, [](int64_t flat, llvm::ArrayRef<int64_t> point) {
      benchmark::DoNotOptimize(point.data());
    });
  state.SetItemsProcessed(state.iterations() * l.size());
}

/// Layout::apply element by element, each decoded from scratch: the path
/// applyAll replaces, kept so the ratio shows. items/s counts elements.
void BM_ApplyPerElement(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  for (auto _ : state)
    for (int64_t f = 0; f < l.size(); ++f)
      benchmark::DoNotOptimize(l.apply(f));
  state.SetItemsProcessed(state.iterations() * l.size());
}

/// Every placement of every element, as Coords.
std::vector<Coord> everyPlacement(const Layout &l) {
  std::vector<Coord> points;
  for (int64_t f = 0; f < l.size(); ++f)
    for (Coord &c : l.apply(f))
      points.push_back(std::move(c));
  return points;
}

/// Inverts every placement of the tile with one LayoutInverter, on dense
/// points (every case here is a mixed radix, decoded directly); items/s
/// counts points.
void BM_Inverse(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  TileImage image = applyAll(l);
  LayoutInverter inverter(l);
  for (auto _ : state)
    for (int64_t f = 0; f < image.size(); ++f)
      for (int64_t p = 0; p < image.placementsPerElement(); ++p) {
        int64_t flat;
        benchmark::DoNotOptimize(inverter.inverse(image.point(f, p), flat));
        benchmark::DoNotOptimize(flat);
      }
  state.SetItemsProcessed(state.iterations() * image.size() *
                          image.placementsPerElement());
}

/// Layout::inverse point by point, on Coords; items/s counts points.
void BM_InversePerPoint(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  std::vector<Coord> points = everyPlacement(l);
  for (auto _ : state)
    for (const Coord &p : points)
      benchmark::DoNotOptimize(l.inverse(p));
  state.SetItemsProcessed(state.iterations() * int64_t(points.size()));
}

void BM_Span(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  for (auto _ : state)
    benchmark::DoNotOptimize(l.span());
}

//===----------------------------------------------------------------------===//
// Group, tile, slice
//===----------------------------------------------------------------------===//

void BM_Group(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  for (auto _ : state) {
    auto g = group(l.tile(), c.shape);
    if (!check(state, bool(g), g.message()))
      return;
    benchmark::DoNotOptimize(g);
  }
}

void BM_Tile(benchmark::State &state, Case inner, Case outer) {
  Layout a, b;
  if (!load(state, inner, a) || !load(state, outer, b))
    return;
  for (auto _ : state) {
    auto t = tile(a.tile(), inner.shape, b.tile(), outer.shape);
    if (!check(state, bool(t), t.message()))
      return;
    benchmark::DoNotOptimize(t);
  }
}

void BM_TileOf(benchmark::State &state, Case inner, Case outer) {
  Layout a, b;
  if (!load(state, inner, a) || !load(state, outer, b))
    return;
  auto whole = tile(a.tile(), inner.shape, b.tile(), outer.shape);
  if (!check(state, bool(whole), whole.message()))
    return;
  Shape shape;
  for (size_t d = 0; d < inner.shape.size(); ++d)
    shape.push_back(inner.shape[d] * outer.shape[d]);
  for (auto _ : state) {
    auto t = tileOf(*whole, shape, a.tile(), inner.shape);
    if (!check(state, bool(t), t.message()))
      return;
    benchmark::DoNotOptimize(t);
  }
}

void BM_Slice(benchmark::State &state, Case c, Shape starts, Shape lengths) {
  Layout l;
  if (!load(state, c, l))
    return;
  for (auto _ : state) {
    auto s = slice(l.tile(), c.shape, starts, lengths);
    if (!check(state, bool(s), s.message()))
      return;
    benchmark::DoNotOptimize(s);
  }
}

/// A slice whose start is a loop variable known to be a multiple of 16.
void BM_SliceAligned(benchmark::State &state, Case c) {
  Layout l;
  if (!load(state, c, l))
    return;
  llvm::SmallVector<SliceStart, 2> starts = {SliceStart::aligned(16),
                                             SliceStart::constant(0)};
  Shape lengths = {16, c.shape[1]};
  for (auto _ : state) {
    auto s = slice(l.tile(), c.shape, starts, lengths);
    if (!check(state, bool(s), s.message()))
      return;
    benchmark::DoNotOptimize(s);
  }
}

// Tiling atoms and grids: the accumulator over a 2x4 warp grid, a swizzle
// atom's row block stacked 16 times, a device block over the mesh.
const Case kWarpGrid = {"S[(2, 4) : (4@warpid, 1@warpid)]", {2, 4}};
const Case kRowAtom = {"S[(8, 64) : (64, 1)]", {8, 64}};
const Case kRowStack = {"S[(16, 1) : (1, 1)]", {16, 1}};
const Case kDeviceBlock = {"S[(128, 128) : (128, 1)]", {128, 128}};
const Case kMeshGrid = {"S[(2, 2) : (1@dx, 1@dy)]", {2, 2}};
const Case kSpecSlice = {"S[(128, 2, 64) : (64, 8192, 1)]", {128, 128}};
const Case kSwizzledTile = {"S[(128, 64) : (64, 1)]", {128, 64}};

} // namespace

BENCHMARK_CAPTURE(BM_Parse, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_Parse, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_Parse, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_Parse, mesh_replicated, kMeshReplicated);

BENCHMARK_CAPTURE(BM_Canonicalize, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_Canonicalize, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_Canonicalize, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_Canonicalize, mesh_2x2, kMesh);

BENCHMARK_CAPTURE(BM_ApplyAll, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_ApplyAll, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_ApplyAll, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_ApplyAll, mesh_replicated, kMeshReplicated);

BENCHMARK_CAPTURE(BM_ForEachPlacement, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_ForEachPlacement, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_ForEachPlacement, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_ForEachPlacement, mesh_replicated, kMeshReplicated);

BENCHMARK_CAPTURE(BM_ApplyPerElement, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_ApplyPerElement, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_ApplyPerElement, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_ApplyPerElement, mesh_replicated, kMeshReplicated);

BENCHMARK_CAPTURE(BM_Inverse, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_Inverse, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_Inverse, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_Inverse, mesh_replicated, kMeshReplicated);

BENCHMARK_CAPTURE(BM_InversePerPoint, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_InversePerPoint, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_InversePerPoint, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_InversePerPoint, mesh_replicated, kMeshReplicated);

BENCHMARK_CAPTURE(BM_Span, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_Span, seed_8x16, kSeed);
BENCHMARK_CAPTURE(BM_Span, swizzled_128x64, kSwizzled);
BENCHMARK_CAPTURE(BM_Span, mesh_replicated, kMeshReplicated);

BENCHMARK_CAPTURE(BM_Group, mma_A, kMmaA);
BENCHMARK_CAPTURE(BM_Group, mma_C, kMmaC);
BENCHMARK_CAPTURE(BM_Group, mesh_2x2, kMesh);

BENCHMARK_CAPTURE(BM_Tile, mma_C_over_warps, kMmaC, kWarpGrid);
BENCHMARK_CAPTURE(BM_Tile, swizzle_rows_x16, kRowAtom, kRowStack);
BENCHMARK_CAPTURE(BM_Tile, block_over_mesh, kDeviceBlock, kMeshGrid);
BENCHMARK_CAPTURE(BM_TileOf, mma_C_over_warps, kMmaC, kWarpGrid);
BENCHMARK_CAPTURE(BM_TileOf, block_over_mesh, kDeviceBlock, kMeshGrid);

BENCHMARK_CAPTURE(BM_Slice, spec_128x128_cols_32_96, kSpecSlice, Shape{0, 32},
                  Shape{128, 64});
BENCHMARK_CAPTURE(BM_Slice, swizzled_rows_32_64, kSwizzledTile, Shape{32, 0},
                  Shape{32, 64});
BENCHMARK_CAPTURE(BM_Slice, mesh_dx1_cols_32_96, kMesh, Shape{128, 32},
                  Shape{128, 64});
BENCHMARK_CAPTURE(BM_SliceAligned, mesh_rows_k16, kMesh);

BENCHMARK_MAIN();
