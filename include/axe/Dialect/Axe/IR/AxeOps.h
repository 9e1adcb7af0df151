//===- AxeOps.h - Operations of the axe dialect -----------------*- C++ -*-===//

#ifndef AXE_DIALECT_AXE_IR_AXEOPS_H
#define AXE_DIALECT_AXE_IR_AXEOPS_H

#include "axe/Dialect/Axe/IR/AxeDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace axe {
namespace detail {
/// The checks every collective operator shares: the scope can own each
/// buffer, and the scope fits where the operator sits (partition, cluster,
/// target).
mlir::LogicalResult verifyOperatorOp(mlir::Operation *op);
} // namespace detail
} // namespace axe

#include "axe/Dialect/Axe/IR/AxeOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "axe/Dialect/Axe/IR/AxeOps.h.inc"

namespace axe {

/// The target that applies at `op`: the enclosing kernel's, else the nearest
/// ancestor's `axe.target` attribute; null when none names one.
TargetAttr getTargetAttr(mlir::Operation *op);

/// A constant that `value` is known to be a multiple of, from constants,
/// arith.addi / arith.subi / arith.muli, index casts and loop induction
/// variables (lower bound and step); 1 when nothing is known, 0 when the
/// value is known to be 0.
int64_t getKnownAlignment(mlir::Value value);

/// The scope that holds the buffer `value`: getBufferOwner of its type,
/// widened, for register slices, by the thread axes that the run-time starts
/// of the axe.slice ops it comes from move along. Such a start's
/// contribution is not in the slice's layout, but which lane (warp, ...)
/// holds the slice depends on it: a row of a warp's tile at a run-time row
/// on laneid belongs to some lane of the warp, so the warp holds it.
std::optional<BufferOwner> getBufferOwner(mlir::Value value);

/// What is known of an index operand of a slice: its value when constant,
/// otherwise its alignment.
SliceStart getKnownStart(mlir::OpFoldResult start);

/// Checks that an operation running at `scope` fits where it sits: inside a
/// partition no wider than the partition (except a CTA barrier, which every
/// partition issues), warpgroups and clusters only where the target and the
/// kernel have them.
mlir::LogicalResult verifyScopeInContext(mlir::Operation *op, ScopeAttr scope,
                                         bool isBarrier = false);

} // namespace axe

#endif // AXE_DIALECT_AXE_IR_AXEOPS_H
