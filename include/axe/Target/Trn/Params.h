//===- Params.h - The named constants of the trn timing model --*- C++ -*-===//
//
// Every number the timing model uses and that is not a hardware limit of
// Target/Trn/Machine.h lives here, under a name that `axe-trn-sim --param
// name=value` overrides. Each cites its public source: [O] an official AWS
// figure, [E] an estimate, [fitted] calibrated on the NKI matmul tutorial's
// DMA-bound kernels. `axe-trn-sim --params=NAME` picks a named set.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_TRN_PARAMS_H
#define AXE_TARGET_TRN_PARAMS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace axe::trnsim {

struct SimParams {
  // Engine clocks in GHz [O, NKI arch guide].
  double tensorGhz = 2.8;
  double vectorGhz = 1.12;
  double scalarGhz = 1.4;
  double gpsimdGhz = 1.4;

  // Minimum instruction interval of Vector/Scalar/GpSimd, cycles [O, nki.isa
  // cost formulas].
  double minII = 64;
  // fp32/tf32 matmuls take this many times the bf16 cycles [O, nki.isa cost
  // formulas].
  double matmulFp32Factor = 4;
  // GpSimd's start-up cycles of iota / affine_select [O, nki.isa cost
  // formulas].
  double gpsimdStart = 150;
  // An innermost stride above 16 bytes halves the SBUF/PSUM interface
  // bandwidth [O, NKI arch guide]: the instruction takes this factor longer.
  double strideFactor = 2;

  // Cycles from the end of an instruction's issue interval to its result
  // being readable (pipeline depth) [E]. ScalarE: 264 - 64 cycles so
  // that back-to-back dependent 1-element activations take 264 [O, NKI
  // performance guide].
  double tensorLatency = 64;
  double vectorLatency = 100;
  double scalarLatency = 200;
  double gpsimdLatency = 100;

  // Semaphore latency of a dependency between two compute engines, ns [E].
  double semNs = 50;

  // DMA (docs/TrnSim.md, "DMA"). The defaults are the calibrated machine
  // (examples/trn/nki/calibrate.py); `documented()` has the published
  // figures. Engines per NeuronCore, each serving 8 partitions, with 16
  // queues in order per engine [O, AWS Neuron docs, DMA overview].
  double dmaEngines = 16;
  double dmaQueues = 16;
  // Bytes per ns of one engine's data path: the "theoretical bandwidth of
  // 27.2 GB/s" per engine [O, DMA overview]. The documented set uses the
  // table's sustained 17 B/ns instead, having no per-descriptor costs.
  double dmaEngineBw = 27.2;
  // ns of an engine's time per descriptor (one contiguous run of one
  // partition), on top of its bytes: the per-packet overhead that makes
  // small rows slow [fitted].
  double dmaDescNs = 73.85;
  // ns between two descriptors of one queue on one engine: a queue's
  // descriptors are processed in order, one at a time, so a lone stream of
  // small rows is latency-bound even when the engine is not busy [fitted].
  double dmaQueueDescNs = 150.2;
  // ns from the end of a transfer to its consumers seeing it (completion
  // semaphore; "~1300 ns" semaphore-to-start) [O, DMA bandwidth guide].
  double dmaFixedNs = 1300;
  // HBM bandwidth of one NeuronCore, bytes per ns (820 GB/s per device, 2
  // NeuronCores) [O, Trn1 architecture; halved]: shared by the engines that
  // are moving HBM bytes at the same time.
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

  /// The calibrated machine: the defaults above.
  static SimParams calibrated() { return SimParams(); }
  /// The published figures only: the DMA runs at the table's 17 B/ns with
  /// no per-descriptor or per-queue cost (the docs give none).
  static SimParams documented();
  /// The set called `name` ("calibrated" or "documented"), or says why not.
  static llvm::Expected<SimParams> named(llvm::StringRef name);
  static llvm::ArrayRef<llvm::StringRef> setNames();
};

} // namespace axe::trnsim

#endif // AXE_TARGET_TRN_PARAMS_H
