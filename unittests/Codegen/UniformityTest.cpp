//===- UniformityTest.cpp - Which threads agree on a value ----------------===//

#include "axe/Codegen/Uniformity.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/InitAllDialects.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;

namespace {

const char *kKernel = R"mlir(
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  axe.kernel grid [4] threads 256 {
    %lane = axe.axis_id laneid
    %warp = axe.axis_id warpid
    %wg = axe.axis_id wgid
    %bx = axe.axis_id bx
    %a = arith.addi %warp, %bx {name = "warp_plus_cta"} : index
    %b = arith.muli %lane, %wg {name = "lane_times_wg"} : index
    %c = arith.addi %n, %c1 {name = "argument"} : index
    %s = scf.for %i = %c0 to %wg step %c1 iter_args(%acc = %bx) -> (index) {
      %d = arith.addi %i, %c1 {name = "wg_bounded_iv"} : index
      scf.yield %acc : index
    }
    %e = arith.addi %s, %c1 {name = "carried_cta"} : index
  }
  return
}
)mlir";

TEST(Uniformity, ScopeFromAxesAndControlFlow) {
  DialectRegistry registry;
  registerAllAxeDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &ctx);
  ASSERT_TRUE(module);
  KernelOp kernel;
  module->walk([&](KernelOp k) { kernel = k; });
  ASSERT_TRUE(kernel);
  UniformityAnalysis uniformity(kernel);
  std::map<std::string, ScopeKind> scopes;
  kernel.walk([&](Operation *op) {
    if (auto name = op->getAttrOfType<StringAttr>("name"))
      scopes[name.str()] = uniformity.uniformScope(op->getResult(0));
  });
  EXPECT_EQ(scopes["warp_plus_cta"], ScopeKind::Warp);
  EXPECT_EQ(scopes["lane_times_wg"], ScopeKind::Thread);
  EXPECT_EQ(scopes["argument"], ScopeKind::Mesh);
  EXPECT_EQ(scopes["wg_bounded_iv"], ScopeKind::Warpgroup);
  // The loop's trip count differs between warpgroups, so what it carries out
  // may too (even though this loop only passes bx along).
  EXPECT_EQ(scopes["carried_cta"], ScopeKind::Warpgroup);
  EXPECT_EQ(uniformScopeOfAxis("gpuid"), ScopeKind::Kernel);
  EXPECT_EQ(uniformScopeOfAxis("cbx"), ScopeKind::CTA);
  EXPECT_EQ(uniformScopeOfAxis("tid_in_wg"), ScopeKind::Thread);
  EXPECT_TRUE(uniformity.isUniformAcross(
      kernel.getBody().front().front().getResult(0), ScopeKind::Thread));
}

} // namespace
