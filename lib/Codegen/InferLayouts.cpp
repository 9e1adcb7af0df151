//===- InferLayouts.cpp - axe-infer-layouts: choose the layouts of '?' ----===//
//
// Layout inference over the schedules' own knowledge. The buffers whose
// layout is `?` are the variables; the values tied to one (region arguments
// and results of scf ops) share its type, and slices of one follow from it
// through the slice algebra. Candidates come from the schedules' proposals
// (asked again as candidates appear, so layouts travel from the anchors
// through the other operators) and from copy partners. The cost of an
// assignment is read off the same match steps dispatch runs: the pass sets
// the types in place, asks each operator's schedules, and puts the `?` types
// back, so no schedule is known here by name.
//
//===----------------------------------------------------------------------===//

#include "KernelInference.h"

#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/Algebra.h"
#include "axe/Layout/Strided.h"
#include "axe/Support/ElementBytes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <map>
#include <set>

namespace axe {
#define GEN_PASS_DEF_AXEINFERLAYOUTS
#include "axe/Codegen/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe::inference {

//===----------------------------------------------------------------------===//
// The buffers to infer
//===----------------------------------------------------------------------===//

bool isPending(Type type) {
  auto buffer = dyn_cast<BufferType>(type);
  return buffer && !buffer.hasLayout();
}

void KernelInference::tie(ArrayRef<Value> values) {
  Value first;
  for (Value v : values) {
    if (!v || !isPending(v.getType()))
      continue;
    if (!first)
      first = v;
    else
      ties.unionSets(first, v);
  }
}

LogicalResult KernelInference::collect() {
  kernel.getBody().walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (isPending(v.getType()))
        pendingValues.push_back(v);
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (isPending(arg.getType()))
          pendingValues.push_back(arg);
  });
  for (Value v : pendingValues)
    ties.insert(v);
  kernel.getBody().walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
        tie({init, loop.getRegionIterArgs()[i], loop.getResult(i),
             yield.getOperand(i)});
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      for (unsigned i = 0; i < branch.getNumResults(); ++i)
        tie({branch.getResult(i), branch.thenYield().getOperand(i),
             branch.getElseRegion().empty()
                 ? Value()
                 : branch.elseYield().getOperand(i)});
    } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      scf::ConditionOp cond = loop.getConditionOp();
      for (auto [i, init] : llvm::enumerate(loop.getInits()))
        tie({init, loop.getBeforeArguments()[i],
             loop.getYieldOp().getOperand(i)});
      for (unsigned i = 0; i < loop.getNumResults(); ++i)
        tie({loop.getResult(i), loop.getAfterArguments()[i],
             cond.getArgs()[i]});
    }
  });
  return buildNodes();
}

LogicalResult KernelInference::buildNodes() {
  for (Value v : pendingValues) {
    if (nodeIndex.count(v))
      continue;
    Node node;
    node.pending = cast<BufferType>(v.getType());
    for (auto it = ties.findLeader(v); it != ties.member_end(); ++it)
      node.values.push_back(*it);
    for (Value member : node.values)
      nodeIndex[member] = nodes.size();
    nodes.push_back(std::move(node));
  }
  for (Node &node : nodes) {
    bool fromAlloc = false;
    for (Value v : node.values) {
      if (auto slice = v.getDefiningOp<SliceOp>())
        node.slice = slice;
      fromAlloc |= static_cast<bool>(v.getDefiningOp<AllocOp>());
    }
    if (fromAlloc == static_cast<bool>(node.slice)) {
      Value v = node.values.front();
      return emitError(v.getLoc())
             << "layout '?' is for axe.alloc results, slices of them and the "
                "region arguments tied to them; "
             << (fromAlloc ? "this buffer is both an alloc and a slice"
                           : "this buffer comes from neither");
    }
  }
  Value outside;
  kernel.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isPending(operand.getType()) && nodeOf(operand) < 0)
        outside = operand;
  });
  if (outside)
    return emitError(outside.getLoc())
           << "layout '?' is for axe.alloc results, slices of them and the "
              "region arguments tied to them; this buffer comes from outside "
              "the kernel";
  for (Node &node : nodes)
    if (node.slice)
      node.parent = nodeOf(node.slice.getSource());
  // Parents first: a slice's depth is its source's plus one.
  std::vector<int> depth(nodes.size(), -1);
  std::function<int(int)> depthOf = [&](int n) {
    if (depth[n] >= 0)
      return depth[n];
    depth[n] = 0; // a cycle (unverified IR) ends here
    return depth[n] = nodes[n].parent < 0 ? 0 : depthOf(nodes[n].parent) + 1;
  };
  for (int n = 0, e = nodes.size(); n < e; ++n) {
    depthOf(n);
    order.push_back(n);
  }
  llvm::stable_sort(order, [&](int a, int b) { return depth[a] < depth[b]; });
  for (int n : order) {
    Node &node = nodes[n];
    if (node.parent < 0) {
      node.variable = variables.size();
      variables.push_back(Variable{n, {}});
    } else {
      node.variable = nodes[node.parent].variable;
    }
  }

  kernel.getBody().walk([&](OperatorOpInterface op) {
    llvm::SmallVector<int, 4> vars;
    for (Value operand : op->getOperands())
      if (int n = nodeOf(operand);
          n >= 0 && !llvm::is_contained(vars, nodes[n].variable))
        vars.push_back(nodes[n].variable);
    if (vars.empty())
      return;
    ops.push_back(op);
    opVariables[op] = std::move(vars);
  });
  kernel.getBody().walk([&](AllocOp alloc) {
    if (!alloc.getType().hasLayout())
      return;
    int64_t &bytes =
        fixedBytes[stringifyMemorySpace(alloc.getType().getMemorySpace())
                       .str()];
    bytes =
        addSaturating(bytes, getFootprintBytes(alloc.getType(), *ctx.target));
  });
  return success();
}

} // namespace axe::inference

namespace axe {
namespace {

using inference::isPending;
using inference::KernelInference;

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AxeInferLayoutsPass
    : public impl::AxeInferLayoutsBase<AxeInferLayoutsPass> {
  using AxeInferLayoutsBase::AxeInferLayoutsBase;

  AxeInferLayoutsPass(const AxeInferLayoutsOptions &options,
                      BackendSet backends)
      : AxeInferLayoutsBase(options), backends(std::move(backends)) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    // Proposals and match steps may build the backends' types (trn tiles).
    backends.addDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *) override {
    schedules = backends.schedules();
    return success();
  }

  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    bool ok = true;
    int64_t inferred = 0, conversions = 0;
    for (KernelOp kernel : kernels)
      ok &= succeeded(inferKernel(kernel, inferred, conversions));
    numInferred += inferred;
    numConversions += conversions;
    if (!ok)
      signalPassFailure();
  }

  LogicalResult inferKernel(KernelOp kernel, int64_t &inferred,
                            int64_t &conversions) {
    AxeInferLayoutsOptions opts;
    opts.target = target;
    opts.vectorBits = vectorBits;
    opts.allowConversions = allowConversions;
    opts.printAnalysisOnly = printAnalysisOnly;
    opts.maxCandidates = std::max(1u, static_cast<unsigned>(maxCandidates));
    // A kernel with nothing to infer needs no target: it is left alone.
    bool pending = false;
    kernel.getBody().walk([&](Operation *op) {
      pending |= llvm::any_of(op->getResultTypes(), isPending);
    });
    if (!pending)
      return success();
    FailureOr<KernelScheduleContext> context = buildScheduleContext(
        kernel, target, vectorBits, backends, getArgument());
    if (failed(context))
      return failure();
    KernelInference inference(kernel, *schedules, context->schedule, opts);
    if (failed(inference.collect()))
      return failure();
    inference.gatherCandidates();
    if (failed(inference.choose()))
      return failure();
    inference.materialize(printAnalysisOnly, inferred, conversions);
    return success();
  }

  BackendSet backends;
  std::shared_ptr<const ScheduleRegistry> schedules;
};

} // namespace

std::unique_ptr<Pass>
createAxeInferLayouts(const AxeInferLayoutsOptions &options,
                      const BackendSet &backends) {
  return std::make_unique<AxeInferLayoutsPass>(options, backends);
}

} // namespace axe
