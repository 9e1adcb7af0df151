//===- Uniformity.cpp - Which threads agree on a value --------------------===//

#include "axe/Codegen/Uniformity.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Target/Target.h"

#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;

namespace axe {

// The target's scopes and the dialect's are the same list in the same order.
static_assert(static_cast<int>(ExecutionScope::Thread) ==
                  static_cast<int>(ScopeKind::Thread) &&
              static_cast<int>(ExecutionScope::Mesh) ==
                  static_cast<int>(ScopeKind::Mesh));

ScopeKind uniformScopeOfAxis(llvm::StringRef axis) {
  const TargetAxis *a = findAxisOnAnyTarget(axis);
  if (!a)
    return ScopeKind::CTA;
  // A value of an axis is shared by the threads of one step along it.
  std::optional<ExecutionScope> unit = unitOfRole(a->role);
  return unit ? static_cast<ScopeKind>(*unit) : ScopeKind::Mesh;
}

SmallVector<Value> UniformityAnalysis::inputsOf(Operation *op) {
  SmallVector<Value> inputs(op->getOperands());
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value v : nested->getOperands())
      if (!op->isAncestor(v.getParentRegion()->getParentOp()))
        inputs.push_back(v);
  });
  return inputs;
}

ScopeKind UniformityAnalysis::narrowestOf(ArrayRef<Value> values) {
  ScopeKind result = ScopeKind::Mesh;
  for (Value v : values)
    result = std::min(result, uniformScope(v));
  return result;
}

/// Values `op`'s regions hand back to it: what its terminators pass on,
/// to its results or, in a loop, to the next iteration (a loop's exit
/// condition with them).
static void appendYielded(Operation *op, SmallVectorImpl<Value> &out) {
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
        llvm::append_range(out, block.back().getOperands());
}

ScopeKind UniformityAnalysis::uniformScope(Value v) {
  if (!root->isAncestor(v.getParentRegion()->getParentOp()))
    return ScopeKind::Mesh;
  if (auto it = memo.find(v); it != memo.end()) {
    if (auto guess = inProgress.find(v); guess != inProgress.end())
      guess->second.read = true;
    return it->second;
  }
  // A loop-carried value may reach itself. It starts from the widest guess
  // and is recomputed, with everything computed from the guess, until the
  // guess holds: values only narrow, so this ends.
  size_t mark = computed.size();
  ScopeKind guess = ScopeKind::Mesh;
  for (;;) {
    memo[v] = guess;
    computed.push_back(v);
    inProgress[v] = {false};
    ScopeKind result = compute(v);
    bool read = inProgress[v].read;
    inProgress.erase(v);
    if (!read || result == guess) {
      memo[v] = result;
      return result;
    }
    for (size_t i = computed.size(); i > mark; --i)
      memo.erase(computed[i - 1]);
    computed.resize(mark);
    guess = result;
  }
}

ScopeKind UniformityAnalysis::compute(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    auto loop = dyn_cast<LoopLikeOpInterface>(owner);
    if (owner == root)
      return ScopeKind::Mesh;
    if (loop && loop.getSingleInductionVar() == v) {
      // An induction variable differs between threads only through its
      // bounds, not through what the body computes.
      ScopeKind result = ScopeKind::Mesh;
      for (std::optional<OpFoldResult> bound :
           {loop.getSingleLowerBound(), loop.getSingleUpperBound(),
            loop.getSingleStep()}) {
        if (!bound)
          return ScopeKind::Thread;
        if (auto value = dyn_cast<Value>(*bound))
          result = std::min(result, uniformScope(value));
      }
      return result;
    }
    // Loop-carried and other block arguments: anything the op reads, and
    // in a loop what the previous iteration passed on.
    SmallVector<Value> inputs = inputsOf(owner);
    if (loop)
      appendYielded(owner, inputs);
    return narrowestOf(inputs);
  }
  Operation *def = v.getDefiningOp();
  if (auto id = dyn_cast<AxisIdOp>(def))
    return uniformScopeOfAxis(id.getAxis());
  // The results of an op with regions are what its regions yield, values
  // computed inside them included (an axis id read in an scf.if).
  SmallVector<Value> inputs = inputsOf(def);
  appendYielded(def, inputs);
  return narrowestOf(inputs);
}

} // namespace axe
