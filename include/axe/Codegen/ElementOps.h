//===- ElementOps.h - Element casts, identities, combiners ------*- C++ -*-===//
//
// Arithmetic on elements that every backend's reduce, gemm and copy need: the
// cast between element types, the identity and combiner of a reduction, and
// which element types a vector moves exactly as scalars do.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_ELEMENTOPS_H
#define AXE_CODEGEN_ELEMENTOPS_H

#include "axe/Dialect/Axe/IR/AxeDialect.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace axe {

/// How a reduction combines two elements.
enum class Combiner { Sum, Max, Min, Prod };

/// The combiner of the dialect's reduce kind.
Combiner combinerOf(ReduceKind kind);

/// Whether a vector of `elt` occupies memory exactly as that many scalar
/// `elt`s do (only 8/16/32/64-bit element types and index).
bool vectorMatchesScalarMemory(mlir::Type elt);

/// Lanes of a vector of `elt` in a register of `lanes32` 32-bit lanes; 1 for
/// element types that must move element by element.
int64_t lanesFor(mlir::Type elt, int64_t lanes32);

/// Converts a scalar or vector of one element type to another (ext, trunc,
/// int <-> float); identity when equal.
mlir::Value castElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type elementType);

/// The identity of a reduction for an element type. Integers compare
/// signed, except i1, where false < true: max of i1 is "any", min "all".
mlir::Value reductionIdentity(mlir::OpBuilder &b, mlir::Location loc,
                              Combiner kind, mlir::Type elementType);

mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc, Combiner kind,
                    mlir::Value x, mlir::Value y);

/// The vector dialect's name for a combiner over elements of `elementType`
/// (ordered as reductionIdentity says).
mlir::vector::CombiningKind combiningKind(Combiner kind,
                                          mlir::Type elementType);

} // namespace axe

#endif // AXE_CODEGEN_ELEMENTOPS_H
