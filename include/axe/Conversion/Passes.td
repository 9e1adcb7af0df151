//===- Passes.td - Conversions out of the axe dialect ------*- tablegen -*-===//

#ifndef AXE_CONVERSION_PASSES_TD
#define AXE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// AxeToCPU
//===----------------------------------------------------------------------===//

def ConvertAxeToCPU : Pass<"convert-axe-to-cpu", "mlir::ModuleOp"> {
  let summary = "Lower kernels and buffers to loops and memrefs for the CPU";
  let description = [{
    Runs after `axe-dispatch{target=cpu}` has rewritten every collective
    operator. A kernel becomes an `scf.parallel` over its grid (a CTA runs
    as one CPU thread, so `axe.axis_id` of a grid axis is a loop variable);
    `axe.alloc` becomes flat memory holding every coordinate its layout
    reaches (thread axes included, so registers of all threads of a CTA are
    one array); `axe.view` becomes a flat view of its memref starting at
    the tile; slices, barriers and waits disappear (their offsets were
    folded into addresses by the schedules, and a CTA is one thread).
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

#endif // AXE_CONVERSION_PASSES_TD
