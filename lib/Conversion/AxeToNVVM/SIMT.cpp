//===- SIMT.cpp - What the SIMT schedules share ---------------------------===//
//
// Which threads hold which elements of a layout (enumerated, for the match
// steps), the per-thread iteration over the elements a register operand's
// holder keeps, the round-robin split of memory-to-memory work over a
// scope's threads, the shared match steps, and the staging of register
// operands through shared memory (docs/NVIDIA.md).
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

const TargetCodegen &codegenOf(const ScheduleContext &ctx) {
  return *ctx.codegen;
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

HeldView emitHeldView(OpBuilder &b, Location loc, const TargetCodegen &cg,
                      const GPUOperand &reg) {
  auto view = InstanceEmitter::get(reg.layout(), reg.shape(),
                                   holderAxes(cg.target(), reg));
  return emitHeldView(b, loc, cg, reg, std::move(*view));
}

HeldView emitHeldView(OpBuilder &b, Location loc, const TargetCodegen &cg,
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
Value unreadDigitsZero(OpBuilder &b, Location loc, const TargetCodegen &cg,
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

Value emitOneWriter(OpBuilder &b, Location loc, const TargetCodegen &cg,
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
void forEachHeld(OpBuilder &b, Location loc, const TargetCodegen &cg,
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

/// The m stride of each dim of a memory layout that is plain strided (each
/// dim at most one iter, on m; no swizzle, no replica, its offset on m
/// only), and its offset.
struct PlainStrides {
  SmallVector<int64_t, 4> strides;
  int64_t offset = 0;
};

std::optional<PlainStrides> plainStrides(const GPUOperand &mem) {
  if (mem.isRegister() || mem.isDistributed() ||
      mem.space == MemorySpace::TMem || !mem.emitter)
    return std::nullopt;
  const Layout &layout = mem.layout();
  if (layout.isSwizzled() && !layout.swizzle()->isIdentity())
    return std::nullopt;
  const GroupedLayout &g = mem.emitter->grouped();
  if (!g.layout.replica().empty())
    return std::nullopt;
  for (const auto &[axis, v] : g.layout.offset().entries())
    if (axis != kDefaultAxis && v != 0)
      return std::nullopt;
  PlainStrides p;
  p.offset = g.layout.offset().get(kDefaultAxis);
  for (unsigned d = 0; d < mem.shape().size(); ++d) {
    int64_t stride = 0, iters = 0;
    for (const Iter &it : g.block(d)) {
      if (it.extent == 1)
        continue;
      if (it.axis != kDefaultAxis)
        return std::nullopt;
      stride = it.stride;
      ++iters;
    }
    if (iters > 1)
      return std::nullopt;
    p.strides.push_back(stride);
  }
  return p;
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

bool copyHeldRuns(OpBuilder &b, Location loc, const TargetCodegen &cg,
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
  int64_t known =
      std::gcd(outerDivisor(mem, *plain), knownDivisor(h.base.logical[inner]));
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
                               const TargetCodegen &cg) {
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

//===----------------------------------------------------------------------===//
// Threads sharing memory-to-memory work
//===----------------------------------------------------------------------===//

/// Whether accesses of `lanes` consecutive elements of `op` start on a
/// multiple of `lanes` elements wherever the layout says they do: the
/// view's start in its memref and the run-time slice starts must be
/// multiples of `lanes` too (vector and cp.async accesses of 8 or 16 bytes
/// fault on a GPU when misaligned). Memory bases (cudaMalloc's 256 bytes,
/// shared buffers' 128) are taken as aligned.
bool startsAligned(const GPUOperand &op, int64_t lanes) {
  if (auto view = dyn_cast<ViewOp>(op.ref.root)) {
    int64_t d = viewOffsetDivisor(view);
    if (d != 0 && d % lanes != 0)
      return false;
  }
  if (!op.ref.offset.entries().empty() &&
      (op.ref.offsetAlignment == 0 || op.ref.offsetAlignment % lanes != 0))
    return false;
  return true;
}

DynamicOffset dynamicOffsetOf(const GPUOperand &op) {
  DynamicOffset d;
  d.present = !op.ref.offset.entries().empty();
  d.alignment = op.ref.offsetAlignment;
  return d;
}

/// dst = src (or = fill) with the elements shared round robin by the
/// instance's threads, `lanes` consecutive elements of the innermost loop
/// at a time where both operands are contiguous along it.
/// Whether a global -> shared copy of `lanes` elements per access goes by
/// cp.async: the target has it, the access is 4, 8 or 16 bytes, the types
/// match (cp.async converts nothing) and each element has one place in
/// shared memory.
bool useCpAsync(const TargetDescription &target, const GPUOperand &dst,
                const GPUOperand &src, int64_t lanes) {
  if (!target.hasFeature("cp.async") || src.space != MemorySpace::Global ||
      dst.space != MemorySpace::Shared ||
      src.elementType() != dst.elementType() ||
      !vectorMatchesScalarMemory(dst.elementType()))
    return false;
  int64_t bytes = lanes * dst.elementType().getIntOrFloatBitWidth() / 8;
  return (bytes == 4 || bytes == 8 || bytes == 16) &&
         dst.layout().tile().replicaOffsets().size() <= 1;
}

void emitDistributed(OpBuilder &b, Location loc, const GPUOperand &dst,
                     const GPUOperand *src, Value fill, const ScopeRank &rank,
                     const TargetDescription &target) {
  SmallVector<SpaceOperand, 2> operands;
  operands.push_back({&*dst.emitter, iota(dst.shape().size())});
  bool sameShape = !src || src->shape() == dst.shape();
  if (src && sameShape)
    operands.push_back({&*src->emitter, iota(src->shape().size())});
  IterSpace space = IterSpace::build(dst.shape(), operands);
  Type elt = dst.elementType();
  int64_t lanes = 1;
  bool distributed = dst.isDistributed() || (src && src->isDistributed());
  if (!space.loops().empty() && sameShape && !distributed &&
      vectorMatchesScalarMemory(elt) &&
      (!src || vectorMatchesScalarMemory(src->elementType()))) {
    unsigned inner = space.loops().size() - 1;
    int64_t bits = elt.getIntOrFloatBitWidth();
    if (src)
      bits =
          std::max<int64_t>(bits, src->elementType().getIntOrFloatBitWidth());
    for (int64_t l = std::max<int64_t>(1, 128 / bits); l > 1; l /= 2) {
      if (space.loops()[inner].extent % l != 0)
        continue;
      if (!contiguousAlong(space, inner, 0, l, /*replicas=*/true,
                           dynamicOffsetOf(dst)))
        continue;
      if (src && !contiguousAlong(space, inner, 1, l, /*replicas=*/false,
                                  dynamicOffsetOf(*src)))
        continue;
      // Wide accesses fault on a GPU unless they start aligned: in the
      // layout (offset, other strides) and at run time.
      if (!alignedAlong(space, inner, 0, l, /*replicas=*/true) ||
          !startsAligned(dst, l) ||
          (src && (!alignedAlong(space, inner, 1, l, /*replicas=*/false) ||
                   !startsAligned(*src, l))))
        continue;
      lanes = l;
      break;
    }
    if (lanes > 1)
      space.split(inner, lanes);
  }
  // Chunks: every loop but the vector's, innermost fastest, so consecutive
  // threads take consecutive chunks (coalesced global accesses).
  SmallVector<unsigned> chunkLoops;
  int64_t chunks = 1;
  for (unsigned l = 0; l < space.loops().size(); ++l) {
    if (lanes > 1 && l + 1 == space.loops().size())
      continue;
    chunkLoops.push_back(l);
    chunks *= space.loops()[l].extent;
  }
  // cp.async: each access is committed as its own group; the thread waits
  // for all of its groups after the loop, before the operator ends. (The
  // groups are nvvm's, not nvgpu's token-carrying ones: an nvgpu group of
  // no tokens, needed to start a loop-carried one, does not print in a form
  // that parses back.)
  bool async =
      src && sameShape && !distributed && useCpAsync(target, dst, *src, lanes);
  auto loop =
      scf::ForOp::create(b, loc, rank.rank, indexConstant(b, loc, chunks),
                         indexConstant(b, loc, rank.threads));
  if (async) {
    OpBuilder::InsertionGuard after(b);
    b.setInsertionPointAfter(loop);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  }
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value rest = loop.getInductionVar();
  SmallVector<Value> ivs(space.loops().size());
  for (int64_t i = int64_t(chunkLoops.size()) - 1; i >= 0; --i) {
    int64_t ext = space.loops()[chunkLoops[i]].extent;
    if (i == 0) {
      ivs[chunkLoops[i]] = rest;
      break;
    }
    ivs[chunkLoops[i]] =
        arith::RemUIOp::create(b, loc, rest, indexConstant(b, loc, ext));
    rest = arith::DivUIOp::create(b, loc, rest, indexConstant(b, loc, ext));
  }
  if (async) {
    CoordValue p = space.emitPlacement(b, loc, 1, ivs, &src->ref.offset);
    src->emitter->applySwizzle(b, loc, p);
    CoordValue d = space.emitPlacement(b, loc, 0, ivs, &dst.ref.offset);
    dst.emitter->applySwizzle(b, loc, d);
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, b.getType<nvgpu::DeviceAsyncTokenType>(), dst.memory,
        ValueRange{dst.address(b, loc, d)}, src->memory,
        ValueRange{src->address(b, loc, p)}, b.getIndexAttr(lanes), Value(),
        UnitAttr());
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    return;
  }
  Value value;
  if (src && sameShape) {
    CoordValue p = space.emitPlacement(b, loc, 1, ivs, &src->ref.offset);
    src->emitter->applySwizzle(b, loc, p);
    value = castElements(b, loc, src->loadAt(b, loc, p, lanes), elt);
  } else if (src) {
    // Different shapes of one size: element by element through the flat
    // index.
    SmallVector<Value> logical = space.emitLogical(b, loc, ivs);
    value = castElements(
        b, loc,
        src->read(b, loc,
                  mapIndices(b, loc, logical, dst.shape(), src->shape())),
        elt);
  } else {
    value = lanes == 1 ? fill
                       : Value(vector::BroadcastOp::create(
                             b, loc, VectorType::get({lanes}, elt), fill));
  }
  CoordValue d = space.emitPlacement(b, loc, 0, ivs, &dst.ref.offset);
  dst.emitter->forEachPlacement(
      b, loc, d, [&](OpBuilder &ib, Location il, const CoordValue &p) {
        dst.storeAt(ib, il, p, value);
      });
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
  if (!ctx.codegen)
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

bool isStaged(Value v);

MemorySpace spaceOf(Value buffer) {
  if (isStaged(buffer))
    return MemorySpace::Shared;
  auto chain = walkBufferChain(buffer);
  return cast<BufferType>(chain->root->getResult(0).getType()).getMemorySpace();
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

//===----------------------------------------------------------------------===//
// Staging register operands through shared memory
//===----------------------------------------------------------------------===//

/// The register inputs the staged schedules route through shared memory
/// while their inner rewrite runs (operandsOf hands out the staged copy).
/// Dispatch rewrites one operator at a time on one thread.
thread_local const llvm::SmallPtrSet<Value, 4> *stagedInputs = nullptr;

bool isStaged(Value v) { return stagedInputs && stagedInputs->contains(v); }

/// The scratch a staged operand goes through: a flat shared axe.alloc at
/// the start of the kernel with one region per instance of `scope`, and the
/// current instance's region as a row-major operand of `shape`.
FailureOr<GPUOperand> stagingBuffer(OpBuilder &b, Location loc, Operation *op,
                                    const TargetCodegen &cg,
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
  g.storage = FlatStorage{0, *instances * size};
  g.memory = UnrealizedConversionCastOp::create(
                 b, loc, getFlatMemRefType(rootType), alloc.getResult())
                 .getResult(0);
  g.emitter.emplace(*LayoutEmitter::get(g.ref.layout, shape));
  return g;
}

/// Copies register operand `reg` (every thread its held elements) into
/// its scratch and waits for the scope, so any thread may read it.
FailureOr<GPUOperand> stageOperand(OpBuilder &b, Location loc, Operation *op,
                                   const TargetCodegen &cg,
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
thread_local const TargetCodegen *stagingCodegen = nullptr;

FailureOr<std::vector<GPUOperand>> operandsOf(Operation *op, OpBuilder &b,
                                              ValueRange buffers) {
  std::vector<GPUOperand> out;
  for (Value v : buffers) {
    auto r = getGPUOperand(b, op->getLoc(), v);
    if (!r) {
      op->emitError("nvvm: ") << r.message();
      return failure();
    }
    if (isStaged(v)) {
      auto staged = stageOperand(b, op->getLoc(), op, *stagingCodegen, *r);
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
    stagingCodegen = ctx.codegen;
    LogicalResult ok = inner(op, ctx, plan.inner, rw);
    stagedInputs = nullptr;
    stagingCodegen = nullptr;
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

//===----------------------------------------------------------------------===//
// Atom fragments
//===----------------------------------------------------------------------===//

Result<Fragment> fragmentOf(const InstructionAtom &atom, StringRef name,
                            StringRef axis) {
  const AtomOperand *op = atom.findOperand(name);
  if (!op || !op->layout)
    return fail(atom.name + " has no fixed " + name.str() + " fragment");
  auto view = InstanceView::get(*op->layout, op->shape, {axis.str()});
  if (!view)
    return view.takeFailure();
  Fragment f;
  f.layout = *op->layout;
  f.shape = op->shape;
  f.axis = axis.str();
  f.view = *view;
  for (int64_t j = 0; j < view->localSize(); ++j) {
    f.offsets.push_back(view->localOffset(j));
    f.slots.push_back(view->local().apply(j).front().get(kDefaultAxis));
  }
  return f;
}

std::optional<Shape> positionOf(const Fragment &f, int64_t t, int64_t slot) {
  Coord c;
  c.set(f.axis, t);
  std::optional<Shape> base = f.view->instanceBase(c);
  if (!base)
    return std::nullopt;
  for (int64_t j = 0; j < f.size(); ++j)
    if (f.slots[j] == slot) {
      Shape p = *base;
      for (size_t d = 0; d < p.size(); ++d)
        p[d] += f.offsets[j][d];
      return p;
    }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// mbarriers of asynchronous operators
//===----------------------------------------------------------------------===//

/// Spins try_wait.parity does before it gives up and tries again.
constexpr int64_t kWaitTicks = 10000000;

SiteBarrier createSiteBarrier(RewriterBase &rw, KernelOp kernel,
                              const TargetCodegen &cg) {
  OpBuilder::InsertionGuard guard(rw);
  Location loc = kernel.getLoc();
  MLIRContext *ctx = rw.getContext();
  rw.setInsertionPointToStart(&kernel.getBody().front());
  auto groupType = nvgpu::MBarrierGroupType::get(
      ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup), 1);
  SiteBarrier s;
  s.group = nvgpu::MBarrierCreateOp::create(rw, loc, groupType);
  s.parity =
      memref::AllocaOp::create(rw, loc, MemRefType::get({1}, rw.getI32Type()));
  Value zero = indexConstant(rw, loc, 0);
  memref::StoreOp::create(rw, loc, arith::ConstantIntOp::create(rw, loc, 0, 32),
                          s.parity, zero);
  Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                      cg.axisValue(rw, loc, "tx"), zero);
  guarded(rw, loc, first, [&](OpBuilder &b) {
    nvgpu::MBarrierInitOp::create(b, loc, s.group, indexConstant(b, loc, 1),
                                  zero, Value());
    NVVM::FenceMbarrierInitOp::create(b, loc, TypeRange());
  });
  (void)cg.barrier(rw, loc, ScopeKind::CTA);
  return s;
}

void emitPhaseWait(OpBuilder &b, Location loc, const SiteBarrier &s) {
  Value zero = indexConstant(b, loc, 0);
  Value parity = memref::LoadOp::create(b, loc, s.parity, zero);
  Value bit = arith::TruncIOp::create(b, loc, b.getI1Type(), parity);
  nvgpu::MBarrierTryWaitParityOp::create(
      b, loc, s.group, bit, indexConstant(b, loc, kWaitTicks), zero);
  Value next = arith::XOrIOp::create(
      b, loc, parity, arith::ConstantIntOp::create(b, loc, 1, 32));
  memref::StoreOp::create(b, loc, next, s.parity, zero);
}

Value siteBarrierPointer(OpBuilder &b, Location loc, const SiteBarrier &s) {
  Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), s.group,
                                               indexConstant(b, loc, 0));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), address);
}

SmallVector<Value, 2> emitInstanceBase(OpBuilder &b, Location loc,
                                       const TargetCodegen &cg,
                                       const GPUOperand &operand,
                                       ArrayRef<std::string> axes) {
  SmallVector<Value, 2> base(operand.shape().size(), indexConstant(b, loc, 0));
  if (axes.empty())
    return base;
  auto view = InstanceEmitter::get(operand.layout(), operand.shape(), axes);
  CoordValue at;
  for (const std::string &axis : axes)
    at.set(axis, cg.axisValue(b, loc, axis));
  InstanceBase instance = view->emitBase(b, loc, at);
  return SmallVector<Value, 2>(instance.logical.begin(),
                               instance.logical.end());
}

} // namespace axe::nvvm
