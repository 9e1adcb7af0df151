//===- Passes.h - Conversions out of the axe dialect ------------*- C++ -*-===//

#ifndef AXE_CONVERSION_PASSES_H
#define AXE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace axe {

#define GEN_PASS_DECL
#include "axe/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "axe/Conversion/Passes.h.inc"

} // namespace axe

#endif // AXE_CONVERSION_PASSES_H
