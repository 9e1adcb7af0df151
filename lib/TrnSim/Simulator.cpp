//===- Simulator.cpp - Running trn kernels in program order ---------------===//
//
// The interpreter walks the kernel's body, unrolls scf.for, evaluates
// integer arith and resolves memref.subview views to regions of the
// buffers that hold them. Each trn instruction becomes an Instr (its queue,
// its cost, the regions it reads and writes) that the Scheduler places in
// time; with numerics on, the instruction's values are computed too
// (program order is a valid serialization: the schedule only reorders
// instructions whose regions do not conflict).
//
//===----------------------------------------------------------------------===//

#include "axe/TrnSim/Simulator.h"
#include "axe/Dialect/Trn/IR/TrnMachine.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/TrnSim/Deps.h"

#include "Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AsmState.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mlir;
using namespace axe;
using namespace axe::trnsim;
namespace m = axe::trn::machine;

namespace {

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

  void schedule(const Instr &instr) {
    ++result.instructions;
    if (instr.unit == Unit::DMA)
      scheduleDma(instr);
    else
      scheduleCompute(instr);
  }

private:
  void addStall(Unit unit, StringRef reason, double ns) {
    if (ns > 0)
      result.stalls[unitName(unit).str()][reason.str()] += ns;
  }

  void scheduleCompute(const Instr &instr) {
    int u = int(instr.unit);
    double ghz = clockGhz(instr.unit, p);
    double issue = instr.cycles / ghz;
    Readiness r = deps.ready(instr.accesses, instr.unit);
    double port = 0;
    StringRef portName;
    if (instr.usesSbufPort && sbufPortFree > port)
      port = sbufPortFree, portName = "port_sbuf";
    if (instr.usesPsumPort && psumPortFree > port)
      port = psumPortFree, portName = "port_psum";
    double start = std::max({queueFree[u], r.time, port});
    if (start > queueFree[u]) {
      if (port > r.time)
        addStall(instr.unit, portName, start - queueFree[u]);
      else
        addStall(instr.unit,
                 ("wait_" + unitName(r.blocker.value_or(instr.unit))).str(),
                 start - queueFree[u]);
    }
    double end = start + issue;
    queueFree[u] = end;
    if (instr.usesSbufPort)
      sbufPortFree = end;
    if (instr.usesPsumPort)
      psumPortFree = end;
    double complete = end + latencyCycles(instr.unit, p) / ghz;
    deps.record(instr.accesses, {instr.unit, complete, end});
    result.busyNs[u] += issue;
    result.totalNs = std::max(result.totalNs, complete);
    if (trace)
      result.trace.push_back(
          {instr.name, unitName(instr.unit).str(), start, issue});
  }

  /// Engines that move HBM data at `time`: this transfer's own, and the
  /// others whose last HBM share ends later. They share hbm_bw.
  int activeHbmEngines(ArrayRef<cost::DmaPart> parts, double time) const {
    SmallVector<bool, 16> active(dmaEngines.size(), false);
    for (const cost::DmaPart &part : parts)
      active[part.engine] = true;
    for (size_t e = 0; e < active.size(); ++e)
      active[e] = active[e] || hbmBusyUntil[e] > time;
    return int(llvm::count(active, true));
  }

  void scheduleDma(const Instr &instr) {
    Readiness r = deps.ready(instr.accesses, Unit::DMA);
    size_t q = size_t(instr.queue) % queueEnd.size();
    SmallVector<cost::DmaPart> parts =
        cost::splitDma(instr.startPartition, instr.partitions, instr.bytes,
                       instr.hbmBytes, instr.descriptors, p);
    double queueReady = INFINITY;
    for (const cost::DmaPart &part : parts)
      queueReady = std::min(queueReady, queueEnd[q][part.engine]);
    double hbmShare = cost::hbmShareBw(
        activeHbmEngines(parts, std::max(r.time, queueReady)), p);
    double first = INFINITY, last = 0, free = INFINITY;
    for (const cost::DmaPart &part : parts) {
      Timeline &engine = dmaEngines[part.engine];
      free = std::min(free, engine.lastEnd());
      // The engine is busy for `ns`; the queue's descriptors, one at a
      // time, stretch the share to at least `queueNs` from when the queue
      // took it. Other queues fill the engine's idle time meanwhile.
      double ns = cost::dmaEngineNs(part, hbmShare, p);
      double ready = std::max(r.time, queueEnd[q][part.engine]);
      double start = engine.book(ready, ns);
      double end = std::max(start + ns, ready + cost::dmaQueueNs(part, p));
      queueEnd[q][part.engine] = end;
      if (part.hbmBytes > 0)
        hbmBusyUntil[part.engine] = std::max(hbmBusyUntil[part.engine], end);
      first = std::min(first, start);
      last = std::max(last, end);
      result.busyNs[int(Unit::DMA)] += ns / dmaEngines.size();
    }
    if (r.time > free)
      addStall(Unit::DMA,
               ("wait_" + unitName(r.blocker.value_or(Unit::DMA))).str(),
               r.time - free);
    double complete = last + p.dmaFixedNs;
    deps.record(instr.accesses, {Unit::DMA, complete, complete});
    result.dmaBytes += instr.bytes;
    result.hbmBytes += instr.hbmBytes;
    result.totalNs = std::max(result.totalNs, complete);
    if (trace)
      result.trace.push_back(
          {instr.name, "dma q" + std::to_string(q), first, last - first});
  }

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
int64_t elemBytes(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

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

} // namespace

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

FailureOr<int64_t> Interpreter::getInt(Operation *user, Value v) {
  auto it = ints.find(v);
  if (it != ints.end())
    return it->second;
  InFlightDiagnostic diag = user->emitError("trn-sim: operand ")
                            << nameOf(v) << " has no known integer value";
  if (Operation *def = v.getDefiningOp())
    diag << " ('" << def->getName() << "' is not simulated)";
  return failure();
}

FailureOr<int64_t> Interpreter::getInt(Operation *user, OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr)) {
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return i.getInt();
    return user->emitError("trn-sim: expected an integer attribute");
  }
  return getInt(user, cast<Value>(ofr));
}

FailureOr<View> Interpreter::getView(Operation *user, Value v) {
  auto it = views.find(v);
  if (it != views.end())
    return it->second;
  InFlightDiagnostic diag = user->emitError("trn-sim: memref ")
                            << nameOf(v) << " is not a known buffer or view";
  if (Operation *def = v.getDefiningOp())
    diag << " ('" << def->getName() << "' is not simulated)";
  return failure();
}

std::string Interpreter::nameOf(Value v) {
  // Source names, when the driver recorded them (axe-trn-sim does).
  if (Operation *def = v.getDefiningOp())
    if (auto name = def->getAttrOfType<StringAttr>("trn_sim.name"))
      return name.str();
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (arg.getOwner() == &kernel.getBody().front())
      if (auto names = kernel->getAttrOfType<ArrayAttr>("trn_sim.arg_names");
          names && arg.getArgNumber() < names.size())
        if (auto name = dyn_cast<StringAttr>(names[arg.getArgNumber()]))
          return name.str();
  std::string s;
  llvm::raw_string_ostream os(s);
  v.printAsOperand(os, asmState);
  return s;
}

/// Integers are kept sign-extended to 64 bits, i1 as 0 or 1.
static int64_t normalize(Type type, int64_t v) {
  auto it = dyn_cast<IntegerType>(type);
  if (!it || it.getWidth() >= 64)
    return v;
  if (it.getWidth() == 1)
    return v & 1;
  return llvm::SignExtend64(uint64_t(v), it.getWidth());
}

static bool evalCmp(arith::CmpIPredicate pred, int64_t a, int64_t b) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return uint64_t(a) < uint64_t(b);
  case P::ule:
    return uint64_t(a) <= uint64_t(b);
  case P::ugt:
    return uint64_t(a) > uint64_t(b);
  case P::uge:
    return uint64_t(a) >= uint64_t(b);
  }
  return false;
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

LogicalResult Interpreter::runArith(Operation *op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    // Float constants feed nothing the simulator evaluates; leave them.
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      ints[c.getResult()] = normalize(c.getType(), i.getInt());
    return success();
  }
  if (op->getNumResults() != 1)
    return op->emitError("trn-sim: '") << op->getName() << "' is not simulated";
  Value res = op->getResult(0);
  SmallVector<int64_t, 3> a;
  for (Value v : op->getOperands()) {
    FailureOr<int64_t> x = getInt(op, v);
    if (failed(x))
      return failure();
    a.push_back(*x);
  }
  auto divisor = [&](int64_t d) -> LogicalResult {
    if (d == 0)
      return op->emitError("trn-sim: division by zero");
    return success();
  };
  std::optional<int64_t> r =
      llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
          .Case<arith::AddIOp>([&](auto) { return a[0] + a[1]; })
          .Case<arith::SubIOp>([&](auto) { return a[0] - a[1]; })
          .Case<arith::MulIOp>([&](auto) { return a[0] * a[1]; })
          .Case<arith::MinSIOp>([&](auto) { return std::min(a[0], a[1]); })
          .Case<arith::MaxSIOp>([&](auto) { return std::max(a[0], a[1]); })
          .Case<arith::AndIOp>([&](auto) { return a[0] & a[1]; })
          .Case<arith::OrIOp>([&](auto) { return a[0] | a[1]; })
          .Case<arith::XOrIOp>([&](auto) { return a[0] ^ a[1]; })
          .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                arith::ExtUIOp, arith::TruncIOp>(
              [&](auto) -> std::optional<int64_t> { return a[0]; })
          .Case<arith::CmpIOp>([&](arith::CmpIOp c) -> std::optional<int64_t> {
            return evalCmp(c.getPredicate(), a[0], a[1]);
          })
          .Case<arith::SelectOp>([&](auto) -> std::optional<int64_t> {
            return a[0] ? a[1] : a[2];
          })
          .Case<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
                arith::FloorDivSIOp, arith::CeilDivSIOp>(
              [&](Operation *o) -> std::optional<int64_t> {
                if (a[1] == 0)
                  return std::nullopt;
                if (isa<arith::DivSIOp, arith::DivUIOp>(o))
                  return a[0] / a[1];
                if (isa<arith::RemSIOp, arith::RemUIOp>(o))
                  return a[0] % a[1];
                if (isa<arith::FloorDivSIOp>(o))
                  return floorDiv(a[0], a[1]);
                return -floorDiv(-a[0], a[1]);
              })
          .Default([](Operation *) { return std::nullopt; });
  if (!r) {
    if (op->getNumOperands() == 2 && a[1] == 0)
      return divisor(0);
    return op->emitError("trn-sim: '") << op->getName() << "' is not simulated";
  }
  ints[res] = normalize(res.getType(), *r);
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::runBlock(Block &block,
                                    SmallVectorImpl<Value> *yieldOperands) {
  // Allocations made while this block runs are freed when it ends: a tile
  // allocated in a loop body lives one iteration.
  int64_t sbufBefore = sbufLive, psumBefore = psumLive;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (yieldOperands)
        yieldOperands->assign(op.operand_begin(), op.operand_end());
      break;
    }
    if (failed(runOp(&op)))
      return failure();
  }
  sbufLive = sbufBefore;
  psumLive = psumBefore;
  return success();
}

/// Carries a yielded value (an integer or a view) to `to`.
static LogicalResult forward(Operation *op, Value from, Value to,
                             DenseMap<Value, int64_t> &ints,
                             DenseMap<Value, View> &views) {
  if (auto it = ints.find(from); it != ints.end()) {
    ints[to] = it->second;
    return success();
  }
  if (auto it = views.find(from); it != views.end()) {
    views[to] = it->second;
    return success();
  }
  if (isa<FloatType>(from.getType()))
    return success();
  return op->emitError("trn-sim: a yielded value is not known");
}

LogicalResult Interpreter::runFor(scf::ForOp op) {
  FailureOr<int64_t> lb = getInt(op, op.getLowerBound());
  FailureOr<int64_t> ub = getInt(op, op.getUpperBound());
  FailureOr<int64_t> step = getInt(op, op.getStep());
  if (failed(lb) || failed(ub) || failed(step))
    return failure();
  if (*step <= 0)
    return op.emitError("trn-sim: scf.for step ")
           << *step << " is not positive";
  for (auto [init, arg] : llvm::zip(op.getInitArgs(), op.getRegionIterArgs()))
    if (failed(forward(op, init, arg, ints, views)))
      return failure();
  for (int64_t i = *lb; i < *ub; i += *step) {
    ints[op.getInductionVar()] = i;
    SmallVector<Value> yielded;
    if (failed(runBlock(*op.getBody(), &yielded)))
      return failure();
    for (auto [y, arg] : llvm::zip(yielded, op.getRegionIterArgs()))
      if (failed(forward(op, y, arg, ints, views)))
        return failure();
    if (i > INT64_MAX - *step)
      break;
  }
  for (auto [arg, res] : llvm::zip(op.getRegionIterArgs(), op.getResults()))
    if (failed(forward(op, arg, res, ints, views)))
      return failure();
  return success();
}

LogicalResult Interpreter::runIf(scf::IfOp op) {
  FailureOr<int64_t> cond = getInt(op, op.getCondition());
  if (failed(cond))
    return failure();
  mlir::Region &region = *cond ? op.getThenRegion() : op.getElseRegion();
  if (region.empty())
    return success();
  SmallVector<Value> yielded;
  if (failed(runBlock(region.front(), &yielded)))
    return failure();
  for (auto [y, res] : llvm::zip(yielded, op.getResults()))
    if (failed(forward(op, y, res, ints, views)))
      return failure();
  return success();
}

LogicalResult Interpreter::runOp(Operation *op) {
  if (++steps > int64_t(p.maxInstructions) * 4)
    return op->emitError("trn-sim: stopped after ")
           << steps << " operations (max_instructions)";
  if (auto f = dyn_cast<scf::ForOp>(op))
    return runFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return runIf(i);
  if (auto s = dyn_cast<memref::SubViewOp>(op))
    return runSubview(s);
  if (auto r = dyn_cast<memref::ReinterpretCastOp>(op))
    return runReinterpretCast(r);
  if (auto c = dyn_cast<memref::CastOp>(op)) {
    FailureOr<View> v = getView(op, c.getSource());
    if (failed(v))
      return failure();
    views[c.getResult()] = *v;
    return success();
  }
  if (auto a = dyn_cast<trn::AllocOp>(op))
    return runAlloc(a);
  if (isa<trn::TrnDialect>(op->getDialect()))
    return runTrn(op);
  if (isa<arith::ArithDialect>(op->getDialect()))
    return runArith(op);
  return op->emitError("trn-sim: '")
         << op->getName() << "' is not simulated (a kernel is trn "
         << "instructions with scf.for/scf.if, integer arith and "
         << "memref.subview/reinterpret_cast)";
}

//===----------------------------------------------------------------------===//
// Storage and views
//===----------------------------------------------------------------------===//

int Interpreter::newBuffer(std::string name, MemRefType type) {
  Buffer b;
  b.name = std::move(name);
  b.type = type;
  b.space = *trn::getMemorySpace(type);
  if (options.numerics)
    b.data.assign(type.getNumElements(), 0.0);
  buffers.push_back(std::move(b));
  return int(buffers.size()) - 1;
}

View Interpreter::wholeView(int buffer) {
  MemRefType type = buffers[buffer].type;
  View v;
  v.buffer = buffer;
  v.region.buffer = buffer;
  int64_t stride = 1;
  int rank = type.getRank();
  v.sizes.assign(type.getShape().begin(), type.getShape().end());
  v.strides.assign(rank, 1);
  for (int d = rank - 1; d >= 0; --d) {
    v.strides[d] = stride;
    stride *= type.getDimSize(d);
  }
  for (int d = 0; d < rank; ++d) {
    v.rootDim.push_back(d);
    v.rootStep.push_back(1);
    v.region.lo.push_back(0);
    v.region.hi.push_back(type.getDimSize(d));
  }
  return v;
}

/// Bytes per partition an allocation takes: PSUM is handed out in 2 KiB
/// banks, since a matmul output must sit within one.
static int64_t bytesPerPartition(MemRefType type, trn::MemorySpace space) {
  int64_t bytes = trn::getBytesPerPartition(type);
  if (space == trn::MemorySpace::PSUM)
    bytes = llvm::alignTo(bytes, m::kPsumBankBytes);
  return bytes;
}

LogicalResult Interpreter::runAlloc(trn::AllocOp op) {
  MemRefType type = op.getType();
  std::optional<trn::MemorySpace> space = trn::getMemorySpace(type);
  if (!space || *space == trn::MemorySpace::HBM ||
      !type.getLayout().isIdentity())
    return op.emitError("trn-sim: trn.alloc must make an identity-layout "
                        "sbuf or psum tile");
  int64_t copies = 1;
  if (auto attr = op->getAttrOfType<IntegerAttr>("trn_sim.buffers"))
    copies = attr.getInt();
  if (copies < 1 || copies > 64)
    return op.emitError("trn-sim: trn_sim.buffers must be in [1, 64]");
  auto &[ids, count] = allocs[op];
  std::string name = nameOf(op.getResult());
  bool psum = *space == trn::MemorySpace::PSUM;
  int64_t bytes = bytesPerPartition(type, *space) * copies;
  int64_t &live = psum ? psumLive : sbufLive;
  int64_t capacity =
      psum ? m::kPsumBytesPerPartition : m::kSbufBytesPerPartition;
  if (live + bytes > capacity)
    return op.emitError("trn-sim: allocation ")
           << name << " (" << bytes << " bytes per partition"
           << (copies > 1 ? ", " + std::to_string(copies) + " buffers" : "")
           << ") exceeds " << (psum ? "PSUM" : "SBUF") << " capacity: " << live
           << " of " << capacity
           << " bytes per partition are taken by live allocations";
  live += bytes;
  if (ids.empty())
    for (int64_t c = 0; c < copies; ++c)
      ids.push_back(
          newBuffer(copies > 1 ? name + "#" + std::to_string(c) : name, type));
  views[op.getResult()] = wholeView(ids[count++ % ids.size()]);
  return success();
}

LogicalResult Interpreter::runSubview(memref::SubViewOp op) {
  FailureOr<View> src = getView(op, op.getSource());
  if (failed(src))
    return failure();
  SmallVector<OpFoldResult> offs = op.getMixedOffsets(),
                            sizes = op.getMixedSizes(),
                            strides = op.getMixedStrides();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  View v;
  v.buffer = src->buffer;
  v.offset = src->offset;
  v.region = src->region;
  for (size_t d = 0; d < offs.size(); ++d) {
    FailureOr<int64_t> o = getInt(op, offs[d]), n = getInt(op, sizes[d]),
                       t = getInt(op, strides[d]);
    if (failed(o) || failed(n) || failed(t))
      return failure();
    if (*o < 0 || *n < 1 || *t < 1 || *o + (*n - 1) * *t >= src->sizes[d])
      return op.emitError("trn-sim: subview dim ")
             << d << " takes [" << *o << ", " << *o + (*n - 1) * *t
             << "] (stride " << *t << ") of a dim of size " << src->sizes[d];
    v.offset += *o * src->strides[d];
    int r = src->rootDim[d];
    int64_t step = src->rootStep[d];
    v.region.lo[r] += *o * step;
    v.region.hi[r] = v.region.lo[r] + (*n - 1) * step * *t + 1;
    if (dropped.test(d))
      continue;
    v.sizes.push_back(*n);
    v.strides.push_back(src->strides[d] * *t);
    v.rootDim.push_back(r);
    v.rootStep.push_back(step * *t);
  }
  views[op.getResult()] = v;
  return success();
}

/// A strided view of the buffer under the source (axe-to-trn makes every
/// tile view this way). Each view dim must move along one dim of the buffer
/// without wrapping, so the view's region is a box and dependences stay
/// exact.
LogicalResult Interpreter::runReinterpretCast(memref::ReinterpretCastOp op) {
  FailureOr<View> src = getView(op, op.getSource());
  if (failed(src))
    return failure();
  // Arguments are held densely (row-major), so only an identity layout
  // means the same addresses here as on the host.
  if (!buffers[src->buffer].type.getLayout().isIdentity())
    return op.emitError("trn-sim: reinterpret_cast of ")
           << nameOf(op.getSource())
           << ", whose layout is not the identity, is not simulated";
  View whole = wholeView(src->buffer);
  int rootRank = whole.sizes.size();
  SmallVector<OpFoldResult> offs = op.getMixedOffsets(),
                            sizes = op.getMixedSizes(),
                            strides = op.getMixedStrides();
  FailureOr<int64_t> offset = getInt(op, offs.front());
  if (failed(offset))
    return failure();
  View v;
  v.buffer = src->buffer;
  v.offset = *offset;
  v.region.buffer = src->buffer;
  // The offset's coordinates in the buffer's dims.
  int64_t rest = *offset;
  for (int r = 0; r < rootRank; ++r) {
    v.region.lo.push_back(rest / whole.strides[r]);
    rest %= whole.strides[r];
  }
  if (*offset < 0 || v.region.lo.front() >= whole.sizes.front())
    return op.emitError("trn-sim: reinterpret_cast offset ")
           << *offset << " is outside " << nameOf(op.getSource());
  v.region.hi = v.region.lo;
  for (int r = 0; r < rootRank; ++r)
    ++v.region.hi[r];
  for (size_t d = 0; d < sizes.size(); ++d) {
    FailureOr<int64_t> n = getInt(op, sizes[d]), t = getInt(op, strides[d]);
    if (failed(n) || failed(t))
      return failure();
    if (*n < 1 || *t < 0)
      return op.emitError("trn-sim: reinterpret_cast dim ")
             << d << " has size " << *n << " and stride " << *t;
    // The buffer dim whose stride divides this one's.
    int r = 0;
    while (r < rootRank &&
           (*t == 0 ? r != rootRank - 1 : *t % whole.strides[r] != 0))
      ++r;
    int64_t step = *t == 0 ? 0 : *t / whole.strides[r];
    v.region.hi[r] += (*n - 1) * step;
    if (v.region.hi[r] > whole.sizes[r])
      return op.emitError("trn-sim: reinterpret_cast dim ")
             << d << " (size " << *n << ", stride " << *t << ") runs past dim "
             << r << " of " << nameOf(op.getSource()) << " (size "
             << whole.sizes[r] << ")";
    v.sizes.push_back(*n);
    v.strides.push_back(*t);
    v.rootDim.push_back(r);
    v.rootStep.push_back(step);
  }
  views[op.getResult()] = v;
  return success();
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

/// Calls fn(linear index) for each element of `v` in row-major order.
template <typename Fn> static void forEachElement(const View &v, Fn fn) {
  int rank = v.sizes.size();
  if (v.numElements() == 0)
    return;
  SmallVector<int64_t, 4> idx(rank, 0);
  int64_t lin = v.offset;
  while (true) {
    fn(lin);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < v.sizes[d]) {
        lin += v.strides[d];
        break;
      }
      lin -= (v.sizes[d] - 1) * v.strides[d];
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

std::vector<double> Interpreter::gather(const View &v) {
  std::vector<double> out;
  out.reserve(v.numElements());
  const std::vector<double> &data = buffers[v.buffer].data;
  forEachElement(v, [&](int64_t i) { out.push_back(data[i]); });
  return out;
}

void Interpreter::scatter(const View &v, ArrayRef<double> values) {
  std::vector<double> &data = buffers[v.buffer].data;
  Type t = elementType(v);
  size_t k = 0;
  forEachElement(v, [&](int64_t i) { data[i] = roundTo(t, values[k++]); });
}

void Interpreter::addAccess(Instr &instr, const View &v, bool write) {
  instr.accesses.push_back({v.region, write});
}

/// The innermost free dim that moves: a stride above 16 bytes there halves
/// the SBUF/PSUM interface bandwidth (NKI arch guide).
bool Interpreter::slowStride(const View &v) {
  if (space(v) == trn::MemorySpace::HBM)
    return false;
  for (int d = int(v.sizes.size()) - 1; d >= 1; --d)
    if (v.sizes[d] > 1)
      return v.strides[d] * elemBytes(elementType(v)) > 16;
  return false;
}

void Interpreter::setPorts(Instr &instr, ArrayRef<const View *> vs) {
  for (const View *v : vs) {
    // VectorE and GpSimd share the SBUF port; VectorE and ScalarE the PSUM
    // port (NKI arch guide).
    if (space(*v) == trn::MemorySpace::SBUF &&
        (instr.unit == Unit::Vector || instr.unit == Unit::GpSimd))
      instr.usesSbufPort = true;
    if (space(*v) == trn::MemorySpace::PSUM &&
        (instr.unit == Unit::Vector || instr.unit == Unit::Scalar))
      instr.usesPsumPort = true;
  }
  if (instr.unit != Unit::Tensor &&
      llvm::any_of(vs, [&](const View *v) { return slowStride(*v); }))
    instr.cycles *= p.strideFactor;
}

LogicalResult Interpreter::emit(Operation *op, Instr instr) {
  if (result.instructions >= int64_t(p.maxInstructions))
    return op->emitError("trn-sim: stopped after ")
           << result.instructions << " instructions (max_instructions)";
  scheduler.schedule(instr);
  return success();
}

static Unit unitOf(trn::Engine e) {
  switch (e) {
  case trn::Engine::Tensor:
    return Unit::Tensor;
  case trn::Engine::Vector:
    return Unit::Vector;
  case trn::Engine::Scalar:
    return Unit::Scalar;
  case trn::Engine::GpSimd:
    return Unit::GpSimd;
  }
  return Unit::Vector;
}

/// Elements of the longest contiguous run of a view: free dims merge while
/// each is dense over the next; an SBUF run never crosses a partition.
static int64_t contiguousRun(const View &v, bool onChip) {
  int64_t run = 1;
  int lowest = onChip ? 1 : 0;
  for (int d = int(v.sizes.size()) - 1; d >= lowest; --d) {
    if (v.sizes[d] == 1)
      continue;
    if (v.strides[d] != run)
      break;
    run *= v.sizes[d];
  }
  return run;
}

/// One DMA instruction of the program is triggered by one engine on one
/// queue, so all its executions run in order on that queue; the program's
/// dma_copy ops take the queues in turn, in the order they first run.
int Interpreter::dmaQueueOf(Operation *op) {
  return dmaQueues.try_emplace(op, int(dmaQueues.size())).first->second;
}

LogicalResult Interpreter::runDma(trn::DmaCopyOp op) {
  FailureOr<View> src = getView(op, op.getSrc()),
                  dst = getView(op, op.getDst());
  if (failed(src) || failed(dst))
    return failure();
  if (src->numElements() != dst->numElements())
    return op.emitError("trn-sim: dma_copy moves ")
           << src->numElements() << " elements into " << dst->numElements();
  Instr in;
  in.unit = Unit::DMA;
  in.name = "dma_copy";
  addAccess(in, *src, false);
  addAccess(in, *dst, true);
  bool srcChip = space(*src) != trn::MemorySpace::HBM;
  bool dstChip = space(*dst) != trn::MemorySpace::HBM;
  // A casting copy reads one type and writes the other: the data path
  // moves the wider, HBM sees its own side's bytes.
  int64_t n = src->numElements();
  double srcBytes = double(n) * elemBytes(elementType(*src));
  double dstBytes = double(n) * elemBytes(elementType(*dst));
  in.bytes = std::max(srcBytes, dstBytes);
  in.hbmBytes = (srcChip ? 0 : srcBytes) + (dstChip ? 0 : dstBytes);
  in.queue = dmaQueueOf(op);
  int64_t run =
      std::min(contiguousRun(*src, srcChip), contiguousRun(*dst, dstChip));
  in.descriptors = double((n + run - 1) / run);
  // The SBUF side decides which partitions, hence which DMA engines, move
  // the data; an HBM-to-HBM copy spreads over all of them.
  const View *chip = dstChip ? &*dst : srcChip ? &*src : nullptr;
  if (chip) {
    in.startPartition = chip->region.lo[0];
    in.partitions = chip->region.hi[0] - chip->region.lo[0];
  }
  if (options.numerics) {
    std::vector<double> vals = gather(*src);
    scatter(*dst, vals);
  }
  return emit(op, std::move(in));
}

static bool isF32(Type t) { return t.isF32(); }

LogicalResult Interpreter::runMatmul(trn::MatmulOp op) {
  FailureOr<View> st = getView(op, op.getStationary()),
                  mv = getView(op, op.getMoving()),
                  dst = getView(op, op.getDst());
  if (failed(st) || failed(mv) || failed(dst))
    return failure();
  int64_t k = st->partitions(), mm = st->freeElements(),
          nn = mv->freeElements();
  if (mv->partitions() != k || dst->numElements() != mm * nn)
    return op.emitError("trn-sim: matmul shapes do not agree");
  Instr in;
  in.unit = Unit::Tensor;
  in.name = op.getStart() ? "matmul start" : "matmul";
  bool fp32 = isF32(elementType(*st)) || isF32(elementType(*mv));
  in.cycles = cost::matmul(mm, nn, fp32, p);
  addAccess(in, *st, false);
  addAccess(in, *mv, false);
  // PSUM accumulates near memory: the matmul writes its output region and
  // needs no read of it (NKI arch guide), so an accumulation group runs back
  // to back.
  addAccess(in, *dst, true);
  result.matmulFlops += 2.0 * k * mm * nn;
  if (options.numerics) {
    std::vector<double> a = gather(*st), b = gather(*mv), c = gather(*dst);
    for (int64_t i = 0; i < mm; ++i)
      for (int64_t j = 0; j < nn; ++j) {
        float acc = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          acc += float(a[kk * mm + i]) * float(b[kk * nn + j]);
        double &out = c[i * nn + j];
        out = op.getStart() ? acc : float(float(out) + acc);
      }
    scatter(*dst, c);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTranspose(trn::TransposeOp op) {
  FailureOr<View> src = getView(op, op.getSrc()),
                  dst = getView(op, op.getDst());
  if (failed(src) || failed(dst))
    return failure();
  int64_t pp = src->partitions(), f = src->freeElements();
  if (dst->numElements() != pp * f)
    return op.emitError("trn-sim: transpose shapes do not agree");
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = "transpose";
  in.cycles = in.unit == Unit::Tensor ? cost::tensorTranspose(pp, f)
                                      : cost::streaming(f, p);
  addAccess(in, *src, false);
  addAccess(in, *dst, true);
  setPorts(in, {&*src, &*dst});
  if (options.numerics) {
    std::vector<double> a = gather(*src), b(a.size());
    for (int64_t i = 0; i < pp; ++i)
      for (int64_t j = 0; j < f; ++j)
        b[j * pp + i] = a[i * f + j];
    scatter(*dst, b);
  }
  return emit(op, std::move(in));
}

/// A per-partition scalar: the tile's value in partition `c`, or `imm`.
static double scalarAt(const std::vector<double> *tile, double imm, int64_t c) {
  return tile ? (*tile)[c] : imm;
}

LogicalResult Interpreter::runActivation(trn::ActivationOp op) {
  FailureOr<View> src = getView(op, op.getSrc()),
                  dst = getView(op, op.getDst());
  if (failed(src) || failed(dst))
    return failure();
  Instr in;
  in.unit = Unit::Scalar;
  in.name = ("activation " + trn::stringifyActFunc(op.getFunc())).str();
  bool reduce = bool(op.getReduceRes());
  in.cycles = cost::streaming(src->freeElements(), p, reduce);
  SmallVector<const View *> all = {&*src, &*dst};
  addAccess(in, *src, false);
  addAccess(in, *dst, true);
  std::optional<View> bias, scale, red;
  auto extra = [&](Value v, std::optional<View> &out, bool write) {
    if (!v)
      return success();
    FailureOr<View> x = getView(op, v);
    if (failed(x))
      return failure();
    out = *x;
    addAccess(in, *x, write);
    return success();
  };
  if (failed(extra(op.getBias(), bias, false)) ||
      failed(extra(op.getScaleTile(), scale, false)) ||
      failed(extra(op.getReduceRes(), red, true)))
    return failure();
  setPorts(in, all);
  if (options.numerics) {
    int64_t parts = src->partitions(), f = src->freeElements();
    std::vector<double> x = gather(*src), y(x.size()), sums(parts, 0.0);
    std::vector<double> b = bias ? gather(*bias) : std::vector<double>();
    std::vector<double> s = scale ? gather(*scale) : std::vector<double>();
    double imm = op.getScaleAttr() ? op.getScaleAttr().getValueAsDouble() : 1.0;
    for (int64_t c = 0; c < parts; ++c)
      for (int64_t e = 0; e < f; ++e) {
        float v = float(x[c * f + e]) *
                      float(scalarAt(scale ? &s : nullptr, imm, c)) +
                  float(bias ? b[c] : 0.0);
        float r = float(applyActivation(op.getFunc(), v));
        y[c * f + e] = r;
        sums[c] = float(sums[c] + r);
      }
    scatter(*dst, y);
    if (red)
      scatter(*red, sums);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorTensor(trn::TensorTensorOp op) {
  FailureOr<View> a = getView(op, op.getLhs()), b = getView(op, op.getRhs()),
                  dst = getView(op, op.getDst());
  if (failed(a) || failed(b) || failed(dst))
    return failure();
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = ("tensor_tensor " + trn::stringifyAluOp(op.getOp())).str();
  bool psumA = space(*a) == trn::MemorySpace::PSUM,
       psumB = space(*b) == trn::MemorySpace::PSUM;
  bool allBf16 = elementType(*a).isBF16() && elementType(*b).isBF16() &&
                 elementType(*dst).isBF16();
  bool simpleOp = op.getOp() == trn::AluOp::Add ||
                  op.getOp() == trn::AluOp::Subtract ||
                  op.getOp() == trn::AluOp::Multiply;
  bool fast = psumA != psumB || (allBf16 && simpleOp);
  in.cycles = cost::tensorTensor(a->freeElements(), fast, p);
  addAccess(in, *a, false);
  addAccess(in, *b, false);
  addAccess(in, *dst, true);
  setPorts(in, {&*a, &*b, &*dst});
  if (options.numerics) {
    std::vector<double> x = gather(*a), y = gather(*b), z(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      z[i] = applyAlu(op.getOp(), x[i], y[i]);
    scatter(*dst, z);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorScalar(trn::TensorScalarOp op) {
  FailureOr<View> src = getView(op, op.getSrc()),
                  dst = getView(op, op.getDst());
  if (failed(src) || failed(dst))
    return failure();
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = ("tensor_scalar " + trn::stringifyAluOp(op.getOp0())).str();
  in.cycles = cost::streaming(src->freeElements(), p);
  addAccess(in, *src, false);
  addAccess(in, *dst, true);
  std::optional<View> s0, s1;
  for (auto [v, out] :
       {std::pair<Value, std::optional<View> *>(op.getScalar0Tile(), &s0),
        {op.getScalar1Tile(), &s1}}) {
    if (!v)
      continue;
    FailureOr<View> x = getView(op, v);
    if (failed(x))
      return failure();
    *out = *x;
    addAccess(in, *x, false);
  }
  setPorts(in, {&*src, &*dst});
  if (options.numerics) {
    int64_t parts = src->partitions(), f = src->freeElements();
    std::vector<double> x = gather(*src);
    std::vector<double> t0 = s0 ? gather(*s0) : std::vector<double>();
    std::vector<double> t1 = s1 ? gather(*s1) : std::vector<double>();
    double i0 =
        op.getScalar0Attr() ? op.getScalar0Attr().getValueAsDouble() : 0;
    double i1 =
        op.getScalar1Attr() ? op.getScalar1Attr().getValueAsDouble() : 0;
    auto step = [](trn::AluOp alu, double v, double s, bool reverse) {
      return reverse ? applyAlu(alu, s, v) : applyAlu(alu, v, s);
    };
    for (int64_t c = 0; c < parts; ++c)
      for (int64_t e = 0; e < f; ++e) {
        double &v = x[c * f + e];
        v = step(op.getOp0(), v, scalarAt(s0 ? &t0 : nullptr, i0, c),
                 op.getReverse0());
        if (op.getOp1())
          v = step(*op.getOp1(), v, scalarAt(s1 ? &t1 : nullptr, i1, c),
                   op.getReverse1());
      }
    scatter(*dst, x);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorReduce(trn::TensorReduceOp op) {
  FailureOr<View> src = getView(op, op.getSrc()),
                  dst = getView(op, op.getDst());
  if (failed(src) || failed(dst))
    return failure();
  // The reduced dims are trailing (the verifier's rule): each output
  // element reduces a contiguous run of the row-major source.
  int64_t group = 1;
  for (int64_t axis : op.getAxes()) {
    if (axis < 1 || axis >= int64_t(src->sizes.size()))
      return op.emitError("trn-sim: reduction axis out of range");
    group *= src->sizes[axis];
  }
  if (group == 0 || dst->numElements() * group != src->numElements())
    return op.emitError("trn-sim: tensor_reduce shapes do not agree");
  Instr in;
  in.unit = Unit::Vector;
  in.name = ("tensor_reduce " + trn::stringifyAluOp(op.getOp())).str();
  bool bf16Fast =
      elementType(*src).isBF16() && elementType(*dst).isBF16() &&
      (op.getOp() == trn::AluOp::Add || op.getOp() == trn::AluOp::Max);
  in.cycles = cost::tensorReduce(src->freeElements(), bf16Fast);
  addAccess(in, *src, false);
  addAccess(in, *dst, true);
  setPorts(in, {&*src, &*dst});
  if (options.numerics) {
    std::vector<double> x = gather(*src), y(dst->numElements());
    for (size_t o = 0; o < y.size(); ++o) {
      double acc = x[o * group];
      for (int64_t i = 1; i < group; ++i)
        acc = applyAlu(op.getOp(), acc, x[o * group + i]);
      y[o] = op.getNegate() ? -float(acc) : float(acc);
    }
    scatter(*dst, y);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorCopy(trn::TensorCopyOp op) {
  FailureOr<View> src = getView(op, op.getSrc()),
                  dst = getView(op, op.getDst());
  if (failed(src) || failed(dst))
    return failure();
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = "tensor_copy";
  in.cycles = cost::streaming(src->freeElements(), p);
  addAccess(in, *src, false);
  addAccess(in, *dst, true);
  setPorts(in, {&*src, &*dst});
  if (options.numerics)
    scatter(*dst, gather(*src));
  return emit(op, std::move(in));
}

static double attrValue(Attribute a) {
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return double(i.getInt());
  return 0;
}

LogicalResult Interpreter::runMemset(trn::MemsetOp op) {
  FailureOr<View> dst = getView(op, op.getDst());
  if (failed(dst))
    return failure();
  double value = attrValue(op.getValue());
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = "memset";
  Type t = elementType(*dst);
  bool half = value == 0 && (t.isBF16() || t.isF16());
  in.cycles = cost::memset(dst->freeElements(), half, p);
  addAccess(in, *dst, true);
  setPorts(in, {&*dst});
  if (options.numerics)
    scatter(*dst, std::vector<double>(dst->numElements(), value));
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runPattern(Operation *op, ArrayRef<int64_t> pattern,
                                      int64_t offset, int64_t cm, Value dstV,
                                      Value onTrueV,
                                      std::optional<trn::AluOp> cmp,
                                      double onFalse) {
  FailureOr<View> dst = getView(op, dstV);
  if (failed(dst))
    return failure();
  std::optional<View> onTrue;
  if (onTrueV) {
    FailureOr<View> t = getView(op, onTrueV);
    if (failed(t))
      return failure();
    onTrue = *t;
  }
  int64_t parts = dst->partitions(), f = dst->freeElements();
  int64_t covered = 1;
  for (size_t i = 1; i < pattern.size(); i += 2)
    covered *= pattern[i];
  if (pattern.size() % 2 || covered != f)
    return op->emitError("trn-sim: the pattern does not cover the tile");
  Instr in;
  in.unit = Unit::GpSimd;
  in.name = op->getName().stripDialect().str();
  in.cycles = cost::gpsimdPattern(f, p);
  if (onTrue)
    addAccess(in, *onTrue, false);
  addAccess(in, *dst, true);
  SmallVector<const View *> vs = {&*dst};
  if (onTrue)
    vs.push_back(&*onTrue);
  setPorts(in, vs);
  if (options.numerics) {
    std::vector<double> t = onTrue ? gather(*onTrue) : std::vector<double>();
    std::vector<double> out(parts * f);
    size_t dims = pattern.size() / 2;
    for (int64_t c = 0; c < parts; ++c)
      for (int64_t e = 0; e < f; ++e) {
        // Element e's pattern indices, outermost first, int32 arithmetic.
        int64_t rest = e, value = offset + c * cm;
        for (size_t d = dims; d-- > 0;) {
          int64_t count = pattern[2 * d + 1];
          value += pattern[2 * d] * (rest % count);
          rest /= count;
        }
        value = int32_t(uint32_t(value));
        out[c * f + e] =
            cmp ? (applyAlu(*cmp, double(value), 0) != 0 ? t[c * f + e]
                                                         : onFalse)
                : double(value);
      }
    scatter(*dst, out);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTrn(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](trn::DmaCopyOp o) { return runDma(o); })
      .Case([&](trn::MatmulOp o) { return runMatmul(o); })
      .Case([&](trn::TransposeOp o) { return runTranspose(o); })
      .Case([&](trn::ActivationOp o) { return runActivation(o); })
      .Case([&](trn::TensorTensorOp o) { return runTensorTensor(o); })
      .Case([&](trn::TensorScalarOp o) { return runTensorScalar(o); })
      .Case([&](trn::TensorReduceOp o) { return runTensorReduce(o); })
      .Case([&](trn::TensorCopyOp o) { return runTensorCopy(o); })
      .Case([&](trn::MemsetOp o) { return runMemset(o); })
      .Case([&](trn::IotaOp o) {
        return runPattern(o, o.getPattern(), o.getOffsetAttr().getInt(),
                          o.getChannelMultiplierAttr().getInt(), o.getDst(),
                          Value(), std::nullopt, 0);
      })
      .Case([&](trn::AffineSelectOp o) {
        return runPattern(o, o.getPattern(), o.getOffsetAttr().getInt(),
                          o.getChannelMultiplierAttr().getInt(), o.getDst(),
                          o.getOnTrue(), o.getCmp(),
                          o.getOnFalseAttr().getValueAsDouble());
      })
      .Default([&](Operation *o) {
        return o->emitError("trn-sim: '")
               << o->getName() << "' is not simulated";
      });
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

/// A deterministic value for element `i` of argument `arg`: uniform in
/// [-1, 1) for floats, [-8, 8] for integers, rounded to the type.
static void fillArgument(Buffer &b, uint64_t seed, unsigned arg) {
  std::mt19937_64 rng(seed * 1000003u + arg);
  Type t = b.type.getElementType();
  bool isInt = t.isInteger();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-8, 8);
  for (double &x : b.data)
    x = roundTo(t, isInt ? double(integer(rng)) : real(rng));
}

/// Identity or strided: a host memref cast to hbm keeps its layout (a
/// subview of a bigger host array is strided), and the simulator holds each
/// argument as a dense row-major copy of its elements, so only the shape
/// matters to it.
static bool isStridedArg(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getLayout().isIdentity() ||
         succeeded(type.getStridesAndOffset(strides, offset));
}

FailureOr<SimResult> Interpreter::run() {
  if (kernel.isExternal())
    return kernel.emitError("trn-sim: kernel has no body");
  if (options.inputs && options.inputs->size() != kernel.getNumArguments())
    return kernel.emitError("trn-sim: ")
           << options.inputs->size() << " input values for "
           << kernel.getNumArguments() << " kernel arguments";
  for (BlockArgument arg : kernel.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape() || !isStridedArg(type) ||
        trn::getMemorySpace(type) != trn::MemorySpace::HBM ||
        !type.getElementType().isIntOrFloat())
      return kernel.emitError("trn-sim: kernel argument ")
             << arg.getArgNumber()
             << " must be a static identity-layout memref in #trn.space<hbm>"
             << " or a strided view of one";
    int id = newBuffer(nameOf(arg), type);
    const std::vector<double> *given =
        options.inputs ? &(*options.inputs)[arg.getArgNumber()] : nullptr;
    if (options.numerics && given && !given->empty()) {
      const std::vector<double> &in = *given;
      if (in.size() != buffers[id].data.size())
        return kernel.emitError("trn-sim: ")
               << in.size() << " input values for kernel argument "
               << arg.getArgNumber() << " of " << buffers[id].data.size()
               << " elements";
      for (size_t i = 0; i < in.size(); ++i)
        buffers[id].data[i] = roundTo(type.getElementType(), in[i]);
    } else if (options.numerics) {
      fillArgument(buffers[id], options.seed, arg.getArgNumber());
    }
    views[arg] = wholeView(id);
  }
  if (options.numerics)
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      result.initialArgs.push_back(buffers[i].data);
  if (failed(runBlock(kernel.getBody().front())))
    return failure();
  if (options.numerics)
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      result.finalArgs.push_back(buffers[i].data);
  return std::move(result);
}

FailureOr<SimResult> axe::trnsim::simulate(func::FuncOp kernel,
                                           const SimOptions &options) {
  Interpreter interp(kernel, options);
  return interp.run();
}
