//===- InitAllPasses.h - Register the passes of axe-mlir --------*- C++ -*-===//
//
// registerAxePasses() (generated from Passes.td, declared in
// axe/Dialect/Axe/Transforms/Passes.h) registers the passes on the axe
// dialect; registerAllAxePasses() adds every other pass and pipeline the
// project defines.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_INITALLPASSES_H
#define AXE_INITALLPASSES_H

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToNVVM/AxeToNVVM.h"
#include "axe/Conversion/AxeToTrn/AxeToTrn.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"

namespace axe {

/// Every pass and pipeline axe-mlir defines.
inline void registerAllAxePasses() {
  registerAxePasses();
  // convert-axe-to-cpu, the axe-to-cpu pipeline and the CPU schedules.
  registerAxeToCPU();
  // convert-axe-to-nvvm, the axe-to-nvvm / axe-to-ptx pipelines and the
  // nvvm schedules.
  registerAxeToNVVM();
  // convert-axe-to-trn, the axe-to-trn pipeline and the trn schedules.
  registerAxeToTrn();
  // trn-assign-addresses, trn-multi-buffer.
  trn::registerTrnPasses();
}

} // namespace axe

#endif // AXE_INITALLPASSES_H
