//===- BufferRef.cpp - Buffers resolved through views and slices ----------===//

#include "axe/Codegen/BufferRef.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cstdlib>
#include <limits>
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

/// |x| as a divisor: 1 (which divides anything) where |x| does not fit.
static int64_t absDivisor(int64_t x) {
  return x == std::numeric_limits<int64_t>::min() ? 1 : std::abs(x);
}

/// A divisor of x * y from divisors a of x and b of y: a * b, or 1 where
/// that overflows (fuzzed kernels have starts near 2^63).
static int64_t mulDivisor(int64_t a, int64_t b) {
  int64_t product;
  if (a == 0 || b == 0)
    return 0;
  return __builtin_mul_overflow(a, b, &product) ? 1 : product;
}

int64_t viewOffsetDivisor(ViewOp view) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(cast<MemRefType>(view.getSource().getType())
                 .getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return 1;
  int64_t divisor = absDivisor(offset);
  for (auto [i, start] : llvm::enumerate(view.getMixedOffsets())) {
    if (ShapedType::isDynamic(strides[i]))
      return 1;
    int64_t d = isa<Attribute>(start) ? absDivisor(*getConstantIntValue(start))
                                      : getKnownAlignment(cast<Value>(start));
    divisor = std::gcd(divisor, mulDivisor(d, absDivisor(strides[i])));
  }
  return divisor;
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
      // The contribution is a sum of multiples of the dim's strides on m,
      // each digit of the start's a multiple of what divides the start
      // when the dim is one iter (a start of 8 k moves 8 k strides).
      ArrayRef<Iter> iters = emitter->grouped().block(dim);
      int64_t startDivisor = iters.size() == 1 ? getKnownAlignment(v) : 1;
      for (const Iter &it : iters)
        if (it.axis == kDefaultAxis && it.extent > 1)
          alignment =
              std::gcd(alignment, mulDivisor(std::max<int64_t>(startDivisor, 1),
                                             absDivisor(it.stride)));
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
