//===- GPUHost.cpp - Host code on the JIT, kernels in the interpreter -----===//
//
// The host module is a clone of the input without its gpu.modules. Each
//   gpu.launch_func @m::@k blocks in (gx, gy, gz) threads in (bx, by, bz)
//       dynamic_shared_memory_size s args(%a : memref<...>, %n : index)
// becomes
//   func.call @__axe_gpu_run_launch_<i>(%i, gx, gy, gz, bx, by, bz, s,
//                                       cx, cy, cz,
//                                       %ua, %n64)
// with every size as i64, memrefs cast to memref<*xT> and scalars widened
// to i64 (floats to f64 bits): a private declaration with
// llvm.emit_c_interface whose C interface the JIT resolves to a trampoline
// of that arity. The trampoline reads the descriptors and runs the
// original gpu.func in the interpreter on the host's memory.
//
// Each nvgpu.tma.create.descriptor %t box[...] becomes a call through a
// trampoline too, `__axe_gpu_run_tma_descriptor_<j>(tag, %t, %out, box...)`,
// that builds the TensorMap record (axe/GPUSim/Hopper.h) in host memory and
// stores its address in %out (a memref<1xi64>); the casts of the descriptor
// to !llvm.ptr become llvm.inttoptr of that address, which a launch passes
// as an i64 like any pointer.
//
//===----------------------------------------------------------------------===//

#include "GPUHost.h"

#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/GPUSim/Hopper.h"
#include "axe/Runtime/HostJIT.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <mutex>

using namespace mlir;
using namespace axe::gpusim;
using namespace axe::hostjit;

namespace {

/// Leading launcher arguments: kernel index, grid, block, dynamic smem,
/// cluster.
constexpr unsigned kLaunchHeader = 11;
/// The first word of a descriptor builder's call: this plus its site.
constexpr uint64_t kDescriptorTag = uint64_t(1) << 32;
/// A descriptor builder's arguments before the box dims: tag, tensor, out.
constexpr unsigned kDescriptorHeader = 3;

/// A nvgpu.tma.create.descriptor of the host: what its type fixes.
struct DescriptorSite {
  Location loc;
  std::string type; // the descriptor type, for diagnostics
  unsigned rank = 0;
  uint32_t elementBytes = 0;
  bool floatElements = false;
  uint32_t swizzle = 0, oobNaN = 0, interleave = 0;
};

struct Kernel {
  gpu::GPUFuncOp func;
  std::unique_ptr<Program> program;
  KernelStats stats;
};

struct HostState {
  std::vector<Kernel> kernels;
  std::vector<DescriptorSite> descriptors;
  TensorMapTable tensorMaps;
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

/// Builds the record of descriptor site `site` from the tensor's memref
/// and the box dims, checks it as cuTensorMapEncodeTiled would, and stores
/// its address in the out memref.
static void buildDescriptor(HostState &s, size_t site,
                            ArrayRef<uint64_t> words) {
  const DescriptorSite &d = s.descriptors[site];
  auto error = [&](const Twine &message) {
    emitError(d.loc) << "axe-gpu-run: tensor map descriptor #" << site << " ("
                     << d.type << "): " << message;
    exitFromHost(1);
  };
  StridedMemRef t =
      readDescriptor(*reinterpret_cast<UnrankedDescriptor *>(words[1]));
  StridedMemRef out =
      readDescriptor(*reinterpret_cast<UnrankedDescriptor *>(words[2]));
  size_t rank = t.sizes.size();
  if (rank != d.rank)
    error(llvm::formatv("the tensor has rank {0}, the box {1}", rank, d.rank));
  TensorMap m;
  m.elementBytes = d.elementBytes;
  m.rank = unsigned(rank);
  m.globalAddress = uint64_t(reinterpret_cast<uintptr_t>(t.aligned)) +
                    uint64_t(t.offset) * d.elementBytes;
  if (rank > kTensorMapMaxRank)
    error(llvm::formatv("rank {0} (1 to 5 are possible)", rank));
  for (size_t k = 0; k < rank; ++k) {
    size_t dim = rank - 1 - k; // innermost first
    if (t.strides[dim] < 0 || (k == 0 && t.strides[dim] != 1))
      error(llvm::formatv("the tensor's stride {0} in dim {1}: the innermost "
                          "dim must be contiguous and strides positive",
                          t.strides[dim], dim));
    m.dims[k] = uint64_t(t.sizes[dim]);
    m.strides[k] = uint64_t(t.strides[dim]) * d.elementBytes;
    int64_t box = int64_t(words[kDescriptorHeader + dim]);
    m.box[k] = box < 1 || box > 256 ? 0 : uint32_t(box);
    if (m.box[k] == 0)
      error(llvm::formatv("box dim {0} (innermost first) is {1} (1 to 256 are "
                          "possible)",
                          k, box));
  }
  m.swizzle = d.swizzle;
  m.oobNaN = d.oobNaN;
  m.interleave = d.interleave;
  std::string problem = checkTensorMap(m);
  if (!problem.empty())
    error(problem);
  s.tensorMaps.maps.push_back(m);
  uint64_t address =
      uint64_t(reinterpret_cast<uintptr_t>(&s.tensorMaps.maps.back()));
  std::memcpy(out.aligned + out.offset * 8, &address, 8);
}

static void launch(ArrayRef<uint64_t> words) {
  HostState &s = *hostState;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (words[0] >= kDescriptorTag)
    return buildDescriptor(s, size_t(words[0] - kDescriptorTag), words);
  Kernel &k = s.kernels[words[0]];
  LaunchDims dims;
  for (int d = 0; d < 3; ++d) {
    dims.grid[d] = int64_t(words[1 + d]);
    dims.block[d] = int64_t(words[4 + d]);
  }
  dims.dynamicSharedBytes = int64_t(words[7]);
  for (int d = 0; d < 3; ++d)
    dims.cluster[d] = int64_t(words[8 + d]);
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
  RunOptions run = s.options->run;
  run.tensorMaps = &s.tensorMaps;
  if (failed(launchKernel(*k.program, dims, args, run, k.stats)))
    exitFromHost(1);
}

static std::string launcherName(size_t index) {
  return "__axe_gpu_run_launch_" + std::to_string(index);
}

static std::string descriptorBuilderName(size_t index) {
  return "__axe_gpu_run_tma_descriptor_" + std::to_string(index);
}

/// Replaces a nvgpu.tma.create.descriptor by a call to its builder and the
/// casts of its result to !llvm.ptr by the record's address.
static LogicalResult redirectDescriptor(ModuleOp host,
                                        nvgpu::TmaCreateDescriptorOp op,
                                        std::vector<DescriptorSite> &sites) {
  nvgpu::TensorMapDescriptorType type = op.getTensorMap().getType();
  Type element = type.getTensor().getElementType();
  auto bits = element.getIntOrFloatBitWidth();
  DescriptorSite site{op.getLoc(), "", unsigned(op.getBoxDimensions().size())};
  llvm::raw_string_ostream(site.type) << type;
  site.elementBytes = bits / 8;
  site.floatElements = isa<FloatType>(element);
  switch (type.getSwizzle()) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
    site.swizzle = 0;
    break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
    site.swizzle = 32;
    break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
    site.swizzle = 64;
    break;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
    site.swizzle = 128;
    break;
  }
  site.oobNaN = type.getOob() == nvgpu::TensorMapOOBKind::OOB_NAN;
  switch (type.getInterleave()) {
  case nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE:
    site.interleave = 0;
    break;
  case nvgpu::TensorMapInterleaveKind::INTERLEAVE_16B:
    site.interleave = 16;
    break;
  case nvgpu::TensorMapInterleaveKind::INTERLEAVE_32B:
    site.interleave = 32;
    break;
  }
  if (bits % 8 || bits > 64)
    return op.emitError("axe-gpu-run: tensor maps of ")
           << element << " elements are not modelled";
  for (Operation *user : op.getTensorMap().getUsers())
    if (!isa<UnrealizedConversionCastOp>(user) || user->getNumResults() != 1 ||
        !isa<LLVM::LLVMPointerType>(user->getResult(0).getType()))
      return user->emitError("axe-gpu-run: a host's tensor map descriptor "
                             "goes to a kernel through "
                             "builtin.unrealized_conversion_cast to !llvm.ptr");
  size_t index = sites.size();
  sites.push_back(site);
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i64 = b.getI64Type();
  auto outType = MemRefType::get({1}, i64);
  Value out = memref::AllocaOp::create(b, loc, outType);
  SmallVector<Value> operands{
      arith::ConstantOp::create(
          b, loc, b.getI64IntegerAttr(int64_t(kDescriptorTag + index))),
      op.getTensor(),
      memref::CastOp::create(b, loc, UnrankedMemRefType::get(i64, Attribute()),
                             out)};
  for (Value box : op.getBoxDimensions())
    operands.push_back(arith::IndexCastOp::create(b, loc, i64, box));
  OpBuilder mb = OpBuilder::atBlockEnd(host.getBody());
  auto decl = func::FuncOp::create(
      mb, loc, descriptorBuilderName(index),
      mb.getFunctionType(ValueRange(operands).getTypes(), {}));
  decl.setPrivate();
  decl->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
  func::CallOp::create(b, loc, decl, operands);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value address = memref::LoadOp::create(b, loc, out, ValueRange{zero});
  for (Operation *user :
       llvm::make_early_inc_range(op.getTensorMap().getUsers())) {
    OpBuilder ub(user);
    Value p = LLVM::IntToPtrOp::create(ub, user->getLoc(),
                                       user->getResult(0).getType(), address);
    user->getResult(0).replaceAllUsesWith(p);
    user->erase();
  }
  op.erase();
  return success();
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
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::PtrToIntOp::create(b, loc, i64, v).getResult();
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
  if (op.hasClusterSize()) {
    gpu::KernelDim3 cluster = op.getClusterSizeOperandValues();
    sizes.append({cluster.x, cluster.y, cluster.z});
  } else {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    sizes.append({one, one, one});
  }
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
buildHost(ModuleOp module, std::vector<Kernel> &kernels,
          std::vector<DescriptorSite> &descriptors) {
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
  SmallVector<nvgpu::TmaCreateDescriptorOp> creates;
  host->walk([&](nvgpu::TmaCreateDescriptorOp op) { creates.push_back(op); });
  for (nvgpu::TmaCreateDescriptorOp op : creates)
    if (failed(redirectDescriptor(*host, op, descriptors)))
      return failure();
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
  FailureOr<OwningOpRef<ModuleOp>> host =
      buildHost(module, state.kernels, state.descriptors);
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
  for (auto [i, d] : llvm::enumerate(state.descriptors))
    launchers.push_back({"_mlir_ciface_" + descriptorBuilderName(i),
                         trampolineFor(kDescriptorHeader + d.rank)});
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
