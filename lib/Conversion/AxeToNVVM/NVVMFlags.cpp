//===- NVVMFlags.cpp - Flags between the CTAs of a launch -----------------===//
//
// axe.flag_add and axe.flag_wait on NVIDIA GPUs. The PTX memory model makes
// a write of one CTA visible to another through a release and an acquire
// at GPU scope on the same location; a barrier over the scope first (or
// after) extends that to every thread of the scope, and proxy fences extend
// it to the async proxy (TMA) on both ends.
//
// NVPTX drops the ordering of an atomicrmw (LLVM 22 emits a relaxed
// atom.add for acq_rel), so the add is a relaxed atomic between two
// fence.acq_rel.gpu: the PTX model's release and acquire patterns.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"

#include "axe/Codegen/LayoutEmitter.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace axe::nvvm {
namespace {

constexpr llvm::StringLiteral kGpuScope = "device";

/// The global address of flags[indices] as an !llvm.ptr<1>.
Value flagPointer(OpBuilder &b, Location loc, Value flags,
                  ValueRange indices) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, flags);
  Value element = meta.getOffset();
  for (auto [index, stride] : llvm::zip(indices, meta.getStrides()))
    element = addIndex(b, loc, element,
                       arith::MulIOp::create(b, loc, index, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, flags);
  Value address = addIndex(b, loc, base, mulIndex(b, loc, element, 4));
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 1), i64);
}

/// The axis that numbers a scope's threads from 0 (null for a thread) and
/// the one that numbers the scope's instances in a CTA (null: one).
std::pair<StringRef, StringRef> scopeAxes(ScopeKind scope) {
  switch (scope) {
  case ScopeKind::Warp:
    return {"laneid", "warpid"};
  case ScopeKind::Warpgroup:
    return {"tid_in_wg", "wgid"};
  case ScopeKind::CTA:
    return {"tx", ""};
  default:
    return {"", ""};
  }
}

/// The scope's first thread, or null at thread scope (every thread is).
FailureOr<Value> isScopeLeader(OpBuilder &b, Location loc, ScopeKind scope,
                               const ThreadTargetCodegen &cg) {
  StringRef axis = scopeAxes(scope).first;
  if (axis.empty())
    return Value();
  Value id = cg.axisValue(b, loc, axis);
  if (!id)
    return failure();
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, id,
                               indexConstant(b, loc, 0))
      .getResult();
}

/// Runs `body` in an scf.if on `leader` (directly when it is null); the
/// if yields body's value, or `otherwise` on the other threads.
Value onLeader(OpBuilder &b, Location loc, Value leader, Value otherwise,
               function_ref<Value()> body) {
  if (!leader)
    return body();
  Type type = otherwise ? otherwise.getType() : Type();
  auto ifOp = scf::IfOp::create(b, loc, type ? TypeRange(type) : TypeRange(),
                                leader, /*withElseRegion=*/bool(type));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value v = body();
  if (type) {
    scf::YieldOp::create(b, loc, v);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, loc, otherwise);
    return ifOp.getResult(0);
  }
  return Value();
}

void asyncProxyFence(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_global,
                             NVVM::SharedSpaceAttr());
}

void gpuFence(OpBuilder &b, Location loc, LLVM::AtomicOrdering ordering) {
  auto fence = LLVM::FenceOp::create(b, loc, ValueRange());
  fence.setOrdering(ordering);
  fence.setSyncscope(kGpuScope);
}

/// A shared i32 per instance of `scope` in the CTA, for handing the old
/// value of an add to the scope's threads.
Value scopeSlots(gpu::GPUFuncOp func, ScopeKind scope, OpBuilder &b) {
  int64_t slots = scope == ScopeKind::Warp        ? 32
                  : scope == ScopeKind::Warpgroup ? 8
                                                  : 1;
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  return func.addWorkgroupAttribution(
      MemRefType::get({slots}, b.getI32Type(), MemRefLayoutAttrInterface(),
                      space),
      func.getLoc());
}

LogicalResult lowerFlagAdd(FlagAddOp op, gpu::GPUFuncOp func,
                           const ThreadTargetCodegen &cg, RewriterBase &rw) {
  Location loc = op.getLoc();
  ScopeKind scope = op.getScope().getKind();
  rw.setInsertionPoint(op);
  // Writes of every thread of the scope, TMA's reads of them included, are
  // ordered before the leader's release by the fence and the barrier.
  asyncProxyFence(rw, loc);
  if (failed(cg.barrier(rw, loc, scope)))
    return failure();
  FailureOr<Value> leader = isScopeLeader(rw, loc, scope, cg);
  if (failed(leader))
    return failure();
  bool used = !op.getOld().use_empty();
  Value otherwise = used && *leader
                        ? arith::ConstantIntOp::create(rw, loc, 0, 32).getResult()
                        : Value();
  Value old = onLeader(rw, loc, *leader, otherwise, [&] {
    Value ptr = flagPointer(rw, loc, op.getFlags(), op.getIndices());
    gpuFence(rw, loc, LLVM::AtomicOrdering::release);
    Value v = LLVM::AtomicRMWOp::create(rw, loc, LLVM::AtomicBinOp::add, ptr,
                                        op.getValue(),
                                        LLVM::AtomicOrdering::monotonic,
                                        kGpuScope, /*alignment=*/4);
    gpuFence(rw, loc, LLVM::AtomicOrdering::acquire);
    return v;
  });
  if (used && *leader) {
    // The leader's value to the scope: a slot per instance, written before
    // a second barrier and read after it (the next add's first barrier
    // orders these reads before the slot's next write).
    Value slots = scopeSlots(func, scope, rw);
    StringRef instanceAxis = scopeAxes(scope).second;
    Value slot = instanceAxis.empty() ? indexConstant(rw, loc, 0)
                                      : cg.axisValue(rw, loc, instanceAxis);
    if (!slot)
      return failure();
    onLeader(rw, loc, *leader, Value(), [&] {
      memref::StoreOp::create(rw, loc, old, slots, slot);
      return Value();
    });
    if (failed(cg.barrier(rw, loc, scope)))
      return failure();
    old = memref::LoadOp::create(rw, loc, slots, slot);
  }
  if (used)
    rw.replaceAllUsesWith(op.getOld(), old);
  rw.eraseOp(op);
  return success();
}

LogicalResult lowerFlagWait(FlagWaitOp op, const ThreadTargetCodegen &cg,
                            RewriterBase &rw) {
  Location loc = op.getLoc();
  ScopeKind scope = op.getScope().getKind();
  rw.setInsertionPoint(op);
  FailureOr<Value> leader = isScopeLeader(rw, loc, scope, cg);
  if (failed(leader))
    return failure();
  onLeader(rw, loc, *leader, Value(), [&] {
    Value ptr = flagPointer(rw, loc, op.getFlags(), op.getIndices());
    auto loop = scf::WhileOp::create(rw, loc, TypeRange(), ValueRange());
    rw.createBlock(&loop.getBefore());
    Value v = LLVM::LoadOp::create(rw, loc, rw.getI32Type(), ptr,
                                   /*alignment=*/4, false, false, false, false,
                                   LLVM::AtomicOrdering::acquire, kGpuScope);
    Value short_ = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt, v,
                                         op.getTarget());
    scf::ConditionOp::create(rw, loc, short_, ValueRange());
    rw.createBlock(&loop.getAfter());
    scf::YieldOp::create(rw, loc);
    rw.setInsertionPointAfter(loop);
    return Value();
  });
  if (failed(cg.barrier(rw, loc, scope)))
    return failure();
  // Each thread's later async-proxy accesses (TMA loads it issues) after
  // the generic-proxy writes the acquire made visible.
  asyncProxyFence(rw, loc);
  rw.eraseOp(op);
  return success();
}

} // namespace

LogicalResult lowerFlags(gpu::GPUFuncOp func, const ThreadTargetCodegen &cg,
                         RewriterBase &rw) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isa<FlagAddOp, FlagWaitOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    LogicalResult done =
        isa<FlagAddOp>(op) ? lowerFlagAdd(cast<FlagAddOp>(op), func, cg, rw)
                           : lowerFlagWait(cast<FlagWaitOp>(op), cg, rw);
    if (failed(done))
      return failure();
  }
  return success();
}

} // namespace axe::nvvm
