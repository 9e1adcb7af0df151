//===- NVVMReduce.cpp - axe.reduce on NVIDIA ------------------------------===//
//
// The shuffle reduction: partials per thread, then xor shuffles or one
// redux.sync across the lane bits of the reduced digits. Where it declines,
// the generic reduce (ElementSchedules.h) has each thread compute whole
// target elements from a source it can read.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/ElementSchedules.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;

namespace axe::nvvm {
namespace {
//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

/// How a warp reduces a register tile: the current thread combines the
/// source elements it holds that share a target element into one partial
/// (groups of local indices, by their kept offset from the thread's base),
/// then lanes exchange partials across the lane bits that number reduced
/// digits (xor masks), after which every lane that took part has the value.
struct ShufflePlan {
  ReduceMapping map;
  /// Per group, its local source elements; all share the kept offset
  /// `offsets[g]` (in target indices) from the thread's base.
  SmallVector<SmallVector<int64_t>> groups;
  SmallVector<SmallVector<int64_t, 4>> offsets;
  SmallVector<int64_t> masks;
};

Result<ShufflePlan> planShuffleReduce(const TargetDescription &target,
                                      int64_t threads, ReduceOp op,
                                      bool targetInRegisters) {
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  auto map = reduceMapping(s.getShape(), op.getDims(), t.getShape());
  if (!map)
    return map.takeFailure();
  SmallVector<std::string, 4> sAxes = threadAxesOf(target, s.getLayout());
  auto sv = InstanceView::get(s.getLayout(), s.getShape(), sAxes);
  if (!sv)
    return sv.takeFailure();
  ShufflePlan plan;
  plan.map = *map;
  // Lanes exchange partials along the reduced digits of lane axes.
  for (const InstanceAxis &axis : sv->instanceAxes())
    for (const InstanceDigit &d : axis.digits) {
      if (d.replica || !map->reduced[d.dim])
        continue;
      if (axis.axis != "laneid")
        return fail("the reduced dim " + std::to_string(d.dim) +
                    " is spread over '" + axis.axis +
                    "'; only lanes of a warp exchange partials (shuffles), "
                    "a reduction across warps needs shared memory");
      if (!llvm::isPowerOf2_64(d.extent) || !llvm::isPowerOf2_64(d.stride))
        return fail("the reduced digit on laneid (extent " +
                    std::to_string(d.extent) + ", stride " +
                    std::to_string(d.stride) + ") is not a field of lane bits");
      for (int64_t k = 1; k < d.extent; k *= 2)
        plan.masks.push_back(d.stride * k);
    }
  for (int64_t j = 0; j < sv->localSize(); ++j) {
    SmallVector<int64_t, 4> k = reducedTargetIndex(sv->localOffset(j), *map);
    auto it = llvm::find(plan.offsets, k);
    if (it == plan.offsets.end()) {
      plan.offsets.push_back(k);
      plan.groups.push_back({j});
    } else {
      plan.groups[it - plan.offsets.begin()].push_back(j);
    }
  }
  if (plan.groups.size() > size_t(kMaxUnrolled))
    return fail("more than " + std::to_string(kMaxUnrolled) +
                " target elements per thread");
  if (!plan.masks.empty() && s.getElementType().getIntOrFloatBitWidth() != 32)
    return fail("shuffles move 32-bit values; the source is " +
                std::to_string(s.getElementType().getIntOrFloatBitWidth()) +
                "-bit");
  if (!targetInRegisters)
    return plan;
  // A register target: the threads that end with a target element's value
  // (those holding part of its source row) must be exactly its holders.
  auto rh = ReduceHolders::get(target, threads, op);
  if (!rh)
    return rh.takeFailure();
  std::vector<llvm::BitVector> computes(rh->target.size(),
                                        llvm::BitVector(threads));
  for (int64_t i = 0; i < rh->source.size(); ++i)
    for (int64_t tid = 0; tid < threads; ++tid)
      if (rh->source.holds(i, tid))
        computes[rh->targetOf[i]].set(tid);
  for (int64_t y = 0; y < rh->target.size(); ++y)
    for (int64_t tid = 0; tid < threads; ++tid)
      if (rh->target.holds(y, tid) != computes[y].test(tid))
        return fail("target element " + std::to_string(y) + " is " +
                    (rh->target.holds(y, tid) ? "held" : "not held") +
                    " by thread " + std::to_string(tid) + ", which " +
                    (computes[y].test(tid) ? "reduces" : "does not reduce") +
                    " its source row");
  return plan;
}

ScheduleMatch matchShuffleReduce(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<ReduceOp>(raw);
  if (spaceOf(op.getSource()) != MemorySpace::Reg)
    return ScheduleMatch::decline("the source is not in registers");
  if (ScheduleMatch v = matchView(ctx, op.getSource()); !v.accepted())
    return v;
  if (spaceOf(op.getTarget()) == MemorySpace::Reg)
    for (Value v : {op.getSource(), op.getTarget()})
      if (auto ok = checkStaticHolders(*ctx.target, v); !ok)
        return ScheduleMatch::decline(ok.message());
  auto plan = planShuffleReduce(*ctx.target, threadsOf(raw), op,
                                spaceOf(op.getTarget()) == MemorySpace::Reg);
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

/// The redux.sync kind that combines `kind` across every lane of a warp,
/// when the plan exchanges over all lane bits and the target reduces i32
/// values in one instruction (sm_80: add, min, max; signed, as axe.reduce
/// on integers is).
std::optional<NVVM::ReduxKind> warpWideRedux(const TargetDescription &t,
                                             const ShufflePlan &plan,
                                             Combiner kind, Type elt) {
  if (!t.hasFeature("redux.sync") || !elt.isInteger(32))
    return std::nullopt;
  int64_t lanes = 0;
  for (int64_t m : plan.masks)
    lanes |= m;
  if (lanes != t.warpSize - 1 ||
      int64_t(plan.masks.size()) != int64_t(llvm::Log2_64(t.warpSize)))
    return std::nullopt;
  switch (kind) {
  case Combiner::Sum:
    return NVVM::ReduxKind::ADD;
  case Combiner::Max:
    return NVVM::ReduxKind::MAX;
  case Combiner::Min:
    return NVVM::ReduxKind::MIN;
  default:
    return std::nullopt;
  }
}

LogicalResult rewriteShuffleReduce(Operation *raw, const ScheduleContext &ctx,
                                   const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<ReduceOp>(raw);
  const auto &plan = *std::any_cast<ShufflePlan>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &src = (*ops)[0], &dst = (*ops)[1];
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  const TargetDescription &t = cg.target();
  Combiner kind = combinerOf(op.getKind());
  Type elt = src.elementType();
  HeldView held = emitHeldView(rw, loc, cg, src);
  const InstanceEmitter *sv = &*held.view;
  InstanceBase base = held.base;
  SmallVector<int64_t, 4> zeros(src.shape().size(), 0);
  // After the exchange every lane of a group holds the result; into
  // memory, the one whose exchanged lane bits are 0 (and which is the
  // first holder of its source elements) stores it.
  Value storer = base.holds;
  if (!dst.isRegister()) {
    storer = emitOneWriter(rw, loc, cg, src, held, scopeOf(raw));
    int64_t laneBits = 0;
    for (int64_t mask : plan.masks)
      laneBits |= mask;
    if (laneBits) {
      Value lane = cg.axisValue(rw, loc, "laneid");
      Value bits = arith::AndIOp::create(rw, loc, lane,
                                         indexConstant(rw, loc, laneBits));
      Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                          bits, indexConstant(rw, loc, 0));
      storer = storer
                   ? arith::AndIOp::create(rw, loc, storer, first).getResult()
                   : first;
    }
  }
  for (auto [g, group] : llvm::enumerate(plan.groups)) {
    // The partial of the thread's own elements; a thread holding none
    // contributes the identity but still takes part in the shuffles.
    Value identity = reductionIdentity(rw, loc, kind, elt);
    auto computePartial = [&](OpBuilder &b) {
      Value acc = identity;
      for (int64_t j : group) {
        InstanceElement e = sv->emitElement(b, loc, base, j);
        acc = combine(b, loc, kind, acc, src.read(b, loc, e.logical));
      }
      return acc;
    };
    Value partial;
    if (!base.holds || matchPattern(base.holds, m_One())) {
      partial = computePartial(rw);
    } else {
      auto ifOp = scf::IfOp::create(rw, loc, TypeRange{elt}, base.holds, true);
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&ifOp.getThenRegion().front());
      scf::YieldOp::create(rw, loc, computePartial(rw));
      rw.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(rw, loc, identity);
      partial = ifOp.getResult(0);
    }
    if (std::optional<NVVM::ReduxKind> redux =
            warpWideRedux(t, plan, kind, elt)) {
      // All 32 lanes combine: one redux.sync does what 5 shuffles do.
      Value all = arith::ConstantIntOp::create(rw, loc, -1, 32);
      partial = NVVM::ReduxOp::create(
          rw, loc, elt, partial,
          NVVM::ReduxKindAttr::get(rw.getContext(), *redux), all);
    } else {
      for (int64_t mask : plan.masks) {
        auto shfl =
            gpu::ShuffleOp::create(rw, loc, partial, int32_t(mask),
                                   int32_t(t.warpSize), gpu::ShuffleMode::XOR);
        partial = combine(rw, loc, kind, partial, shfl.getShuffleResult());
      }
    }
    guarded(rw, loc, storer, [&](OpBuilder &b) {
      // The target index: the kept part of the thread's base, plus the
      // group's offset.
      SmallVector<Value, 4> y;
      for (auto [td, sd] : llvm::enumerate(plan.map.targetDims))
        y.push_back(plan.map.reduced[sd]
                        ? indexConstant(b, loc, 0)
                        : addIndex(b, loc, base.logical[sd],
                                   indexConstant(b, loc, plan.offsets[g][td])));
      Value v = castElements(b, loc, partial, dst.elementType());
      if (op.getAccumulate())
        v = combine(b, loc, kind, dst.read(b, loc, y), v);
      dst.write(b, loc, y, v);
    });
  }
  rw.eraseOp(op);
  return success();
}

} // namespace

void addReduceSchedules(ScheduleRegistry &r) {
  (void)r.add({"nvvm.reduce.shuffle", "axe.reduce", gpuTargets(), 10,
               "each thread combines the source elements it holds per "
               "target element, then lanes combine partials by xor "
               "shuffles over the lane bits of the reduced dims",
               matchShuffleReduce, rewriteShuffleReduce});
}

} // namespace axe::nvvm
