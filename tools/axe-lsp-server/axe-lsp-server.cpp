//===- axe-lsp-server.cpp - Language server for axe IR --------------------===//
//
// Diagnostics, hover, go-to-definition and completion for .mlir files that
// use the axe dialect, through MLIR's LSP server.
//
// MLIR's parser descends once per bracket, so a document nesting thousands
// of brackets would run the server out of stack, as it would axe-opt
// (axe/Support/InputNesting.h). The server's API takes no hook between a
// document and the parser, so this tool stands between the editor and the
// server (NestingGuard): it keeps each document's text, hands the server an
// empty one in place of a document that nests too deep, and reports the
// nesting as that document's diagnostic.
//
//===----------------------------------------------------------------------===//

#include "NestingGuard.h"

#include "axe/InitAllDialects.h"

#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  axe::registerAllAxeDialects(registry);
  axe::lsp::NestingGuard guard(argc, argv);
  if (!guard.start())
    return 1;
  bool ok = mlir::succeeded(mlir::MlirLspServerMain(argc, argv, registry));
  guard.finish();
  return ok ? 0 : 1;
}
