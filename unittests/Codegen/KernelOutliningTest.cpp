//===- KernelOutliningTest.cpp - outlineKernels over a toy backend --------===//
//
// The steps every outlining backend shares, apart from any real one: the
// names (numbered per host function), the arguments in the host's order,
// constants cloned rather than passed, the body moved with its uses
// remapped, the launch in the kernel's place, and the error on a value the
// backend's kernels cannot take.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/KernelCaptures.h"
#include "axe/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;

namespace {

/// Kernels become func.funcs taking memrefs; the launch is a call.
class ToyOutlining : public KernelOutlining {
public:
  StringRef backend() const override { return "toy"; }
  StringRef nameSuffix() const override { return "_toy"; }
  StringRef takes() const override { return "a toy kernel takes memrefs"; }
  Type argumentType(Value v) const override {
    return isa<MemRefType>(v.getType()) ? v.getType() : Type();
  }
  LogicalResult prepare(KernelOp) override {
    ++prepared;
    return success();
  }
  Operation *createFunction(KernelOp kernel, StringRef name, TypeRange types,
                            RewriterBase &rw) override {
    rw.setInsertionPointAfter(kernel->getParentOfType<func::FuncOp>());
    auto fn = func::FuncOp::create(rw, kernel.getLoc(), name,
                                   rw.getFunctionType(types, {}));
    rw.setInsertionPointToEnd(fn.addEntryBlock());
    func::ReturnOp::create(rw, kernel.getLoc());
    return fn;
  }
  LogicalResult lowerBody(Operation *, RewriterBase &) override {
    ++lowered;
    return success();
  }
  void launch(KernelOp kernel, Operation *fn, const KernelCaptures &c,
              RewriterBase &rw) override {
    func::CallOp::create(rw, kernel.getLoc(), cast<func::FuncOp>(fn),
                         c.arguments);
  }
  int prepared = 0, lowered = 0;
};

struct KernelOutliningTest : public ::testing::Test {
  KernelOutliningTest() {
    DialectRegistry registry;
    registerAllAxeDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  OwningOpRef<ModuleOp> parse(StringRef src) {
    return parseSourceString<ModuleOp>(src, &ctx);
  }
  MLIRContext ctx;
};

constexpr StringLiteral kTwoKernels = R"mlir(
func.func @host(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c = arith.constant 2.0 : f32
  axe.kernel on #axe.target<"cpu"> threads 32 {
    memref.store %c, %b[%c0] : memref<4xf32>
    %v = memref.load %a[%c0] : memref<4xf32>
  }
  axe.kernel on #axe.target<"cpu"> threads 32 {
    %v = memref.load %b[%c0] : memref<4xf32>
  }
  return
}
)mlir";

TEST_F(KernelOutliningTest, NamesArgumentsConstantsAndLaunches) {
  OwningOpRef<ModuleOp> module = parse(kTwoKernels);
  ASSERT_TRUE(module);
  ToyOutlining toy;
  ASSERT_TRUE(succeeded(outlineKernels(*module, toy)));
  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(toy.prepared, 2);
  EXPECT_EQ(toy.lowered, 2);

  auto first = module->lookupSymbol<func::FuncOp>("host_toy0");
  auto second = module->lookupSymbol<func::FuncOp>("host_toy1");
  ASSERT_TRUE(first && second);
  // The host's arguments in its order; constants are not arguments.
  EXPECT_EQ(first.getNumArguments(), 2u);
  EXPECT_EQ(second.getNumArguments(), 1u);
  // The constants were cloned in; the body reads the arguments.
  int constants = 0;
  first.walk([&](arith::ConstantOp) { ++constants; });
  EXPECT_EQ(constants, 2);
  bool readsArgument = false;
  first.walk([&](memref::LoadOp load) {
    readsArgument = load.getMemRef() == first.getArgument(0);
  });
  EXPECT_TRUE(readsArgument);

  // The host launches each, passing its own values, and has no kernel left.
  auto host = module->lookupSymbol<func::FuncOp>("host");
  SmallVector<func::CallOp> calls;
  host.walk([&](func::CallOp call) { calls.push_back(call); });
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].getCallee(), "host_toy0");
  EXPECT_EQ(calls[0].getOperand(0), host.getArgument(0));
  EXPECT_EQ(calls[0].getOperand(1), host.getArgument(1));
  EXPECT_EQ(calls[1].getOperand(0), host.getArgument(1));
  int kernels = 0;
  module->walk([&](KernelOp) { ++kernels; });
  EXPECT_EQ(kernels, 0);
}

TEST_F(KernelOutliningTest, RefusesValuesTheBackendCannotTake) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @host(%a: memref<4xf32>, %i: index) {
  axe.kernel on #axe.target<"cpu"> threads 32 {
    %v = memref.load %a[%i] : memref<4xf32>
  }
  return
}
)mlir");
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  ToyOutlining toy;
  EXPECT_TRUE(failed(outlineKernels(*module, toy)));
  EXPECT_EQ(message, "toy: the kernel uses a value of type 'index' from its "
                     "function that is not a constant; a toy kernel takes "
                     "memrefs");
  // Nothing was built for it.
  EXPECT_FALSE(module->lookupSymbol<func::FuncOp>("host_toy"));
  EXPECT_EQ(toy.lowered, 0);
}

} // namespace
