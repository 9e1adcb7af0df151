//===- BalanceEngines.cpp - Spreading engine work over VectorE, ScalarE, GpSimd
//
// trn-balance-engines: many instructions may run on more than one engine
// (a copy on VectorE, GpSimd, or ScalarE as an activation; tensor_scalar
// on any of the three). The pass starts from the busy-time rule: in
// program order, each such instruction on the engine whose estimated busy
// time, weighted by loop trip counts and its own cost included, is lowest.
// It then moves single instructions to another allowed engine while that
// shortens a list schedule of the function: each engine (and the SBUF and
// PSUM ports VectorE shares) is free at some time, each buffer is ready at
// its last writer's end plus the writer's latency, a producer on another
// compute engine adds the semaphore latency, and an instruction starts when
// its engine and operands are. A loop runs its body min(trips, 3) times,
// the remaining iterations each adding the last one's period. Moves are
// tried in program order, engines in a fixed order, for at most four
// sweeps, so the result is deterministic. The costs are the simulator's
// formulas (lib/Target/Trn/Cost.cpp, at the default clocks).
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"
#include "axe/Target/Trn/Cost.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace axe::trn {
#define GEN_PASS_DEF_TRNBALANCEENGINES
#include "axe/Dialect/Trn/Transforms/Passes.h.inc"
} // namespace axe::trn

using namespace mlir;
using namespace axe;
using namespace axe::trn;
namespace cost = axe::trnsim::cost;
using axe::trnsim::Unit;

namespace {

int64_t freeElements(Value tile) {
  auto type = cast<MemRefType>(tile.getType());
  return type.getRank() == 0 ? 1 : type.getNumElements() / type.getDimSize(0);
}

bool inSpace(ValueRange tiles, MemorySpace space) {
  return llvm::any_of(tiles, [&](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && getMemorySpace(type) == space;
  });
}

bool inPsum(ValueRange tiles) { return inSpace(tiles, MemorySpace::PSUM); }

/// How many times `op` runs: the product of the constant trip counts of
/// the loops around it (1 for a loop whose count is not constant).
double tripWeight(Operation *op) {
  double weight = 1;
  for (auto loop = op->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (std::optional<APInt> trips = loop.getStaticTripCount())
      weight *= double(trips->getZExtValue());
  return weight;
}

Unit unitOf(Engine e) {
  switch (e) {
  case Engine::Tensor:
    return Unit::Tensor;
  case Engine::Vector:
    return Unit::Vector;
  case Engine::Scalar:
    return Unit::Scalar;
  case Engine::GpSimd:
    return Unit::GpSimd;
  }
  return Unit::Vector;
}

/// The buffer a tile views.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// An instruction as the list schedule sees it: the engines it may run on
/// (one when fixed) and its issue cycles, the same on each of them.
struct Candidate {
  SmallVector<Engine, 3> choices;
  double cycles = 0;
  bool movable = false;
};

struct TrnBalanceEnginesPass
    : public axe::trn::impl::TrnBalanceEnginesBase<TrnBalanceEnginesPass> {
  struct Write {
    Unit unit;
    double complete;
  };
  struct Read {
    Unit unit;
    double done;
  };
  struct State {
    std::array<double, trnsim::kNumUnits> free{};
    double sbufPort = 0, psumPort = 0;
    DenseMap<Value, Write> writes;
    DenseMap<Value, SmallVector<Read, 2>> reads;
    double end = 0, offset = 0;
  };

  void runOnOperation() override {
    Operation *func = getOperation();
    SmallVector<Operation *> movable;
    func->walk([&](Operation *op) {
      if (!isa<TrnDialect>(op->getDialect()))
        return;
      Candidate c = candidate(op);
      if (c.choices.empty())
        return;
      accessCache[op] = accesses(op);
      if (c.movable)
        movable.push_back(op);
      info[op] = std::move(c);
    });
    loadBalance(func);
    // Move single instructions to the engine on which the list schedule
    // ends earliest, in program order, until no move shortens it.
    double best = makespan(func);
    for (int sweep = 0; sweep < 4; ++sweep) {
      bool changed = false;
      for (Operation *op : movable) {
        Engine current = assigned.lookup(op);
        for (Engine e : info[op].choices) {
          if (e == current)
            continue;
          assigned[op] = e;
          double span = makespan(func);
          if (span < best - 0.5)
            best = span, current = e, changed = true;
        }
        assigned[op] = current;
      }
      if (!changed)
        break;
    }
    for (Operation *op : movable)
      apply(op, assigned.lookup(op));
  }

  double ns(Unit unit, double cycles) const {
    return cycles / trnsim::clockGhz(unit, params);
  }

  /// VectorE and GpSimd (which cannot reach PSUM), plus ScalarE when
  /// `scalar`.
  static SmallVector<Engine, 3> engines(bool psum, bool scalar) {
    SmallVector<Engine, 3> choices = {Engine::Vector};
    if (scalar)
      choices.push_back(Engine::Scalar);
    if (!psum)
      choices.push_back(Engine::GpSimd);
    return choices;
  }

  /// Which engines may run `op` and for how many cycles; no choices for an
  /// op that is not a compute instruction.
  Candidate candidate(Operation *op) const {
    Candidate c;
    bool psum = inPsum(op->getOperands());
    auto streaming = [&](Value v, bool reduce = false) {
      return double(cost::streaming(freeElements(v), params, reduce));
    };
    if (auto copy = dyn_cast<TensorCopyOp>(op)) {
      c = {engines(psum, true), streaming(copy.getSrc()), true};
    } else if (auto ts = dyn_cast<TensorScalarOp>(op)) {
      bool bitwise =
          isBitwise(ts.getOp0()) || (ts.getOp1() && isBitwise(*ts.getOp1()));
      c = {bitwise ? SmallVector<Engine, 3>{Engine::Vector}
                   : engines(psum, true),
           streaming(ts.getSrc()), true};
    } else if (auto tt = dyn_cast<TensorTensorOp>(op)) {
      c = {engines(psum, false),
           cost::tensorTensor(freeElements(tt.getLhs()), false, params), true};
    } else if (auto ms = dyn_cast<MemsetOp>(op)) {
      c = {engines(psum, false),
           cost::memset(freeElements(ms.getDst()), false, params), true};
    } else if (auto act = dyn_cast<ActivationOp>(op)) {
      c = {{Engine::Scalar},
           streaming(act.getSrc(), bool(act.getReduceRes())),
           false};
    } else if (auto red = dyn_cast<TensorReduceOp>(op)) {
      c = {{Engine::Vector},
           cost::tensorReduce(freeElements(red.getSrc()), false),
           false};
    } else if (auto tr = dyn_cast<TransposeOp>(op)) {
      auto type = cast<MemRefType>(tr.getSrc().getType());
      c = {{tr.getEngine()},
           tr.getEngine() == Engine::Tensor
               ? cost::tensorTranspose(type.getDimSize(0),
                                       freeElements(tr.getSrc()))
               : streaming(tr.getSrc()),
           false};
    } else if (auto mm = dyn_cast<MatmulOp>(op)) {
      auto moving = cast<MemRefType>(mm.getMoving().getType());
      c = {{Engine::Tensor},
           cost::matmul(freeElements(mm.getStationary()),
                        freeElements(mm.getMoving()),
                        moving.getElementType().isF32(), params),
           false};
    } else if (isa<IotaOp, AffineSelectOp>(op)) {
      Value dst = op->getOperand(op->getNumOperands() - 1);
      for (Value v : op->getOperands())
        if (isa<MemRefType>(v.getType()))
          dst = v;
      c = {{Engine::GpSimd}, cost::gpsimdPattern(freeElements(dst), params),
           false};
    }
    return c;
  }

  struct Access {
    Value buffer;
    bool write;
  };
  static SmallVector<Access, 4> accesses(Operation *op) {
    SmallVector<Access, 4> result;
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return result;
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &effect : effects) {
      Value v = effect.getValue();
      if (!v || !isa<MemRefType>(v.getType()))
        continue;
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        result.push_back({rootOf(v), false});
      else if (isa<MemoryEffects::Write>(effect.getEffect()))
        result.push_back({rootOf(v), true});
    }
    return result;
  }

  /// When `unit` may start `accesses`: after the writes they read or
  /// overwrite and the reads they overwrite, on another engine plus the
  /// semaphore (DMA completions need none).
  double ready(const State &s, ArrayRef<Access> acc, Unit unit) const {
    double t = 0;
    auto edge = [&](Unit from, double time) {
      return from == unit || from == Unit::DMA ? time : time + params.semNs;
    };
    for (const Access &a : acc) {
      if (auto it = s.writes.find(a.buffer); it != s.writes.end())
        if (!(a.write && it->second.unit == unit))
          t = std::max(t, edge(it->second.unit, it->second.complete));
      if (!a.write)
        continue;
      if (auto it = s.reads.find(a.buffer); it != s.reads.end())
        for (const Read &r : it->second)
          if (r.unit != unit)
            t = std::max(t, edge(r.unit, r.done));
    }
    return t;
  }

  struct Timing {
    double start, end, complete;
    bool sbuf, psum;
  };
  Timing time(const State &s, Operation *op, ArrayRef<Access> acc, Unit unit,
              double cycles) const {
    Timing t;
    t.sbuf = (unit == Unit::Vector || unit == Unit::GpSimd) &&
             inSpace(op->getOperands(), MemorySpace::SBUF);
    t.psum = (unit == Unit::Vector || unit == Unit::Scalar) &&
             inSpace(op->getOperands(), MemorySpace::PSUM);
    t.start = std::max(s.free[int(unit)], ready(s, acc, unit));
    if (t.sbuf)
      t.start = std::max(t.start, s.sbufPort);
    if (t.psum)
      t.start = std::max(t.start, s.psumPort);
    t.end = t.start + ns(unit, cycles);
    t.complete = t.end + trnsim::latencyCycles(unit, params) /
                             trnsim::clockGhz(unit, params);
    return t;
  }

  void record(State &s, ArrayRef<Access> acc, Unit unit, const Timing &t) {
    s.free[int(unit)] = t.end;
    if (t.sbuf)
      s.sbufPort = t.end;
    if (t.psum)
      s.psumPort = t.end;
    for (const Access &a : acc)
      if (!a.write)
        s.reads[a.buffer].push_back({unit, t.end});
    for (const Access &a : acc)
      if (a.write) {
        s.writes[a.buffer] = {unit, t.complete};
        s.reads.erase(a.buffer);
      }
  }

  /// A DMA transfer: no engine queue of the balanced ones; it completes
  /// after its bytes over all DMA engines and the completion latency.
  void dma(State &s, DmaCopyOp op) {
    SmallVector<Access, 4> &acc = accessCache[op];
    if (acc.empty())
      acc = accesses(op);
    double start = ready(s, acc, Unit::DMA);
    auto type = cast<MemRefType>(op.getSrc().getType());
    double bytes = double(type.getNumElements()) *
                   std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    double end = start + bytes / (params.dmaEngineBw * params.dmaEngines);
    Timing t{start, end, end + params.dmaFixedNs, false, false};
    s.end = std::max(s.end, t.complete);
    for (const Access &a : acc)
      if (!a.write)
        s.reads[a.buffer].push_back({Unit::DMA, t.end});
    for (const Access &a : acc)
      if (a.write) {
        s.writes[a.buffer] = {Unit::DMA, t.complete};
        s.reads.erase(a.buffer);
      }
  }

  /// The estimated end of `block` run from `s`: every instruction on its
  /// engine in `assigned` (movable) or its own (fixed). A loop runs its
  /// body min(trips, 3) times; the rest of its iterations add the last
  /// one's period (its busiest engine's busy time) to `offset`.
  void schedule(Block &block, State &s) {
    for (Operation &op : block)
      step(&op, s);
  }

  void step(Operation *op, State &s) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      int64_t trips = 1;
      if (std::optional<APInt> n = loop.getStaticTripCount())
        trips = int64_t(n->getZExtValue());
      int64_t simulated = std::min<int64_t>(trips, 3);
      std::array<double, trnsim::kNumUnits> before = s.free;
      for (int64_t i = 0; i < simulated; ++i) {
        before = s.free;
        schedule(*loop.getBody(), s);
      }
      if (trips > simulated) {
        double period = 0;
        for (int u = 0; u < trnsim::kNumUnits; ++u)
          period = std::max(period, s.free[u] - before[u]);
        s.offset += double(trips - simulated) * period;
      }
      return;
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        schedule(block, s);
    if (auto d = dyn_cast<DmaCopyOp>(op))
      return dma(s, d);
    if (!isa<TrnDialect>(op->getDialect()))
      return;
    auto it = info.find(op);
    if (it == info.end())
      return;
    const Candidate &c = it->second;
    Engine e = c.movable ? assigned.lookup(op) : c.choices.front();
    Unit u = unitOf(e);
    SmallVector<Access, 4> &acc = accessCache[op];
    Timing t = time(s, op, acc, u, c.cycles);
    record(s, acc, u, t);
    s.end = std::max(s.end, t.complete);
  }

  double makespan(Operation *func) {
    State s;
    for (Region &region : func->getRegions())
      for (Block &block : region)
        schedule(block, s);
    return s.end + s.offset;
  }

  /// The old rule: in program order, each movable instruction on the engine
  /// whose busy time weighted by trip counts, its own cost included, is
  /// lowest; activations, reductions and vector transposes count toward it.
  void loadBalance(Operation *func) {
    std::array<double, trnsim::kNumUnits> load{};
    func->walk([&](Operation *op) {
      auto it = info.find(op);
      if (it == info.end())
        return;
      const Candidate &c = it->second;
      double weight = tripWeight(op);
      if (!c.movable) {
        if (isa<ActivationOp, TensorReduceOp, TransposeOp>(op) &&
            c.choices.front() != Engine::Tensor) {
          Unit u = unitOf(c.choices.front());
          load[int(u)] += ns(u, c.cycles) * weight;
        }
        return;
      }
      Engine best = c.choices.front();
      double bestEnd = INFINITY;
      for (Engine e : c.choices) {
        Unit u = unitOf(e);
        double end = load[int(u)] + ns(u, c.cycles) * weight;
        if (end < bestEnd)
          bestEnd = end, best = e;
      }
      Unit u = unitOf(best);
      load[int(u)] += ns(u, c.cycles) * weight;
      assigned[op] = best;
    });
  }

  void apply(Operation *op, Engine e) {
    if (auto copy = dyn_cast<TensorCopyOp>(op)) {
      if (e == Engine::Scalar) {
        // ScalarE copies as an activation (it has no tensor_copy).
        OpBuilder b(copy);
        ActivationOp::create(b, copy.getLoc(), ActFunc::Copy, copy.getSrc(),
                             copy.getDst(), Value(), FloatAttr(), Value(),
                             AluOpAttr(), Value());
        copy.erase();
        ++numMoved;
      } else if (e != copy.getEngine()) {
        copy.setEngine(e);
        ++numMoved;
      }
      return;
    }
    auto set = [&](auto typed) {
      if (typed.getEngine() != e) {
        typed.setEngine(e);
        ++numMoved;
      }
    };
    if (auto ts = dyn_cast<TensorScalarOp>(op))
      return set(ts);
    if (auto tt = dyn_cast<TensorTensorOp>(op))
      return set(tt);
    if (auto ms = dyn_cast<MemsetOp>(op))
      return set(ms);
  }

  trnsim::SimParams params;
  DenseMap<Operation *, Candidate> info;
  DenseMap<Operation *, SmallVector<Access, 4>> accessCache;
  DenseMap<Operation *, Engine> assigned;
};

} // namespace
