//===- NVVMMatrixMoves.cpp - axe.copy by ldmatrix / stmatrix --------------===//
//
// A copy between shared memory and registers of 16-bit elements as 8x8
// matrix moves, when the register layout tiles the ldmatrix / stmatrix
// fragment in every warp: each 32-bit register of a lane (a pair of
// adjacent register slots) holds, over the warp's 32 lanes, exactly one
// 8x8 matrix as the target's atom places it (lane t: row t/4, columns
// 2(t mod 4) + {0, 1}; transposed: rows 2(t mod 4) + {0, 1}, column t/4),
// and the matrix's rows are 16 aligned, contiguous bytes of the shared
// operand. Four such registers make one .x4 instruction (fewer make .x2 or
// .x1); lane t gives the address of row t mod 8 of matrix t / 8.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"

#include "axe/Layout/InstanceView.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;

namespace axe::nvvm {
namespace {

/// Matrices one instruction moves at most per warp in a copy.
constexpr int64_t kMaxMatrices = 64;

/// One 8x8 matrix of a warp's part: its origin relative to the warp's base
/// and the register (slot pair) it occupies.
struct Matrix {
  std::array<int64_t, 2> origin;
  int64_t reg;
};

struct MovePlan {
  bool transposed = false;
  SmallVector<std::string, 4> warpAxes;
  /// By register: matrices of registers 4i..4i+3 go in one .x4.
  SmallVector<Matrix> matrices;
  int64_t group = 4;
};

/// The logical offset (in a matrix) of half `h` of lane `t`'s register.
std::array<int64_t, 2> lanePosition(bool transposed, int64_t t, int64_t h) {
  if (transposed)
    return {2 * (t % 4) + h, t / 4};
  return {t / 4, 2 * (t % 4) + h};
}

/// Whether every row of the 8x8 matrix at `origin` (logical rows of the
/// shared operand) is 8 consecutive elements at a 16-byte aligned place.
bool rowsAreContiguous(BufferType type, const std::array<int64_t, 2> &origin) {
  const Layout &l = type.getLayout();
  for (int64_t r = 0; r < 8; ++r) {
    int64_t first = 0;
    for (int64_t c = 0; c < 8; ++c) {
      auto p = l.apply({origin[0] + r, origin[1] + c}, type.getShape());
      if (!p || p->size() != 1)
        return false;
      int64_t m = p->front().get(kDefaultAxis);
      if (c == 0)
        first = m;
      if (m != first + c || first % 8 != 0)
        return false;
    }
  }
  return true;
}

Result<MovePlan> planMoves(const TargetDescription &target, int64_t threads,
                           BufferType reg, BufferType shared, bool load) {
  if (reg.getRank() != 2)
    return fail("ldmatrix/stmatrix move 2-D tiles");
  if (reg.getElementType().getIntOrFloatBitWidth() != 16)
    return fail("ldmatrix/stmatrix move 16-bit elements");
  if (!target.hasFeature(load ? "ldmatrix" : "stmatrix"))
    return fail(target.name.str() + " has no " +
                (load ? "ldmatrix" : "stmatrix"));
  MovePlan plan;
  for (const std::string &axis : threadAxesOf(target, reg.getLayout())) {
    if (axis == "laneid")
      continue;
    std::optional<AxisStep> step = target.stepOfAxis(axis);
    if (!step || step->threadsPerStep % target.warpSize != 0)
      return fail("the register operand is placed on '" + axis +
                  "', which numbers threads inside a warp; the matrix "
                  "fragments are over laneid");
    plan.warpAxes.push_back(axis);
  }
  auto view = InstanceView::get(reg.getLayout(), reg.getShape(), plan.warpAxes);
  if (!view)
    return view.takeFailure();
  SmallVector<HoldingGroup> warps =
      groupsHolding(target, *view, plan.warpAxes, target.warpSize, threads);
  if (warps.empty())
    return fail("no warp holds part of the register operand");
  const Coord *warp0 = &warps.front().instance;
  SmallVector<Shape> bases;
  for (const HoldingGroup &w : warps)
    bases.push_back(w.base);
  Shape base = bases.front();
  // (lane, slot) -> logical offset from the warp's base.
  std::map<std::pair<int64_t, int64_t>, std::array<int64_t, 2>> at;
  int64_t slots = 0;
  for (const HeldElement &e : view->elementsOf(*warp0)) {
    if (e.storage.size() != 1)
      return fail("the register operand has replicas");
    int64_t lane = e.storage.front().get("laneid");
    int64_t m = e.storage.front().get(kDefaultAxis);
    at[{lane, m}] = {e.logical[0] - base[0], e.logical[1] - base[1]};
    slots = std::max(slots, m + 1);
  }
  if (slots % 2 != 0 || int64_t(at.size()) != kWarpSize * slots)
    return fail("each lane must hold the same even number of elements, as "
                "pairs in 32-bit registers");
  for (bool transposed : {false, true}) {
    SmallVector<Matrix> matrices;
    bool fits = true;
    for (int64_t q = 0; fits && q < slots / 2; ++q) {
      auto first = at.find({0, 2 * q});
      std::array<int64_t, 2> origin = first->second;
      std::array<int64_t, 2> p0 = lanePosition(transposed, 0, 0);
      origin = {origin[0] - p0[0], origin[1] - p0[1]};
      for (int64_t t = 0; fits && t < kWarpSize; ++t)
        for (int64_t h = 0; fits && h < 2; ++h) {
          auto it = at.find({t, 2 * q + h});
          std::array<int64_t, 2> p = lanePosition(transposed, t, h);
          fits = it != at.end() && it->second[0] == origin[0] + p[0] &&
                 it->second[1] == origin[1] + p[1];
        }
      fits = fits && origin[0] >= 0 && origin[1] >= 0;
      for (const Shape &b : bases)
        fits = fits &&
               rowsAreContiguous(shared, {b[0] + origin[0], b[1] + origin[1]});
      matrices.push_back({origin, q});
    }
    if (!fits)
      continue;
    if (int64_t(matrices.size()) > kMaxMatrices)
      return fail("more than " + std::to_string(kMaxMatrices) +
                  " matrices per warp");
    plan.transposed = transposed;
    plan.matrices = std::move(matrices);
    plan.group = plan.matrices.size() % 4 == 0   ? 4
                 : plan.matrices.size() % 2 == 0 ? 2
                                                 : 1;
    return plan;
  }
  return fail("the register layout does not tile the 8x8 matrix fragment "
              "(lane t: row t/4, columns 2(t mod 4) + {0, 1}, or its "
              "transpose) in 32-bit registers whose rows are 16 aligned "
              "bytes of the shared operand");
}

template <bool Load>
ScheduleMatch matchMoves(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<CopyOp>(raw);
  Value reg = Load ? op.getTarget() : op.getSource();
  Value shared = Load ? op.getSource() : op.getTarget();
  if (spaceOf(reg) != MemorySpace::Reg ||
      spaceOf(shared) != MemorySpace::Shared)
    return ScheduleMatch::decline(
        Load ? "ldmatrix loads shared memory into registers"
             : "stmatrix stores registers into shared memory");
  if (scopeOf(raw) < ScopeKind::Warp)
    return ScheduleMatch::decline("matrix moves are warp instructions");
  if (typeOf(reg).getShape() != typeOf(shared).getShape() ||
      typeOf(reg).getElementType() != typeOf(shared).getElementType())
    return ScheduleMatch::decline("the operands' shapes or element types "
                                  "differ");
  auto chain = walkBufferChain(shared);
  for (SliceOp slice : chain->slices)
    for (const SliceStart &start : slice.getKnownStarts())
      if (!start.known)
        return ScheduleMatch::decline(
            "the shared operand starts at a run-time offset; the matrix "
            "rows' 16-byte alignment must be known");
  if (auto ok = checkStaticHolders(*ctx.target, reg); !ok)
    return ScheduleMatch::decline(ok.message());
  if (ScheduleMatch v = matchView(ctx, reg); !v.accepted())
    return v;
  auto plan =
      planMoves(*ctx.target, threadsOf(raw), typeOf(reg), typeOf(shared), Load);
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

/// Select among constants by a lane-derived index in [0, n).
Value selectConstant(OpBuilder &b, Location loc, Value index,
                     ArrayRef<int64_t> values) {
  Value v = indexConstant(b, loc, values.back());
  for (int64_t i = int64_t(values.size()) - 2; i >= 0; --i) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                                     indexConstant(b, loc, i));
    v = arith::SelectOp::create(b, loc, is, indexConstant(b, loc, values[i]),
                                v);
  }
  return v;
}

/// Moves the insertion point into a branch that only the warps storing
/// `reg` into shared memory take: one holder per element (replica digits on
/// the warp axes 0, as emitOneWriter picks). A warp holding a lower warp's
/// elements, or none, would stmatrix to the same bytes: a race even where
/// the values agree. The branch is uniform over the warp, as the aligned
/// stmatrix requires, since planMoves admits no replicas on laneid.
void enterStoringWarps(RewriterBase &rw, Location loc,
                       const ThreadTargetCodegen &cg, const GPUOperand &reg,
                       ScopeKind scope) {
  Value writer =
      emitOneWriter(rw, loc, cg, reg, emitHeldView(rw, loc, cg, reg), scope);
  if (!writer || matchPattern(writer, m_One()))
    return;
  auto ifOp = scf::IfOp::create(rw, loc, writer, /*withElseRegion=*/false);
  rw.setInsertionPointToStart(&ifOp.getThenRegion().front());
}

template <bool Load>
LogicalResult rewriteMoves(Operation *raw, const ScheduleContext &ctx,
                           const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<CopyOp>(raw);
  const auto &plan = *std::any_cast<MovePlan>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  Value regValue = Load ? op.getTarget() : op.getSource();
  Value sharedValue = Load ? op.getSource() : op.getTarget();
  auto ops = operandsOf(raw, ctx, rw, {regValue, sharedValue});
  if (failed(ops))
    return failure();
  const GPUOperand &reg = (*ops)[0], &shared = (*ops)[1];
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  if constexpr (!Load)
    enterStoringWarps(rw, loc, cg, reg, scopeOf(raw));
  Value lane = cg.axisValue(rw, loc, "laneid");
  SmallVector<Value, 2> warpBase =
      emitInstanceBase(rw, loc, cg, reg, plan.warpAxes);
  Type elt = reg.elementType();
  MLIRContext *mctx = rw.getContext();
  auto laneIndex = [&](int64_t div, int64_t mod) {
    Value v =
        arith::DivUIOp::create(rw, loc, lane, indexConstant(rw, loc, div));
    return arith::RemUIOp::create(rw, loc, v, indexConstant(rw, loc, mod))
        .getResult();
  };
  // Lane t's element of half h in a matrix at `origin`.
  auto elementIndex = [&](const Matrix &mx, int64_t h) {
    Value quad = laneIndex(4, 8), pair = laneIndex(1, 4);
    Value twoPair = addIndex(rw, loc, mulIndex(rw, loc, pair, 2),
                             indexConstant(rw, loc, h));
    Value r = plan.transposed ? twoPair : quad;
    Value c = plan.transposed ? quad : twoPair;
    return SmallVector<Value, 2>{
        addIndex(rw, loc, warpBase[0],
                 addIndex(rw, loc, indexConstant(rw, loc, mx.origin[0]), r)),
        addIndex(rw, loc, warpBase[1],
                 addIndex(rw, loc, indexConstant(rw, loc, mx.origin[1]), c))};
  };
  for (size_t g = 0; g < plan.matrices.size(); g += plan.group) {
    ArrayRef<Matrix> group(plan.matrices.data() + g, plan.group);
    // Lane t addresses row t mod 8 of matrix (t / 8) mod group.
    SmallVector<int64_t, 4> rows, cols;
    for (const Matrix &mx : group) {
      rows.push_back(mx.origin[0]);
      cols.push_back(mx.origin[1]);
    }
    Value which = laneIndex(8, plan.group);
    SmallVector<Value, 2> index{
        addIndex(rw, loc, warpBase[0],
                 addIndex(rw, loc, selectConstant(rw, loc, which, rows),
                          laneIndex(1, 8))),
        addIndex(rw, loc, warpBase[1], selectConstant(rw, loc, which, cols))};
    CoordValue p =
        shared.emitter->emitUnswizzled(rw, loc, index, &shared.ref.offset);
    shared.emitter->applySwizzle(rw, loc, p);
    Value address = shared.address(rw, loc, p);
    if constexpr (Load) {
      auto type = VectorType::get({plan.group, 2}, elt);
      Value v = nvgpu::LdMatrixOp::create(rw, loc, type, shared.memory,
                                          ValueRange{address}, plan.transposed,
                                          uint32_t(plan.group));
      for (auto [i, mx] : llvm::enumerate(group))
        for (int64_t h = 0; h < 2; ++h)
          reg.write(rw, loc, elementIndex(mx, h),
                    vector::ExtractOp::create(
                        rw, loc, v, ArrayRef<int64_t>{int64_t(i), h}));
    } else {
      SmallVector<Value, 4> sources;
      for (const Matrix &mx : group) {
        Value pair = arith::ConstantOp::create(
            rw, loc, rw.getZeroAttr(VectorType::get({2}, elt)));
        for (int64_t h = 0; h < 2; ++h)
          pair = vector::InsertOp::create(
              rw, loc, reg.read(rw, loc, elementIndex(mx, h)), pair,
              ArrayRef<int64_t>{h});
        sources.push_back(
            vector::BitCastOp::create(
                rw, loc, VectorType::get({1}, rw.getI32Type()), pair)
                .getResult());
        sources.back() = vector::ExtractOp::create(rw, loc, sources.back(),
                                                   ArrayRef<int64_t>{0});
      }
      // stmatrix takes a raw shared pointer.
      Value bytes = byteAddress(rw, loc, shared, address);
      Value ptr = LLVM::IntToPtrOp::create(
          rw, loc, LLVM::LLVMPointerType::get(mctx, 3),
          arith::IndexCastOp::create(rw, loc, rw.getI32Type(), bytes)
              .getResult());
      NVVM::StMatrixOp::create(rw, loc, ptr, sources,
                               plan.transposed ? NVVM::MMALayout::col
                                               : NVVM::MMALayout::row,
                               NVVM::LdStMatrixShapeAttr::get(mctx, 8, 8),
                               NVVM::LdStMatrixEltType::B16);
    }
  }
  rw.eraseOp(op);
  return success();
}

/// A `?` shared side against a known register fragment: the matrices' rows
/// are 16 aligned bytes of rows of the tile, which the swizzle rule keeps
/// (and spreads over the banks).
template <bool Load>
SmallVector<LayoutProposal> proposeMoves(Operation *raw,
                                         const ScheduleContext &ctx) {
  auto op = cast<CopyOp>(raw);
  Value reg = Load ? op.getTarget() : op.getSource();
  Value shared = Load ? op.getSource() : op.getTarget();
  if (!ctx.target->hasFeature(Load ? "ldmatrix" : "stmatrix") ||
      spaceOf(reg) != MemorySpace::Reg ||
      spaceOf(shared) != MemorySpace::Shared || isInferred(reg) ||
      !isInferred(shared))
    return {};
  BufferType t = typeOf(shared);
  if (t.getRank() != 2 || t.getElementType().getIntOrFloatBitWidth() != 16 ||
      t.getShape()[1] % 8 != 0)
    return {};
  SmallVector<LayoutProposal> out(1);
  proposeOperand(out[0], Load ? 0 : 1, shared,
                 sharedTileLayout(t.getShape(), 16));
  out[0].reason = std::string(Load ? "ldmatrix" : "stmatrix") +
                  ": 16-byte matrix rows, swizzled by the row rule";
  return out;
}

} // namespace

void addMatrixMoveSchedules(ScheduleRegistry &registry) {
  (void)registry.add(
      {"ldmatrix", "axe.copy",
       targetKind(TargetKind::GPU) && hasFeature("ldmatrix"), 15,
       "shared -> registers of 16-bit elements by ldmatrix.x4/x2/x1 (.trans) "
       "where every 32-bit register pair of the warp is an 8x8 matrix of the "
       "fragment and its rows 16 aligned bytes",
       matchMoves<true>, rewriteMoves<true>, proposeMoves<true>});
  (void)registry.add(
      {"stmatrix", "axe.copy",
       targetKind(TargetKind::GPU) && hasFeature("stmatrix"), 15,
       "registers -> shared of 16-bit elements by stmatrix.x4/x2/x1 (.trans) "
       "under the same conditions as ldmatrix",
       matchMoves<false>, rewriteMoves<false>, proposeMoves<false>});
}

} // namespace axe::nvvm
