//===- axe-opt.cpp - Parse, verify, transform and print axe IR ------------===//
//
// mlir-opt with the axe dialects and passes. The input is read here rather
// than by MlirOptMain so that input nesting deeper than the parser's stack
// allows is refused with an error first (axe/Support/InputNesting.h).
//
//===----------------------------------------------------------------------===//

#include "axe/InitAllDialects.h"
#include "axe/InitAllPasses.h"
#include "axe/Support/InputNesting.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::DialectRegistry registry;
  axe::registerAllAxeDialects(registry);
  // gpu-module-to-binary (axe-to-ptx) translates gpu.modules to LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  axe::registerAllAxePasses();
  // Upstream passes, so that one driver runs whole pipelines in lit tests.
  mlir::registerAllPasses();

  // What MlirOptMain(argc, argv, toolName, registry) does, with the nesting
  // check between reading the input and parsing it.
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "axe-mlir optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // --show-dialects and --list-passes print and return before any input is
  // read.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(axe::checkInputNesting(*input, llvm::errs())))
    return EXIT_FAILURE;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  // Keep the output file only when the run succeeded.
  output->keep();
  return EXIT_SUCCESS;
}
