//===- BufferRef.h - Buffers resolved through views and slices --*- C++ -*-===//
//
// An operator's buffer operand is an axe.alloc or axe.view, or a chain of
// axe.slice ops on one. Every backend needs the same two answers about it:
// which op holds its memory (the root of the chain), and where the operand
// sits in that memory. Static slice starts are folded into the operand's
// layout by the slice's type; dynamic starts become run-time offsets, each
// the start's contribution by the layout of the buffer it slices, before any
// swizzle. Which memories and axes a target has stays in the backends.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_BUFFERREF_H
#define AXE_CODEGEN_BUFFERREF_H

#include "axe/Codegen/LayoutEmitter.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/SmallVector.h"

namespace axe {

/// The op that holds a buffer's memory, and the slices on the way to it
/// (outermost first: slices[0] defines the buffer itself when there is one).
struct BufferChain {
  /// An axe.alloc or axe.view.
  mlir::Operation *root = nullptr;
  llvm::SmallVector<SliceOp> slices;
};

/// Walks `buffer` through axe.slice ops to the axe.alloc or axe.view that
/// holds its memory; fails, saying why, when the chain ends elsewhere (a
/// block argument, another op).
Result<BufferChain> walkBufferChain(mlir::Value buffer);

/// A buffer as the code generators see it: the layout, shape and element
/// type of its own type, the op holding its memory, and the run-time offset
/// of its dynamic slice starts within that memory.
struct BufferRef {
  /// An axe.alloc or axe.view.
  mlir::Operation *root = nullptr;
  Layout layout;
  Shape shape;
  mlir::Type elementType;
  /// Run-time offsets added before the swizzle (dynamic slice starts); empty
  /// when every start is static.
  CoordValue offset;
  /// A known divisor of `offset` on m (0 when there is none), so swizzled
  /// vector accesses can be proven not to cross a swizzle block.
  int64_t offsetAlignment = 0;
};

/// A number that provably divides the element offset of `view`'s first
/// element in its memref (the starts times the strides, plus the memref's
/// own offset): 0 when that offset is 0, 1 when nothing is known (a dynamic
/// stride or memref offset).
int64_t viewOffsetDivisor(ViewOp view);

/// Resolves `buffer` (walkBufferChain), emitting the offsets of its dynamic
/// slice starts at `b`'s insertion point.
Result<BufferRef> resolveBuffer(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value buffer);

/// A view as the schedules address it: `source` (the memref it takes, in its
/// lowered type) seen as `flatType`, a rank-1 memref of `size` elements
/// starting at the view's first element plus `lo`, the lowest coordinate
/// its tile reaches on m (below the first element where a stride is
/// negative).
mlir::Value emitFlatView(mlir::OpBuilder &b, mlir::Location loc, ViewOp view,
                         mlir::Value source, int64_t lo, int64_t size,
                         mlir::MemRefType flatType);

/// An unrealized cast a schedule made from a buffer's root (axe.alloc or
/// axe.view) to the flat memref it addresses; the backend's conversion
/// resolves it to the memory it gives the root.
bool isBufferCast(mlir::Operation *op);

/// The placeholder a copy's token becomes where the copy has completed
/// when its code returns: the token carries nothing, and the backend's
/// conversion drops it with the waits on it.
mlir::Value createTokenPlaceholder(mlir::OpBuilder &b, mlir::Location loc);
bool isTokenPlaceholder(mlir::Operation *op);
/// Gives every use of `token` (the result of an async operator) a
/// placeholder created before its operator.
void replaceTokenWithPlaceholder(mlir::Value token, mlir::RewriterBase &rw);

} // namespace axe

#endif // AXE_CODEGEN_BUFFERREF_H
