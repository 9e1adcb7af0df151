//===- InitAllPasses.h - Register the passes of axe-mlir --------*- C++ -*-===//
//
// registerAxePasses() (generated from Passes.td, declared in
// axe/Dialect/Axe/Transforms/Passes.h) registers the passes on the axe
// dialect; registerAllAxePasses() adds every other pass and pipeline the
// project defines. axe-dispatch on its own dispatches with the three
// backends the tool links; each pipeline uses its own backend only.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_INITALLPASSES_H
#define AXE_INITALLPASSES_H

#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToNVVM/AxeToNVVM.h"
#include "axe/Conversion/AxeToTrn/AxeToTrn.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"

namespace axe {

/// Every pass and pipeline axe-mlir defines.
inline void registerAllAxePasses() {
  registerAxePasses();
  // axe-dispatch and axe-insert-barriers.
  registerCodegenPasses(BackendSet{cpuBackend(), nvvmBackend(), trnBackend()});
  // convert-axe-to-cpu and the axe-to-cpu pipeline.
  registerAxeToCPU();
  // convert-axe-to-nvvm and the axe-to-nvvm / axe-to-ptx pipelines.
  registerAxeToNVVM();
  // convert-axe-to-trn and the axe-to-trn pipeline.
  registerAxeToTrn();
  // trn-assign-addresses, trn-multi-buffer.
  trn::registerTrnPasses();
}

} // namespace axe

#endif // AXE_INITALLPASSES_H
