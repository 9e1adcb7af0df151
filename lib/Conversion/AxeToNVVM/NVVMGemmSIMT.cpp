//===- NVVMGemmSIMT.cpp - axe.gemm by scalar FMAs
//---------------------------===//
//
// Each thread accumulates the C elements it holds (or its share of a C in
// memory) over K, reading A and B from memory or from its own registers.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"

#include "NVVMCodegen.h"
#include "NVVMSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/InstanceView.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Axe/IR/OperatorShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/BitVector.h"

using namespace mlir;

namespace axe::nvvm {
namespace {
//===----------------------------------------------------------------------===//
// gemm
//===----------------------------------------------------------------------===//

/// Fails unless every thread holding C(i, n) holds row i of A (`isA`) or
/// column n of B.
Result<bool> checkGemmRegisters(const TargetDescription &target,
                                int64_t threads, const GemmProblem &problem,
                                const Layout &c, ArrayRef<int64_t> cShape,
                                bool isA, const Layout &in,
                                ArrayRef<int64_t> inShape) {
  auto ch = Holders::get(target, c, cShape, threads);
  if (!ch)
    return ch.takeFailure();
  auto ih = Holders::get(target, in, inShape, threads);
  if (!ih)
    return ih.takeFailure();
  bool transposed = isA ? problem.transposeA : problem.transposeB;
  bool kFirst = isA ? transposed : !transposed;
  for (int64_t i = 0; i < problem.m; ++i)
    for (int64_t n = 0; n < problem.n; ++n)
      for (int64_t tid = 0; tid < threads; ++tid) {
        if (!ch->holds(i * problem.n + n, tid))
          continue;
        int64_t outer = isA ? i : n;
        for (int64_t k = 0; k < problem.k; ++k) {
          int64_t r = kFirst ? k : outer, col = kFirst ? outer : k;
          if (!ih->holds(r * inShape[1] + col, tid))
            return fail("thread " + std::to_string(tid) + " holds C(" +
                        std::to_string(i) + ", " + std::to_string(n) +
                        ") but not the " + (isA ? "row" : "column") +
                        " it needs; register operands must be the "
                        "accumulator holder's own");
        }
      }
  return true;
}

ScheduleMatch matchSIMTGemm(Operation *raw, const ScheduleContext &ctx) {
  ScheduleMatch m = matchCommon(raw, ctx);
  if (!m.accepted())
    return m;
  auto op = cast<GemmOp>(raw);
  BufferType a = typeOf(op.getA()), b = typeOf(op.getB()),
             c = typeOf(op.getC());
  auto problem = gemmProblem(a.getShape(), op.getTransposeA(), b.getShape(),
                             op.getTransposeB(), c.getShape());
  if (!problem)
    return ScheduleMatch::decline(problem.message());
  bool cInRegisters = spaceOf(op.getC()) == MemorySpace::Reg;
  if (cInRegisters)
    if (ScheduleMatch v = matchView(ctx, op.getC()); !v.accepted())
      return v;
  if (!cInRegisters) {
    for (Value v : {op.getA(), op.getB()})
      if (spaceOf(v) == MemorySpace::Reg)
        return ScheduleMatch::decline(
            "C is in memory, shared by the threads round robin, so no "
            "thread is known to hold the register rows of A or B it needs");
    return ScheduleMatch::accept(*problem);
  }
  if (!isa<FloatType>(c.getElementType()) &&
      !isa<IntegerType>(c.getElementType()))
    return ScheduleMatch::decline("the accumulator is not a number");
  for (auto [name, v] : {std::pair<StringRef, Value>{"A", op.getA()},
                         std::pair<StringRef, Value>{"B", op.getB()}})
    if (spaceOf(v) == MemorySpace::Reg) {
      for (Value w : {v, Value(op.getC())})
        if (auto ok = checkStaticHolders(*ctx.target, w); !ok)
          return ScheduleMatch::decline(name.str() + ": " + ok.message());
    }
  for (auto [name, v] : {std::pair<StringRef, Value>{"A", op.getA()},
                         std::pair<StringRef, Value>{"B", op.getB()}})
    if (spaceOf(v) == MemorySpace::Reg)
      if (auto ok =
              checkGemmRegisters(*ctx.target, threadsOf(raw), *problem,
                                 c.getLayout(), c.getShape(), name == "A",
                                 typeOf(v).getLayout(), typeOf(v).getShape());
          !ok)
        return ScheduleMatch::decline(name.str() + ": " + ok.message());
  return ScheduleMatch::accept(*problem);
}

/// The index of A (or B) at row `i` (or column `n`) of C and step `k`.
SmallVector<Value, 2> gemmIndex(OpBuilder &b, Location loc, bool isA,
                                bool transposed, Value outer, Value k) {
  // A is M x K (K x M transposed); B is K x N (N x K transposed).
  bool kFirst = isA ? transposed : !transposed;
  return kFirst ? SmallVector<Value, 2>{k, outer}
                : SmallVector<Value, 2>{outer, k};
}

Value multiplyAdd(OpBuilder &b, Location loc, Value acc, Value x, Value y) {
  Type t = acc.getType();
  x = castElements(b, loc, x, t);
  y = castElements(b, loc, y, t);
  if (isa<FloatType>(t))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, x, y));
}

/// C += A x B for the C elements `rows`/`cols` (logical indices) one thread
/// holds, with their accumulators carried through the K loop.
void emitThreadGemm(OpBuilder &b, Location loc, GemmOp op, const GPUOperand &a,
                    const GPUOperand &bb, const GPUOperand &c, int64_t k,
                    ArrayRef<SmallVector<Value, 4>> elements) {
  SmallVector<Value> init;
  for (const auto &x : elements)
    init.push_back(c.read(b, loc, x));
  auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                                 indexConstant(b, loc, k),
                                 indexConstant(b, loc, 1), init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kv = loop.getInductionVar();
    SmallVector<Value> next;
    for (auto [j, x] : llvm::enumerate(elements)) {
      Value av =
          a.read(b, loc, gemmIndex(b, loc, true, op.getTransposeA(), x[0], kv));
      Value bv = bb.read(
          b, loc, gemmIndex(b, loc, false, op.getTransposeB(), x[1], kv));
      next.push_back(multiplyAdd(b, loc, loop.getRegionIterArg(j), av, bv));
    }
    scf::YieldOp::create(b, loc, next);
  }
  for (auto [j, x] : llvm::enumerate(elements))
    c.write(b, loc, x, loop.getResult(j));
}

/// How many elements of register operand `reg` one thread holds.
int64_t heldCount(const ThreadTargetCodegen &cg, const GPUOperand &reg) {
  SmallVector<std::string, 4> axes = holderAxes(cg, reg);
  if (axes.empty()) {
    int64_t n = 1;
    for (int64_t e : reg.shape())
      n *= e;
    return n;
  }
  auto view = InstanceView::get(reg.layout(), reg.shape(), axes);
  return view ? view->localSize() : 0;
}

LogicalResult rewriteSIMTGemm(Operation *raw, const ScheduleContext &ctx,
                              const std::any &anyPlan, RewriterBase &rw) {
  auto op = cast<GemmOp>(raw);
  const auto &problem = *std::any_cast<GemmProblem>(&anyPlan);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = operandsOf(raw, ctx, rw, {op.getA(), op.getB(), op.getC()});
  if (failed(ops))
    return failure();
  const GPUOperand &a = (*ops)[0], &b = (*ops)[1], &c = (*ops)[2];
  const ThreadTargetCodegen &cg = codegenOf(ctx);
  SmallVector<std::string, 4> axes = holderAxes(cg, c);
  if (!c.isRegister()) {
    // C in memory: the threads take its elements round robin.
    auto rank = scopeRank(rw, raw, cg);
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, c.shape(), *rank,
                  [&](OpBuilder &ib, Location l, ValueRange x) {
                    SmallVector<SmallVector<Value, 4>> one;
                    one.emplace_back(x.begin(), x.end());
                    emitThreadGemm(ib, l, op, a, b, c, problem.k, one);
                  });
  } else if (heldCount(cg, c) > kMaxUnrolled) {
    // Too many accumulators for registers: one at a time, each carried
    // through its own K loop.
    forEachHeld(rw, loc, cg, c, [&](OpBuilder &ib, Location l, ValueRange x) {
      SmallVector<SmallVector<Value, 4>> one;
      one.emplace_back(x.begin(), x.end());
      emitThreadGemm(ib, l, op, a, b, c, problem.k, one);
    });
  } else if (axes.empty()) {
    SmallVector<SmallVector<Value, 4>> elements;
    forEachIndex(rw, loc, c.shape(), [&](OpBuilder &, Location, ValueRange x) {
      elements.push_back(SmallVector<Value, 4>(x.begin(), x.end()));
    });
    emitThreadGemm(rw, loc, op, a, b, c, problem.k, elements);
  } else {
    HeldView held = emitHeldView(rw, loc, cg, c);
    const InstanceEmitter *view = &*held.view;
    InstanceBase base = held.base;
    guarded(rw, loc, base.holds, [&](OpBuilder &ib) {
      SmallVector<SmallVector<Value, 4>> elements;
      for (int64_t j = 0; j < view->view().localSize(); ++j)
        elements.push_back(view->emitElement(ib, loc, base, j).logical);
      emitThreadGemm(ib, loc, op, a, b, c, problem.k, elements);
    });
  }
  rw.eraseOp(op);
  return success();
}

} // namespace

void addSIMTGemmSchedules(ScheduleRegistry &r) {
  addStagedSchedule(r, "nvvm.gemm.staged", "axe.gemm", matchSIMTGemm,
                    rewriteSIMTGemm, "nvvm.gemm.simt");
  (void)r.add({"nvvm.gemm.simt", "axe.gemm", gpuTargets(), 0,
               "each thread accumulates the C elements it holds over K with "
               "scalar FMAs (in registers up to 256, else one at a time), "
               "reading A and B",
               matchSIMTGemm, rewriteSIMTGemm});
}

} // namespace axe::nvvm
