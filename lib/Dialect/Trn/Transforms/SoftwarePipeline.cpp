//===- SoftwarePipeline.cpp - Pipelining trn loops across iterations ------===//
//
// trn-software-pipeline: the engines issue their instructions in program
// order, so a loop body that goes TensorE -> VectorE/ScalarE -> TensorE
// keeps TensorE idle while the other engines work on the same iteration.
// Splitting the body into stages and emitting stage s of iteration i - s
// together (stage 0 first) puts independent work of several iterations in
// every engine's queue: a prologue starts the first iterations, a kernel
// loop runs the steady state, an epilogue drains the last ones.
//
// The reordering is proved safe by evaluating the loop nest's index
// arithmetic for every iteration and comparing the regions (boxes over a
// tile's or tensor's dims, as the simulator's dependency tracker does)
// that the moved instructions touch.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace axe::trn {
#define GEN_PASS_DEF_TRNSOFTWAREPIPELINE
#include "axe/Dialect/Trn/Transforms/Passes.h.inc"
} // namespace axe::trn

using namespace mlir;
using namespace axe;
using namespace axe::trn;

namespace {

//===----------------------------------------------------------------------===//
// Index arithmetic at given loop counters
//===----------------------------------------------------------------------===//

/// Evaluates index and integer values built from constants and the loop
/// counters in `env` with the arith ops the lowering emits.
struct IndexEval {
  DenseMap<Value, int64_t> env;

  std::optional<int64_t> operator()(Value v) const {
    if (auto it = env.find(v); it != env.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    if (auto c = dyn_cast<arith::ConstantOp>(def)) {
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return i.getValue().getSExtValue();
      return std::nullopt;
    }
    if (auto cast = dyn_cast<arith::IndexCastOp>(def))
      return (*this)(cast.getIn());
    if (def->getNumOperands() != 2 || def->getNumResults() != 1)
      return std::nullopt;
    std::optional<int64_t> a = (*this)(def->getOperand(0));
    std::optional<int64_t> b = (*this)(def->getOperand(1));
    if (!a || !b)
      return std::nullopt;
    return binary(def, *a, *b);
  }

  static std::optional<int64_t> binary(Operation *def, int64_t a, int64_t b) {
    bool nonzero = b != 0;
    bool unsignedOk = a >= 0 && b > 0;
    return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(def)
        .Case([&](arith::AddIOp) { return a + b; })
        .Case([&](arith::SubIOp) { return a - b; })
        .Case([&](arith::MulIOp) { return a * b; })
        .Case([&](arith::DivSIOp) -> std::optional<int64_t> {
          return nonzero ? std::optional<int64_t>(a / b) : std::nullopt;
        })
        .Case([&](arith::RemSIOp) -> std::optional<int64_t> {
          return nonzero ? std::optional<int64_t>(a % b) : std::nullopt;
        })
        .Case([&](arith::DivUIOp) -> std::optional<int64_t> {
          return unsignedOk ? std::optional<int64_t>(a / b) : std::nullopt;
        })
        .Case([&](arith::RemUIOp) -> std::optional<int64_t> {
          return unsignedOk ? std::optional<int64_t>(a % b) : std::nullopt;
        })
        .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
          return nonzero ? std::optional<int64_t>(llvm::divideCeilSigned(a, b))
                         : std::nullopt;
        })
        .Case([&](arith::MinSIOp) { return std::min(a, b); })
        .Case([&](arith::MaxSIOp) { return std::max(a, b); })
        .Case([&](arith::MinUIOp) -> std::optional<int64_t> {
          return a >= 0 && b >= 0 ? std::optional<int64_t>(std::min(a, b))
                                  : std::nullopt;
        })
        .Case([&](arith::MaxUIOp) -> std::optional<int64_t> {
          return a >= 0 && b >= 0 ? std::optional<int64_t>(std::max(a, b))
                                  : std::nullopt;
        })
        .Default([](Operation *) { return std::nullopt; });
  }
};

//===----------------------------------------------------------------------===//
// Regions an instruction touches
//===----------------------------------------------------------------------===//

/// A box of element indices in the dims of a tile or HBM tensor (the
/// root), read or written.
struct Access {
  Value root;
  SmallVector<int64_t, 4> lo, hi;
  bool write;

  bool conflicts(const Access &o) const {
    if (root != o.root || !(write || o.write))
      return false;
    for (auto [a, b, c, d] : llvm::zip(lo, hi, o.lo, o.hi))
      if (b < c || d < a)
        return false;
    return true;
  }
};

/// The allocation or kernel argument a view is made from.
Value rootOf(Value v) {
  while (true) {
    if (auto cast = v.getDefiningOp<memref::MemorySpaceCastOp>())
      v = cast.getSource();
    else if (auto rc = v.getDefiningOp<memref::ReinterpretCastOp>())
      v = rc.getSource();
    else
      break;
  }
  if (isa<BlockArgument>(v) || v.getDefiningOp<AllocOp>())
    return v;
  return {};
}

/// The box `view` covers in its root, or failure when the root or the
/// view's offset cannot be known. A view whose dims do not map onto the
/// root's dims one stride at a time covers the whole root.
FailureOr<Access> boxOf(Value view, const IndexEval &eval, bool write) {
  Value root = rootOf(view);
  auto rootType = root ? dyn_cast<MemRefType>(root.getType()) : MemRefType();
  if (!rootType || !rootType.hasStaticShape() ||
      !rootType.getLayout().isIdentity())
    return failure();
  ArrayRef<int64_t> shape = rootType.getShape();
  Access acc{root, SmallVector<int64_t, 4>(shape.size(), 0),
             SmallVector<int64_t, 4>(), write};
  for (int64_t size : shape)
    acc.hi.push_back(size - 1);
  auto rc = view.getDefiningOp<memref::ReinterpretCastOp>();
  if (!rc)
    return acc;
  std::optional<int64_t> offset;
  OpFoldResult ofr = rc.getMixedOffsets().front();
  if (auto attr = dyn_cast<Attribute>(ofr))
    offset = cast<IntegerAttr>(attr).getInt();
  else
    offset = eval(cast<Value>(ofr));
  auto type = cast<MemRefType>(rc.getType());
  SmallVector<int64_t> strides;
  int64_t ignored;
  if (!offset || *offset < 0 || !type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, ignored)))
    return failure();
  SmallVector<int64_t> rootStrides(shape.size(), 1);
  for (int64_t r = int64_t(shape.size()) - 2; r >= 0; --r)
    rootStrides[r] = rootStrides[r + 1] * shape[r + 1];
  Access box = acc;
  int64_t rest = *offset;
  for (auto [r, stride] : llvm::enumerate(rootStrides)) {
    box.lo[r] = rest / stride;
    rest %= stride;
  }
  box.hi = box.lo;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (size <= 1 || stride == 0)
      continue;
    if (stride < 0)
      return acc;
    // The outermost root dim whose stride divides this one.
    auto r = llvm::find_if(llvm::enumerate(rootStrides), [&](auto rs) {
      return rs.value() <= stride && stride % rs.value() == 0;
    });
    box.hi[(*r).index()] += (size - 1) * (stride / (*r).value());
  }
  for (auto [hi, size] : llvm::zip(box.hi, shape))
    if (hi >= size)
      return acc;
  return box;
}

/// Appends the regions `op` touches, running the loops inside it over
/// their iterations. Fails on effects it cannot place or when `budget`
/// instruction instances are used up.
LogicalResult collectAccesses(Operation *op, IndexEval &eval,
                              SmallVectorImpl<Access> &out, int64_t &budget) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> lb = eval(loop.getLowerBound()),
                           ub = eval(loop.getUpperBound()),
                           step = eval(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return failure();
    for (int64_t i = *lb; i < *ub; i += *step) {
      eval.env[loop.getInductionVar()] = i;
      for (Operation &inner : loop.getBody()->without_terminator())
        if (failed(collectAccesses(&inner, eval, out, budget)))
          return failure();
    }
    eval.env.erase(loop.getInductionVar());
    return success();
  }
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    // Either branch may run: both count.
    if (branch.getNumResults())
      return failure();
    for (Region &region : branch->getRegions())
      for (Operation &inner : region.getOps())
        if (failed(collectAccesses(&inner, eval, out, budget)))
          return failure();
    return success();
  }
  if (isa<AllocOp>(op) || isMemoryEffectFree(op))
    return success();
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() || --budget < 0)
    return failure();
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (MemoryEffects::EffectInstance &e : list) {
    bool write = isa<MemoryEffects::Write>(e.getEffect());
    if (!write && !isa<MemoryEffects::Read>(e.getEffect()))
      continue;
    Value v = e.getValue();
    FailureOr<Access> box =
        v ? boxOf(v, eval, write) : FailureOr<Access>(failure());
    if (failed(box))
      return failure();
    out.push_back(*box);
  }
  return success();
}

/// Merges the accesses of one instruction group per root and kind into
/// their bounding box, so the pairwise check stays small.
void mergeAccesses(SmallVectorImpl<Access> &list) {
  SmallVector<Access> merged;
  for (Access &a : list) {
    auto it = llvm::find_if(merged, [&](const Access &m) {
      return m.root == a.root && m.write == a.write;
    });
    if (it == merged.end()) {
      merged.push_back(a);
      continue;
    }
    for (auto [lo, hi, alo, ahi] : llvm::zip(it->lo, it->hi, a.lo, a.hi)) {
      lo = std::min(lo, alo);
      hi = std::max(hi, ahi);
    }
  }
  list.assign(merged.begin(), merged.end());
}

//===----------------------------------------------------------------------===//
// Stages
//===----------------------------------------------------------------------===//

bool onTensorE(Operation *op) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (auto tr = dyn_cast<TransposeOp>(inner))
      found |= tr.getEngine() == Engine::Tensor;
    found |= isa<MatmulOp>(inner);
  });
  return found;
}

/// A loop body split into units (the instructions and nested loops at its
/// top level) and the stage of each.
struct LoopPlan {
  mutable scf::ForOp loop;
  SmallVector<Operation *> units; // every non-pure op but allocs
  SmallVector<Operation *> allocs;
  SmallVector<int64_t> cuts; // candidate stage starts (unit indices)

  /// The top-level op of the body that contains `op`.
  Operation *topLevel(Operation *op) const {
    return loop.getBody()->findAncestorOpInBlock(*op);
  }
};

/// Stage of every unit when a stage starts at each unit index in `cuts`.
SmallVector<int64_t> stagesFor(size_t numUnits, ArrayRef<int64_t> cuts) {
  SmallVector<int64_t> stage(numUnits, 0);
  for (int64_t cut : cuts)
    for (size_t u = cut; u < numUnits; ++u)
      ++stage[u];
  return stage;
}

/// The engines whose queues a unit uses, as a bit set over Engine (DMA is
/// bit 7).
unsigned enginesOf(Operation *unit) {
  unsigned bits = 0;
  unit->walk([&](Operation *op) {
    if (auto attr = op->getAttrOfType<EngineAttr>("engine"))
      bits |= 1u << unsigned(attr.getValue());
    else if (isa<MatmulOp>(op))
      bits |= 1u << unsigned(Engine::Tensor);
    else if (isa<ActivationOp>(op))
      bits |= 1u << unsigned(Engine::Scalar);
    else if (isa<TensorReduceOp>(op))
      bits |= 1u << unsigned(Engine::Vector);
    else if (isa<IotaOp, AffineSelectOp>(op))
      bits |= 1u << unsigned(Engine::GpSimd);
    else if (isa<DmaCopyOp>(op))
      bits |= 1u << 7;
  });
  return bits;
}

/// Candidate cuts: wherever the next unit runs on other engines. With a
/// stage per engine's step, every instruction of a kernel iteration
/// depends only on earlier kernel iterations, so no queue waits on
/// another within one.
SmallVector<int64_t> candidateCuts(ArrayRef<Operation *> units) {
  SmallVector<int64_t> cuts;
  for (size_t u = 1; u < units.size(); ++u)
    if (enginesOf(units[u]) != enginesOf(units[u - 1]))
      cuts.push_back(u);
  return cuts;
}

struct TrnSoftwarePipelinePass
    : public axe::trn::impl::TrnSoftwarePipelineBase<TrnSoftwarePipelinePass> {
  using Base::Base;

  void runOnOperation() override {
    if (stages < 2)
      return;
    // Outer loops first: pipelining a loop clones the loops in its body,
    // and those are not pipelined again.
    SmallVector<scf::ForOp> loops;
    getOperation().walk<WalkOrder::PreOrder>(
        [&](scf::ForOp loop) { loops.push_back(loop); });
    DenseSet<Operation *> gone;
    for (scf::ForOp loop : loops) {
      if (gone.contains(loop))
        continue;
      SmallVector<Operation *> inner;
      loop.getBody()->walk([&](scf::ForOp l) { inner.push_back(l); });
      std::string why = pipeline(loop);
      if (why.empty())
        gone.insert(inner.begin(), inner.end());
      else if (report)
        loop.emitWarning("not pipelined: ") << why;
    }
  }

  /// Pipelines `loop`, or returns why it is left alone ("" when done).
  std::string pipeline(scf::ForOp loop) {
    if (loop.getNumResults())
      return "the loop has results";
    LoopPlan plan{loop, {}, {}, {}};
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isa<AllocOp>(op))
        plan.allocs.push_back(&op);
      else if (!isMemoryEffectFree(&op) || op.getNumRegions())
        plan.units.push_back(&op);
    }
    if (!llvm::any_of(plan.units, onTensorE))
      return "no TensorE instruction in the body";
    plan.cuts = candidateCuts(plan.units);
    if (plan.cuts.empty())
      return "the body has one run of TensorE work; nothing to overlap";
    if (failed(legalCuts(plan)))
      return checkFailure;
    SmallVector<int64_t> stage = stagesFor(plan.units.size(), plan.cuts);
    int64_t numStages = stage.back() + 1;
    emitPipeline(plan, stage, numStages);
    ++numPipelined;
    if (report) {
      InFlightDiagnostic diag = plan.loop.emitWarning("pipelined in ")
                                << numStages << " stages";
      for (auto [u, op] : llvm::enumerate(plan.units))
        diag.attachNote(op->getLoc()) << "stage " << stage[u];
    }
    plan.loop.erase();
    return "";
  }

  //===--------------------------------------------------------------------===//
  // Legality
  //===--------------------------------------------------------------------===//

  /// Drops the cuts of `plan` that would break a dependence, split the
  /// users of one value, or pass `stages`; fails when no useful split is
  /// left.
  LogicalResult legalCuts(LoopPlan &plan) {
    dropSplittingCuts(plan);
    int64_t budget = maxChecks;
    checkFailure.clear();
    // What each unit touches, per execution of the loop and iteration.
    SmallVector<SmallVector<SmallVector<SmallVector<Access>>>> runs;
    if (failed(forEachOuterEnv(plan, [&](IndexEval &eval) {
          return collectIterations(plan, eval, runs.emplace_back(), budget);
        })))
      return failure();
    while (!plan.cuts.empty()) {
      SmallVector<int64_t> stage = stagesFor(plan.units.size(), plan.cuts);
      std::optional<std::pair<int64_t, int64_t>> bad;
      for (auto &run : runs)
        if ((bad = violation(run, stage)))
          break;
      if (!bad)
        break;
      // Merge the stages of the pair: drop the last cut between them.
      auto cut = llvm::find_if(llvm::reverse(plan.cuts), [&](int64_t c) {
        return c > bad->second && c <= bad->first;
      });
      plan.cuts.erase(std::next(cut).base());
    }
    while (int64_t(plan.cuts.size()) >= stages)
      plan.cuts.pop_back();
    // The prologue starts one iteration per stage but the last, so a loop
    // of n iterations takes at most n stages (more would run iterations
    // past its end).
    if (std::optional<APInt> trips = plan.loop.getStaticTripCount()) {
      int64_t n = trips->getSExtValue();
      if (n < 2) {
        checkFailure = "the loop runs " + std::to_string(n) +
                       " time(s); there is no next iteration to overlap";
        return failure();
      }
      while (int64_t(plan.cuts.size()) >= n)
        plan.cuts.pop_back();
    }
    if (plan.cuts.empty() ||
        !tensorInTwoStages(plan, stagesFor(plan.units.size(), plan.cuts))) {
      checkFailure = "every stage split would reorder dependent "
                     "instructions of nearby iterations";
      return failure();
    }
    return success();
  }

  /// The units whose instructions use `def`, through the views of it.
  SmallVector<int64_t> userUnits(const LoopPlan &plan, Operation *def) {
    SmallVector<int64_t> found;
    SmallVector<Operation *> users(def->getUsers());
    for (size_t i = 0; i < users.size(); ++i) {
      Operation *top = plan.topLevel(users[i]);
      if (!top)
        continue;
      auto it = llvm::find(plan.units, top);
      if (it != plan.units.end())
        found.push_back(it - plan.units.begin());
      else
        llvm::append_range(users, top->getUsers());
    }
    return found;
  }

  /// SSA values stay within a stage: the users of an allocation in the
  /// body, or of a unit's results, are never split (pure ops are cloned
  /// into each stage, allocations are not).
  void dropSplittingCuts(LoopPlan &plan) {
    SmallVector<Operation *> defs(plan.allocs);
    for (Operation *op : plan.units)
      if (op->getNumResults())
        defs.push_back(op);
    for (Operation *def : defs) {
      SmallVector<int64_t> users = userUnits(plan, def);
      if (auto it = llvm::find(plan.units, def); it != plan.units.end())
        users.push_back(it - plan.units.begin());
      if (users.empty())
        continue;
      auto [lo, hi] = std::minmax_element(users.begin(), users.end());
      llvm::erase_if(plan.cuts, [&](int64_t c) { return c > *lo && c <= *hi; });
    }
  }

  /// Only a split that gives TensorE work in two stages changes the order
  /// of its queue; any other leaves every engine's order as it was.
  static bool tensorInTwoStages(const LoopPlan &plan, ArrayRef<int64_t> stage) {
    std::optional<int64_t> first;
    for (auto [u, op] : llvm::enumerate(plan.units))
      if (onTensorE(op)) {
        if (first && *first != stage[u])
          return true;
        first = stage[u];
      }
    return false;
  }

  /// Calls `fn` with the counters of the loops around `plan.loop` set to
  /// each of their values, outermost first.
  LogicalResult forEachOuterEnv(LoopPlan &plan,
                                function_ref<LogicalResult(IndexEval &)> fn) {
    SmallVector<scf::ForOp> outer;
    for (auto l = plan.loop->getParentOfType<scf::ForOp>(); l;
         l = l->getParentOfType<scf::ForOp>())
      outer.insert(outer.begin(), l);
    IndexEval eval;
    std::function<LogicalResult(size_t)> rec = [&](size_t k) {
      if (k == outer.size())
        return fn(eval);
      std::optional<int64_t> lb = eval(outer[k].getLowerBound()),
                             ub = eval(outer[k].getUpperBound()),
                             step = eval(outer[k].getStep());
      if (!lb || !ub || !step || *step <= 0) {
        checkFailure = "the bounds of an enclosing loop are not known";
        return failure();
      }
      for (int64_t i = *lb; i < *ub; i += *step) {
        eval.env[outer[k].getInductionVar()] = i;
        if (failed(rec(k + 1)))
          return failure();
      }
      return success();
    };
    return rec(0);
  }

  /// Appends to `iters` what each unit touches in each iteration of this
  /// execution of the loop.
  LogicalResult
  collectIterations(LoopPlan &plan, IndexEval &eval,
                    SmallVector<SmallVector<SmallVector<Access>>> &iters,
                    int64_t &budget) {
    scf::ForOp loop = plan.loop;
    std::optional<int64_t> lb = eval(loop.getLowerBound()),
                           ub = eval(loop.getUpperBound()),
                           step = eval(loop.getStep());
    if (!lb || !ub || !step || *step <= 0) {
      checkFailure = "the loop's bounds are not known";
      return failure();
    }
    for (int64_t i = *lb; i < *ub; i += *step) {
      eval.env[loop.getInductionVar()] = i;
      auto &iter = iters.emplace_back(plan.units.size());
      for (auto [u, op] : llvm::enumerate(plan.units)) {
        if (failed(collectAccesses(op, eval, iter[u], budget))) {
          checkFailure = budget < 0 ? "too many instructions to check"
                                    : "an instruction's region or index "
                                      "arithmetic cannot be evaluated";
          return failure();
        }
        mergeAccesses(iter[u]);
      }
    }
    eval.env.erase(loop.getInductionVar());
    return success();
  }

  /// Stage t of iteration i is emitted before stage s < t of iterations
  /// i + 1 .. i + (t - s). Returns a pair of units (later stage, earlier
  /// stage) that touch a common region with a write at such a distance.
  static std::optional<std::pair<int64_t, int64_t>>
  violation(ArrayRef<SmallVector<SmallVector<Access>>> accesses,
            ArrayRef<int64_t> stage) {
    int64_t n = accesses.size(), maxStage = stage.back();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t d = 1; d <= maxStage && i + d < n; ++d)
        for (auto [a, sa] : llvm::enumerate(stage))
          for (auto [b, sb] : llvm::enumerate(stage)) {
            if (sa - sb < d)
              continue;
            for (const Access &x : accesses[i][a])
              for (const Access &y : accesses[i + d][b])
                if (x.conflicts(y))
                  return std::make_pair(int64_t(a), int64_t(b));
          }
    return std::nullopt;
  }

  //===--------------------------------------------------------------------===//
  // Emission
  //===--------------------------------------------------------------------===//

  /// For each stage, the pure ops of the body its units use.
  static SmallVector<llvm::SetVector<Operation *>>
  pureOpsPerStage(const LoopPlan &plan, ArrayRef<int64_t> stage,
                  int64_t numStages) {
    SmallVector<llvm::SetVector<Operation *>> needed(numStages);
    Block *body = plan.loop.getBody();
    auto stageOf = [&](Operation *top) -> int64_t {
      auto it = llvm::find(plan.units, top);
      if (it != plan.units.end())
        return stage[it - plan.units.begin()];
      return -1;
    };
    for (Operation &op : body->without_terminator()) {
      int64_t s = stageOf(&op);
      if (s < 0)
        continue;
      SmallVector<Value> worklist;
      auto push = [&](Operation *user) {
        llvm::append_range(worklist, user->getOperands());
        llvm::SetVector<Value> above;
        for (Region &r : user->getRegions())
          getUsedValuesDefinedAbove(r, above);
        llvm::append_range(worklist, above);
      };
      push(&op);
      while (!worklist.empty()) {
        Operation *def = worklist.pop_back_val().getDefiningOp();
        if (!def || def->getBlock() != body || stageOf(def) >= 0 ||
            !needed[s].insert(def))
          continue;
        push(def);
      }
    }
    return needed;
  }

  void emitPipeline(const LoopPlan &plan, ArrayRef<int64_t> stage,
                    int64_t numStages) {
    scf::ForOp loop = plan.loop;
    auto needed = pureOpsPerStage(plan, stage, numStages);
    Block *body = loop.getBody();
    // Tiles allocated in the body are allocated once before the loop: a
    // clone per stage instance would keep prologue and epilogue copies
    // live at once, and the dependence check already treats every
    // iteration's tile as one.
    IRMapping hoisted;
    auto emitStage = [&](OpBuilder &b, int64_t s, Value iv) {
      IRMapping map = hoisted;
      map.map(loop.getInductionVar(), iv);
      for (Operation &op : body->without_terminator()) {
        if (isa<AllocOp>(op))
          continue;
        auto it = llvm::find(plan.units, &op);
        bool mine = it != plan.units.end() ? stage[it - plan.units.begin()] == s
                                           : needed[s].contains(&op);
        if (mine)
          b.clone(op, map);
      }
    };
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(b, loc, v).getResult();
    };
    // lb + k * step
    auto ivAt = [&](Value base, int64_t k) -> Value {
      if (k == 0)
        return base;
      Value off = arith::MulIOp::create(b, loc, step, cst(std::abs(k)));
      return k > 0 ? arith::AddIOp::create(b, loc, base, off).getResult()
                   : arith::SubIOp::create(b, loc, base, off).getResult();
    };
    bool staticTrips = loop.getStaticTripCount().has_value();
    scf::IfOp guard;
    if (!staticTrips) {
      // Too few iterations for the prologue and epilogue: the loop as it
      // was.
      Value span = arith::SubIOp::create(b, loc, ub, lb);
      Value need = arith::MulIOp::create(b, loc, step, cst(numStages - 1));
      Value enough =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, span, need);
      guard = scf::IfOp::create(b, loc, enough, /*withElseRegion=*/true);
      OpBuilder eb = guard.getElseBodyBuilder();
      eb.clone(*loop.getOperation());
      b.setInsertionPointToStart(guard.thenBlock());
    }
    for (Operation *alloc : plan.allocs)
      b.clone(*alloc, hoisted);
    // Prologue: slots 0 .. S-2, stage s on iteration slot - s.
    for (int64_t slot = 0; slot + 1 < numStages; ++slot)
      for (int64_t s = 0; s <= slot; ++s)
        emitStage(b, s, ivAt(lb, slot - s));
    // Kernel: slot t runs stage s on iteration t - s, stage 0 first.
    auto kernel = scf::ForOp::create(b, loc, ivAt(lb, numStages - 1), ub, step);
    kernel->setAttr("trn.pipelined", b.getI64IntegerAttr(numStages));
    {
      OpBuilder kb = OpBuilder::atBlockBegin(kernel.getBody());
      std::swap(b, kb);
      for (int64_t s = 0; s < numStages; ++s)
        emitStage(b, s, ivAt(kernel.getInductionVar(), -s));
      std::swap(b, kb);
    }
    // Epilogue: the last iteration's counter, then slots n .. n+S-2.
    Value trips = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ub, lb), step);
    Value last = arith::AddIOp::create(
        b, loc, lb,
        arith::MulIOp::create(
            b, loc, arith::SubIOp::create(b, loc, trips, cst(1)), step));
    for (int64_t e = 0; e + 1 < numStages; ++e)
      for (int64_t s = e + 1; s < numStages; ++s)
        emitStage(b, s, ivAt(last, e + 1 - s));
  }

  std::string checkFailure;
};

} // namespace
