//===- CPUWarpSpecialize.cpp - Partitions run round by round
//---------------===//
//
// A CTA runs as one CPU thread, so the partitions of an axe.warp_specialize
// cannot run concurrently: they run round by round between CTA barriers,
// which is an order the barriers allow.
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace axe {
namespace {

/// Whether `op` makes a partition wait for another: a CTA barrier, or a
/// pipeline's acquire or wait (CPUPipeline.cpp checks that the rounds made
/// their stage ready).
bool isSync(Operation *op) {
  if (auto barrier = dyn_cast<BarrierOp>(op))
    return barrier.getScope().getKind() >= ScopeKind::CTA;
  return isa<PipelineAcquireOp, PipelineWaitOp>(op);
}

/// A block of a partition cut at its synchronization points: CTA barriers and
/// pipeline waits, and loops whose bodies hold them. segments.size() ==
/// syncs.size() + 1.
struct SyncSplit {
  SmallVector<SmallVector<Operation *>> segments{{}};
  SmallVector<Operation *> syncs;
};

FailureOr<SyncSplit> splitAtSyncs(Block &block) {
  SyncSplit split;
  for (Operation &op : block.without_terminator()) {
    bool sync = isSync(&op);
    if (!sync) {
      WalkResult nested = op.walk([&](Operation *inner) {
        return isSync(inner) ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (nested.wasInterrupted()) {
        auto loop = dyn_cast<scf::ForOp>(op);
        if (!loop || loop.getNumResults() != 0)
          return op.emitError(
              "a CTA barrier or pipeline wait inside this op of an "
              "axe.partition needs the partitions to run concurrently; the "
              "CPU target runs them round by round between such "
              "synchronization points, which works for those directly in a "
              "partition and in scf.for loops without results that every "
              "partition runs in lockstep");
        sync = true;
      }
    }
    if (sync) {
      split.syncs.push_back(&op);
      split.segments.emplace_back();
      // A pipeline's acquire or wait checks its stage where its partition
      // resumes: after the rounds of the other partitions before it.
      if (isa<PipelineAcquireOp, PipelineWaitOp>(op))
        split.segments.back().push_back(&op);
    } else {
      split.segments.back().push_back(&op);
    }
  }
  return split;
}

bool sameBound(OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  if (ca || cb)
    return ca == cb;
  return a == b;
}

/// Moves the ops of `blocks` (one per partition) before `before`, round by
/// round: the ops of every partition up to its next synchronization point,
/// then the next round. All partitions reach CTA barrier k before any passes
/// it, so this order is one the barriers allow. Loops holding barriers are
/// fused into one loop whose body is interleaved the same way.
LogicalResult interleave(ArrayRef<Block *> blocks, Operation *before) {
  SmallVector<SyncSplit> splits;
  for (Block *block : blocks) {
    FailureOr<SyncSplit> split = splitAtSyncs(*block);
    if (failed(split))
      return failure();
    splits.push_back(std::move(*split));
  }
  for (size_t p = 1; p < splits.size(); ++p) {
    if (splits[p].syncs.size() != splits[0].syncs.size())
      return before->emitError("the partitions reach different numbers of "
                               "CTA barriers and pipeline waits (")
             << splits[0].syncs.size() << " and " << splits[p].syncs.size()
             << " synchronization points), so they cannot run round by round";
    for (auto [mine, first] : llvm::zip(splits[p].syncs, splits[0].syncs)) {
      auto a = dyn_cast<scf::ForOp>(mine), b = dyn_cast<scf::ForOp>(first);
      if (bool(a) != bool(b))
        return mine->emitError("the partitions reach this ")
               << (a ? "loop" : "barrier") << " where another reaches a "
               << (b ? "loop" : "barrier")
               << " with CTA barriers or pipeline waits; they cannot run round "
                  "by "
                  "round";
      if (a && !(sameBound(a.getLowerBound(), b.getLowerBound()) &&
                 sameBound(a.getUpperBound(), b.getUpperBound()) &&
                 sameBound(a.getStep(), b.getStep())))
        return mine->emitError("this loop with CTA barriers or pipeline waits "
                               "must run in lockstep "
                               "with the other "
                               "partitions' loop, but their bounds differ");
    }
  }
  size_t numRounds = splits.empty() ? 0 : splits[0].segments.size();
  for (size_t r = 0; r < numRounds; ++r) {
    for (SyncSplit &split : splits)
      for (Operation *op : split.segments[r])
        op->moveBefore(before);
    if (r + 1 == numRounds)
      break;
    auto first = dyn_cast<scf::ForOp>(splits[0].syncs[r]);
    if (!first)
      continue; // A barrier: nothing to run.
    // One loop for all partitions: its iterations are the rounds of the
    // partitions' iterations.
    OpBuilder b(before);
    auto fused = scf::ForOp::create(b, first.getLoc(), first.getLowerBound(),
                                    first.getUpperBound(), first.getStep());
    SmallVector<Block *> bodies;
    for (SyncSplit &split : splits) {
      auto loop = cast<scf::ForOp>(split.syncs[r]);
      loop.getInductionVar().replaceAllUsesWith(fused.getInductionVar());
      bodies.push_back(loop.getBody());
    }
    if (failed(interleave(bodies, fused.getBody()->getTerminator())))
      return failure();
  }
  return success();
}

} // namespace

/// Runs the partitions of a warp specialization round by round between CTA
/// barriers (interleave). Operators inside were already dispatched to loops
/// over the partition's warps; what remains in the partitions afterwards
/// (barriers, emptied loops) is erased with the op.
LogicalResult lowerCPUWarpSpecialize(WarpSpecializeOp ws) {
  SmallVector<Block *> blocks;
  for (Operation &op : ws.getBody().front()) {
    auto partition = dyn_cast<PartitionOp>(op);
    if (!partition)
      return op.emitError("axe.warp_specialize may hold only axe.partition "
                          "on the CPU target");
    blocks.push_back(&partition.getBody().front());
  }
  if (failed(interleave(blocks, ws)))
    return failure();
  ws->erase();
  return success();
}

} // namespace axe
