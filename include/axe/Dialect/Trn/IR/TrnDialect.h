//===- TrnDialect.h - The trn dialect, its enums and attributes -*- C++ -*-===//
//
// Everything about the trn dialect except its operations (TrnOps.h): the
// dialect class, the enums (memory spaces, engines, ALU operations,
// activation functions) and their attributes, and helpers that say where a
// memref lives and which engine may touch which memory.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_DIALECT_TRN_IR_TRNDIALECT_H
#define AXE_DIALECT_TRN_IR_TRNDIALECT_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include <optional>

#include "axe/Dialect/Trn/IR/TrnEnums.h.inc"

#include "axe/Dialect/Trn/IR/TrnDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "axe/Dialect/Trn/IR/TrnAttrs.h.inc"

namespace axe::trn {

/// The memory a memref lives in: its `#trn.space<...>` memory space, or
/// std::nullopt when it has none.
std::optional<MemorySpace> getMemorySpace(mlir::MemRefType type);

/// The memref type of `shape` x `elementType` in `space`, row-major.
/// Bytes of each partition a tile's elements take (its free dims, whole
/// bytes per element).
int64_t getBytesPerPartition(mlir::MemRefType type);

mlir::MemRefType getTileType(llvm::ArrayRef<int64_t> shape,
                             mlir::Type elementType, MemorySpace space);

/// Whether `engine` may read (write) `space` on NeuronCore-v2: TensorE
/// reads SBUF and writes PSUM only, VectorE and ScalarE reach both, GpSimd
/// only SBUF; no engine reaches HBM.
bool engineReads(Engine engine, MemorySpace space);
bool engineWrites(Engine engine, MemorySpace space);

/// Whether `op` compares (is_equal ... is_le), is bitwise or a shift, or
/// combines two values as a reduction may (add, multiply, max, min).
bool isComparison(AluOp op);
bool isBitwise(AluOp op);
bool isReduction(AluOp op);

} // namespace axe::trn

#endif // AXE_DIALECT_TRN_IR_TRNDIALECT_H
