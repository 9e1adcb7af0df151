//===- Simulator.cpp - Running trn kernels in program order ---------------===//
//
// simulate(): the kernel's arguments become HBM buffers (given or seeded
// values), then the Interpreter walks the kernel's body. It unrolls
// scf.for, evaluates integer arith and resolves memref.subview views to
// regions of the buffers that hold them (Interpreter.cpp). Each trn
// instruction becomes an Instr (its queue, its cost, the regions it reads
// and writes; Instructions.cpp) that the Scheduler places in time
// (Scheduler.cpp); with numerics on, the instruction's values are computed
// too (program order is a valid serialization: the schedule only reorders
// instructions whose regions do not conflict).
//
//===----------------------------------------------------------------------===//

#include "axe/TrnSim/Simulator.h"

#include "Numerics.h"
#include "SimulatorInternal.h"

#include <random>

using namespace mlir;
using namespace axe;
using namespace axe::trnsim;
using namespace axe::trnsim::detail;

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
