//===- InsertBarriers.cpp - Barriers from a hazard analysis ---------------===//
//
// Operators at a scope read and write memory their scope's threads share.
// Which thread touches which element is the schedule's choice, so two
// operators that touch one buffer, one of them writing, are ordered only by
// a barrier over every thread either may run on. This pass finds those
// pairs, as Triton's Membar finds them over shared allocations, and inserts
// the narrowest `axe.barrier` that orders them, unless one already does on
// every path between them (loops included: an access at the end of an
// iteration meets the next iteration's).
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Uniformity.h"
#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Target/Target.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>
#include <tuple>

namespace axe {
#define GEN_PASS_DEF_AXEINSERTBARRIERS
#include "axe/Codegen/Passes.h.inc"
} // namespace axe

using namespace mlir;
using namespace axe;

namespace {

/// Scopes a barrier can order, narrowest first, numbered as ScopeKind
/// numbers them (a scope past the cluster is ordered by the cluster's
/// barrier, the widest there is); `None` orders nothing.
enum class Level : int {
  None = -1,
  Thread = int(ScopeKind::Thread),
  Warp = int(ScopeKind::Warp),
  Warpgroup = int(ScopeKind::Warpgroup),
  CTA = int(ScopeKind::CTA),
  Cluster = int(ScopeKind::Cluster)
};

Level levelOf(ScopeKind scope) {
  return Level(std::min(int(scope), int(Level::Cluster)));
}

ScopeKind scopeOfLevel(Level level) { return ScopeKind(int(level)); }

/// An operator's access to a buffer that may still race with what follows.
struct Access {
  Value root;
  ScopeKind scope;
  /// The widest barrier that has ordered it with what follows.
  Level ordered = Level::None;
  /// A write through the generic proxy (ordinary stores), which an
  /// asynchronous read sees only after the writer's proxy fence.
  bool generic = false;
};

/// The operator, the buffer and whether it writes it.
using AccessKey = std::tuple<Operation *, void *, bool>;
using State = std::map<AccessKey, Access>;

/// Paths meet: an access pending on either is pending, ordered only as far
/// as both paths ordered it.
void join(State &into, const State &from) {
  for (const auto &[key, access] : from) {
    auto [it, fresh] = into.insert({key, access});
    if (!fresh)
      it->second.ordered = std::min(it->second.ordered, access.ordered);
  }
}

bool sameState(const State &a, const State &b) {
  if (a.size() != b.size())
    return false;
  for (const auto &[key, access] : a) {
    auto it = b.find(key);
    if (it == b.end() || it->second.ordered != access.ordered)
      return false;
  }
  return true;
}

/// The memory a buffer lives in, as far as this analysis tells buffers
/// apart: an allocation, or the memref a view is of. Kernel arguments a
/// kernel writes are taken not to overlap its other arguments.
Value rootOf(Value buffer) {
  while (auto slice = buffer.getDefiningOp<SliceOp>())
    buffer = slice.getSource();
  if (auto view = buffer.getDefiningOp<ViewOp>())
    return view.getSource();
  return buffer;
}

/// Buffers whose memory other threads may touch: shared and global. A
/// thread's registers are its own; tensor memory is ordered by the
/// schedules' own mbarriers.
bool isTracked(Value buffer) {
  auto type = dyn_cast<BufferType>(buffer.getType());
  if (!type)
    return false;
  MemorySpace space = type.getMemorySpace();
  return space == MemorySpace::Shared || space == MemorySpace::Global;
}

struct Effect {
  Value buffer;
  bool write;
  /// Through the async proxy (TMA, wgmma, tcgen05).
  bool async = false;
};

/// The schedule `op` forces on `target`, or "".
std::string forcedSchedule(Operation *op, StringRef target) {
  Attribute attr = cast<OperatorOpInterface>(op).getScheduleAttr();
  if (auto name = dyn_cast_or_null<StringAttr>(attr))
    return name.str();
  if (auto perTarget = dyn_cast_or_null<DictionaryAttr>(attr))
    if (auto name = dyn_cast_or_null<StringAttr>(perTarget.get(target)))
      return name.str();
  return "";
}

/// Whether `op` may access shared memory through the async proxy on
/// `target`: copies that force TMA, and gemms that a tensor-core schedule
/// reading shared memory asynchronously may take (dispatch picks those by
/// priority): wgmma at warpgroup scope, tcgen05 where the target has it.
bool mayUseAsyncProxy(Operation *op, const TargetDescription *target) {
  if (!target)
    return false;
  std::string forced = forcedSchedule(op, target->name);
  if (isa<CopyOp, CopyAsyncOp>(op))
    return forced == "tma";
  auto gemm = dyn_cast<GemmOp>(op);
  if (!gemm)
    return false;
  if (forced == "wgmma" || forced == "tcgen05")
    return true;
  bool warpgroup = gemm.getScope().getKind() == ScopeKind::Warpgroup;
  return forced.empty() && ((warpgroup && target->hasFeature("wgmma")) ||
                            target->hasFeature("tcgen05"));
}

/// What an operator reads and writes, from its operands' declared effects.
SmallVector<Effect> effectsOf(Operation *op, const TargetDescription *target) {
  SmallVector<Effect> out;
  bool async = isa<OperatorOpInterface>(op) && mayUseAsyncProxy(op, target);
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return out;
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (const auto &e : effects) {
    Value v = e.getValue();
    if (!v || !isTracked(v))
      continue;
    bool write = isa<MemoryEffects::Write>(e.getEffect());
    bool shared =
        cast<BufferType>(v.getType()).getMemorySpace() == MemorySpace::Shared;
    if (write || isa<MemoryEffects::Read>(e.getEffect()))
      out.push_back({v, write, async && shared});
  }
  return out;
}

/// The barrier that orders an access to `pending` at `pendingScope` before
/// one to `next` at `nextScope`: where one scope instance touches one
/// buffer value both times, that instance's barrier (none for a thread,
/// which sees its own accesses in order); else the CTA's, or the cluster's
/// when either scope spans CTAs.
Level needed(Value pending, ScopeKind pendingScope, Value next,
             ScopeKind nextScope) {
  Level a = levelOf(pendingScope), b = levelOf(nextScope);
  if (pending == next && a == b)
    return a == Level::Thread ? Level::None : a;
  return std::max({a, b, Level::CTA});
}

class Inserter {
public:
  Inserter(Operation *kernel, const TargetDescription *target, bool insert)
      : uniformity(kernel), target(target), insert(insert) {}

  LogicalResult walkBlock(Block &block, State &state);
  unsigned inserted = 0;

private:
  LogicalResult visit(Operation *op, State &state);
  LogicalResult visitLoop(Operation *loop, MutableArrayRef<Region> regions,
                          State &state);
  /// Orders `state`'s accesses as a barrier at `level` does.
  static void order(State &state, Level level) {
    for (auto &entry : state)
      entry.second.ordered = std::max(entry.second.ordered, level);
  }
  /// The barrier `effects` of an op at `scope` need before them.
  static Level barrierFor(const State &state, ArrayRef<Effect> effects,
                          ScopeKind scope);
  LogicalResult placeBarrier(Operation *before, Level level);
  /// Fences the generic writes an asynchronous read among `effects` meets.
  void fenceGenericWrites(const State &state, ArrayRef<Effect> effects);
  void record(State &state, Operation *op, ArrayRef<Effect> effects,
              ScopeKind scope);

  UniformityAnalysis uniformity;
  const TargetDescription *target;
  bool insert;
  /// Writers already followed by a proxy fence.
  llvm::SmallPtrSet<Operation *, 8> fenced;

public:
  unsigned fences = 0;
};

Level Inserter::barrierFor(const State &state, ArrayRef<Effect> effects,
                           ScopeKind scope) {
  Level want = Level::None;
  for (const Effect &e : effects) {
    Value root = rootOf(e.buffer);
    for (const auto &[key, access] : state) {
      auto [pendingOp, pendingBuffer, pendingWrite] = key;
      if (access.root != root || (!e.write && !pendingWrite))
        continue;
      Level level = needed(Value::getFromOpaquePointer(pendingBuffer),
                           access.scope, e.buffer, scope);
      if (level > access.ordered)
        want = std::max(want, level);
    }
  }
  return want;
}

LogicalResult Inserter::placeBarrier(Operation *before, Level level) {
  if (!insert)
    return success();
  ScopeKind scope = scopeOfLevel(level);
  // Every thread of the scope must reach the barrier: the control flow
  // around it must agree across the scope.
  for (Operation *parent = before->getParentOp();
       parent && !isa<KernelOp>(parent); parent = parent->getParentOp()) {
    SmallVector<Value> conditions;
    if (auto ifOp = dyn_cast<scf::IfOp>(parent))
      conditions.push_back(ifOp.getCondition());
    else if (auto loop = dyn_cast<scf::ForOp>(parent))
      conditions.append(
          {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
    else if (isa<scf::WhileOp>(parent))
      conditions.append(UniformityAnalysis::inputsOf(parent));
    for (Value c : conditions)
      if (!uniformity.isUniformAcross(c, scope))
        return before->emitError("axe-insert-barriers: this operator needs a ")
               << stringifyScopeKind(scope)
               << " barrier before it (an earlier operator touches the same "
                  "memory, one of them writing), but it runs under control "
                  "flow that differs between the threads of a "
               << stringifyScopeKind(scope)
               << "; move the operators out of it or order them yourself";
  }
  OpBuilder b(before);
  BarrierOp::create(b, before->getLoc(),
                    ScopeAttr::get(before->getContext(), scope));
  ++inserted;
  return success();
}

void Inserter::fenceGenericWrites(const State &state,
                                  ArrayRef<Effect> effects) {
  for (const Effect &e : effects) {
    if (!e.async)
      continue;
    Value root = rootOf(e.buffer);
    for (const auto &[key, access] : state) {
      Operation *writer = std::get<0>(key);
      if (!access.generic || access.root != root || fenced.contains(writer))
        continue;
      fenced.insert(writer);
      if (!insert || isa<WarpSpecializeOp>(writer))
        continue;
      // After the writer, by the threads that wrote.
      OpBuilder b(writer->getContext());
      b.setInsertionPointAfter(writer);
      FenceAsyncProxyOp::create(b, writer->getLoc());
      ++fences;
    }
  }
}

void Inserter::record(State &state, Operation *op, ArrayRef<Effect> effects,
                      ScopeKind scope) {
  for (const Effect &e : effects)
    state[{op, e.buffer.getAsOpaquePointer(), e.write}] =
        Access{rootOf(e.buffer), scope, Level::None, e.write && !e.async};
}

LogicalResult Inserter::visit(Operation *op, State &state) {
  if (auto barrier = dyn_cast<BarrierOp>(op)) {
    order(state, levelOf(barrier.getScope().getKind()));
    return success();
  }
  if (auto operatorOp = dyn_cast<OperatorOpInterface>(op)) {
    ScopeKind scope = operatorOp.getScope().getKind();
    SmallVector<Effect> effects = effectsOf(op, target);
    fenceGenericWrites(state, effects);
    Level level = barrierFor(state, effects, scope);
    if (level != Level::None) {
      if (failed(placeBarrier(op, level)))
        return failure();
      order(state, level);
    }
    record(state, op, effects, scope);
    return success();
  }
  if (auto ws = dyn_cast<WarpSpecializeOp>(op)) {
    // Partitions order their own accesses (cta barriers paired across
    // partitions, pipelines); from outside, the whole region touches what
    // its operators touch, on any thread of the CTA.
    SmallVector<Effect> effects;
    ws.getBody().walk([&](OperatorOpInterface inner) {
      llvm::append_range(effects, effectsOf(inner, target));
    });
    fenceGenericWrites(state, effects);
    Level level = barrierFor(state, effects, ScopeKind::CTA);
    if (level != Level::None) {
      if (failed(placeBarrier(op, std::max(level, Level::CTA))))
        return failure();
      order(state, std::max(level, Level::CTA));
    }
    record(state, op, effects, ScopeKind::CTA);
    return success();
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    State thenState = state;
    if (failed(walkBlock(ifOp.getThenRegion().front(), thenState)))
      return failure();
    if (!ifOp.getElseRegion().empty()) {
      if (failed(walkBlock(ifOp.getElseRegion().front(), state)))
        return failure();
    }
    join(state, thenState);
    return success();
  }
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return visitLoop(op, loop->getRegions(), state);
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return visitLoop(op, loop->getRegions(), state);
  return success();
}

/// Runs the loop's regions in order until what reaches the loop's head
/// (from before it, or from the end of an iteration) stops growing, then
/// once more inserting; what leaves it is what reaches its head.
LogicalResult Inserter::visitLoop(Operation *loop,
                                  MutableArrayRef<Region> regions,
                                  State &state) {
  auto runOnce = [&](Inserter &with, State &head) -> LogicalResult {
    State s = head;
    for (Region &r : regions)
      if (failed(with.walkBlock(r.front(), s)))
        return failure();
    join(head, s);
    return success();
  };
  Inserter probe(loop, target, /*insert=*/false);
  State head = state;
  for (;;) {
    State next = head;
    if (failed(runOnce(probe, next)))
      return failure();
    if (sameState(next, head))
      break;
    head = std::move(next);
  }
  State s = head;
  for (Region &r : regions)
    if (failed(walkBlock(r.front(), s)))
      return failure();
  state = std::move(head);
  join(state, s);
  return success();
}

LogicalResult Inserter::walkBlock(Block &block, State &state) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(visit(op, state)))
      return failure();
  return success();
}

struct AxeInsertBarriersPass
    : public axe::impl::AxeInsertBarriersBase<AxeInsertBarriersPass> {
  using AxeInsertBarriersBase::AxeInsertBarriersBase;

  void runOnOperation() override {
    if (failed(requireConcreteLayouts(getOperation(), getArgument())))
      return signalPassFailure();
    WalkResult walk = getOperation()->walk([&](KernelOp kernel) {
      const TargetDescription *description = nullptr;
      TargetAttr attr = getTargetAttr(kernel);
      std::string name = !target.empty() ? target
                         : attr          ? attr.getName().str()
                                         : std::string();
      if (!name.empty()) {
        Result<const TargetDescription *> found = lookupTarget(name);
        if (!found) {
          kernel.emitError("axe-insert-barriers: ") << found.message();
          return WalkResult::interrupt();
        }
        description = *found;
      }
      Inserter inserter(kernel, description, /*insert=*/true);
      State state;
      if (failed(inserter.walkBlock(kernel.getBody().front(), state)))
        return WalkResult::interrupt();
      numInserted += inserter.inserted;
      numFences += inserter.fences;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
