//===- AxeOpsInternal.h - Helpers of the op verifiers -----------*- C++ -*-===//
//
// The verifiers of the axe ops are split by concern (AxeOps.cpp,
// KernelOps.cpp, BufferOps.cpp, OperatorOps.cpp); the few helpers more than
// one of them needs are declared here. Not installed.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_DIALECT_AXE_IR_AXEOPSINTERNAL_H
#define AXE_LIB_DIALECT_AXE_IR_AXEOPSINTERNAL_H

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/Placement.h"

#include <string>

namespace axe::detail {

/// The description of the target `op` is compiled for (getTargetAttr), or
/// null when no target is named.
const TargetDescription *getTargetDescription(mlir::Operation *op);

inline llvm::StringRef scopeName(ScopeKind kind) {
  return stringifyScopeKind(kind);
}

// Every scope name starts with a consonant sound.
inline std::string withArticle(ScopeKind kind) {
  return "a " + scopeName(kind).str();
}

/// Whether `a` and `b` certainly share elements: the same value, or
/// overlapping boxes of one buffer. (Disjoint boxes may still alias through
/// a layout that maps several coordinates to one place; that is allowed.)
bool mustOverlap(mlir::Value a, mlir::Value b);

/// Whether `a` and `b` certainly are the same elements in the same order:
/// the same value, or equal boxes of one buffer.
bool sameElements(mlir::Value a, mlir::Value b);

} // namespace axe::detail

#endif // AXE_LIB_DIALECT_AXE_IR_AXEOPSINTERNAL_H
