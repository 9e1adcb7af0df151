//===- KernelCaptures.cpp - A kernel moved into a function ----------------===//

#include "axe/Codegen/KernelCaptures.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace axe {

SmallVector<Value> capturedValues(KernelOp kernel) {
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

KernelOutlining::~KernelOutlining() = default;

FailureOr<KernelCaptures> classifyCaptures(KernelOp kernel,
                                           const KernelOutlining &outlining) {
  KernelCaptures c;
  for (Value v : capturedValues(kernel)) {
    if (matchPattern(v, m_Constant())) {
      c.constants.push_back(v);
      continue;
    }
    Type type = outlining.argumentType(v);
    if (!type)
      return kernel.emitError()
             << outlining.backend() << ": the kernel uses a value of type "
             << v.getType() << " from its function that is not a constant; "
             << outlining.takes();
    c.arguments.push_back(v);
    c.argumentTypes.push_back(type);
  }
  return c;
}

namespace {

LogicalResult outlineKernel(KernelOp kernel, StringRef name,
                            KernelOutlining &outlining, RewriterBase &rw) {
  if (failed(outlining.prepare(kernel)))
    return failure();
  FailureOr<KernelCaptures> captures = classifyCaptures(kernel, outlining);
  if (failed(captures))
    return failure();
  Operation *function =
      outlining.createFunction(kernel, name, captures->argumentTypes, rw);
  if (!function)
    return failure();
  // The body, with captured values mapped to arguments or clones; the
  // function's terminator stays last.
  Block &entry = function->getRegion(0).front();
  IRMapping map;
  for (auto [v, arg] : llvm::zip(captures->arguments, entry.getArguments()))
    map.map(v, arg);
  rw.setInsertionPointToStart(&entry);
  for (Value c : captures->constants)
    map.map(c, rw.clone(*c.getDefiningOp())->getResult(0));
  for (Operation &op : kernel.getBody().front())
    rw.clone(op, map);
  if (failed(outlining.lowerBody(function, rw)))
    return failure();
  rw.setInsertionPoint(kernel);
  outlining.launch(kernel, function, *captures, rw);
  rw.eraseOp(kernel);
  return success();
}

} // namespace

LogicalResult outlineKernels(ModuleOp module, KernelOutlining &outlining) {
  SmallVector<KernelOp> kernels;
  module.walk([&](KernelOp k) { kernels.push_back(k); });
  llvm::StringMap<unsigned> perFunction, seen;
  for (KernelOp k : kernels)
    if (auto host = k->getParentOfType<func::FuncOp>())
      ++perFunction[host.getName()];
  IRRewriter rw(module.getContext());
  bool ok = true;
  for (KernelOp k : kernels) {
    auto host = k->getParentOfType<func::FuncOp>();
    std::string name = host ? (host.getName() + outlining.nameSuffix()).str()
                            : outlining.orphanName();
    if (host && perFunction[host.getName()] > 1)
      name += std::to_string(seen[host.getName()]++);
    ok &= succeeded(outlineKernel(k, name, outlining, rw));
  }
  return success(ok);
}

} // namespace axe
