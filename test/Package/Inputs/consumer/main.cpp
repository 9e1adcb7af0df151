//===- main.cpp - A program built on the installed axe-mlir package -------===//
//
// Uses the three layers a client needs: the target descriptions, the dialect
// (parse and verify a kernel, read layouts through the C++ accessors) and a
// pass (canonicalize the layouts), plus the layout library underneath.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"
#include "axe/InitAllDialects.h"
#include "axe/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

static const char *kKernel = R"mlir(
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @stage(%A: memref<64x64xf16>) {
    axe.kernel grid [1] threads 128 {
      %g = axe.view %A[0, 0] : memref<64x64xf16>
          -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      %s = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(8, 8, 64) : (512, 64, 1)]>, shared>
      axe.copy %g to %s at cta
          : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
            to !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(8, 8, 64) : (512, 64, 1)]>, shared>
      %r = axe.alloc : !axe.buffer<128xf32, #axe.layout<S[(2, 2, 32) : (2@warpid, 1@warpid, 1@laneid)]>, reg>
    }
    return
  }
}
)mlir";

int main() {
  axe::Result<const axe::TargetDescription *> target =
      axe::lookupTarget("sm_80");
  if (!target)
    return 1;
  llvm::outs() << "target " << (*target)->name << ": " << (*target)->warpSize
               << " lanes per warp, shared "
               << (*target)->findMemorySpace("shared")->capacityBytes
               << " bytes per cta\n";

  mlir::DialectRegistry registry;
  axe::registerAllAxeDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kKernel, &context);
  if (!module)
    return 1;
  unsigned kernels = 0;
  module->walk([&](axe::KernelOp) { ++kernels; });
  llvm::outs() << "parsed and verified " << kernels << " kernel\n";

  mlir::PassManager pm(&context);
  pm.addPass(axe::createAxeCanonicalizeLayouts());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->walk([](axe::AllocOp alloc) {
    llvm::outs() << "alloc: " << alloc.getType().getLayout().str() << "\n";
  });

  // The layout library directly: rows [32, 64) of a row-major 64x64 tile.
  axe::Result<axe::Layout> rowMajor = axe::parseLayout("S[(64, 64) : (64, 1)]");
  if (!rowMajor)
    return 1;
  axe::Result<axe::TileLayout> rows = axe::slice(
      rowMajor->tile(), {64, 64}, llvm::ArrayRef<int64_t>{32, 0}, {32, 64});
  if (!rows)
    return 1;
  llvm::outs() << "slice: " << rows->str() << "\n";
  return 0;
}
