//===- NVVMWgmma.cpp - axe.gemm on wgmma.mma_async ------------------------===//
//
// A warpgroup GEMM with A and B in shared memory, read through matrix
// descriptors, and C in registers. C's part per warpgroup must be whole
// 64 x n tiles, each held exactly as the target's wgmma atom places its D
// fragment over tid_in_wg (checked element by element). A and B must be
// tiles of one shared-memory atom (SharedAtoms.h), K-major (A M x K, B N x K
// with transpose_b) or, for 16-bit inputs, MN-major (A K x M with
// transpose_a, B K x N: the instruction's .trans-a / .trans-b, so that V of
// attention or a row-major B is read where it lies): the descriptor's
// swizzle mode and its stride and leading byte offsets are read off the
// atoms' placement that tile-of finds. Each
// K step of 16 is one wgmma per C tile, its descriptors' start addresses
// moved to the step's first element (the hardware swizzles addresses, so
// a step inside a swizzled line starts mid-line); 8-bit floats (e4m3, e5m2)
// step by 32, the same 32 bytes of a row. The whole chain is fenced,
// committed and waited for before C is written back.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"
#include "SharedAtoms.h"

#include "axe/Dialect/Axe/IR/OperatorShapes.h"
#include "axe/Layout/Algebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <map>
#include <set>

using namespace mlir;

namespace axe::nvvm {
namespace {

/// K steps a gemm unrolls at most (K = 1024 for 16-bit inputs, 2048 for
/// 8-bit ones).
constexpr int64_t kMaxSteps = 64;
constexpr int64_t kThreadsPerWarpgroup = 128;

struct WgmmaPlan {
  const InstructionAtom *atom = nullptr;
  GemmProblem problem;
  Fragment d;
  SharedOperandPlan a, b;
  /// C's axes that number warpgroups.
  SmallVector<std::string, 4> groupAxes;
  /// Tile origins relative to the warpgroup's base of C.
  SmallVector<std::array<int64_t, 2>> tiles;
};

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// The widest wgmma of the target for `in` x `in` -> `acc` reading its
/// operands from shared memory whose N divides `cols` and is a multiple of
/// `nLine` (the elements per line of an MN-major B's atoms, else 1), or
/// null.
const InstructionAtom *widestWgmma(const TargetDescription &target,
                                   StringRef in, StringRef acc, int64_t cols,
                                   int64_t nLine) {
  const InstructionAtom *widest = nullptr;
  for (const InstructionAtom *atom : target.findAtoms(AtomKind::Wgmma))
    if (atom->elementType == in && atom->accumulatorType == acc &&
        cols % atom->n == 0 && atom->n % nLine == 0 &&
        atom->operands[0].memorySpaces[0] == "shared" &&
        (!widest || atom->n > widest->n))
      widest = atom;
  return widest;
}

bool isWithinWarpgroup(const TargetDescription &target, StringRef axis) {
  std::optional<AxisStep> step = target.stepOfAxis(axis);
  return step && step->threadsPerStep * step->wrap <= kThreadsPerWarpgroup;
}

Result<WgmmaPlan> planWgmma(const TargetDescription &target, int64_t threads,
                            GemmOp op) {
  auto ta = typeOf(op.getA()), tb = typeOf(op.getB()), tc = typeOf(op.getC());
  auto problem = gemmProblem(ta.getShape(), op.getTransposeA(), tb.getShape(),
                             op.getTransposeB(), tc.getShape());
  if (!problem)
    return problem.takeFailure();
  if (spaceOf(op.getA()) != MemorySpace::Shared ||
      spaceOf(op.getB()) != MemorySpace::Shared)
    return fail("wgmma reads A and B from shared memory here; A in "
                "registers is not implemented");
  if (spaceOf(op.getC()) != MemorySpace::Reg)
    return fail("wgmma accumulates in registers; C is in memory");
  // The PTX ISA has no transposed (MN-major) form but for 16-bit inputs.
  if ((op.getTransposeA() || !op.getTransposeB()) &&
      ta.getElementType().getIntOrFloatBitWidth() != 16)
    return fail("wgmma reads " +
                std::to_string(ta.getElementType().getIntOrFloatBitWidth()) +
                "-bit A and B K-major only (A M x K, B N x K with "
                "transpose_b): the instruction transposes 16-bit operands "
                "only");
  if (ta.getElementType() != tb.getElementType())
    return fail("A and B have different element types");
  std::string in = typeName(ta.getElementType());
  std::string acc = typeName(tc.getElementType());
  if (acc != "f32")
    return fail("wgmma here accumulates in f32, not " + acc);
  WgmmaPlan plan;
  plan.problem = *problem;
  for (const std::string &axis : threadAxesOf(target, tc.getLayout()))
    if (!isWithinWarpgroup(target, axis)) {
      std::optional<AxisStep> step = target.stepOfAxis(axis);
      if (!step || step->threadsPerStep % kThreadsPerWarpgroup != 0)
        return fail("the accumulator is placed on '" + axis +
                    "', which mixes threads of different warpgroups; "
                    "wgmma needs it on tid_in_wg (or wid_in_wg and laneid) "
                    "and warpgroup axes");
      plan.groupAxes.push_back(axis);
    }
  // Each warpgroup's part of C: offsets from its base, and the thread of
  // the warpgroup holding each.
  auto view = InstanceView::get(tc.getLayout(), tc.getShape(), plan.groupAxes);
  if (!view)
    return view.takeFailure();
  SmallVector<HoldingGroup> groups = groupsHolding(
      target, *view, plan.groupAxes, kThreadsPerWarpgroup, threads);
  if (groups.empty())
    return fail("no warpgroup holds part of the accumulator");
  const Coord *group0 = &groups.front().instance;
  Shape base = groups.front().base;
  std::map<std::array<int64_t, 2>, int64_t> threadOf;
  for (const HeldElement &e : view->elementsOf(*group0)) {
    if (e.storage.size() != 1)
      return fail("the accumulator has replicas");
    int64_t t = 0;
    for (const auto &[axis, v] : e.storage.front().entries())
      if (axis != kDefaultAxis)
        t += v * target.stepOfAxis(axis)->threadsPerStep;
    threadOf[{e.logical[0] - base[0], e.logical[1] - base[1]}] =
        t % kThreadsPerWarpgroup;
  }
  int64_t cols = 0, rows = 0;
  for (const auto &[off, t] : threadOf) {
    rows = std::max(rows, off[0] + 1);
    cols = std::max(cols, off[1] + 1);
  }
  // The operands' plans; their failures are reported after the
  // accumulator's.
  auto a = planSharedOperand(ta, "A", "wgmma", DescriptorFormat::Sm90,
                             op.getTransposeA());
  auto b = planSharedOperand(tb, "B", "wgmma", DescriptorFormat::Sm90,
                             !op.getTransposeB());
  // An MN-major operand is read in whole lines of its atoms (a start inside
  // a line, which K steps of K-major operands use, is not defined for the
  // rows of MN-major ones): each instruction's N must be whole lines of an
  // MN-major B (its tiles then start at lines too). A's M, 64, is whole
  // lines of any 16-bit atom.
  int64_t nLine = b && b->mnMajor ? b->tiling.atomCols : 1;
  plan.atom = widestWgmma(target, in, acc, cols, nLine);
  if (!plan.atom)
    return fail(target.name.str() + " has no wgmma for " + in + " x " + in +
                " -> " + acc + " whose N divides the warpgroup's " +
                std::to_string(cols) + " columns" +
                (nLine > 1 ? " and is whole " + swizzleName(b->tiling.mode) +
                                 " lines of " + std::to_string(nLine) +
                                 " elements of the MN-major B"
                           : std::string()));
  const InstructionAtom &atom = *plan.atom;
  if (problem->k % atom.k != 0 || problem->k / atom.k > kMaxSteps)
    return fail("K = " + std::to_string(problem->k) + "; wgmma of " + in +
                " steps K by " + std::to_string(atom.k) + ", up to " +
                std::to_string(atom.k * kMaxSteps) + " here");
  auto d = fragmentOf(atom, "D", "tid_in_wg");
  if (!d)
    return d.takeFailure();
  plan.d = std::move(*d);
  std::set<std::array<int64_t, 2>> origins;
  for (const auto &[off, t] : threadOf)
    origins.insert({off[0] - off[0] % atom.m, off[1] - off[1] % atom.n});
  if (int64_t(origins.size() * atom.m * atom.n) != int64_t(threadOf.size()))
    return fail("a warpgroup's part of the accumulator is not whole " +
                std::to_string(atom.m) + "x" + std::to_string(atom.n) +
                " tiles");
  // Where the atom puts each (thread, slot), once.
  std::map<std::array<int64_t, 2>, int64_t> atomThread;
  for (int64_t t = 0; t < kThreadsPerWarpgroup; ++t)
    for (int64_t slot = 0; slot < plan.d.size(); ++slot) {
      std::optional<Shape> p = positionOf(plan.d, t, slot);
      if (!p)
        return fail(atom.name + "'s D fragment leaves thread " +
                    std::to_string(t) + " without slot " +
                    std::to_string(slot));
      atomThread[{(*p)[0], (*p)[1]}] = t;
    }
  for (const auto &o : origins) {
    for (const auto &[pos, t] : atomThread) {
      auto it = threadOf.find({o[0] + pos[0], o[1] + pos[1]});
      if (it == threadOf.end() || it->second != t)
        return fail(
            "the accumulator's " + std::to_string(atom.m) + "x" +
            std::to_string(atom.n) + " tile at (" + std::to_string(o[0]) +
            ", " + std::to_string(o[1]) + ") of a warpgroup is not " +
            atom.name + "'s D fragment: the atom puts its element (" +
            std::to_string(pos[0]) + ", " + std::to_string(pos[1]) +
            ") on thread " + std::to_string(t) + " of the warpgroup, the " +
            "layout on " +
            (it == threadOf.end() ? std::string("no thread of it")
                                  : "thread " + std::to_string(it->second)));
    }
    plan.tiles.push_back(o);
  }
  if (!a)
    return a.takeFailure();
  if (!b)
    return b.takeFailure();
  plan.a = std::move(*a);
  plan.b = std::move(*b);
  return plan;
}

ScheduleMatch matchWgmma(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<GemmOp>(raw);
  if (scopeOf(raw) != ScopeKind::Warpgroup)
    return ScheduleMatch::decline(
        "wgmma is a warpgroup's instruction; the scope is " +
        stringifyScopeKind(scopeOf(raw)).str());
  auto plan = planWgmma(*ctx.target, threadsOf(raw), op);
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

NVVM::WGMMATypes wgmmaType(Type t) {
  if (t.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (t.isF16())
    return NVVM::WGMMATypes::f16;
  if (isa<Float8E4M3FNType>(t))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(t))
    return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::f32;
}

LogicalResult rewriteWgmma(Operation *raw, const ScheduleContext &ctx,
                           const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<GemmOp>(raw);
  const auto &plan = *std::any_cast<WgmmaPlan>(&anyPlan);
  Location loc = op.getLoc();
  MLIRContext *mctx = rw.getContext();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getA(), op.getB(), op.getC()});
  if (failed(ops))
    return failure();
  const GPUOperand &a = (*ops)[0], &bm = (*ops)[1], &c = (*ops)[2];
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  const InstructionAtom &atom = *plan.atom;

  // The warpgroup's base in C and this thread's base in the atom.
  SmallVector<Value, 2> groupBase =
      emitInstanceBase(rw, loc, cg, c, plan.groupAxes);
  auto dEmitter =
      InstanceEmitter::get(plan.d.layout, plan.d.shape, {"tid_in_wg"});
  CoordValue me;
  me.set("tid_in_wg", cg.axisValue(rw, loc, "tid_in_wg"));
  InstanceBase mine = dEmitter->emitBase(rw, loc, me);
  auto cIndex = [&](const std::array<int64_t, 2> &t, int64_t j) {
    SmallVector<Value, 2> x;
    for (int d = 0; d < 2; ++d)
      x.push_back(
          addIndex(rw, loc, addIndex(rw, loc, groupBase[d], mine.logical[d]),
                   indexConstant(rw, loc, t[d] + plan.d.offsets[j][d])));
    return x;
  };

  Type acc = c.elementType();
  auto structType = LLVM::LLVMStructType::getLiteral(
      mctx, SmallVector<Type>(plan.d.size(), acc));
  // zero_init: the first step ignores D (scale-d = 0), so C is not read.
  bool zeroInit = op.getZeroInit();
  SmallVector<Value> accs;
  for (const auto &t : plan.tiles) {
    Value s = LLVM::PoisonOp::create(rw, loc, structType);
    for (int64_t j = 0; !zeroInit && j < plan.d.size(); ++j)
      s = LLVM::InsertValueOp::create(rw, loc, s, c.read(rw, loc, cIndex(t, j)),
                                      ArrayRef<int64_t>{plan.d.slots[j]});
    accs.push_back(s);
  }
  // Shared data written by ordinary stores must reach the async proxy
  // wgmma reads through.
  NVVM::FenceProxyOp::create(
      rw, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(mctx, NVVM::SharedSpace::shared_cta));
  NVVM::WgmmaFenceAlignedOp::create(rw, loc, TypeRange());
  auto shape = NVVM::MMAShapeAttr::get(mctx, atom.m, atom.n, atom.k);
  NVVM::WGMMATypes in = wgmmaType(a.elementType());
  for (int64_t k0 = 0; k0 < plan.problem.k; k0 += atom.k) {
    Value k = indexConstant(rw, loc, k0);
    std::map<int64_t, Value> descA, descB;
    for (auto [i, t] : llvm::enumerate(plan.tiles)) {
      Value &da = descA[t[0]];
      if (!da)
        da = emitMatrixDescriptor(
            rw, loc, a, plan.a,
            addIndex(rw, loc, groupBase[0], indexConstant(rw, loc, t[0])), k);
      Value &db = descB[t[1]];
      if (!db)
        db = emitMatrixDescriptor(
            rw, loc, bm, plan.b,
            addIndex(rw, loc, groupBase[1], indexConstant(rw, loc, t[1])), k);
      accs[i] = NVVM::WgmmaMmaAsyncOp::create(
          rw, loc, structType, accs[i], da, db, shape, in, in,
          NVVM::WGMMATypes::f32,
          zeroInit && k0 == 0 ? NVVM::WGMMAScaleOut::zero
                              : NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          plan.a.mnMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          plan.b.mnMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col,
          NVVM::MMAIntOverflowAttr());
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(rw, loc, TypeRange());
  NVVM::WgmmaWaitGroupSyncOp::create(rw, loc, uint64_t(0));
  for (auto [i, t] : llvm::enumerate(plan.tiles))
    for (int64_t j = 0; j < plan.d.size(); ++j)
      c.write(rw, loc, cIndex(t, j),
              LLVM::ExtractValueOp::create(rw, loc, accs[i],
                                           ArrayRef<int64_t>{plan.d.slots[j]}));
  rw.eraseOp(op);
  return success();
}

/// Shared A and B by the swizzle rule (rows of 128 bytes: the 128B atom the
/// descriptors read, K-major or, for a transposed A or a K x N B, MN-major),
/// and C as the widest wgmma D fragment that divides N, its 64 x n tiles
/// row-major in the warpgroup's registers.
SmallVector<LayoutProposal> proposeWgmma(Operation *raw,
                                         const ScheduleContext &ctx) {
  auto op = cast<GemmOp>(raw);
  if (!op->getParentOfType<KernelOp>() || scopeOf(raw) != ScopeKind::Warpgroup)
    return {};
  BufferType ta = typeOf(op.getA()), tb = typeOf(op.getB()),
             tc = typeOf(op.getC());
  auto problem = gemmProblem(ta.getShape(), op.getTransposeA(), tb.getShape(),
                             op.getTransposeB(), tc.getShape());
  if (!problem || ta.getElementType() != tb.getElementType() ||
      !tc.getElementType().isF32() || problem->m % 64 != 0)
    return {};
  bool mnMajor[2] = {op.getTransposeA(), !op.getTransposeB()};
  // The PTX ISA transposes 16-bit operands only.
  if ((mnMajor[0] || mnMajor[1]) &&
      ta.getElementType().getIntOrFloatBitWidth() != 16)
    return {};
  LayoutProposal p;
  p.reason = "wgmma";
  Value inputs[] = {op.getA(), op.getB()};
  // Elements per line of an MN-major B's atoms (its given or proposed
  // layout's): the instructions' N must be whole lines (planWgmma).
  int64_t nLine = 1;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    BufferType t = typeOf(v);
    unsigned bits = t.getElementType().getIntOrFloatBitWidth();
    bool inferred = isInferred(v);
    if (inferred && spaceOf(v) != MemorySpace::Shared)
      return {};
    Layout l = inferred ? sharedTileLayout(t.getShape(), bits) : t.getLayout();
    if (i == 1 && mnMajor[1])
      if (auto tiling = tileOfSharedAtom(l, t.getShape(), bits))
        nLine = tiling->atomCols;
    if (!inferred)
      continue;
    proposeOperand(p, i, v, l);
    p.reason += std::string(i ? "; B" : "; A") +
                (mnMajor[i] ? " MN-major, " : " K-major, ") +
                (l.effectiveSwizzle()
                     ? std::to_string(16 << l.effectiveSwizzle()->swizzleLen) +
                           "B swizzle atoms"
                     : std::string("row-major"));
  }
  if (isInferred(op.getC())) {
    if (spaceOf(op.getC()) != MemorySpace::Reg)
      return {};
    std::string in = typeName(ta.getElementType());
    const InstructionAtom *atom =
        widestWgmma(*ctx.target, in, "f32", problem->n, nLine);
    if (!atom)
      return {};
    auto d = wgmmaAccumulator(atom->n, MmaType::F32);
    int64_t rows = problem->m / 64, cols = problem->n / atom->n;
    auto grid = TileLayout::create({Iter{rows, cols}, Iter{cols, 1}});
    if (!d || !grid)
      return {};
    auto c = tile(*d, {64, atom->n}, *grid, {rows, cols});
    if (!c)
      return {};
    proposeOperand(p, 2, op.getC(), Layout(*c));
    p.reason += "; C " + std::to_string(rows * cols) + " " + atom->name +
                " D fragment(s)";
  }
  if (p.layouts.empty())
    return {};
  return {std::move(p)};
}

} // namespace

void addWgmmaSchedules(ScheduleRegistry &registry) {
  (void)registry.add(
      {"wgmma", "axe.gemm", targetKind(TargetKind::GPU) && hasFeature("wgmma"),
       30,
       "warpgroup tensor-core tiles from shared-memory descriptors: C's "
       "layout tiles the atom's D fragment per warpgroup; A and B K-major "
       "tiles of one shared atom (swizzled or core matrices)",
       matchWgmma, rewriteWgmma, proposeWgmma, /*zeroInit=*/true});
}

} // namespace axe::nvvm
