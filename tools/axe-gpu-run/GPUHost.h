//===- GPUHost.h - axe-gpu-run's host side ----------------------*- C++ -*-===//
//
// Runs a module's host entry point on the JIT, as mlir-runner does, with
// every gpu.launch_func interpreted by the GPUSim library on the host's
// own buffers.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TOOLS_AXE_GPU_RUN_GPUHOST_H
#define AXE_TOOLS_AXE_GPU_RUN_GPUHOST_H

#include "axe/GPUSim/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace axe::gpusim {

struct HostOptions {
  std::string entryPoint = "main";
  std::string entryPointResult = "void";
  std::vector<std::string> sharedLibs;
  std::string statsFile;
  RunOptions run;
};

/// Merges `extra` into `into`: a private declaration in one is replaced by
/// the definition of the same name in the other; other clashes fail.
mlir::LogicalResult mergeModules(mlir::ModuleOp into, mlir::ModuleOp extra);

/// Runs the host program. Returns the process's exit status; a kernel that
/// fails ends the process with status 1 after its diagnostic.
int runHost(mlir::ModuleOp module, const HostOptions &options);

void registerGPUHostDialects(mlir::DialectRegistry &registry);

} // namespace axe::gpusim

#endif // AXE_TOOLS_AXE_GPU_RUN_GPUHOST_H
