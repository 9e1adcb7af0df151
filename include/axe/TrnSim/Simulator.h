//===- Simulator.h - Numerics and timing of trn kernels ---------*- C++ -*-===//
//
// simulate() runs one func.func of trn instructions (with scf.for/scf.if,
// arith on integers and memref.subview views around them) in program
// order. Each instruction computes its values on host buffers, rounded as
// the hardware rounds them, unless timing only is asked; and each is
// placed in time on its engine's in-order queue (DMA transfers on the DMA
// engines), after the instructions whose buffer regions it depends on.
// docs/TrnSim.md describes the model.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TRNSIM_SIMULATOR_H
#define AXE_TRNSIM_SIMULATOR_H

#include "axe/Target/Trn/Cost.h"
#include "axe/Target/Trn/Params.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace axe::trnsim {

struct SimOptions {
  SimParams params;
  /// Compute values (false: time only, no buffers are allocated).
  bool numerics = true;
  /// Seed of the kernel arguments' initial values.
  uint64_t seed = 1;
  /// The kernel arguments' initial values instead (row-major, one vector
  /// per argument, each of the argument's element count): axe-trn-sim's
  /// host mode passes the host's data; `--input` some of them. Rounded to
  /// the element types. An empty vector keeps that argument's seeded
  /// values.
  const std::vector<std::vector<double>> *inputs = nullptr;
  /// Keep one trace event per instruction.
  bool trace = false;
};

struct TraceEvent {
  std::string name;
  std::string track;
  double startNs;
  double durationNs;
};

struct SimResult {
  /// When the last instruction's results are visible.
  double totalNs = 0;
  /// Issue time of each queue; DMA: the mean over the DMA engines.
  std::array<double, kNumUnits> busyNs{};
  /// Stall time of each queue by reason ("wait_dma", "port_psum", ...).
  std::map<std::string, std::map<std::string, double>> stalls;
  /// 2*K*M*N of every matmul.
  double matmulFlops = 0;
  /// Bytes the DMA engines' data paths moved, and those that crossed HBM.
  double dmaBytes = 0, hbmBytes = 0;
  int64_t instructions = 0;
  std::vector<TraceEvent> trace;

  /// Numerics: every kernel argument before and after the run, row-major.
  std::vector<std::vector<double>> initialArgs, finalArgs;

  /// Matmul FLOPs over what TensorE's peak (128x128 MACs a cycle) does in
  /// totalNs.
  double hfu(const SimParams &params) const;
};

/// Simulates `kernel`. Failures (an unsupported operation, a view out of
/// bounds, an allocation past SBUF or PSUM capacity) are reported as
/// diagnostics at the offending operation.
mlir::FailureOr<SimResult> simulate(mlir::func::FuncOp kernel,
                                    const SimOptions &options);

/// The report: {"total_ns", "engines": {unit: {"busy_ns", "utilization"}},
/// "hfu", "stalls": {unit: {reason: ns}}, "dma_bytes", "hbm_bytes"}.
std::string reportJson(const SimResult &result, const SimParams &params);
/// The trace in Chrome's trace event format (Perfetto opens it).
std::string traceJson(const SimResult &result);

} // namespace axe::trnsim

#endif // AXE_TRNSIM_SIMULATOR_H
