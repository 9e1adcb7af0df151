//===- InitAllDialects.h - Register the dialects of axe-mlir ----*- C++ -*-===//
//
// Entry points for drivers and for projects that embed axe: the project's
// own dialects, and the upstream dialects its passes produce or consume.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_INITALLDIALECTS_H
#define AXE_INITALLDIALECTS_H

#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Dialect/Trn/IR/TrnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"

namespace axe {

/// The dialects axe-mlir defines.
inline void registerAxeDialects(mlir::DialectRegistry &registry) {
  registry.insert<axe::AxeDialect, axe::trn::TrnDialect>();
}

/// The upstream dialects that axe kernels use (func, arith, scf, memref,
/// vector, math) or that its lowerings produce (gpu, nvgpu, nvvm, llvm, the
/// dlti entry that names the MPI library),
/// with the upstream extensions their conversions need.
inline void registerAxeUpstreamDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::arith::ArithDialect, mlir::DLTIDialect,
                  mlir::func::FuncDialect, mlir::gpu::GPUDialect,
                  mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::mpi::MPIDialect,
                  mlir::NVVM::NVVMDialect, mlir::nvgpu::NVGPUDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  mlir::registerAllExtensions(registry);
}

/// Everything a driver such as axe-opt needs.
inline void registerAllAxeDialects(mlir::DialectRegistry &registry) {
  registerAxeDialects(registry);
  registerAxeUpstreamDialects(registry);
}

} // namespace axe

#endif // AXE_INITALLDIALECTS_H
