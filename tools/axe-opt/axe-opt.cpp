//===- axe-opt.cpp - Parse, verify, transform and print axe IR ------------===//

#include "axe/InitAllDialects.h"
#include "axe/InitAllPasses.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  axe::registerAllAxeDialects(registry);
  axe::registerAllAxePasses();
  // Upstream passes, so that one driver runs whole pipelines in lit tests.
  mlir::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "axe-mlir optimizer driver\n", registry));
}
