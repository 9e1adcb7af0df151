//===- TrnSchedules.cpp - copy, fill, gemm and reduce on a NeuronCore -----===//
//
// Each schedule refines its operands into one iteration space (OpSpace),
// picks the space iters one instruction covers, and loops over the rest.
// Its match works on types alone and declines with what did not fit; its
// rewrite emits the instructions on views of the operands' storage.
//
//===----------------------------------------------------------------------===//

#include "TrnSchedules.h"
#include "TrnOperands.h"

#include "axe/Codegen/LayoutEmitter.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Target/Trn/Machine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace m = axe::trn::machine;

namespace axe::trnconv {

Result<OperandSet> analyzeOperands(ArrayRef<Value> buffers,
                                   ArrayRef<int64_t> shape,
                                   ArrayRef<SmallVector<int, 4>> dimOf) {
  OperandSet set;
  for (auto [k, v] : llvm::enumerate(buffers)) {
    if (!hasConcreteLayout(v))
      return fail("operand " + std::to_string(k) +
                  ": its layout is `?` (run axe-infer-layouts)");
    Result<TrnOperand> op = analyzeOperand(v);
    if (!op)
      return fail("operand " + std::to_string(k) + ": " + op.message());
    set.ops.push_back(std::move(*op));
  }
  SmallVector<const TrnOperand *> ptrs;
  for (const TrnOperand &op : set.ops)
    ptrs.push_back(&op);
  Result<OpSpace> space = OpSpace::build(shape, ptrs, dimOf);
  if (!space)
    return space.takeFailure();
  set.space = std::move(*space);
  return set;
}

SmallVector<int, 4> identityDims(unsigned rank) {
  SmallVector<int, 4> dims;
  for (unsigned d = 0; d < rank; ++d)
    dims.push_back(d);
  return dims;
}

std::optional<std::string> checkScope(Operation *op) {
  auto scope = cast<OperatorOpInterface>(op).getScope();
  if (scope.getKind() == ScopeKind::CTA)
    return std::nullopt;
  return "a NeuronCore runs operators at cta scope (one control thread "
         "drives its engines)";
}

LogicalResult materializeAll(OpBuilder &b, Location loc, OperandSet &set) {
  for (TrnOperand &op : set.ops)
    if (failed(materialize(b, loc, op)))
      return failure();
  return success();
}

std::string describe(const OpSpace &space, unsigned k) {
  std::string s;
  for (const SpaceIter &it : space.iters()) {
    if (!it.at[k])
      continue;
    const char *kind[] = {"P", "F", "Bank", "m"};
    s += (s.empty() ? "" : ", ") + std::to_string(it.extent) + "@" +
         kind[int(it.at[k]->kind)] + " (dim " + std::to_string(it.dim) + ")";
  }
  return "[" + s + "]";
}

namespace {

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// One instruction over `viewIters` of every operand (partition iter first),
/// in loops over `loopIters`.
struct TilePlan {
  OperandSet set;
  SmallVector<unsigned> viewIters, loopIters;
};

/// The partition iter of the on-chip operands `chip`, which must agree, or
/// a reason why there is none.
Result<std::optional<unsigned>> sharedPartitionIter(const OpSpace &space,
                                                    ArrayRef<unsigned> chip) {
  std::optional<unsigned> found;
  for (unsigned k : chip) {
    SmallVector<unsigned, 2> p = space.itersOfKind(k, IterKind::Partition);
    if (p.size() > 1)
      return fail("operand " + std::to_string(k) +
                  " has its partitions in two iters " + describe(space, k));
    std::optional<unsigned> mine =
        p.empty() ? std::nullopt : std::optional(p.front());
    if (k != chip.front() && mine != found)
      return fail("the operands' partitions are different iters: " +
                  describe(space, chip.front()) + " against " +
                  describe(space, k));
    found = mine;
  }
  return found;
}

/// Puts the partition iter first and every other iter of extent > 1 after
/// it; beyond `maxFree` free dims the outermost ones become loops.
TilePlan planTiles(OperandSet set, std::optional<unsigned> partition,
                   unsigned maxFree = m::kMaxFreeDims) {
  TilePlan plan;
  SmallVector<unsigned> free;
  for (unsigned i = 0; i < set.space.size(); ++i)
    if (i != partition)
      free.push_back(i);
  while (free.size() > maxFree)
    plan.loopIters.push_back(free.front()), free.erase(free.begin());
  if (partition)
    plan.viewIters.push_back(*partition);
  plan.viewIters.append(free.begin(), free.end());
  plan.set = std::move(set);
  return plan;
}

const TilePlan &planOf(const std::any &plan) {
  return *std::any_cast<TilePlan>(&plan);
}

/// Emits `emit(views)` for each loop step of a tile plan.
LogicalResult
emitTiles(Operation *op, const std::any &anyPlan, RewriterBase &rw,
          function_ref<void(OpBuilder &, ArrayRef<Value> views)> emit) {
  FailureOr<TilePlan> plan = startRewrite<TilePlan>(op, anyPlan, rw);
  if (failed(plan))
    return failure();
  const OperandSet &set = plan->set;
  Location loc = op->getLoc();
  emitSpaceLoops(rw, loc, set.space, plan->loopIters,
                 [&](OpBuilder &b, ArrayRef<Value> offsets, ArrayRef<Value>) {
                   SmallVector<Value> views;
                   for (unsigned k = 0; k < set.ops.size(); ++k)
                     views.push_back(set.space.view(
                         b, loc, set.ops[k], k, plan->viewIters, offsets[k]));
                   emit(b, views);
                 });
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// copy
//===----------------------------------------------------------------------===//

Result<OperandSet> copyOperands(CopyOp copy) {
  auto type = cast<BufferType>(copy.getSource().getType());
  SmallVector<int, 4> dims = identityDims(type.getRank());
  return analyzeOperands({copy.getSource(), copy.getTarget()}, type.getShape(),
                         {dims, dims});
}

ScheduleMatch matchDma(Operation *op, const ScheduleContext &) {
  if (auto why = checkScope(op))
    return ScheduleMatch::decline(*why);
  auto copy = cast<CopyOp>(op);
  Result<OperandSet> set = copyOperands(copy);
  if (!set)
    return ScheduleMatch::decline(set.message());
  trn::MemorySpace src = set->ops[0].space, dst = set->ops[1].space;
  bool hbmSrc = src == trn::MemorySpace::HBM,
       hbmDst = dst == trn::MemorySpace::HBM;
  if (hbmSrc == hbmDst)
    return ScheduleMatch::decline("DMA moves between hbm and sbuf; this copy "
                                  "has " +
                                  std::string(hbmSrc ? "both" : "neither") +
                                  " in hbm");
  unsigned chip = hbmSrc ? 1 : 0;
  if (set->ops[chip].space != trn::MemorySpace::SBUF)
    return ScheduleMatch::decline("DMA does not reach psum: copy through sbuf");
  Result<std::optional<unsigned>> p = sharedPartitionIter(set->space, {chip});
  if (!p)
    return ScheduleMatch::decline(p.message());
  return ScheduleMatch::accept(planTiles(std::move(*set), *p));
}

LogicalResult rewriteDma(Operation *op, const ScheduleContext &,
                         const std::any &plan, RewriterBase &rw) {
  return emitTiles(op, plan, rw, [&](OpBuilder &b, ArrayRef<Value> v) {
    trn::DmaCopyOp::create(b, op->getLoc(), v[0], v[1]);
  });
}

ScheduleMatch matchEngineCopy(Operation *op, const ScheduleContext &) {
  if (auto why = checkScope(op))
    return ScheduleMatch::decline(*why);
  Result<OperandSet> set = copyOperands(cast<CopyOp>(op));
  if (!set)
    return ScheduleMatch::decline(set.message());
  if (!set->ops[0].onChip() || !set->ops[1].onChip())
    return ScheduleMatch::decline("VectorE copies within sbuf and psum");
  Result<std::optional<unsigned>> p = sharedPartitionIter(set->space, {0, 1});
  if (!p)
    return ScheduleMatch::decline(p.message() +
                                  "; an engine keeps data in its partition");
  return ScheduleMatch::accept(planTiles(std::move(*set), *p));
}

LogicalResult rewriteEngineCopy(Operation *op, const ScheduleContext &,
                                const std::any &plan, RewriterBase &rw) {
  return emitTiles(op, plan, rw, [&](OpBuilder &b, ArrayRef<Value> v) {
    trn::TensorCopyOp::create(b, op->getLoc(), v[0], v[1], trn::Engine::Vector);
  });
}

/// src[a on P, b on F] -> dst[b on P, a on F]: TensorE transposes from SBUF
/// into PSUM (a matmul with the identity); VectorE copies it on when the
/// destination is in SBUF. Iters free in both are loops, one transpose of
/// up to 128 x 128 each.
ScheduleMatch matchTranspose(Operation *op, const ScheduleContext &) {
  if (auto why = checkScope(op))
    return ScheduleMatch::decline(*why);
  Result<OperandSet> set = copyOperands(cast<CopyOp>(op));
  if (!set)
    return ScheduleMatch::decline(set.message());
  if (set->ops[0].space != trn::MemorySpace::SBUF || !set->ops[1].onChip())
    return ScheduleMatch::decline(
        "TensorE transposes from sbuf into psum (or on into sbuf)");
  const OpSpace &s = set->space;
  SmallVector<unsigned, 2> a = s.itersOfKind(0, IterKind::Partition),
                           b = s.itersOfKind(1, IterKind::Partition);
  auto freeInDst = [&](unsigned i) {
    return s.iter(i).at[1] && s.iter(i).at[1]->kind != IterKind::Partition;
  };
  auto freeInSrc = [&](unsigned i) {
    return s.iter(i).at[0] && s.iter(i).at[0]->kind != IterKind::Partition;
  };
  if (a.size() != 1 || b.size() != 1 || a == b || !freeInDst(a[0]) ||
      !freeInSrc(b[0]))
    return ScheduleMatch::decline(
        "a transpose moves one iter from the partitions to the free dim and "
        "one back; source " +
        describe(s, 0) + ", target " + describe(s, 1));
  if (s.iter(a[0]).extent > m::kTensorTransposeMax ||
      s.iter(b[0]).extent > m::kTensorTransposeMax)
    return ScheduleMatch::decline("TensorE transposes at most 128x128");
  TilePlan plan;
  plan.viewIters = {a[0], b[0]};
  for (unsigned i = 0; i < s.size(); ++i)
    if (i != a[0] && i != b[0])
      plan.loopIters.push_back(i);
  plan.set = std::move(*set);
  return ScheduleMatch::accept(plan);
}

LogicalResult rewriteTranspose(Operation *op, const ScheduleContext &,
                               const std::any &anyPlan, RewriterBase &rw) {
  FailureOr<TilePlan> planned = startRewrite<TilePlan>(op, anyPlan, rw);
  if (failed(planned))
    return failure();
  const TilePlan &plan = *planned;
  const OperandSet &set = plan.set;
  Location loc = op->getLoc();
  unsigned a = plan.viewIters[0], b = plan.viewIters[1];
  const OpSpace &s = set.space;
  emitSpaceLoops(
      rw, loc, s, plan.loopIters,
      [&](OpBuilder &ib, ArrayRef<Value> offsets, ArrayRef<Value>) {
        Value src = s.view(ib, loc, set.ops[0], 0, {a, b}, offsets[0]);
        Value dst = s.view(ib, loc, set.ops[1], 1, {b, a}, offsets[1]);
        Value through = dst;
        if (set.ops[1].space != trn::MemorySpace::PSUM)
          through =
              allocTemp(ib, loc, s.iter(b).extent, {s.iter(a).extent},
                        set.ops[0].ref.elementType, trn::MemorySpace::PSUM);
        trn::TransposeOp::create(ib, loc, src, through, trn::Engine::Tensor);
        if (through != dst)
          trn::TensorCopyOp::create(ib, loc, through, dst, trn::Engine::Vector);
      });
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// fill
//===----------------------------------------------------------------------===//

std::optional<TypedAttr> constantValue(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return dyn_cast<TypedAttr>(attr);
}

bool isZero(Value v) {
  std::optional<TypedAttr> c = constantValue(v);
  if (!c)
    return false;
  if (auto f = dyn_cast<FloatAttr>(*c))
    return f.getValue().isZero();
  if (auto i = dyn_cast<IntegerAttr>(*c))
    return i.getValue().isZero();
  return false;
}

/// The attribute on a gemm whose accumulator a zero fill left to its first
/// matmul's `start` (which overwrites PSUM instead of adding to it).
constexpr StringLiteral kZeroInitAttr = "trn.zero_init";

/// A zero fill of a gemm's accumulator right before it: the gemm's first
/// matmul of each output tile starts the accumulation instead.
ScheduleMatch matchFillIntoMatmul(Operation *op, const ScheduleContext &) {
  auto fill = cast<FillOp>(op);
  auto gemm = dyn_cast_or_null<GemmOp>(op->getNextNode());
  if (!gemm || gemm.getC() != fill.getTarget() || !isZero(fill.getValue()))
    return ScheduleMatch::decline(
        "the next op is not a gemm into this buffer, or the value is not 0");
  if (cast<BufferType>(gemm.getC().getType()).getMemorySpace() !=
      MemorySpace::PSum)
    return ScheduleMatch::decline("the accumulator is not in psum");
  return ScheduleMatch::accept();
}

LogicalResult rewriteFillIntoMatmul(Operation *op, const ScheduleContext &,
                                    const std::any &, RewriterBase &rw) {
  op->getNextNode()->setAttr(kZeroInitAttr, rw.getUnitAttr());
  rw.eraseOp(op);
  return success();
}

ScheduleMatch matchMemset(Operation *op, const ScheduleContext &) {
  if (auto why = checkScope(op))
    return ScheduleMatch::decline(*why);
  auto fill = cast<FillOp>(op);
  if (!constantValue(fill.getValue()))
    return ScheduleMatch::decline(
        "memset takes an immediate; the value is not a constant");
  auto type = cast<BufferType>(fill.getTarget().getType());
  Result<OperandSet> set = analyzeOperands({fill.getTarget()}, type.getShape(),
                                           {identityDims(type.getRank())});
  if (!set)
    return ScheduleMatch::decline(set.message());
  if (!set->ops[0].onChip())
    return ScheduleMatch::decline(
        "hbm is written by DMA: fill an sbuf tile and copy it");
  Result<std::optional<unsigned>> p = sharedPartitionIter(set->space, {0});
  if (!p)
    return ScheduleMatch::decline(p.message());
  return ScheduleMatch::accept(planTiles(std::move(*set), *p));
}

LogicalResult rewriteMemset(Operation *op, const ScheduleContext &,
                            const std::any &plan, RewriterBase &rw) {
  auto fill = cast<FillOp>(op);
  Type elementType = planOf(plan).set.ops[0].ref.elementType;
  TypedAttr value = *constantValue(fill.getValue());
  if (auto f = dyn_cast<FloatAttr>(value); f && isa<FloatType>(elementType)) {
    bool lost;
    APFloat v = f.getValue();
    v.convert(cast<FloatType>(elementType).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    value = FloatAttr::get(elementType, v);
  } else if (auto i = dyn_cast<IntegerAttr>(value);
             i && isa<IntegerType>(elementType)) {
    value = IntegerAttr::get(elementType, i.getValue().getSExtValue());
  } else {
    return op->emitError("trn: fill value ")
           << value << " does not convert to " << elementType;
  }
  return emitTiles(op, plan, rw, [&](OpBuilder &b, ArrayRef<Value> v) {
    trn::MemsetOp::create(b, op->getLoc(), value, v[0], trn::Engine::Vector);
  });
}

//===----------------------------------------------------------------------===//
// gemm: the paper's section 3.4 on TensorE
//===----------------------------------------------------------------------===//

/// dst[M, N] (+)= stationary[K, M]^T moving[K, N]: K on the partitions of A
/// and B, M on C's partitions and A's free dim, N on the free dims of B and
/// C within one PSUM bank. The other iters are loops, K outermost; every
/// K step after the first accumulates.
struct GemmPlan {
  OperandSet set;
  unsigned k = 0, m = 0, n = 0;
  SmallVector<unsigned> loops;
  /// How many of `loops` (the outermost) run over K.
  unsigned kLoops = 0;
};

enum : unsigned { kDimM = 0, kDimN = 1, kDimK = 2 };

Result<GemmPlan> planGemm(GemmOp gemm) {
  auto a = cast<BufferType>(gemm.getA().getType());
  auto c = cast<BufferType>(gemm.getC().getType());
  int64_t kExtent = a.getShape()[gemm.getTransposeA() ? 0 : 1];
  SmallVector<int, 4> dimA = gemm.getTransposeA() ? SmallVector<int, 4>{2, 0}
                                                  : SmallVector<int, 4>{0, 2};
  SmallVector<int, 4> dimB = gemm.getTransposeB() ? SmallVector<int, 4>{1, 2}
                                                  : SmallVector<int, 4>{2, 1};
  Result<OperandSet> set = analyzeOperands(
      {gemm.getA(), gemm.getB(), gemm.getC()},
      {c.getShape()[0], c.getShape()[1], kExtent}, {dimA, dimB, {0, 1}});
  if (!set)
    return set.takeFailure();
  if (set->ops[0].space != trn::MemorySpace::SBUF ||
      set->ops[1].space != trn::MemorySpace::SBUF ||
      set->ops[2].space != trn::MemorySpace::PSUM)
    return fail("TensorE reads A and B from sbuf and accumulates C in psum");
  if (!set->ops[2].ref.elementType.isF32())
    return fail(
        "TensorE accumulates in f32; C is " +
        std::to_string(set->ops[2].ref.elementType.getIntOrFloatBitWidth()) +
        "-bit");
  GemmPlan plan;
  OpSpace &s = set->space;
  auto kindAt = [&](unsigned i, unsigned k) {
    return s.iter(i).at[k] ? std::optional(s.iter(i).at[k]->kind)
                           : std::nullopt;
  };
  std::optional<unsigned> k, m, n;
  for (unsigned i = 0; i < s.size(); ++i) {
    unsigned dim = s.iter(i).dim;
    if (dim == kDimK && kindAt(i, 0) == IterKind::Partition &&
        kindAt(i, 1) == IterKind::Partition)
      k = i;
    else if (dim == kDimM && kindAt(i, 2) == IterKind::Partition &&
             kindAt(i, 0) == IterKind::Free)
      m = i;
    else if (dim == kDimN && kindAt(i, 2) == IterKind::Free &&
             kindAt(i, 1) == IterKind::Free)
      n = i; // the innermost such iter wins
  }
  if (!k)
    return fail("K must be on the partitions of both A and B: A " +
                describe(s, 0) + ", B " + describe(s, 1));
  if (!m)
    return fail("M must be on C's partitions and A's free dim: A " +
                describe(s, 0) + ", C " + describe(s, 2));
  if (!n)
    return fail("N must be on the free dims of B and C: B " + describe(s, 1) +
                ", C " + describe(s, 2));
  if (s.iter(*n).extent > m::kMatmulMaxMovingFree) {
    if (s.iter(*n).extent % m::kMatmulMaxMovingFree != 0)
      return fail("N's iter of " + std::to_string(s.iter(*n).extent) +
                  " does not split into moving tiles of 512");
    s.split(*n, m::kMatmulMaxMovingFree);
    if (*k > *n)
      ++*k;
    if (*m > *n)
      ++*m;
    ++*n;
  }
  for (unsigned i = 0; i < s.size(); ++i) {
    if (i == *k || i == *m || i == *n)
      continue;
    for (unsigned op = 0; op < 3; ++op) {
      if (kindAt(i, op) != IterKind::Partition)
        continue;
      if (s.iter(i).dim == kDimK)
        return fail("A and B put K on the partitions differently (A " +
                    describe(s, 0) + ", B " + describe(s, 1) +
                    "): a matmul needs the same K indices on the same "
                    "partitions of both; copy one into the other's K "
                    "layout");
      return fail("operand " + std::to_string(op) +
                  " has a second iter on the partitions " + describe(s, op));
    }
  }
  // K outermost: consecutive matmuls share their stationary tile, and each
  // K tile of the inputs is done with early, so the next one's load can
  // take its place while the rest still runs.
  for (unsigned dim : {kDimK, kDimM, kDimN})
    for (unsigned i = 0; i < s.size(); ++i)
      if (s.iter(i).dim == dim && i != *k && i != *m && i != *n) {
        plan.loops.push_back(i);
        plan.kLoops += dim == kDimK;
      }
  plan.k = *k;
  plan.m = *m;
  plan.n = *n;
  plan.set = std::move(*set);
  return plan;
}

ScheduleMatch matchMatmul(Operation *op, const ScheduleContext &) {
  return matchPlanned<GemmOp>(op, planGemm);
}

LogicalResult rewriteMatmul(Operation *op, const ScheduleContext &,
                            const std::any &anyPlan, RewriterBase &rw) {
  FailureOr<GemmPlan> planned = startRewrite<GemmPlan>(op, anyPlan, rw);
  if (failed(planned))
    return failure();
  const GemmPlan &plan = *planned;
  Location loc = op->getLoc();
  // A zero fill folded into the gemm, or the gemm's own zero_init: the
  // matmul's start flag overwrites PSUM instead of adding to it.
  bool zeroInit = op->hasAttr(kZeroInitAttr) || cast<GemmOp>(op).getZeroInit();
  const OpSpace &s = plan.set.space;
  emitSpaceLoops(
      rw, loc, s, plan.loops,
      [&](OpBuilder &b, ArrayRef<Value> offsets, ArrayRef<Value> ivs) {
        Value stationary =
            s.view(b, loc, plan.set.ops[0], 0, {plan.k, plan.m}, offsets[0]);
        Value moving =
            s.view(b, loc, plan.set.ops[1], 1, {plan.k, plan.n}, offsets[1]);
        Value dst =
            s.view(b, loc, plan.set.ops[2], 2, {plan.m, plan.n}, offsets[2]);
        auto matmul = [&](OpBuilder &ib, bool start) {
          trn::MatmulOp::create(ib, loc, stationary, moving, dst, start,
                                /*stop=*/false);
        };
        if (!zeroInit)
          return matmul(b, false);
        // The first step along every K loop starts the accumulation.
        Value first;
        for (Value iv : ivs.take_front(plan.kLoops)) {
          Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             iv, indexConstant(b, loc, 0));
          first = first ? arith::AndIOp::create(b, loc, first, zero) : zero;
        }
        if (!first)
          return matmul(b, true);
        auto branch = scf::IfOp::create(b, loc, first, /*withElse=*/true);
        OpBuilder tb = branch.getThenBodyBuilder();
        matmul(tb, true);
        OpBuilder eb = branch.getElseBodyBuilder();
        matmul(eb, false);
      });
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

std::optional<trn::AluOp> aluOf(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return trn::AluOp::Add;
  case ReduceKind::Max:
    return trn::AluOp::Max;
  case ReduceKind::Min:
    return trn::AluOp::Min;
  case ReduceKind::Prod:
    return trn::AluOp::Multiply;
  }
  return std::nullopt;
}

/// VectorE reduces the trailing free dims of each partition:
/// src[P, reduced...] -> dst[P].
struct ReducePlan {
  OperandSet set;
  unsigned partition = 0;
  SmallVector<unsigned> reduced, loops;
};

Result<ReducePlan> planReduce(ReduceOp reduce) {
  auto src = cast<BufferType>(reduce.getSource().getType());
  auto dst = cast<BufferType>(reduce.getTarget().getType());
  ArrayRef<int64_t> dims = reduce.getDims();
  SmallVector<int, 4> dstDims;
  bool keeps = dst.getRank() == src.getRank();
  for (unsigned d = 0; d < src.getRank(); ++d) {
    bool reduced = llvm::is_contained(dims, int64_t(d));
    if (!reduced)
      dstDims.push_back(d);
    else if (keeps)
      dstDims.push_back(-1);
  }
  Result<OperandSet> set =
      analyzeOperands({reduce.getSource(), reduce.getTarget()}, src.getShape(),
                      {identityDims(src.getRank()), dstDims});
  if (!set)
    return set.takeFailure();
  if (!set->ops[0].onChip() || !set->ops[1].onChip())
    return fail("VectorE reduces within sbuf and psum");
  ReducePlan plan;
  const OpSpace &s = set->space;
  Result<std::optional<unsigned>> p = sharedPartitionIter(s, {0, 1});
  if (!p)
    return p.takeFailure();
  if (!*p)
    return fail("the kept dims must be on the partitions");
  plan.partition = **p;
  for (unsigned i = 0; i < s.size(); ++i) {
    if (i == plan.partition)
      continue;
    if (llvm::is_contained(dims, int64_t(s.iter(i).dim)))
      plan.reduced.push_back(i);
    else
      plan.loops.push_back(i);
  }
  if (llvm::is_contained(dims, int64_t(s.iter(plan.partition).dim)))
    return fail("a reduction over the partitions needs a transpose first");
  if (plan.reduced.size() > m::kMaxFreeDims)
    return fail("more than 4 reduced free dims");
  plan.set = std::move(*set);
  return plan;
}

ScheduleMatch matchVectorReduce(Operation *op, const ScheduleContext &) {
  return matchPlanned<ReduceOp>(op, planReduce);
}

LogicalResult rewriteVectorReduce(Operation *op, const ScheduleContext &,
                                  const std::any &anyPlan, RewriterBase &rw) {
  auto reduce = cast<ReduceOp>(op);
  FailureOr<ReducePlan> planned = startRewrite<ReducePlan>(op, anyPlan, rw);
  if (failed(planned))
    return failure();
  const ReducePlan &plan = *planned;
  Location loc = op->getLoc();
  trn::AluOp alu = *aluOf(reduce.getKind());
  const OpSpace &s = plan.set.space;
  SmallVector<unsigned> srcIters = {plan.partition};
  srcIters.append(plan.reduced);
  SmallVector<int64_t> axes;
  for (unsigned i = 1; i < srcIters.size(); ++i)
    axes.push_back(i);
  int64_t partitions = s.iter(plan.partition).extent;
  emitSpaceLoops(
      rw, loc, s, plan.loops,
      [&](OpBuilder &b, ArrayRef<Value> offsets, ArrayRef<Value>) {
        Value src = s.view(b, loc, plan.set.ops[0], 0, srcIters, offsets[0]);
        Value dst =
            s.view(b, loc, plan.set.ops[1], 1, {plan.partition}, offsets[1]);
        if (!reduce.getAccumulate()) {
          trn::TensorReduceOp::create(b, loc, alu, src, dst, axes, false);
          return;
        }
        Value part = allocTemp(b, loc, partitions, {}, b.getF32Type());
        trn::TensorReduceOp::create(b, loc, alu, src, part, axes, false);
        trn::TensorTensorOp::create(b, loc, alu, dst, part, dst,
                                    trn::Engine::Vector);
      });
  rw.eraseOp(op);
  return success();
}

Schedule makeSchedule(StringRef name, StringRef opName, int priority,
                      StringRef summary, Schedule::MatchFn match,
                      Schedule::RewriteFn rewrite,
                      Schedule::ProposeFn propose = {}) {
  Schedule s;
  s.name = name.str();
  s.opName = opName.str();
  s.targets = targetKind(TargetKind::Accelerator);
  s.priority = priority;
  s.summary = summary.str();
  s.match = std::move(match);
  s.rewrite = std::move(rewrite);
  s.propose = std::move(propose);
  return s;
}

} // namespace

Schedule makeTrnSchedule(StringRef name, StringRef opName, int priority,
                         StringRef summary, Schedule::MatchFn match,
                         Schedule::RewriteFn rewrite,
                         Schedule::ProposeFn propose) {
  return makeSchedule(name, opName, priority, summary, std::move(match),
                      std::move(rewrite), std::move(propose));
}

void addTrnSchedules(ScheduleRegistry &registry) {
  auto add = [&](Schedule s) { (void)registry.add(std::move(s)); };
  add(makeSchedule("dma", "axe.copy", 20,
                   "trn.dma_copy between hbm and sbuf, one access pattern "
                   "per tile",
                   matchDma, rewriteDma, proposeDma));
  add(makeSchedule("engine-copy", "axe.copy", 10,
                   "VectorE tensor_copy within sbuf/psum, partitions kept",
                   matchEngineCopy, rewriteEngineCopy, proposeEngineCopy));
  add(makeSchedule("tensore-transpose", "axe.copy", 5,
                   "TensorE transpose into psum (then VectorE into sbuf) "
                   "when the partition and free iters swap",
                   matchTranspose, rewriteTranspose, proposeTranspose));
  add(makeSchedule("matmul-start", "axe.fill", 20,
                   "a zero fill of the next gemm's accumulator becomes that "
                   "gemm's matmul start flag",
                   matchFillIntoMatmul, rewriteFillIntoMatmul));
  add(makeSchedule("memset", "axe.fill", 10, "VectorE memset of each tile",
                   matchMemset, rewriteMemset, proposeMemset));
  Schedule matmul =
      makeSchedule("tensore-matmul", "axe.gemm", 10,
                   "TensorE matmuls: K on the partitions, M <= 128, N <= "
                   "512 in one PSUM bank; loops over the rest",
                   matchMatmul, rewriteMatmul, proposeMatmul);
  // zero_init is the start flag of each output tile's first matmul, as for
  // a fill that matmul-start folds: axe-dispatch puts back no zero fill
  // (and no barrier after one), and no memset runs.
  matmul.zeroInit = true;
  add(std::move(matmul));
  add(makeSchedule("vector-reduce", "axe.reduce", 10,
                   "VectorE tensor_reduce over the free dims",
                   matchVectorReduce, rewriteVectorReduce, proposeReduce));
  addTrnElementwiseSchedules(registry);
}

} // namespace axe::trnconv
