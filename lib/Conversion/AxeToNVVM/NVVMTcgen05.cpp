//===- NVVMTcgen05.cpp - tcgen05 and tensor memory on sm_100a -------------===//
//
// Four schedules around a tmem accumulator:
//  - 'tcgen05' gemm: A and B K-major shared tiles (descriptors in the sm_100
//    format, from the atoms tile-of finds), C a tmem buffer placed exactly
//    as the target's tcgen05.mma atom puts D (data path D: row i on lane i).
//    One thread of the scope issues a tcgen05.mma per K step of 16 and
//    commits them to the site's mbarrier; the scope's threads wait on it.
//  - 'tcgen05.cp' copy, shared -> tmem: 128 rows of 32 bytes per
//    instruction from a descriptor of the shared atoms, one issuing thread.
//  - 'tcgen05.ld' copy, tmem -> registers, and 'tcgen05.st' fill of tmem:
//    a warpgroup, each warp on its own 32-lane quarter of TMEM (the access
//    rule of the 32x32b shape), the registers laid out as the target's
//    tcgen05.ld atom.
// TMEM itself is allocated by convert-axe-to-nvvm; the schedules address a
// buffer by its i32 TMEM address (tmemAddressOf).
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"
#include "SharedAtoms.h"

#include "axe/Dialect/Axe/IR/OperatorShapes.h"
#include "axe/Layout/SwizzleAlgebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/bit.h"

using namespace mlir;

namespace axe::nvvm {
namespace {

constexpr int64_t kMaxSteps = 64;
/// Registers one tcgen05.ld / st moves per thread at most (.x128).
constexpr int64_t kMaxCellsPerMove = 128;

/// Registers of the next tcgen05.ld / st of a row with `left` columns still
/// to move: .num is x1..x128 in powers of two only, so a row of 48 columns
/// moves as x32 then x16.
int64_t cellsOfNextMove(int64_t left) {
  return std::min(kMaxCellsPerMove, static_cast<int64_t>(llvm::bit_floor(
                                        static_cast<uint64_t>(left))));
}

/// The tmem buffer an operand is: a whole axe.alloc in tmem.
Result<AllocOp> tmemRoot(Value buffer) {
  auto chain = walkBufferChain(buffer);
  if (!chain)
    return chain.takeFailure();
  auto alloc = dyn_cast<AllocOp>(chain->root);
  auto type = cast<BufferType>(chain->root->getResult(0).getType());
  if (!alloc || type.getMemorySpace() != MemorySpace::TMem)
    return fail("the operand is not in tmem");
  if (!chain->slices.empty())
    return fail("tcgen05 addresses whole tmem buffers here, not slices");
  return alloc;
}

/// Whether a tmem buffer of `type` is placed as data path D (128 rows, row
/// i on lane i, 32-bit elements one per column).
Result<bool> checkDatapathD(BufferType type) {
  if (type.getRank() != 2)
    return fail("tcgen05 here keeps 128-row tiles in tmem (data path D); "
                "the buffer is of rank " +
                std::to_string(type.getRank()) + ", not 2");
  if (type.getShape()[0] != 128)
    return fail("tcgen05 here keeps 128-row tiles in tmem (data path D); "
                "the buffer is " +
                std::to_string(type.getShape()[0]) + " rows");
  if (type.getElementType().getIntOrFloatBitWidth() != 32)
    return fail("tmem moves here are of 32-bit elements");
  auto d = tmemDatapathLayout(TmemDatapath::D, 128, type.getShape()[1]);
  if (!d)
    return d.takeFailure();
  auto same = equivalent(type.getLayout(), Layout(*d));
  if (!same || !*same)
    return fail("tcgen05 data path D places row i on lane i, " + d->str() +
                "; the tmem buffer's layout is " + type.getLayout().str());
  return true;
}

/// The i32 TMEM address of `root` plus `lanes` lanes and `columns` columns.
Value tmemAddress(OpBuilder &b, Location loc, Value root, Value lanes,
                  int64_t columns) {
  Value address = tmemAddressOf(b, loc, root);
  if (lanes) {
    Value l = arith::IndexCastOp::create(b, loc, b.getI32Type(), lanes);
    address = arith::AddIOp::create(
        b, loc, address,
        arith::ShLIOp::create(b, loc, l,
                              arith::ConstantIntOp::create(b, loc, 16, 32)));
  }
  if (columns)
    address = arith::AddIOp::create(
        b, loc, address, arith::ConstantIntOp::create(b, loc, columns, 32));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 6), address);
}

void fence(OpBuilder &b, Location loc, NVVM::Tcgen05FenceKind kind) {
  NVVM::Tcgen05FenceOp::create(b, loc, kind);
}

/// What every one-thread tcgen05 operation does around its instructions:
/// the scope's first thread fences (shared data written by ordinary stores
/// must reach the async proxy), runs `issue` and commits it to the site's
/// mbarrier (made at the kernel's start); every thread of the scope waits
/// for it, then fences before the barrier that hands the result on. The
/// insertion point is `op`, which is erased.
LogicalResult emitIssuedByOneThread(Operation *op,
                                    const ThreadTargetCodegen &cg,
                                    RewriterBase &rw,
                                    function_ref<void(OpBuilder &)> issue) {
  Location loc = op->getLoc();
  SiteBarrier site = createSiteBarrier(rw, op->getParentOfType<KernelOp>(), cg);
  FailureOr<ScopeRank> rank = scopeRank(rw, op, cg);
  if (failed(rank))
    return failure();
  Value leader = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                       rank->rank, indexConstant(rw, loc, 0));
  guarded(rw, loc, leader, [&](OpBuilder &b) {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    fence(b, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    issue(b);
    NVVM::Tcgen05CommitOp::create(b, loc, siteBarrierPointer(b, loc, site),
                                  Value(), NVVM::CTAGroupKind::CTA_1);
  });
  emitPhaseWait(rw, loc, site);
  fence(rw, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  rw.eraseOp(op);
  return success();
}

ScheduleMatch matchInKernel(Operation *op, const ScheduleContext &ctx) {
  if (!op->getParentOfType<KernelOp>())
    return ScheduleMatch::decline("the operator is outside an axe.kernel");
  if (!ctx.codegen || !ctx.codegen->threads())
    return ScheduleMatch::decline("no nvvm code generator for the target");
  if (!ctx.target->hasFeature("tcgen05"))
    return ScheduleMatch::decline(ctx.targetName() + " has no tcgen05");
  return ScheduleMatch::accept();
}

//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

struct MmaPlan {
  const InstructionAtom *atom = nullptr;
  GemmProblem problem;
  SharedOperandPlan a, b;
  uint32_t idesc = 0;
};

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

Result<MmaPlan> planMma(const TargetDescription &target, GemmOp op) {
  auto ta = typeOf(op.getA()), tb = typeOf(op.getB()), tc = typeOf(op.getC());
  auto problem = gemmProblem(ta.getShape(), op.getTransposeA(), tb.getShape(),
                             op.getTransposeB(), tc.getShape());
  if (!problem)
    return problem.takeFailure();
  for (Value v : {op.getA(), op.getB()}) {
    if (auto ok = checkGPUOperand(v); !ok)
      return ok.takeFailure();
    if (spaceOf(v) != MemorySpace::Shared)
      return fail("tcgen05.mma reads A and B from shared memory here");
  }
  if (auto root = tmemRoot(op.getC()); !root)
    return fail("tcgen05.mma accumulates in tmem: " + root.message());
  if (op.getTransposeA() || !op.getTransposeB())
    return fail("tcgen05.mma here reads K-major A (M x K) and B (N x K, "
                "transpose_b); MN-major descriptors are not implemented");
  if (ta.getElementType() != tb.getElementType())
    return fail("A and B have different element types");
  if (auto d = checkDatapathD(tc); !d)
    return d.takeFailure();
  std::string in = typeName(ta.getElementType());
  MmaPlan plan;
  plan.problem = *problem;
  for (const InstructionAtom *atom : target.findAtoms(AtomKind::Tcgen05Mma))
    if (atom->elementType == in && atom->m == problem->m &&
        atom->n == problem->n && atom->accumulatorType == "f32")
      plan.atom = atom;
  if (!plan.atom)
    return fail(target.name.str() + " has no tcgen05.mma kind::f16 for " + in +
                " of " + std::to_string(problem->m) + "x" +
                std::to_string(problem->n) + " into f32");
  if (problem->k % 16 != 0 || problem->k / 16 > kMaxSteps)
    return fail("K = " + std::to_string(problem->k) +
                "; tcgen05.mma steps K by 16, up to " +
                std::to_string(16 * kMaxSteps) + " here");
  auto a = planSharedOperand(ta, "A", "tcgen05.mma", DescriptorFormat::Sm100);
  if (!a)
    return a.takeFailure();
  auto b = planSharedOperand(tb, "B", "tcgen05.mma", DescriptorFormat::Sm100);
  if (!b)
    return b.takeFailure();
  plan.a = std::move(*a);
  plan.b = std::move(*b);
  // The instruction descriptor (kind::f16): D f32, A and B f16 or bf16,
  // both K-major, N >> 3 and M >> 4.
  uint32_t type = in == "bf16" ? 1 : 0;
  plan.idesc = (1u << 4) | (type << 7) | (type << 10) |
               (uint32_t(problem->n >> 3) << 17) |
               (uint32_t(problem->m >> 4) << 24);
  return plan;
}

ScheduleMatch matchMma(Operation *raw, const ScheduleContext &ctx) {
  if (ScheduleMatch m = matchInKernel(raw, ctx); !m.accepted())
    return m;
  ScopeKind scope = scopeOf(raw);
  if (scope < ScopeKind::Warp || scope > ScopeKind::CTA)
    return ScheduleMatch::decline(
        "one thread issues tcgen05.mma for the threads of a warp, "
        "warpgroup or CTA; the scope is " +
        stringifyScopeKind(scope).str());
  auto plan = planMma(*ctx.target, cast<GemmOp>(raw));
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

LogicalResult rewriteMma(Operation *raw, const ScheduleContext &ctx,
                         const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<GemmOp>(raw);
  const auto &plan = *std::any_cast<MmaPlan>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getA(), op.getB()});
  if (failed(ops))
    return failure();
  Value root = (*tmemRoot(op.getC()))->getResult(0);
  return emitIssuedByOneThread(op, codegenOf(ctx), rw, [&](OpBuilder &b) {
    Value d = tmemAddress(b, loc, root, Value(), 0);
    Value idesc = arith::ConstantIntOp::create(b, loc, plan.idesc, 32);
    Value accumulate = arith::ConstantIntOp::create(b, loc, 1, 1);
    // zero_init: the first MMA ignores the old D in tensor memory.
    Value overwrite = arith::ConstantIntOp::create(b, loc, 0, 1);
    Value zero = indexConstant(b, loc, 0);
    for (int64_t k0 = 0; k0 < plan.problem.k; k0 += 16) {
      Value k = indexConstant(b, loc, k0);
      Value da = emitMatrixDescriptor(b, loc, (*ops)[0], plan.a, zero, k);
      Value db = emitMatrixDescriptor(b, loc, (*ops)[1], plan.b, zero, k);
      NVVM::Tcgen05MMAOp::create(
          b, loc, NVVM::Tcgen05MMAKind::F16, NVVM::CTAGroupKind::CTA_1,
          NVVM::Tcgen05MMACollectorOp::DISCARD, /*aShift=*/false, d, da, db,
          idesc, op.getZeroInit() && k0 == 0 ? overwrite : accumulate, Value(),
          Value());
    }
  });
}

//===----------------------------------------------------------------------===//
// tmem <-> registers
//===----------------------------------------------------------------------===//

/// The per-warp 32x32b moves of a warpgroup: warp w on lanes [32w, 32w+32).
struct LaneQuarter {
  Value warp, row;
};

LaneQuarter laneQuarter(OpBuilder &b, Location loc,
                        const ThreadTargetCodegen &cg) {
  return {cg.axisValue(b, loc, "wid_in_wg"), cg.axisValue(b, loc, "tid_in_wg")};
}

ScheduleMatch matchWarpgroupMove(Operation *raw, const ScheduleContext &ctx,
                                 Value tmem) {
  if (ScheduleMatch m = matchInKernel(raw, ctx); !m.accepted())
    return m;
  if (scopeOf(raw) != ScopeKind::Warpgroup)
    return ScheduleMatch::decline(
        "tcgen05.ld/st move a warpgroup's 128 lanes; the scope is " +
        stringifyScopeKind(scopeOf(raw)).str());
  if (auto root = tmemRoot(tmem); !root)
    return ScheduleMatch::decline(root.message());
  if (auto d = checkDatapathD(typeOf(tmem)); !d)
    return ScheduleMatch::decline(d.message());
  return ScheduleMatch::accept();
}

ScheduleMatch matchLoad(Operation *raw, const ScheduleContext &ctx) {
  auto op = cast<CopyOp>(raw);
  if (ScheduleMatch m = matchWarpgroupMove(raw, ctx, op.getSource());
      !m.accepted())
    return m;
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  if (spaceOf(op.getTarget()) != MemorySpace::Reg)
    return ScheduleMatch::decline("tcgen05.ld moves tmem into registers");
  if (auto ok = checkGPUOperand(op.getTarget()); !ok)
    return ScheduleMatch::decline(ok.message());
  if (s.getShape() != t.getShape() || s.getElementType() != t.getElementType())
    return ScheduleMatch::decline("tcgen05.ld converts nothing; the operands' "
                                  "shapes or element types differ");
  auto atom = tcgen05AtomLayout(Tcgen05Shape::S32x32b, t.getShape(), 32);
  if (!atom)
    return ScheduleMatch::decline(atom.message());
  auto same = equivalent(t.getLayout(), Layout(*atom));
  if (!same || !*same)
    return ScheduleMatch::decline(
        "tcgen05.ld.32x32b gives thread t of the warpgroup row t, one "
        "column per register, " +
        atom->str() + "; the register layout is " + t.getLayout().str());
  return ScheduleMatch::accept();
}

LogicalResult rewriteLoad(Operation *raw, const ScheduleContext &ctx,
                          const std::any &, RewriterBase &rw) {
  auto op = cast<CopyOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getTarget()});
  if (failed(ops))
    return failure();
  const GPUOperand &dst = (*ops)[0];
  Value root = (*tmemRoot(op.getSource()))->getResult(0);
  LaneQuarter q = laneQuarter(rw, loc, codegenOf(ctx));
  fence(rw, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  int64_t cols = dst.shape()[1];
  Value lanes = mulIndex(rw, loc, q.warp, 32);
  SmallVector<std::pair<int64_t, Value>> moved;
  for (int64_t c0 = 0, n = 0; c0 < cols; c0 += n) {
    n = cellsOfNextMove(cols - c0);
    Type type = n == 1 ? Type(rw.getI32Type())
                       : Type(VectorType::get({n}, rw.getI32Type()));
    moved.push_back({c0, NVVM::Tcgen05LdOp::create(
                             rw, loc, type, /*pack=*/false,
                             NVVM::Tcgen05LdStShape::SHAPE_32X32B,
                             tmemAddress(rw, loc, root, lanes, c0), Value())});
  }
  NVVM::Tcgen05WaitOp::create(rw, loc, NVVM::Tcgen05WaitKind::LOAD);
  Type element = dst.elementType();
  for (auto [c0, v] : moved) {
    auto vec = dyn_cast<VectorType>(v.getType());
    int64_t n = vec ? vec.getNumElements() : 1;
    for (int64_t r = 0; r < n; ++r) {
      Value cell =
          vec ? vector::ExtractOp::create(rw, loc, v, ArrayRef<int64_t>{r})
                    .getResult()
              : v;
      Value value = arith::BitcastOp::create(rw, loc, element, cell);
      dst.write(rw, loc, {q.row, indexConstant(rw, loc, c0 + r)}, value);
    }
  }
  rw.eraseOp(op);
  return success();
}

ScheduleMatch matchFill(Operation *raw, const ScheduleContext &ctx) {
  auto op = cast<FillOp>(raw);
  return matchWarpgroupMove(raw, ctx, op.getTarget());
}

LogicalResult rewriteFill(Operation *raw, const ScheduleContext &ctx,
                          const std::any &, RewriterBase &rw) {
  auto op = cast<FillOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  Value root = (*tmemRoot(op.getTarget()))->getResult(0);
  LaneQuarter q = laneQuarter(rw, loc, codegenOf(ctx));
  fence(rw, loc, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Value cell =
      arith::BitcastOp::create(rw, loc, rw.getI32Type(), op.getValue());
  int64_t cols = typeOf(op.getTarget()).getShape()[1];
  Value lanes = mulIndex(rw, loc, q.warp, 32);
  for (int64_t c0 = 0, n = 0; c0 < cols; c0 += n) {
    n = cellsOfNextMove(cols - c0);
    Value v = n == 1 ? cell
                     : vector::BroadcastOp::create(
                           rw, loc, VectorType::get({n}, rw.getI32Type()), cell)
                           .getResult();
    NVVM::Tcgen05StOp::create(
        rw, loc, /*unpack=*/false, NVVM::Tcgen05LdStShape::SHAPE_32X32B,
        tmemAddress(rw, loc, root, lanes, c0), v, Value());
  }
  NVVM::Tcgen05WaitOp::create(rw, loc, NVVM::Tcgen05WaitKind::STORE);
  fence(rw, loc, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// shared -> tmem
//===----------------------------------------------------------------------===//

ScheduleMatch matchCopyIn(Operation *raw, const ScheduleContext &ctx) {
  if (ScheduleMatch m = matchInKernel(raw, ctx); !m.accepted())
    return m;
  auto op = cast<CopyOp>(raw);
  ScopeKind scope = scopeOf(raw);
  if (scope < ScopeKind::Warp || scope > ScopeKind::CTA)
    return ScheduleMatch::decline(
        "one thread issues tcgen05.cp for the threads of a warp, warpgroup "
        "or CTA; the scope is " +
        stringifyScopeKind(scope).str());
  if (auto ok = checkGPUOperand(op.getSource()); !ok)
    return ScheduleMatch::decline(ok.message());
  if (spaceOf(op.getSource()) != MemorySpace::Shared)
    return ScheduleMatch::decline("tcgen05.cp copies shared memory to tmem");
  if (auto root = tmemRoot(op.getTarget()); !root)
    return ScheduleMatch::decline(root.message());
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  if (auto d = checkDatapathD(t); !d)
    return ScheduleMatch::decline(d.message());
  if (s.getShape() != t.getShape() || s.getElementType() != t.getElementType())
    return ScheduleMatch::decline("tcgen05.cp converts nothing; the "
                                  "operands' shapes or element types differ");
  if (t.getShape()[1] % 8 != 0)
    return ScheduleMatch::decline(
        "tcgen05.cp.128x256b moves 8 columns of 32 bits per row; the tile "
        "has " +
        std::to_string(t.getShape()[1]));
  // Each row's 32-byte pieces are read as the K direction of a K-major
  // canonical layout, as the MMA operands are.
  auto plan =
      planSharedOperand(s, "the source", "tcgen05.cp", DescriptorFormat::Sm100);
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(*plan);
}

LogicalResult rewriteCopyIn(Operation *raw, const ScheduleContext &ctx,
                            const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<CopyOp>(raw);
  const auto &plan = *std::any_cast<SharedOperandPlan>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getSource()});
  if (failed(ops))
    return failure();
  Value root = (*tmemRoot(op.getTarget()))->getResult(0);
  int64_t cols = typeOf(op.getTarget()).getShape()[1];
  return emitIssuedByOneThread(op, codegenOf(ctx), rw, [&](OpBuilder &b) {
    Value zero = indexConstant(b, loc, 0);
    for (int64_t c0 = 0; c0 < cols; c0 += 8) {
      Value desc = emitMatrixDescriptor(b, loc, (*ops)[0], plan, zero,
                                        indexConstant(b, loc, c0));
      NVVM::Tcgen05CpOp::create(b, loc, NVVM::Tcgen05CpShape::SHAPE_128x256b,
                                NVVM::CTAGroupKind::CTA_1,
                                NVVM::Tcgen05CpMulticast::NONE,
                                NVVM::Tcgen05CpSrcFormatAttr(),
                                tmemAddress(b, loc, root, Value(), c0), desc);
    }
  });
}

//===----------------------------------------------------------------------===//
// Layout proposals
//===----------------------------------------------------------------------===//

/// Data path D for a `?` tmem operand of 128 rows of 32-bit elements.
bool proposeDatapathD(LayoutProposal &p, unsigned operand, Value tmem) {
  if (!isInferred(tmem))
    return true;
  BufferType t = typeOf(tmem);
  if (t.getMemorySpace() != MemorySpace::TMem || t.getRank() != 2 ||
      t.getShape()[0] != 128 ||
      t.getElementType().getIntOrFloatBitWidth() != 32)
    return false;
  auto d = tmemDatapathLayout(TmemDatapath::D, 128, t.getShape()[1]);
  if (!d)
    return false;
  proposeOperand(p, operand, tmem, Layout(*d));
  p.reason += (p.reason.empty() ? "" : "; ") + std::string("tmem data path D");
  return true;
}

/// A `?` shared operand read through sm_100 descriptors: the swizzle rule.
bool proposeDescriptorOperand(LayoutProposal &p, unsigned operand, Value v,
                              StringRef name) {
  if (!isInferred(v))
    return true;
  if (spaceOf(v) != MemorySpace::Shared)
    return false;
  BufferType t = typeOf(v);
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  Layout l = sharedTileLayout(t.getShape(), bits);
  proposeOperand(p, operand, v, l);
  std::optional<Swizzle> s = l.effectiveSwizzle();
  p.reason += (p.reason.empty() ? "" : "; ") + name.str() + " K-major, " +
              (s ? std::to_string(16 << s->swizzleLen) + "B swizzle atoms"
                 : std::string("row-major"));
  return true;
}

SmallVector<LayoutProposal> proposeMma(Operation *raw,
                                       const ScheduleContext &ctx) {
  auto op = cast<GemmOp>(raw);
  if (!ctx.target->hasFeature("tcgen05") || op.getTransposeA() ||
      !op.getTransposeB())
    return {};
  BufferType ta = typeOf(op.getA()), tc = typeOf(op.getC());
  auto problem = gemmProblem(ta.getShape(), false, typeOf(op.getB()).getShape(),
                             true, tc.getShape());
  if (!problem)
    return {};
  std::string in = typeName(ta.getElementType());
  bool hasAtom = llvm::any_of(
      ctx.target->findAtoms(AtomKind::Tcgen05Mma), [&](const auto *atom) {
        return atom->elementType == in && atom->m == problem->m &&
               atom->n == problem->n && atom->accumulatorType == "f32";
      });
  LayoutProposal p;
  if (!hasAtom || !proposeDescriptorOperand(p, 0, op.getA(), "A") ||
      !proposeDescriptorOperand(p, 1, op.getB(), "B") ||
      !proposeDatapathD(p, 2, op.getC()) || p.layouts.empty())
    return {};
  p.reason = "tcgen05.mma: " + p.reason;
  return {std::move(p)};
}

/// tcgen05.ld.32x32b's registers (row t on thread t of the warpgroup) for
/// a `?` target, data path D for a `?` source.
SmallVector<LayoutProposal> proposeLoad(Operation *raw,
                                        const ScheduleContext &ctx) {
  auto op = cast<CopyOp>(raw);
  if (!ctx.target->hasFeature("tcgen05") ||
      scopeOf(raw) != ScopeKind::Warpgroup ||
      spaceOf(op.getSource()) != MemorySpace::TMem ||
      spaceOf(op.getTarget()) != MemorySpace::Reg)
    return {};
  LayoutProposal p;
  if (!proposeDatapathD(p, 0, op.getSource()))
    return {};
  if (isInferred(op.getTarget())) {
    BufferType t = typeOf(op.getTarget());
    if (t.getElementType().getIntOrFloatBitWidth() != 32)
      return {};
    auto atom = tcgen05AtomLayout(Tcgen05Shape::S32x32b, t.getShape(), 32);
    if (!atom)
      return {};
    proposeOperand(p, 1, op.getTarget(), Layout(*atom));
    p.reason += (p.reason.empty() ? "" : "; ") +
                std::string("tcgen05.ld.32x32b: row t on thread t");
  }
  if (p.layouts.empty())
    return {};
  return {std::move(p)};
}

SmallVector<LayoutProposal> proposeCopyIn(Operation *raw,
                                          const ScheduleContext &ctx) {
  auto op = cast<CopyOp>(raw);
  if (!ctx.target->hasFeature("tcgen05") ||
      spaceOf(op.getTarget()) != MemorySpace::TMem)
    return {};
  LayoutProposal p;
  if (!proposeDatapathD(p, 1, op.getTarget()) ||
      !proposeDescriptorOperand(p, 0, op.getSource(), "the source") ||
      p.layouts.empty())
    return {};
  p.reason = "tcgen05.cp: " + p.reason;
  return {std::move(p)};
}

SmallVector<LayoutProposal> proposeFill(Operation *raw,
                                        const ScheduleContext &ctx) {
  LayoutProposal p;
  if (!ctx.target->hasFeature("tcgen05") ||
      !proposeDatapathD(p, 0, cast<FillOp>(raw).getTarget()) ||
      p.layouts.empty())
    return {};
  return {std::move(p)};
}

} // namespace

void addTcgen05Schedules(ScheduleRegistry &registry) {
  TargetPredicate targets =
      targetKind(TargetKind::GPU) && hasFeature("tcgen05");
  (void)registry.add(
      {"tcgen05", "axe.gemm", targets, 30,
       "one thread issues tcgen05.mma per K step into a tmem accumulator "
       "(data path D) from K-major shared descriptors, committed to an "
       "mbarrier the scope waits on",
       matchMma, rewriteMma, proposeMma, /*zeroInit=*/true});
  (void)registry.add({"tcgen05.ld", "axe.copy", targets, 30,
                      "tmem to registers by tcgen05.ld.32x32b, each warp of "
                      "the warpgroup on its 32-lane quarter",
                      matchLoad, rewriteLoad, proposeLoad});
  (void)registry.add({"tcgen05.cp", "axe.copy", targets, 30,
                      "shared to tmem by tcgen05.cp.128x256b from sm_100 "
                      "descriptors of the shared atoms (8 columns per "
                      "instruction), one issuing thread, committed to an "
                      "mbarrier the scope waits on",
                      matchCopyIn, rewriteCopyIn, proposeCopyIn});
  (void)registry.add({"tcgen05.st", "axe.fill", targets, 30,
                      "tmem filled by tcgen05.st.32x32b, each warp of the "
                      "warpgroup on its 32-lane quarter",
                      matchFill, rewriteFill, proposeFill});
}

} // namespace axe::nvvm
