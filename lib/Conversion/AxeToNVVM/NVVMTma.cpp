//===- NVVMTma.cpp - axe.copy / axe.copy_async by TMA ---------------------===//
//
// A global -> shared copy as one TMA box (the paper's section 3.4): the
// global operand must be a view whose layout is its memref's own strides, so
// the box is the view's shape at the view's indices, and a descriptor of the
// memref made on the host before the launch serves every box; the shared
// operand must be what TMA writes, the box row-major, unswizzled or as copies
// of the swizzle atom whose line is the box's inner dim (found by tile-of).
// One thread of the scope arms an mbarrier with the box's bytes and issues
// the copy; the scope's threads wait on the barrier's phase where the copy's
// token is waited on (at once for axe.copy). Each copy site has its own
// mbarrier, initialized at the kernel's start, and each thread keeps the
// parity it waits for next.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"
#include "SharedAtoms.h"

#include "axe/Layout/Strided.h"
#include "axe/Layout/SwizzleAlgebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"

using namespace mlir;

namespace axe::nvvm {
namespace {

struct TmaPlan {
  Shape box;
  std::optional<SwizzleMode> mode;
  int64_t bytes = 0;
};

/// The view the copy reads, when its layout is its memref's strides.
Result<ViewOp> boxSource(Value src, KernelOp kernel) {
  auto chain = walkBufferChain(src);
  if (!chain)
    return chain.takeFailure();
  auto view = dyn_cast<ViewOp>(chain->root);
  if (!view || !chain->slices.empty())
    return fail("TMA reads a box of a memref: the source must be an "
                "axe.view itself, not a slice of one");
  if (kernel.getBody().isAncestor(view.getSource().getParentRegion()))
    return fail("the view's memref is defined in the kernel; a TMA "
                "descriptor is made on the host from a memref the kernel "
                "takes");
  auto memref = cast<MemRefType>(view.getSource().getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return fail("TMA needs the memref's strides known: " +
                std::to_string(memref.getRank()) + "-d memref with strides " +
                "that are not all static");
  BufferType type = typeOf(src);
  if (type.getRank() != memref.getRank())
    return fail("the view has rank " + std::to_string(type.getRank()) +
                " and its memref " + std::to_string(memref.getRank()) +
                "; a TMA box has the tensor's rank");
  IterList iters;
  for (auto [extent, stride] : llvm::zip(type.getShape(), strides))
    iters.push_back(Iter{extent, stride});
  auto expected = TileLayout::create(iters);
  if (!expected)
    return expected.takeFailure();
  auto same = equivalent(type.getLayout(), Layout(*expected));
  if (!same || !*same)
    return fail("a TMA box is the memref's elements at its own strides, " +
                expected->str() + "; the view's layout is " +
                type.getLayout().str());
  unsigned bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  if (strides.back() != 1)
    return fail("the memref's innermost stride is " +
                std::to_string(strides.back()) +
                "; TMA reads rows of "
                "consecutive elements");
  for (size_t d = 0; d + 1 < strides.size(); ++d)
    if (strides[d] * bytes % 16 != 0)
      return fail("dim " + std::to_string(d) + " of the memref is " +
                  std::to_string(strides[d] * bytes) +
                  " bytes apart; TMA's global strides are multiples of 16");
  return view;
}

/// Checks the shared operand against what TMA writes, and the box's limits.
/// A slice at run-time starts moves the box by what each start it allows
/// moves it: every such move must keep TMA's alignment. The moves are
/// enumerated (a start is a multiple of its alignment that keeps the slice
/// in its source), on the unswizzled addresses, as the box's own start.
constexpr int64_t kMaxCheckedStarts = 4096;

Result<bool> checkRunTimeStarts(SliceOp slice, unsigned bits, int64_t align,
                                std::optional<SwizzleMode> mode) {
  auto source = cast<BufferType>(slice.getSource().getType());
  auto result = cast<BufferType>(slice.getType());
  const TileLayout &tile = source.getLayout().tile();
  ArrayRef<int64_t> shape = source.getShape();
  int64_t origin = tile.applyBase(0).get(kDefaultAxis);
  for (auto [d, start] : llvm::enumerate(slice.getKnownStarts())) {
    if (start.known)
      continue;
    int64_t inner = 1;
    for (size_t j = d + 1; j < shape.size(); ++j)
      inner *= shape[j];
    int64_t step = std::max<int64_t>(start.alignment, 1);
    if ((shape[d] - result.getShape()[d]) / step > kMaxCheckedStarts)
      return fail("the shared box starts at a run-time multiple of " +
                  std::to_string(step) + " along dim " + std::to_string(d) +
                  ", more starts than TMA's alignment is checked for (" +
                  std::to_string(kMaxCheckedStarts) + ")");
    for (int64_t at = step; at <= shape[d] - result.getShape()[d]; at += step) {
      int64_t moved = tile.applyBase(at * inner).get(kDefaultAxis) - origin;
      if (moved * int64_t(bits) / 8 % align != 0)
        return fail("the shared box starts at a run-time multiple of " +
                    std::to_string(step) + " along dim " + std::to_string(d) +
                    ", and a start of " + std::to_string(at) + " moves it " +
                    std::to_string(moved * int64_t(bits) / 8) +
                    " bytes; TMA with " + swizzleName(mode) + " needs " +
                    std::to_string(align) + "-byte aligned boxes");
    }
  }
  return true;
}

Result<TmaPlan> planBox(Value src, Value dst) {
  BufferType s = typeOf(src), t = typeOf(dst);
  if (s.getShape() != t.getShape())
    return fail("TMA copies a box of one shape; the operands' differ");
  if (s.getElementType() != t.getElementType())
    return fail("TMA converts no element type");
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return fail("TMA moves 8-, 16-, 32- or 64-bit elements, not " +
                std::to_string(bits) + "-bit ones");
  TmaPlan plan;
  plan.box.assign(t.getShape().begin(), t.getShape().end());
  const TmaLimits limits;
  if (int64_t(plan.box.size()) > limits.maxRank)
    return fail("a box of rank " + std::to_string(plan.box.size()) +
                "; TMA takes at most " + std::to_string(limits.maxRank));
  for (int64_t e : plan.box)
    if (e > limits.maxBoxDim)
      return fail("a box dim of " + std::to_string(e) +
                  " elements; TMA takes at most " +
                  std::to_string(limits.maxBoxDim));
  int64_t innerBytes = plan.box.back() * bits / 8;
  if (innerBytes % limits.innerBoxBytesMultiple != 0)
    return fail("the box's rows are " + std::to_string(innerBytes) +
                " bytes; TMA's are multiples of 16");
  plan.bytes = innerBytes;
  for (size_t d = 0; d + 1 < plan.box.size(); ++d)
    plan.bytes *= plan.box[d];

  // The shared side: row-major, unswizzled or as swizzle atoms.
  auto chain = walkBufferChain(dst);
  if (!chain)
    return chain.takeFailure();
  Layout layout = t.getLayout();
  int64_t first = 0, align = 128;
  auto same = equivalent(layout.tile(), rowMajorLayout(plan.box));
  if (!layout.effectiveSwizzle() && same && *same) {
    first = layout.tile().offset().get(kDefaultAxis);
  } else {
    auto tiling = tileOfSharedAtom(layout, t.getShape(), bits);
    if (!tiling)
      return fail("TMA writes its box row-major, unswizzled or swizzled: " +
                  tiling.message());
    if (!tiling->mode || t.getShape()[1] != tiling->atomCols)
      return fail("TMA writes a swizzled box one " +
                  std::to_string(tiling->lineBytes) +
                  "-byte line per row; the box's rows are " +
                  std::to_string(innerBytes) + " bytes");
    first = tiling->origins[0][0];
    for (int64_t i = 0; i < tiling->rowBlocks(); ++i)
      if (tiling->origins[i][0] != first + i * 8 * tiling->atomCols)
        return fail("the shared layout's swizzle atoms are not one after "
                    "another in rows, as TMA writes them");
    plan.mode = tiling->mode;
    align = 8 * tiling->lineBytes;
  }
  auto rootType = cast<BufferType>(chain->root->getResult(0).getType());
  auto storage = getFlatStorage(rootType);
  if (!storage)
    return storage.takeFailure();
  if ((first - storage->lo) * bits / 8 % align != 0)
    return fail(
        "the box starts " + std::to_string((first - storage->lo) * bits / 8) +
        " bytes into its shared buffer; TMA with " + swizzleName(plan.mode) +
        " needs " + std::to_string(align) + "-byte aligned boxes");
  for (SliceOp slice : chain->slices)
    if (auto r = checkRunTimeStarts(slice, bits, align, plan.mode); !r)
      return r.takeFailure();
  return plan;
}

/// The one pipeline commit that takes the copy's token, if any.
PipelineCommitOp committedBy(CopyAsyncOp op) {
  Value token = op.getToken();
  return token.hasOneUse() ? dyn_cast<PipelineCommitOp>(*token.user_begin())
                           : PipelineCommitOp();
}

/// Why the copy's token cannot be lowered with a TMA copy (empty if it
/// can): it is waited on by axe.wait ops, or committed to a pipeline stage
/// whose index is known where the copy is issued.
std::string checkTokenUsers(CopyAsyncOp op) {
  if (PipelineCommitOp commit = committedBy(op)) {
    if (!DominanceInfo().properlyDominates(commit.getIndex(), op))
      return "the pipeline stage the copy is committed to is computed after "
             "the copy; TMA completes on the stage's barrier, so the index "
             "must be known where the copy is issued";
    return "";
  }
  for (Operation *user : op.getToken().getUsers())
    if (!isa<WaitOp>(user))
      return "the copy's token goes to " +
             user->getName().getStringRef().str() +
             "; a TMA copy's token must be waited on by axe.wait directly "
             "or be the only token use, an axe.pipeline_commit";
  return "";
}

template <typename OpTy>
ScheduleMatch matchTma(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  if (!ctx.target->hasFeature("tma"))
    return ScheduleMatch::decline(ctx.targetName() + " has no TMA");
  auto op = cast<OpTy>(raw);
  if (spaceOf(op.getSource()) != MemorySpace::Global ||
      spaceOf(op.getTarget()) != MemorySpace::Shared)
    return ScheduleMatch::decline(
        "TMA loads copy global memory to shared memory");
  auto view =
      boxSource(op.getSource(), raw->template getParentOfType<KernelOp>());
  if (!view)
    return ScheduleMatch::decline(view.message());
  auto plan = planBox(op.getSource(), op.getTarget());
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  if constexpr (std::is_same_v<OpTy, CopyAsyncOp>)
    if (auto why = checkTokenUsers(op); !why.empty())
      return ScheduleMatch::decline(why);
  return ScheduleMatch::accept(*plan);
}

/// The shared box as TMA writes it: rows of 32, 64 or 128 bytes under the
/// swizzle of that line (what wgmma, tcgen05 and ldmatrix read without
/// conflicts), else row-major; row-major as the variant when swizzled.
template <typename OpTy>
SmallVector<LayoutProposal> proposeTma(Operation *raw,
                                       const ScheduleContext &ctx) {
  auto op = cast<OpTy>(raw);
  if (!ctx.target->hasFeature("tma") || isInferred(op.getSource()) ||
      !isInferred(op.getTarget()) ||
      spaceOf(op.getSource()) != MemorySpace::Global ||
      spaceOf(op.getTarget()) != MemorySpace::Shared)
    return {};
  BufferType t = typeOf(op.getTarget());
  if (t.getRank() == 0 || t.getShape() != typeOf(op.getSource()).getShape())
    return {};
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  Layout box = tmaBoxLayout(t.getShape(), bits);
  SmallVector<LayoutProposal> out(1);
  proposeOperand(out[0], 1, op.getTarget(), box);
  std::optional<Swizzle> s = box.effectiveSwizzle();
  out[0].reason = "TMA box of " +
                  std::to_string(t.getShape().back() * bits / 8) +
                  "-byte rows" +
                  (s ? ", " + std::to_string(16 << s->swizzleLen) + "B swizzle"
                     : std::string(", row-major"));
  if (s) {
    out.emplace_back();
    proposeOperand(out[1], 1, op.getTarget(),
                   Layout(rowMajorLayout(t.getShape())));
    out[1].cost = 0.5;
    out[1].reason = "TMA box unswizzled (row reads conflict)";
  }
  return out;
}

nvgpu::TensorMapSwizzleKind swizzleKind(const std::optional<SwizzleMode> &m) {
  if (!m)
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
  switch (*m) {
  case SwizzleMode::B32:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_32B;
  case SwizzleMode::B64:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_64B;
  case SwizzleMode::B128:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_128B;
  }
  return nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
}

nvgpu::TensorMapDescriptorType
descriptorType(MLIRContext *ctx, const TmaPlan &plan, Type element) {
  auto box = MemRefType::get(plan.box, element, MemRefLayoutAttrInterface(),
                             IntegerAttr::get(IntegerType::get(ctx, 64), 3));
  return nvgpu::TensorMapDescriptorType::get(
      ctx, box, swizzleKind(plan.mode),
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

/// The descriptor of `memref`'s boxes, made in front of the kernel (reusing
/// one made there for another copy) and passed to it as a pointer: a
/// gpu.func argument of the nvgpu type does not lower, so the kernel casts
/// the pointer back.
Value hostDescriptor(RewriterBase &rw, KernelOp kernel, Value memref,
                     nvgpu::TensorMapDescriptorType type) {
  auto ptrType = LLVM::LLVMPointerType::get(rw.getContext());
  for (Operation *prev = kernel->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    auto cast = dyn_cast<UnrealizedConversionCastOp>(prev);
    if (!cast || cast->getNumOperands() != 1 ||
        cast->getOperand(0).getType() != type)
      continue;
    auto make =
        cast->getOperand(0).getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
    auto unranked =
        make ? make.getTensor().getDefiningOp<memref::CastOp>() : nullptr;
    if (unranked && unranked.getSource() == memref)
      return cast->getResult(0);
  }
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(kernel);
  Location loc = kernel.getLoc();
  auto ranked = cast<MemRefType>(memref.getType());
  Value unranked = memref::CastOp::create(
      rw, loc,
      UnrankedMemRefType::get(ranked.getElementType(), ranked.getMemorySpace()),
      memref);
  SmallVector<Value> box;
  for (int64_t e : type.getTensor().getShape())
    box.push_back(indexConstant(rw, loc, e));
  Value desc =
      nvgpu::TmaCreateDescriptorOp::create(rw, loc, type, unranked, box);
  return UnrealizedConversionCastOp::create(rw, loc, TypeRange{ptrType},
                                            ValueRange{desc})
      .getResult(0);
}

/// The shared box as the memref TMA writes: the operand's memory from its
/// first element, row-major.
Value boxView(OpBuilder &b, Location loc, const GPUOperand &dst,
              const TmaPlan &plan) {
  SmallVector<Value, 4> zeros(plan.box.size(), indexConstant(b, loc, 0));
  CoordValue first =
      dst.emitter->emitUnswizzled(b, loc, zeros, &dst.ref.offset);
  Value start = dst.address(b, loc, first);
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, dst.memory);
  Value offset = arith::AddIOp::create(b, loc, meta.getOffset(), start);
  SmallVector<int64_t> strides(plan.box.size(), 1);
  for (int64_t d = int64_t(plan.box.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * plan.box[d + 1];
  auto flat = cast<MemRefType>(dst.memory.getType());
  auto type = MemRefType::get(
      plan.box, flat.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides),
      flat.getMemorySpace());
  SmallVector<OpFoldResult> sizes, steps;
  for (auto [e, s] : llvm::zip(plan.box, strides)) {
    sizes.push_back(b.getIndexAttr(e));
    steps.push_back(b.getIndexAttr(s));
  }
  return memref::ReinterpretCastOp::create(b, loc, type, meta.getBaseBuffer(),
                                           OpFoldResult(offset), sizes, steps);
}

template <typename OpTy>
LogicalResult rewriteTma(Operation *raw, const ScheduleContext &ctx,
                         const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<OpTy>(raw);
  const auto &plan = *std::any_cast<TmaPlan>(&anyPlan);
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  auto kernel = op->template getParentOfType<KernelOp>();
  auto view = cast<ViewOp>(walkBufferChain(op.getSource())->root);
  Location loc = op.getLoc();
  auto type = descriptorType(rw.getContext(), plan,
                             typeOf(op.getTarget()).getElementType());
  Value pointer = hostDescriptor(rw, kernel, view.getSource(), type);
  // The mbarrier the box completes on: a pipeline stage's full barrier when
  // the token is committed to one, else the copy site's own.
  PipelineCommitOp commit;
  if constexpr (std::is_same_v<OpTy, CopyAsyncOp>)
    commit = committedBy(op);
  SiteBarrier site;
  Value slot;
  if (commit) {
    FailureOr<PipelineBarriers> stages =
        pipelineBarriers(rw, commit.getPipeline(), kernel.getBody().front(),
                         threadsOf(op) / 32, cg);
    if (failed(stages))
      return failure();
    site.group = stages->full;
    rw.setInsertionPoint(op);
    slot = pipelineSlot(rw, op.getLoc(), commit.getIndex(), stages->stages);
  } else {
    site = createSiteBarrier(rw, kernel, cg);
  }

  rw.setInsertionPoint(op);
  auto dst = getGPUOperand(rw, loc, op.getTarget(), cg);
  if (!dst)
    return op.emitError("nvvm: ") << dst.message();
  FailureOr<ScopeRank> rank = scopeRank(rw, op, cg);
  if (failed(rank))
    return failure();
  Value descriptor = UnrealizedConversionCastOp::create(
                         rw, loc, TypeRange{type}, ValueRange{pointer})
                         .getResult(0);
  Value box = boxView(rw, loc, *dst, plan);
  // TMA's coordinates run innermost first.
  SmallVector<Value, 4> coords;
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  for (OpFoldResult o : llvm::reverse(offsets))
    coords.push_back(getValueOrCreateConstantIndexOp(rw, loc, o));
  Value leader = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                       rank->rank, indexConstant(rw, loc, 0));
  guarded(rw, loc, leader, [&](OpBuilder &b) {
    Value zero = indexConstant(b, loc, 0);
    if (commit) {
      // The stage's bytes without an arrival: the committing warps arrive
      // at the commit.
      Value address = nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(),
                                                   site.group, slot);
      Value barrier = LLVM::IntToPtrOp::create(
          b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), address);
      NVVM::MBarrierExpectTxOp::create(
          b, loc, barrier,
          arith::ConstantIntOp::create(b, loc, plan.bytes, 32));
      nvgpu::TmaAsyncLoadOp::create(b, loc, box, site.group, descriptor, coords,
                                    slot, Value(), Value());
      return;
    }
    nvgpu::MBarrierArriveExpectTxOp::create(
        b, loc, site.group, indexConstant(b, loc, plan.bytes), zero, Value());
    nvgpu::TmaAsyncLoadOp::create(b, loc, box, site.group, descriptor, coords,
                                  zero, Value(), Value());
  });
  if constexpr (std::is_same_v<OpTy, CopyAsyncOp>) {
    // A committed copy is waited on by the pipeline's consumers.
    if (!commit)
      for (Operation *user : llvm::to_vector(op.getToken().getUsers())) {
        rw.setInsertionPoint(user);
        emitPhaseWait(rw, user->getLoc(), site);
      }
    replaceTokenWithPlaceholder(op.getToken(), rw);
  } else {
    emitPhaseWait(rw, loc, site);
  }
  rw.eraseOp(op);
  return success();
}

} // namespace

void addTmaSchedules(ScheduleRegistry &registry) {
  // Below the SIMT copy (cp.async on these targets) until a cost model
  // chooses between them: on gemm_sm80 built for sm_90a, TMA made ptxas
  // spill 4 bytes around its mbarrier waits. Kernels force it by name.
  constexpr int kPriority = -5;
  const char *summary =
      "one TMA box per copy from a host-made descriptor of the view's "
      "memref, completed on an mbarrier; the shared layout is row-major or "
      "a tile of the swizzle atom of the box's row";
  (void)registry.add({"tma", "axe.copy_async",
                      targetKind(TargetKind::GPU) && hasFeature("tma"),
                      kPriority, summary, matchTma<CopyAsyncOp>,
                      rewriteTma<CopyAsyncOp>, proposeTma<CopyAsyncOp>});
  (void)registry.add({"tma", "axe.copy",
                      targetKind(TargetKind::GPU) && hasFeature("tma"),
                      kPriority, summary, matchTma<CopyOp>, rewriteTma<CopyOp>,
                      proposeTma<CopyOp>});
}

} // namespace axe::nvvm
