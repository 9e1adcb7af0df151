//===- RandomKernelRun.cpp - Running and checking random axe kernels ------===//
//
// Element values stored in their types, the kernel run through the real
// pipeline (axe-dispatch{target=cpu}, convert-axe-to-cpu, upstream
// conversions to llvm) and JIT-compiled in-process, its globals read back
// and compared with a C++ reference; outputs written (whole, by row blocks
// at run-time starts, once per replica) for the comparison.
//
//===----------------------------------------------------------------------===//

#include "RandomKernel.h"

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/InitAllDialects.h"

#ifdef AXE_RANDOM_KERNELS_ON_GPU
#include "axe/Conversion/AxeToNVVM/AxeToNVVM.h"
#include "axe/GPUSim/Interpreter.h"
#include "axe/GPUSim/Program.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#endif

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace axe;
using namespace axe::testing;

namespace {

const llvm::fltSemantics *semanticsOf(const std::string &elem) {
  if (elem == "f16")
    return &llvm::APFloat::IEEEhalf();
  if (elem == "bf16")
    return &llvm::APFloat::BFloat();
  return nullptr;
}

} // namespace

namespace axe::randomkernel {

//===----------------------------------------------------------------------===//
// Element types: values are kept as floats on the C++ side (every value the
// tests use is exact in f32) and stored in the element type for the kernel
//===----------------------------------------------------------------------===//

int64_t elementBytes(const std::string &elem) {
  if (elem == "i1" || elem == "i8")
    return 1;
  if (elem == "f16" || elem == "bf16" || elem == "i16")
    return 2;
  if (elem == "i64" || elem == "f64")
    return 8;
  return 4;
}

void encode(const std::string &elem, float v, uint8_t *p) {
  if (isInteger(elem)) {
    int64_t i = int64_t(v);
    if (elem == "i1")
      i &= 1;
    memcpy(p, &i, elementBytes(elem)); // Little-endian: the low bytes.
  } else if (const llvm::fltSemantics *sem = semanticsOf(elem)) {
    llvm::APFloat f(v);
    bool lost;
    f.convert(*sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = uint16_t(f.bitcastToAPInt().getZExtValue());
    memcpy(p, &bits, 2);
  } else if (elem == "f64") {
    double d = v;
    memcpy(p, &d, 8);
  } else {
    memcpy(p, &v, 4);
  }
}

float decode(const std::string &elem, const uint8_t *p) {
  if (elem == "i1")
    return float(*p);
  if (elem == "i8")
    return float(int8_t(*p));
  if (elem == "i16") {
    int16_t i;
    memcpy(&i, p, 2);
    return float(i);
  }
  if (elem == "i32") {
    int32_t i;
    memcpy(&i, p, 4);
    return float(i);
  }
  if (elem == "i64") {
    int64_t i;
    memcpy(&i, p, 8);
    return float(i);
  }
  if (elem == "f64") {
    double d;
    memcpy(&d, p, 8);
    return float(d);
  }
  if (const llvm::fltSemantics *sem = semanticsOf(elem)) {
    uint16_t bits;
    memcpy(&bits, p, 2);
    llvm::APFloat f(*sem, llvm::APInt(16, bits));
    bool lost;
    f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.convertToFloat();
  }
  float v;
  memcpy(&v, p, 4);
  return v;
}

float roundTrip(const std::string &elem, float v) {
  uint8_t bytes[4];
  encode(elem, v, bytes);
  return decode(elem, bytes);
}

//===----------------------------------------------------------------------===//
// Running a kernel
//===----------------------------------------------------------------------===//

/// Why the last kernel was not run (GPU mode: a schedule the nvvm backend
/// lacks); checkOutputs reports it as a skip, not a pass.
static std::string skipReason;

#ifdef AXE_RANDOM_KERNELS_ON_GPU
/// The NVIDIA target the GPU mode lowers for: sm_90 has every thread axis
/// the kernels use (warpgroups included).
constexpr const char *kGPUChip = "sm_90";

/// The kernel through axe-to-nvvm, its one launch run by the GPU
/// interpreter on the globals' memory (host and device memory are one).
static ::testing::AssertionResult
runOnInterpreter(ModuleOp module, std::vector<std::vector<uint8_t>> &raw,
                 KernelText &k) {
  gpu::LaunchFuncOp launch;
  module.walk([&](gpu::LaunchFuncOp l) { launch = l; });
  if (!launch)
    return ::testing::AssertionFailure() << "no gpu.launch_func after "
                                            "axe-to-nvvm";
  auto func = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  auto program = gpusim::decodeKernel(func);
  if (failed(program))
    return ::testing::AssertionFailure() << "the interpreter cannot decode "
                                            "the kernel";
  gpusim::LaunchDims dims;
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value sizes[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  for (int i = 0; i < 6; ++i) {
    std::optional<int64_t> v = getConstantIntValue(sizes[i]);
    if (!v)
      return ::testing::AssertionFailure() << "a launch size is not constant";
    (i < 3 ? dims.grid[i] : dims.block[i - 3]) = *v;
  }
  if (Value smem = launch.getDynamicSharedMemorySize()) {
    std::optional<int64_t> bytes = getConstantIntValue(smem);
    if (!bytes)
      return ::testing::AssertionFailure()
             << "the dynamic shared memory size is not constant";
    dims.dynamicSharedBytes = *bytes;
  }
  SmallVector<gpusim::ArgValue> args;
  for (Value v : launch.getKernelOperands()) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner()->getParentOp() != launch->getParentOp())
      return ::testing::AssertionFailure()
             << "a kernel operand is not an argument of @kernel";
    unsigned i = arg.getArgNumber();
    auto &g = k.globals[i];
    gpusim::ArgValue a;
    a.isMemRef = true;
    a.aligned = raw[i].data();
    a.offset = g->offset;
    a.sizes.assign(g->shape.begin(), g->shape.end());
    a.strides.assign(g->strides.begin(), g->strides.end());
    args.push_back(std::move(a));
  }
  gpusim::KernelStats stats;
  if (failed(gpusim::launchKernel(**program, dims, args, {}, stats)))
    return ::testing::AssertionFailure() << "the interpreter reported an "
                                            "error";
  return ::testing::AssertionSuccess();
}
#endif

::testing::AssertionResult runKernel(KernelText &k) {
  skipReason.clear();
  std::string text = k.module();
  if (getenv("AXE_TEST_DUMP"))
    llvm::errs() << text;
  DialectRegistry registry;
  registerAllAxeDialects(registry);
  registerCPUCodegenDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d << "\n";
    for (const Diagnostic &note : d.getNotes())
      os << "  note: " << note << "\n";
    return success();
  });
  // Kernels alternate between outlined and inline operator code, so both
  // forms of axe-to-cpu run every kind of random kernel.
  static unsigned kernelsRun = 0;
  AxeToCPUOptions options;
  options.outline = kernelsRun++ % 2 == 0;
  auto fail = [&](const char *what) {
    return ::testing::AssertionFailure()
           << what << " (outline=" << options.outline << "):\n"
           << diagnostics << "\n-- kernel --\n"
           << text;
  };
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module)
    return fail("the generated kernel does not parse or verify");
  // Each global stored as its element type.
  std::vector<std::vector<uint8_t>> raw;
  for (auto &g : k.globals) {
    int64_t bytes = elementBytes(g->elem);
    raw.emplace_back(g->data.size() * bytes);
    for (size_t i = 0; i < g->data.size(); ++i)
      encode(g->elem, g->data[i], raw.back().data() + i * bytes);
  }
  auto readBack = [&] {
    for (size_t i = 0; i < k.globals.size(); ++i) {
      auto &g = k.globals[i];
      int64_t bytes = elementBytes(g->elem);
      for (size_t j = 0; j < g->data.size(); ++j)
        g->data[j] = decode(g->elem, raw[i].data() + j * bytes);
    }
  };
#ifdef AXE_RANDOM_KERNELS_ON_GPU
  {
    PassManager pm(&ctx);
    AxeToNVVMOptions nvvm;
    nvvm.chip = kGPUChip;
    buildAxeToNVVMPipeline(pm, nvvm);
    if (failed(pm.run(*module))) {
      // A kernel no nvvm schedule takes is reported, never passed.
      if (diagnostics.find("every candidate declined") != std::string::npos) {
        skipReason = "the nvvm backend has no schedule for it:\n" +
                     diagnostics.substr(0, 4000);
        return ::testing::AssertionSuccess();
      }
      return fail("axe-to-nvvm failed");
    }
    if (getenv("AXE_TEST_DUMP_LOWERED"))
      module->print(llvm::errs());
    ::testing::AssertionResult ran = runOnInterpreter(*module, raw, k);
    if (!ran)
      return fail(ran.message());
    readBack();
    return ::testing::AssertionSuccess();
  }
#endif
  PassManager pm(&ctx);
  buildAxeToCPUPipeline(pm, options);
  if (failed(pm.run(*module)))
    return fail("axe-to-cpu failed");
  std::string error;
  auto engine = lowerAndJIT(*module, error, /*alreadyLowered=*/true);
  if (!engine)
    return fail(error.c_str());
  // One ranked memref descriptor per global: {allocated, aligned, offset,
  // sizes..., strides...}.
  std::vector<std::vector<int64_t>> descs;
  for (size_t i = 0; i < k.globals.size(); ++i) {
    auto &g = k.globals[i];
    std::vector<int64_t> d;
    d.push_back(reinterpret_cast<int64_t>(raw[i].data()));
    d.push_back(reinterpret_cast<int64_t>(raw[i].data()));
    d.push_back(g->offset);
    d.insert(d.end(), g->shape.begin(), g->shape.end());
    d.insert(d.end(), g->strides.begin(), g->strides.end());
    descs.push_back(std::move(d));
  }
  std::vector<void *> descPtrs;
  for (auto &d : descs)
    descPtrs.push_back(d.data());
  SmallVector<void *> args;
  for (void *&p : descPtrs)
    args.push_back(&p);
  if (llvm::Error e = engine->invokePacked("_mlir_ciface_kernel", args))
    return ::testing::AssertionFailure() << llvm::toString(std::move(e));
  readBack();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult
matches(const GlobalArray &g, const std::vector<float> &want, float tolerance) {
  int64_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < want.size(); ++i) {
    float got = g.data[i];
    float w = roundTrip(g.elem, want[i]);
    bool ok = got == w || std::fabs(got - w) <= tolerance * std::fabs(w);
    if (ok)
      continue;
    if (bad < 5)
      first << " [" << i << "] got " << got << " want " << w << ";";
    ++bad;
  }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << g.name << ": " << bad << " of " << want.size()
         << " cells differ:" << first.str();
}

void forEachIndex(llvm::ArrayRef<int64_t> shape,
                  const std::function<void(llvm::ArrayRef<int64_t>)> &fn) {
  int64_t n = product(shape);
  for (int64_t f = 0; f < n; ++f)
    fn(unflattenIndex(f, shape));
}

void fillTiles(
    GlobalArray &g, int64_t total,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value) {
  for (int64_t k = 0; k < total; ++k)
    forEachIndex(g.tile, [&](llvm::ArrayRef<int64_t> x) {
      g.data[g.tileAddress(k, x)] = value(k, x);
    });
}

std::vector<GlobalArray *> storeResult(std::mt19937_64 &rng, KernelText &k,
                                       const Buf &dst, bool blockwise) {
  if (dst.shape.empty()) {
    // A scalar: one element per instance of a rank-1 global.
    std::vector<GlobalArray *> outs;
    std::vector<Buf> views{dst};
    for (const Buf &r : k.replicaViews(dst))
      views.push_back(r);
    for (const Buf &v : views) {
      GlobalArray &g = k.global(rng, {1}, dst.elem);
      k.copy(v, k.scalarView(g), coin(rng, 25));
      outs.push_back(&g);
    }
    return outs;
  }
  GlobalArray &out = k.global(rng, dst.shape, dst.elem);
  bool done = false;
  if (blockwise && dst.shape[0] > 1) {
    // Rows [i, i + b) at a time: slices at a run-time start in a loop.
    SmallVector<int64_t> blocks;
    for (int64_t b = 1; b < dst.shape[0]; ++b)
      if (dst.shape[0] % b == 0)
        blocks.push_back(b);
    int64_t b = pick(rng, blocks);
    Shape part = dst.shape;
    part[0] = b;
    SmallVector<SliceStart> known(dst.shape.size(), SliceStart::constant(0));
    known[0] = SliceStart::aligned(b);
    if (k.sliceLayout(dst, known, part)) {
      std::string i = k.beginFor(dst.shape[0], b);
      SmallVector<std::string> starts(dst.shape.size(), "0");
      starts[0] = i;
      Buf s = k.slice(dst, starts, known, part);
      Buf g = k.view(out, part, i);
      k.copy(s, g, coin(rng, 25));
      k.endFor();
      done = true;
    }
  }
  if (!done)
    k.copy(dst, k.view(out, dst.shape), coin(rng, 25));
  std::vector<GlobalArray *> outs{&out};
  for (const Buf &r : k.replicaViews(dst)) {
    GlobalArray &g = k.global(rng, dst.shape, dst.elem);
    k.copy(r, k.view(g, dst.shape), coin(rng, 25));
    outs.push_back(&g);
  }
  return outs;
}

std::vector<float> expectTiles(
    const GlobalArray &g, int64_t total,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value) {
  std::vector<float> want(g.data.size(), kUntouched);
  for (int64_t k = 0; k < total; ++k)
    forEachIndex(g.tile, [&](llvm::ArrayRef<int64_t> x) {
      want[g.tileAddress(k, x)] = value(k, x);
    });
  return want;
}

void checkOutputs(
    KernelText &k, const std::vector<GlobalArray *> &outs,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value,
    float tolerance) {
  checkOutputs(k, outs, std::vector<TileValue>(outs.size(), value), tolerance);
}

void checkOutputs(KernelText &k, const std::vector<GlobalArray *> &outs,
                  const std::vector<TileValue> &values, float tolerance) {
  ASSERT_EQ(outs.size(), values.size());
  // What every global holds before the run, for exportKernel.
  std::vector<std::vector<float>> initial;
  for (auto &g : k.globals)
    initial.push_back(g->data);
  ASSERT_TRUE(runKernel(k));
  if (!skipReason.empty())
    GTEST_SKIP() << skipReason;
  int64_t total = k.launch.total();
  std::vector<std::vector<float>> expected;
  for (size_t r = 0; r < outs.size(); ++r)
    expected.push_back(expectTiles(*outs[r], total, values[r]));
  exportKernel(k, initial, outs, expected, tolerance);
  for (size_t r = 0; r < outs.size(); ++r)
    EXPECT_TRUE(matches(*outs[r], expected[r], tolerance))
        << "(replica " << r << " of " << outs.size() << ")\n"
        << k.module();
}

} // namespace axe::randomkernel
