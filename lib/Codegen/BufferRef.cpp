//===- BufferRef.cpp - Buffers resolved through views and slices ----------===//

#include "axe/Codegen/BufferRef.h"

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

} // namespace axe
