//===- NVVMSchedules.cpp - SIMT schedules of the nvvm backend -------------===//
//
// On a GPU every thread runs the kernel, so a collective operator becomes the
// code of one thread: the elements its layouts give it. A register operand
// decides (the thread handles the elements it holds, from the per-instance
// view); between two memory operands the threads of the operator's scope
// share the elements round robin, a vector of up to 16 bytes at a time where
// both layouts are contiguous. Whatever a thread reads from registers it must
// hold itself: the match steps check that by enumerating the layouts, and
// decline with the element and thread that break it.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "NVVMCodegen.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;

namespace axe::nvvm {
namespace {

/// Register tiles up to this many elements per thread are unrolled, so
/// their indices are constants and LLVM keeps them in registers.
constexpr int64_t kMaxUnrolled = 256;
/// The largest (elements x threads) the register checks enumerate.
constexpr int64_t kMaxEnumerated = int64_t(1) << 26;

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

/// For every logical element (row-major over the shape) the threads of a CTA
/// that hold it in a layout: those whose coordinates on the layout's thread
/// axes are one of the element's placements. A layout on no thread axis is
/// held by every thread (a buffer each thread has its own copy of).
class Holders {
public:
  static Result<Holders> get(const TargetDescription &target,
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

  bool holds(int64_t element, int64_t tid) const {
    return bits.test(element * threads + tid);
  }
  int64_t size() const { return elements; }

  /// Row-major successor of `coord` within `shape`.
  static void advance(SmallVectorImpl<int64_t> &coord,
                      ArrayRef<int64_t> shape) {
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++coord[d] < shape[d])
        return;
      coord[d] = 0;
    }
  }

private:
  static int64_t shapeSize(ArrayRef<int64_t> shape) {
    int64_t n = 1;
    for (int64_t e : shape)
      n *= e;
    return n;
  }
  int64_t threads = 1, elements = 0;
  llvm::BitVector bits;
};

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

using LogicalBody =
    function_ref<void(OpBuilder &, Location, ValueRange logical)>;

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

/// The per-thread view of register operand `reg` and the current thread's
/// base in it: the thread's coordinates less the run-time slice start on
/// each holder axis, so a slice of a lane's row is held by that lane only.
struct HeldView {
  std::optional<InstanceEmitter> view;
  InstanceBase base;
};

HeldView emitHeldView(OpBuilder &b, Location loc, const TargetCodegen &cg,
                      const GPUOperand &reg) {
  SmallVector<std::string, 4> axes = holderAxes(cg.target(), reg);
  HeldView h;
  auto view = InstanceEmitter::get(reg.layout(), reg.shape(), axes);
  h.view.emplace(std::move(*view));
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

/// Calls `body` with the logical index of every element of the register
/// operand `reg` the current thread holds.
void forEachHeld(OpBuilder &b, Location loc, const TargetCodegen &cg,
                 const GPUOperand &reg, LogicalBody body) {
  if (holderAxes(cg.target(), reg).empty()) {
    forEachIndex(b, loc, reg.shape(), body);
    return;
  }
  // The match steps made sure the view exists (checkInstanceView).
  HeldView h = emitHeldView(b, loc, cg, reg);
  const InstanceEmitter &view = *h.view;
  guarded(b, loc, h.base.holds, [&](OpBuilder &ib) {
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

/// The current thread's rank among the threads of one instance of `scope`,
/// and how many they are.
struct ScopeRank {
  Value rank;
  int64_t threads = 1;
};

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
  if (!space.loops().empty() && sameShape && vectorMatchesScalarMemory(elt) &&
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
  bool async = src && sameShape && useCpAsync(target, dst, *src, lanes);
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
    Value addr = src->address(b, loc, p);
    value = lanes == 1
                ? Value(memref::LoadOp::create(b, loc, src->memory, addr))
                : Value(vector::LoadOp::create(
                      b, loc, VectorType::get({lanes}, src->elementType()),
                      src->memory, addr));
    value = castElements(b, loc, value, elt);
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
        Value addr = dst.address(ib, il, p);
        if (lanes == 1)
          memref::StoreOp::create(ib, il, value, dst.memory, addr);
        else
          vector::StoreOp::create(ib, il, value, dst.memory, addr);
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
  forEachHeld(b, loc, cg, reg, [&](OpBuilder &ib, Location l, ValueRange x) {
    scratch->write(ib, l, x, reg.read(ib, l, x));
  });
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

/// The placeholder a token becomes: a SIMT copy has completed when each
/// thread has done its part (a CTA barrier orders them), so waits on it have
/// nothing left to wait for (convert-axe-to-nvvm drops them).
void replaceToken(CopyAsyncOp op, RewriterBase &rw) {
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(op);
  Value token =
      UnrealizedConversionCastOp::create(
          rw, op.getLoc(), TypeRange{rw.getType<TokenType>()}, ValueRange())
          .getResult(0);
  rw.replaceAllUsesWith(op.getToken(), token);
}

//===----------------------------------------------------------------------===//
// copy
//===----------------------------------------------------------------------===//

template <typename OpTy>
ScheduleMatch matchCopy(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<OpTy>(raw);
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  if (auto ok = checkCopyShapes(s.getShape(), t.getShape()); !ok)
    return ScheduleMatch::decline(ok.message());
  bool srcReg = spaceOf(op.getSource()) == MemorySpace::Reg;
  bool dstReg = spaceOf(op.getTarget()) == MemorySpace::Reg;
  if (dstReg) {
    if (ScheduleMatch v = matchView(ctx, op.getTarget()); !v.accepted())
      return v;
    if (srcReg)
      return matchOwnRegisters(raw, ctx, op.getTarget(), op.getSource(),
                               "the source");
  } else if (srcReg) {
    return matchView(ctx, op.getSource());
  }
  return ScheduleMatch::accept();
}

template <typename OpTy>
LogicalResult rewriteCopy(Operation *raw, const ScheduleContext &ctx,
                          const std::any &, RewriterBase &rw) {
  auto op = cast<OpTy>(raw);
  if constexpr (std::is_same_v<OpTy, CopyAsyncOp>)
    replaceToken(op, rw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &src = (*ops)[0], &dst = (*ops)[1];
  const TargetCodegen &cg = codegenOf(ctx);
  Type elt = dst.elementType();
  if (dst.isRegister() || src.isRegister()) {
    // The register side decides which elements this thread moves.
    const GPUOperand &reg = dst.isRegister() ? dst : src;
    forEachHeld(rw, loc, cg, reg, [&](OpBuilder &b, Location l, ValueRange x) {
      SmallVector<Value, 4> xs = mapIndices(b, l, x, reg.shape(), src.shape());
      SmallVector<Value, 4> xd = mapIndices(b, l, x, reg.shape(), dst.shape());
      dst.write(b, l, xd, castElements(b, l, src.read(b, l, xs), elt));
    });
  } else {
    auto rank = scopeRank(rw, raw, cg);
    if (failed(rank))
      return failure();
    emitDistributed(rw, loc, dst, &src, Value(), *rank, *ctx.target);
  }
  rw.eraseOp(op);
  return success();
}

template <typename OpTy>
void addCopySchedule(ScheduleRegistry &r, StringRef opName) {
  (void)r.add({"nvvm.copy.simt", opName.str(), gpuTargets(), 0,
               "each thread moves the elements it holds (a register side) "
               "or its round-robin share of up to 16-byte vectors (memory "
               "to memory; global to shared by cp.async where the target "
               "has it)",
               matchCopy<OpTy>, rewriteCopy<OpTy>});
}

//===----------------------------------------------------------------------===//
// fill
//===----------------------------------------------------------------------===//

void addFillSchedule(ScheduleRegistry &r) {
  (void)r.add(
      {"nvvm.fill.simt", "axe.fill", gpuTargets(), 0,
       "each thread stores the elements it holds, or its round-robin share "
       "of vectors in memory",
       [](Operation *op, const ScheduleContext &ctx) {
         ScheduleMatch m = matchCommon(op, ctx);
         if (!m.accepted())
           return m;
         Value t = cast<FillOp>(op).getTarget();
         if (spaceOf(t) == MemorySpace::Reg)
           return matchView(ctx, t);
         return m;
       },
       [](Operation *raw, const ScheduleContext &ctx, const std::any &,
          RewriterBase &rw) -> LogicalResult {
         auto op = cast<FillOp>(raw);
         rw.setInsertionPoint(op);
         auto ops = operandsOf(raw, rw, {op.getTarget()});
         if (failed(ops))
           return failure();
         const GPUOperand &dst = (*ops)[0];
         Value v =
             castElements(rw, op.getLoc(), op.getValue(), dst.elementType());
         if (dst.isRegister()) {
           forEachHeld(rw, op.getLoc(), codegenOf(ctx), dst,
                       [&](OpBuilder &b, Location l, ValueRange x) {
                         dst.write(b, l, x, v);
                       });
         } else {
           auto rank = scopeRank(rw, raw, codegenOf(ctx));
           if (failed(rank))
             return failure();
           emitDistributed(rw, op.getLoc(), dst, nullptr, v, *rank,
                           *ctx.target);
         }
         rw.eraseOp(op);
         return success();
       }});
}

//===----------------------------------------------------------------------===//
// elementwise
//===----------------------------------------------------------------------===//

/// The operand whose elements a thread computes: the first register
/// output, else a register input of the outputs' shape, else none (memory
/// outputs shared round robin).
std::optional<unsigned> elementwiseDriver(ElementwiseOp op) {
  unsigned i = 0;
  for (Value v : op.getOutputs()) {
    if (spaceOf(v) == MemorySpace::Reg)
      return op.getInputs().size() + i;
    ++i;
  }
  ArrayRef<int64_t> shape = typeOf(op.getOutputs()[0]).getShape();
  for (auto [k, v] : llvm::enumerate(op.getInputs()))
    if (spaceOf(v) == MemorySpace::Reg && typeOf(v).getShape() == shape)
      return k;
  return std::nullopt;
}

ScheduleMatch matchElementwise(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<ElementwiseOp>(raw);
  SmallVector<Value> all(op.getInputs());
  llvm::append_range(all, op.getOutputs());
  std::optional<unsigned> driver = elementwiseDriver(op);
  if (!driver) {
    for (Value v : all)
      if (spaceOf(v) == MemorySpace::Reg)
        return ScheduleMatch::decline(
            "a register input broadcasts into memory outputs; no thread "
            "holds a whole output element");
    return m;
  }
  Value d = all[*driver];
  if (ScheduleMatch v = matchView(ctx, d); !v.accepted())
    return v;
  for (auto [k, v] : llvm::enumerate(all))
    if (k != *driver && v != d && spaceOf(v) == MemorySpace::Reg)
      if (ScheduleMatch own = matchOwnRegisters(
              raw, ctx, d, v, "operand #" + std::to_string(k));
          !own.accepted())
        return own;
  return m;
}

LogicalResult rewriteElementwise(Operation *raw, const ScheduleContext &ctx,
                                 const std::any &, RewriterBase &rw) {
  auto op = cast<ElementwiseOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  SmallVector<Value> all(op.getInputs());
  llvm::append_range(all, op.getOutputs());
  auto ops = operandsOf(raw, rw, all);
  if (failed(ops))
    return failure();
  unsigned numInputs = op.getInputs().size();
  ArrayRef<int64_t> shape = (*ops)[numInputs].shape();
  Block &body = op.getBody().front();
  auto compute = [&](OpBuilder &b, Location l, ValueRange x) {
    IRMapping map;
    for (unsigned k = 0; k < numInputs; ++k) {
      const GPUOperand &in = (*ops)[k];
      map.map(body.getArgument(k),
              in.read(b, l, mapIndices(b, l, x, shape, in.shape())));
    }
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    Operation *yield = body.getTerminator();
    for (auto [k, v] : llvm::enumerate(yield->getOperands())) {
      const GPUOperand &out = (*ops)[numInputs + k];
      out.write(b, l, mapIndices(b, l, x, shape, out.shape()),
                castElements(b, l, map.lookupOrDefault(v), out.elementType()));
    }
  };
  if (std::optional<unsigned> driver = elementwiseDriver(op)) {
    const GPUOperand &d = (*ops)[*driver];
    forEachHeld(rw, loc, codegenOf(ctx), d,
                [&](OpBuilder &b, Location l, ValueRange x) {
                  compute(b, l, mapIndices(b, l, x, d.shape(), shape));
                });
  } else {
    auto rank = scopeRank(rw, raw, codegenOf(ctx));
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, shape, *rank, compute);
  }
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

/// The target index of source index `x` (reduced dims dropped or kept as 0).
SmallVector<int64_t, 4> targetIndexOf(ArrayRef<int64_t> x,
                                      const ReduceMapping &map) {
  SmallVector<int64_t, 4> t;
  for (unsigned d : map.targetDims)
    t.push_back(map.reduced[d] ? 0 : x[d]);
  return t;
}

/// How a warp reduces a register tile: the current thread combines the
/// source elements it holds that share a target element into one partial
/// (groups of local indices, by their kept offset from the thread's base),
/// then lanes exchange partials across the lane bits that number reduced
/// digits (xor masks), after which every lane that took part has the value.
struct ShufflePlan {
  ReduceMapping map;
  /// Per group, its local source elements; all share the kept offset
  /// `offsets[g]` (in target indices) from the thread's base.
  SmallVector<SmallVector<int64_t>> groups;
  SmallVector<SmallVector<int64_t, 4>> offsets;
  SmallVector<int64_t> masks;
};

Result<ShufflePlan> planShuffleReduce(const TargetDescription &target,
                                      int64_t threads, ReduceOp op,
                                      bool targetInRegisters) {
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  auto map = reduceMapping(s.getShape(), op.getDims(), t.getShape());
  if (!map)
    return map.takeFailure();
  SmallVector<std::string, 4> sAxes = threadAxesOf(target, s.getLayout());
  auto sv = InstanceView::get(s.getLayout(), s.getShape(), sAxes);
  if (!sv)
    return sv.takeFailure();
  ShufflePlan plan;
  plan.map = *map;
  // Lanes exchange partials along the reduced digits of lane axes.
  for (const InstanceAxis &axis : sv->instanceAxes())
    for (const InstanceDigit &d : axis.digits) {
      if (d.replica || !map->reduced[d.dim])
        continue;
      if (axis.axis != "laneid")
        return fail("the reduced dim " + std::to_string(d.dim) +
                    " is spread over '" + axis.axis +
                    "'; only lanes of a warp exchange partials (shuffles), "
                    "a reduction across warps needs shared memory");
      if (!llvm::isPowerOf2_64(d.extent) || !llvm::isPowerOf2_64(d.stride))
        return fail("the reduced digit on laneid (extent " +
                    std::to_string(d.extent) + ", stride " +
                    std::to_string(d.stride) + ") is not a field of lane bits");
      for (int64_t k = 1; k < d.extent; k *= 2)
        plan.masks.push_back(d.stride * k);
    }
  for (int64_t j = 0; j < sv->localSize(); ++j) {
    SmallVector<int64_t, 4> k = targetIndexOf(sv->localOffset(j), *map);
    auto it = llvm::find(plan.offsets, k);
    if (it == plan.offsets.end()) {
      plan.offsets.push_back(k);
      plan.groups.push_back({j});
    } else {
      plan.groups[it - plan.offsets.begin()].push_back(j);
    }
  }
  if (plan.groups.size() > size_t(kMaxUnrolled))
    return fail("more than " + std::to_string(kMaxUnrolled) +
                " target elements per thread");
  if (!plan.masks.empty() && s.getElementType().getIntOrFloatBitWidth() != 32)
    return fail("shuffles move 32-bit values; the source is " +
                std::to_string(s.getElementType().getIntOrFloatBitWidth()) +
                "-bit");
  if (!targetInRegisters)
    return plan;
  // A register target: the threads that end with a target element's value
  // (those holding part of its source row) must be exactly its holders.
  auto sh = Holders::get(target, s.getLayout(), s.getShape(), threads);
  if (!sh)
    return sh.takeFailure();
  auto th = Holders::get(target, t.getLayout(), t.getShape(), threads);
  if (!th)
    return th.takeFailure();
  std::vector<llvm::BitVector> computes(th->size(), llvm::BitVector(threads));
  SmallVector<int64_t, 4> x(s.getShape().size(), 0);
  for (int64_t i = 0; i < sh->size(); ++i) {
    SmallVector<int64_t, 4> y = targetIndexOf(x, *map);
    int64_t flat = 0;
    for (auto [v, e] : llvm::zip(y, t.getShape()))
      flat = flat * e + v;
    for (int64_t tid = 0; tid < threads; ++tid)
      if (sh->holds(i, tid))
        computes[flat].set(tid);
    Holders::advance(x, s.getShape());
  }
  for (int64_t y = 0; y < th->size(); ++y)
    for (int64_t tid = 0; tid < threads; ++tid)
      if (th->holds(y, tid) != computes[y].test(tid))
        return fail("target element " + std::to_string(y) + " is " +
                    (th->holds(y, tid) ? "held" : "not held") + " by thread " +
                    std::to_string(tid) + ", which " +
                    (computes[y].test(tid) ? "reduces" : "does not reduce") +
                    " its source row");
  return plan;
}

ScheduleMatch matchShuffleReduce(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<ReduceOp>(raw);
  if (spaceOf(op.getSource()) != MemorySpace::Reg)
    return ScheduleMatch::decline("the source is not in registers");
  if (ScheduleMatch v = matchView(ctx, op.getSource()); !v.accepted())
    return v;
  if (spaceOf(op.getTarget()) == MemorySpace::Reg)
    for (Value v : {op.getSource(), op.getTarget()})
      if (auto ok = checkStaticHolders(*ctx.target, v); !ok)
        return ScheduleMatch::decline(ok.message());
  auto plan = planShuffleReduce(*ctx.target, threadsOf(raw), op,
                                spaceOf(op.getTarget()) == MemorySpace::Reg);
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

/// The redux.sync kind that combines `kind` across every lane of a warp,
/// when the plan exchanges over all lane bits and the target reduces i32
/// values in one instruction (sm_80: add, min, max; signed, as axe.reduce
/// on integers is).
std::optional<NVVM::ReduxKind> warpWideRedux(const TargetDescription &t,
                                             const ShufflePlan &plan,
                                             Combiner kind, Type elt) {
  if (!t.hasFeature("redux.sync") || !elt.isInteger(32))
    return std::nullopt;
  int64_t lanes = 0;
  for (int64_t m : plan.masks)
    lanes |= m;
  if (lanes != t.warpSize - 1 ||
      int64_t(plan.masks.size()) != int64_t(llvm::Log2_64(t.warpSize)))
    return std::nullopt;
  switch (kind) {
  case Combiner::Sum:
    return NVVM::ReduxKind::ADD;
  case Combiner::Max:
    return NVVM::ReduxKind::MAX;
  case Combiner::Min:
    return NVVM::ReduxKind::MIN;
  default:
    return std::nullopt;
  }
}

LogicalResult rewriteShuffleReduce(Operation *raw, const ScheduleContext &ctx,
                                   const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<ReduceOp>(raw);
  const auto &plan = *std::any_cast<ShufflePlan>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &src = (*ops)[0], &dst = (*ops)[1];
  const TargetCodegen &cg = codegenOf(ctx);
  const TargetDescription &t = cg.target();
  Combiner kind = combinerOf(op.getKind());
  Type elt = src.elementType();
  HeldView held = emitHeldView(rw, loc, cg, src);
  const InstanceEmitter *sv = &*held.view;
  InstanceBase base = held.base;
  SmallVector<int64_t, 4> zeros(src.shape().size(), 0);
  for (auto [g, group] : llvm::enumerate(plan.groups)) {
    // The partial of the thread's own elements; a thread holding none
    // contributes the identity but still takes part in the shuffles.
    Value identity = reductionIdentity(rw, loc, kind, elt);
    auto computePartial = [&](OpBuilder &b) {
      Value acc = identity;
      for (int64_t j : group) {
        InstanceElement e = sv->emitElement(b, loc, base, j);
        acc = combine(b, loc, kind, acc, src.read(b, loc, e.logical));
      }
      return acc;
    };
    Value partial;
    if (!base.holds || matchPattern(base.holds, m_One())) {
      partial = computePartial(rw);
    } else {
      auto ifOp = scf::IfOp::create(rw, loc, TypeRange{elt}, base.holds, true);
      OpBuilder::InsertionGuard guard(rw);
      rw.setInsertionPointToStart(&ifOp.getThenRegion().front());
      scf::YieldOp::create(rw, loc, computePartial(rw));
      rw.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(rw, loc, identity);
      partial = ifOp.getResult(0);
    }
    if (std::optional<NVVM::ReduxKind> redux =
            warpWideRedux(t, plan, kind, elt)) {
      // All 32 lanes combine: one redux.sync does what 5 shuffles do.
      Value all = arith::ConstantIntOp::create(rw, loc, -1, 32);
      partial = NVVM::ReduxOp::create(
          rw, loc, elt, partial,
          NVVM::ReduxKindAttr::get(rw.getContext(), *redux), all);
    } else {
      for (int64_t mask : plan.masks) {
        auto shfl =
            gpu::ShuffleOp::create(rw, loc, partial, int32_t(mask),
                                   int32_t(t.warpSize), gpu::ShuffleMode::XOR);
        partial = combine(rw, loc, kind, partial, shfl.getShuffleResult());
      }
    }
    guarded(rw, loc, base.holds, [&](OpBuilder &b) {
      // The target index: the kept part of the thread's base, plus the
      // group's offset.
      SmallVector<Value, 4> y;
      for (auto [td, sd] : llvm::enumerate(plan.map.targetDims))
        y.push_back(plan.map.reduced[sd]
                        ? indexConstant(b, loc, 0)
                        : addIndex(b, loc, base.logical[sd],
                                   indexConstant(b, loc, plan.offsets[g][td])));
      Value v = castElements(b, loc, partial, dst.elementType());
      if (op.getAccumulate())
        v = combine(b, loc, kind, dst.read(b, loc, y), v);
      dst.write(b, loc, y, v);
    });
  }
  rw.eraseOp(op);
  return success();
}

/// Fails unless every thread holding a target element holds the whole
/// source row it reduces.
Result<bool> checkSerialRows(const TargetDescription &target, int64_t threads,
                             ReduceOp op) {
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  auto map = reduceMapping(s.getShape(), op.getDims(), t.getShape());
  if (!map)
    return map.takeFailure();
  auto sh = Holders::get(target, s.getLayout(), s.getShape(), threads);
  if (!sh)
    return sh.takeFailure();
  auto th = Holders::get(target, t.getLayout(), t.getShape(), threads);
  if (!th)
    return th.takeFailure();
  SmallVector<int64_t, 4> x(s.getShape().size(), 0);
  for (int64_t i = 0; i < sh->size(); ++i) {
    SmallVector<int64_t, 4> y = targetIndexOf(x, *map);
    int64_t flat = 0;
    for (auto [v, e] : llvm::zip(y, t.getShape()))
      flat = flat * e + v;
    for (int64_t tid = 0; tid < threads; ++tid)
      if (th->holds(flat, tid) && !sh->holds(i, tid))
        return fail("thread " + std::to_string(tid) +
                    " holds a target element but not all of its source row");
    Holders::advance(x, s.getShape());
  }
  return true;
}

/// Each thread computes whole target elements (those it holds, or its
/// round-robin share of a memory target) from a source in memory.
ScheduleMatch matchSerialReduce(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<ReduceOp>(raw);
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  if (auto map = reduceMapping(s.getShape(), op.getDims(), t.getShape()); !map)
    return ScheduleMatch::decline(map.message());
  if (spaceOf(op.getSource()) == MemorySpace::Reg) {
    // A thread reads whole source rows: it must hold them.
    if (auto ok = checkSerialRows(*ctx.target, threadsOf(raw), op); !ok)
      return ScheduleMatch::decline(ok.message());
  }
  if (spaceOf(op.getTarget()) == MemorySpace::Reg)
    return matchView(ctx, op.getTarget());
  if (spaceOf(op.getSource()) == MemorySpace::Reg)
    return ScheduleMatch::decline("a register source with a memory target: "
                                  "no thread is known to hold whole rows");
  return m;
}

LogicalResult rewriteSerialReduce(Operation *raw, const ScheduleContext &ctx,
                                  const std::any &, RewriterBase &rw) {
  auto op = cast<ReduceOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &src = (*ops)[0], &dst = (*ops)[1];
  auto map = *reduceMapping(src.shape(), op.getDims(), dst.shape());
  Combiner kind = combinerOf(op.getKind());
  Type elt = dst.elementType();
  SmallVector<int64_t, 4> reducedShape;
  for (auto [d, e] : llvm::enumerate(src.shape()))
    if (map.reduced[d])
      reducedShape.push_back(e);
  auto compute = [&](OpBuilder &b, Location l, ValueRange x) {
    // Source index: kept dims from the target index, reduced ones looped.
    SmallVector<Value, 4> kept(src.shape().size());
    for (auto [td, sd] : llvm::enumerate(map.targetDims))
      if (!map.reduced[sd])
        kept[sd] = x[td];
    Value init = op.getAccumulate() ? castElements(b, l, dst.read(b, l, x), elt)
                                    : reductionIdentity(b, l, kind, elt);
    int64_t n = 1;
    for (int64_t e : reducedShape)
      n *= e;
    auto loop =
        scf::ForOp::create(b, l, indexConstant(b, l, 0), indexConstant(b, l, n),
                           indexConstant(b, l, 1), ValueRange{init});
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value, 4> r =
          delinearize(b, l, loop.getInductionVar(), reducedShape);
      SmallVector<Value, 4> idx = kept;
      unsigned k = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        if (map.reduced[d])
          idx[d] = r[k++];
      Value v = castElements(b, l, src.read(b, l, idx), elt);
      scf::YieldOp::create(b, l,
                           combine(b, l, kind, loop.getRegionIterArg(0), v));
    }
    dst.write(b, l, x, loop.getResult(0));
  };
  if (dst.isRegister()) {
    forEachHeld(rw, loc, codegenOf(ctx), dst, compute);
  } else {
    auto rank = scopeRank(rw, raw, codegenOf(ctx));
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, dst.shape(), *rank, compute);
  }
  rw.eraseOp(op);
  return success();
}

void addReduceSchedules(ScheduleRegistry &r) {
  (void)r.add({"nvvm.reduce.shuffle", "axe.reduce", gpuTargets(), 10,
               "each thread combines the source elements it holds per "
               "target element, then lanes combine partials by xor "
               "shuffles over the lane bits of the reduced dims",
               matchShuffleReduce, rewriteShuffleReduce});
  (void)r.add({"nvvm.reduce.serial", "axe.reduce", gpuTargets(), 0,
               "each thread reduces whole target elements (those it holds, "
               "or its share of a memory target) reading the source",
               matchSerialReduce, rewriteSerialReduce});
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

/// Fails unless every thread holding C(i, n) holds row i of A (`isA`) or
/// column n of B.
Result<bool> checkGemmRegisters(const TargetDescription &target,
                                int64_t threads, const GemmProblem &problem,
                                const Layout &c, ArrayRef<int64_t> cShape,
                                bool isA, const Layout &in,
                                ArrayRef<int64_t> inShape) {
  auto ch = Holders::get(target, c, cShape, threads);
  if (!ch)
    return ch.takeFailure();
  auto ih = Holders::get(target, in, inShape, threads);
  if (!ih)
    return ih.takeFailure();
  bool transposed = isA ? problem.transposeA : problem.transposeB;
  bool kFirst = isA ? transposed : !transposed;
  for (int64_t i = 0; i < problem.m; ++i)
    for (int64_t n = 0; n < problem.n; ++n)
      for (int64_t tid = 0; tid < threads; ++tid) {
        if (!ch->holds(i * problem.n + n, tid))
          continue;
        int64_t outer = isA ? i : n;
        for (int64_t k = 0; k < problem.k; ++k) {
          int64_t r = kFirst ? k : outer, col = kFirst ? outer : k;
          if (!ih->holds(r * inShape[1] + col, tid))
            return fail("thread " + std::to_string(tid) + " holds C(" +
                        std::to_string(i) + ", " + std::to_string(n) +
                        ") but not the " + (isA ? "row" : "column") +
                        " it needs; register operands must be the "
                        "accumulator holder's own");
        }
      }
  return true;
}

ScheduleMatch matchSIMTGemm(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<GemmOp>(raw);
  BufferType a = typeOf(op.getA()), b = typeOf(op.getB()),
             c = typeOf(op.getC());
  auto problem = gemmProblem(a.getShape(), op.getTransposeA(), b.getShape(),
                             op.getTransposeB(), c.getShape());
  if (!problem)
    return ScheduleMatch::decline(problem.message());
  bool cInRegisters = spaceOf(op.getC()) == MemorySpace::Reg;
  if (cInRegisters)
    if (ScheduleMatch v = matchView(ctx, op.getC()); !v.accepted())
      return v;
  if (!cInRegisters) {
    for (Value v : {op.getA(), op.getB()})
      if (spaceOf(v) == MemorySpace::Reg)
        return ScheduleMatch::decline(
            "C is in memory, shared by the threads round robin, so no "
            "thread is known to hold the register rows of A or B it needs");
    return ScheduleMatch::accept(*problem);
  }
  if (!isa<FloatType>(c.getElementType()) &&
      !isa<IntegerType>(c.getElementType()))
    return ScheduleMatch::decline("the accumulator is not a number");
  for (auto [name, v] : {std::pair<StringRef, Value>{"A", op.getA()},
                         std::pair<StringRef, Value>{"B", op.getB()}})
    if (spaceOf(v) == MemorySpace::Reg) {
      for (Value w : {v, Value(op.getC())})
        if (auto ok = checkStaticHolders(*ctx.target, w); !ok)
          return ScheduleMatch::decline(name.str() + ": " + ok.message());
    }
  for (auto [name, v] : {std::pair<StringRef, Value>{"A", op.getA()},
                         std::pair<StringRef, Value>{"B", op.getB()}})
    if (spaceOf(v) == MemorySpace::Reg)
      if (auto ok =
              checkGemmRegisters(*ctx.target, threadsOf(raw), *problem,
                                 c.getLayout(), c.getShape(), name == "A",
                                 typeOf(v).getLayout(), typeOf(v).getShape());
          !ok)
        return ScheduleMatch::decline(name.str() + ": " + ok.message());
  return ScheduleMatch::accept(*problem);
}

/// The index of A (or B) at row `i` (or column `n`) of C and step `k`.
SmallVector<Value, 2> gemmIndex(OpBuilder &b, Location loc, bool isA,
                                bool transposed, Value outer, Value k) {
  // A is M x K (K x M transposed); B is K x N (N x K transposed).
  bool kFirst = isA ? transposed : !transposed;
  return kFirst ? SmallVector<Value, 2>{k, outer}
                : SmallVector<Value, 2>{outer, k};
}

Value multiplyAdd(OpBuilder &b, Location loc, Value acc, Value x, Value y) {
  Type t = acc.getType();
  x = castElements(b, loc, x, t);
  y = castElements(b, loc, y, t);
  if (isa<FloatType>(t))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

/// C += A x B for the C elements `rows`/`cols` (logical indices) one thread
/// holds, with their accumulators carried through the K loop.
void emitThreadGemm(OpBuilder &b, Location loc, GemmOp op, const GPUOperand &a,
                    const GPUOperand &bb, const GPUOperand &c, int64_t k,
                    ArrayRef<SmallVector<Value, 4>> elements) {
  SmallVector<Value> init;
  for (const auto &x : elements)
    init.push_back(c.read(b, loc, x));
  auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                 indexConstant(b, loc, k),
                                 indexConstant(b, loc, 1), init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kv = loop.getInductionVar();
    SmallVector<Value> next;
    for (auto [j, x] : llvm::enumerate(elements)) {
      Value av =
          a.read(b, loc, gemmIndex(b, loc, true, op.getTransposeA(), x[0], kv));
      Value bv = bb.read(
          b, loc, gemmIndex(b, loc, false, op.getTransposeB(), x[1], kv));
      next.push_back(multiplyAdd(b, loc, loop.getRegionIterArg(j), av, bv));
    }
    scf::YieldOp::create(b, loc, next);
  }
  for (auto [j, x] : llvm::enumerate(elements))
    c.write(b, loc, x, loop.getResult(j));
}

/// How many elements of register operand `reg` one thread holds.
int64_t heldCount(const TargetDescription &target, const GPUOperand &reg) {
  SmallVector<std::string, 4> axes = holderAxes(target, reg);
  if (axes.empty()) {
    int64_t n = 1;
    for (int64_t e : reg.shape())
      n *= e;
    return n;
  }
  auto view = InstanceView::get(reg.layout(), reg.shape(), axes);
  return view ? view->localSize() : 0;
}

LogicalResult rewriteSIMTGemm(Operation *raw, const ScheduleContext &ctx,
                              const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<GemmOp>(raw);
  const auto &problem = *std::any_cast<GemmProblem>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, rw, {op.getA(), op.getB(), op.getC()});
  if (failed(ops))
    return failure();
  const GPUOperand &a = (*ops)[0], &b = (*ops)[1], &c = (*ops)[2];
  const TargetCodegen &cg = codegenOf(ctx);
  SmallVector<std::string, 4> axes = holderAxes(cg.target(), c);
  if (!c.isRegister()) {
    // C in memory: the threads take its elements round robin.
    auto rank = scopeRank(rw, raw, cg);
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, c.shape(), *rank,
                  [&](OpBuilder &ib, Location l, ValueRange x) {
                    SmallVector<SmallVector<Value, 4>> one;
                    one.emplace_back(x.begin(), x.end());
                    emitThreadGemm(ib, l, op, a, b, c, problem.k, one);
                  });
  } else if (heldCount(cg.target(), c) > kMaxUnrolled) {
    // Too many accumulators for registers: one at a time, each carried
    // through its own K loop.
    forEachHeld(rw, loc, cg, c, [&](OpBuilder &ib, Location l, ValueRange x) {
      SmallVector<SmallVector<Value, 4>> one;
      one.emplace_back(x.begin(), x.end());
      emitThreadGemm(ib, l, op, a, b, c, problem.k, one);
    });
  } else if (axes.empty()) {
    SmallVector<SmallVector<Value, 4>> elements;
    forEachIndex(rw, loc, c.shape(), [&](OpBuilder &, Location, ValueRange x) {
      elements.push_back(SmallVector<Value, 4>(x.begin(), x.end()));
    });
    emitThreadGemm(rw, loc, op, a, b, c, problem.k, elements);
  } else {
    HeldView held = emitHeldView(rw, loc, cg, c);
    const InstanceEmitter *view = &*held.view;
    InstanceBase base = held.base;
    guarded(rw, loc, base.holds, [&](OpBuilder &ib) {
      SmallVector<SmallVector<Value, 4>> elements;
      for (int64_t j = 0; j < view->view().localSize(); ++j)
        elements.push_back(view->emitElement(ib, loc, base, j).logical);
      emitThreadGemm(ib, loc, op, a, b, c, problem.k, elements);
    });
  }
  rw.eraseOp(op);
  return success();
}

void addGemmSchedule(ScheduleRegistry &r) {
  (void)r.add({"nvvm.gemm.simt", "axe.gemm", gpuTargets(), 0,
               "each thread accumulates the C elements it holds over K with "
               "scalar FMAs (in registers up to 256, else one at a time), "
               "reading A and B",
               matchSIMTGemm, rewriteSIMTGemm});
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

void addStagedSchedules(ScheduleRegistry &r) {
  auto stage = [&](StringRef name, StringRef opName, Schedule::MatchFn match,
                   Schedule::RewriteFn rewrite, StringRef what) {
    (void)r.add({name.str(), opName.str(), gpuTargets(), -10,
                 ("the register inputs written to shared memory by their "
                  "holders, a barrier, then " +
                  what + " reading them there")
                     .str(),
                 stagedMatch(std::move(match)),
                 stagedRewrite(std::move(rewrite))});
  };
  stage("nvvm.copy.staged", "axe.copy", matchCopy<CopyOp>, rewriteCopy<CopyOp>,
        "nvvm.copy.simt");
  stage("nvvm.copy.staged", "axe.copy_async", matchCopy<CopyAsyncOp>,
        rewriteCopy<CopyAsyncOp>, "nvvm.copy.simt");
  stage("nvvm.elementwise.staged", "axe.elementwise", matchElementwise,
        rewriteElementwise, "nvvm.elementwise.simt");
  stage("nvvm.reduce.staged", "axe.reduce", matchSerialReduce,
        rewriteSerialReduce, "nvvm.reduce.serial");
  stage("nvvm.gemm.staged", "axe.gemm", matchSIMTGemm, rewriteSIMTGemm,
        "nvvm.gemm.simt");
}

} // namespace

void addSIMTSchedules(ScheduleRegistry &registry) {
  addCopySchedule<CopyOp>(registry, "axe.copy");
  addCopySchedule<CopyAsyncOp>(registry, "axe.copy_async");
  addFillSchedule(registry);
  (void)registry.add({"nvvm.elementwise.simt", "axe.elementwise", gpuTargets(),
                      0,
                      "each thread computes the elements it holds of the "
                      "first register output (or its share of memory "
                      "outputs), reading inputs it holds",
                      matchElementwise, rewriteElementwise});
  addReduceSchedules(registry);
  addGemmSchedule(registry);
  addStagedSchedules(registry);
}

} // namespace axe::nvvm
