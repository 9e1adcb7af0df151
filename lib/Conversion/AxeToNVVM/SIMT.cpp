//===- SIMT.cpp - What the SIMT schedules share ---------------------------===//
//
// Which threads hold which elements of a layout (enumerated, for the match
// steps) and the shared match steps (docs/NVIDIA.md). The rest of what the
// SIMT schedules share is split by concern: SIMTEmit.cpp (per-thread
// iteration over a register operand's held elements), SIMTDistribute.cpp
// (the round-robin split of memory-to-memory work over a scope's threads),
// SIMTStaging.cpp (staging register operands through shared memory) and
// SIMTAtoms.cpp (atom fragments, the mbarriers of asynchronous operators).
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

static int64_t shapeSize(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

Result<Holders> Holders::get(const TargetDescription &target,
                             const Layout &layout, ArrayRef<int64_t> shape,
                             int64_t threads) {
  Holders h;
  h.threads = threads;
  h.elements = shapeSize(shape);
  if (h.elements * threads > kMaxEnumerated)
    return fail("the register tile is too large to check which threads "
                "hold it (" +
                std::to_string(h.elements) + " elements x " +
                std::to_string(threads) + " threads)");
  SmallVector<std::string, 4> axes = threadAxesOf(target, layout);
  h.bits.resize(h.elements * threads, axes.empty());
  if (axes.empty())
    return h;
  std::vector<std::vector<int64_t>> value(axes.size());
  for (auto [i, axis] : llvm::enumerate(axes))
    for (int64_t t = 0; t < threads; ++t)
      value[i].push_back(threadAxisValue(target, axis, t));
  SmallVector<int64_t, 4> coord(shape.size(), 0);
  for (int64_t x = 0; x < h.elements; ++x) {
    auto placements = layout.apply(coord, shape);
    if (!placements)
      return placements.takeFailure();
    for (const Coord &p : *placements)
      for (int64_t t = 0; t < threads; ++t) {
        bool match = true;
        for (auto [i, axis] : llvm::enumerate(axes))
          match &= value[i][t] == p.get(axis);
        if (match)
          h.bits.set(x * threads + t);
      }
    advance(coord, shape);
  }
  return h;
}

/// Row-major successor of `coord` within `shape`.
void Holders::advance(SmallVectorImpl<int64_t> &coord,
                      ArrayRef<int64_t> shape) {
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    if (++coord[d] < shape[d])
      return;
    coord[d] = 0;
  }
}

TargetPredicate gpuTargets() { return targetKind(TargetKind::GPU); }

const ThreadTargetCodegen &codegenOf(const ScheduleContext &ctx) {
  // matchCommon declined any context without element-level hooks.
  return *ctx.codegen->threads();
}

int64_t threadsOf(Operation *op) {
  return int64_t(op->getParentOfType<KernelOp>().getThreads());
}

ScopeKind scopeOf(Operation *op) {
  return cast<OperatorOpInterface>(op).getScope().getKind();
}

//===----------------------------------------------------------------------===//
// Which threads hold which elements
//===----------------------------------------------------------------------===//

/// The row-major index in `to` of logical `coord` of `from` when an operand
/// of shape `to` feeds one of shape `from`: equal shapes map one to one, a
/// dim of extent 1 in `to` broadcasts, other shapes of one size reshape.
int64_t mapElement(ArrayRef<int64_t> coord, ArrayRef<int64_t> from,
                   ArrayRef<int64_t> to) {
  if (from.size() == to.size()) {
    int64_t flat = 0;
    bool mapped = true;
    for (size_t d = 0; d < to.size(); ++d) {
      if (to[d] != from[d] && to[d] != 1)
        mapped = false;
      flat = flat * to[d] + (to[d] == 1 ? 0 : coord[d]);
    }
    if (mapped)
      return flat;
  }
  int64_t flat = 0;
  for (size_t d = 0; d < from.size(); ++d)
    flat = flat * from[d] + coord[d];
  return flat;
}

/// Fails, naming an element and a thread, unless every thread that
/// handles an element of `driver` holds what it reads of `reg`.
Result<bool> checkReadsOwnRegisters(const TargetDescription &target,
                                    int64_t threads, const Layout &driver,
                                    ArrayRef<int64_t> driverShape,
                                    const Layout &reg,
                                    ArrayRef<int64_t> regShape,
                                    StringRef what) {
  auto d = Holders::get(target, driver, driverShape, threads);
  if (!d)
    return d.takeFailure();
  auto r = Holders::get(target, reg, regShape, threads);
  if (!r)
    return r.takeFailure();
  SmallVector<int64_t, 4> coord(driverShape.size(), 0);
  for (int64_t x = 0; x < d->size(); ++x) {
    int64_t y = mapElement(coord, driverShape, regShape);
    for (int64_t t = 0; t < threads; ++t)
      if (d->holds(x, t) && !r->holds(y, t)) {
        std::string c;
        for (int64_t v : coord)
          c += (c.empty() ? "" : ", ") + std::to_string(v);
        return fail("thread " + std::to_string(t) + " handles element (" + c +
                    ") but does not hold it in " + what.str() +
                    "; the staged schedule exchanges registers through "
                    "shared memory");
      }
    Holders::advance(coord, driverShape);
  }
  return true;
}

Result<bool> checkInstanceView(const TargetDescription &target,
                               const Layout &layout, ArrayRef<int64_t> shape) {
  SmallVector<std::string, 4> axes = threadAxesOf(target, layout);
  if (axes.empty())
    return true;
  auto view = InstanceView::get(layout, shape, axes);
  if (!view)
    return view.takeFailure();
  return true;
}

//===----------------------------------------------------------------------===//
// Shared match and rewrite steps
//===----------------------------------------------------------------------===//

/// What every SIMT schedule checks: the operator runs inside a kernel at a
/// scope of threads of one CTA, on buffers in GPU memory.
ScheduleMatch matchCommon(Operation *op, const ScheduleContext &ctx) {
  if (!op->getParentOfType<KernelOp>())
    return ScheduleMatch::decline(
        "the operator is outside an axe.kernel; the nvvm target runs "
        "operators only in kernels");
  if (!ctx.codegen || !ctx.codegen->threads())
    return ScheduleMatch::decline("no nvvm code generator for the target");
  ScopeKind scope = scopeOf(op);
  if (scope > ScopeKind::CTA)
    return ScheduleMatch::decline(
        "scope '" + stringifyScopeKind(scope).str() +
        "' spans several CTAs; the SIMT schedules work within one CTA");
  if (scope == ScopeKind::Warpgroup && !ctx.target->hasWarpgroups())
    return ScheduleMatch::decline(ctx.targetName() + " has no warpgroups");
  for (Value v : cast<OperatorOpInterface>(op).getBufferOperands())
    if (auto ok = checkGPUOperand(v); !ok)
      return ScheduleMatch::decline(ok.message());
  return ScheduleMatch::accept();
}

BufferType typeOf(Value buffer) { return cast<BufferType>(buffer.getType()); }

/// Declines unless the current thread holds what it reads of register
/// operand `reg` while handling the elements of `driver`.
/// Fails when `reg` is a slice of registers at a run-time start that
/// moves along thread axes: which thread holds it is then known only at run
/// time, so no static check can pair its holders with another operand's.
Result<bool> checkStaticHolders(const TargetDescription &target, Value reg) {
  for (Value cur = reg; auto slice = cur.getDefiningOp<SliceOp>();
       cur = slice.getSource()) {
    SmallVector<SliceStart> starts = slice.getKnownStarts();
    if (llvm::all_of(starts, [](const SliceStart &s) { return s.known; }))
      continue;
    BufferType source = slice.getSource().getType();
    auto axes = sliceStartAxes(source.getLayout().tile(), source.getShape(),
                               starts, slice.getType().getShape());
    if (!axes)
      return axes.takeFailure();
    for (const std::string &axis : *axes) {
      const TargetAxis *a = target.findAxis(axis);
      if (a && a->isThreadAxis() && a->role != AxisRole::CTA)
        return fail("a register slice's run-time start moves it along '" +
                    axis +
                    "', so which thread holds it is known only at run "
                    "time; the SIMT schedules pair register operands only "
                    "where their holders are known when compiling");
    }
  }
  return true;
}

ScheduleMatch matchOwnRegisters(Operation *op, const ScheduleContext &ctx,
                                Value driver, Value reg, StringRef what) {
  for (Value v : {driver, reg})
    if (auto ok = checkStaticHolders(*ctx.target, v); !ok)
      return ScheduleMatch::decline(ok.message());
  BufferType d = typeOf(driver), r = typeOf(reg);
  if (auto ok = checkReadsOwnRegisters(*ctx.target, threadsOf(op),
                                       d.getLayout(), d.getShape(),
                                       r.getLayout(), r.getShape(), what);
      !ok)
    return ScheduleMatch::decline(ok.message());
  return ScheduleMatch::accept();
}

ScheduleMatch matchView(const ScheduleContext &ctx, Value reg) {
  BufferType t = typeOf(reg);
  if (auto ok = checkInstanceView(*ctx.target, t.getLayout(), t.getShape());
      !ok)
    return ScheduleMatch::decline("no per-thread view of the register "
                                  "buffer: " +
                                  ok.message());
  return ScheduleMatch::accept();
}

} // namespace axe::nvvm
