//===- SIMTEmit.cpp - Per-thread iteration over held elements -------------===//
//
// Emission helpers of the SIMT schedules: guarded regions, loops over a
// shape, the per-thread view of a register operand and the iteration over
// the elements its holder keeps (one writer per element where several
// threads hold it), runs of held elements copied to and from memory, index
// arithmetic, and a thread's rank in its scope.
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
#include "axe/Layout/Strided.h"

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
// Emission helpers
//===----------------------------------------------------------------------===//

/// Runs `body` where `cond` holds (directly when it is the constant true).
void guarded(OpBuilder &b, Location loc, Value cond,
             function_ref<void(OpBuilder &)> body) {
  if (!cond || matchPattern(cond, m_One())) {
    body(b);
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  body(b);
}

/// A loop nest over every index of `shape` (unrolled when small).
void forEachIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  LogicalBody body) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  if (n <= kMaxUnrolled) {
    SmallVector<int64_t, 4> coord(shape.size(), 0);
    for (int64_t x = 0; x < n; ++x) {
      SmallVector<Value, 4> idx;
      for (int64_t c : coord)
        idx.push_back(indexConstant(b, loc, c));
      body(b, loc, idx);
      Holders::advance(coord, shape);
    }
    return;
  }
  SmallVector<Value, 4> ivs;
  std::function<void(OpBuilder &, unsigned)> nest = [&](OpBuilder &ib,
                                                        unsigned d) {
    if (d == shape.size()) {
      body(ib, loc, ivs);
      return;
    }
    auto loop = scf::ForOp::create(ib, loc, indexConstant(ib, loc, 0),
                                   indexConstant(ib, loc, shape[d]),
                                   indexConstant(ib, loc, 1));
    OpBuilder::InsertionGuard g(ib);
    ib.setInsertionPoint(loop.getBody()->getTerminator());
    ivs.push_back(loop.getInductionVar());
    nest(ib, d + 1);
    ivs.pop_back();
  };
  nest(b, 0);
}

/// The thread axes that decide which thread holds an element of register
/// operand `reg`: its layout's, and those a slice at a run-time start moves
/// it along (a row of a tile whose rows are on laneid is some lane's).
SmallVector<std::string, 4> holderAxes(const TargetDescription &target,
                                       const GPUOperand &reg) {
  SmallVector<std::string, 4> axes = threadAxesOf(target, reg.layout());
  for (const auto &entry : reg.ref.offset.entries()) {
    const TargetAxis *a = target.findAxis(entry.first);
    if (a && a->isThreadAxis() && a->role != AxisRole::CTA &&
        !llvm::is_contained(axes, entry.first))
      axes.push_back(entry.first);
  }
  return axes;
}

HeldView emitHeldView(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                      const GPUOperand &reg) {
  auto view = InstanceEmitter::get(reg.layout(), reg.shape(),
                                   holderAxes(cg.target(), reg));
  return emitHeldView(b, loc, cg, reg, std::move(*view));
}

HeldView emitHeldView(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                      const GPUOperand &reg, InstanceEmitter view) {
  SmallVector<std::string, 4> axes = holderAxes(cg.target(), reg);
  HeldView h;
  h.view.emplace(std::move(view));
  CoordValue coord;
  for (const std::string &axis : axes) {
    Value v = cg.axisValue(b, loc, axis);
    if (Value start = reg.ref.offset.lookup(axis))
      v = arith::SubIOp::create(b, loc, v, start);
    coord.set(axis, v);
  }
  h.base = h.view->emitBase(b, loc, coord);
  return h;
}

namespace {

/// Threads in one instance of `scope`; 0 for all of a CTA's.
int64_t threadsPerInstance(const TargetDescription &target, ScopeKind scope) {
  switch (scope) {
  case ScopeKind::Thread:
    return 1;
  case ScopeKind::Warp:
    return target.warpSize;
  case ScopeKind::Warpgroup:
    return target.warpgroupSize();
  default:
    return 0;
  }
}

/// i1: whether the digits of the thread index below `instanceThreads` (all
/// of them for 0) that no axis of `axes` reads are 0; null when the axes
/// read every one.
Value unreadDigitsZero(OpBuilder &b, Location loc,
                       const ThreadTargetCodegen &cg,
                       ArrayRef<std::string> axes, int64_t instanceThreads) {
  // Each axis reads the digits [threadsPerStep, threadsPerStep * wrap) of
  // the mixed-radix thread index; an instance's threads differ in
  // [1, instanceThreads) only, so the digits above are read too.
  constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  SmallVector<std::pair<int64_t, int64_t>> read;
  if (instanceThreads > 0)
    read.push_back({instanceThreads, kUnbounded});
  for (const std::string &axis : axes)
    if (std::optional<AxisStep> step = cg.target().stepOfAxis(axis))
      read.push_back(
          {step->threadsPerStep,
           step->wrap > 0 ? step->threadsPerStep * step->wrap : kUnbounded});
  llvm::sort(read);
  SmallVector<std::pair<int64_t, int64_t>> merged;
  for (auto range : read) {
    if (!merged.empty() && range.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, range.second);
    else
      merged.push_back(range);
  }
  if (merged.size() == 1 && merged[0].first == 1 &&
      merged[0].second == kUnbounded)
    return Value();
  Value tid = cg.axisValue(b, loc, "tx");
  Value kept = indexConstant(b, loc, 0);
  for (auto [lo, hi] : merged) {
    Value digits =
        b.createOrFold<arith::DivUIOp>(loc, tid, indexConstant(b, loc, lo));
    if (hi != kUnbounded)
      digits = b.createOrFold<arith::RemUIOp>(loc, digits,
                                              indexConstant(b, loc, hi / lo));
    kept = addIndex(b, loc, kept, mulIndex(b, loc, digits, lo));
  }
  return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid,
                                       kept);
}

} // namespace

Value emitOneWriter(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                    const GPUOperand &reg, const HeldView &held,
                    ScopeKind scope) {
  Value unread = unreadDigitsZero(b, loc, cg, holderAxes(cg.target(), reg),
                                  threadsPerInstance(cg.target(), scope));
  Value first = held.view ? held.base.primary : Value();
  if (!unread)
    return first;
  if (!first)
    return unread;
  return b.createOrFold<arith::AndIOp>(loc, first, unread);
}

/// Calls `body` with the logical index of every element of the register
/// operand `reg` the current thread holds.
void forEachHeld(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                 const GPUOperand &reg, LogicalBody body,
                 std::optional<ScopeKind> writerScope) {
  if (holderAxes(cg.target(), reg).empty()) {
    // Every thread holds every element.
    Value writer =
        writerScope ? emitOneWriter(b, loc, cg, reg, HeldView(), *writerScope)
                    : Value();
    guarded(b, loc, writer,
            [&](OpBuilder &ib) { forEachIndex(ib, loc, reg.shape(), body); });
    return;
  }
  // The match steps made sure the view exists (checkInstanceView).
  HeldView h = emitHeldView(b, loc, cg, reg);
  const InstanceEmitter &view = *h.view;
  Value guard = writerScope ? emitOneWriter(b, loc, cg, reg, h, *writerScope)
                            : h.base.holds;
  guarded(b, loc, guard, [&](OpBuilder &ib) {
    int64_t n = view.view().localSize();
    if (n <= kMaxUnrolled) {
      for (int64_t j = 0; j < n; ++j)
        body(ib, loc, view.emitElement(ib, loc, h.base, j).logical);
      return;
    }
    view.emitLoop(ib, loc, h.base,
                  [&](OpBuilder &lb, Location l, const InstanceElement &e) {
                    body(lb, l, e.logical);
                  });
  });
}

namespace {

/// The m stride of each dim of a memory operand whose layout is plain
/// strided (Strided.h; no swizzle either), and its offset.
std::optional<PlainStrides> plainStrides(const GPUOperand &mem) {
  if (mem.isRegister() || mem.isDistributed() ||
      mem.space == MemorySpace::TMem || !mem.emitter)
    return std::nullopt;
  const Layout &layout = mem.layout();
  if (layout.isSwizzled() && !layout.swizzle()->isIdentity())
    return std::nullopt;
  return axe::plainStrides(mem.emitter->grouped(), mem.shape().size());
}

/// What divides the element offset of `mem`'s logical element `x` (in
/// `plain`) whatever x's innermost index is: the view's and slices' starts,
/// the layout's offset and the other dims' strides (0: everything).
int64_t outerDivisor(const GPUOperand &mem, const PlainStrides &plain) {
  int64_t d = plain.offset;
  if (auto view = dyn_cast<ViewOp>(mem.ref.root))
    d = std::gcd(d, viewOffsetDivisor(view));
  if (!mem.ref.offset.entries().empty())
    d = std::gcd(d, mem.ref.offsetAlignment == 0 ? 1 : mem.ref.offsetAlignment);
  for (size_t k = 0; k + 1 < plain.strides.size(); ++k)
    d = std::gcd(d, plain.strides[k]);
  return d;
}

} // namespace

bool copyHeldRuns(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                  const GPUOperand &reg, const GPUOperand &mem, bool toMemory,
                  ScopeKind scope) {
  auto plain = plainStrides(mem);
  if (!plain || reg.shape() != mem.shape() || reg.shape().empty() ||
      plain->strides.back() != 1 || reg.elementType() != mem.elementType() ||
      holderAxes(cg.target(), reg).empty())
    return false;
  int64_t bytes = (reg.elementType().getIntOrFloatBitWidth() + 7) / 8;
  int64_t maxLanes = 16 / bytes;
  if (maxLanes < 2)
    return false;
  auto view = InstanceEmitter::get(reg.layout(), reg.shape(),
                                   holderAxes(cg.target(), reg));
  if (!view)
    return false;
  int64_t n = view->view().localSize();
  if (n > kMaxUnrolled)
    return false;
  // Runs of local elements j, j + 1, ... whose logical indices step the
  // innermost dim by one: their starts and lengths.
  unsigned inner = reg.shape().size() - 1;
  SmallVector<std::pair<int64_t, int64_t>> runs;
  for (int64_t j = 0; j < n;) {
    Shape first = view->view().localOffset(j);
    int64_t len = 1;
    while (j + len < n && len < maxLanes) {
      Shape next = view->view().localOffset(j + len);
      Shape want = first;
      want[inner] += len;
      if (next != want)
        break;
      ++len;
    }
    runs.push_back({j, len});
    j += len;
  }
  if (llvm::all_of(runs, [](auto r) { return r.second == 1; }))
    return false;
  HeldView h = emitHeldView(b, loc, cg, reg, std::move(*view));
  // A run of `lanes` starts aligned where its first element's offset is a
  // multiple of lanes: the outer part and the thread's innermost base are,
  // and so is the run's own offset from the base.
  int64_t known = std::gcd(outerDivisor(mem, *plain),
                           getKnownAlignment(h.base.logical[inner]));
  auto divides = [](int64_t d, int64_t lanes) { return d % lanes == 0; };
  Value guard =
      toMemory ? emitOneWriter(b, loc, cg, reg, h, scope) : h.base.holds;
  guarded(b, loc, guard, [&](OpBuilder &ib) {
    for (auto [j, len] : runs) {
      int64_t at = j;
      int64_t left = len;
      while (left > 0) {
        int64_t offset = h.view->view().localOffset(at)[inner];
        int64_t lanes = left;
        // The widest power of two that fits and starts aligned.
        while (lanes > 1 && (!llvm::isPowerOf2_64(lanes) ||
                             !divides(known, lanes) || offset % lanes != 0))
          --lanes;
        InstanceElement e = h.view->emitElement(ib, loc, h.base, at);
        CoordValue place =
            mem.emitter->emitUnswizzled(ib, loc, e.logical, &mem.ref.offset);
        if (lanes == 1) {
          if (toMemory)
            mem.storeAt(ib, loc, place, reg.read(ib, loc, e.logical));
          else
            reg.write(ib, loc, e.logical, mem.loadAt(ib, loc, place));
        } else if (toMemory) {
          SmallVector<Value, 4> values;
          for (int64_t k = 0; k < lanes; ++k)
            values.push_back(reg.read(
                ib, loc, h.view->emitElement(ib, loc, h.base, at + k).logical));
          mem.storeAt(ib, loc, place,
                      vector::FromElementsOp::create(
                          ib, loc, VectorType::get({lanes}, reg.elementType()),
                          values));
        } else {
          Value v = mem.loadAt(ib, loc, place, lanes);
          for (int64_t k = 0; k < lanes; ++k)
            reg.write(ib, loc,
                      h.view->emitElement(ib, loc, h.base, at + k).logical,
                      vector::ExtractOp::create(ib, loc, v, k));
        }
        at += lanes;
        left -= lanes;
      }
    }
  });
  return true;
}

/// Logical indices of `shape` for row-major flat index `flat`.
SmallVector<Value, 4> delinearize(OpBuilder &b, Location loc, Value flat,
                                  ArrayRef<int64_t> shape) {
  SmallVector<Value, 4> idx(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    Value ext = indexConstant(b, loc, shape[d]);
    idx[d] = d == 0 ? flat : arith::RemUIOp::create(b, loc, flat, ext);
    if (d > 0)
      flat = arith::DivUIOp::create(b, loc, flat, ext);
  }
  return idx;
}

Value linearize(OpBuilder &b, Location loc, ValueRange idx,
                ArrayRef<int64_t> shape) {
  Value flat = indexConstant(b, loc, 0);
  for (auto [v, e] : llvm::zip(idx, shape))
    flat = addIndex(b, loc, mulIndex(b, loc, flat, e), v);
  return flat;
}

/// The index into an operand of shape `to` of logical `idx` of shape `from`
/// (mapElement, in IR).
SmallVector<Value, 4> mapIndices(OpBuilder &b, Location loc, ValueRange idx,
                                 ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from == to)
    return SmallVector<Value, 4>(idx.begin(), idx.end());
  if (from.size() == to.size() && broadcastsTo(to, from)) {
    SmallVector<Value, 4> out;
    for (auto [v, e] : llvm::zip(idx, to))
      out.push_back(e == 1 ? indexConstant(b, loc, 0) : v);
    return out;
  }
  return delinearize(b, loc, linearize(b, loc, idx, from), to);
}

/// The rank of the current thread among the threads of `op`'s scope
/// instance; an error on `op` when no thread axis numbers them.
FailureOr<ScopeRank> scopeRank(OpBuilder &b, Operation *op,
                               const ThreadTargetCodegen &cg) {
  const TargetDescription &t = cg.target();
  Location loc = op->getLoc();
  ScopeKind scope = scopeOf(op);
  auto unit = ExecutionScope(static_cast<int>(scope));
  ScopeRank r;
  r.threads = t.threadsPerInstance(unit, threadsOf(op));
  if (r.threads == 1) {
    r.rank = indexConstant(b, loc, 0);
    return r;
  }
  const TargetAxis *axis =
      t.axisNumbering(ExecutionScope::Thread, unit, /*dim=*/0);
  if (!axis)
    return op->emitError("nvvm: no thread axis numbers the threads of ")
           << stringifyScopeKind(scope) << " scope";
  r.rank = cg.axisValue(b, loc, axis->name);
  return r;
}

} // namespace axe::nvvm
