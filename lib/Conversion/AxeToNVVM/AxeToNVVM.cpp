//===- AxeToNVVM.cpp - The nvvm backend, convert-axe-to-nvvm, pipelines ---===//

#include "axe/Conversion/AxeToNVVM/AxeToNVVM.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/BufferRef.h"
#include "axe/Codegen/KernelCaptures.h"
#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Conversion/Passes.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"
#include "axe/Support/ElementBytes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/Support/FormatVariadic.h"

namespace axe {
#define GEN_PASS_DEF_CONVERTAXETONVVM
#include "axe/Conversion/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe {
namespace {

/// The nvvm target's features: the PTX ISA version the chip needs.
std::string ptxFeatures(const TargetDescription &target) {
  return "+ptx" + std::to_string(target.ptxVersion);
}

FailureOr<const TargetDescription *> resolveTarget(Operation *anchor,
                                                   StringRef chip) {
  std::string name = chip.str();
  if (name.empty()) {
    TargetAttr attr;
    if (auto kernel = dyn_cast<KernelOp>(anchor))
      attr = kernel.getEffectiveTarget();
    if (!attr) {
      anchor->emitError("nvvm: no target: give the module an #axe.target or "
                        "the pass a chip (convert-axe-to-nvvm{chip=sm_80})");
      return failure();
    }
    name = attr.getName().str();
  }
  auto target = lookupTarget(name);
  if (!target) {
    anchor->emitError("nvvm: ") << target.message();
    return failure();
  }
  if ((*target)->kind != TargetKind::GPU) {
    anchor->emitError("nvvm: target '")
        << name << "' is not an NVIDIA GPU (" << knownTargetNames() << ")";
    return failure();
  }
  return *target;
}

//===----------------------------------------------------------------------===//
// Outlining
//===----------------------------------------------------------------------===//

/// Every operator must have been dispatched; anything else of axe that is
/// left is plumbing this pass lowers.
LogicalResult checkDispatched(KernelOp kernel) {
  WalkResult walk = kernel.getBody().walk([&](Operation *op) {
    if (isa<OperatorOpInterface>(op)) {
      op->emitError("nvvm: ")
          << op->getName()
          << " is still here; run axe-dispatch for the NVIDIA target first "
             "(the axe-to-nvvm pipeline does)";
      return WalkResult::interrupt();
    }
    if (isa<AllocOp, ViewOp, SliceOp, AxisIdOp, BarrierOp, PartitionBarrierOp,
            FenceAsyncProxyOp, FlagAddOp, FlagWaitOp, WaitOp, WarpSpecializeOp,
            PartitionOp, PipelineOp, PipelineAcquireOp, PipelineWaitOp,
            PipelineCommitOp, PipelineReleaseOp, TurnBeginOp, TurnEndOp>(op) ||
        isBufferCast(op) || nvvm::isTmemCast(op) || isTokenPlaceholder(op))
      return WalkResult::advance();
    if (op->getDialect() && op->getDialect()->getNamespace() == "axe" &&
        !isa<KernelOp>(op)) {
      op->emitError("nvvm: ") << op->getName() << " has no nvvm lowering";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// A view as the schedules addressed it: its memref seen flat from the
/// lowest coordinate its tile reaches on m.
Value lowerView(ViewOp view, RewriterBase &rw) {
  nvvm::FlatStorage storage = *nvvm::getFlatStorage(view.getType());
  return emitFlatView(rw, view.getLoc(), view, view.getSource(), storage.lo,
                      storage.size, nvvm::getFlatMemRefType(view.getType()));
}

/// Threads per CTA of a kernel outlined here (it has a known block size).
int64_t blockThreads(gpu::GPUFuncOp func) {
  int64_t threads = 1;
  if (auto block = func.getKnownBlockSizeAttr())
    for (int32_t d : block.asArrayRef())
      threads *= d;
  return threads;
}

/// setmaxnreg to `registers` per thread at the insertion point, a
/// partition's start. ptxas honours setmaxnreg only when it knows the count
/// a thread starts with: the kernel gets .maxntid and .minnctapersm 1, so
/// each thread starts with the SM's file over the CTA's threads (rounded
/// down to 8, at most 255), and the partition increases or decreases from
/// there.
void setPartitionRegisters(gpu::GPUFuncOp func, int64_t registers,
                           RewriterBase &rw) {
  int64_t threads = blockThreads(func);
  int64_t start = std::min<int64_t>(255, 65536 / threads) / 8 * 8;
  func->setAttr("nvvm.minctasm", rw.getI32IntegerAttr(1));
  if (registers == start)
    return;
  NVVM::SetMaxRegisterOp::create(rw, func.getLoc(), uint32_t(registers),
                                 registers > start
                                     ? NVVM::SetMaxRegisterAction::increase
                                     : NVVM::SetMaxRegisterAction::decrease);
}

/// Whether a partition issues CTA barriers (which pair across partitions).
bool hasCTABarrier(PartitionOp p) {
  return p.getBody()
      .walk([](BarrierOp b) {
        return b.getScope().getKind() == ScopeKind::CTA
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The named barrier partitions meet at: the first id above the CTA's (0)
/// and the warpgroups' (1 + wgid, NVVMTargetCodegen::barrier). ptxas
/// reserves every id up to the highest a kernel uses, so it is the lowest
/// free one rather than 15.
int64_t partitionsBarrierId(gpu::GPUFuncOp func,
                            const ThreadTargetCodegen &cg) {
  int64_t warpgroup = cg.target().warpgroupSize();
  int64_t warpgroups =
      warpgroup ? (blockThreads(func) + warpgroup - 1) / warpgroup : 0;
  return std::min<int64_t>(1 + warpgroups, 15);
}

/// `barrier.sync id, threads`: non-aligned, so warps may reach it from
/// different instructions. Both are immediates, so ptxas sees which
/// barrier the kernel uses.
void emitPartitionsBarrier(OpBuilder &b, Location loc, int64_t id,
                           int64_t threads) {
  std::string ptx = llvm::formatv("barrier.sync {0}, {1};", id, threads);
  NVVM::InlinePtxOp::create(b, loc, TypeRange(), ValueRange(), ValueRange(),
                            ptx, Value());
}

/// Turns (axe.turn_begin / axe.turn_end) among the n warpgroups of partition
/// `p`: warpgroup k of the partition waits at named barrier base + k for the
/// previous one to arrive there, and ends its turn by arriving at the next
/// one's barrier (bar.arrive does not wait); each barrier counts both
/// warpgroups. The last warpgroup arrives at the first one's barrier on
/// entry, so the first turn starts at once. Emitted at the start of the
/// partition's body.
LogicalResult lowerTurns(PartitionOp p, int64_t base,
                         const ThreadTargetCodegen &cg, RewriterBase &rw) {
  SmallVector<Operation *> turns;
  p.getBody().walk([&](Operation *op) {
    if (isa<TurnBeginOp, TurnEndOp>(op))
      turns.push_back(op);
  });
  if (turns.empty())
    return success();
  const TargetDescription &target = cg.target();
  int64_t group = target.warpgroupSize();
  int64_t warpsPerGroup = group ? group / target.warpSize : 0;
  if (!warpsPerGroup || p.getWarpBegin() % warpsPerGroup ||
      p.getWarpEnd() % warpsPerGroup || p.getNumWarps() < 2 * warpsPerGroup)
    return turns.front()->emitOpError()
           << "takes turns among warpgroups, and its partition (warps ["
           << p.getWarpBegin() << ", " << p.getWarpEnd()
           << ")) is not two or more whole warpgroups of " << target.name;
  int64_t n = p.getNumWarps() / warpsPerGroup;
  if (base + n - 1 > 15)
    return turns.front()->emitOpError()
           << "needs named barriers " << base << " to " << base + n - 1
           << " for its partition's " << n
           << " warpgroups, and a CTA has 16 (0 to 15)";
  Location loc = p.getLoc();
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToStart(&p.getBody().front());
  Value wg = cg.axisValue(rw, loc, "wgid");
  if (!wg)
    return failure();
  Value first =
      arith::ConstantIndexOp::create(rw, loc, p.getWarpBegin() / warpsPerGroup);
  Value k = arith::SubIOp::create(rw, loc, wg, first);
  auto i32 = [&](Value index) {
    return arith::IndexCastOp::create(rw, loc, rw.getI32Type(), index);
  };
  Value baseId = arith::ConstantIndexOp::create(rw, loc, base);
  Value count = arith::ConstantIntOp::create(rw, loc, 2 * group, 32);
  Value mine = i32(arith::AddIOp::create(rw, loc, baseId, k));
  Value nextK = arith::RemUIOp::create(
      rw, loc,
      arith::AddIOp::create(rw, loc, k,
                            arith::ConstantIndexOp::create(rw, loc, 1)),
      arith::ConstantIndexOp::create(rw, loc, n));
  Value next = i32(arith::AddIOp::create(rw, loc, baseId, nextK));
  Value isLast =
      arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, k,
                            arith::ConstantIndexOp::create(rw, loc, n - 1));
  auto entry = scf::IfOp::create(rw, loc, isLast, /*withElseRegion=*/false);
  rw.setInsertionPoint(entry.getThenRegion().front().getTerminator());
  NVVM::BarrierArriveOp::create(rw, loc, i32(baseId), count);
  for (Operation *op : turns) {
    rw.setInsertionPoint(op);
    if (isa<TurnBeginOp>(op))
      NVVM::BarrierOp::create(rw, op->getLoc(), Type(), mine, count,
                              NVVM::BarrierReductionAttr(), Value());
    else
      NVVM::BarrierArriveOp::create(rw, op->getLoc(), next, count);
    rw.eraseOp(op);
  }
  return success();
}

/// The named barriers turns take in `p`: one per warpgroup of the
/// partition, when it takes turns.
int64_t turnBarriers(PartitionOp p, const ThreadTargetCodegen &cg) {
  bool turns = p.getBody()
                   .walk([](TurnBeginOp) { return WalkResult::interrupt(); })
                   .wasInterrupted();
  int64_t warpsPerGroup = cg.target().warpsPerWarpgroup;
  return turns && warpsPerGroup ? int64_t(p.getNumWarps()) / warpsPerGroup : 0;
}

/// The first named barrier of the partitions' own (axe.partition_barrier):
/// above the partitions' shared one and those the turns of `ws` take.
int64_t partitionBarrierBase(gpu::GPUFuncOp func, WarpSpecializeOp ws,
                             const ThreadTargetCodegen &cg) {
  int64_t turns = 0;
  for (PartitionOp p : ws.getBody().front().getOps<PartitionOp>())
    turns = std::max(turns, turnBarriers(p, cg));
  return partitionsBarrierId(func, cg) + 1 + turns;
}

/// axe.partition_barrier in `p`: named barrier `nextId` (then taken) over
/// the partition's threads, non-aligned like the partitions' shared one
/// (its warps may reach it from different instructions).
LogicalResult lowerPartitionBarriers(PartitionOp p, int64_t &nextId,
                                     const ThreadTargetCodegen &cg,
                                     RewriterBase &rw) {
  SmallVector<PartitionBarrierOp> barriers;
  p.getBody().walk([&](PartitionBarrierOp b) { barriers.push_back(b); });
  if (barriers.empty())
    return success();
  int64_t id = nextId++;
  if (id > 15)
    return barriers.front().emitOpError()
           << "needs named barrier " << id
           << " for its partition, and a CTA has 16 (0 to 15): the CTA's, "
              "one per warpgroup, the partitions' shared one and the turns' "
              "come first";
  int64_t threads = int64_t(p.getNumWarps()) * cg.target().warpSize;
  OpBuilder::InsertionGuard guard(rw);
  for (PartitionBarrierOp b : barriers) {
    rw.setInsertionPoint(b);
    emitPartitionsBarrier(rw, b.getLoc(), id, threads);
    rw.eraseOp(b);
  }
  return success();
}

/// A warp specialization on a GPU is what it says: each warp branches to
/// the partition that contains it.
LogicalResult lowerWarpSpecialize(gpu::GPUFuncOp func,
                                  const ThreadTargetCodegen &cg,
                                  RewriterBase &rw) {
  SmallVector<WarpSpecializeOp> specializations;
  func.walk([&](WarpSpecializeOp ws) { specializations.push_back(ws); });
  for (WarpSpecializeOp ws : specializations) {
    Location loc = ws.getLoc();
    rw.setInsertionPoint(ws);
    Value warp = cg.axisValue(rw, loc, "warpid");
    if (!warp)
      return failure();
    SmallVector<PartitionOp> partitions(
        ws.getBody().front().getOps<PartitionOp>());
    int64_t barrierThreads = 0;
    for (PartitionOp p : partitions)
      if (hasCTABarrier(p))
        barrierThreads +=
            int64_t(p.getWarpEnd() - p.getWarpBegin()) * cg.target().warpSize;
    // Ids only for the partitions that have barriers of their own.
    int64_t barrierIds = partitionBarrierBase(func, ws, cg);
    for (PartitionOp p : partitions) {
      Value lo = arith::CmpIOp::create(
          rw, loc, arith::CmpIPredicate::uge, warp,
          arith::ConstantIndexOp::create(rw, loc, p.getWarpBegin()));
      Value hi = arith::CmpIOp::create(
          rw, loc, arith::CmpIPredicate::ult, warp,
          arith::ConstantIndexOp::create(rw, loc, p.getWarpEnd()));
      Value in = arith::AndIOp::create(rw, loc, lo, hi);
      auto ifOp = scf::IfOp::create(rw, loc, in, /*withElseRegion=*/false);
      // Turns take the named barriers after the partitions' one.
      if (failed(lowerTurns(p, partitionsBarrierId(func, cg) + 1, cg, rw)))
        return failure();
      Block &body = p.getBody().front();
      // A CTA barrier in a partition pairs with one in another partition,
      // at another instruction: the non-aligned barrier.sync (bar.sync and
      // gpu.barrier are aligned, which the PTX ISA leaves undefined across
      // code points), over the warps of the partitions that issue them (a
      // warp outside every partition never arrives).
      SmallVector<BarrierOp> barriers;
      body.walk([&](BarrierOp b) {
        if (b.getScope().getKind() == ScopeKind::CTA)
          barriers.push_back(b);
      });
      OpBuilder::InsertionGuard guard(rw);
      for (BarrierOp b : barriers) {
        rw.setInsertionPoint(b);
        emitPartitionsBarrier(rw, b.getLoc(), partitionsBarrierId(func, cg),
                              barrierThreads);
        rw.eraseOp(b);
      }
      if (failed(lowerPartitionBarriers(p, barrierIds, cg, rw)))
        return failure();
      Operation *yield = ifOp.getThenRegion().front().getTerminator();
      if (std::optional<uint64_t> registers = p.getRegisters();
          registers && cg.target().hasFeature("setmaxnreg")) {
        rw.setInsertionPoint(yield);
        setPartitionRegisters(func, int64_t(*registers), rw);
      }
      for (Operation &op :
           llvm::make_early_inc_range(body.without_terminator()))
        op.moveBefore(yield);
    }
    rw.eraseOp(ws);
  }
  return success();
}

/// The tokens of SIMT copies carry nothing: loop-carried tokens and token
/// results of scf.if go, their uses get `placeholder`.
LogicalResult dropTokenCarriers(gpu::GPUFuncOp func, Value placeholder,
                                RewriterBase &rw) {
  auto isToken = [](Type t) { return isa<TokenType>(t); };
  SmallVector<Operation *> carriers;
  func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op) &&
        llvm::any_of(op->getResultTypes(), isToken))
      carriers.push_back(op);
  });
  for (Operation *op : carriers) {
    rw.setInsertionPoint(op);
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      SmallVector<Value> inits;
      for (Value v : loop.getInitArgs())
        if (!isToken(v.getType()))
          inits.push_back(v);
      auto fresh =
          scf::ForOp::create(rw, loop.getLoc(), loop.getLowerBound(),
                             loop.getUpperBound(), loop.getStep(), inits);
      SmallVector<Value> args{fresh.getInductionVar()};
      unsigned k = 0;
      for (BlockArgument a : loop.getRegionIterArgs())
        args.push_back(isToken(a.getType()) ? placeholder
                                            : fresh.getRegionIterArgs()[k++]);
      rw.eraseOp(fresh.getBody()->getTerminator());
      rw.mergeBlocks(loop.getBody(), fresh.getBody(), args);
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      SmallVector<Type> types;
      for (Type t : ifOp.getResultTypes())
        if (!isToken(t))
          types.push_back(t);
      auto fresh = scf::IfOp::create(rw, ifOp.getLoc(), types,
                                     ifOp.getCondition(), true);
      for (auto [from, to] :
           {std::pair(&ifOp.getThenRegion(), &fresh.getThenRegion()),
            std::pair(&ifOp.getElseRegion(), &fresh.getElseRegion())}) {
        rw.eraseBlock(&to->front());
        if (!from->empty())
          rw.inlineRegionBefore(*from, *to, to->end());
        else
          scf::YieldOp::create(rw, ifOp.getLoc(), ValueRange());
      }
    } else {
      return op->emitError("nvvm: a token through scf.while has no nvvm "
                           "lowering");
    }
    Operation *fresh = op->getPrevNode();
    // Yields lose their token operands.
    for (Region &r : fresh->getRegions())
      for (Block &b : r)
        if (auto y = dyn_cast<scf::YieldOp>(b.getTerminator())) {
          SmallVector<Value> kept;
          for (Value v : y.getOperands())
            if (!isToken(v.getType()))
              kept.push_back(v);
          rw.setInsertionPoint(y);
          rw.replaceOpWithNewOp<scf::YieldOp>(y, kept);
        }
    unsigned k = 0;
    SmallVector<Value> results;
    for (Value r : op->getResults())
      results.push_back(isToken(r.getType()) ? placeholder
                                             : fresh->getResult(k++));
    rw.replaceOp(op, results);
  }
  return success();
}

/// The gpu.module attribute through which convert-axe-to-nvvm tells
/// axe-to-ptx how its dynamic shared memory must be aligned.
constexpr StringLiteral kDynamicSharedAlignAttr = "axe_dynamic_shared_align";

/// The bytes of a shared axe.alloc's flat storage; INT64_MAX where they do
/// not fit in int64 (a layout may place 2^62 elements).
int64_t sharedBytes(AllocOp alloc) {
  auto type = cast<BufferType>(alloc.getType());
  auto storage = nvvm::getFlatStorage(type);
  if (!storage)
    return 0;
  int64_t bytes;
  if (llvm::MulOverflow(storage->size, elementBytes(type.getElementType()),
                        bytes))
    return INT64_MAX;
  return bytes;
}

/// The alignment a shared buffer gets: a whole swizzle pattern (8 lines of
/// 128 bytes) when its layout is swizzled, since TMA and wgmma swizzle
/// address bits and so see the layout's pattern only from an aligned base;
/// else the 128 bytes a TMA box needs.
int64_t sharedAlignment(AllocOp alloc) {
  return cast<BufferType>(alloc.getType()).getLayout().effectiveSwizzle() ? 1024
                                                                          : 128;
}

/// A shared buffer `bytes` into the dynamic shared memory, as `memType`
/// (rank 1) at that element offset. memref.view's result would carry the
/// shift in its base pointer instead of its offset; then a later
/// reinterpret_cast of its base (TMA boxes, matrix descriptors) is right
/// only where views are modelled exactly as the LLVM lowering does. A view
/// of the whole window at byte 0 and a subview keep the shift an offset.
Value dynamicSharedView(RewriterBase &rw, Location loc, Value dynamic,
                        MemRefType memType, int64_t bytes) {
  int64_t first = bytes / elementBytes(memType.getElementType());
  int64_t size = memType.getDimSize(0);
  auto whole =
      MemRefType::get({first + size}, memType.getElementType(),
                      MemRefLayoutAttrInterface(), memType.getMemorySpace());
  Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
  Value view =
      memref::ViewOp::create(rw, loc, whole, dynamic, zero, ValueRange());
  return memref::SubViewOp::create(rw, loc, view, ArrayRef<int64_t>{first},
                                   ArrayRef<int64_t>{size},
                                   ArrayRef<int64_t>{1});
}

/// Records on the kernel's gpu.module the alignment its dynamic shared
/// memory needs (a swizzled buffer's 1024 bytes): upstream's lowering
/// declares the window 16-byte aligned, and axe-to-ptx raises that
/// (AlignDynamicShared below).
void requireDynamicSharedAlignment(gpu::GPUFuncOp func, int64_t alignment) {
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  if (auto old = module->getAttrOfType<IntegerAttr>(kDynamicSharedAlignAttr))
    alignment = std::max(alignment, old.getInt());
  module->setAttr(
      kDynamicSharedAlignAttr,
      IntegerAttr::get(IntegerType::get(func.getContext(), 64), alignment));
}

/// Where a buffer of `bytes` aligned to `alignment` ends when placed after
/// `end`; INT64_MAX where that does not fit in int64.
int64_t placedEnd(int64_t end, int64_t alignment, int64_t bytes) {
  int64_t aligned;
  if (end > INT64_MAX - alignment ||
      llvm::AddOverflow(int64_t(llvm::alignTo(end, alignment)), bytes, aligned))
    return INT64_MAX;
  return aligned;
}

/// Where each shared buffer of `func` lives: one workgroup attribution
/// each, or, past the static limit, an aligned slice of the dynamic
/// shared memory (`dynamicBytes` is then its size, else 0). Fails, at the
/// buffer that passes it, where the buffers exceed the shared memory the
/// target gives a CTA: the launch would fail, or a kernel verified without
/// a target would reach past its window.
FailureOr<DenseMap<Operation *, Value>>
placeSharedBuffers(gpu::GPUFuncOp func, const TargetDescription &target,
                   RewriterBase &rw, int64_t &dynamicBytes) {
  const TargetMemorySpace *sharedSpace = target.findMemorySpace("shared");
  int64_t capacity = sharedSpace ? sharedSpace->capacityBytes : 0;
  SmallVector<AllocOp> shared;
  int64_t total = 0;
  WalkResult walk = func.walk([&](AllocOp alloc) {
    if (cast<BufferType>(alloc.getType()).getMemorySpace() !=
        MemorySpace::Shared)
      return WalkResult::advance();
    shared.push_back(alloc);
    total = placedEnd(total, sharedAlignment(alloc), sharedBytes(alloc));
    if (capacity > 0 && total > capacity) {
      auto diag = alloc.emitError("nvvm: ");
      if (total == INT64_MAX)
        diag << "this shared buffer takes more bytes than int64 counts";
      else
        diag << "this shared buffer brings the kernel's shared memory to "
             << total << " bytes (with each buffer's alignment)";
      diag << "; " << target.name << " gives a CTA at most " << capacity
           << " bytes";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  DenseMap<Operation *, Value> placed;
  MLIRContext *ctx = rw.getContext();
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  dynamicBytes = total > target.staticSharedBytes ? total : 0;
  int64_t maxAlignment = 16;
  for (AllocOp alloc : shared)
    maxAlignment = std::max(maxAlignment, sharedAlignment(alloc));
  Value dynamic;
  if (dynamicBytes) {
    rw.setInsertionPointToStart(&func.getBody().front());
    dynamic = gpu::DynamicSharedMemoryOp::create(
        rw, func.getLoc(),
        MemRefType::get({ShapedType::kDynamic}, rw.getI8Type(),
                        MemRefLayoutAttrInterface(), space));
  }
  int64_t offset = 0;
  for (AllocOp alloc : shared) {
    auto type = cast<BufferType>(alloc.getType());
    int64_t size = nvvm::getFlatStorage(type)->size;
    auto memType = MemRefType::get({size}, type.getElementType(),
                                   MemRefLayoutAttrInterface(), space);
    int64_t align = sharedAlignment(alloc);
    if (!dynamic) {
      placed[alloc] = func.addWorkgroupAttribution(memType, alloc.getLoc());
      func.setWorkgroupAttributionAttr(
          func.getNumWorkgroupAttributions() - 1,
          rw.getStringAttr(LLVM::LLVMDialect::getAlignAttrName()),
          rw.getI64IntegerAttr(align));
      continue;
    }
    offset = llvm::alignTo(offset, align);
    rw.setInsertionPointAfterValue(dynamic);
    placed[alloc] =
        dynamicSharedView(rw, alloc.getLoc(), dynamic, memType, offset);
    offset += sharedBytes(alloc);
  }
  if (dynamic)
    requireDynamicSharedAlignment(func, maxAlignment);
  return placed;
}

/// The TMEM of the kernel's tmem buffers: one allocation by warp 0 at the
/// start (its address written to a shared slot, read by every thread after
/// a barrier), each buffer at a column offset in it, freed by warp 0 after
/// a barrier at the end. Maps each tmem axe.alloc to its i32 address.
FailureOr<DenseMap<Operation *, Value>>
placeTmemBuffers(gpu::GPUFuncOp func, const ThreadTargetCodegen &cg,
                 RewriterBase &rw) {
  SmallVector<std::pair<AllocOp, int64_t>> buffers;
  int64_t columns = 0;
  WalkResult walk = func.walk([&](AllocOp alloc) {
    auto type = cast<BufferType>(alloc.getType());
    if (type.getMemorySpace() != MemorySpace::TMem)
      return WalkResult::advance();
    auto cols = nvvm::tmemColumns(type);
    if (!cols) {
      alloc.emitError("nvvm: ") << cols.message();
      return WalkResult::interrupt();
    }
    buffers.push_back({alloc, columns});
    columns += *cols;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  DenseMap<Operation *, Value> placed;
  if (buffers.empty())
    return placed;
  if (!cg.target().hasFeature("tmem"))
    return buffers.front().first.emitError("nvvm: ")
           << cg.target().name << " has no tensor memory";
  // tcgen05.alloc takes a power of 2 from 32 to 512 columns.
  int64_t allocated = std::max<int64_t>(32, llvm::PowerOf2Ceil(columns));
  if (allocated > 512)
    return buffers.front().first.emitError("nvvm: the kernel's tmem buffers "
                                           "need ")
           << columns << " TMEM columns; a CTA has 512";
  Location loc = func.getLoc();
  MLIRContext *ctx = rw.getContext();
  auto space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value slot = func.addWorkgroupAttribution(
      MemRefType::get({1}, rw.getI32Type(), MemRefLayoutAttrInterface(), space),
      loc);
  func.setWorkgroupAttributionAttr(
      func.getNumWorkgroupAttributions() - 1,
      rw.getStringAttr(LLVM::LLVMDialect::getAlignAttrName()),
      rw.getI64IntegerAttr(16));
  Block &entry = func.getBody().front();
  rw.setInsertionPointToStart(&entry);
  Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
  Value count = arith::ConstantIntOp::create(rw, loc, allocated, 32);
  Value firstWarp = arith::CmpIOp::create(
      rw, loc, arith::CmpIPredicate::eq, cg.axisValue(rw, loc, "warpid"), zero);
  Value slotAddress = arith::IndexCastOp::create(
      rw, loc, rw.getI32Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(rw, loc, slot));
  Value slotPointer = LLVM::IntToPtrOp::create(
      rw, loc, LLVM::LLVMPointerType::get(ctx, 3), slotAddress);
  auto inFirstWarp = [&](function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(rw, loc, firstWarp, false);
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body();
  };
  auto sync = [&]() {
    NVVM::Tcgen05FenceOp::create(rw, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    gpu::BarrierOp::create(rw, loc);
    NVVM::Tcgen05FenceOp::create(rw, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  };
  inFirstWarp([&] {
    NVVM::Tcgen05AllocOp::create(rw, loc, slotPointer, count);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(rw, loc);
  });
  sync();
  Value base = memref::LoadOp::create(rw, loc, slot, zero);
  for (auto [alloc, column] : buffers)
    placed[alloc] = column == 0
                        ? base
                        : arith::AddIOp::create(
                              rw, loc, base,
                              arith::ConstantIntOp::create(rw, loc, column, 32))
                              .getResult();
  rw.setInsertionPoint(entry.getTerminator());
  sync();
  inFirstWarp([&] {
    Value tmem = LLVM::IntToPtrOp::create(
        rw, loc, LLVM::LLVMPointerType::get(ctx, 6), base);
    NVVM::Tcgen05DeallocOp::create(rw, loc, tmem, count);
  });
  return placed;
}

LogicalResult lowerBody(gpu::GPUFuncOp func, const ThreadTargetCodegen &cg,
                        RewriterBase &rw, int64_t &dynamicSharedBytes) {
  Block &entry = func.getBody().front();
  if (failed(nvvm::lowerPipelines(
          func, entry, blockThreads(func) / cg.target().warpSize, cg, rw)))
    return failure();
  if (failed(lowerWarpSpecialize(func, cg, rw)))
    return failure();
  if (failed(nvvm::lowerFlags(func, cg, rw)))
    return failure();
  rw.setInsertionPointToStart(&entry);
  Value token = createTokenPlaceholder(rw, func.getLoc());
  SmallVector<Operation *> placeholders;
  func.walk([&](Operation *op) {
    if (isTokenPlaceholder(op) && op->getResult(0) != token)
      placeholders.push_back(op);
  });
  for (Operation *op : placeholders)
    rw.replaceOp(op, token);
  if (failed(dropTokenCarriers(func, token, rw)))
    return failure();
  FailureOr<DenseMap<Operation *, Value>> sharedPlaces =
      placeSharedBuffers(func, cg.target(), rw, dynamicSharedBytes);
  if (failed(sharedPlaces))
    return failure();
  FailureOr<DenseMap<Operation *, Value>> tmemPlaces =
      placeTmemBuffers(func, cg, rw);
  if (failed(tmemPlaces))
    return failure();
  DenseMap<Value, Value> memory;
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    if (auto id = dyn_cast<AxisIdOp>(op)) {
      rw.setInsertionPoint(id);
      Value v = cg.axisValue(rw, loc, id.getAxis());
      if (!v)
        return failure();
      rw.replaceOp(id, v);
    } else if (auto barrier = dyn_cast<BarrierOp>(op)) {
      rw.setInsertionPoint(barrier);
      if (failed(cg.barrier(rw, loc, barrier.getScope().getKind())))
        return failure();
      rw.eraseOp(barrier);
    } else if (isa<FenceAsyncProxyOp>(op)) {
      rw.setInsertionPoint(op);
      NVVM::FenceProxyOp::create(
          rw, loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(rw.getContext(),
                                     NVVM::SharedSpace::shared_cta));
      rw.eraseOp(op);
    } else if (auto alloc = dyn_cast<AllocOp>(op)) {
      auto type = cast<BufferType>(alloc.getType());
      auto storage = nvvm::getFlatStorage(type);
      if (!storage)
        return alloc.emitError("nvvm: ") << storage.message();
      Value mem;
      auto staticType = MemRefType::get({storage->size}, type.getElementType());
      if (type.getMemorySpace() == MemorySpace::TMem) {
        memory[alloc.getResult()] = tmemPlaces->lookup(alloc);
        continue;
      }
      if (type.getMemorySpace() == MemorySpace::Shared) {
        mem = sharedPlaces->lookup(alloc);
      } else if (type.getMemorySpace() == MemorySpace::Reg) {
        // At the start of the kernel, whatever loop the alloc is in: its
        // contents are undefined when allocated, and registers are the
        // thread's for the whole kernel.
        rw.setInsertionPointToStart(&entry);
        mem = memref::AllocaOp::create(rw, loc, staticType);
      } else {
        return alloc.emitError("nvvm: memory space '")
               << stringifyMemorySpace(type.getMemorySpace())
               << "' has no nvvm lowering";
      }
      if (isa<BlockArgument>(mem))
        rw.setInsertionPointToStart(&entry);
      else
        rw.setInsertionPointAfterValue(mem);
      memory[alloc.getResult()] =
          memref::CastOp::create(rw, loc, nvvm::getFlatMemRefType(type), mem);
    } else if (auto view = dyn_cast<ViewOp>(op)) {
      rw.setInsertionPoint(view);
      memory[view.getResult()] = lowerView(view, rw);
    } else if (isBufferCast(op) || nvvm::isTmemCast(op)) {
      auto it = memory.find(op->getOperand(0));
      if (it == memory.end())
        return op->emitError("nvvm: a buffer cast of something that is not "
                             "an axe.alloc or axe.view");
      rw.replaceOp(op, it->second);
    }
  }
  // Waits on SIMT copies have nothing to wait for.
  SmallVector<WaitOp> waits;
  func.walk([&](WaitOp wait) { waits.push_back(wait); });
  for (WaitOp wait : waits)
    rw.eraseOp(wait);
  ops.clear();
  func.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : llvm::reverse(ops)) {
    if (!isTokenPlaceholder(op) && !isa<SliceOp, AllocOp, ViewOp>(op))
      continue;
    if (!op->use_empty())
      return op->emitError("nvvm: still used after lowering: ")
             << *(*op->getUsers().begin())
             << " (tokens through loops and buffers outside operators have "
                "no nvvm lowering)";
    rw.eraseOp(op);
  }
  return success();
}

/// A kernel as a gpu.func in a gpu.module of its own, launched by
/// gpu.launch_func.
class NVVMKernelOutlining : public KernelOutlining {
public:
  explicit NVVMKernelOutlining(StringRef chip) : chip(chip) {}

  StringRef backend() const override { return "nvvm"; }
  StringRef nameSuffix() const override { return "_kernel"; }
  std::string orphanName() const override { return "kernel"; }
  StringRef takes() const override {
    return "a GPU kernel takes memrefs and scalars";
  }

  Type argumentType(Value v) const override {
    Type t = v.getType();
    // Pointers are TMA descriptors the host made.
    if (isa<MemRefType, IndexType, IntegerType, FloatType,
            LLVM::LLVMPointerType>(t))
      return t;
    return {};
  }

  LogicalResult prepare(KernelOp kernel) override {
    auto resolved = resolveTarget(kernel, chip);
    if (failed(resolved))
      return failure();
    target = *resolved;
    if (failed(checkDispatched(kernel)))
      return failure();
    // The kernel's own target was checked by its verifier; a chip given to
    // the pass was not.
    if (int64_t(kernel.getThreads()) > target->maxThreadsPerCTA)
      return kernel.emitError("nvvm: ")
             << kernel.getThreads() << " threads per CTA; " << target->name
             << " runs at most " << target->maxThreadsPerCTA;
    return success();
  }

  Operation *createFunction(KernelOp kernel, StringRef name,
                            TypeRange argumentTypes,
                            RewriterBase &rw) override {
    auto module = kernel->getParentOfType<ModuleOp>();
    Location loc = kernel.getLoc();
    // gpu.module @<name>s [#nvvm.target<chip, features>].
    rw.setInsertionPointToEnd(module.getBody());
    auto nvvmTarget = NVVM::NVVMTargetAttr::get(
        rw.getContext(), /*optLevel=*/3, "nvptx64-nvidia-cuda", target->chip,
        ptxFeatures(*target));
    auto gpuModule = gpu::GPUModuleOp::create(rw, loc, (name + "s").str(),
                                              rw.getArrayAttr({nvvmTarget}));
    rw.setInsertionPointToStart(gpuModule.getBody());
    auto func = gpu::GPUFuncOp::create(rw, loc, name,
                                       rw.getFunctionType(argumentTypes, {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), rw.getUnitAttr());
    func.setKnownBlockSizeAttr(
        rw.getDenseI32ArrayAttr({int32_t(kernel.getThreads()), 1, 1}));
    rw.setInsertionPointToEnd(&func.getBody().front());
    gpu::ReturnOp::create(rw, loc);
    return func;
  }

  LogicalResult lowerBody(Operation *function, RewriterBase &rw) override {
    nvvm::NVVMTargetCodegen cg(*target);
    dynamicSharedBytes = 0;
    return axe::lowerBody(cast<gpu::GPUFuncOp>(function), cg, rw,
                          dynamicSharedBytes);
  }

  void launch(KernelOp kernel, Operation *function,
              const KernelCaptures &captures, RewriterBase &rw) override {
    Location loc = kernel.getLoc();
    SmallVector<Value, 3> grid;
    for (OpFoldResult g : kernel.getMixedGrid())
      grid.push_back(getValueOrCreateConstantIndexOp(rw, loc, g));
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    while (grid.size() < 3)
      grid.push_back(one);
    Value block = arith::ConstantIndexOp::create(rw, loc, kernel.getThreads());
    // Clusters launch as such (cuLaunchKernelEx), so the hardware
    // co-schedules a cluster's CTAs; each CTA's place in it is read from its
    // block id.
    std::optional<gpu::KernelDim3> cluster;
    if (std::optional<ArrayRef<int64_t>> dims = kernel.getCluster();
        dims && llvm::any_of(*dims, [](int64_t d) { return d > 1; })) {
      SmallVector<Value, 3> c;
      for (int64_t d : *dims)
        c.push_back(arith::ConstantIndexOp::create(rw, loc, d));
      while (c.size() < 3)
        c.push_back(one);
      cluster = gpu::KernelDim3{c[0], c[1], c[2]};
    }
    gpu::LaunchFuncOp::create(
        rw, loc, cast<gpu::GPUFuncOp>(function),
        gpu::KernelDim3{grid[0], grid[1], grid[2]},
        gpu::KernelDim3{block, one, one},
        dynamicSharedBytes ? Value(arith::ConstantIntOp::create(
                                 rw, loc, dynamicSharedBytes, 32))
                           : Value(),
        captures.arguments, Type(), ValueRange(), cluster);
  }

private:
  StringRef chip;
  const TargetDescription *target = nullptr;
  int64_t dynamicSharedBytes = 0;
};

struct ConvertAxeToNVVMPass
    : public impl::ConvertAxeToNVVMBase<ConvertAxeToNVVMPass> {
  using ConvertAxeToNVVMBase::ConvertAxeToNVVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(requireConcreteLayouts(module, getArgument())))
      return signalPassFailure();
    NVVMKernelOutlining outlining(chip);
    if (failed(outlineKernels(module, outlining)))
      return signalPassFailure();
    // Each launch's closest module holds its gpu.module (inputs may nest
    // modules).
    module.walk([&](gpu::LaunchFuncOp launch) {
      launch->getParentOfType<ModuleOp>()->setAttr(
          gpu::GPUDialect::getContainerModuleAttrName(),
          UnitAttr::get(&getContext()));
    });
    module.walk(
        [](ModuleOp m) { m->removeAttr(AxeDialect::getTargetAttrName()); });
  }
};

} // namespace

Backend nvvmBackend() {
  Backend backend;
  backend.name = "nvvm";
  backend.targets = targetKind(TargetKind::GPU);
  backend.addSchedules = [](ScheduleRegistry &registry) {
    nvvm::addSIMTSchedules(registry);
    nvvm::addMmaSchedules(registry);
    nvvm::addMatrixMoveSchedules(registry);
    nvvm::addShuffleCopySchedules(registry);
    nvvm::addTmaSchedules(registry);
    nvvm::addWgmmaSchedules(registry);
    nvvm::addTcgen05Schedules(registry);
  };
  backend.dependentDialects = [](DialectRegistry &registry) {
    registry.insert<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                    LLVM::LLVMDialect, math::MathDialect, nvgpu::NVGPUDialect,
                    memref::MemRefDialect, NVVM::NVVMDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  };
  backend.codegen = [](const TargetDescription &target) {
    return std::make_unique<nvvm::NVVMTargetCodegen>(target);
  };
  return backend;
}

void buildAxeToNVVMPipeline(OpPassManager &pm,
                            const AxeToNVVMOptions &options) {
  // Buffers written with layout '?' get theirs from the nvvm schedules.
  AxeInferLayoutsOptions infer;
  infer.target = options.chip;
  pm.addPass(createAxeInferLayouts(infer, BackendSet{nvvmBackend()}));
  // Before dispatch: wgmma and tcgen05.mma start their accumulation from
  // zero instead of a fill. Not in the CPU pipeline (see the pass).
  pm.addPass(createAxeZeroInitAccumulators());
  // Operators that touch one buffer are ordered by barriers before the
  // schedules, which choose the threads, run.
  AxeInsertBarriersOptions barriers;
  barriers.target = options.chip;
  pm.addPass(createAxeInsertBarriers(barriers));
  AxeDispatchOptions dispatch;
  dispatch.target = options.chip;
  pm.addPass(createAxeDispatch(dispatch, BackendSet{nvvmBackend()}));
  ConvertAxeToNVVMOptions convert;
  convert.chip = options.chip;
  pm.addPass(createConvertAxeToNVVM(convert));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

namespace {
/// Part of axe-to-ptx, after the gpu-to-nvvm conversion: raises the
/// alignment of the dynamic shared memory window that conversion declares
/// (16 bytes) to what convert-axe-to-nvvm recorded on the gpu.module. TMA
/// boxes and wgmma/tcgen05 descriptors swizzle address bits, so a 128-byte
/// swizzled buffer needs its 1024-byte pattern to start on such a boundary.
struct AlignDynamicSharedPass
    : public PassWrapper<AlignDynamicSharedPass,
                         OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AlignDynamicSharedPass)
  StringRef getArgument() const override { return "axe-align-dynamic-shared"; }
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    auto want = module->getAttrOfType<IntegerAttr>(kDynamicSharedAlignAttr);
    if (!want)
      return;
    module->removeAttr(kDynamicSharedAlignAttr);
    for (auto global : module.getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != 3 || !array || array.getNumElements() != 0)
        continue;
      uint64_t have = global.getAlignment().value_or(0);
      if (have < uint64_t(want.getInt()))
        global.setAlignment(uint64_t(want.getInt()));
    }
  }
};
} // namespace

void buildAxeToPTXPipeline(OpPassManager &pm, const AxeToPTXOptions &options) {
  buildAxeToNVVMPipeline(pm, options);
  // Upstream's gpu-lower-to-nvvm-pipeline, less its nvvm-attach-target:
  // that pass appends a second #nvvm.target (its own chip, sm_50 by
  // default) to each gpu.module, and gpu-module-to-binary then compiles for
  // both. Each module already carries the target convert-axe-to-nvvm
  // derived from the kernel's chip, with the PTX version the chip needs.
  pm.addPass(createConvertNVGPUToNVVMPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createStripDebugInfoPass());
  device.addPass(createConvertGpuOpsToNVVMOps());
  device.addPass(std::make_unique<AlignDynamicSharedPass>());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
struct AxeToNVVMPipelineOptions
    : public PassPipelineOptions<AxeToNVVMPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("NVIDIA target (sm_80, sm_90, "
                                          "sm_100a); default: the module's "
                                          "#axe.target")};
};
struct AxeToPTXPipelineOptions
    : public PassPipelineOptions<AxeToPTXPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("NVIDIA target (sm_80, sm_90, "
                                          "sm_100a); default: the module's "
                                          "#axe.target")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (PTX), bin, fatbin"),
      llvm::cl::init("isa")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose ptxas makes bin and fatbin"),
      llvm::cl::init("/usr/local/cuda")};
};
} // namespace

void registerAxeToNVVM() {
  registerConvertAxeToNVVM();
  static PassPipelineRegistration<AxeToNVVMPipelineOptions> nvvmPipeline(
      "axe-to-nvvm",
      "Dispatch every collective operator with the nvvm schedules and move "
      "each kernel into a gpu.func its host launches (the level axe-gpu-run "
      "interprets)",
      [](OpPassManager &pm, const AxeToNVVMPipelineOptions &o) {
        AxeToNVVMOptions options;
        options.chip = o.chip;
        buildAxeToNVVMPipeline(pm, options);
      });
  static PassPipelineRegistration<AxeToPTXPipelineOptions> ptxPipeline(
      "axe-to-ptx",
      "axe-to-nvvm, then upstream's lowering to NVVM and gpu-module-to-binary: "
      "gpu.binary holding PTX (format=isa) or a cubin/fatbin through ptxas",
      [](OpPassManager &pm, const AxeToPTXPipelineOptions &o) {
        AxeToPTXOptions options;
        options.chip = o.chip;
        options.format = o.format;
        options.toolkit = o.toolkit;
        buildAxeToPTXPipeline(pm, options);
      });
}

} // namespace axe
