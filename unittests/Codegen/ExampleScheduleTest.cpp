//===- ExampleScheduleTest.cpp - A schedule written on lib/Codegen alone --===//
//
// The worked example of docs/Architecture.md: a copy schedule that uses only
// lib/Codegen (layout emission, iteration spaces, loop nests), the target
// description and the backend's TargetCodegen, with no CPU code. The test
// registers it next to the CPU schedules, forces it on one copy into a
// swizzled buffer, reads the buffer back with the CPU's own copy, runs the
// result and checks every element.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/LayoutEmitter.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/Conversion/Passes.h"
#include "axe/InitAllDialects.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;

namespace {

// --- The example schedule (docs/Architecture.md quotes this) ------------

/// What the match hands the rewrite: each side's emitter.
struct CopyPlan {
  LayoutEmitter src, dst;
};

/// An m-only layout whose lowest address is 0 is addressed by its m
/// coordinate on every target; the example keeps to those.
bool addressedByM(const Layout &layout) {
  for (const std::string &axis : layout.tile().axes())
    if (axis != kDefaultAxis)
      return false;
  for (const Iter &it : layout.tile().shard())
    if (it.stride < 0)
      return false;
  return layout.tile().offset().get(kDefaultAxis) >= 0;
}

Schedule exampleCopy() {
  Schedule s;
  s.name = "example.copy";
  s.opName = "axe.copy";
  s.targets = anyTarget();
  s.summary = "one load and store per element, addresses from the layouts";
  s.match = [](Operation *op, const ScheduleContext &ctx) {
    auto copy = cast<CopyOp>(op);
    if (!ctx.codegen || !ctx.codegen->threads())
      return ScheduleMatch::decline(
          "needs element loads and stores (a ThreadTargetCodegen)");
    auto src = cast<BufferType>(copy.getSource().getType());
    auto dst = cast<BufferType>(copy.getTarget().getType());
    if (!addressedByM(src.getLayout()) || !addressedByM(dst.getLayout()))
      return ScheduleMatch::decline("handles layouts on m from address 0");
    auto srcEm = LayoutEmitter::get(src.getLayout(), src.getShape());
    auto dstEm = LayoutEmitter::get(dst.getLayout(), dst.getShape());
    if (!srcEm || !dstEm)
      return ScheduleMatch::decline(srcEm ? dstEm.message() : srcEm.message());
    return ScheduleMatch::accept(CopyPlan{*srcEm, *dstEm});
  };
  s.rewrite = [](Operation *op, const ScheduleContext &ctx,
                 const std::any &plan, RewriterBase &rw) {
    auto copy = cast<CopyOp>(op);
    const auto &p = std::any_cast<const CopyPlan &>(plan);
    Location loc = op->getLoc();
    const ThreadTargetCodegen &cg = *ctx.codegen->threads();
    // The buffers as the target holds them.
    TypeConverter types;
    ctx.codegen->populateTypeConversions(types);
    auto memory = [&](Value buffer) {
      Type t = types.convertType(buffer.getType());
      return UnrealizedConversionCastOp::create(rw, loc, t, buffer)
          .getResult(0);
    };
    Value src = memory(copy.getSource()), dst = memory(copy.getTarget());
    Type elt = cast<BufferType>(copy.getSource().getType()).getElementType();
    // One loop nest that steps both layouts.
    unsigned rank = p.src.rank();
    IterSpace space = IterSpace::build(
        p.src.shape(), {{&p.src, iota(rank)}, {&p.dst, iota(rank)}});
    SmallVector<Value> ivs(space.loops().size());
    emitNest(rw, loc, space, allLoopsExcept(space, {}), ivs, [&](OpBuilder &b) {
      CoordValue from = space.emitPlacement(b, loc, 0, ivs);
      p.src.applySwizzle(b, loc, from);
      Value v = cg.load(b, loc, src, from.get(b, loc, kDefaultAxis), elt,
                        /*lanes=*/1);
      // Every replica of the destination gets the value.
      CoordValue to = space.emitPlacement(b, loc, 1, ivs);
      p.dst.forEachPlacement(
          b, loc, to, [&](OpBuilder &nb, Location l, const CoordValue &c) {
            cg.store(nb, l, v, dst, c.get(nb, l, kDefaultAxis));
          });
    });
    rw.eraseOp(op);
    return success();
  };
  return s;
}

// --- The test -------------------------------------------------------------

const char *kKernel = R"mlir(
!g = !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
!s = !axe.buffer<16x16xf32, #axe.layout<SW(2, 2, 3) o S[(16, 16) : (1, 16)]>, shared>
func.func @kernel(%in: memref<16x16xf32>, %out: memref<16x16xf32>)
    attributes {llvm.emit_c_interface} {
  %gi = axe.view %in[0, 0] : memref<16x16xf32> -> !g
  %go = axe.view %out[0, 0] : memref<16x16xf32> -> !g
  %s = axe.alloc : !s
  axe.copy %gi to %s at cta {schedule = {cpu = "example.copy"}} : !g to !s
  axe.copy %s to %go at cta {schedule = {cpu = "cpu.copy.elements"}} : !s to !g
  return
}
)mlir";

TEST(ExampleSchedule, RunsNextToTheCPUSchedules) {
  auto schedules = std::make_shared<ScheduleRegistry>();
  addCPUSchedules(*schedules);
  ASSERT_TRUE(succeeded(schedules->add(exampleCopy())));

  DialectRegistry registry;
  registerAllAxeDialects(registry);
  registerCPUCodegenDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &ctx);
  ASSERT_TRUE(module);
  PassManager pm(&ctx);
  AxeDispatchOptions dispatch;
  dispatch.target = "cpu";
  pm.addPass(createAxeDispatch(dispatch, BackendSet{cpuBackend()}, schedules));
  pm.addPass(createConvertAxeToCPU());
  addCPUToLLVMPasses(pm);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::string error;
  auto engine = lowerAndJIT(*module, error, /*alreadyLowered=*/true);
  ASSERT_TRUE(engine) << error;

  std::vector<float> in(256), out(256, -1.0f);
  for (int i = 0; i < 256; ++i)
    in[i] = float(i);
  // Ranked memref descriptors: allocated, aligned, offset, sizes, strides.
  auto descriptor = [](std::vector<float> &data) {
    int64_t base = reinterpret_cast<int64_t>(data.data());
    return std::vector<int64_t>{base, base, 0, 16, 16, 16, 1};
  };
  std::vector<int64_t> inDesc = descriptor(in), outDesc = descriptor(out);
  void *inPtr = inDesc.data(), *outPtr = outDesc.data();
  SmallVector<void *> args{&inPtr, &outPtr};
  llvm::Error e = engine->invokePacked("_mlir_ciface_kernel", args);
  ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
  EXPECT_EQ(in, out);
}

} // namespace
