//===- SimulatorInternal.h - Shared simulator internals ---------*- C++ -*-===//
//
// What the simulator's files share and no client sees: the interpreter's
// buffers and views, the Instr an instruction becomes for the timing model,
// the Scheduler that places Instrs in time (Scheduler.cpp) and the
// Interpreter that runs a kernel (Interpreter.cpp: values, control flow,
// storage and views; Instructions.cpp: the trn instructions; Simulator.cpp:
// the kernel's arguments and simulate()).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_TRNSIM_SIMULATORINTERNAL_H
#define AXE_LIB_TRNSIM_SIMULATORINTERNAL_H

#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/TrnSim/Deps.h"
#include "axe/TrnSim/Simulator.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AsmState.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace axe::trnsim::detail {

using namespace mlir;

/// An allocation: an SBUF/PSUM tile or a kernel argument in HBM.
struct Buffer {
  std::string name;
  MemRefType type;
  trn::MemorySpace space;
  std::vector<double> data;
};

/// A memref value: elements at `offset + sum(i[d] * strides[d])` of its
/// buffer's row-major storage; `region` is the box of buffer indices it
/// reaches, view dim d moving buffer dim rootDim[d] by rootStep[d].
struct View {
  int buffer = -1;
  int64_t offset = 0;
  SmallVector<int64_t, 4> sizes, strides;
  SmallVector<int, 4> rootDim;
  SmallVector<int64_t, 4> rootStep;
  trnsim::Region region;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
  int64_t partitions() const { return sizes.empty() ? 1 : sizes[0]; }
  int64_t freeElements() const {
    return sizes.empty() ? 1 : numElements() / std::max<int64_t>(1, sizes[0]);
  }
};

/// One instruction as the timing model sees it.
struct Instr {
  Unit unit;
  std::string name;
  /// Issue interval: cycles of the engine (compute) or unused (DMA).
  double cycles = 0;
  SmallVector<Access, 4> accesses;
  bool usesSbufPort = false, usesPsumPort = false;
  // DMA only: the partitions it moves (which engines), the bytes its
  // engines' data paths move, those that cross HBM, its descriptors, and
  // its queue.
  int64_t startPartition = 0, partitions = 128;
  double bytes = 0, hbmBytes = 0, descriptors = 0;
  int queue = 0;
};

/// Places instructions in time (docs/TrnSim.md, "Timing").
class Scheduler {
public:
  Scheduler(const SimOptions &options, SimResult &result)
      : p(options.params), trace(options.trace), result(result), deps(p),
        dmaEngines(std::max(1, int(p.dmaEngines))),
        hbmBusyUntil(dmaEngines.size(), 0.0),
        queueEnd(std::max(1, int(p.dmaQueues)),
                 std::vector<double>(dmaEngines.size(), 0.0)) {}

  void schedule(const Instr &instr);

private:
  void addStall(Unit unit, StringRef reason, double ns);
  void scheduleCompute(const Instr &instr);
  int activeHbmEngines(ArrayRef<cost::DmaPart> parts, double time) const;
  void scheduleDma(const Instr &instr);

  const SimParams &p;
  bool trace;
  SimResult &result;
  DependencyTracker deps;
  std::array<double, kNumUnits> queueFree{};
  double sbufPortFree = 0, psumPortFree = 0;
  std::vector<Timeline> dmaEngines;
  // Per DMA engine: the end of its last share that moves HBM data.
  std::vector<double> hbmBusyUntil;
  // Per DMA queue and engine: the end of the queue's last transfer there.
  std::vector<std::vector<double>> queueEnd;
  size_t dmaCount = 0;
};

/// The tile sizes an instruction's cost depends on.
inline int64_t elemBytes(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

class Interpreter {
public:
  Interpreter(func::FuncOp kernel, const SimOptions &options)
      : kernel(kernel), options(options), p(options.params),
        scheduler(options, result), asmState(kernel) {}

  FailureOr<SimResult> run();

private:
  // Control flow and integers.
  LogicalResult runBlock(Block &block,
                         SmallVectorImpl<Value> *yieldOperands = nullptr);
  LogicalResult runOp(Operation *op);
  LogicalResult runFor(scf::ForOp op);
  LogicalResult runIf(scf::IfOp op);
  LogicalResult runArith(Operation *op);
  FailureOr<int64_t> getInt(Operation *user, Value v);
  FailureOr<int64_t> getInt(Operation *user, OpFoldResult ofr);
  FailureOr<View> getView(Operation *user, Value v);
  /// The trn verifier's rules that a run-time offset can break: where an
  /// engine's on-chip tile starts (and, for a matmul's output, that it
  /// stays in one PSUM bank). A static offset was checked by the verifier.
  LogicalResult checkEngineView(Operation *user, Value v, const View &view);
  /// The views of `values`, in order; fails when any has none.
  FailureOr<SmallVector<View, 3>> getViews(Operation *user, ValueRange values);
  /// The view of an optional operand: `out` stays empty when `v` is null.
  LogicalResult getOptionalView(Operation *user, Value v,
                                std::optional<View> &out);
  LogicalResult runSubview(memref::SubViewOp op);
  LogicalResult runReinterpretCast(memref::ReinterpretCastOp op);

  // Storage.
  std::string nameOf(Value v);
  int newBuffer(std::string name, MemRefType type);
  View wholeView(int buffer);
  LogicalResult runAlloc(trn::AllocOp op);

  // Instructions.
  LogicalResult runTrn(Operation *op);
  LogicalResult emit(Operation *op, Instr instr);
  void addAccess(Instr &instr, const View &v, bool write);
  std::vector<double> gather(const View &v);
  void scatter(const View &v, ArrayRef<double> values);
  Type elementType(const View &v) {
    return buffers[v.buffer].type.getElementType();
  }
  trn::MemorySpace space(const View &v) { return buffers[v.buffer].space; }
  bool slowStride(const View &v);
  void setPorts(Instr &instr, ArrayRef<const View *> views);

  LogicalResult runDma(trn::DmaCopyOp op);
  int dmaQueueOf(Operation *op);
  LogicalResult runMatmul(trn::MatmulOp op);
  LogicalResult runTranspose(trn::TransposeOp op);
  LogicalResult runActivation(trn::ActivationOp op);
  LogicalResult runTensorTensor(trn::TensorTensorOp op);
  LogicalResult runTensorScalar(trn::TensorScalarOp op);
  LogicalResult runTensorReduce(trn::TensorReduceOp op);
  LogicalResult runTensorCopy(trn::TensorCopyOp op);
  LogicalResult runMemset(trn::MemsetOp op);
  LogicalResult runPattern(Operation *op, ArrayRef<int64_t> pattern,
                           int64_t offset, int64_t channelMultiplier, Value dst,
                           Value onTrue, std::optional<trn::AluOp> cmp,
                           double onFalse);

  func::FuncOp kernel;
  const SimOptions &options;
  const SimParams &p;
  SimResult result;
  Scheduler scheduler;
  // The DMA queue of each dma_copy in the program text (dmaQueueOf).
  llvm::DenseMap<Operation *, int> dmaQueues;
  AsmState asmState;
  std::vector<Buffer> buffers;
  DenseMap<Value, int64_t> ints;
  DenseMap<Value, View> views;
  // Each trn.alloc's buffers (more than one when multi-buffered) and how
  // many times it has run, to rotate through them.
  DenseMap<Operation *, std::pair<SmallVector<int, 2>, int64_t>> allocs;
  // Bytes per partition of the live allocations, and what each block
  // execution added (freed when the block's execution ends).
  int64_t sbufLive = 0, psumLive = 0;
  int64_t steps = 0;
};

} // namespace axe::trnsim::detail

#endif // AXE_LIB_TRNSIM_SIMULATORINTERNAL_H
