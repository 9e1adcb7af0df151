//===- InferLayoutsTest.cpp - axe-infer-layouts over schedules of a test --===//
//
// The pass knows schedules only through the registry, so a backend made up
// here shows each of its steps apart from any real target: anchors from
// proposals, propagation through copies, lifting a slice's layout to its
// buffer, region arguments, one conversion where two operators disagree,
// the refusal with allow-conversions=false, and idempotence.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/InitAllDialects.h"
#include "axe/Layout/TileLayout.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;

namespace {

/// An M x K row-major or K x N column-major tile on m.
Attribute layoutOf(MLIRContext *ctx, int64_t rows, int64_t cols,
                   bool columnMajor) {
  IterList iters = {Iter{rows, columnMajor ? 1 : cols, "m"},
                    Iter{cols, columnMajor ? rows : 1, "m"}};
  return getLayoutAttr(ctx, Layout(*TileLayout::create(iters)));
}

/// Whether `v` is laid out as `want`, wherever it starts (a slice at a
/// start other than 0 has an offset).
bool hasLayout(Value v, Attribute want) {
  auto type = cast<BufferType>(v.getType());
  return type.hasLayout() &&
         type.getLayout().tile().shard() ==
             cast<LayoutAttrInterface>(want).getLayout().tile().shard();
}

/// A gemm that needs A row-major and B column-major, and proposes them.
Schedule toyGemm() {
  Schedule s;
  s.name = "toy.gemm";
  s.opName = "axe.gemm";
  s.priority = 20;
  s.match = [](Operation *op, const ScheduleContext &) {
    auto gemm = cast<GemmOp>(op);
    auto a = cast<BufferType>(gemm.getA().getType());
    auto b = cast<BufferType>(gemm.getB().getType());
    MLIRContext *ctx = op->getContext();
    if (!hasLayout(gemm.getA(),
                   layoutOf(ctx, a.getShape()[0], a.getShape()[1], false)))
      return ScheduleMatch::decline("A must be row-major");
    if (!hasLayout(gemm.getB(),
                   layoutOf(ctx, b.getShape()[0], b.getShape()[1], true)))
      return ScheduleMatch::decline("B must be column-major");
    return ScheduleMatch::accept();
  };
  s.rewrite = [](Operation *, const ScheduleContext &, const std::any &,
                 RewriterBase &) { return failure(); };
  s.propose = [](Operation *op, const ScheduleContext &) {
    auto gemm = cast<GemmOp>(op);
    auto a = cast<BufferType>(gemm.getA().getType());
    auto b = cast<BufferType>(gemm.getB().getType());
    LayoutProposal p;
    MLIRContext *ctx = op->getContext();
    p.layouts.push_back(
        {0, layoutOf(ctx, a.getShape()[0], a.getShape()[1], false)});
    p.layouts.push_back(
        {1, layoutOf(ctx, b.getShape()[0], b.getShape()[1], true)});
    p.reason = "row-major A, column-major B";
    return llvm::SmallVector<LayoutProposal>{p};
  };
  return s;
}

/// Takes anything and proposes nothing.
Schedule anything(llvm::StringRef op) {
  Schedule s;
  s.name = ("toy." + op.drop_front(4)).str();
  s.opName = op.str();
  s.match = [](Operation *, const ScheduleContext &) {
    return ScheduleMatch::accept();
  };
  s.rewrite = [](Operation *, const ScheduleContext &, const std::any &,
                 RewriterBase &) { return failure(); };
  return s;
}

Backend toyBackend() {
  Backend b;
  b.name = "toy";
  b.addSchedules = [](ScheduleRegistry &registry) {
    (void)registry.add(toyGemm());
    (void)registry.add(anything("axe.copy"));
    (void)registry.add(anything("axe.fill"));
  };
  b.dependentDialects = [](DialectRegistry &) {};
  return b;
}

class InferLayoutsTest : public ::testing::Test {
protected:
  InferLayoutsTest() {
    DialectRegistry registry;
    registerAllAxeDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `body` into a cpu kernel, runs the pass; null on failure, with
  /// the diagnostics in `diagnostics`.
  OwningOpRef<ModuleOp> run(llvm::StringRef body, bool allowConversions = true,
                            int times = 1, bool printAnalysisOnly = false) {
    std::string text =
        "module attributes {axe.target = #axe.target<\"cpu\">} {\n"
        "func.func @k(%A: memref<32x32xf32>, %C: memref<32x32xf32>) {\n"
        "%zero = arith.constant 0.0 : f32\n"
        "axe.kernel grid [1] threads 32 {\n" +
        body.str() + "\n}\nreturn\n}\n}\n";
    diagnostics.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      llvm::raw_string_ostream os(diagnostics);
      os << d << "\n";
      for (const Diagnostic &note : d.getNotes())
        os << "  note: " << note << "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return nullptr;
    for (int i = 0; i < times; ++i) {
      PassManager pm(&context);
      AxeInferLayoutsOptions options;
      options.target = "cpu";
      options.allowConversions = allowConversions;
      options.printAnalysisOnly = printAnalysisOnly;
      pm.addPass(createAxeInferLayouts(options, BackendSet{toyBackend()}));
      if (failed(pm.run(*module)))
        return nullptr;
    }
    return module;
  }

  static std::string print(ModuleOp module) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return text;
  }

  MLIRContext context;
  std::string diagnostics;
};

constexpr llvm::StringLiteral kGlobalA =
    "%gA = axe.view %A[0, 0] : memref<32x32xf32> -> "
    "!axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, global>\n";
constexpr llvm::StringLiteral kC =
    "%c = axe.alloc : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, "
    "1)]>, shared>\n";

/// %a is A of one gemm and B of another: row-major for the first,
/// column-major for the second.
constexpr llvm::StringLiteral kOneBufferTwoRoles = R"(
    %a = axe.alloc : !axe.buffer<32x32xf32, ?, shared>
    axe.copy %gA to %a at cta : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, global> to !axe.buffer<32x32xf32, ?, shared>
    axe.gemm %a, %a into %c at cta : !axe.buffer<32x32xf32, ?, shared>, !axe.buffer<32x32xf32, ?, shared> into !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
  )";

TEST_F(InferLayoutsTest, AnchorsComeFromProposalsAndScheduleIsPinned) {
  auto module = run(kGlobalA.str() + kC.str() + R"(
    %a = axe.alloc : !axe.buffer<32x32xf32, ?, shared>
    %b = axe.alloc : !axe.buffer<32x32xf32, ?, shared>
    axe.copy %gA to %a at cta : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, global> to !axe.buffer<32x32xf32, ?, shared>
    axe.copy %gA to %b at cta : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, global> to !axe.buffer<32x32xf32, ?, shared>
    axe.gemm %a, %b into %c at cta : !axe.buffer<32x32xf32, ?, shared>, !axe.buffer<32x32xf32, ?, shared> into !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
  )");
  ASSERT_TRUE(module) << diagnostics;
  std::string text = print(*module);
  EXPECT_NE(text.find("axe.alloc : !axe.buffer<32x32xf32, "
                      "#axe.layout<S[(32, 32) : (32, 1)]>, shared>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("axe.alloc : !axe.buffer<32x32xf32, "
                      "#axe.layout<S[(32, 32) : (1, 32)]>, shared>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("schedule = {cpu = \"toy.gemm\"}"), std::string::npos)
      << text;
  EXPECT_EQ(text.find(", ?,"), std::string::npos) << text;
}

TEST_F(InferLayoutsTest, RunningTwiceChangesNothing) {
  std::string body = kGlobalA.str() + kC.str() + kOneBufferTwoRoles.str();
  auto once = run(body, true, 1);
  auto twice = run(body, true, 2);
  ASSERT_TRUE(once && twice) << diagnostics;
  EXPECT_EQ(print(*once), print(*twice));
}

TEST_F(InferLayoutsTest, FullyAnnotatedKernelIsUnchanged) {
  std::string body = kGlobalA.str() + kC.str() + R"(
    axe.copy %gA to %c at cta : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, global> to !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
  )";
  std::string text =
      "module attributes {axe.target = #axe.target<\"cpu\">} {\n"
      "func.func @k(%A: memref<32x32xf32>, %C: memref<32x32xf32>) {\n"
      "%zero = arith.constant 0.0 : f32\n"
      "axe.kernel grid [1] threads 32 {\n" +
      body + "\n}\nreturn\n}\n}\n";
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(parsed);
  auto module = run(body);
  ASSERT_TRUE(module) << diagnostics;
  EXPECT_EQ(print(*parsed), print(*module));
}

TEST_F(InferLayoutsTest, OneBufferTwoRolesTakesOneConversion) {
  // %a is A of one gemm and B of another: row-major for the first,
  // column-major for the second. One layout serves one of them; the other
  // reads a scratch copy.
  auto module = run(kGlobalA.str() + kC.str() + kOneBufferTwoRoles.str());
  ASSERT_TRUE(module) << diagnostics;
  int copies = 0, allocs = 0;
  module->walk([&](CopyOp) { ++copies; });
  module->walk([&](AllocOp) { ++allocs; });
  EXPECT_EQ(copies, 2) << print(*module); // the user's and one conversion
  EXPECT_EQ(allocs, 3) << print(*module); // %c, %a and one scratch
  module->walk([&](GemmOp gemm) {
    MLIRContext *ctx = gemm.getContext();
    EXPECT_TRUE(hasLayout(gemm.getA(), layoutOf(ctx, 32, 32, false)));
    EXPECT_TRUE(hasLayout(gemm.getB(), layoutOf(ctx, 32, 32, true)));
  });
}

TEST_F(InferLayoutsTest, AnalysisOnlyCountsWhatItWouldDo) {
  auto module = run(kGlobalA.str() + kC.str() + kOneBufferTwoRoles.str(),
                    /*allowConversions=*/true, /*times=*/1,
                    /*printAnalysisOnly=*/true);
  ASSERT_TRUE(module) << diagnostics;
  EXPECT_NE(diagnostics.find("axe-infer-layouts would infer 1 layout(s) and "
                             "insert 1 conversion(s)"),
            std::string::npos)
      << diagnostics;
  int copies = 0;
  module->walk([&](CopyOp) { ++copies; });
  EXPECT_EQ(copies, 1) << print(*module);
  EXPECT_NE(print(*module).find(", ?,"), std::string::npos);
}

TEST_F(InferLayoutsTest, WithoutConversionsItFailsWithTheReasons) {
  auto module = run(kGlobalA.str() + kC.str() + kOneBufferTwoRoles.str(),
                    /*allowConversions=*/false);
  EXPECT_FALSE(module);
  EXPECT_NE(diagnostics.find("no layouts found for which a schedule of target "
                             "cpu runs this op (conversions are off: "
                             "allow-conversions=false)"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("schedule 'toy.gemm' declined: B must be "
                             "column-major"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("candidates for this buffer:"), std::string::npos)
      << diagnostics;
}

TEST_F(InferLayoutsTest, SliceProposalLiftsToTheWholeBuffer) {
  // Two 32x32 halves of a 64x32 buffer are each a gemm's A: the buffer is
  // the two row-major halves one after the other.
  auto module = run(kC.str() + R"(
    %a = axe.alloc : !axe.buffer<64x32xf32, ?, shared>
    %b = axe.alloc : !axe.buffer<32x32xf32, ?, shared>
    axe.fill %a, %zero at cta : !axe.buffer<64x32xf32, ?, shared>
    axe.fill %b, %zero at cta : !axe.buffer<32x32xf32, ?, shared>
    %top = axe.slice %a[0, 0] : !axe.buffer<64x32xf32, ?, shared> -> !axe.buffer<32x32xf32, ?, shared>
    %bot = axe.slice %a[32, 0] : !axe.buffer<64x32xf32, ?, shared> -> !axe.buffer<32x32xf32, ?, shared>
    axe.gemm %top, %b into %c at cta : !axe.buffer<32x32xf32, ?, shared>, !axe.buffer<32x32xf32, ?, shared> into !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
    axe.gemm %bot, %b into %c at cta : !axe.buffer<32x32xf32, ?, shared>, !axe.buffer<32x32xf32, ?, shared> into !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
  )");
  ASSERT_TRUE(module) << diagnostics;
  std::string text = print(*module);
  EXPECT_NE(text.find("axe.alloc : !axe.buffer<64x32xf32, "
                      "#axe.layout<S[(64, 32) : (32, 1)]>, shared>"),
            std::string::npos)
      << text;
  int copies = 0;
  module->walk([&](CopyOp) { ++copies; });
  EXPECT_EQ(copies, 0) << text;
}

TEST_F(InferLayoutsTest, RegionArgumentsShareTheirBuffersLayout) {
  auto module = run(kC.str() + R"(
    %a = axe.alloc : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %b = axe.alloc : !axe.buffer<32x32xf32, ?, shared>
    axe.fill %b, %zero at cta : !axe.buffer<32x32xf32, ?, shared>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %b) -> (!axe.buffer<32x32xf32, ?, shared>) {
      axe.gemm %a, %x into %c at cta : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>, !axe.buffer<32x32xf32, ?, shared> into !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
      scf.yield %x : !axe.buffer<32x32xf32, ?, shared>
    }
  )");
  ASSERT_TRUE(module) << diagnostics;
  std::string text = print(*module);
  EXPECT_EQ(text.find(", ?,"), std::string::npos) << text;
  EXPECT_NE(text.find("-> (!axe.buffer<32x32xf32, "
                      "#axe.layout<S[(32, 32) : (1, 32)]>, shared>) {"),
            std::string::npos)
      << text;
}

TEST_F(InferLayoutsTest, IfMergeOfTwoRolesTakesOneConversion) {
  // The scf.if ties %a, %b and its result to one layout; %a is A of a gemm
  // (row-major) and %b is B of another (column-major), so one of the two
  // reads a scratch copy.
  auto module = run(kC.str() + R"(
    %rows = axe.alloc : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
    %cols = axe.alloc : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (1, 32)]>, shared>
    %cond = arith.constant true
    %a = axe.alloc : !axe.buffer<32x32xf32, ?, shared>
    %b = axe.alloc : !axe.buffer<32x32xf32, ?, shared>
    axe.fill %a, %zero at cta : !axe.buffer<32x32xf32, ?, shared>
    axe.fill %b, %zero at cta : !axe.buffer<32x32xf32, ?, shared>
    axe.gemm %a, %cols into %c at cta : !axe.buffer<32x32xf32, ?, shared>, !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (1, 32)]>, shared> into !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
    axe.gemm %rows, %b into %c at cta : !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>, !axe.buffer<32x32xf32, ?, shared> into !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, shared>
    %m = scf.if %cond -> (!axe.buffer<32x32xf32, ?, shared>) {
      scf.yield %a : !axe.buffer<32x32xf32, ?, shared>
    } else {
      scf.yield %b : !axe.buffer<32x32xf32, ?, shared>
    }
    axe.fill %m, %zero at cta : !axe.buffer<32x32xf32, ?, shared>
  )");
  ASSERT_TRUE(module) << diagnostics;
  std::string text = print(*module);
  EXPECT_EQ(text.find(", ?,"), std::string::npos) << text;
  int copies = 0;
  module->walk([&](CopyOp) { ++copies; });
  EXPECT_EQ(copies, 1) << text;
  module->walk([&](GemmOp gemm) {
    MLIRContext *ctx = gemm.getContext();
    EXPECT_TRUE(hasLayout(gemm.getA(), layoutOf(ctx, 32, 32, false))) << text;
    EXPECT_TRUE(hasLayout(gemm.getB(), layoutOf(ctx, 32, 32, true))) << text;
  });
}

TEST_F(InferLayoutsTest, OnlyAllocsSlicesAndTiesMayBePending) {
  std::string text =
      "module attributes {axe.target = #axe.target<\"cpu\">} {\n"
      "func.func @k(%p: !axe.buffer<32x32xf32, ?, shared>) {\n"
      "%zero = arith.constant 0.0 : f32\n"
      "axe.kernel grid [1] threads 32 {\n"
      "axe.fill %p, %zero at cta : !axe.buffer<32x32xf32, ?, shared>\n"
      "%a = axe.alloc : !axe.buffer<32x32xf32, ?, shared>\n"
      "}\nreturn\n}\n}\n";
  diagnostics.clear();
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    llvm::raw_string_ostream(diagnostics) << d << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  AxeInferLayoutsOptions options;
  options.target = "cpu";
  pm.addPass(createAxeInferLayouts(options, BackendSet{toyBackend()}));
  // A buffer from outside the kernel has no alloc to choose for.
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_NE(diagnostics.find("this buffer comes from outside the kernel"),
            std::string::npos)
      << diagnostics;
}

} // namespace
