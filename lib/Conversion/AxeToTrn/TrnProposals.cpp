//===- TrnProposals.cpp - Layouts the trn schedules propose ---------------===//
//
// The anchors of layout inference on a NeuronCore (axe-infer-layouts). For
// an operator some of whose SBUF/PSUM buffers are `?`, a schedule proposes
// the layouts it runs the operator with best, consistent with the buffers
// whose layouts are known:
//
//   tensore-matmul     K on the partitions of A and B, M on A's free dim and
//                      C's partitions, N over C's PSUM banks (section 3.4);
//   dma                the partition dim that gives every partition the
//                      longest contiguous runs of HBM (rows on partitions);
//   engine-copy,       the known operand's layout (a PSUM layout seen flat
//   engines, memset,   from SBUF, split into banks from SBUF into PSUM), or
//   vector-reduce      its partition dim;
//   tensore-transpose  the known side's partition and free dims swapped.
//
// The layouts come from lib/Layout (partitionTiledLayout, psumTileLayout,
// psumBankView, psumFlatView); inference keeps a proposal only when the
// schedule's match accepts it.
//
//===----------------------------------------------------------------------===//

#include "TrnSchedules.h"

#include "axe/Codegen/BufferRef.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/Algebra.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Support/ElementBytes.h"

#include <cmath>

using namespace mlir;

namespace axe::trnconv {

bool hasConcreteLayout(Value buffer) {
  auto type = dyn_cast<BufferType>(buffer.getType());
  if (!type || !type.hasLayout())
    return false;
  Result<BufferChain> chain = walkBufferChain(buffer);
  if (!chain)
    return true; // analyzeOperand says why it cannot use it.
  auto check = [](Value v) {
    return cast<BufferType>(v.getType()).hasLayout();
  };
  if (!check(chain->root->getResult(0)))
    return false;
  return llvm::all_of(chain->slices,
                      [&](SliceOp s) { return check(s.getSource()); });
}

namespace {

AcceleratorConfig configOf(const ScheduleContext &ctx) {
  if (ctx.target)
    if (std::optional<AcceleratorConfig> c = ctx.target->acceleratorConfig())
      return *c;
  return {};
}

BufferType typeOf(Value v) { return cast<BufferType>(v.getType()); }

bool isIn(Value v, MemorySpace space) {
  return typeOf(v).getMemorySpace() == space;
}

bool onChip(Value v) {
  return isIn(v, MemorySpace::SBuf) || isIn(v, MemorySpace::PSum);
}

/// A `?` buffer in SBUF or PSUM: what the trn proposals fill in.
bool isOpen(Value v) { return onChip(v) && !typeOf(v).hasLayout(); }

unsigned bytesOf(BufferType type) {
  return elementBytes(type.getElementType());
}

/// The layout of a fresh buffer of `type` whose logical dim `pd` runs on the
/// partitions: in SBUF partitionTiledLayout (that dim's tiles of 128 rows
/// outermost on F, each a contiguous block: what TensorE's operands and
/// transposes take); in PSUM, a matrix with its rows on the partitions
/// fills banks in order (psumTileLayout), other shapes are the SBUF layout
/// seen by banks.
Result<TileLayout> partitionedOn(BufferType type, unsigned pd,
                                 const AcceleratorConfig &config) {
  ArrayRef<int64_t> shape = type.getShape();
  unsigned bytes = bytesOf(type);
  Result<TileLayout> flat = partitionTiledLayout(shape, pd, bytes, config);
  if (type.getMemorySpace() != MemorySpace::PSum)
    return flat;
  if (shape.size() == 2 && pd == 0 && shape[0] <= config.partitions)
    return psumTileLayout(shape[0], shape[1], bytes, config);
  if (!flat)
    return flat;
  return psumBankView(*flat, bytes, config);
}

/// Whether every iter of `layout` enumerates its axis without holes.
bool isDense(const TileLayout &layout) {
  if (layout.replicaCount() > 1)
    return false;
  for (const std::string &axis : layout.axes()) {
    int64_t product = 1;
    for (const Iter &it : layout.shard())
      if (it.axis == axis)
        product *= it.extent;
    if (product != layout.span(axis))
      return false;
  }
  return true;
}

/// `known`, the layout of a buffer of `from`, for a fresh buffer of `to`
/// (the same shape): its offset dropped, Bank folded into F when it moves
/// from PSUM to SBUF and split out of F the other way. Fails when the result
/// would leave holes (a slice of a wider buffer).
Result<TileLayout> sameLayoutFor(const TileLayout &known, BufferType from,
                                 BufferType to,
                                 const AcceleratorConfig &config) {
  Result<TileLayout> plain = TileLayout::create(
      IterList(known.shard().begin(), known.shard().end()),
      IterList(known.replica().begin(), known.replica().end()));
  if (!plain)
    return plain;
  unsigned bytes = bytesOf(from);
  bool fromPsum = from.getMemorySpace() == MemorySpace::PSum;
  bool toPsum = to.getMemorySpace() == MemorySpace::PSum;
  Result<TileLayout> flat =
      fromPsum ? psumFlatView(*plain, bytes, config) : std::move(plain);
  if (!flat)
    return flat;
  if (!isDense(*flat))
    return fail("the known layout " + known.str() + " has holes");
  // The banks folded back, F is one run again: (2, 512) : (512@F, 1@F)
  // reads 1024 : 1@F.
  if (fromPsum && !toPsum)
    return canonicalize(*flat);
  if (!toPsum)
    return flat;
  return psumBankView(*flat, bytesOf(to), config);
}

/// The logical dims of the known buffer `v` on the partitions.
Result<SmallVector<unsigned, 2>> partitionDims(Value v) {
  BufferType type = typeOf(v);
  Result<OperandSet> set =
      analyzeOperands({v}, type.getShape(), {identityDims(type.getRank())});
  if (!set)
    return set.takeFailure();
  SmallVector<unsigned, 2> dims;
  for (unsigned i : set->space.itersOfKind(0, IterKind::Partition))
    if (!llvm::is_contained(dims, set->space.iter(i).dim))
      dims.push_back(set->space.iter(i).dim);
  return dims;
}

/// The one logical dim of known `v` on the partitions, if there is one.
std::optional<unsigned> partitionDim(Value v) {
  Result<SmallVector<unsigned, 2>> dims = partitionDims(v);
  if (!dims || dims->size() != 1)
    return std::nullopt;
  return dims->front();
}

/// The partition dim of a buffer no known operand constrains: its rows (dim
/// 0), so that a DMA to or from a row-major HBM tensor moves whole rows per
/// partition (inference takes the first of equally good candidates, and
/// the other dim can cost a descriptor per element); the dim that fills
/// the most partitions when the rows are one or do not fit.
std::optional<unsigned> defaultDim(BufferType type,
                                   const AcceleratorConfig &config) {
  ArrayRef<int64_t> shape = type.getShape();
  if (!shape.empty() && shape[0] > 1 && partitionedOn(type, 0, config))
    return 0;
  std::optional<unsigned> best;
  int64_t bestUsed = 0;
  for (auto [d, e] : llvm::enumerate(shape)) {
    int64_t used = std::min(e, config.partitions);
    if (used > bestUsed && partitionedOn(type, d, config)) {
      best = d;
      bestUsed = used;
    }
  }
  return best;
}

/// Builds one proposal: a layout per `?` operand; any failure drops it.
class ProposalBuilder {
public:
  ProposalBuilder(MLIRContext *ctx, std::string reason, double cost = 0)
      : ctx(ctx) {
    proposal.reason = std::move(reason);
    proposal.cost = cost;
  }
  void set(unsigned operand, const Result<TileLayout> &layout) {
    if (!layout) {
      ok = false;
      return;
    }
    proposal.layouts.push_back({operand, getLayoutAttr(ctx, Layout(*layout))});
  }
  /// Adds the proposal to `out` unless it failed, is empty or repeats one.
  void addTo(SmallVector<LayoutProposal> &out) {
    if (!ok || proposal.layouts.empty())
      return;
    for (const LayoutProposal &p : out)
      if (p.layouts == proposal.layouts)
        return;
    out.push_back(std::move(proposal));
  }

private:
  MLIRContext *ctx;
  LayoutProposal proposal;
  bool ok = true;
};

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

/// The HBM stride of each logical dim of the known HBM buffer `v`, or none
/// when its layout is not strided along some dim.
std::optional<SmallVector<int64_t, 4>> hbmStrides(Value v) {
  BufferType type = typeOf(v);
  TileLayout layout = type.getLayout().tile();
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t, 4> zero(shape.size(), 0), strides;
  auto at = [&](ArrayRef<int64_t> coord) -> std::optional<int64_t> {
    Result<SmallVector<Coord, 4>> c = layout.apply(coord, shape);
    if (!c || c->empty())
      return std::nullopt;
    return c->front().get(kDefaultAxis);
  };
  std::optional<int64_t> origin = at(zero);
  if (!origin)
    return std::nullopt;
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) {
      strides.push_back(0);
      continue;
    }
    SmallVector<int64_t, 4> unit = zero, last = zero;
    unit[d] = 1;
    last[d] = shape[d] - 1;
    std::optional<int64_t> one = at(unit), end = at(last);
    if (!one || !end || *end - *origin != (*one - *origin) * (shape[d] - 1))
      return std::nullopt;
    strides.push_back(*one - *origin);
  }
  return strides;
}

/// DMA descriptors (contiguous HBM runs) to move a buffer of `shape` whose
/// HBM strides are `strides` into partitionedOn(shape, pd): every
/// partition takes the tiles of `pd` one after the other, the other dims
/// row-major inside each.
int64_t dmaRuns(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides, unsigned pd,
                int64_t partitions) {
  // The free iters, outermost first: (extent, HBM stride).
  SmallVector<std::pair<int64_t, int64_t>, 4> free;
  int64_t total = 1;
  for (auto [d, e] : llvm::enumerate(shape)) {
    total *= e;
    if (d != pd)
      free.push_back({e, strides[d]});
  }
  if (shape[pd] > partitions)
    free.insert(free.begin(),
                {shape[pd] / partitions, strides[pd] * partitions});
  int64_t run = 1;
  for (auto [extent, stride] : llvm::reverse(free)) {
    if (extent == 1)
      continue;
    if (stride != run)
      break;
    run *= extent;
  }
  return total / run;
}

} // namespace

SmallVector<LayoutProposal> proposeDma(Operation *op,
                                       const ScheduleContext &ctx) {
  if (checkScope(op))
    return {};
  auto copy = cast<CopyOp>(op);
  Value src = copy.getSource(), dst = copy.getTarget();
  unsigned chip;
  if (isIn(src, MemorySpace::HBM) && isIn(dst, MemorySpace::SBuf) &&
      isOpen(dst))
    chip = 1;
  else if (isIn(dst, MemorySpace::HBM) && isIn(src, MemorySpace::SBuf) &&
           isOpen(src))
    chip = 0;
  else
    return {};
  Value hbm = chip ? src : dst;
  BufferType type = typeOf(chip ? dst : src);
  AcceleratorConfig config = configOf(ctx);
  std::optional<SmallVector<int64_t, 4>> strides = hbmStrides(hbm);
  // Candidates by DMA runs, then by partitions filled, then by dim.
  struct Candidate {
    unsigned dim;
    int64_t runs, used;
  };
  SmallVector<Candidate> candidates;
  for (auto [d, e] : llvm::enumerate(type.getShape())) {
    if (!partitionedOn(type, d, config))
      continue;
    int64_t runs =
        strides ? dmaRuns(type.getShape(), *strides, d, config.partitions)
                : type.getNumElements();
    candidates.push_back({unsigned(d), runs, std::min(e, config.partitions)});
  }
  llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
    if (a.runs * b.used != b.runs * a.used)
      return a.runs * b.used < b.runs * a.used;
    return a.used > b.used;
  });
  SmallVector<LayoutProposal> out;
  for (const Candidate &c : candidates) {
    // How much worse than the best: runs per partition, relative (a tie
    // breaker; a schedule that needs the other dim still gets it).
    const Candidate &best = candidates.front();
    double cost =
        std::log2(double(c.runs * best.used) / double(best.runs * c.used));
    ProposalBuilder p(op->getContext(),
                      "dma: dim " + std::to_string(c.dim) +
                          " on the partitions, " + std::to_string(c.runs) +
                          " contiguous HBM runs",
                      cost);
    p.set(chip, partitionedOn(type, c.dim, config));
    p.addTo(out);
  }
  return out;
}

namespace {

/// For an on-chip copy or elementwise operand `open` given a known operand
/// `known` of the same shape: the known layout itself (moved between PSUM
/// and SBUF), then a fresh layout on the same partition dim.
void proposeLike(Value known, ArrayRef<std::pair<unsigned, Value>> open,
                 const ScheduleContext &ctx, StringRef who,
                 SmallVector<LayoutProposal> &out) {
  AcceleratorConfig config = configOf(ctx);
  MLIRContext *mctx = known.getContext();
  BufferType from = typeOf(known);
  ProposalBuilder same(mctx, (who + ": the layout of the known operand").str());
  for (auto [k, v] : open)
    same.set(k,
             sameLayoutFor(from.getLayout().tile(), from, typeOf(v), config));
  same.addTo(out);
  if (std::optional<unsigned> pd = partitionDim(known)) {
    ProposalBuilder fresh(mctx, (who + ": dim " + Twine(*pd) +
                                 " on the partitions, as the known operand")
                                    .str());
    for (auto [k, v] : open)
      fresh.set(k, partitionedOn(typeOf(v), *pd, config));
    fresh.addTo(out);
  }
}

/// Every open operand with its default dim (defaultDim) on the partitions: for
/// an op with no known operand to follow.
void proposeDefault(Operation *op, ArrayRef<std::pair<unsigned, Value>> open,
                    const ScheduleContext &ctx, StringRef who,
                    SmallVector<LayoutProposal> &out) {
  if (open.empty())
    return;
  AcceleratorConfig config = configOf(ctx);
  std::optional<unsigned> pd = defaultDim(typeOf(open.front().second), config);
  if (!pd)
    return;
  ProposalBuilder p(op->getContext(), (who + ": dim " + Twine(*pd) +
                                       " on the partitions (nothing known)")
                                          .str());
  for (auto [k, v] : open)
    p.set(k, partitionedOn(typeOf(v), *pd, config));
  p.addTo(out);
}

} // namespace

SmallVector<LayoutProposal> proposeEngineCopy(Operation *op,
                                              const ScheduleContext &ctx) {
  if (checkScope(op))
    return {};
  auto copy = cast<CopyOp>(op);
  Value src = copy.getSource(), dst = copy.getTarget();
  if (!onChip(src) || !onChip(dst))
    return {};
  SmallVector<LayoutProposal> out;
  if (isOpen(src) && isOpen(dst))
    proposeDefault(op, {{0, src}, {1, dst}}, ctx, "engine-copy", out);
  else if (isOpen(dst) && hasConcreteLayout(src))
    proposeLike(src, {{1, dst}}, ctx, "engine-copy", out);
  else if (isOpen(src) && hasConcreteLayout(dst))
    proposeLike(dst, {{0, src}}, ctx, "engine-copy", out);
  return out;
}

SmallVector<LayoutProposal> proposeTranspose(Operation *op,
                                             const ScheduleContext &ctx) {
  if (checkScope(op))
    return {};
  auto copy = cast<CopyOp>(op);
  Value src = copy.getSource(), dst = copy.getTarget();
  if (!isIn(src, MemorySpace::SBuf) || !onChip(dst) ||
      typeOf(src).getRank() != 2)
    return {};
  AcceleratorConfig config = configOf(ctx);
  auto swapped = [&](Value known, Value open, unsigned k) {
    SmallVector<LayoutProposal> out;
    std::optional<unsigned> pd = partitionDim(known);
    if (!pd)
      return out;
    ProposalBuilder p(op->getContext(),
                      "tensore-transpose: dim " + std::to_string(1 - *pd) +
                          " on the partitions, the known side's dim " +
                          std::to_string(*pd) + " on the free dim");
    p.set(k, partitionedOn(typeOf(open), 1 - *pd, config));
    p.addTo(out);
    return out;
  };
  if (isOpen(dst) && hasConcreteLayout(src))
    return swapped(src, dst, 1);
  if (isOpen(src) && hasConcreteLayout(dst))
    return swapped(dst, src, 0);
  return {};
}

SmallVector<LayoutProposal> proposeMemset(Operation *op,
                                          const ScheduleContext &ctx) {
  if (checkScope(op))
    return {};
  Value target = cast<FillOp>(op).getTarget();
  if (!isOpen(target))
    return {};
  SmallVector<LayoutProposal> out;
  proposeDefault(op, {{0, target}}, ctx, "memset", out);
  return out;
}

//===----------------------------------------------------------------------===//
// gemm, reduce, elementwise
//===----------------------------------------------------------------------===//

SmallVector<LayoutProposal> proposeMatmul(Operation *op,
                                          const ScheduleContext &ctx) {
  if (checkScope(op))
    return {};
  auto gemm = cast<GemmOp>(op);
  Value a = gemm.getA(), b = gemm.getB(), c = gemm.getC();
  if (!isIn(a, MemorySpace::SBuf) || !isIn(b, MemorySpace::SBuf) ||
      !isIn(c, MemorySpace::PSum) || !typeOf(c).getElementType().isF32())
    return {};
  if (!isOpen(a) && !isOpen(b) && !isOpen(c))
    return {};
  AcceleratorConfig config = configOf(ctx);
  // A is [M, K] ([K, M] transposed), B [K, N] ([N, K]): K on the
  // partitions of both, K beyond 128 as tiles outermost on the free dim
  // (the schedule loops over them, each matmul reading one contiguous
  // tile); C's rows (M) on its partitions, its columns (N) filling PSUM
  // banks in order.
  unsigned kA = gemm.getTransposeA() ? 0 : 1;
  unsigned kB = gemm.getTransposeB() ? 1 : 0;
  ProposalBuilder p(op->getContext(),
                    "tensore-matmul: K on the partitions of A and B, M on "
                    "C's partitions, N over PSUM banks");
  if (isOpen(a))
    p.set(0, partitionedOn(typeOf(a), kA, config));
  if (isOpen(b))
    p.set(1, partitionedOn(typeOf(b), kB, config));
  if (isOpen(c))
    p.set(2, partitionedOn(typeOf(c), 0, config));
  SmallVector<LayoutProposal> out;
  p.addTo(out);
  return out;
}

SmallVector<LayoutProposal> proposeReduce(Operation *op,
                                          const ScheduleContext &ctx) {
  if (checkScope(op))
    return {};
  auto reduce = cast<ReduceOp>(op);
  Value src = reduce.getSource(), dst = reduce.getTarget();
  if (!onChip(src) || !onChip(dst) || (!isOpen(src) && !isOpen(dst)))
    return {};
  BufferType srcType = typeOf(src), dstType = typeOf(dst);
  ArrayRef<int64_t> dims = reduce.getDims();
  bool keeps = dstType.getRank() == srcType.getRank();
  // The target's dim of each kept source dim.
  SmallVector<int> dstDimOf;
  int next = 0;
  for (unsigned d = 0; d < srcType.getRank(); ++d) {
    bool reduced = llvm::is_contained(dims, int64_t(d));
    dstDimOf.push_back(reduced && !keeps ? -1 : next);
    if (!reduced || keeps)
      ++next;
  }
  // The source dim on the partitions: the known side's, else the widest
  // kept dim.
  std::optional<unsigned> pd;
  if (!isOpen(src) && hasConcreteLayout(src)) {
    pd = partitionDim(src);
  } else if (!isOpen(dst) && hasConcreteLayout(dst)) {
    if (std::optional<unsigned> t = partitionDim(dst))
      for (unsigned d = 0; d < dstDimOf.size(); ++d)
        if (dstDimOf[d] == int(*t))
          pd = d;
  } else {
    int64_t used = 0;
    for (auto [d, e] : llvm::enumerate(srcType.getShape()))
      if (!llvm::is_contained(dims, int64_t(d)) && e > used)
        pd = d, used = e;
  }
  if (!pd || llvm::is_contained(dims, int64_t(*pd)) || dstDimOf[*pd] < 0)
    return {};
  AcceleratorConfig config = configOf(ctx);
  ProposalBuilder p(op->getContext(),
                    "vector-reduce: kept dim " + std::to_string(*pd) +
                        " on the partitions of source and target");
  if (isOpen(src))
    p.set(0, partitionedOn(srcType, *pd, config));
  if (isOpen(dst))
    p.set(1, partitionedOn(dstType, dstDimOf[*pd], config));
  SmallVector<LayoutProposal> out;
  p.addTo(out);
  return out;
}

SmallVector<LayoutProposal> proposeElementwise(Operation *op,
                                               const ScheduleContext &ctx) {
  if (checkScope(op))
    return {};
  auto ew = cast<ElementwiseOp>(op);
  SmallVector<Value> buffers(ew.getInputs());
  buffers.append(ew.getOutputs().begin(), ew.getOutputs().end());
  if (!llvm::all_of(buffers, onChip))
    return {};
  ArrayRef<int64_t> shape = typeOf(ew.getOutputs().front()).getShape();
  auto isFull = [&](Value v) { return typeOf(v).getShape() == shape; };
  SmallVector<std::pair<unsigned, Value>> openFull, openBroadcast;
  Value knownFull, knownAny;
  for (auto [k, v] : llvm::enumerate(buffers)) {
    if (isOpen(v)) {
      (isFull(v) ? openFull : openBroadcast).push_back({unsigned(k), v});
      continue;
    }
    if (!hasConcreteLayout(v))
      continue;
    if (!knownFull && isFull(v))
      knownFull = v;
    if (!knownAny)
      knownAny = v;
  }
  if (openFull.empty() && openBroadcast.empty())
    return {};
  AcceleratorConfig config = configOf(ctx);
  MLIRContext *mctx = op->getContext();
  // The logical dim on the partitions: a known operand's, else the
  // output's default.
  std::optional<unsigned> pd;
  if (knownAny)
    pd = partitionDim(knownFull ? knownFull : knownAny);
  else
    pd = defaultDim(typeOf(ew.getOutputs().front()), config);
  if (!pd)
    return {};
  auto setBroadcasts = [&](ProposalBuilder &p) {
    for (auto [k, v] : openBroadcast)
      p.set(k, typeOf(v).getShape()[*pd] == shape[*pd]
                   ? partitionedOn(typeOf(v), *pd, config)
                   : Result<TileLayout>(fail("no partition dim")));
  };
  SmallVector<LayoutProposal> out;
  if (knownFull) {
    BufferType from = typeOf(knownFull);
    ProposalBuilder same(
        mctx,
        "engines: the layout of the known operand " +
            std::to_string(llvm::find(buffers, knownFull) - buffers.begin()));
    for (auto [k, v] : openFull)
      same.set(k,
               sameLayoutFor(from.getLayout().tile(), from, typeOf(v), config));
    setBroadcasts(same);
    same.addTo(out);
  }
  ProposalBuilder fresh(mctx, "engines: dim " + std::to_string(*pd) +
                                  " on the partitions of every operand");
  for (auto [k, v] : openFull)
    fresh.set(k, partitionedOn(typeOf(v), *pd, config));
  setBroadcasts(fresh);
  fresh.addTo(out);
  return out;
}

} // namespace axe::trnconv
