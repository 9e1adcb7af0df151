//===- NVVMMma.cpp - axe.gemm on mma.sync ---------------------------------===//
//
// A warp-level tensor-core GEMM: the accumulator's layout must tile the
// target's mma.sync C fragment (each warp's part of C is a set of 16x8 tiles,
// each held exactly as the atom places it over lanes), and A and B come from
// memory, one fragment per tile row / column and K step, by ldmatrix where
// their layouts keep each fragment row 16 contiguous, aligned bytes, else by
// element loads. The fragments' placements come from the target's atoms
// (InstanceView of each fragment over laneid), not from tables here; only
// which ldmatrix lane reads which row is ldmatrix's own rule, and it is
// checked against the atom before it is used.
//
//===----------------------------------------------------------------------===//

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"
#include "SIMT.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"
#include "axe/Layout/Algebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>
#include <numeric>
#include <optional>
#include <set>

using namespace mlir;

namespace axe::nvvm {
namespace {

constexpr int64_t kMaxTiles = 64;

struct MmaPlan {
  const InstructionAtom *atom = nullptr;
  GemmProblem problem;
  Fragment a, b, c;
  /// C's axes that number warps (its thread axes but laneid).
  SmallVector<std::string, 4> warpAxes;
  /// Tile origins relative to the warp's base of C.
  SmallVector<std::array<int64_t, 2>> tiles;
  bool ldmatrixA = false, ldmatrixB = false;
};

/// ldmatrix.x4 (A, 16x16) and ldmatrix.x2.trans (B, 16x8 as k x n) give
/// lane t, register i, half h the element below; it must be the atom's.
Shape ldmatrixPosition(bool isA, int64_t t, int64_t i, int64_t h) {
  if (isA)
    return {8 * (i % 2) + t / 4, 8 * (i / 2) + 2 * (t % 4) + h};
  return {8 * i + 2 * (t % 4) + h, t / 4};
}

bool ldmatrixMatchesAtom(const Fragment &f, bool isA) {
  if (f.size() != (isA ? 8 : 4))
    return false;
  for (int64_t t = 0; t < kWarpSize; ++t)
    for (int64_t slot = 0; slot < f.size(); ++slot)
      if (positionOf(f, t, slot) !=
          ldmatrixPosition(isA, t, slot / 2, slot % 2))
        return false;
  return true;
}

/// Offsets past this many residues are not enumerated; the operand is read
/// by element loads instead.
constexpr int64_t kMaxOffsetResidues = 4096;

/// Whether every run of 8 elements along the fragment rows' contiguous
/// dim (k for A, n for B, at multiples of 8) is 16 aligned, consecutive
/// bytes of `type`'s memory, for every run-time offset on m that is a
/// multiple of `offsetStep` (0: there is none). A run-time slice start is
/// added before the swizzle, so a swizzle whose unit is narrower than a row
/// (M < 3 for 16-bit elements) keeps rows whole at some starts and splits
/// them at others: the rows must hold at every start the step allows, not
/// only at the static layout's own.
bool rowsAreLdmatrixRows(BufferType type, bool alongLastDim,
                         int64_t offsetStep = 0) {
  if (type.getElementType().getIntOrFloatBitWidth() != 16)
    return false;
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = alongLastDim ? shape[0] : shape[1];
  int64_t cols = alongLastDim ? shape[1] : shape[0];
  if (cols % 8 != 0)
    return false;
  const Layout &l = type.getLayout();
  std::optional<Swizzle> sw = l.effectiveSwizzle();
  // The swizzle commutes with adding its period, and a row's alignment
  // repeats every 8 elements, so offsets matter modulo both.
  int64_t period = sw ? std::max<int64_t>(sw->period(), 8) : 8;
  int64_t step = offsetStep == 0 ? period : std::gcd(offsetStep, period);
  if (period / step > kMaxOffsetResidues)
    return false;
  SmallVector<int64_t> unswizzled;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      SmallVector<int64_t, 2> x = alongLastDim ? SmallVector<int64_t, 2>{r, c}
                                               : SmallVector<int64_t, 2>{c, r};
      auto p = l.tile().apply(x, shape);
      if (!p || p->size() != 1)
        return false;
      unswizzled.push_back(p->front().get(kDefaultAxis));
    }
  for (int64_t o = 0; o < period; o += step)
    for (int64_t run = 0; run < rows * cols; run += 8) {
      auto at = [&](int64_t i) {
        int64_t m = unswizzled[run + i] + o;
        return sw ? sw->apply(m) : m;
      };
      int64_t first = at(0);
      if (first % 8 != 0)
        return false;
      for (int64_t i = 1; i < 8; ++i)
        if (at(i) != first + i)
          return false;
    }
  return true;
}

/// What every run-time offset of `operand` on m is a multiple of, in the
/// terms of rowsAreLdmatrixRows: 0 when there is none, 1 when nothing is
/// known.
int64_t dynamicOffsetStep(const GPUOperand &operand) {
  if (!operand.ref.offset.lookup(kDefaultAxis))
    return 0;
  return operand.ref.offsetAlignment == 0 ? 1 : operand.ref.offsetAlignment;
}

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// The target's mma.sync for `in` x `in` -> `acc` of the largest K that
/// divides `k`.
const InstructionAtom *mmaAtomFor(const TargetDescription &target, StringRef in,
                                  StringRef acc, int64_t k) {
  const InstructionAtom *best = nullptr;
  for (const InstructionAtom *atom : target.findAtoms(AtomKind::MmaSync))
    if (atom->elementType == in && atom->accumulatorType == acc &&
        k % atom->k == 0 && (!best || atom->k > best->k))
      best = atom;
  return best;
}

MemorySpace rootSpace(Value buffer) {
  auto chain = walkBufferChain(buffer);
  return cast<BufferType>(chain->root->getResult(0).getType()).getMemorySpace();
}

Result<MmaPlan> planMma(const TargetDescription &target, int64_t threads,
                        GemmOp op) {
  auto ta = cast<BufferType>(op.getA().getType());
  auto tb = cast<BufferType>(op.getB().getType());
  auto tc = cast<BufferType>(op.getC().getType());
  auto problem = gemmProblem(ta.getShape(), op.getTransposeA(), tb.getShape(),
                             op.getTransposeB(), tc.getShape());
  if (!problem)
    return problem.takeFailure();
  MmaPlan plan;
  plan.problem = *problem;
  if (ta.getElementType() != tb.getElementType())
    return fail("A and B have different element types");
  std::string in = typeName(ta.getElementType());
  std::string acc = typeName(tc.getElementType());
  plan.atom = mmaAtomFor(target, in, acc, problem->k);
  if (!plan.atom)
    return fail(target.name.str() + " has no mma.sync for " + in + " x " + in +
                " -> " + acc + " whose K divides " +
                std::to_string(problem->k));
  const InstructionAtom &atom = *plan.atom;
  for (Value v : {op.getA(), op.getB()})
    if (rootSpace(v) == MemorySpace::Reg)
      return fail("mma.sync reads A and B from memory here; register "
                  "operands are not implemented");
  if (rootSpace(op.getC()) != MemorySpace::Reg)
    return fail("the accumulator is not in registers");
  for (auto [name, frag] : {std::pair<StringRef, Fragment *>{"A", &plan.a},
                            {"B", &plan.b},
                            {"C", &plan.c}}) {
    auto f = fragmentOf(atom, name, "laneid");
    if (!f)
      return f.takeFailure();
    *frag = std::move(*f);
  }
  for (const std::string &axis : threadAxesOf(target, tc.getLayout())) {
    if (axis == "laneid")
      continue;
    std::optional<AxisStep> step = target.stepOfAxis(axis);
    if (!step || step->threadsPerStep % target.warpSize != 0)
      return fail("the accumulator is placed on '" + axis +
                  "', which numbers threads inside a warp; " + atom.name +
                  " needs it on laneid (and warp axes)");
    plan.warpAxes.push_back(axis);
  }
  // Each warp's part of C: offsets from the warp's base, and the lane that
  // holds each.
  auto view = InstanceView::get(tc.getLayout(), tc.getShape(), plan.warpAxes);
  if (!view)
    return view.takeFailure();
  SmallVector<HoldingGroup> warps =
      groupsHolding(target, *view, plan.warpAxes, target.warpSize, threads);
  if (warps.empty())
    return fail("no warp holds part of the accumulator");
  const Coord *warp0 = &warps.front().instance;
  Shape base = warps.front().base;
  std::map<std::array<int64_t, 2>, int64_t> laneOf;
  for (const HeldElement &e : view->elementsOf(*warp0)) {
    if (e.storage.size() != 1)
      return fail("the accumulator has replicas");
    std::array<int64_t, 2> off{e.logical[0] - base[0], e.logical[1] - base[1]};
    if (off[0] < 0 || off[1] < 0)
      return fail("the accumulator runs backwards in a warp");
    laneOf[off] = e.storage.front().get("laneid");
  }
  std::set<std::array<int64_t, 2>> origins;
  for (const auto &[off, lane] : laneOf)
    origins.insert({off[0] - off[0] % atom.m, off[1] - off[1] % atom.n});
  if (int64_t(origins.size() * atom.m * atom.n) != int64_t(laneOf.size()))
    return fail("a warp's part of the accumulator is not whole " +
                std::to_string(atom.m) + "x" + std::to_string(atom.n) +
                " tiles");
  if (origins.size() > size_t(kMaxTiles))
    return fail("more than " + std::to_string(kMaxTiles) +
                " accumulator tiles per warp");
  for (const auto &o : origins) {
    for (int64_t lane = 0; lane < kWarpSize; ++lane)
      for (int64_t slot = 0; slot < plan.c.size(); ++slot) {
        std::optional<Shape> p = positionOf(plan.c, lane, slot);
        auto it = laneOf.find({o[0] + (*p)[0], o[1] + (*p)[1]});
        if (it == laneOf.end() || it->second != lane)
          return fail(
              "the accumulator's " + std::to_string(atom.m) + "x" +
              std::to_string(atom.n) + " tile at (" + std::to_string(o[0]) +
              ", " + std::to_string(o[1]) + ") of a warp is not " + atom.name +
              "'s C fragment: the atom puts its element (" +
              std::to_string((*p)[0]) + ", " + std::to_string((*p)[1]) +
              ") on lane " + std::to_string(lane) + ", the layout on " +
              (it == laneOf.end() ? std::string("no lane of the warp")
                                  : "lane " + std::to_string(it->second)));
      }
    plan.tiles.push_back(o);
  }
  // ldmatrix reads row-major A rows along k and B rows along n (B is k x n:
  // .trans gives the k pairs).
  plan.ldmatrixA = !op.getTransposeA() && ldmatrixMatchesAtom(plan.a, true) &&
                   rootSpace(op.getA()) == MemorySpace::Shared &&
                   rowsAreLdmatrixRows(ta, /*alongLastDim=*/true);
  plan.ldmatrixB = !op.getTransposeB() && ldmatrixMatchesAtom(plan.b, false) &&
                   rootSpace(op.getB()) == MemorySpace::Shared &&
                   rowsAreLdmatrixRows(tb, /*alongLastDim=*/true);
  return plan;
}

/// The fragment vector type nvgpu.mma.sync takes: registers of two 16-bit
/// (or one 32-bit) elements, [slots / 2, 2] for 16-bit and f32 alike.
VectorType fragmentType(int64_t slots, Type elt) {
  return VectorType::get({slots / 2, 2}, elt);
}

Value insertSlot(OpBuilder &b, Location loc, Value vec, Value v, int64_t slot) {
  return vector::InsertOp::create(b, loc, v, vec,
                                  ArrayRef<int64_t>{slot / 2, slot % 2});
}

struct MmaEmitter {
  OpBuilder &b;
  Location loc;
  const MmaPlan &plan;
  const GPUOperand &a, &bm, &c;
  GemmOp op;
  Value lane;
  /// The atom's per-lane bases of A, B and C.
  SmallVector<Value, 2> baseA, baseB, baseC;
  /// The warp's base in C.
  SmallVector<Value, 2> warpBase;

  SmallVector<Value, 2> gemmIndex(bool isA, Value outer, Value k) {
    bool transposed = isA ? op.getTransposeA() : op.getTransposeB();
    bool kFirst = isA ? transposed : !transposed;
    return kFirst ? SmallVector<Value, 2>{k, outer}
                  : SmallVector<Value, 2>{outer, k};
  }

  /// The A fragment of the tile row at `row0` (C rows) and K step `k0`.
  Value loadA(Value row0, Value k0) {
    Type elt = a.elementType();
    if (plan.ldmatrixA) {
      // Lane l gives row (l mod 8) + 8 ((l / 8) mod 2), column 8 (l / 16).
      Value r = arith::AddIOp::create(
          b, loc,
          arith::RemUIOp::create(b, loc, lane, indexConstant(b, loc, 8)),
          mulIndex(b, loc,
                   arith::RemUIOp::create(
                       b, loc,
                       arith::DivUIOp::create(b, loc, lane,
                                              indexConstant(b, loc, 8)),
                       indexConstant(b, loc, 2)),
                   8));
      Value col = mulIndex(
          b, loc,
          arith::DivUIOp::create(b, loc, lane, indexConstant(b, loc, 16)), 8);
      return ldmatrix(a, {addIndex(b, loc, row0, r), addIndex(b, loc, k0, col)},
                      4, false, fragmentType(plan.a.size(), elt));
    }
    return gather(a, plan.a, baseA, [&](Value r, Value k) {
      return gemmIndex(true, addIndex(b, loc, row0, r),
                       addIndex(b, loc, k0, k));
    });
  }

  Value loadB(Value col0, Value k0) {
    Type elt = bm.elementType();
    if (plan.ldmatrixB) {
      // Lanes 0-15 give k rows 0-15 of the 16 x 8 (k x n) tile; the others
      // repeat them (ldmatrix.x2 ignores their addresses).
      Value r = arith::RemUIOp::create(b, loc, lane, indexConstant(b, loc, 16));
      return ldmatrix(bm, {addIndex(b, loc, k0, r), col0}, 2, true,
                      fragmentType(plan.b.size(), elt));
    }
    return gather(bm, plan.b, baseB, [&](Value k, Value n) {
      return gemmIndex(false, addIndex(b, loc, col0, n),
                       addIndex(b, loc, k0, k));
    });
  }

  Value ldmatrix(const GPUOperand &operand, SmallVector<Value, 2> index,
                 int64_t tiles, bool transpose, VectorType type) {
    CoordValue p =
        operand.emitter->emitUnswizzled(b, loc, index, &operand.ref.offset);
    operand.emitter->applySwizzle(b, loc, p);
    Value address = operand.address(b, loc, p);

    auto ld = nvgpu::LdMatrixOp::create(b, loc, type, operand.memory,
                                        ValueRange{address}, transpose,
                                        uint32_t(tiles));
    return ld.getResult();
  }

  /// A fragment by element loads: slot j of this lane holds the atom's
  /// element base + offsets[j], at operand index `index(row, col)`.
  Value gather(const GPUOperand &operand, const Fragment &f,
               ArrayRef<Value> base,
               function_ref<SmallVector<Value, 2>(Value, Value)> index) {
    Type elt = operand.elementType();
    Value vec = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(fragmentType(f.size(), elt)));
    for (int64_t j = 0; j < f.size(); ++j) {
      Value r =
          addIndex(b, loc, base[0], indexConstant(b, loc, f.offsets[j][0]));
      Value k =
          addIndex(b, loc, base[1], indexConstant(b, loc, f.offsets[j][1]));
      vec = insertSlot(b, loc, vec, operand.read(b, loc, index(r, k)),
                       f.slots[j]);
    }
    return vec;
  }

  /// C's elements of tile `t` held by this lane, by slot.
  SmallVector<SmallVector<Value, 2>> cIndices(const std::array<int64_t, 2> &t) {
    SmallVector<SmallVector<Value, 2>> idx(plan.c.size());
    for (int64_t j = 0; j < plan.c.size(); ++j) {
      SmallVector<Value, 2> x;
      for (int d = 0; d < 2; ++d)
        x.push_back(
            addIndex(b, loc, addIndex(b, loc, warpBase[d], baseC[d]),
                     indexConstant(b, loc, t[d] + plan.c.offsets[j][d])));
      idx[plan.c.slots[j]] = x;
    }
    return idx;
  }
};

ScheduleMatch matchMma(Operation *raw, const ScheduleContext &ctx) {
  auto op = cast<GemmOp>(raw);
  if (!op->getParentOfType<KernelOp>())
    return ScheduleMatch::decline("the operator is outside an axe.kernel");
  ScopeKind scope = op.getScope().getKind();
  if (scope < ScopeKind::Warp || scope > ScopeKind::CTA)
    return ScheduleMatch::decline("mma.sync needs whole warps within a CTA; "
                                  "the scope is " +
                                  stringifyScopeKind(scope).str());
  for (Value v : {op.getA(), op.getB(), op.getC()})
    if (auto ok = checkGPUOperand(v); !ok)
      return ScheduleMatch::decline(ok.message());
  auto plan = planMma(
      *ctx.target, int64_t(op->getParentOfType<KernelOp>().getThreads()), op);
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

LogicalResult rewriteMma(Operation *raw, const ScheduleContext &ctx,
                         const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<GemmOp>(raw);
  MmaPlan plan = *std::any_cast<MmaPlan>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  SmallVector<GPUOperand, 0> ops;
  for (Value v : {op.getA(), op.getB(), op.getC()}) {
    auto r = getGPUOperand(rw, loc, v, codegenOf(ctx));
    if (!r)
      return op.emitError("nvvm: ") << r.message();
    ops.push_back(std::move(*r));
  }
  // The plan proved ldmatrix rows for the operands' static layouts; run-time
  // slice starts, added before the swizzle, are resolved only now. Where
  // their known divisor does not keep every row whole and 16-byte aligned
  // (a swizzle unit narrower than a row moves half rows at some starts),
  // the fragments are read by element loads instead.
  plan.ldmatrixA =
      plan.ldmatrixA &&
      rowsAreLdmatrixRows(typeOf(op.getA()),
                          /*alongLastDim=*/true, dynamicOffsetStep(ops[0]));
  plan.ldmatrixB =
      plan.ldmatrixB &&
      rowsAreLdmatrixRows(typeOf(op.getB()),
                          /*alongLastDim=*/true, dynamicOffsetStep(ops[1]));
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  Value lane = cg.axisValue(rw, loc, "laneid");
  MmaEmitter e{rw, loc, plan, ops[0], ops[1], ops[2], op, lane, {}, {}, {}, {}};
  auto laneBase = [&](const Fragment &f) {
    auto emitter = InstanceEmitter::get(f.layout, f.shape, {"laneid"});
    CoordValue c;
    c.set("laneid", lane);
    InstanceBase base = emitter->emitBase(rw, loc, c);
    return SmallVector<Value, 2>(base.logical.begin(), base.logical.end());
  };
  e.baseA = laneBase(plan.a);
  e.baseB = laneBase(plan.b);
  e.baseC = laneBase(plan.c);
  e.warpBase = emitInstanceBase(rw, loc, cg, ops[2], plan.warpAxes);
  Type accType = ops[2].elementType();
  VectorType cType = fragmentType(plan.c.size(), accType);
  // Accumulators in, carried through the K loop, out.
  SmallVector<Value> init;
  for (const auto &t : plan.tiles) {
    Value vec = arith::ConstantOp::create(rw, loc, rw.getZeroAttr(cType));
    for (auto [slot, x] : llvm::enumerate(e.cIndices(t)))
      vec = insertSlot(rw, loc, vec, ops[2].read(rw, loc, x), slot);
    init.push_back(vec);
  }
  const InstructionAtom &atom = *plan.atom;
  auto loop = scf::ForOp::create(rw, loc, indexConstant(rw, loc, 0),
                                 indexConstant(rw, loc, plan.problem.k),
                                 indexConstant(rw, loc, atom.k), init);
  {
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(loop.getBody());
    Value k0 = loop.getInductionVar();
    std::map<int64_t, Value> fragA, fragB;
    SmallVector<Value> next;
    for (auto [i, t] : llvm::enumerate(plan.tiles)) {
      Value &fa = fragA[t[0]];
      if (!fa)
        fa = e.loadA(
            addIndex(rw, loc, e.warpBase[0], indexConstant(rw, loc, t[0])), k0);
      Value &fb = fragB[t[1]];
      if (!fb)
        fb = e.loadB(
            addIndex(rw, loc, e.warpBase[1], indexConstant(rw, loc, t[1])), k0);
      next.push_back(nvgpu::MmaSyncOp::create(
          rw, loc, cType, fa, fb, loop.getRegionIterArg(i),
          rw.getI64ArrayAttr({atom.m, atom.n, atom.k}), UnitAttr()));
    }
    scf::YieldOp::create(rw, loc, next);
  }
  for (auto [i, t] : llvm::enumerate(plan.tiles))
    for (auto [slot, x] : llvm::enumerate(e.cIndices(t)))
      ops[2].write(
          rw, loc, x,
          vector::ExtractOp::create(
              rw, loc, loop.getResult(i),
              ArrayRef<int64_t>{int64_t(slot) / 2, int64_t(slot) % 2}));
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Layout proposals
//===----------------------------------------------------------------------===//

/// A split of a scope's warps over C's fragment tiles: `rows` x `cols` warps,
/// each `tileRows` x `tileCols` fragments.
struct WarpGrid {
  int64_t rows, cols, tileRows, tileCols;
  /// Rows of A plus columns of B a warp reads per K step: the shared
  /// traffic of its fragment loads.
  int64_t traffic;
};

/// Every split of `warps` warps into a grid that divides the fragment tiles
/// evenly, least traffic first (then more warps along M).
SmallVector<WarpGrid> warpGrids(int64_t warps, int64_t tilesM, int64_t tilesN,
                                const InstructionAtom &atom) {
  SmallVector<WarpGrid> grids;
  for (int64_t rows = 1; rows <= warps; ++rows) {
    int64_t cols = warps / rows;
    if (warps % rows || tilesM % rows || tilesN % cols)
      continue;
    WarpGrid g{rows, cols, tilesM / rows, tilesN / cols, 0};
    if (g.tileRows * g.tileCols > kMaxTiles)
      continue;
    g.traffic = g.tileRows * atom.m + g.tileCols * atom.n;
    grids.push_back(g);
  }
  llvm::stable_sort(grids, [](const WarpGrid &a, const WarpGrid &b) {
    return a.traffic != b.traffic ? a.traffic < b.traffic : a.rows > b.rows;
  });
  return grids;
}

/// C as the atom's C fragment tiled over the grid: warp (i, j) on
/// `warpAxis` as i * cols + j, its fragments row-major in the register
/// slots.
Result<TileLayout> accumulatorOverWarps(const InstructionAtom &atom,
                                        const WarpGrid &g, StringRef warpAxis) {
  const AtomOperand *c = atom.findOperand("C");
  if (!c || !c->layout)
    return fail(atom.name + " has no fixed C fragment");
  IterList outer;
  if (warpAxis.empty()) {
    outer = {Iter{g.tileRows, g.tileCols}, Iter{g.tileCols, 1}};
  } else {
    outer = {Iter{g.rows, g.cols, warpAxis.str()}, Iter{g.tileRows, g.tileCols},
             Iter{g.cols, 1, warpAxis.str()}, Iter{g.tileCols, 1}};
  }
  auto grid = TileLayout::create(outer);
  if (!grid)
    return grid.takeFailure();
  return tile(c->layout->tile(), c->shape, *grid,
              {g.rows * g.tileRows, g.cols * g.tileCols});
}

/// Shared A and B by the swizzle rule (ldmatrix reads their 16-byte rows
/// without conflicts), and C as the atom's fragments over the scope's warps,
/// one proposal per warp grid, the least traffic first.
SmallVector<LayoutProposal> proposeMma(Operation *raw,
                                       const ScheduleContext &ctx) {
  auto op = cast<GemmOp>(raw);
  if (!op->getParentOfType<KernelOp>())
    return {};
  ScopeKind scope = op.getScope().getKind();
  if (scope < ScopeKind::Warp || scope > ScopeKind::CTA)
    return {};
  BufferType ta = typeOf(op.getA()), tb = typeOf(op.getB()),
             tc = typeOf(op.getC());
  auto problem = gemmProblem(ta.getShape(), op.getTransposeA(), tb.getShape(),
                             op.getTransposeB(), tc.getShape());
  if (!problem || ta.getElementType() != tb.getElementType())
    return {};
  const TargetDescription &target = *ctx.target;
  const InstructionAtom *atom =
      mmaAtomFor(target, typeName(ta.getElementType()),
                 typeName(tc.getElementType()), problem->k);
  if (!atom)
    return {};
  LayoutProposal operands;
  std::string why = atom->name;
  Value inputs[] = {op.getA(), op.getB()};
  for (auto [i, v] : llvm::enumerate(inputs)) {
    if (!isInferred(v))
      continue;
    if (spaceOf(v) != MemorySpace::Shared)
      return {};
    BufferType t = typeOf(v);
    unsigned bits = t.getElementType().getIntOrFloatBitWidth();
    Layout l = sharedTileLayout(t.getShape(), bits);
    proposeOperand(operands, i, v, l);
    why +=
        std::string(i ? "; B" : "; A") + " shared " +
        std::to_string(t.getShape()[1] * bits / 8) + "-byte rows" +
        (l.effectiveSwizzle()
             ? ", " + std::to_string(16 << l.effectiveSwizzle()->swizzleLen) +
                   "B swizzle"
             : ", row-major");
  }
  if (!isInferred(op.getC())) {
    if (operands.layouts.empty())
      return {};
    operands.reason = why;
    return {std::move(operands)};
  }
  if (spaceOf(op.getC()) != MemorySpace::Reg)
    return {};
  auto unit = ExecutionScope(static_cast<int>(scope));
  int64_t warps =
      target.threadsPerInstance(unit, threadsOf(raw)) / target.warpSize;
  std::string warpAxis;
  if (scope != ScopeKind::Warp) {
    const TargetAxis *axis = target.axisNumbering(ExecutionScope::Warp, unit);
    if (!axis)
      return {};
    warpAxis = axis->name.str();
  }
  if (warps < 1 || problem->m % atom->m || problem->n % atom->n)
    return {};
  SmallVector<LayoutProposal> out;
  SmallVector<WarpGrid> grids =
      warpGrids(warps, problem->m / atom->m, problem->n / atom->n, *atom);
  for (const WarpGrid &g : llvm::ArrayRef(grids).take_front(3)) {
    auto c = accumulatorOverWarps(*atom, g, warpAxis);
    if (!c)
      continue;
    LayoutProposal p = operands;
    proposeOperand(p, 2, op.getC(), Layout(*c));
    p.cost = double(g.traffic) / double(grids.front().traffic) - 1;
    p.reason = why + "; C over " + std::to_string(g.rows) + "x" +
               std::to_string(g.cols) + " warps of " +
               std::to_string(g.tileRows) + "x" + std::to_string(g.tileCols) +
               " fragments";
    out.push_back(std::move(p));
  }
  return out;
}

} // namespace

void addMmaSchedules(ScheduleRegistry &registry) {
  (void)registry.add(
      {"mma.sync", "axe.gemm",
       targetKind(TargetKind::GPU) && hasFeature("mma.sync"), 20,
       "warp-level tensor-core tiles: C's layout tiles the atom's C "
       "fragment per warp; A and B fragments by ldmatrix where their rows "
       "are 16 aligned bytes, else element loads",
       matchMma, rewriteMma, proposeMma});
}

} // namespace axe::nvvm
