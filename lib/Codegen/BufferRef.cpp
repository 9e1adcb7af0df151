//===- BufferRef.cpp - Buffers resolved through views and slices ----------===//

#include "axe/Codegen/BufferRef.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <cstdlib>
#include <numeric>

using namespace mlir;

namespace axe {

Result<BufferChain> walkBufferChain(Value buffer) {
  BufferChain chain;
  Value cur = buffer;
  while (auto slice = cur.getDefiningOp<SliceOp>()) {
    chain.slices.push_back(slice);
    cur = slice.getSource();
  }
  Operation *def = cur.getDefiningOp();
  if (!def || !isa<AllocOp, ViewOp>(def))
    return fail("the buffer is not an axe.alloc or axe.view (or a slice of "
                "one), so its memory cannot be found");
  chain.root = def;
  return chain;
}

Result<BufferRef> resolveBuffer(OpBuilder &b, Location loc, Value buffer) {
  auto chain = walkBufferChain(buffer);
  if (!chain)
    return chain.takeFailure();
  auto type = cast<BufferType>(buffer.getType());
  BufferRef ref;
  ref.root = chain->root;
  ref.layout = type.getLayout();
  ref.shape.assign(type.getShape().begin(), type.getShape().end());
  ref.elementType = type.getElementType();
  // Run-time starts add their contribution, by the layout of the buffer they
  // slice, before any swizzle.
  int64_t alignment = 0;
  for (SliceOp slice : chain->slices) {
    auto srcType = cast<BufferType>(slice.getSource().getType());
    auto emitter = LayoutEmitter::get(srcType.getLayout(), srcType.getShape());
    if (!emitter)
      return emitter.takeFailure();
    for (auto [dim, start] : llvm::enumerate(slice.getMixedStarts())) {
      auto v = dyn_cast<Value>(start);
      if (!v)
        continue;
      emitter->addDimContribution(b, loc, dim, v, ref.offset);
      // The contribution is a sum of multiples of the dim's strides on m.
      for (const Iter &it : emitter->grouped().block(dim))
        if (it.axis == kDefaultAxis && it.extent > 1)
          alignment = std::gcd(alignment, std::abs(it.stride));
    }
  }
  ref.offsetAlignment = alignment;
  return ref;
}

Value emitFlatView(OpBuilder &b, Location loc, ViewOp view, Value source,
                   int64_t lo, int64_t size, MemRefType flatType) {
  // The view's verifier made sure the memref is strided.
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  (void)cast<MemRefType>(source.getType())
      .getStridesAndOffset(strides, staticOffset);
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, source);
  Value offset = meta.getOffset();
  if (lo != 0)
    offset = arith::AddIOp::create(b, loc, offset,
                                   arith::ConstantIndexOp::create(b, loc, lo));
  for (auto [i, off] : llvm::enumerate(view.getMixedOffsets())) {
    Value stride = ShapedType::isDynamic(strides[i])
                       ? Value(meta.getStrides()[i])
                       : arith::ConstantIndexOp::create(b, loc, strides[i]);
    Value start = getValueOrCreateConstantIndexOp(b, loc, off);
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, start, stride));
  }
  return memref::ReinterpretCastOp::create(
      b, loc, flatType, meta.getBaseBuffer(), OpFoldResult(offset),
      ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

bool isBufferCast(Operation *op) {
  auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
  return cast && cast->getNumOperands() == 1 && cast->getNumResults() == 1 &&
         isa<BufferType>(cast->getOperand(0).getType()) &&
         isa<MemRefType>(cast->getResult(0).getType());
}

Value createTokenPlaceholder(OpBuilder &b, Location loc) {
  return UnrealizedConversionCastOp::create(
             b, loc, TypeRange{b.getType<TokenType>()}, ValueRange())
      .getResult(0);
}

bool isTokenPlaceholder(Operation *op) {
  auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
  return cast && cast->getNumOperands() == 0 && cast->getNumResults() == 1 &&
         isa<TokenType>(cast->getResult(0).getType());
}

void replaceTokenWithPlaceholder(Value token, RewriterBase &rw) {
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(token.getDefiningOp());
  rw.replaceAllUsesWith(token, createTokenPlaceholder(rw, token.getLoc()));
}

} // namespace axe
