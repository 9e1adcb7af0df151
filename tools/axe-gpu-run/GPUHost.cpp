//===- GPUHost.cpp - Host code on the JIT, kernels in the interpreter -----===//
//
// The host module is a clone of the input without its gpu.modules. Each
//   gpu.launch_func @m::@k blocks in (gx, gy, gz) threads in (bx, by, bz)
//       dynamic_shared_memory_size s args(%a : memref<...>, %n : index)
// becomes
//   func.call @__axe_gpu_run_launch_<i>(%i, gx, gy, gz, bx, by, bz, s,
//                                       %ua, %n64)
// with every size as i64, memrefs cast to memref<*xT> and scalars widened
// to i64 (floats to f64 bits): a private declaration with
// llvm.emit_c_interface whose C interface the JIT resolves to a trampoline
// of that arity. The trampoline reads the descriptors and runs the
// original gpu.func in the interpreter on the host's memory.
//
//===----------------------------------------------------------------------===//

#include "GPUHost.h"

#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/Runtime/HostJIT.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace axe::gpusim;
using namespace axe::hostjit;

namespace {

/// Leading launcher arguments: kernel index, grid, block, dynamic smem.
constexpr unsigned kLaunchHeader = 8;

struct Kernel {
  gpu::GPUFuncOp func;
  std::unique_ptr<Program> program;
  KernelStats stats;
};

struct HostState {
  std::vector<Kernel> kernels;
  const HostOptions *options = nullptr;
  std::mutex mutex;
};

HostState *hostState = nullptr;

} // namespace

//===----------------------------------------------------------------------===//
// Merging modules
//===----------------------------------------------------------------------===//

static bool isDeclaration(Operation *op) {
  auto f = dyn_cast<FunctionOpInterface>(op);
  return f && f.isExternal();
}

LogicalResult axe::gpusim::mergeModules(ModuleOp into, ModuleOp extra) {
  SymbolTable table(into);
  for (NamedAttribute a : extra->getAttrs())
    if (!into->hasAttr(a.getName()))
      into->setAttr(a.getName(), a.getValue());
  for (Operation &op : llvm::make_early_inc_range(*extra.getBody())) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    Operation *existing = name ? table.lookup(name) : nullptr;
    if (existing) {
      if (isDeclaration(&op))
        continue; // `into` has it, declared or defined
      if (!isDeclaration(existing))
        return op.emitError("axe-gpu-run: @")
               << name.getValue() << " is defined in two modules";
      table.erase(existing);
    }
    op.moveBefore(into.getBody(), into.getBody()->end());
    if (name)
      table.insert(&op);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

static void launch(ArrayRef<uint64_t> words) {
  HostState &s = *hostState;
  std::lock_guard<std::mutex> lock(s.mutex);
  Kernel &k = s.kernels[words[0]];
  LaunchDims dims;
  for (int d = 0; d < 3; ++d) {
    dims.grid[d] = int64_t(words[1 + d]);
    dims.block[d] = int64_t(words[4 + d]);
  }
  dims.dynamicSharedBytes = int64_t(words[7]);
  std::vector<ArgValue> args;
  for (auto [n, info] : llvm::enumerate(k.program->args)) {
    uint64_t w = words[kLaunchHeader + n];
    ArgValue a;
    if (info.isMemRef) {
      StridedMemRef m =
          readDescriptor(*reinterpret_cast<UnrankedDescriptor *>(w));
      a.isMemRef = true;
      a.aligned = m.aligned;
      a.offset = m.offset;
      a.sizes.assign(m.sizes.begin(), m.sizes.end());
      a.strides.assign(m.strides.begin(), m.strides.end());
    } else {
      a.bits = w;
    }
    args.push_back(std::move(a));
  }
  if (failed(launchKernel(*k.program, dims, args, s.options->run, k.stats)))
    exitFromHost(1);
}

static std::string launcherName(size_t index) {
  return "__axe_gpu_run_launch_" + std::to_string(index);
}

/// The launcher's operand for a kernel operand: memrefs as memref<*xT> in
/// the default memory space, scalars as i64.
static FailureOr<Value> hostOperand(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (auto m = dyn_cast<MemRefType>(t)) {
    if (m.getMemorySpace()) {
      auto plain = MemRefType::get(m.getShape(), m.getElementType(),
                                   m.getLayout(), Attribute());
      v = memref::MemorySpaceCastOp::create(b, loc, plain, v);
    }
    Type unranked = UnrankedMemRefType::get(m.getElementType(), Attribute());
    return memref::CastOp::create(b, loc, unranked, v).getResult();
  }
  Type i64 = b.getI64Type();
  if (isa<IndexType>(t))
    return arith::IndexCastOp::create(b, loc, i64, v).getResult();
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.getWidth() == 64)
      return v;
    if (i.getWidth() > 64)
      return failure();
    return arith::ExtUIOp::create(b, loc, i64, v).getResult();
  }
  if (auto f = dyn_cast<FloatType>(t)) {
    if (f.getWidth() < 64)
      v = arith::ExtFOp::create(b, loc, b.getF64Type(), v);
    return arith::BitcastOp::create(b, loc, i64, v).getResult();
  }
  return failure();
}

static FailureOr<Value> asI64(OpBuilder &b, Location loc, Value v) {
  if (!v)
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0))
        .getResult();
  return hostOperand(b, loc, v);
}

/// Replaces `launch` (of kernel `index`) by a call to its launcher.
static LogicalResult redirectLaunch(ModuleOp host, gpu::LaunchFuncOp op,
                                    size_t index) {
  if (op.getAsyncToken() || !op.getAsyncDependencies().empty())
    return op.emitError("axe-gpu-run: asynchronous launches are not "
                        "supported");
  if (op.hasClusterSize())
    return op.emitError("axe-gpu-run: clusters are not modelled yet");
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> operands{
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(int64_t(index)))};
  gpu::KernelDim3 grid = op.getGridSizeOperandValues(),
                  block = op.getBlockSizeOperandValues();
  SmallVector<Value> sizes{grid.x,
                           grid.y,
                           grid.z,
                           block.x,
                           block.y,
                           block.z,
                           op.getDynamicSharedMemorySize()};
  for (Value v : sizes) {
    FailureOr<Value> w = asI64(b, loc, v);
    if (failed(w))
      return op.emitError("axe-gpu-run: unsupported launch size type");
    operands.push_back(*w);
  }
  for (Value v : op.getKernelOperands()) {
    FailureOr<Value> w = hostOperand(b, loc, v);
    if (failed(w))
      return op.emitError("axe-gpu-run: kernel operands of type ")
             << v.getType() << " are not supported";
    operands.push_back(*w);
  }
  std::string name = launcherName(index);
  auto decl = host.lookupSymbol<func::FuncOp>(name);
  if (!decl) {
    OpBuilder mb = OpBuilder::atBlockEnd(host.getBody());
    decl = func::FuncOp::create(
        mb, loc, name, mb.getFunctionType(ValueRange(operands).getTypes(), {}));
    decl.setPrivate();
    decl->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
  }
  func::CallOp::create(b, loc, decl, operands);
  op.erase();
  return success();
}

/// The kernels the host launches, decoded, in launcher-index order, and a
/// host module whose launches call the launchers.
static FailureOr<OwningOpRef<ModuleOp>>
buildHost(ModuleOp module, std::vector<Kernel> &kernels) {
  llvm::StringMap<size_t> indexOf;
  SmallVector<std::pair<gpu::LaunchFuncOp, size_t>> launches;
  WalkResult walk = module.walk([&](gpu::LaunchFuncOp op) {
    SymbolRefAttr sym = op.getKernel();
    std::string key = sym.getRootReference().str() +
                      "::" + sym.getLeafReference().getValue().str();
    auto it = indexOf.find(key);
    if (it == indexOf.end()) {
      auto f = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(op, sym);
      if (!f) {
        op.emitError("axe-gpu-run: no gpu.func ") << sym;
        return WalkResult::interrupt();
      }
      FailureOr<std::unique_ptr<Program>> p = decodeKernel(f);
      if (failed(p))
        return WalkResult::interrupt();
      if (p->get()->args.size() + kLaunchHeader > kMaxTrampolineArity) {
        f.emitError("axe-gpu-run: kernels of at most ")
            << kMaxTrampolineArity - kLaunchHeader << " arguments";
        return WalkResult::interrupt();
      }
      it = indexOf.insert({key, kernels.size()}).first;
      kernels.push_back({f, std::move(*p), KernelStats()});
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  OwningOpRef<ModuleOp> host = module.clone();
  SmallVector<gpu::LaunchFuncOp> ops;
  host->walk([&](gpu::LaunchFuncOp op) { ops.push_back(op); });
  for (gpu::LaunchFuncOp op : ops) {
    SymbolRefAttr sym = op.getKernel();
    std::string key = sym.getRootReference().str() +
                      "::" + sym.getLeafReference().getValue().str();
    if (failed(redirectLaunch(*host, op, indexOf.lookup(key))))
      return failure();
  }
  for (auto m : llvm::make_early_inc_range(host->getOps<gpu::GPUModuleOp>()))
    m.erase();
  host.get()->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  WalkResult rest = host->walk([](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect())) {
      op->emitError("axe-gpu-run: host op '")
          << op->getName() << "' is not supported (host and device share "
          << "memory: use memref.alloc)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (rest.wasInterrupted())
    return failure();
  return std::move(host);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

static LogicalResult checkEntryPoint(ModuleOp host, const HostOptions &o) {
  auto f = host.lookupSymbol<func::FuncOp>(o.entryPoint);
  if (!f || f.isExternal()) {
    llvm::errs() << "axe-gpu-run: no host function '" << o.entryPoint
                 << "' to run (-e)\n";
    return failure();
  }
  FunctionType t = f.getFunctionType();
  bool ok = t.getNumInputs() == 0;
  Builder b(host.getContext());
  auto returns = [&](Type r) {
    return t.getNumResults() == 1 && t.getResult(0) == r;
  };
  if (o.entryPointResult == "void")
    ok &= t.getNumResults() == 0;
  else if (o.entryPointResult == "i32")
    ok &= returns(b.getI32Type());
  else if (o.entryPointResult == "i64")
    ok &= returns(b.getI64Type());
  else if (o.entryPointResult == "f32")
    ok &= returns(b.getF32Type());
  else {
    llvm::errs() << "axe-gpu-run: -entry-point-result is void, i32, i64 or "
                    "f32, not '"
                 << o.entryPointResult << "'\n";
    return failure();
  }
  if (!ok) {
    llvm::errs() << "axe-gpu-run: @" << o.entryPoint << " is " << t
                 << ", not a function of no arguments returning "
                 << o.entryPointResult << "\n";
    return failure();
  }
  return success();
}

/// The packed interface takes a pointer to the result after the
/// arguments; mlir-runner prints the result on its own line.
template <typename T>
static llvm::Error invokeReturning(ExecutionEngine &engine, StringRef name) {
  T result{};
  void *args[] = {&result};
  llvm::Error e = engine.invokePacked(name, args);
  if (!e)
    llvm::outs() << result << '\n';
  return e;
}

static llvm::Error invokeEntry(ExecutionEngine &engine, const HostOptions &o) {
  if (o.entryPointResult == "i32")
    return invokeReturning<int32_t>(engine, o.entryPoint);
  if (o.entryPointResult == "i64")
    return invokeReturning<int64_t>(engine, o.entryPoint);
  if (o.entryPointResult == "f32")
    return invokeReturning<float>(engine, o.entryPoint);
  return engine.invokePacked(o.entryPoint);
}

static LogicalResult writeStats(const HostState &s, StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    llvm::errs() << "axe-gpu-run: cannot write " << path << ": " << ec.message()
                 << "\n";
    return failure();
  }
  std::vector<std::pair<const Program *, const KernelStats *>> kernels;
  for (const Kernel &k : s.kernels)
    kernels.push_back({k.program.get(), &k.stats});
  writeStatsJSON(os, kernels);
  return success();
}

int axe::gpusim::runHost(ModuleOp module, const HostOptions &options) {
  HostState state;
  state.options = &options;
  FailureOr<OwningOpRef<ModuleOp>> host = buildHost(module, state.kernels);
  if (failed(host) || failed(checkEntryPoint(**host, options)))
    return 1;
  LoadedLibraries libs;
  if (failed(loadLibraries(options.sharedLibs, libs, "axe-gpu-run")))
    return 1;
  std::string error;
  std::unique_ptr<ExecutionEngine> engine = axe::lowerAndJIT(**host, error);
  if (!engine) {
    llvm::errs() << "axe-gpu-run: " << error << "\n";
    return 1;
  }
  std::vector<std::pair<std::string, void *>> launchers;
  for (auto [i, k] : llvm::enumerate(state.kernels))
    launchers.push_back(
        {"_mlir_ciface_" + launcherName(i),
         trampolineFor(kLaunchHeader + k.program->args.size())});
  registerSymbols(*engine, libs, launchers);
  hostState = &state;
  setTrampolineHandler(&launch);
  llvm::Error err = invokeEntry(*engine, options);
  hostState = nullptr;
  libs.destroy();
  std::fflush(stdout);
  llvm::outs().flush();
  if (err) {
    llvm::errs() << "axe-gpu-run: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  if (!options.statsFile.empty() &&
      failed(writeStats(state, options.statsFile)))
    return 1;
  return 0;
}

void axe::gpusim::registerGPUHostDialects(DialectRegistry &registry) {
  axe::registerCPUCodegenDialects(registry);
  registry.insert<cf::ControlFlowDialect, index::IndexDialect, ub::UBDialect,
                  gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect>();
}
