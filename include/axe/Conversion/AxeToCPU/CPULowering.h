//===- CPULowering.h - Upstream conversions from loops to llvm --*- C++ -*-===//
//
// The tail of the axe-to-cpu pipeline: what remains after dispatch (scf,
// arith, memref, vector, math, func) converted to the llvm dialect by
// upstream passes, plus helpers to JIT and run the result in-process.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CONVERSION_AXETOCPU_CPULOWERING_H
#define AXE_CONVERSION_AXETOCPU_CPULOWERING_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
class DialectRegistry;
} // namespace mlir

namespace axe {

struct CPUToLLVMOptions {
  /// scf.parallel loops (the grid) become OpenMP worksharing loops; the
  /// program then calls libomp.
  bool openmp = false;
};

/// Appends cleanup (canonicalize, cse) and the upstream conversions of scf,
/// memref, vector, math, arith, index, func and cf (and omp) to the llvm
/// dialect.
void addCPUToLLVMPasses(mlir::OpPassManager &pm,
                        const CPUToLLVMOptions &options = {});

/// The libomp that OpenMP code loads (found at configure time); empty when
/// none was found.
llvm::StringRef openmpRuntimePath();

/// Dialects that code emitted by the CPU schedules uses (to load in a
/// context before building IR, or to declare as dependent dialects).
void registerCPUCodegenDialects(mlir::DialectRegistry &registry);

/// The ConvertToLLVM interfaces of the dialects the CPU code uses, which
/// the convert-to-llvm step of addCPUToLLVMPasses needs in the context
/// (registerCPUCodegenDialects adds them too).
void registerCPULoweringInterfaces(mlir::DialectRegistry &registry);

/// Lowers `module` (already in upstream dialects) to llvm and JIT-compiles
/// it at -O3 for the host. Functions meant to be called from C++ need the
/// `llvm.emit_c_interface` attribute. Returns null and sets `error` on
/// failure. With `options.openmp`, the grid runs through OpenMP and libomp
/// is loaded into the process.
std::unique_ptr<mlir::ExecutionEngine>
lowerAndJIT(mlir::ModuleOp module, std::string &error,
            bool alreadyLowered = false, const CPUToLLVMOptions &options = {});

} // namespace axe

#endif // AXE_CONVERSION_AXETOCPU_CPULOWERING_H
