//===- AxeDialectTest.cpp - Attributes, types and helpers from C++ --------===//
//
// What passes and schedules rely on when they read the dialect from C++: the
// layout attribute interface answers through the library, attributes unique
// by value, buffer types verify, targets are found by name, and slice
// layouts and alignments come out as the verifier computes them.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/InitAllDialects.h"
#include "axe/Target/Target.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;

namespace {

class AxeDialectTest : public ::testing::Test {
protected:
  AxeDialectTest() {
    DialectRegistry registry;
    registerAllAxeDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  LayoutAttrInterface layout(llvm::StringRef text) {
    Result<Layout> parsed = parseLayout(text);
    EXPECT_TRUE(bool(parsed)) << parsed.message();
    return getLayoutAttr(&context, *parsed);
  }

  Type f32() { return Float32Type::get(&context); }

  MLIRContext context;
};

constexpr llvm::StringLiteral kPaper =
    "S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + "
    "5@warpid";

TEST_F(AxeDialectTest, LayoutInterfaceAnswersThroughTheLibrary) {
  LayoutAttrInterface attr = layout(kPaper);
  ASSERT_TRUE(isa<LayoutAttr>(attr));
  EXPECT_EQ(attr.str(), kPaper.str());
  EXPECT_EQ(attr.getSize(), 128);
  EXPECT_TRUE(attr.admitsShape({8, 16}));
  EXPECT_FALSE(attr.admitsShape({8, 8}));
  EXPECT_FALSE(attr.isSwizzled());

  // The worked example of docs/LayoutSemantics.md section 2: element (2, 9).
  auto images = attr.applyAt({2, 9}, {8, 16});
  ASSERT_TRUE(bool(images)) << images.message();
  ASSERT_EQ(images->size(), 2u);
  EXPECT_EQ((*images)[0].str(), "{laneid: 8, m: 1, warpid: 6}");
  EXPECT_EQ((*images)[1].str(), "{laneid: 8, m: 1, warpid: 10}");
  EXPECT_EQ(attr.apply(2 * 16 + 9), *images);

  EXPECT_EQ(attr.getSpan().get("laneid"), 32);
  EXPECT_EQ(attr.getSpan().get("m"), 2);
  EXPECT_EQ(attr.getAxes(),
            (llvm::SmallVector<std::string, 4>{"laneid", "m", "warpid"}));
}

TEST_F(AxeDialectTest, CanonicalFormIsTheLibraries) {
  LayoutAttrInterface attr = layout("S[(2, 3, 6) : (18, 6, 1)]");
  EXPECT_FALSE(attr.isCanonical());
  LayoutAttrInterface canonical = attr.getCanonical();
  EXPECT_EQ(canonical.str(), "S[36 : 1]");
  EXPECT_TRUE(canonical.isCanonical());
  EXPECT_EQ(canonical.getTileLayout(), canonicalize(attr.getTileLayout()));
}

TEST_F(AxeDialectTest, SwizzledLayouts) {
  LayoutAttrInterface attr = layout("SW(3, 3, 3) o S[(8, 8, 8) : (64, 8, 1)]");
  auto swizzled = dyn_cast<SwizzledLayoutAttr>(attr);
  ASSERT_TRUE(swizzled);
  EXPECT_TRUE(attr.isSwizzled());
  EXPECT_EQ(swizzled.getSwizzle().perElement, 3);
  EXPECT_EQ(attr.getCanonical().str(), "SW(3, 3, 3) o S[512 : 1]");
  // Column 0 of the row-major 8x64 f16 tile: 64 i + 8 ((j / 8) xor i).
  EXPECT_EQ(attr.apply(64 * 3)[0].get("m"), 64 * 3 + 8 * 3);
  // The swizzle keeps addresses inside blocks of 2^(M + B) = 64 cells.
  EXPECT_EQ(layout("SW(3, 3, 3) o S[100 : 1]").getSpan().get("m"), 128);

  // An identity swizzle disappears from the canonical form.
  LayoutAttrInterface identity = layout("SW(0, 0, 0) o S[8 : 1]");
  EXPECT_TRUE(isa<SwizzledLayoutAttr>(identity));
  EXPECT_TRUE(isa<LayoutAttr>(identity.getCanonical()));
}

TEST_F(AxeDialectTest, AttributesUniqueByValueAndRoundTrip) {
  EXPECT_EQ(layout("S[(8, 8) : (8@m, 1)]"), layout("S[(8, 8) : (8, 1)]"));
  EXPECT_NE(layout("S[(8, 8) : (8, 1)]"), layout("S[64 : 1]"));
  for (llvm::StringRef text :
       {"#axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + "
        "R[2 : 4@warpid] + 5@warpid>",
        "#axe.layout<SW(3, 2, 3) o S[(64, 32) : (32, 1)]>",
        "#axe.scope<mesh<dx = 2, dy = 2>>", "#axe.target<\"sm_100a\">"}) {
    Attribute attr = parseAttribute(text, &context);
    ASSERT_TRUE(attr) << text.str();
    std::string printed;
    llvm::raw_string_ostream os(printed);
    attr.print(os);
    EXPECT_EQ(printed, text.str());
  }
}

TEST_F(AxeDialectTest, BufferTypes) {
  LayoutAttrInterface rows = layout("S[(16, 64) : (64, 1)]");
  BufferType type = BufferType::get(&context, llvm::ArrayRef<int64_t>{16, 64},
                                    f32(), rows, MemorySpace::Shared);
  EXPECT_EQ(type.getLayout().str(), "S[(16, 64) : (64, 1)]");
  EXPECT_EQ(type.getNumElements(), 1024);
  EXPECT_EQ(type.getRank(), 2);
  EXPECT_EQ(getFootprintBytes(type), 4096);

  // getChecked reports why a type is invalid instead of building it.
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  BufferType bad = BufferType::getChecked(
      [&] { return emitError(UnknownLoc::get(&context)); }, &context,
      llvm::ArrayRef<int64_t>{32}, f32(), layout("S[32 : 1@laneid]"),
      MemorySpace::Shared);
  EXPECT_FALSE(bad);
  EXPECT_NE(message.find("cannot place data in shared memory"),
            std::string::npos)
      << message;
}

TEST_F(AxeDialectTest, Owners) {
  auto owner = [&](llvm::StringRef text, MemorySpace space) {
    LayoutAttrInterface attr = layout(text);
    int64_t size = attr.getSize();
    return getBufferOwner(BufferType::get(
        &context, llvm::ArrayRef<int64_t>{size}, f32(), attr, space));
  };
  EXPECT_EQ(owner("S[32 : 1@laneid]", MemorySpace::Reg)->scope,
            ScopeKind::Warp);
  EXPECT_EQ(owner("S[(4, 32) : (1@warpid, 1@laneid)]", MemorySpace::Reg)->axis,
            "warpid");
  EXPECT_EQ(owner("S[8 : 1]", MemorySpace::Reg)->scope, ScopeKind::Thread);
  EXPECT_EQ(owner("S[8 : 1]", MemorySpace::Shared)->scope, ScopeKind::CTA);
  EXPECT_EQ(owner("S[(2, 8) : (1@cbx, 1)]", MemorySpace::Shared)->scope,
            ScopeKind::Cluster);
  EXPECT_EQ(owner("S[(4, 8) : (1@gpuid, 1)]", MemorySpace::Global)->scope,
            ScopeKind::Mesh);
  EXPECT_FALSE(owner("S[8 : 1]", MemorySpace::Global));
  EXPECT_EQ(getAxisScope("tid_in_wg"), ScopeKind::Warpgroup);
  EXPECT_EQ(getAxisScope("m"), std::nullopt);
}

/// The diagnostic a getChecked call reports, or "" when it reports none.
template <typename Fn> std::string diagnosticOf(MLIRContext &context, Fn &&fn) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  fn();
  return message;
}

// Invariants the parsers cannot violate (they build scopes and buffers only
// from what they read) but C++ callers can; getChecked reports them.
TEST_F(AxeDialectTest, CheckedConstructionFromCpp) {
  auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
  StringAttr dx = StringAttr::get(&context, "dx");
  EXPECT_EQ(diagnosticOf(context,
                         [&] {
                           EXPECT_FALSE(ScopeAttr::getChecked(
                               emit, &context, ScopeKind::CTA, {dx}, {2}));
                         }),
            "only a mesh scope has axes");
  EXPECT_EQ(diagnosticOf(context,
                         [&] {
                           EXPECT_FALSE(ScopeAttr::getChecked(
                               emit, &context, ScopeKind::Mesh, {dx}, {2, 2}));
                         }),
            "a mesh scope needs one extent per axis");
  EXPECT_EQ(diagnosticOf(context,
                         [&] {
                           EXPECT_FALSE(BufferType::getChecked(
                               emit, &context, llvm::ArrayRef<int64_t>{8},
                               f32(), LayoutAttrInterface(),
                               MemorySpace::Global));
                         }),
            "global buffers are views of memrefs, whose layout their strides "
            "give; '?' is for on-chip buffers");
  // A null layout on an on-chip buffer is `?`: a layout still to infer.
  BufferType pending =
      BufferType::getChecked(emit, &context, llvm::ArrayRef<int64_t>{8}, f32(),
                             LayoutAttrInterface(), MemorySpace::Reg);
  ASSERT_TRUE(pending);
  EXPECT_FALSE(pending.hasLayout());
}

} // namespace

// An op that holds a layout without its `#axe.layout` prefix, as an ODS
// format `$layout` of a LayoutAttr would: MLIR then hands the layout's
// parser tokens it has not checked for balanced brackets (it checks the
// body of every `#axe.layout<...>`). Outside the anonymous namespace so
// that its TypeID needs no explicit definition.
namespace axe_test {
class StrippedLayoutOp : public Op<StrippedLayoutOp, OpTrait::ZeroOperands,
                                   OpTrait::ZeroResults, OpTrait::ZeroRegions> {
public:
  using Op::Op;
  static llvm::StringRef getOperationName() { return "axetest.layout"; }
  static llvm::ArrayRef<llvm::StringRef> getAttributeNames() { return {}; }
  static ParseResult parse(OpAsmParser &parser, OperationState &state) {
    LayoutAttr layout;
    if (parser.parseCustomAttributeWithFallback(layout))
      return failure();
    state.addAttribute("layout", layout);
    return success();
  }
  void print(OpAsmPrinter &printer) {
    printer << " ";
    printer.printStrippedAttrOrType(
        cast<LayoutAttr>((*this)->getAttr("layout")));
  }
};

class TestDialect : public Dialect {
public:
  explicit TestDialect(MLIRContext *context)
      : Dialect(getDialectNamespace(), context, TypeID::get<TestDialect>()) {
    addOperations<StrippedLayoutOp>();
  }
  static llvm::StringRef getDialectNamespace() { return "axetest"; }
};
} // namespace axe_test

namespace {

TEST_F(AxeDialectTest, UnprefixedLayoutChecksItsBrackets) {
  context.getOrLoadDialect<axe_test::TestDialect>();
  OwningOpRef<ModuleOp> good = parseSourceString<ModuleOp>(
      "axetest.layout <S[(8, 2) : (2, 1)]>", &context);
  ASSERT_TRUE(good);
  std::string message = diagnosticOf(context, [&] {
    EXPECT_FALSE(
        parseSourceString<ModuleOp>("axetest.layout <S[8 : 1])>", &context));
  });
  EXPECT_EQ(message, "custom op 'axetest.layout' unbalanced bracket in layout");
}

TEST(TargetTest, LookupByName) {
  for (llvm::StringRef name : {"sm_80", "sm_90", "sm_100a", "cpu", "trn1"}) {
    Result<const TargetDescription *> target = lookupTarget(name);
    ASSERT_TRUE(bool(target)) << target.message();
    EXPECT_EQ((*target)->name, name);
  }
  Result<const TargetDescription *> missing = lookupTarget("sm_75");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(missing.message(), "unknown target 'sm_75'; known targets: sm_80, "
                               "sm_90, sm_100a, cpu, trn1");
}

TEST(TargetTest, Facts) {
  const TargetDescription &sm80 = **lookupTarget("sm_80");
  EXPECT_FALSE(sm80.hasWarpgroups());
  EXPECT_FALSE(sm80.hasClusters());
  EXPECT_FALSE(sm80.hasAxis("wgid"));
  EXPECT_EQ(sm80.findAxis("laneid")->extent, 32);

  const TargetDescription &sm90 = **lookupTarget("sm_90");
  EXPECT_EQ(sm90.warpgroupSize(), 128);
  EXPECT_EQ(sm90.findMemorySpace("shared")->capacityBytes, 227 * 1024);
  EXPECT_FALSE(sm90.hasMemorySpace("tmem"));

  const TargetDescription &sm100 = **lookupTarget("sm_100a");
  EXPECT_EQ(sm100.findAxis("TCol")->extent, 512);
  EXPECT_EQ(sm100.findMemorySpace("tmem")->capacityBytes, 256 * 1024);

  // Grid limits live in the table as the extents of bx, by, bz.
  EXPECT_EQ(sm80.maxGridExtent(0), 2147483647);
  EXPECT_EQ(sm90.maxGridExtent(1), 65535);
  EXPECT_EQ(sm90.maxGridExtent(2), 65535);
  EXPECT_EQ((**lookupTarget("cpu")).maxGridExtent(0), 0);
  EXPECT_EQ(sm100.findAxis("TCol")->cellBits, 32);
  EXPECT_EQ(sm100.findMemorySpace("tmem")->bytesPerPartition(), 512 * 4);

  const TargetDescription &trn1 = **lookupTarget("trn1");
  EXPECT_EQ(trn1.findMemorySpace("sbuf")->bytesPerPartition(), 192 * 1024);
  EXPECT_EQ(trn1.findMemorySpace("psum")->bytesPerPartition(), 16 * 1024);
  EXPECT_EQ(trn1.findMemorySpace("psum")->bytesPerBank(), 2 * 1024);
  EXPECT_EQ(trn1.kind, TargetKind::Accelerator);
  EXPECT_FALSE(trn1.hasWarps());
  EXPECT_EQ(trn1.findAxis("P")->extent, 128);
  EXPECT_EQ(trn1.findAxis("Bank")->extent, 8);
  EXPECT_EQ(trn1.findMemorySpace("psum")->capacityBytes, 2 * 1024 * 1024);
}

const char *kSlices = R"mlir(
!s = !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (64, 1)]>, shared>
func.func @f(%s: !s, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c4 = arith.constant 4 : index
  scf.for %r = %c0 to %n step %c32 {
    %x = arith.muli %r, %c4 : index
    %y = arith.addi %x, %c32 : index
    %v = axe.slice %s[%r, 0] : !s -> !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, shared>
    "test.use"(%x, %y) : (index, index) -> ()
  }
  return
}
)mlir";

TEST_F(AxeDialectTest, SlicesAndAlignments) {
  context.allowUnregisteredDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSlices, &context);
  ASSERT_TRUE(module);
  SliceOp slice;
  Operation *use = nullptr;
  module->walk([&](Operation *op) {
    if (auto s = dyn_cast<SliceOp>(op))
      slice = s;
    if (op->getName().getStringRef() == "test.use")
      use = op;
  });
  ASSERT_TRUE(slice && use);
  // The induction variable steps by 32 from 0; x = 4 r; y = 4 r + 32.
  EXPECT_EQ(getKnownAlignment(slice.getStarts()[0]), 32);
  EXPECT_EQ(getKnownAlignment(use->getOperand(0)), 128);
  EXPECT_EQ(getKnownAlignment(use->getOperand(1)), 32);
  llvm::SmallVector<SliceStart> starts = slice.getKnownStarts();
  EXPECT_FALSE(starts[0].known);
  EXPECT_EQ(starts[0].alignment, 32);
  EXPECT_TRUE(starts[1].known);

  // computeLayout is what the verifier compares against; the builder uses it.
  Result<Layout> layout = SliceOp::computeLayout(
      slice.getSource().getType(),
      {SliceStart::constant(8), SliceStart::constant(32)}, {8, 32});
  ASSERT_TRUE(bool(layout)) << layout.message();
  EXPECT_EQ(layout->str(), "S[(8, 32) : (64, 1)] + 544");

  // A pass infers the type first (which fails where the verifier would),
  // then builds.
  OpBuilder builder(slice);
  llvm::SmallVector<OpFoldResult> at = {builder.getIndexAttr(8),
                                        builder.getIndexAttr(32)};
  Result<BufferType> type =
      SliceOp::inferResultType(slice.getSource(), at, {8, 32});
  ASSERT_TRUE(bool(type)) << type.message();
  auto built =
      SliceOp::create(builder, slice.getLoc(), *type, slice.getSource(), at);
  EXPECT_EQ(built.getType().getLayout().str(), "S[(8, 32) : (64, 1)] + 544");
  EXPECT_TRUE(succeeded(built.verify()));

  // Regions the verifier would reject are failures, never a built op.
  Result<BufferType> outside =
      SliceOp::inferResultType(slice.getSource(), at, {8, 64});
  ASSERT_FALSE(bool(outside));
  EXPECT_EQ(outside.message(),
            "region [32, +64) of dim 1 is outside the source extent 64");
  Result<BufferType> rows = SliceOp::inferResultType(
      slice.getSource(), {builder.getIndexAttr(3), builder.getIndexAttr(0)},
      {8, 64});
  ASSERT_TRUE(bool(rows)) << rows.message();
  EXPECT_EQ(rows->getLayout().str(), "S[(8, 64) : (64, 1)] + 192");
  Result<BufferType> wrongRank =
      SliceOp::inferResultType(slice.getSource(), at, {8});
  ASSERT_FALSE(bool(wrongRank));
  EXPECT_EQ(wrongRank.message(), "a slice of a rank-2 buffer needs one start "
                                 "and one length per dim, got 2 and 1");
  Result<BufferType> notBuffer =
      SliceOp::inferResultType(slice.getStarts()[0], at, {8, 32});
  ASSERT_FALSE(bool(notBuffer));
  // A start known only by its alignment (the loop variable steps by 32):
  // slicing S[(128, 64) : (64, 1)] there needs nothing more.
  Result<BufferType> aligned = SliceOp::inferResultType(
      slice.getSource(),
      {OpFoldResult(slice.getStarts()[0]), builder.getIndexAttr(0)}, {32, 64});
  ASSERT_TRUE(bool(aligned)) << aligned.message();
  EXPECT_EQ(aligned->getLayout().str(), "S[(32, 64) : (64, 1)]");
}

} // namespace
