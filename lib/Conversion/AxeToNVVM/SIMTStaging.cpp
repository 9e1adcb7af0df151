//===- SIMTStaging.cpp - Register operands staged through shared memory ---===//
//
// The staged schedules: a SIMT schedule whose register inputs other threads
// need to read runs on copies of them in shared memory, written by their
// holders before a barrier. Also where a buffer lives while staging is
// under way (spaceOf).
//
//===----------------------------------------------------------------------===//

#include "SIMT.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

#include <limits>

using namespace mlir;

namespace axe::nvvm {

//===----------------------------------------------------------------------===//
// Staging register operands through shared memory
//===----------------------------------------------------------------------===//

/// The register inputs the staged schedules route through shared memory
/// while their inner rewrite runs (operandsOf hands out the staged copy).
/// Dispatch rewrites one operator at a time on one thread.
thread_local const llvm::SmallPtrSet<Value, 4> *stagedInputs = nullptr;

bool isStaged(Value v) { return stagedInputs && stagedInputs->contains(v); }

MemorySpace spaceOf(Value buffer) {
  if (isStaged(buffer))
    return MemorySpace::Shared;
  auto chain = walkBufferChain(buffer);
  return cast<BufferType>(chain->root->getResult(0).getType()).getMemorySpace();
}

/// The scratch a staged operand goes through: a flat shared axe.alloc at
/// the start of the kernel with one region per instance of `scope`, and the
/// current instance's region as a row-major operand of `shape`.
FailureOr<GPUOperand> stagingBuffer(OpBuilder &b, Location loc, Operation *op,
                                    const ThreadTargetCodegen &cg,
                                    ArrayRef<int64_t> shape, Type elt) {
  const TargetDescription &target = cg.target();
  ScopeKind scope = scopeOf(op);
  auto unit = ExecutionScope(static_cast<int>(scope));
  Result<int64_t> instances = target.instancesPerCTA(unit, threadsOf(op));
  if (!instances)
    return op->emitError("nvvm: ") << instances.message();
  int64_t size = 1;
  for (int64_t e : shape)
    size *= e;
  MLIRContext *ctx = b.getContext();
  auto flat = TileLayout::create({Iter{*instances * size, 1}});
  auto rootType =
      BufferType::get(ctx, {*instances * size}, elt,
                      getLayoutAttr(ctx, Layout(*flat)), MemorySpace::Shared);
  AllocOp alloc;
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(
        &op->getParentOfType<KernelOp>().getBody().front());
    alloc = AllocOp::create(b, loc, rootType);
  }
  IterList iters;
  int64_t stride = 1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    iters.insert(iters.begin(), Iter{shape[d], stride});
    stride *= shape[d];
  }
  auto rowMajor = TileLayout::create(iters);
  GPUOperand g;
  g.ref.root = alloc;
  g.ref.layout = Layout(*rowMajor);
  g.ref.shape = Shape(shape.begin(), shape.end());
  g.ref.elementType = elt;
  if (*instances > 1) {
    const TargetAxis *axis = target.axisNumbering(unit, ExecutionScope::CTA);
    if (!axis)
      return op->emitError("nvvm: no axis numbers the ")
             << stringifyScopeKind(scope) << "s of a CTA";
    g.ref.offset.set(kDefaultAxis,
                     mulIndex(b, loc, cg.axisValue(b, loc, axis->name), size));
    g.ref.offsetAlignment = size;
  }
  g.space = MemorySpace::Shared;
  g.storage = StoragePlan::onlyM(0, *instances * size);
  g.codegen = &cg;
  g.memory = UnrealizedConversionCastOp::create(
                 b, loc, getFlatMemRefType(rootType), alloc.getResult())
                 .getResult(0);
  g.emitter.emplace(*LayoutEmitter::get(g.ref.layout, shape));
  return g;
}

/// Copies register operand `reg` (every thread its held elements) into
/// its scratch and waits for the scope, so any thread may read it.
FailureOr<GPUOperand> stageOperand(OpBuilder &b, Location loc, Operation *op,
                                   const ThreadTargetCodegen &cg,
                                   const GPUOperand &reg) {
  auto scratch = stagingBuffer(b, loc, op, cg, reg.shape(), reg.elementType());
  if (failed(scratch))
    return failure();
  forEachHeld(
      b, loc, cg, reg,
      [&](OpBuilder &ib, Location l, ValueRange x) {
        scratch->write(ib, l, x, reg.read(ib, l, x));
      },
      scopeOf(op));
  if (failed(cg.barrier(b, loc, scopeOf(op))))
    return failure();
  return scratch;
}

/// Resolves each buffer, reporting a failure on `op`.
FailureOr<std::vector<GPUOperand>> operandsOf(Operation *op,
                                              const ScheduleContext &ctx,
                                              OpBuilder &b,
                                              ValueRange buffers) {
  std::vector<GPUOperand> out;
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  for (Value v : buffers) {
    auto r = getGPUOperand(b, op->getLoc(), v, cg);
    if (!r) {
      op->emitError("nvvm: ") << r.message();
      return failure();
    }
    if (isStaged(v)) {
      auto staged = stageOperand(b, op->getLoc(), op, cg, *r);
      if (failed(staged))
        return failure();
      r = std::move(*staged);
    }
    out.push_back(std::move(*r));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Staged schedules: register inputs through shared memory
//===----------------------------------------------------------------------===//

/// What a staged schedule routes through shared memory, and the plan of the
/// SIMT rewrite it runs on the staged operands.
struct StagePlan {
  SmallVector<Value> inputs;
  std::any inner;
};

/// The register inputs of `op` (what other threads may need to read).
SmallVector<Value> registerInputs(Operation *op) {
  SmallVector<Value> inputs;
  auto add = [&](Value v) {
    if (spaceOf(v) == MemorySpace::Reg && !llvm::is_contained(inputs, v))
      inputs.push_back(v);
  };
  if (auto copy = dyn_cast<CopyOp>(op)) {
    add(copy.getSource());
  } else if (auto copy = dyn_cast<CopyAsyncOp>(op)) {
    add(copy.getSource());
  } else if (auto ew = dyn_cast<ElementwiseOp>(op)) {
    // An input that is also an output is its own driver's: staging it
    // would redirect the output too (operands are told apart by value).
    for (Value v : ew.getInputs())
      if (!llvm::is_contained(ew.getOutputs(), v))
        add(v);
  } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
    add(reduce.getSource());
  } else if (auto gemm = dyn_cast<GemmOp>(op)) {
    add(gemm.getA());
    add(gemm.getB());
  }
  return inputs;
}

/// Runs `match` of the SIMT schedule as if the register inputs were in
/// shared memory; accepts with the inputs to stage when it then does.
Schedule::MatchFn stagedMatch(Schedule::MatchFn inner) {
  return [inner](Operation *op, const ScheduleContext &ctx) {
    ScheduleMatch m = matchCommon(op, ctx);
    if (!m.accepted())
      return m;
    SmallVector<Value> inputs = registerInputs(op);
    if (inputs.empty())
      return ScheduleMatch::decline("no register input to stage");
    int64_t bytes = 0;
    for (Value v : inputs) {
      BufferType t = typeOf(v);
      int64_t n = t.getElementType().getIntOrFloatBitWidth() / 8 + 1;
      for (int64_t e : t.getShape())
        n *= e;
      bytes += n;
      if (ScheduleMatch view = matchView(ctx, v); !view.accepted())
        return view;
    }
    const TargetMemorySpace *shared = ctx.target->findMemorySpace("shared");
    auto unit = ExecutionScope(static_cast<int>(scopeOf(op)));
    Result<int64_t> instances =
        ctx.target->instancesPerCTA(unit, threadsOf(op));
    if (!instances || !shared || bytes * *instances > shared->capacityBytes / 2)
      return ScheduleMatch::decline(
          "staging the register inputs takes more than half the shared "
          "memory of a CTA");
    llvm::SmallPtrSet<Value, 4> staged(inputs.begin(), inputs.end());
    stagedInputs = &staged;
    ScheduleMatch innerMatch = inner(op, ctx);
    stagedInputs = nullptr;
    if (!innerMatch.accepted())
      return innerMatch;
    return ScheduleMatch::accept(StagePlan{inputs, innerMatch.plan()});
  };
}

/// The SIMT rewrite on staged inputs, then a barrier so the scratch may be
/// written again (the operator may be in a loop).
Schedule::RewriteFn stagedRewrite(Schedule::RewriteFn inner) {
  return [inner](Operation *op, const ScheduleContext &ctx,
                 const std::any &anyPlan, RewriterBase &rw) -> LogicalResult {
    const auto &plan = *std::any_cast<StagePlan>(&anyPlan);
    Block *block = op->getBlock();
    Operation *next = op->getNextNode();
    Location loc = op->getLoc();
    ScopeKind scope = scopeOf(op);
    llvm::SmallPtrSet<Value, 4> staged(plan.inputs.begin(), plan.inputs.end());
    stagedInputs = &staged;
    LogicalResult ok = inner(op, ctx, plan.inner, rw);
    stagedInputs = nullptr;
    if (failed(ok))
      return failure();
    if (next)
      rw.setInsertionPoint(next);
    else
      rw.setInsertionPointToEnd(block);
    return ctx.codegen->barrier(rw, loc, scope);
  };
}

void addStagedSchedule(ScheduleRegistry &r, StringRef name, StringRef opName,
                       Schedule::MatchFn match, Schedule::RewriteFn rewrite,
                       StringRef what) {
  (void)r.add({name.str(), opName.str(), targetKind(TargetKind::GPU), -10,
               ("the register inputs written to shared memory by their "
                "holders, a barrier, then " +
                what + " reading them there")
                   .str(),
               stagedMatch(std::move(match)),
               stagedRewrite(std::move(rewrite))});
}

} // namespace axe::nvvm
