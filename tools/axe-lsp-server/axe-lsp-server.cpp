//===- axe-lsp-server.cpp - Language server for axe IR --------------------===//
//
// Diagnostics, hover, go-to-definition and completion for .mlir files that
// use the axe dialect, through MLIR's LSP server.
//
//===----------------------------------------------------------------------===//

#include "axe/InitAllDialects.h"

#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  axe::registerAllAxeDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
