//===- HostRun.h - axe-trn-sim's host mode ----------------------*- C++ -*-===//
//
// Runs a module's host entry point on the JIT, as mlir-runner does, with
// every call to a trn kernel (a func.func with the `trn.kernel` attribute)
// simulated on the host's data.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TOOLS_AXE_TRN_SIM_HOSTRUN_H
#define AXE_TOOLS_AXE_TRN_SIM_HOSTRUN_H

#include "axe/TrnSim/Simulator.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace axe::trnsim {

struct HostRunOptions {
  std::string entryPoint = "main";
  std::vector<std::string> sharedLibs;
  /// Options of every launch (inputs are set per launch).
  SimOptions sim;
  /// One line per launch on stderr.
  bool launchSummary = false;
};

/// Runs `entryPoint` of a copy of `module` whose kernel calls go to the
/// simulator, which runs the kernels of `module` itself (keep its source
/// names on it). Returns the exit status; `lastLaunch` is the result of
/// the last kernel launch, if any. A launch that fails to simulate prints
/// its diagnostic and ends the process with status 1.
int runHost(mlir::ModuleOp module, const HostRunOptions &options,
            std::optional<SimResult> &lastLaunch);

/// Registers the dialects host code may use (func, arith, scf, memref,
/// vector, math, cf, llvm...).
void registerHostDialects(mlir::DialectRegistry &registry);

} // namespace axe::trnsim

#endif // AXE_TOOLS_AXE_TRN_SIM_HOSTRUN_H
