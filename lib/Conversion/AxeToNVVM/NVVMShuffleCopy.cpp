//===- NVVMShuffleCopy.cpp - register exchange within warps by shfl -------===//
//
// A register -> register copy whose elements move between lanes of the
// same warp: each destination register of a lane is fetched with
// shfl.sync.idx from the lane that holds the element. The tables of which
// lane (and which of its registers) each lane reads come from enumerating
// both layouts over the CTA's threads; they must be the same in every warp,
// since every warp runs the same code. Where the lanes of one destination
// register read different source registers, there is one shuffle per source
// register and a select per lane.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"

#include "axe/Layout/InstanceView.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

#include <set>

using namespace mlir;

namespace axe::nvvm {
namespace {

/// Destination registers per thread the schedule unrolls at most.
constexpr int64_t kMaxRegisters = 64;

/// One entry per lane of a warp.
using LaneTable = std::array<int32_t, kWarpSize>;
/// Bits of a lane number.
constexpr int kLaneBits = llvm::ConstantLog2<kWarpSize>();

struct ShufflePlan {
  SmallVector<std::string, 4> dstAxes;
  /// Per destination local element j, per lane: the source lane and the
  /// source register (m less the source's lo).
  SmallVector<LaneTable> srcLane, srcReg;
};

Coord threadCoord(const TargetDescription &target, ArrayRef<std::string> axes,
                  int64_t tid) {
  Coord c;
  for (const std::string &a : axes)
    c.set(a, threadAxisValue(target, a, tid));
  return c;
}

/// Whether thread `tid` sits at `placement`'s coordinates on the thread axes.
bool threadAt(const TargetDescription &target, const Coord &placement,
              int64_t tid) {
  for (const auto &[axis, v] : placement.entries()) {
    const TargetAxis *a = target.findAxis(axis);
    if (a && a->isThreadAxis() && threadAxisValue(target, axis, tid) != v)
      return false;
  }
  return true;
}

Result<ShufflePlan> planShuffle(const TargetDescription &target,
                                int64_t threads, BufferType src,
                                BufferType dst) {
  if (src.getShape() != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return fail("shuffles move elements as they are; the operands' shapes "
                "or element types differ");
  if (dst.getElementType().getIntOrFloatBitWidth() != 32)
    return fail("shuffles move 32-bit registers; " +
                std::to_string(dst.getElementType().getIntOrFloatBitWidth()) +
                "-bit elements are not implemented");
  ShufflePlan plan;
  plan.dstAxes = threadAxesOf(target, dst.getLayout());
  auto dview = InstanceView::get(dst.getLayout(), dst.getShape(), plan.dstAxes);
  if (!dview)
    return dview.takeFailure();
  auto srcStorage = getFlatStorage(src);
  if (!srcStorage)
    return srcStorage.takeFailure();
  int64_t regs = dview->localSize();
  if (regs > kMaxRegisters)
    return fail("more than " + std::to_string(kMaxRegisters) +
                " registers per thread");
  if (int64_t(dst.getNumElements()) * threads > kMaxEnumerated)
    return fail("the layouts are too large to enumerate");
  std::optional<int64_t> firstWarp;
  for (int64_t tid = 0; tid < threads; ++tid) {
    std::optional<Shape> base =
        dview->instanceBase(threadCoord(target, plan.dstAxes, tid));
    if (!base)
      continue;
    int64_t warp = tid / target.warpSize, lane = tid % target.warpSize;
    if (!firstWarp) {
      firstWarp = warp;
      plan.srcLane.assign(regs, {});
      plan.srcReg.assign(regs, {});
      for (int64_t j = 0; j < regs; ++j) {
        plan.srcLane[j].fill(-1);
        plan.srcReg[j].fill(-1);
      }
    }
    for (int64_t j = 0; j < regs; ++j) {
      Shape logical = *base;
      Shape off = dview->localOffset(j);
      for (size_t d = 0; d < logical.size(); ++d)
        logical[d] += off[d];
      auto placements = src.getLayout().apply(logical, src.getShape());
      if (!placements)
        return placements.takeFailure();
      std::optional<std::pair<int32_t, int32_t>> from;
      for (const Coord &p : *placements)
        for (int64_t s = warp * target.warpSize;
             !from && s < std::min(threads, (warp + 1) * target.warpSize); ++s)
          if (threadAt(target, p, s))
            from = {int32_t(s % target.warpSize),
                    int32_t(p.get(kDefaultAxis) - srcStorage->lo)};
      if (!from)
        return fail("thread " + std::to_string(tid) +
                    "'s register of element " + shapeStr(logical) +
                    " is held by no lane of its warp in the source; "
                    "shuffles exchange within a warp");
      int32_t &l = plan.srcLane[j][lane], &r = plan.srcReg[j][lane];
      if (warp == *firstWarp) {
        l = from->first;
        r = from->second;
      } else if (l != from->first || r != from->second) {
        return fail("warps " + std::to_string(*firstWarp) + " and " +
                    std::to_string(warp) +
                    " exchange registers differently; shuffles need one "
                    "pattern for every warp");
      }
    }
  }
  if (!firstWarp)
    return fail("no thread holds part of the destination");
  return plan;
}

ScheduleMatch matchShuffle(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<CopyOp>(raw);
  if (spaceOf(op.getSource()) != MemorySpace::Reg ||
      spaceOf(op.getTarget()) != MemorySpace::Reg)
    return ScheduleMatch::decline("shuffles copy registers to registers");
  if (scopeOf(raw) < ScopeKind::Warp)
    return ScheduleMatch::decline("shuffles are warp instructions");
  for (Value v : {op.getSource(), op.getTarget()}) {
    if (auto ok = checkStaticHolders(*ctx.target, v); !ok)
      return ScheduleMatch::decline(ok.message());
    if (!walkBufferChain(v)->slices.empty())
      return ScheduleMatch::decline("shuffles copy whole register buffers");
  }
  if (ScheduleMatch v = matchView(ctx, op.getTarget()); !v.accepted())
    return v;
  auto plan = planShuffle(*ctx.target, threadsOf(raw), typeOf(op.getSource()),
                          typeOf(op.getTarget()));
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

/// The table's entry for the current lane, without an indexed array (which
/// LLVM would put on the stack): a constant when all lanes agree; the XOR of
/// one constant per set lane bit when the table is XOR-linear in the lane's
/// bits (what layouts of power-of-2 extents give); else a select per lane.
Value laneEntry(OpBuilder &b, Location loc, const LaneTable &t, Value lane) {
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  };
  if (llvm::all_equal(t))
    return i32(t[0]);
  Value l = arith::IndexCastOp::create(b, loc, b.getI32Type(), lane);
  bool linear = true;
  for (int x = 0; x < kWarpSize && linear; ++x) {
    int32_t v = t[0];
    for (int bit = 0; bit < kLaneBits; ++bit)
      if (x >> bit & 1)
        v ^= t[1 << bit] ^ t[0];
    linear = v == t[x];
  }
  if (linear) {
    Value v = i32(t[0]);
    for (int bit = 0; bit < kLaneBits; ++bit) {
      int32_t column = t[1 << bit] ^ t[0];
      if (!column)
        continue;
      Value set = arith::TruncIOp::create(
          b, loc, b.getI1Type(), arith::ShRUIOp::create(b, loc, l, i32(bit)));
      v = arith::XOrIOp::create(
          b, loc, v, arith::SelectOp::create(b, loc, set, i32(column), i32(0)));
    }
    return v;
  }
  Value v = i32(t[kWarpSize - 1]);
  for (int x = kWarpSize - 2; x >= 0; --x)
    v = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, l, i32(x)),
        i32(t[x]), v);
  return v;
}

LogicalResult rewriteShuffle(Operation *raw, const ScheduleContext &ctx,
                             const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<CopyOp>(raw);
  const auto &plan = *std::any_cast<ShufflePlan>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &src = (*ops)[0], &dst = (*ops)[1];
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  Value lane = cg.axisValue(rw, loc, "laneid");
  auto view = InstanceEmitter::get(dst.layout(), dst.shape(), plan.dstAxes);
  CoordValue me;
  for (const std::string &axis : plan.dstAxes)
    me.set(axis, cg.axisValue(rw, loc, axis));
  InstanceBase base = view->emitBase(rw, loc, me);
  // Lanes that hold no destination register (-1 in the tables) still take
  // part in the shuffles: they read lane 0 and one of the used registers.
  auto fixed = [](LaneTable t, int32_t fill) {
    for (int32_t &x : t)
      if (x < 0)
        x = fill;
    return t;
  };
  SmallVector<Value> values;
  for (size_t j = 0; j < plan.srcLane.size(); ++j) {
    LaneTable lanes = fixed(plan.srcLane[j], 0);
    LaneTable regs = fixed(plan.srcReg[j], *llvm::max_element(plan.srcReg[j]));
    bool local = true;
    for (int l = 0; l < kWarpSize; ++l)
      local &= lanes[l] == l || plan.srcLane[j][l] < 0;
    Value srcLane = laneEntry(rw, loc, lanes, lane);
    Value reg = laneEntry(rw, loc, regs, lane);
    Value result;
    std::set<int32_t> distinct(regs.begin(), regs.end());
    for (int32_t k : distinct) {
      Value v = memref::LoadOp::create(rw, loc, src.memory,
                                       ValueRange{indexConstant(rw, loc, k)});
      if (!local)
        v = gpu::ShuffleOp::create(
                rw, loc, v, srcLane,
                arith::ConstantIntOp::create(rw, loc, kWarpSize, 32),
                gpu::ShuffleMode::IDX)
                .getShuffleResult();
      if (!result) {
        result = v;
        continue;
      }
      Value is =
          arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, reg,
                                arith::ConstantIntOp::create(rw, loc, k, 32));
      result = arith::SelectOp::create(rw, loc, is, v, result);
    }
    values.push_back(result);
  }
  // Every shuffle first, then the writes: a copy in place reads before it
  // overwrites.
  guarded(rw, loc, base.holds, [&](OpBuilder &b) {
    for (auto [j, v] : llvm::enumerate(values)) {
      InstanceElement e = view->emitElement(b, loc, base, int64_t(j));
      dst.write(b, loc, e.logical, v);
    }
  });
  rw.eraseOp(op);
  return success();
}

} // namespace

void addShuffleCopySchedules(ScheduleRegistry &registry) {
  (void)registry.add(
      {"nvvm.copy.shuffle", "axe.copy", targetKind(TargetKind::GPU), -5,
       "registers to registers of 32-bit elements exchanged between lanes "
       "of a warp by shfl.sync.idx, from lane and register tables that are "
       "the same in every warp",
       matchShuffle, rewriteShuffle});
}

} // namespace axe::nvvm
