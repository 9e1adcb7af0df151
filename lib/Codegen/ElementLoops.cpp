//===- ElementLoops.cpp - Which agent handles which elements --------------===//

#include "axe/Codegen/ElementLoops.h"

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;

namespace axe {

bool runsScopeAsOneThread(const ScheduleContext &ctx) {
  const ThreadTargetCodegen *cg =
      ctx.codegen ? ctx.codegen->threads() : nullptr;
  return cg && cg->runsScopeAsOneThread();
}

static int64_t elementCount(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}

static BufferType typeOf(Value buffer) {
  return cast<BufferType>(buffer.getType());
}

Result<Holders> Holders::get(const TargetDescription &target,
                             const Layout &layout, ArrayRef<int64_t> shape,
                             int64_t threads) {
  Holders h;
  h.threads = threads;
  h.elements = elementCount(shape);
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

int64_t threadsOf(Operation *op) {
  return int64_t(op->getParentOfType<KernelOp>().getThreads());
}

ScopeKind scopeOf(Operation *op) {
  return cast<OperatorOpInterface>(op).getScope().getKind();
}

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
static Result<bool>
checkReadsOwnRegisters(const TargetDescription &target, int64_t threads,
                       const Layout &driver, ArrayRef<int64_t> driverShape,
                       const Layout &reg, ArrayRef<int64_t> regShape,
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

static Result<bool> checkInstanceView(const TargetDescription &target,
                                      const Layout &layout,
                                      ArrayRef<int64_t> shape) {
  SmallVector<std::string, 4> axes = threadAxesOf(target, layout);
  if (axes.empty())
    return true;
  auto view = InstanceView::get(layout, shape, axes);
  if (!view)
    return view.takeFailure();
  return true;
}

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
  // One agent holds every element of its instance.
  if (runsScopeAsOneThread(ctx))
    return ScheduleMatch::accept();
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
  if (runsScopeAsOneThread(ctx))
    return ScheduleMatch::accept();
  BufferType t = typeOf(reg);
  if (auto ok = checkInstanceView(*ctx.target, t.getLayout(), t.getShape());
      !ok)
    return ScheduleMatch::decline("no per-thread view of the register "
                                  "buffer: " +
                                  ok.message());
  return ScheduleMatch::accept();
}

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
                  LogicalBody body, bool unroll) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  if (unroll && n <= kMaxUnrolled) {
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
SmallVector<std::string, 4> holderAxes(const ThreadTargetCodegen &cg,
                                       const ElementOperand &reg) {
  if (cg.runsScopeAsOneThread())
    return {};
  const TargetDescription &target = cg.target();
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
                      const ElementOperand &reg) {
  auto view =
      InstanceEmitter::get(reg.layout(), reg.shape(), holderAxes(cg, reg));
  return emitHeldView(b, loc, cg, reg, std::move(*view));
}

HeldView emitHeldView(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                      const ElementOperand &reg, InstanceEmitter view) {
  SmallVector<std::string, 4> axes = holderAxes(cg, reg);
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

/// Threads in one instance of `scope`; 0 for all of a CTA's.
static int64_t threadsPerInstance(const TargetDescription &target,
                                  ScopeKind scope) {
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
static Value unreadDigitsZero(OpBuilder &b, Location loc,
                              const ThreadTargetCodegen &cg,
                              ArrayRef<std::string> axes,
                              int64_t instanceThreads) {
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

Value emitOneWriter(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                    const ElementOperand &reg, const HeldView &held,
                    ScopeKind scope) {
  if (cg.runsScopeAsOneThread())
    return Value();
  Value unread = unreadDigitsZero(b, loc, cg, holderAxes(cg, reg),
                                  threadsPerInstance(cg.target(), scope));
  Value first = held.view ? held.base.primary : Value();
  if (!unread)
    return first;
  if (!first)
    return unread;
  return b.createOrFold<arith::AndIOp>(loc, first, unread);
}

void forEachHeld(OpBuilder &b, Location loc, const ThreadTargetCodegen &cg,
                 const ElementOperand &reg, LogicalBody body,
                 std::optional<ScopeKind> writerScope) {
  if (holderAxes(cg, reg).empty()) {
    // Every thread holds every element.
    Value writer =
        writerScope ? emitOneWriter(b, loc, cg, reg, HeldView(), *writerScope)
                    : Value();
    guarded(b, loc, writer, [&](OpBuilder &ib) {
      forEachIndex(ib, loc, reg.shape(), body,
                   /*unroll=*/!cg.runsScopeAsOneThread());
    });
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

static Value linearize(OpBuilder &b, Location loc, ValueRange idx,
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
  r.threads =
      cg.runsScopeAsOneThread() ? 1 : t.threadsPerInstance(unit, threadsOf(op));
  if (r.threads == 1) {
    r.rank = indexConstant(b, loc, 0);
    return r;
  }
  const TargetAxis *axis =
      t.axisNumbering(ExecutionScope::Thread, unit, /*dim=*/0);
  if (!axis)
    return op->emitError("no thread axis numbers the threads of ")
           << stringifyScopeKind(scope) << " scope on this target";
  r.rank = cg.axisValue(b, loc, axis->name);
  return r;
}

/// Calls `body` with each logical index of `shape` this thread takes when
/// the instance's threads share them round robin.
void forEachShared(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   const ScopeRank &rank, LogicalBody body) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  auto loop = scf::ForOp::create(b, loc, rank.rank, indexConstant(b, loc, n),
                                 indexConstant(b, loc, rank.threads));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(b, loc, delinearize(b, loc, loop.getInductionVar(), shape));
}

SmallVector<std::string, 4> threadAxesOf(const TargetDescription &target,
                                         const Layout &layout) {
  SmallVector<std::string, 4> axes;
  for (const std::string &axis : layout.tile().axes()) {
    const TargetAxis *a = target.findAxis(axis);
    if (a && a->isThreadAxis() && a->role != AxisRole::CTA)
      axes.push_back(axis);
  }
  return axes;
}

int64_t threadAxisValue(const TargetDescription &target, StringRef axis,
                        int64_t tid) {
  std::optional<AxisStep> step = target.stepOfAxis(axis);
  if (!step)
    return 0;
  int64_t v = tid / step->threadsPerStep;
  return step->wrap > 0 ? v % step->wrap : v;
}

} // namespace axe
