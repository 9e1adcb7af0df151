//===- CPUInstances.cpp - Warps and threads as loops on the CPU -----------===//
//
// A CTA runs as one CPU thread. An operator at a scope narrower than the CTA
// (warpgroup, warp, thread) runs once per instance of that scope, so its
// schedule wraps the generated code in a loop over the instances; the pure
// IR its operands are computed from (axis ids, arith, views, slices) is
// re-evaluated in that loop with the axis ids derived from the loop's
// variable. A register buffer held by such a scope gets one private copy per
// instance: its storage has an outermost dim on the axis that numbers the
// instances (tx, warpid, wgid). docs/CPUExecutionModel.md explains the model.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/Uniformity.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace axe {

//===----------------------------------------------------------------------===//
// Thread structure of a CTA
//===----------------------------------------------------------------------===//

int64_t CTAThreads::threadsOf(ScopeKind scope) const {
  return target->threadsPerInstance(static_cast<ExecutionScope>(scope),
                                    threads);
}

Result<int64_t> CTAThreads::instancesOf(ScopeKind scope) const {
  return target->instancesPerCTA(static_cast<ExecutionScope>(scope), threads);
}

llvm::StringRef CTAThreads::instanceAxis(ScopeKind scope) const {
  const TargetAxis *axis = target->axisNumbering(
      static_cast<ExecutionScope>(scope), ExecutionScope::CTA);
  return axis ? llvm::StringRef(axis->name) : llvm::StringRef();
}

Result<CTAThreads> getCTAThreads(KernelOp kernel) {
  const TargetDescription *target = nullptr;
  // The kernel's own target defines what a warp is (its source was written
  // for that machine); the CPU's description (32-lane warps in 4-warp
  // groups) stands in where that target lacks warps or warpgroups.
  if (TargetAttr t = kernel.getEffectiveTarget())
    target = &t.getDescription();
  if (!target || !target->hasWarps() || !target->hasWarpgroups()) {
    auto cpu = lookupTarget("cpu");
    if (!cpu)
      return cpu.takeFailure();
    target = *cpu;
  }
  CTAThreads cta;
  cta.threads = kernel.getThreads();
  cta.target = target;
  return cta;
}

//===----------------------------------------------------------------------===//
// Private copies of register buffers
//===----------------------------------------------------------------------===//

Result<std::optional<CPUInstances>> getCPUInstances(AllocOp alloc) {
  auto type = cast<BufferType>(alloc.getType());
  auto kernel = alloc->getParentOfType<KernelOp>();
  // Outside a kernel, code runs as one thread: nothing to replicate.
  if (!kernel || type.getMemorySpace() != MemorySpace::Reg)
    return std::optional<CPUInstances>();
  std::optional<BufferOwner> owner = getBufferOwner(type);
  if (!owner || owner->scope >= ScopeKind::CTA)
    return std::optional<CPUInstances>();
  // Inside an axe.partition only the partition's warps use their copies;
  // the storage still has one per instance of the CTA so that the instance
  // number (warpid, ...) indexes it directly.
  auto cta = getCTAThreads(kernel);
  if (!cta)
    return cta.takeFailure();
  auto count = cta->instancesOf(owner->scope);
  if (!count)
    return count.takeFailure();
  return std::optional<CPUInstances>(CPUInstances{
      owner->scope, cta->instanceAxis(owner->scope).str(), *count});
}

Result<StoragePlan> getCPUStorage(AllocOp alloc) {
  auto type = cast<BufferType>(alloc.getType());
  auto plan = StoragePlan::forLayout(type.getLayout());
  if (!plan)
    return plan.takeFailure();
  auto instances = getCPUInstances(alloc);
  if (!instances)
    return instances.takeFailure();
  if (!*instances)
    return plan;
  return plan->withInstances((*instances)->axis, (*instances)->count);
}

//===----------------------------------------------------------------------===//
// Operators narrower than a CTA
//===----------------------------------------------------------------------===//

namespace {

/// Finds the IR an operator's operands are computed from that differs
/// between the threads of a CTA.
class Dependences {
public:
  Dependences(KernelOp kernel, ScopeKind scope, const CTAThreads &cta)
      : scope(scope), cta(cta), uniformity(kernel) {}

  /// Whether `v` depends on a coordinate that differs within a CTA.
  bool varies(Value v) { return uniformity.uniformScope(v) < ScopeKind::CTA; }

  /// Adds the ops that compute `v` (if it varies) to `order`, definitions
  /// first; fails when one cannot be re-evaluated per instance.
  Result<bool> collect(Value v) {
    if (!varies(v))
      return true;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      return fail("an operand depends on the thread coordinates through a "
                  "block argument of " +
                  owner->getName().getStringRef().str() +
                  ", control flow that differs between threads; the CPU "
                  "runs a CTA as one thread and re-evaluates only pure "
                  "values per " +
                  stringifyScopeKind(scope).str());
    }
    Operation *def = v.getDefiningOp();
    if (!visited.insert(def).second)
      return true;
    if (auto id = dyn_cast<AxisIdOp>(def)) {
      std::optional<AxisStep> step = cta.target->stepOfAxis(id.getAxis());
      if (!step)
        return fail("axis '" + id.getAxis().str() +
                    "' has no value on the CPU target");
      if (scope >= ScopeKind::CTA || static_cast<ScopeKind>(step->unit) < scope)
        return fail("an operand depends on '" + id.getAxis().str() +
                    "', which differs between the threads of one " +
                    stringifyScopeKind(scope).str() +
                    "; a collective "
                    "operator needs operands its whole scope agrees on");
      order.push_back(def);
      return true;
    }
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return fail("an operand depends on the thread coordinates through " +
                  def->getName().getStringRef().str() +
                  ", which the CPU cannot re-evaluate per " +
                  stringifyScopeKind(scope).str() +
                  " (only ops without regions or memory effects are)");
    for (Value x : def->getOperands())
      if (auto r = collect(x); !r)
        return r;
    order.push_back(def);
    return true;
  }

  SmallVector<Operation *> order;

private:
  ScopeKind scope;
  const CTAThreads &cta;
  UniformityAnalysis uniformity;
  llvm::SmallPtrSet<Operation *, 8> visited;
};

} // namespace

Result<InstanceLoopPlan> planInstanceLoop(Operation *op) {
  auto iface = dyn_cast<OperatorOpInterface>(op);
  if (!iface)
    return fail("not a collective operator");
  ScopeAttr scopeAttr = iface.getScope();
  if (scopeAttr.isMesh())
    return fail("an operator at mesh scope is a collective between "
                "processes: only cpu.mesh (axe.copy, axe.reduce) and "
                "cpu.mesh.gemm run it");
  InstanceLoopPlan plan;
  plan.scope = scopeAttr.getKind();
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return plan;
  auto cta = getCTAThreads(kernel);
  if (!cta)
    return cta.takeFailure();
  plan.cta = *cta;
  auto count = cta->instancesOf(plan.scope);
  if (!count)
    return count.takeFailure();
  plan.count = *count;
  if (auto partition = op->getParentOfType<PartitionOp>()) {
    // Only the partition's warps run it: the instances they make up.
    if (plan.scope >= ScopeKind::CTA)
      return fail("an operator at " + stringifyScopeKind(plan.scope).str() +
                  " scope cannot run inside axe.partition");
    int64_t per = cta->threadsOf(plan.scope);
    int64_t warp = cta->threadsOf(ScopeKind::Warp);
    int64_t lo = partition.getWarpBegin() * warp;
    int64_t hi = partition.getWarpEnd() * warp;
    if (lo % per != 0 || hi % per != 0 || hi > cta->threads)
      return fail("the warps [" + std::to_string(partition.getWarpBegin()) +
                  ", " + std::to_string(partition.getWarpEnd()) +
                  ") of the partition are not whole " +
                  stringifyScopeKind(plan.scope).str() + "s of the CTA");
    plan.first = lo / per;
    plan.count = (hi - lo) / per;
  }
  Dependences deps(kernel, plan.scope, *cta);
  for (Value v : UniformityAnalysis::inputsOf(op))
    if (auto r = deps.collect(v); !r)
      return r.takeFailure();
  plan.rematerialized = std::move(deps.order);
  plan.loop =
      plan.scope < ScopeKind::CTA &&
      (plan.count > 1 || plan.first != 0 || !plan.rematerialized.empty());
  return plan;
}

LogicalResult emitInstanceLoop(
    Operation *op, const InstanceLoopPlan &plan, RewriterBase &rw,
    function_ref<LogicalResult(Operation *, const CPUInstance *)> body) {
  Location loc = op->getLoc();
  rw.setInsertionPoint(op);
  if (plan.scope >= ScopeKind::CTA || !op->getParentOfType<KernelOp>())
    return body(op, nullptr);
  if (!plan.loop) {
    // One instance and nothing to re-evaluate: the operator stays in place.
    CPUInstance only{plan.scope, indexConstant(rw, loc, plan.first)};
    return body(op, &only);
  }
  auto loop =
      scf::ForOp::create(rw, loc, indexConstant(rw, loc, plan.first),
                         indexConstant(rw, loc, plan.first + plan.count),
                         indexConstant(rw, loc, 1));
  rw.setInsertionPoint(loop.getBody()->getTerminator());
  Value index = loop.getInductionVar();
  IRMapping map;
  int64_t perInstance = plan.cta.threadsOf(plan.scope);
  for (Operation *def : plan.rematerialized) {
    auto id = dyn_cast<AxisIdOp>(def);
    if (!id) {
      rw.clone(*def, map);
      continue;
    }
    // The axis is constant on the instance, so its value follows from the
    // instance's first thread: (index * perInstance / threadsPerStep) mod
    // wrap, where perInstance divides threadsPerStep.
    std::optional<AxisStep> shape = plan.cta.target->stepOfAxis(id.getAxis());
    assert(shape && shape->threadsPerStep % perInstance == 0 &&
           "planInstanceLoop checked the axis");
    Value v = index;
    int64_t q = shape->threadsPerStep / perInstance;
    if (q != 1)
      v = arith::DivUIOp::create(rw, loc, v, indexConstant(rw, loc, q));
    if (shape->wrap != 0 &&
        plan.cta.threads / shape->threadsPerStep > shape->wrap)
      v = arith::RemUIOp::create(rw, loc, v,
                                 indexConstant(rw, loc, shape->wrap));
    map.map(id.getResult(), v);
  }
  Operation *clone = rw.clone(*op, map);
  CPUInstance instance{plan.scope, index};
  if (failed(body(clone, &instance)))
    return failure();
  rw.eraseOp(op);
  // The originals the loop re-evaluates may now be dead; later operators
  // that still use them keep them.
  for (Operation *def : llvm::reverse(plan.rematerialized))
    if (def->use_empty())
      rw.eraseOp(def);
  return success();
}

} // namespace axe
