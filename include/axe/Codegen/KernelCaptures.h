//===- KernelCaptures.h - What a kernel takes from its function -*- C++ -*-===//
//
// Every backend that moves an axe.kernel into a function of its own (a
// gpu.func, a trn kernel) passes it the values its body uses from the
// enclosing function, and must pass them in an order the host call keeps.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_KERNELCAPTURES_H
#define AXE_CODEGEN_KERNELCAPTURES_H

#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "llvm/ADT/SmallVector.h"

namespace axe {

/// The values `kernel`'s body uses from above: the enclosing function's
/// arguments first, in their order (so the kernel takes its operands as the
/// host function does), then the others in the order the body first uses
/// them.
llvm::SmallVector<mlir::Value> capturedValues(KernelOp kernel);

} // namespace axe

#endif // AXE_CODEGEN_KERNELCAPTURES_H
