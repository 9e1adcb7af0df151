//===- axe-opt.cpp - Parse, verify, transform and print axe IR ------------===//

#include "axe/InitAllDialects.h"
#include "axe/InitAllPasses.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  axe::registerAllAxeDialects(registry);
  // gpu-module-to-binary (axe-to-ptx) translates gpu.modules to LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  axe::registerAllAxePasses();
  // Upstream passes, so that one driver runs whole pipelines in lit tests.
  mlir::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "axe-mlir optimizer driver\n", registry));
}
