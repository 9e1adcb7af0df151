//===- NVVMPipeline.cpp - axe.pipeline as two rings of mbarriers ----------===//
//
// Stage i of a pipeline of S stages uses slot i mod S in round i / S. The
// full barrier of a slot completes a phase when every committing warp has
// arrived and the TMA copies committed to it have written their bytes; the
// empty barrier when every releasing warp has arrived. A consumer waits for
// the full phase of parity (i / S) & 1; a producer for the empty phase of
// the round before, parity ((i / S) & 1) ^ 1, which a freshly initialized
// barrier (phase 0 under way) reports complete, so the first round does not
// wait. A warp arrives once, from lane 0 after a warp barrier, so the count
// does not depend on the scope that wrote the stage.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;

namespace axe::nvvm {
namespace {

/// Spin limit of one try_wait before it retries (as for site barriers).
constexpr int64_t kPipelineWaitTicks = 10000000;

/// Warps that arrive on each phase: every warp of each partition with one
/// of the ops, or of the CTA for one outside partitions.
template <typename OpTy>
int64_t arrivingWarps(PipelineOp pipeline, int64_t ctaWarps) {
  int64_t warps = 0;
  for (PartitionOp partition : pipeline.partitionsWith<OpTy>()) {
    if (!partition)
      return ctaWarps;
    warps += partition.getNumWarps();
  }
  return warps;
}

Value makeGroup(RewriterBase &rw, Location loc, int64_t stages) {
  MLIRContext *ctx = rw.getContext();
  auto type = nvgpu::MBarrierGroupType::get(
      ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
      stages);
  return nvgpu::MBarrierCreateOp::create(rw, loc, type);
}

/// One phase of `group`'s slot for `index`: parity (round & 1) ^ flip.
void waitPhase(OpBuilder &b, Location loc, Value group, Value index,
               int64_t stages, bool previousRound) {
  Value slot = pipelineSlot(b, loc, index, stages);
  Value round =
      arith::DivUIOp::create(b, loc, index, indexConstant(b, loc, stages));
  Value bit = arith::IndexCastUIOp::create(b, loc, b.getI1Type(), round);
  if (previousRound)
    bit = arith::XOrIOp::create(b, loc, bit,
                                arith::ConstantIntOp::create(b, loc, 1, 1));
  nvgpu::MBarrierTryWaitParityOp::create(
      b, loc, group, bit, indexConstant(b, loc, kPipelineWaitTicks), slot);
}

/// Lane 0 of each warp arrives once the whole warp is here, so the arrival
/// releases the writes of all its lanes.
void warpArrive(OpBuilder &b, Location loc, Value group, Value index,
                int64_t stages, const ThreadTargetCodegen &cg) {
  (void)cg.barrier(b, loc, ScopeKind::Warp);
  Value lane = cg.axisValue(b, loc, "laneid");
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      indexConstant(b, loc, 0));
  guarded(b, loc, first, [&](OpBuilder &g) {
    nvgpu::MBarrierArriveOp::create(
        g, loc, nvgpu::MBarrierTokenType::get(g.getContext()), group,
        pipelineSlot(g, loc, index, stages));
  });
}

} // namespace

Value pipelineSlot(OpBuilder &b, Location loc, Value index, int64_t stages) {
  return arith::RemUIOp::create(b, loc, index, indexConstant(b, loc, stages));
}

FailureOr<PipelineBarriers> pipelineBarriers(RewriterBase &rw, Value pipeline,
                                             Block &entry, int64_t ctaWarps,
                                             const ThreadTargetCodegen &cg) {
  int64_t stages = cast<PipelineType>(pipeline.getType()).getStages();
  if (auto made = pipeline.getDefiningOp<UnrealizedConversionCastOp>())
    return PipelineBarriers{made.getOperand(0), made.getOperand(1), stages};
  auto op = pipeline.getDefiningOp<PipelineOp>();
  if (!op) {
    Operation *from = pipeline.getDefiningOp();
    return emitError(pipeline.getLoc())
           << "nvvm: a pipeline's stage ops must take it from axe.pipeline "
              "itself, not through "
           << (from ? from->getName().getStringRef()
                    : StringRef("a block "
                                "argument"));
  }
  if (StringRef why = op.whyItWouldHang(); !why.empty())
    return op.emitError("nvvm: ") << why;
  int64_t committers = arrivingWarps<PipelineCommitOp>(op, ctaWarps);
  int64_t releasers = arrivingWarps<PipelineReleaseOp>(op, ctaWarps);
  OpBuilder::InsertionGuard guard(rw);
  Location loc = op.getLoc();
  rw.setInsertionPointToStart(&entry);
  PipelineBarriers barriers{makeGroup(rw, loc, stages),
                            makeGroup(rw, loc, stages), stages};
  Value zero = indexConstant(rw, loc, 0);
  Value first = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                      cg.axisValue(rw, loc, "tx"), zero);
  guarded(rw, loc, first, [&](OpBuilder &b) {
    for (int64_t s = 0; s < stages; ++s) {
      Value slot = indexConstant(b, loc, s);
      nvgpu::MBarrierInitOp::create(b, loc, barriers.full,
                                    indexConstant(b, loc, committers), slot,
                                    Value());
      // A pipeline nothing releases is never acquired: its count is moot.
      nvgpu::MBarrierInitOp::create(
          b, loc, barriers.empty,
          indexConstant(b, loc, std::max<int64_t>(releasers, 1)), slot,
          Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc, TypeRange());
  });
  (void)cg.barrier(rw, loc, ScopeKind::CTA);
  rw.setInsertionPoint(op);
  rw.replaceOpWithNewOp<UnrealizedConversionCastOp>(
      op, TypeRange{op.getType()}, ValueRange{barriers.full, barriers.empty});
  return barriers;
}

LogicalResult lowerPipelines(Operation *root, Block &entry, int64_t ctaWarps,
                             const ThreadTargetCodegen &cg, RewriterBase &rw) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<PipelineAcquireOp, PipelineWaitOp, PipelineCommitOp,
            PipelineReleaseOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    Value pipeline = op->getOperand(0), index = op->getOperand(1);
    FailureOr<PipelineBarriers> barriers =
        pipelineBarriers(rw, pipeline, entry, ctaWarps, cg);
    if (failed(barriers))
      return failure();
    Location loc = op->getLoc();
    rw.setInsertionPoint(op);
    int64_t stages = barriers->stages;
    if (isa<PipelineAcquireOp>(op))
      waitPhase(rw, loc, barriers->empty, index, stages, true);
    else if (isa<PipelineWaitOp>(op))
      waitPhase(rw, loc, barriers->full, index, stages, false);
    else if (isa<PipelineCommitOp>(op))
      warpArrive(rw, loc, barriers->full, index, stages, cg);
    else
      warpArrive(rw, loc, barriers->empty, index, stages, cg);
    rw.eraseOp(op);
  }
  // What is left are the pipelines themselves (casts once made).
  SmallVector<Operation *> left;
  root->walk([&](Operation *op) {
    if (op->getNumResults() == 1 &&
        isa<PipelineType>(op->getResult(0).getType()))
      left.push_back(op);
  });
  for (Operation *op : left) {
    if (!op->use_empty())
      return op->emitError("nvvm: a pipeline still used after lowering: ")
             << *(*op->getUsers().begin());
    rw.eraseOp(op);
  }
  return success();
}

} // namespace axe::nvvm
