//===- KernelCaptures.cpp - What a kernel takes from its function ---------===//

#include "axe/Codegen/KernelCaptures.h"

#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

SmallVector<Value> axe::capturedValues(KernelOp kernel) {
  SetVector<Value> used;
  getUsedValuesDefinedAbove(kernel.getBody(), used);
  SmallVector<Value> ordered(used.begin(), used.end());
  llvm::stable_sort(ordered, [](Value a, Value b) {
    auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
    if (argA && argB)
      return argA.getArgNumber() < argB.getArgNumber();
    return argA && !argB;
  });
  return ordered;
}
