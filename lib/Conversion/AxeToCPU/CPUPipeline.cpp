//===- CPUPipeline.cpp - axe.pipeline on the CPU: counted and checked -----===//
//
// A CTA is one CPU thread and its partitions run round by round, the
// pipeline's acquires and waits being synchronization points like CTA
// barriers (CPUWarpSpecialize.cpp). Nothing waits, then: a pipeline is two
// counters per slot, commits and releases, and each wait and acquire checks
// that the order the rounds gave has made its stage ready. An order that
// has not (a producer that acquires two stages before it commits the
// first, say) stops with the stage it would wait for forever, rather than
// reading a stage that was never filled.
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace axe {
namespace {

constexpr StringLiteral kCommitters = "axe.cpu_committers";
constexpr StringLiteral kReleasers = "axe.cpu_releasers";

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// counter[slot] += 1.
void count(OpBuilder &b, Location loc, Value counter, Value slot) {
  Value n = memref::LoadOp::create(b, loc, counter, slot);
  memref::StoreOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, n,
                            arith::ConstantIntOp::create(b, loc, 1, 64)),
      counter, slot);
}

/// Asserts counter[slot] >= need, with `message` if not.
void require(OpBuilder &b, Location loc, Value counter, Value slot, Value need,
             StringRef message) {
  Value n = memref::LoadOp::create(b, loc, counter, slot);
  Value want = arith::IndexCastOp::create(b, loc, b.getI64Type(), need);
  Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, n, want);
  cf::AssertOp::create(b, loc, ok, message);
}

std::string where(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getLoc();
  return s;
}

} // namespace

void planCPUPipelines(Operation *root) {
  root->walk([](PipelineOp p) {
    Builder b(p.getContext());
    // A partition runs its ops once, whatever its warps.
    p->setAttr(kCommitters, b.getI64IntegerAttr(
                                p.partitionsWith<PipelineCommitOp>().size()));
    p->setAttr(kReleasers, b.getI64IntegerAttr(
                               p.partitionsWith<PipelineReleaseOp>().size()));
  });
}

LogicalResult lowerCPUPipelines(Operation *root) {
  SmallVector<PipelineOp> pipelines;
  root->walk([&](PipelineOp p) { pipelines.push_back(p); });
  IRRewriter rw(root->getContext());
  for (PipelineOp p : pipelines) {
    auto committers = p->getAttrOfType<IntegerAttr>(kCommitters);
    auto releasers = p->getAttrOfType<IntegerAttr>(kReleasers);
    if (!committers || !releasers)
      return p.emitError("cpu: the pipeline was not planned before its "
                         "partitions were interleaved");
    if (StringRef why = p.whyItWouldHang(); !why.empty())
      return p.emitError("cpu: ") << why;
    int64_t stages = p.getType().getStages();
    Location loc = p.getLoc();
    rw.setInsertionPoint(p);
    auto type = MemRefType::get({stages}, rw.getI64Type());
    Value full = memref::AllocaOp::create(rw, loc, type);
    Value empty = memref::AllocaOp::create(rw, loc, type);
    Value zero = arith::ConstantIntOp::create(rw, loc, 0, 64);
    for (int64_t s = 0; s < stages; ++s) {
      memref::StoreOp::create(rw, loc, zero, full, index(rw, loc, s));
      memref::StoreOp::create(rw, loc, zero, empty, index(rw, loc, s));
    }
    for (Operation *user : llvm::to_vector(p->getUsers())) {
      if (!isa<PipelineAcquireOp, PipelineWaitOp, PipelineCommitOp,
               PipelineReleaseOp>(user))
        return user->emitError("cpu: ")
               << user->getName()
               << " takes a pipeline; only the axe.pipeline_* ops may";
      Location at = user->getLoc();
      rw.setInsertionPoint(user);
      Value i = user->getOperand(1);
      Value slot = arith::RemUIOp::create(rw, at, i, index(rw, at, stages));
      Value round = arith::DivUIOp::create(rw, at, i, index(rw, at, stages));
      if (isa<PipelineCommitOp>(user)) {
        count(rw, at, full, slot);
      } else if (isa<PipelineReleaseOp>(user)) {
        count(rw, at, empty, slot);
      } else if (isa<PipelineWaitOp>(user)) {
        // Stage i is full once every committing partition committed it.
        Value need = arith::MulIOp::create(
            rw, at, arith::AddIOp::create(rw, at, round, index(rw, at, 1)),
            index(rw, at, committers.getInt()));
        require(rw, at, full, slot, need,
                "axe.pipeline_wait at " + where(user) +
                    ": the stage is not committed where the CPU's "
                    "round-by-round order of the partitions reaches this "
                    "wait; a GPU would wait, here it would wait forever");
      } else {
        // The slot's previous stage (round - 1) must have been released.
        Value need = arith::MulIOp::create(rw, at, round,
                                           index(rw, at, releasers.getInt()));
        require(rw, at, empty, slot, need,
                "axe.pipeline_acquire at " + where(user) +
                    ": the slot's previous stage is not released where the "
                    "CPU's round-by-round order of the partitions reaches "
                    "this acquire; a GPU would wait, here it would wait "
                    "forever");
      }
      rw.eraseOp(user);
    }
    rw.eraseOp(p);
  }
  return success();
}

} // namespace axe
