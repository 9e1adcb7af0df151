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

ScopeKind UniformityAnalysis::uniformScope(Value v) {
  if (!root->isAncestor(v.getParentRegion()->getParentOp()))
    return ScopeKind::Mesh;
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  // Optimistic on a cycle (a loop-carried value reaching itself): the cycle
  // adds nothing the other inputs do not.
  memo[v] = ScopeKind::Mesh;
  ScopeKind result = ScopeKind::Mesh;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    auto loop = dyn_cast<LoopLikeOpInterface>(owner);
    if (owner == root) {
      result = ScopeKind::Mesh;
    } else if (loop && loop.getSingleInductionVar() == v) {
      // An induction variable differs between threads only through its
      // bounds, not through what the body computes.
      result = ScopeKind::Mesh;
      for (std::optional<OpFoldResult> bound :
           {loop.getSingleLowerBound(), loop.getSingleUpperBound(),
            loop.getSingleStep()}) {
        if (!bound) {
          result = ScopeKind::Thread;
          break;
        }
        if (auto value = dyn_cast<Value>(*bound))
          result = std::min(result, uniformScope(value));
      }
    } else {
      // Loop-carried and other block arguments: anything the op reads.
      result = narrowestOf(inputsOf(owner));
    }
  } else {
    Operation *def = v.getDefiningOp();
    if (auto id = dyn_cast<AxisIdOp>(def))
      result = uniformScopeOfAxis(id.getAxis());
    else
      result = narrowestOf(inputsOf(def));
  }
  memo[v] = result;
  return result;
}

} // namespace axe
