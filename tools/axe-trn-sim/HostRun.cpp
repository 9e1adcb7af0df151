//===- HostRun.cpp - Host code on the JIT, kernels in the simulator -------===//
//
// The host module is a clone of the input without its kernels. Each
//   func.call @K(%x0, ...)   with %xi = memref.memory_space_cast %hi
// becomes
//   func.call @__axe_trn_sim_launch_K(%index, %u0, ...)
// with %ui = memref.cast %hi to memref<*xT>, a call to a private declaration
// with llvm.emit_c_interface. The JIT resolves its C interface,
// `_mlir_ciface___axe_trn_sim_launch_K`, to a trampoline of the kernel's
// arity: it reads the unranked descriptors, simulates the original kernel
// on a copy of the host's data and writes the results back.
//
//===----------------------------------------------------------------------===//

#include "HostRun.h"

#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/Runtime/HostJIT.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <mutex>

using namespace mlir;
using namespace axe::trnsim;
using axe::hostjit::UnrankedDescriptor;

namespace {

/// A host memref: element (i0, i1, ...) is at
/// aligned + (offset + sum(i_d * strides_d)) * element bytes.
struct HostMemRef {
  char *aligned;
  int64_t offset;
  ArrayRef<int64_t> sizes, strides;
};

/// What the trampolines need. They are plain function pointers, so it is
/// global; launches are serialized in case host code calls from threads.
struct LaunchState {
  std::vector<func::FuncOp> kernels;
  const HostRunOptions *options = nullptr;
  std::optional<SimResult> *last = nullptr;
  int64_t launches = 0;
  std::mutex mutex;
};

LaunchState *launchState = nullptr;

constexpr unsigned kMaxKernelArgs = 8;
constexpr StringLiteral kLauncherPrefix = "__axe_trn_sim_launch_";

} // namespace

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// Bytes of one element in memory, as LLVM lays out iN and fN (i1 and f8
/// take a byte).
static size_t storageBytes(Type t) {
  return llvm::PowerOf2Ceil((t.getIntOrFloatBitWidth() + 7) / 8);
}

static double loadElement(Type t, const char *p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, storageBytes(t)); // little-endian hosts only
  unsigned width = t.getIntOrFloatBitWidth();
  if (t.isF64())
    return llvm::bit_cast<double>(bits);
  if (t.isF32())
    return llvm::bit_cast<float>(uint32_t(bits));
  if (auto f = dyn_cast<FloatType>(t)) {
    llvm::APFloat v(f.getFloatSemantics(), llvm::APInt(width, bits));
    bool loses;
    v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &loses);
    return v.convertToDouble();
  }
  llvm::APInt i(width, bits, /*isSigned=*/false, /*implicitTrunc=*/true);
  // i1 is a boolean: 1, not -1.
  if (width == 1 || t.isUnsignedInteger())
    return double(i.getZExtValue());
  return double(i.getSExtValue());
}

/// `v` is already rounded to `t` by the simulator.
static void storeElement(Type t, char *p, double v) {
  uint64_t bits;
  if (t.isF64()) {
    bits = llvm::bit_cast<uint64_t>(v);
  } else if (t.isF32()) {
    bits = llvm::bit_cast<uint32_t>(float(v));
  } else if (auto f = dyn_cast<FloatType>(t)) {
    llvm::APFloat x(v);
    bool loses;
    x.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &loses);
    bits = x.bitcastToAPInt().getZExtValue();
  } else {
    bits = v < 0 ? uint64_t(int64_t(v)) : uint64_t(v);
  }
  std::memcpy(p, &bits, storageBytes(t));
}

/// Calls fn(i, address) for each element, i counting in row-major order.
static void forEachElement(const HostMemRef &m, size_t elementBytes,
                           llvm::function_ref<void(size_t, char *)> fn) {
  int rank = m.sizes.size();
  int64_t total = 1;
  for (int64_t s : m.sizes)
    total *= s;
  SmallVector<int64_t, 4> index(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t at = m.offset;
    for (int d = 0; d < rank; ++d)
      at += index[d] * m.strides[d];
    fn(i, m.aligned + at * int64_t(elementBytes));
    for (int d = rank - 1; d >= 0 && ++index[d] == m.sizes[d]; --d)
      index[d] = 0;
  }
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

static Type argElementType(func::FuncOp kernel, unsigned arg) {
  return cast<MemRefType>(kernel.getArgumentTypes()[arg]).getElementType();
}

/// The host memref behind a descriptor, checked against the kernel's shape.
static FailureOr<HostMemRef> decode(func::FuncOp kernel, unsigned arg,
                                    const UnrankedDescriptor *d) {
  auto type = cast<MemRefType>(kernel.getArgumentTypes()[arg]);
  axe::hostjit::StridedMemRef r = axe::hostjit::readDescriptor(*d);
  HostMemRef m{r.aligned, r.offset, r.sizes, r.strides};
  if (m.sizes != type.getShape()) {
    std::string shape;
    llvm::raw_string_ostream os(shape);
    llvm::interleave(m.sizes, os, "x");
    return kernel.emitError("trn-sim: argument ")
           << arg << " is " << (shape.empty() ? "a scalar" : shape)
           << " on the host; the kernel takes " << type;
  }
  return m;
}

static std::vector<std::vector<double>>
readArguments(func::FuncOp kernel, ArrayRef<HostMemRef> args) {
  std::vector<std::vector<double>> values(args.size());
  for (auto [i, m] : llvm::enumerate(args)) {
    Type t = argElementType(kernel, i);
    std::vector<double> &out = values[i];
    forEachElement(m, storageBytes(t),
                   [&](size_t, char *p) { out.push_back(loadElement(t, p)); });
  }
  return values;
}

/// Writes back only the elements the kernel changed: an argument passed
/// twice (in place) must not have its new values overwritten by the other
/// operand's unchanged copy.
static void writeArguments(func::FuncOp kernel, ArrayRef<HostMemRef> args,
                           const SimResult &r) {
  for (auto [i, m] : llvm::enumerate(args)) {
    Type t = argElementType(kernel, i);
    const std::vector<double> &before = r.initialArgs[i],
                              &after = r.finalArgs[i];
    forEachElement(m, storageBytes(t), [&](size_t e, char *p) {
      if (std::memcmp(&before[e], &after[e], sizeof(double)) != 0)
        storeElement(t, p, after[e]);
    });
  }
}

/// The JIT'd caller cannot be unwound, and exit() would tear the engine
/// down under its own frames: flush what the host printed and leave.
[[noreturn]] static void abortRun(int64_t launch, func::FuncOp kernel) {
  std::fflush(stdout);
  llvm::outs().flush();
  llvm::errs() << "axe-trn-sim: launch " << launch << " (kernel @"
               << kernel.getName() << ") failed\n";
  axe::hostjit::exitFromHost(1);
}

static void printLaunch(int64_t launch, func::FuncOp kernel, const SimResult &r,
                        const SimParams &p) {
  llvm::errs() << llvm::formatv("launch {0}: kernel {1}: {2} instructions, "
                                "total {3:f1} ns, hfu {4:f4}\n",
                                launch, kernel.getName(), r.instructions,
                                r.totalNs, r.hfu(p));
}

static void launch(int64_t kernelIndex, ArrayRef<UnrankedDescriptor *> args) {
  LaunchState &s = *launchState;
  std::lock_guard<std::mutex> lock(s.mutex);
  int64_t n = s.launches++;
  func::FuncOp kernel = s.kernels[kernelIndex];
  SmallVector<HostMemRef> memrefs;
  for (auto [i, d] : llvm::enumerate(args)) {
    FailureOr<HostMemRef> m = decode(kernel, i, d);
    if (failed(m))
      abortRun(n, kernel);
    memrefs.push_back(*m);
  }
  SimOptions options = s.options->sim;
  std::vector<std::vector<double>> inputs;
  if (options.numerics) {
    inputs = readArguments(kernel, memrefs);
    options.inputs = &inputs;
  }
  FailureOr<SimResult> r = simulate(kernel, options);
  if (failed(r))
    abortRun(n, kernel);
  if (options.numerics)
    writeArguments(kernel, memrefs, *r);
  if (s.options->launchSummary)
    printLaunch(n, kernel, *r, options.params);
  *s.last = std::move(*r);
}

// The JIT calls a trampoline of the launcher's arity (HostJIT): the kernel
// index, then a pointer to each argument's unranked descriptor.
static void launchFromTrampoline(ArrayRef<uint64_t> words) {
  SmallVector<UnrankedDescriptor *> args;
  for (uint64_t w : words.drop_front())
    args.push_back(reinterpret_cast<UnrankedDescriptor *>(w));
  launch(int64_t(words[0]), args);
}

//===----------------------------------------------------------------------===//
// The host module
//===----------------------------------------------------------------------===//

static std::string launcherName(func::FuncOp kernel) {
  return (kLauncherPrefix + kernel.getName()).str();
}

/// The kernels, in launch-index order, after checking what the trampolines
/// can pass them.
static FailureOr<std::vector<func::FuncOp>> findKernels(ModuleOp module) {
  std::vector<func::FuncOp> kernels;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!f->hasAttr("trn.kernel"))
      continue;
    if (f.getNumResults() != 0)
      return f.emitError("axe-trn-sim: a trn kernel returns nothing");
    if (f.getNumArguments() > kMaxKernelArgs)
      return f.emitError("axe-trn-sim: host mode launches kernels of at most ")
             << kMaxKernelArgs << " arguments; @" << f.getName() << " has "
             << f.getNumArguments();
    for (Type t : f.getArgumentTypes())
      if (!isa<MemRefType>(t) ||
          !cast<MemRefType>(t).getElementType().isIntOrFloat())
        return f.emitError("axe-trn-sim: every argument of a trn kernel is a "
                           "memref of integers or floats, not ")
               << t;
    kernels.push_back(f);
  }
  return kernels;
}

/// The private declaration that the host calls instead of `kernel`.
static func::FuncOp declareLauncher(ModuleOp host, func::FuncOp kernel) {
  OpBuilder b = OpBuilder::atBlockEnd(host.getBody());
  SmallVector<Type> inputs{b.getI64Type()};
  for (Type t : kernel.getArgumentTypes())
    inputs.push_back(UnrankedMemRefType::get(
        cast<MemRefType>(t).getElementType(), Attribute()));
  auto decl = func::FuncOp::create(b, kernel.getLoc(), launcherName(kernel),
                                   b.getFunctionType(inputs, {}));
  decl.setPrivate();
  decl->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return decl;
}

/// The host memref under a kernel call's operand, as memref<*xT>.
static FailureOr<Value> hostOperand(OpBuilder &b, func::CallOp call,
                                    unsigned i) {
  auto cast = call.getOperand(i).getDefiningOp<memref::MemorySpaceCastOp>();
  auto source =
      cast ? dyn_cast<MemRefType>(cast.getSource().getType()) : MemRefType();
  if (!source)
    return call.emitError("axe-trn-sim: operand ")
           << i << " of a kernel call must be a memref.memory_space_cast of a "
           << "ranked host memref";
  if (source.getMemorySpace())
    return call.emitError("axe-trn-sim: operand ")
           << i << " of a kernel call comes from memory space "
           << source.getMemorySpace() << ", not the host's";
  Type unranked = UnrankedMemRefType::get(source.getElementType(), Attribute());
  return memref::CastOp::create(b, call.getLoc(), unranked, cast.getSource())
      .getResult();
}

static LogicalResult redirectCall(func::CallOp call, func::FuncOp launcher,
                                  int64_t index) {
  OpBuilder b(call);
  SmallVector<Value> operands{
      arith::ConstantOp::create(b, call.getLoc(), b.getI64IntegerAttr(index))};
  llvm::SetVector<Operation *> casts;
  for (unsigned i = 0; i < call.getNumOperands(); ++i) {
    FailureOr<Value> v = hostOperand(b, call, i);
    if (failed(v))
      return failure();
    operands.push_back(*v);
    casts.insert(call.getOperand(i).getDefiningOp());
  }
  func::CallOp::create(b, call.getLoc(), launcher, operands);
  call.erase();
  for (Operation *cast : casts)
    if (cast->use_empty())
      cast->erase();
  return success();
}

/// A clone of `module` that calls the launchers instead of `kernels`.
static FailureOr<OwningOpRef<ModuleOp>>
buildHostModule(ModuleOp module, ArrayRef<func::FuncOp> kernels) {
  OwningOpRef<ModuleOp> host = module.clone();
  llvm::StringMap<std::pair<int64_t, func::FuncOp>> launchers;
  for (int64_t i = 0, e = kernels.size(); i < e; ++i) {
    func::FuncOp kernel = kernels[i];
    if (host->lookupSymbol(launcherName(kernel)))
      return kernel.emitError("axe-trn-sim: the module already defines @")
             << launcherName(kernel);
    launchers[kernel.getName()] = {i, declareLauncher(*host, kernel)};
  }
  SmallVector<func::CallOp> calls;
  host->walk([&](func::CallOp call) {
    if (launchers.contains(call.getCallee()))
      calls.push_back(call);
  });
  for (func::CallOp call : calls) {
    auto [index, launcher] = launchers.lookup(call.getCallee());
    if (failed(redirectCall(call, launcher, index)))
      return failure();
  }
  for (func::FuncOp kernel : kernels)
    host->lookupSymbol(kernel.getName())->erase();
  // axe-trn-sim's source names are for the simulator's messages only.
  host->walk([](func::FuncOp f) { f->removeAttr("trn_sim.arg_names"); });
  return std::move(host);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

static void registerLaunchers(ExecutionEngine &engine,
                              ArrayRef<func::FuncOp> kernels,
                              const axe::hostjit::LoadedLibraries &libs) {
  std::vector<std::pair<std::string, void *>> launchers;
  for (func::FuncOp kernel : kernels)
    launchers.push_back(
        {"_mlir_ciface_" + launcherName(kernel),
         axe::hostjit::trampolineFor(kernel.getNumArguments() + 1)});
  axe::hostjit::registerSymbols(engine, libs, launchers);
}

static LogicalResult checkEntryPoint(ModuleOp host, StringRef name) {
  auto f = host.lookupSymbol<func::FuncOp>(name);
  if (!f || f.isExternal()) {
    llvm::errs() << "axe-trn-sim: no host function '" << name
                 << "' to run (-e)\n";
    return failure();
  }
  if (f.getNumArguments() != 0 || f.getNumResults() != 0) {
    llvm::errs() << "axe-trn-sim: -entry-point-result=void runs a function "
                 << "of no arguments and no results; @" << name << " is "
                 << f.getFunctionType() << "\n";
    return failure();
  }
  return success();
}

int axe::trnsim::runHost(ModuleOp module, const HostRunOptions &options,
                         std::optional<SimResult> &lastLaunch) {
  FailureOr<std::vector<func::FuncOp>> kernels = findKernels(module);
  if (failed(kernels))
    return 1;
  FailureOr<OwningOpRef<ModuleOp>> host = buildHostModule(module, *kernels);
  if (failed(host) || failed(checkEntryPoint(**host, options.entryPoint)))
    return 1;
  axe::hostjit::LoadedLibraries libs;
  if (failed(
          axe::hostjit::loadLibraries(options.sharedLibs, libs, "axe-trn-sim")))
    return 1;
  std::string error;
  std::unique_ptr<ExecutionEngine> engine = axe::lowerAndJIT(**host, error);
  if (!engine) {
    llvm::errs() << "axe-trn-sim: " << error << "\n";
    return 1;
  }
  registerLaunchers(*engine, *kernels, libs);
  axe::hostjit::setTrampolineHandler(&launchFromTrampoline);

  LaunchState state;
  state.kernels = *kernels;
  state.options = &options;
  state.last = &lastLaunch;
  launchState = &state;
  llvm::Error err = engine->invokePacked(options.entryPoint);
  launchState = nullptr;
  libs.destroy();
  // The host's output comes before anything the tool prints after it.
  std::fflush(stdout);
  if (err) {
    llvm::errs() << "axe-trn-sim: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}

void axe::trnsim::registerHostDialects(DialectRegistry &registry) {
  axe::registerCPUCodegenDialects(registry);
  registry.insert<cf::ControlFlowDialect, index::IndexDialect, ub::UBDialect>();
}
