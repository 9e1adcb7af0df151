//===- AxeToNVVM.h - The NVIDIA backend -------------------------*- C++ -*-===//
//
// axe kernels on NVIDIA GPUs: the schedules of the `nvvm` backend (each
// thread runs its own share of a collective operator, found from the
// operands' layouts), convert-axe-to-nvvm (every axe.kernel becomes a
// gpu.func in a gpu.module and a gpu.launch_func in its host function) and
// the axe-to-nvvm / axe-to-ptx pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CONVERSION_AXETONVVM_AXETONVVM_H
#define AXE_CONVERSION_AXETONVVM_AXETONVVM_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace axe {

struct Backend;

/// The nvvm backend: its schedules, the dialects they emit and its
/// TargetCodegen, for axe-to-nvvm's dispatch and a tool's.
Backend nvvmBackend();

struct AxeToNVVMOptions {
  /// The target name (sm_80, sm_90, sm_100a); empty: the module's
  /// #axe.target.
  std::string chip;
};

/// axe-dispatch for the chip, convert-axe-to-nvvm, canonicalize and cse: the
/// level axe-gpu-run interprets.
void buildAxeToNVVMPipeline(mlir::OpPassManager &pm,
                            const AxeToNVVMOptions &options = {});

struct AxeToPTXOptions : AxeToNVVMOptions {
  /// gpu-module-to-binary's format: isa (PTX text), bin or fatbin.
  std::string format = "isa";
  /// Where ptxas lives for bin/fatbin.
  std::string toolkit = "/usr/local/cuda";
};

/// axe-to-nvvm, then upstream's lowering of gpu.modules to NVVM and
/// gpu-module-to-binary, for the chip and PTX version each module's
/// #nvvm.target names.
void buildAxeToPTXPipeline(mlir::OpPassManager &pm,
                           const AxeToPTXOptions &options = {});

/// The pass, the pipelines and the backend.
void registerAxeToNVVM();

} // namespace axe

#endif // AXE_CONVERSION_AXETONVVM_AXETONVVM_H
