//===- ScheduleRegistryTest.cpp - User schedules registered from C++ ------===//

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"
#include "axe/Dialect/Axe/Transforms/Schedule.h"
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

TEST(ScheduleRegistry, UserScheduleWinsByPriority) {
  registerCPUSchedules();
  ScheduleRegistry &reg = ScheduleRegistry::global();
  int matched = 0, rewritten = 0;
  Schedule mine;
  mine.name = "test.fill.mine";
  mine.opName = "axe.fill";
  mine.target = "cpu";
  mine.priority = 100;
  mine.match = [&](Operation *, const ScheduleContext &ctx) {
    ++matched;
    EXPECT_EQ(ctx.target, "cpu");
    return ScheduleMatch::accept();
  };
  mine.rewrite = [&](Operation *op, const ScheduleContext &, RewriterBase &rw) {
    ++rewritten;
    rw.eraseOp(op);
    return success();
  };
  std::string error;
  ASSERT_TRUE(succeeded(reg.add(mine, &error))) << error;
  // A second registration under the same name is refused with a reason.
  EXPECT_TRUE(failed(reg.add(mine, &error)));
  EXPECT_NE(error.find("already registered"), std::string::npos);

  auto names = reg.candidates("axe.fill", "cpu");
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front()->name, "test.fill.mine");

  DialectRegistry registry;
  registerAllAxeDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kFill, &ctx);
  ASSERT_TRUE(module);
  PassManager pm(&ctx);
  AxeDispatchOptions opts;
  opts.target = "cpu";
  pm.addPass(createAxeDispatch(opts));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_EQ(matched, 1);
  EXPECT_EQ(rewritten, 1);
  EXPECT_TRUE(reg.remove("axe.fill", "cpu", "test.fill.mine"));
}

TEST(ScheduleRegistry, DecliningUserScheduleFallsBackToCPU) {
  registerCPUSchedules();
  ScheduleRegistry &reg = ScheduleRegistry::global();
  Schedule picky;
  picky.name = "test.fill.picky";
  picky.opName = "axe.fill";
  picky.target = "cpu";
  picky.priority = 100;
  picky.match = [](Operation *, const ScheduleContext &) {
    return ScheduleMatch::decline("only fills of 4 elements");
  };
  picky.rewrite = [](Operation *, const ScheduleContext &, RewriterBase &) {
    return failure();
  };
  ASSERT_TRUE(succeeded(reg.add(picky)));
  DialectRegistry registry;
  registerAllAxeDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kFill, &ctx);
  ASSERT_TRUE(module);
  Operation *fill = nullptr;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "axe.fill")
      fill = op;
  });
  ASSERT_TRUE(fill);
  ScheduleContext sctx;
  sctx.target = "cpu";
  FailureOr<const Schedule *> chosen = reg.select(fill, sctx);
  ASSERT_TRUE(succeeded(chosen));
  EXPECT_EQ((*chosen)->name, "cpu.fill");
  EXPECT_TRUE(reg.remove("axe.fill", "cpu", "test.fill.picky"));
}

} // namespace
