//===- CPUProposals.cpp - Layouts the CPU schedules propose ---------------===//
//
// The anchors of layout inference on the CPU. A CTA runs as one CPU thread
// and every memory space is host memory (docs/CPUExecutionModel.md), so what
// a layout decides on the CPU is which loop is contiguous on m: the
// vectorized copy, fill, elementwise and reduce move whole vectors where
// their operands are contiguous along the same loop, and the packed gemm
// reads its operands in place where they already are its panels. So:
//
// * the gemm proposes its panels for A and B (gemmPanelLayoutA/B) and rows
//   for C: a copy into such a tile then packs, as a hand-written kernel
//   stages it, and the gemm packs nothing;
// * the other operators propose, for a `?` operand, the layout of a known
//   operand of the same shape and space, or a dense layout in the order of
//   a known operand's contiguity, or rows.
//
// A register tile at a scope wider than a thread must place data on that
// scope's thread axis, or it belongs to each thread (getBufferOwner). Its
// storage has the thread axis outside m (StoragePlan::forLayout), so a
// layout that spreads the slowest dims over the threads and keeps each
// thread's part dense on m is dense in memory as a whole: the same loops
// vectorize as for a shared tile.
//
//===----------------------------------------------------------------------===//

#include "CPUProposals.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"
#include "axe/Layout/Strided.h"

#include <numeric>

using namespace mlir;

namespace axe {

namespace {

/// What rows cost beyond the best (0) where the known operands are in
/// another order, as a fraction of the operator's run time: the copy (the
/// elementwise) transposes.
constexpr double kOtherOrderCost = 0.25;

/// How a `?` buffer is spread over threads: a register buffer over the
/// threads of one instance of the operator's scope, on the axis numbering
/// them (tx in a CTA, tid_in_wg in a warpgroup, laneid in a warp); any
/// other over none. `lanes` elements make a vector of its element type.
struct Spread {
  std::string axis;
  int64_t threads = 1;
  int64_t lanes = 1;
};

Spread spreadOf(Operation *op, BufferType type, const ScheduleContext &ctx) {
  Spread s;
  s.lanes = lanesFor(type.getElementType(), ctx.options.vectorLanes32);
  auto kernel = op->getParentOfType<KernelOp>();
  // Outside a kernel code runs as one thread; shared memory belongs to the
  // CTA whatever its layout.
  if (!kernel || type.getMemorySpace() != MemorySpace::Reg)
    return s;
  auto cta = getCTAThreads(kernel);
  if (!cta)
    return s;
  ScopeKind scope = cast<OperatorOpInterface>(op).getScope().getKind();
  // Wider scopes run once per CTA on the CPU.
  if (scope > ScopeKind::CTA)
    scope = ScopeKind::CTA;
  if (scope == ScopeKind::Thread)
    return s;
  const TargetAxis *axis = cta->target->axisNumbering(
      ExecutionScope::Thread, static_cast<ExecutionScope>(scope));
  if (!axis)
    return s;
  s.axis = axis->name;
  s.threads = cta->threadsOf(scope);
  return s;
}

/// The largest divisor of `n` that is at most `bound`.
int64_t largestDivisorUpTo(int64_t n, int64_t bound) {
  for (int64_t d = std::min(n, bound); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// A dense layout of `shape` whose dims run from slowest to fastest on m in
/// `order`, spread over `s.threads` threads along the slowest dims. The
/// fastest dim is split between threads only while each keeps a vector of
/// it (or when nothing else can be split); a tile that cannot be split at
/// all is replicated on every thread, so that the scope still owns it.
Result<TileLayout> denseLayout(ArrayRef<int64_t> shape,
                               ArrayRef<unsigned> order, const Spread &s) {
  unsigned rank = shape.size();
  SmallVector<int64_t, 4> perThread(shape.begin(), shape.end());
  SmallVector<int64_t, 4> threads(rank, 1);
  int64_t left = s.threads;
  int fastest = -1;
  for (unsigned d : order)
    if (shape[d] > 1)
      fastest = d;
  for (unsigned d : order) {
    if (left <= 1 || shape[d] == 1)
      continue;
    int64_t bound = left;
    // Some thread must hold data on the axis, or the tile would belong to
    // each thread: the first split may leave less than a vector.
    if (int(d) == fastest)
      bound = std::min(bound, std::max<int64_t>(left < s.threads ? 1 : 2,
                                                shape[d] / s.lanes));
    int64_t t = largestDivisorUpTo(shape[d], bound);
    threads[d] = t;
    perThread[d] = shape[d] / t;
    left /= t;
  }
  IterList replica;
  if (s.threads > 1 && left == s.threads)
    replica.push_back(Iter{s.threads, 1, s.axis});
  // Strides from the fastest dim out: on the thread axis over the split
  // dims, on m over each thread's part.
  SmallVector<int64_t, 4> threadStride(rank, 0), mStride(rank, 0);
  int64_t t = 1, m = 1;
  for (unsigned d : llvm::reverse(order)) {
    threadStride[d] = t;
    t *= threads[d];
    mStride[d] = m;
    m *= perThread[d];
  }
  IterList shard;
  for (unsigned d = 0; d < rank; ++d) {
    if (threads[d] > 1)
      shard.push_back(Iter{threads[d], threadStride[d], s.axis});
    if (threads[d] == 1 || perThread[d] > 1)
      shard.push_back(Iter{perThread[d], perThread[d] > 1 ? mStride[d] : 0});
  }
  return TileLayout::create(shard, replica);
}

SmallVector<unsigned> rowMajorOrder(unsigned rank) {
  SmallVector<unsigned> order(rank);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

/// The dims of `known` from slowest to fastest on m, read from one step
/// along each dim at the origin (unit dims and ties in logical order).
SmallVector<unsigned> dimOrder(BufferType known) {
  ArrayRef<int64_t> shape = known.getShape();
  const TileLayout &tile = known.getLayout().tile();
  unsigned rank = shape.size();
  auto mAt = [&](ArrayRef<int64_t> coord) -> std::optional<int64_t> {
    auto places = tile.apply(coord, shape);
    if (!places || places->empty())
      return std::nullopt;
    return places->front().get(kDefaultAxis);
  };
  SmallVector<int64_t, 4> origin(rank, 0);
  std::optional<int64_t> base = mAt(origin);
  SmallVector<int64_t, 4> step(rank, INT64_MAX);
  for (unsigned d = 0; d < rank && base; ++d) {
    if (shape[d] == 1)
      continue;
    SmallVector<int64_t, 4> at = origin;
    at[d] = 1;
    if (std::optional<int64_t> next = mAt(at))
      step[d] = std::abs(*next - *base);
  }
  SmallVector<unsigned> order = rowMajorOrder(rank);
  std::stable_sort(order.begin(), order.end(),
                   [&](unsigned x, unsigned y) { return step[x] > step[y]; });
  return order;
}

/// Whether `type`'s layout takes exactly one cell per element: copying it
/// as it is wastes no memory (a slice of a larger tile, or a view of a
/// memref, does).
bool isDense(BufferType type) {
  const Layout &layout = type.getLayout();
  if (!layout.tile().replica().empty())
    return false;
  int64_t cells = 1;
  Coord spans = layout.span();
  for (const auto &[axis, span] : spans.entries())
    if (mulOverflows(cells, span, cells))
      return false;
  return cells == layout.size();
}

/// The layout attribute of `layout`, or null when it failed.
Attribute attrOf(MLIRContext *ctx, const Result<TileLayout> &layout) {
  if (!layout)
    return {};
  return getLayoutAttr(ctx, Layout(*layout));
}

/// A `?` buffer operand's type, or null when its layout is known (or it is
/// no buffer).
BufferType unknown(OpOperand &operand) {
  auto type = dyn_cast<BufferType>(operand.get().getType());
  return type && !type.hasLayout() ? type : BufferType();
}

BufferType known(Value v) {
  auto type = dyn_cast<BufferType>(v.getType());
  return type && type.hasLayout() ? type : BufferType();
}

/// Whether any buffer operand of `op` is `?`.
bool hasUnknown(Operation *op) {
  return llvm::any_of(op->getOpOperands(),
                      [](OpOperand &o) { return bool(unknown(o)); });
}

/// The layout a `?` operand of type `type` takes to match `ref` (known):
/// `ref`'s own when both are dense tiles of one shape in one space (the
/// same threads then hold the same elements), else dense in `ref`'s order.
/// Rows without `ref`.
Attribute matching(Operation *op, BufferType type, BufferType ref,
                   const ScheduleContext &ctx) {
  MLIRContext *mctx = op->getContext();
  if (ref && ref.getShape() == type.getShape() &&
      ref.getMemorySpace() == type.getMemorySpace() && isDense(ref))
    return ref.getLayoutAttr();
  SmallVector<unsigned> order = ref && ref.getRank() == type.getRank()
                                    ? dimOrder(ref)
                                    : rowMajorOrder(type.getRank());
  return attrOf(mctx,
                denseLayout(type.getShape(), order, spreadOf(op, type, ctx)));
}

/// Rows (with the spread a register tile needs).
Attribute rows(Operation *op, BufferType type, const ScheduleContext &ctx) {
  return attrOf(op->getContext(),
                denseLayout(type.getShape(), rowMajorOrder(type.getRank()),
                            spreadOf(op, type, ctx)));
}

/// One proposal from a layout per `?` operand (none when one failed).
std::optional<LayoutProposal>
proposal(Operation *op, function_ref<Attribute(OpOperand &, BufferType)> pick,
         double cost, std::string reason) {
  LayoutProposal p;
  p.cost = cost;
  p.reason = std::move(reason);
  for (OpOperand &operand : op->getOpOperands())
    if (BufferType type = unknown(operand)) {
      Attribute layout = pick(operand, type);
      if (!layout)
        return std::nullopt;
      p.layouts.push_back({operand.getOperandNumber(), layout});
    }
  if (p.layouts.empty())
    return std::nullopt;
  return p;
}

/// Every `?` operand in rows.
std::optional<LayoutProposal> rowsProposal(Operation *op,
                                           const ScheduleContext &ctx,
                                           double cost, std::string reason) {
  return proposal(
      op, [&](OpOperand &, BufferType t) { return rows(op, t, ctx); }, cost,
      std::move(reason));
}

void addProposal(SmallVectorImpl<LayoutProposal> &out,
                 std::optional<LayoutProposal> p) {
  if (!p)
    return;
  for (const LayoutProposal &q : out)
    if (q.layouts == p->layouts)
      return;
  out.push_back(std::move(*p));
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

/// What the packed gemm's match requires of the types.
bool packedCanRun(GemmOp g) {
  for (Value v : {g.getA(), g.getB(), g.getC()})
    if (!isa<FloatType>(cast<BufferType>(v.getType()).getElementType()))
      return false;
  auto c = cast<BufferType>(g.getC().getType());
  return cast<FloatType>(c.getElementType()).getWidth() <= 32;
}

std::optional<GemmProblem> problemOf(GemmOp g) {
  auto shape = [](Value v) { return cast<BufferType>(v.getType()).getShape(); };
  Result<GemmProblem> p =
      gemmProblem(shape(g.getA()), g.getTransposeA(), shape(g.getB()),
                  g.getTransposeB(), shape(g.getC()));
  if (!p)
    return std::nullopt;
  return *p;
}

/// The layout `text` of the panels (gemmPanelLayoutA/B) as an attribute.
Attribute panel(MLIRContext *ctx, const std::string &text) {
  return attrOf(ctx, parseTileLayout(text));
}

} // namespace

SmallVector<LayoutProposal> proposeCPUGemmPacked(Operation *op,
                                                 const ScheduleContext &ctx) {
  auto g = cast<GemmOp>(op);
  SmallVector<LayoutProposal> out;
  std::optional<GemmProblem> problem = problemOf(g);
  if (!hasUnknown(op) || !problem || !packedCanRun(g))
    return out;
  CPUCodegenOptions opts;
  opts.vectorLanes32 = ctx.options.vectorLanes32;
  opts.vectorRegisters = ctx.options.vectorRegisters;
  GemmBlocking blocking =
      chooseGemmBlocking(problem->m, problem->n, problem->k, opts);
  MLIRContext *mctx = op->getContext();
  // Operands 0, 1, 2 are A, B, C. A register tile spread over threads has
  // storage dims besides m, which the micro-kernel does not read in place:
  // it packs such operands whatever their layout, from rows at least cost.
  auto pick = [&](OpOperand &o, BufferType t) -> Attribute {
    unsigned operand = o.getOperandNumber();
    if (t.getMemorySpace() == MemorySpace::Reg || operand == 2)
      return rows(op, t, ctx);
    if (operand == 0)
      return panel(mctx, gemmPanelLayoutA(problem->m, problem->k,
                                          g.getTransposeA(), blocking));
    return panel(mctx, gemmPanelLayoutB(problem->k, problem->n,
                                        g.getTransposeB(), blocking));
  };
  addProposal(out,
              proposal(op, pick, 0,
                       "the micro-kernel's panels (A in " +
                           std::to_string(blocking.mr) + "-row panels, B in " +
                           std::to_string(blocking.nr()) +
                           "-column panels, C in rows), read in place"));
  return out;
}

SmallVector<LayoutProposal> proposeCPUGemmNaive(Operation *op,
                                                const ScheduleContext &ctx) {
  auto g = cast<GemmOp>(op);
  SmallVector<LayoutProposal> out;
  if (!hasUnknown(op) || !problemOf(g) || packedCanRun(g))
    return out;
  addProposal(out, rowsProposal(op, ctx, 0,
                                "rows: the scalar loop nest reads any layout"));
  return out;
}

SmallVector<LayoutProposal> proposeCPUCopy(Operation *op,
                                           const ScheduleContext &ctx) {
  SmallVector<LayoutProposal> out;
  if (!hasUnknown(op) || op->getNumOperands() < 2)
    return out;
  Value src = op->getOperand(0), dst = op->getOperand(1);
  BufferType ref = known(src) ? known(src) : known(dst);
  addProposal(out, proposal(
                       op,
                       [&](OpOperand &, BufferType t) {
                         return matching(op, t, ref, ctx);
                       },
                       0,
                       ref ? "dense in the order of the known side, so the "
                             "copy moves whole vectors"
                           : "rows on both sides"));
  // Rows, when the known side is in another order: the copy transposes.
  addProposal(
      out, rowsProposal(op, ctx, kOtherOrderCost, "rows: the copy transposes"));
  return out;
}

SmallVector<LayoutProposal> proposeCPUFill(Operation *op,
                                           const ScheduleContext &ctx) {
  SmallVector<LayoutProposal> out;
  if (!hasUnknown(op))
    return out;
  addProposal(out,
              rowsProposal(op, ctx, 0, "rows: the fill stores whole vectors"));
  return out;
}

SmallVector<LayoutProposal> proposeCPUElementwise(Operation *op,
                                                  const ScheduleContext &ctx) {
  SmallVector<LayoutProposal> out;
  if (!hasUnknown(op))
    return out;
  auto e = cast<ElementwiseOp>(op);
  // The reference for each `?` operand: a known one of its shape and space,
  // else a known output (the shape the operator runs over), else any.
  auto refFor = [&](BufferType t) {
    BufferType best;
    auto consider = [&](Value v) {
      BufferType k = known(v);
      if (!k || k.getRank() != t.getRank())
        return;
      bool same = k.getShape() == t.getShape() &&
                  k.getMemorySpace() == t.getMemorySpace();
      bool bestSame = best && best.getShape() == t.getShape() &&
                      best.getMemorySpace() == t.getMemorySpace();
      if (!best || (same && !bestSame))
        best = k;
    };
    for (Value v : e.getOutputs())
      consider(v);
    for (Value v : e.getInputs())
      consider(v);
    return best;
  };
  addProposal(out, proposal(
                       op,
                       [&](OpOperand &, BufferType t) {
                         return matching(op, t, refFor(t), ctx);
                       },
                       0,
                       "as the known operands, so every operand is "
                       "contiguous along the same loop"));
  addProposal(out, rowsProposal(op, ctx, kOtherOrderCost, "rows"));
  return out;
}

SmallVector<LayoutProposal> proposeCPUReduce(Operation *op,
                                             const ScheduleContext &ctx) {
  SmallVector<LayoutProposal> out;
  auto r = dyn_cast<ReduceOp>(op);
  if (!r || !hasUnknown(op))
    return out;
  auto srcType = cast<BufferType>(r.getSource().getType());
  auto dstType = cast<BufferType>(r.getTarget().getType());
  Result<ReduceMapping> mapping =
      reduceMapping(srcType.getShape(), r.getDims(), dstType.getShape());
  if (!mapping)
    return out;
  ArrayRef<bool> reduced = mapping->reduced;
  ArrayRef<unsigned> targetDims = mapping->targetDims;
  // The target's dims in the order of their source dims in `srcOrder`.
  auto targetOrder = [&](ArrayRef<unsigned> srcOrder) {
    SmallVector<unsigned> order;
    for (unsigned s : srcOrder)
      for (unsigned t = 0; t < targetDims.size(); ++t)
        if (targetDims[t] == s)
          order.push_back(t);
    return order;
  };
  // The source's dims: reduced ones outermost, so that the reduction adds
  // whole vectors of kept elements, then the kept ones in the target's
  // order.
  auto sourceOrder = [&](ArrayRef<unsigned> dstOrder) {
    SmallVector<unsigned> order;
    for (unsigned s = 0; s < reduced.size(); ++s)
      if (reduced[s])
        order.push_back(s);
    for (unsigned t : dstOrder)
      if (!reduced[targetDims[t]])
        order.push_back(targetDims[t]);
    return order;
  };
  SmallVector<unsigned> srcOrder, dstOrder;
  if (srcType.hasLayout()) {
    srcOrder = dimOrder(srcType);
    dstOrder = targetOrder(srcOrder);
  } else {
    dstOrder = dstType.hasLayout() ? dimOrder(dstType)
                                   : rowMajorOrder(dstType.getRank());
    srcOrder = sourceOrder(dstOrder);
  }
  MLIRContext *mctx = op->getContext();
  addProposal(out, proposal(
                       op,
                       [&](OpOperand &o, BufferType t) {
                         ArrayRef<unsigned> order =
                             o.get() == r.getSource() ? srcOrder : dstOrder;
                         return attrOf(mctx, denseLayout(t.getShape(), order,
                                                         spreadOf(op, t, ctx)));
                       },
                       0,
                       "source and target contiguous along the same kept "
                       "dim: the reduction adds whole vectors"));
  return out;
}

} // namespace axe
