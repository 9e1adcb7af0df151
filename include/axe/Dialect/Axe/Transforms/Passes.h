//===- Passes.h - Passes on the axe dialect ---------------------*- C++ -*-===//

#ifndef AXE_DIALECT_AXE_TRANSFORMS_PASSES_H
#define AXE_DIALECT_AXE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace axe {

#define GEN_PASS_DECL
#include "axe/Dialect/Axe/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "axe/Dialect/Axe/Transforms/Passes.h.inc"

} // namespace axe

#endif // AXE_DIALECT_AXE_TRANSFORMS_PASSES_H
