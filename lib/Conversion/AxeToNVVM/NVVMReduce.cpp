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
#include "llvm/ADT/DenseSet.h"

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

/// The thread's coordinates on the instance axes of `view`.
Coord instanceOf(const TargetDescription &target, const InstanceView &view,
                 int64_t tid) {
  Coord c;
  for (const InstanceAxis &a : view.instanceAxes())
    c.set(a.axis, threadAxisValue(target, a.axis, tid));
  return c;
}

/// Whether the instance holds elements and is their first holder (every
/// replica digit 0), as InstanceBase::primary says at run time.
bool isFirstHolder(const InstanceView &view, const Coord &instance) {
  for (const InstanceAxis &a : view.instanceAxes()) {
    auto digits = a.solve(instance.get(a.axis));
    if (!digits)
      return false;
    for (auto [d, digit] : llvm::zip_equal(a.digits, *digits))
      if (d.replica && digit != 0)
        return false;
  }
  return true;
}

/// Row-major strides of `shape`; `keptOnly` zeroes those of the reduced
/// dims, so that two indices get one number exactly when they reduce into
/// one target element.
SmallVector<int64_t, 4> flatStrides(ArrayRef<int64_t> shape,
                                    const ReduceMapping &map, bool keptOnly) {
  SmallVector<int64_t, 4> strides(shape.size(), 0);
  int64_t n = 1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    strides[d] = keptOnly && map.reduced[d] ? 0 : n;
    n *= shape[d];
  }
  return strides;
}

/// A source element as two numbers: which element (row-major) and which
/// row it reduces into.
struct ElementId {
  int64_t element = 0, row = 0;
};

/// The source elements every thread holds as ElementIds, in two linear
/// parts (a logical index is the thread's base plus the local offset).
struct HeldIds {
  /// Per thread, its local element 0; none where it holds nothing.
  SmallVector<std::optional<ElementId>> base;
  /// Per local index, what it adds.
  SmallVector<ElementId> offset;

  static HeldIds get(const TargetDescription &target, int64_t threads,
                     const InstanceView &sv, ArrayRef<int64_t> shape,
                     const ReduceMapping &map) {
    SmallVector<int64_t, 4> flat = flatStrides(shape, map, false);
    SmallVector<int64_t, 4> kept = flatStrides(shape, map, true);
    auto idOf = [&](ArrayRef<int64_t> x) {
      ElementId id;
      for (auto [v, f, k] : llvm::zip_equal(x, flat, kept)) {
        id.element += v * f;
        id.row += v * k;
      }
      return id;
    };
    HeldIds h;
    h.base.resize(threads);
    for (int64_t tid = 0; tid < threads; ++tid)
      if (auto b = sv.instanceBase(instanceOf(target, sv, tid)))
        h.base[tid] = idOf(*b);
    for (int64_t j = 0; j < sv.localSize(); ++j)
      h.offset.push_back(idOf(sv.localOffset(j)));
    return h;
  }
  ElementId at(int64_t tid, int64_t j) const {
    return {base[tid]->element + offset[j].element,
            base[tid]->row + offset[j].row};
  }
};

/// Declines unless thread `tid`'s partial of `group`, after the xor
/// shuffles with the threads `tid ^ v` for v in `partners`, combines each
/// source element of its row once. Returns that row.
Result<int64_t> checkExchangedRow(const HeldIds &held, int64_t threads,
                                  int64_t tid, ArrayRef<int64_t> group,
                                  ArrayRef<int64_t> partners, int64_t rowSize) {
  int64_t row = held.at(tid, group.front()).row;
  SmallVector<int64_t> elements;
  for (int64_t v : partners) {
    int64_t partner = tid ^ v;
    if (partner >= threads || !held.base[partner])
      continue;
    for (int64_t j : group) {
      ElementId id = held.at(partner, j);
      if (id.row != row)
        return fail("the xor shuffles give thread " + std::to_string(tid) +
                    " the partial of thread " + std::to_string(partner) +
                    ", which reduces another target element");
      elements.push_back(id.element);
    }
  }
  llvm::sort(elements);
  if (int64_t(elements.size()) != rowSize ||
      std::adjacent_find(elements.begin(), elements.end()) != elements.end())
    return fail("after the xor shuffles thread " + std::to_string(tid) +
                " has combined " + std::to_string(elements.size()) +
                " source elements, not each of the " + std::to_string(rowSize) +
                " of its row once (the lanes of a row do not start at a "
                "multiple of the masks' span)");
  return row;
}

/// Declines unless the xor butterfly leaves every thread whose result is
/// used with each source element of its target element's row exactly once.
/// The masks are the strides of the reduced lane digits; they pair lane L
/// with L ^ mask, which holds L's partner element only where the lanes of
/// a row start at a multiple of the masks' span. A lane field at an offset
/// (S[8 : 1@laneid] + 3@laneid pairs lane 3 with lane 2) or a replica
/// displaced by other than such a multiple (R[2 : 3@laneid]) combines
/// partials of lanes holding nothing or other rows. The results used are
/// every holder's into registers (each holds the target elements it
/// reduces), the storers' into memory (first holders, exchanged lane bits
/// 0), and every row must have a storer then.
Result<bool> checkButterflyCoversRows(const TargetDescription &target,
                                      int64_t threads, const InstanceView &sv,
                                      ArrayRef<int64_t> shape,
                                      const ShufflePlan &plan,
                                      bool targetInRegisters) {
  // Without exchanges each group of local elements is a whole row.
  if (plan.masks.empty())
    return true;
  int64_t rowSize = 1, laneBits = 0;
  for (auto [d, e] : llvm::enumerate(shape))
    if (plan.map.reduced[d])
      rowSize *= e;
  SmallVector<int64_t> partners{0};
  for (int64_t mask : plan.masks) {
    laneBits |= mask;
    for (int64_t i = 0, n = partners.size(); i < n; ++i)
      partners.push_back(partners[i] | mask);
  }
  HeldIds held = HeldIds::get(target, threads, sv, shape, plan.map);
  llvm::DenseSet<int64_t> heldRows, storedRows;
  for (int64_t tid = 0; tid < threads; ++tid) {
    if (!held.base[tid])
      continue;
    for (const SmallVector<int64_t> &group : plan.groups)
      heldRows.insert(held.at(tid, group.front()).row);
    if (!targetInRegisters && ((tid & laneBits) != 0 ||
                               !isFirstHolder(sv, instanceOf(target, sv, tid))))
      continue;
    for (const SmallVector<int64_t> &group : plan.groups) {
      auto row =
          checkExchangedRow(held, threads, tid, group, partners, rowSize);
      if (!row)
        return row.takeFailure();
      storedRows.insert(*row);
    }
  }
  if (!targetInRegisters)
    for (int64_t r : heldRows)
      if (!storedRows.contains(r))
        return fail("no thread whose exchanged lane bits are 0 holds a "
                    "whole row after the xor shuffles");
  return true;
}

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
  // A run-time slice start along a lane moves the rows by an amount not
  // known when compiling: their alignment to the masks is unknown.
  if (!plan.masks.empty())
    if (auto ok = checkStaticHolders(target, op.getSource()); !ok)
      return ok.takeFailure();
  if (auto ok = checkButterflyCoversRows(target, threads, *sv, s.getShape(),
                                         plan, targetInRegisters);
      !ok)
    return ok.takeFailure();
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
