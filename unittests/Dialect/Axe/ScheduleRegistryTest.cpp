//===- ScheduleRegistryTest.cpp - User schedules registered from C++ ------===//

#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/InitAllDialects.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;

namespace {

const char *kFill = R"mlir(
!b = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, shared>
func.func @f() {
  %z = arith.constant 0.0 : f32
  %s = axe.alloc : !b
  axe.fill %s, %z at cta : !b
  return
}
)mlir";

const TargetDescription &cpuTarget() { return **lookupTarget("cpu"); }

/// A registry of the CPU schedules plus the test's own; each test owns its
/// registry, so nothing leaks into the next.
std::shared_ptr<ScheduleRegistry> cpuRegistry() {
  auto reg = std::make_shared<ScheduleRegistry>();
  addCPUSchedules(*reg);
  return reg;
}

Operation *findOp(ModuleOp module, StringRef name) {
  Operation *found = nullptr;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() == name)
      found = op;
  });
  return found;
}

/// kFill parsed in a context of its own, and its axe.fill.
struct FillModule {
  FillModule() : ctx(registry()) {
    module = parseSourceString<ModuleOp>(kFill, &ctx);
    if (module)
      fill = findOp(*module, "axe.fill");
  }
  static DialectRegistry registry() {
    DialectRegistry r;
    registerAllAxeDialects(r);
    return r;
  }
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  Operation *fill = nullptr;
};

TEST(ScheduleRegistry, UserScheduleWinsByPriority) {
  auto reg = cpuRegistry();
  int matched = 0, rewritten = 0;
  Schedule mine;
  mine.name = "test.fill.mine";
  mine.opName = "axe.fill";
  mine.targets = targetKind(TargetKind::CPU);
  mine.priority = 100;
  mine.match = [&](Operation *, const ScheduleContext &ctx) {
    ++matched;
    EXPECT_EQ(ctx.targetName(), "cpu");
    return ScheduleMatch::accept(42);
  };
  mine.rewrite = [&](Operation *op, const ScheduleContext &,
                     const std::any &plan, RewriterBase &rw) {
    // The rewrite gets what the match planned.
    EXPECT_EQ(std::any_cast<int>(plan), 42);
    ++rewritten;
    rw.eraseOp(op);
    return success();
  };
  std::string error;
  ASSERT_TRUE(succeeded(reg->add(mine, &error))) << error;
  // A second registration under the same name is refused with a reason.
  EXPECT_TRUE(failed(reg->add(mine, &error)));
  EXPECT_NE(error.find("already registered"), std::string::npos);

  auto names = reg->candidates("axe.fill", cpuTarget());
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front()->name, "test.fill.mine");
  // Not a candidate on a GPU: its targets are the CPUs.
  for (const Schedule *s : reg->candidates("axe.fill", **lookupTarget("sm_90")))
    EXPECT_NE(s->name, "test.fill.mine");

  FillModule in;
  ASSERT_TRUE(in.fill);
  PassManager pm(&in.ctx);
  AxeDispatchOptions opts;
  opts.target = "cpu";
  pm.addPass(createAxeDispatch(opts, BackendSet{cpuBackend()}, reg));
  ASSERT_TRUE(succeeded(pm.run(*in.module)));
  EXPECT_EQ(matched, 1);
  EXPECT_EQ(rewritten, 1);
  EXPECT_TRUE(reg->remove("axe.fill", "test.fill.mine"));
  EXPECT_FALSE(reg->remove("axe.fill", "test.fill.mine"));
}

TEST(ScheduleRegistry, DecliningUserScheduleFallsBackToCPU) {
  auto reg = cpuRegistry();
  Schedule picky;
  picky.name = "test.fill.picky";
  picky.opName = "axe.fill";
  picky.targets = anyTarget();
  picky.priority = 100;
  picky.match = [](Operation *, const ScheduleContext &) {
    return ScheduleMatch::decline("only fills of 4 elements");
  };
  picky.rewrite = [](Operation *, const ScheduleContext &, const std::any &,
                     RewriterBase &) { return failure(); };
  ASSERT_TRUE(succeeded(reg->add(picky)));
  FillModule in;
  ASSERT_TRUE(in.fill);
  ScheduleContext sctx;
  sctx.target = &cpuTarget();
  auto chosen = reg->select(in.fill, sctx);
  ASSERT_TRUE(succeeded(chosen));
  EXPECT_EQ(chosen->first->name, "cpu.fill");
}

TEST(ScheduleRegistry, ForcedPerTarget) {
  auto reg = cpuRegistry();
  FillModule in;
  ASSERT_TRUE(in.fill);
  Operation *fill = in.fill;
  ScheduleContext sctx;
  sctx.target = &cpuTarget();
  Builder b(&in.ctx);
  // A choice for another target leaves the CPU free.
  fill->setAttr(kScheduleAttrName,
                b.getDictionaryAttr({b.getNamedAttr(
                    "sm_90", b.getStringAttr("some.gpu.fill"))}));
  auto free = reg->select(fill, sctx);
  ASSERT_TRUE(succeeded(free));
  EXPECT_EQ(free->first->name, "cpu.fill");
  // A choice for the CPU is forced.
  fill->setAttr(
      kScheduleAttrName,
      b.getDictionaryAttr({b.getNamedAttr("cpu", b.getStringAttr("cpu.fill")),
                           b.getNamedAttr("sm_90", b.getStringAttr("x"))}));
  auto forced = reg->select(fill, sctx);
  ASSERT_TRUE(succeeded(forced));
  EXPECT_EQ(forced->first->name, "cpu.fill");
  // An unknown target name is a typo, not a free choice.
  in.ctx.getDiagEngine().registerHandler(
      [](Diagnostic &) { return success(); });
  fill->setAttr(kScheduleAttrName,
                b.getDictionaryAttr({b.getNamedAttr(
                    "sm90", b.getStringAttr("some.gpu.fill"))}));
  EXPECT_TRUE(failed(reg->select(fill, sctx)));
}

} // namespace
