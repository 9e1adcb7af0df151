//===- SIMTDistribute.cpp - Threads sharing memory-to-memory work ---------===//
//
// Memory-to-memory copies and fills split round robin over the threads of
// a scope instance: vector accesses where both operands are contiguous and
// aligned, cp.async for global to shared copies where the target has it.
//
//===----------------------------------------------------------------------===//

#include "SIMT.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

#include <limits>

using namespace mlir;

namespace axe::nvvm {

//===----------------------------------------------------------------------===//
// Threads sharing memory-to-memory work
//===----------------------------------------------------------------------===//

/// Whether accesses of `lanes` consecutive elements of `op` start on a
/// multiple of `lanes` elements wherever the layout says they do: the
/// view's start in its memref and the run-time slice starts must be
/// multiples of `lanes` too (vector and cp.async accesses of 8 or 16 bytes
/// fault on a GPU when misaligned). Memory bases (cudaMalloc's 256 bytes,
/// shared buffers' 128) are taken as aligned.
bool startsAligned(const GPUOperand &op, int64_t lanes) {
  if (auto view = dyn_cast<ViewOp>(op.ref.root)) {
    int64_t d = viewOffsetDivisor(view);
    if (d != 0 && d % lanes != 0)
      return false;
  }
  if (!op.ref.offset.entries().empty() &&
      (op.ref.offsetAlignment == 0 || op.ref.offsetAlignment % lanes != 0))
    return false;
  return true;
}

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
  bool distributed = dst.isDistributed() || (src && src->isDistributed());
  if (!space.loops().empty() && sameShape && !distributed &&
      vectorMatchesScalarMemory(elt) &&
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
      // Wide accesses fault on a GPU unless they start aligned: in the
      // layout (offset, other strides) and at run time.
      if (!alignedAlong(space, inner, 0, l, /*replicas=*/true) ||
          !startsAligned(dst, l) ||
          (src && (!alignedAlong(space, inner, 1, l, /*replicas=*/false) ||
                   !startsAligned(*src, l))))
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
  bool async =
      src && sameShape && !distributed && useCpAsync(target, dst, *src, lanes);
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
    value = castElements(b, loc, src->loadAt(b, loc, p, lanes), elt);
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
        dst.storeAt(ib, il, p, value);
      });
}

} // namespace axe::nvvm
