//===- NewBackendTest.cpp - A backend from a target and a TargetCodegen ---===//
//
// The worked example of docs/Architecture.md "Adding a backend": a new
// target description, its ThreadTargetCodegen, and the generic element
// schedules of lib/Codegen registered through an ElementBackend. Nothing
// comes from another backend's schedules: the toy resolves its own buffers
// (views of function arguments, allocas for axe.alloc) and lowers with
// upstream passes only. The test dispatches a kernel of copies, a fill, an
// elementwise and a reduce through a register tile, runs it on the host and
// checks every element.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/ElementSchedules.h"
#include "axe/Codegen/Passes.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;

namespace {

// --- The backend (docs/Architecture.md quotes this) ------------------------

/// One host thread runs every operator, outside kernels; memory is memrefs.
class ToyTargetCodegen : public ThreadTargetCodegen {
public:
  explicit ToyTargetCodegen(const TargetDescription &t) : description(t) {}
  const TargetDescription &target() const override { return description; }
  LogicalResult barrier(OpBuilder &, Location, ScopeKind) const override {
    return success(); // one thread: nothing to wait for
  }
  void populateTypeConversions(TypeConverter &) const override {}
  Value axisValue(OpBuilder &, Location loc, StringRef axis) const override {
    emitError(loc) << "the toy target has no thread axis '" << axis << "'";
    return Value();
  }
  Value load(OpBuilder &b, Location loc, Value memory, Value address,
             Type elementType, int64_t lanes) const override {
    return memref::LoadOp::create(b, loc, memory, address);
  }
  void store(OpBuilder &b, Location loc, Value value, Value memory,
             Value address) const override {
    memref::StoreOp::create(b, loc, value, memory, address);
  }
  int64_t maxVectorBits(MemorySpace) const override { return 0; }
  bool runsScopeAsOneThread() const override { return true; }

private:
  const TargetDescription &description;
};

/// Buffers on m alone, outside kernels: what the toy's resolver handles.
ScheduleMatch toyCommon(Operation *op, const ScheduleContext &ctx) {
  if (op->getParentOfType<KernelOp>())
    return ScheduleMatch::decline("the toy runs operators outside kernels");
  for (Value v : cast<OperatorOpInterface>(op).getBufferOperands())
    for (const std::string &axis :
         cast<BufferType>(v.getType()).getLayout().tile().axes())
      if (axis != kDefaultAxis)
        return ScheduleMatch::decline("the toy addresses m only");
  return ScheduleMatch::accept();
}

/// The memory of a root buffer: the viewed memref seen flat from the
/// lowest element the layout reaches, or an alloca where the alloc is.
using AllocaMap = llvm::DenseMap<Operation *, Value>;

FailureOr<ElementOperand> toyOperand(OpBuilder &b, Location loc, Value buffer,
                                     const ThreadTargetCodegen &cg,
                                     AllocaMap &allocas) {
  auto refuse = [&](const std::string &why) {
    emitError(loc) << "toy: " << why;
    return failure();
  };
  Result<BufferRef> ref = resolveBuffer(b, loc, buffer);
  if (!ref)
    return refuse(ref.message());
  auto rootType = cast<BufferType>(ref->root->getResult(0).getType());
  Result<StoragePlan> plan = StoragePlan::forLayout(rootType.getLayout());
  if (!plan)
    return refuse(plan.message());
  ElementOperand op;
  op.ref = *ref;
  op.space = rootType.getMemorySpace();
  op.storage = *plan;
  op.codegen = &cg;
  auto emitter = LayoutEmitter::get(ref->layout, ref->shape);
  if (!emitter)
    return refuse(emitter.message());
  op.emitter.emplace(std::move(*emitter));
  int64_t lo = plan->dims().back().lo, size = plan->size();
  auto flat = MemRefType::get(
      {size}, rootType.getElementType(),
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}));
  if (auto view = dyn_cast<ViewOp>(ref->root)) {
    op.memory = emitFlatView(b, loc, view, view.getSource(), lo, size, flat);
    return op;
  }
  // One alloca per axe.alloc, where the alloc is, whichever operator asks.
  Value &memory = allocas[ref->root];
  if (!memory) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointAfter(ref->root);
    auto dense = MemRefType::get({size}, rootType.getElementType());
    Value alloca = memref::AllocaOp::create(b, loc, dense);
    memory = memref::CastOp::create(b, loc, flat, alloca);
  }
  op.memory = memory;
  return op;
}

ElementBackend toyElementBackend() {
  ElementBackend be;
  be.prefix = "toy";
  be.targets = named("toy");
  be.common = toyCommon;
  be.spaceOf = [](Value v) {
    return cast<BufferType>(v.getType()).getMemorySpace();
  };
  auto allocas = std::make_shared<AllocaMap>();
  be.wrap = [allocas](ElementRewrite body) -> Schedule::RewriteFn {
    return [body, allocas](Operation *op, const ScheduleContext &ctx,
                           const std::any &, RewriterBase &rw) {
      return body(op, ctx, rw, [&](OpBuilder &b, ValueRange buffers) {
        std::vector<ElementOperand> out;
        for (Value v : buffers) {
          auto operand =
              toyOperand(b, op->getLoc(), v, *ctx.codegen->threads(), *allocas);
          if (failed(operand))
            return FailureOr<std::vector<ElementOperand>>(failure());
          out.push_back(std::move(*operand));
        }
        return FailureOr<std::vector<ElementOperand>>(std::move(out));
      });
    };
  };
  return be;
}

Backend toyBackend() {
  Backend toy;
  toy.name = "toy";
  toy.targets = named("toy");
  toy.addSchedules = [](ScheduleRegistry &r) {
    addElementSchedules(r, toyElementBackend());
  };
  toy.dependentDialects = [](DialectRegistry &registry) {
    registry
        .insert<arith::ArithDialect, memref::MemRefDialect, scf::SCFDialect>();
  };
  toy.codegen = [](const TargetDescription &target) {
    return std::make_unique<ToyTargetCodegen>(target);
  };
  return toy;
}

/// The toy target: the host's thread hierarchy, named for the toy.
const TargetDescription &toyTarget() {
  static const TargetDescription *toy = [] {
    if (auto known = lookupTarget("toy"))
      return *known;
    TargetDescription t = **lookupTarget("cpu");
    t.name = "toy";
    t.description = "one host thread, scalar loads and stores";
    t.vectorUnit.reset();
    return *registerTarget(std::move(t));
  }();
  return *toy;
}

// --- The test -------------------------------------------------------------

const char *kKernel = R"mlir(
!g = !axe.buffer<8x16xf32, #axe.layout<S[(8, 16) : (16, 1)]>, global>
!r = !axe.buffer<8x16xf32, #axe.layout<S[(8, 16) : (1, 8)]>, reg>
!v = !axe.buffer<8xf32, #axe.layout<S[(8) : (1)]>, global>
func.func @kernel(%in: memref<8x16xf32>, %out: memref<8x16xf32>,
                  %sums: memref<8xf32>) attributes {llvm.emit_c_interface} {
  %zero = arith.constant 0.0 : f32
  %gi = axe.view %in[0, 0] : memref<8x16xf32> -> !g
  %go = axe.view %out[0, 0] : memref<8x16xf32> -> !g
  %s = axe.view %sums[0] : memref<8xf32> -> !v
  %t = axe.alloc : !r
  %u = axe.alloc : !r
  axe.fill %s, %zero at thread : !v
  axe.copy %gi to %t at thread : !g to !r
  axe.elementwise ins(%t : !r) outs(%u : !r) at thread {
  ^bb0(%x: f32):
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %y = arith.mulf %x, %two : f32
    %z = arith.addf %y, %one : f32
    axe.yield %z : f32
  }
  axe.copy %u to %go at thread : !r to !g
  axe.reduce sum %u into %s dims [1] at thread {accumulate} : !r into !v
  return
}
)mlir";

TEST(NewBackend, GenericSchedulesRunOnAToyTarget) {
  ASSERT_EQ(toyTarget().name, "toy");
  DialectRegistry registry;
  registerAllAxeDialects(registry);
  registerCPUCodegenDialects(registry);
  MLIRContext ctx(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &ctx);
  ASSERT_TRUE(module);
  PassManager pm(&ctx);
  AxeDispatchOptions dispatch;
  dispatch.target = "toy";
  pm.addPass(createAxeDispatch(dispatch, BackendSet{toyBackend()}));
  ASSERT_TRUE(succeeded(pm.run(*module)));

  // Every operator went through the toy's generic schedules; the views
  // and allocs are left without uses.
  int operators = 0;
  module->walk([&](Operation *op) {
    if (isa<OperatorOpInterface>(op))
      ++operators;
  });
  EXPECT_EQ(operators, 0);
  SmallVector<Operation *> dead;
  module->walk([&](Operation *op) {
    if (isa<ViewOp, AllocOp>(op) && op->use_empty())
      dead.push_back(op);
  });
  for (Operation *op : dead)
    op->erase();

  std::string error;
  auto engine = lowerAndJIT(*module, error);
  ASSERT_TRUE(engine) << error;
  std::vector<float> in(128), out(128, -1.0f), sums(8, -1.0f);
  for (int i = 0; i < 128; ++i)
    in[i] = float(i % 13) - 4.0f;
  auto descriptor2 = [](std::vector<float> &data) {
    int64_t base = reinterpret_cast<int64_t>(data.data());
    return std::vector<int64_t>{base, base, 0, 8, 16, 16, 1};
  };
  auto descriptor1 = [](std::vector<float> &data) {
    int64_t base = reinterpret_cast<int64_t>(data.data());
    return std::vector<int64_t>{base, base, 0, 8, 1};
  };
  std::vector<int64_t> inD = descriptor2(in), outD = descriptor2(out),
                       sumD = descriptor1(sums);
  void *inP = inD.data(), *outP = outD.data(), *sumP = sumD.data();
  SmallVector<void *> args{&inP, &outP, &sumP};
  llvm::Error e = engine->invokePacked("_mlir_ciface_kernel", args);
  ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
  for (int r = 0; r < 8; ++r) {
    float sum = 0;
    for (int c = 0; c < 16; ++c) {
      float want = in[r * 16 + c] * 2.0f + 1.0f;
      EXPECT_EQ(out[r * 16 + c], want) << "at " << r << ", " << c;
      sum += want;
    }
    EXPECT_EQ(sums[r], sum) << "row " << r;
  }
}

} // namespace
