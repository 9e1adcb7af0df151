//===- Params.h - The named constants of the trn timing model --*- C++ -*-===//
//
// Every number the timing model uses and that is not a hardware limit of
// TrnMachine.h lives here, under a name that `axe-trn-sim --param
// name=value` overrides. Each default cites TRN.md (shared/design/research):
// [O] an official AWS figure, [E] an estimate that calibration may change.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TRNSIM_PARAMS_H
#define AXE_TRNSIM_PARAMS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace axe::trnsim {

struct SimParams {
  // Engine clocks in GHz [O, TRN.md 2.1].
  double tensorGhz = 2.8;
  double vectorGhz = 1.12;
  double scalarGhz = 1.4;
  double gpsimdGhz = 1.4;

  // Minimum instruction interval of Vector/Scalar/GpSimd, cycles [O, 1.4].
  double minII = 64;
  // fp32/tf32 matmuls take this many times the bf16 cycles [O, 1.4].
  double matmulFp32Factor = 4;
  // GpSimd's start-up cycles of iota / affine_select [O, 1.4].
  double gpsimdStart = 150;
  // An innermost stride above 16 bytes halves the SBUF/PSUM interface
  // bandwidth [O, 1.3]: the instruction takes this factor longer.
  double strideFactor = 2;

  // Cycles from the end of an instruction's issue interval to its result
  // being readable (pipeline depth) [E, 2.5]. ScalarE: 264 - 64 cycles so
  // that back-to-back dependent 1-element activations take 264 [O, 2.1].
  double tensorLatency = 64;
  double vectorLatency = 100;
  double scalarLatency = 200;
  double gpsimdLatency = 100;

  // Semaphore latency of a dependency between two compute engines, ns [E].
  double semNs = 50;

  // DMA: engines per NeuronCore [O, 2.3], each serving 8 partitions, with
  // 16 queues in-order per engine [O, 2.3].
  double dmaEngines = 16;
  double dmaQueues = 16;
  // Bytes per ns one DMA engine moves: 17 B/ns in the trn1 table [O, 2.3].
  double dmaEngineBw = 17;
  // ns per descriptor (one contiguous run of one partition) [E].
  double dmaDescNs = 0;
  // ns from the end of a transfer to its consumers seeing it (descriptor
  // set-up, completion semaphore; "~1300 ns cross-engine") [O/E, 2.3].
  double dmaFixedNs = 1300;
  // HBM bandwidth of one NeuronCore, bytes per ns (820 GB/s per device, 2
  // NeuronCores) [D, 2.2]; each engine moves at most its 1/dmaEngines share.
  double hbmBw = 410;

  // Stop after this many dynamic instructions (guards runaway loops).
  double maxInstructions = 5e7;

  /// Sets `name` (as listed by `all()`), or says why not.
  llvm::Error set(llvm::StringRef name, double value);
  /// Parses `name=value`.
  llvm::Error parseAssignment(llvm::StringRef text);

  struct Entry {
    const char *name;
    double SimParams::*field;
    const char *help;
  };
  static llvm::ArrayRef<Entry> all();
};

} // namespace axe::trnsim

#endif // AXE_TRNSIM_PARAMS_H
