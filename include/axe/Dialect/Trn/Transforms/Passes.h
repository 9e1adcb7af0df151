//===- Passes.h - Passes on the trn dialect ---------------------*- C++ -*-===//

#ifndef AXE_DIALECT_TRN_TRANSFORMS_PASSES_H
#define AXE_DIALECT_TRN_TRANSFORMS_PASSES_H

#include "axe/Dialect/Trn/IR/TrnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace axe::trn {

#define GEN_PASS_DECL
#include "axe/Dialect/Trn/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "axe/Dialect/Trn/Transforms/Passes.h.inc"

} // namespace axe::trn

#endif // AXE_DIALECT_TRN_TRANSFORMS_PASSES_H
