//===- AxeToTrn.h - The trn backend and its pipeline ------------*- C++ -*-===//
//
// axe kernels for a Trainium target (trn1) become trn instructions: the
// operators by the schedules of the trn backend (axe-dispatch), the kernel
// by convert-axe-to-trn, which moves it into a function of its own (the
// trn kernel, `trn.kernel`) that its host function calls. docs/Trn.md
// describes both.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CONVERSION_AXETOTRN_AXETOTRN_H
#define AXE_CONVERSION_AXETOTRN_AXETOTRN_H

#include "mlir/Pass/PassManager.h"

#include <memory>

namespace axe {

struct Backend;

/// The trn backend: its schedules, the dialects they emit and its
/// TargetCodegen, for axe-to-trn's dispatch and a tool's.
Backend trnBackend();

struct AxeToTrnOptions {
  /// Buffers of each rotated loop tile (trn-multi-buffer); 1 turns it off.
  int64_t buffers = 2;
  /// Most stages of trn-software-pipeline; 1 turns it off.
  int64_t stages = 5;
};

/// axe-dispatch{target=trn1}, convert-axe-to-trn, trn-multi-buffer,
/// canonicalize and cse, trn-software-pipeline, canonicalize and cse,
/// trn-balance-engines, trn-assign-addresses.
void buildAxeToTrnPipeline(mlir::OpPassManager &pm,
                           const AxeToTrnOptions &options = {});

/// convert-axe-to-trn, the axe-to-trn pipeline and the trn backend.
void registerAxeToTrn();

} // namespace axe

#endif // AXE_CONVERSION_AXETOTRN_AXETOTRN_H
