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
#include "axe/Layout/Swizzle.h"
#include "axe/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/Support/MathExtras.h"

#include <limits>
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
  /// Made in an earlier iteration of a loop through a buffer value computed
  /// in the loop: the same SSA value may name other memory now, so it no
  /// longer tells that one instance touches the same memory both times.
  bool crossed = false;
  /// Through the async proxy (a TMA copy, a tensor-core read).
  bool async = false;
};

/// The operator, the buffer and whether it writes it.
using AccessKey = std::tuple<Operation *, void *, bool>;
using State = std::map<AccessKey, Access>;

/// Paths meet: an access pending on either is pending, ordered only as far
/// as both paths ordered it.
void join(State &into, const State &from) {
  for (const auto &[key, access] : from) {
    auto [it, fresh] = into.insert({key, access});
    if (!fresh) {
      it->second.ordered = std::min(it->second.ordered, access.ordered);
      it->second.crossed |= access.crossed;
    }
  }
}

bool sameState(const State &a, const State &b) {
  if (a.size() != b.size())
    return false;
  for (const auto &[key, access] : a) {
    auto it = b.find(key);
    if (it == b.end() || it->second.ordered != access.ordered ||
        it->second.crossed != access.crossed)
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

/// Whether `root` places data on a cluster axis (cbx, ...): distributed
/// shared memory, which the other CTAs of the cluster read and write.
bool isClusterDistributed(Value root) {
  auto type = dyn_cast<BufferType>(root.getType());
  if (!type || type.getMemorySpace() != MemorySpace::Shared ||
      !type.hasLayout())
    return false;
  // Only a layout that reaches more than one CTA on the axis: one that names
  // it with stride 0 keeps every element in each CTA's own memory.
  Result<std::map<std::string, AxisReach>> reach = axisReach(type.getLayout());
  if (!reach)
    return true; // cannot tell: take it as shared between CTAs
  for (const auto &[axis, range] : *reach) {
    const TargetAxis *a = findAxisOnAnyTarget(axis);
    if (a && a->role == AxisRole::CTA && a->scope &&
        *a->scope == ExecutionScope::Cluster && range.hi > range.lo)
      return true;
  }
  return false;
}

/// Whether `v` may take another value in the next iteration of `loop`:
/// anything computed in the loop from its block arguments, from memory or
/// through regions (an alloc in the loop too, to be safe).
bool variesIn(Value v, Operation *loop, llvm::DenseMap<Value, bool> &memo) {
  if (!loop->isAncestor(v.getParentRegion()->getParentOp()))
    return false;
  if (isa<BlockArgument>(v))
    return true;
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool varies = def->getNumRegions() != 0 || !isMemoryEffectFree(def);
  memo[v] = varies;
  for (Value x : def->getOperands())
    if (!varies && variesIn(x, loop, memo))
      varies = true;
  memo[v] = varies;
  return varies;
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
/// buffer value both times (and in one iteration of every loop that value
/// is computed in), and that value is the instance's own (`perInstance`:
/// the instances see different values, or there is one instance), that
/// instance's barrier (none for a thread, which sees its own accesses in
/// order); else the CTA's, or the cluster's when either scope spans CTAs or
/// the buffer is distributed over the cluster's CTAs. (One value that every
/// instance sees is one memory they all touch: a write by some instances,
/// under control flow, meets the others' reads.)
Level needed(Value pending, ScopeKind pendingScope, bool crossed, Value next,
             ScopeKind nextScope, bool cluster, bool perInstance) {
  Level a = levelOf(pendingScope), b = levelOf(nextScope);
  if (pending == next && a == b && !crossed && perInstance)
    return a == Level::Thread ? Level::None : a;
  return std::max({a, b, cluster ? Level::Cluster : Level::CTA});
}

class Inserter {
public:
  Inserter(KernelOp kernel, const TargetDescription *target, bool insert)
      : uniformity(kernel), target(target), insert(insert),
        kernelThreads(int64_t(kernel.getThreads())) {}

  LogicalResult walkBlock(Block &block, State &state);
  /// A CTA's shared memory lives as long as the CTA: one the cluster's
  /// other CTAs may still be reading or writing must not exit before them.
  LogicalResult closeCluster(KernelOp kernel, State &state);
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
  Level barrierFor(const State &state, ArrayRef<Effect> effects,
                   ScopeKind scope);
  /// Whether each instance of `scope` sees its own value of `buffer` (or
  /// there is one instance where the code runs).
  bool ownedPerInstance(Value buffer, ScopeKind scope);
  /// Whether `offset` steps by at least `extent` from one instance of
  /// `scope` to the next: an axis id times a constant, plus what the
  /// instances agree on.
  bool separatesInstances(Value offset, int64_t extent, ScopeKind scope);
  /// Threads that run the code being walked: the partition's or the CTA's.
  int64_t threadsHere();
  /// Orders before `begin` what the turn it starts touches against what
  /// came before: inside a turn only its warpgroup runs, so no barrier over
  /// the partition can go there.
  LogicalResult visitTurnBegin(TurnBeginOp begin, State &state);
  /// Orders `effects`, those of a region that starts at `op` and may run on
  /// any thread here, against `state`: a barrier (and fences) before `op`.
  LogicalResult orderBefore(Operation *op, ArrayRef<Effect> effects,
                            State &state);
  /// Places (when inserting) the barrier that gives `level` before
  /// `before`; returns what it orders.
  FailureOr<Level> placeBarrier(Operation *before, Level level);
  /// Inside a partition, the scope of the barrier that gives `level` among
  /// the partition's warps, if one does.
  std::optional<ScopeKind> partitionBarrier(Level level);
  /// What a barrier at `scope` orders: inside a partition, one over all the
  /// partition's warps orders as a CTA's does (only they run its code).
  Level covered(ScopeKind scope);
  LogicalResult visitWarpSpecialize(WarpSpecializeOp ws, State &state);
  /// At the back edge of `loop`: accesses through buffer values the next
  /// iteration computes anew.
  void crossBackEdge(State &state, Operation *loop);
  /// Whether each instance of `scope` keeps to memory of its own through
  /// every value `buffer` takes in `loop`: a tile of a source the loop does
  /// not change, at an offset the loop does not change and that differs
  /// between the instances (as through one value, instances are taken to
  /// touch memory of their own).
  bool fixedPerInstance(Value buffer, Operation *loop, ScopeKind scope,
                        llvm::DenseMap<Value, bool> &memo);
  /// Fences the generic writes an asynchronous read among `effects` meets.
  void fenceGenericWrites(const State &state, ArrayRef<Effect> effects);
  void record(State &state, Operation *op, ArrayRef<Effect> effects,
              ScopeKind scope);

  UniformityAnalysis uniformity;
  const TargetDescription *target;
  bool insert;
  /// The partition whose body is being walked, if any.
  PartitionOp partition;
  /// Inside a turn (between axe.turn_begin and axe.turn_end): what is
  /// pending there was touched by the turn's warpgroup alone.
  bool inTurn = false;
  /// Threads of the kernel's CTA.
  int64_t kernelThreads = 0;
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
      Level level =
          needed(Value::getFromOpaquePointer(pendingBuffer), access.scope,
                 access.crossed, e.buffer, scope, isClusterDistributed(root),
                 ownedPerInstance(e.buffer, scope));
      if (level > access.ordered)
        want = std::max(want, level);
    }
  }
  return want;
}

int64_t Inserter::threadsHere() {
  int64_t warpSize = target ? target->warpSize : 32;
  return partition ? int64_t(partition.getNumWarps()) * warpSize
                   : kernelThreads;
}

bool Inserter::ownedPerInstance(Value buffer, ScopeKind scope) {
  int64_t size = 0;
  if (scope == ScopeKind::Warp)
    size = target ? target->warpSize : 32;
  else if (scope == ScopeKind::Warpgroup)
    size = target && target->warpgroupSize() ? target->warpgroupSize() : 128;
  if (size > 0 && threadsHere() <= size)
    return true;
  return uniformity.uniformScope(buffer) == scope;
}

bool Inserter::separatesInstances(Value offset, int64_t extent,
                                  ScopeKind scope) {
  auto wide = ScopeKind(int(scope) + 1);
  int64_t step = 1;
  for (Value v = offset;;) {
    if (v.getDefiningOp<AxisIdOp>())
      return std::abs(step) >= extent;
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumOperands() == 0)
      return false;
    if (isa<arith::IndexCastOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    if (!isa<arith::MulIOp, arith::AddIOp, arith::SubIOp>(def))
      return false;
    Value lhs = def->getOperand(0), rhs = def->getOperand(1);
    if (isa<arith::MulIOp>(def)) {
      std::optional<int64_t> k = getConstantIntValue(rhs);
      if (!k) {
        std::swap(lhs, rhs);
        k = getConstantIntValue(rhs);
      }
      if (!k || *k == 0 || llvm::MulOverflow(step, *k, step) ||
          step == std::numeric_limits<int64_t>::min())
        return false;
      v = lhs;
      continue;
    }
    // A term the instances agree on moves them all alike.
    if (uniformity.isUniformAcross(rhs, wide)) {
      v = lhs;
    } else if (uniformity.isUniformAcross(lhs, wide)) {
      v = rhs;
      if (isa<arith::SubIOp>(def))
        step = -step;
    } else {
      return false;
    }
  }
}

Level Inserter::covered(ScopeKind scope) {
  Level level = levelOf(scope);
  if (!partition || level >= Level::CTA)
    return level;
  int64_t warps = partition.getNumWarps();
  int64_t perGroup = target ? target->warpsPerWarpgroup : 4;
  if (level == Level::Warp && warps == 1)
    return Level::CTA;
  if (level == Level::Warpgroup && perGroup > 0 && warps == perGroup &&
      int64_t(partition.getWarpBegin()) % perGroup == 0)
    return Level::CTA;
  return level;
}

std::optional<ScopeKind> Inserter::partitionBarrier(Level level) {
  if (level <= Level::Warpgroup)
    return scopeOfLevel(level);
  if (level > Level::CTA)
    return std::nullopt;
  // Only the partition's warps run its code: a barrier over them is all the
  // CTA's barrier would give.
  if (covered(ScopeKind::Warp) == Level::CTA)
    return ScopeKind::Warp;
  if (covered(ScopeKind::Warpgroup) == Level::CTA)
    return ScopeKind::Warpgroup;
  // A cta barrier here would pair with the other partitions' barriers: the
  // partition's own barrier (axe.partition_barrier) orders its warps.
  return std::nullopt;
}

FailureOr<Level> Inserter::placeBarrier(Operation *before, Level level) {
  ScopeKind scope = scopeOfLevel(level);
  // Over a partition's warps where no scope's barrier is: its own.
  bool partitionWide = false;
  if (partition) {
    std::optional<ScopeKind> inPartition = partitionBarrier(level);
    if (!inPartition && level != Level::CTA) {
      if (!insert)
        return Level::None;
      return before->emitError("axe-insert-barriers: this operator needs a "
                               "cluster barrier before it (an earlier "
                               "operator touches the same distributed shared "
                               "memory, one of them writing), but it runs in "
                               "an axe.partition, whose warps alone cannot "
                               "meet the cluster's; move the operators out "
                               "of the axe.warp_specialize");
    }
    partitionWide = !inPartition;
    scope = inPartition.value_or(ScopeKind::CTA);
  }
  if (!insert)
    return covered(scope);
  // Every thread of the scope must reach the barrier: the control flow
  // around it must agree across the scope.
  for (Operation *parent = before->getParentOp();
       parent && !isa<KernelOp>(parent); parent = parent->getParentOp()) {
    SmallVector<Value> conditions;
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      conditions.push_back(ifOp.getCondition());
    } else if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      conditions.append(
          {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
    } else if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
      conditions.append(UniformityAnalysis::inputsOf(parent));
      // The condition may be computed in the loop.
      conditions.push_back(loop.getConditionOp().getCondition());
    }
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
  if (partitionWide)
    PartitionBarrierOp::create(b, before->getLoc());
  else
    BarrierOp::create(b, before->getLoc(),
                      ScopeAttr::get(before->getContext(), scope));
  ++inserted;
  return covered(scope);
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
      if (!insert)
        continue;
      // After the writer, by the threads that wrote (after a warp
      // specialization every thread runs it, the writers among them).
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
        Access{rootOf(e.buffer),  scope,  Level::None, e.write && !e.async,
               /*crossed=*/false, e.async};
}

LogicalResult Inserter::visit(Operation *op, State &state) {
  if (auto barrier = dyn_cast<BarrierOp>(op)) {
    order(state, covered(barrier.getScope().getKind()));
    return success();
  }
  if (auto begin = dyn_cast<TurnBeginOp>(op))
    return visitTurnBegin(begin, state);
  if (isa<TurnEndOp>(op)) {
    inTurn = false;
    return success();
  }
  if (isa<PartitionBarrierOp>(op)) {
    // Only the partition's warps run its code: as a CTA's barrier.
    order(state, Level::CTA);
    return success();
  }
  if (isa<FenceAsyncProxyOp>(op)) {
    // The program fenced the generic writes before it.
    for (const auto &[key, access] : state)
      if (access.generic)
        fenced.insert(std::get<0>(key));
    return success();
  }
  if (isa<PipelineAcquireOp>(op)) {
    // An asynchronous access to a stage completes on the stage's full
    // barrier, which the consumers wait for before they release the slot
    // that this acquire waits for: a barrier would not order it, the
    // pipeline does.
    for (auto &entry : state)
      if (entry.second.async)
        entry.second.ordered = std::max(entry.second.ordered, Level::CTA);
    return success();
  }
  if (auto operatorOp = dyn_cast<OperatorOpInterface>(op)) {
    ScopeKind scope = operatorOp.getScope().getKind();
    SmallVector<Effect> effects = effectsOf(op, target);
    fenceGenericWrites(state, effects);
    Level level = barrierFor(state, effects, scope);
    // What a turn left pending its own warpgroup touched.
    if (inTurn)
      level = std::min(level, Level::Warpgroup);
    if (level != Level::None) {
      FailureOr<Level> orders = placeBarrier(op, level);
      if (failed(orders))
        return failure();
      order(state, *orders);
    }
    record(state, op, effects, scope);
    return success();
  }
  if (auto ws = dyn_cast<WarpSpecializeOp>(op))
    return visitWarpSpecialize(ws, state);
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

LogicalResult Inserter::visitTurnBegin(TurnBeginOp begin, State &state) {
  SmallVector<Effect> effects;
  for (Operation *op = begin->getNextNode(); op && !isa<TurnEndOp>(op);
       op = op->getNextNode())
    op->walk([&](OperatorOpInterface inner) {
      llvm::append_range(effects, effectsOf(inner, target));
    });
  if (failed(orderBefore(begin, effects, state)))
    return failure();
  inTurn = true;
  return success();
}

LogicalResult Inserter::orderBefore(Operation *op, ArrayRef<Effect> effects,
                                    State &state) {
  fenceGenericWrites(state, effects);
  Level level = barrierFor(state, effects, ScopeKind::CTA);
  if (level == Level::None)
    return success();
  FailureOr<Level> orders = placeBarrier(op, std::max(level, Level::CTA));
  if (failed(orders))
    return failure();
  order(state, *orders);
  return success();
}

LogicalResult Inserter::visitWarpSpecialize(WarpSpecializeOp ws, State &state) {
  // From outside, the whole region touches what its operators touch, on
  // any thread of the CTA.
  SmallVector<Effect> effects;
  ws.getBody().walk([&](OperatorOpInterface inner) {
    llvm::append_range(effects, effectsOf(inner, target));
  });
  if (failed(orderBefore(ws, effects, state)))
    return failure();
  // Inside, each partition's warps order their own accesses to each other,
  // from a state the barrier above has ordered against the region. What
  // partitions hand each other they order themselves (cta barriers paired
  // across partitions, pipelines).
  if (insert) {
    PartitionOp outer = partition;
    for (PartitionOp p : ws.getBody().front().getOps<PartitionOp>()) {
      partition = p;
      State inner;
      if (failed(walkBlock(p.getBody().front(), inner)))
        return failure();
    }
    partition = outer;
  }
  record(state, ws, effects, ScopeKind::CTA);
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
    with.crossBackEdge(s, loop);
    join(head, s);
    return success();
  };
  Inserter probe(loop->getParentOfType<KernelOp>(), target,
                 /*insert=*/false);
  probe.partition = partition;
  probe.inTurn = inTurn;
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
  crossBackEdge(s, loop);
  state = std::move(head);
  join(state, s);
  return success();
}

bool Inserter::fixedPerInstance(Value buffer, Operation *loop, ScopeKind scope,
                                llvm::DenseMap<Value, bool> &memo) {
  if (scope >= ScopeKind::Mesh)
    return false;
  for (Value v = buffer;;) {
    Value source;
    ValueRange offsets;
    if (auto slice = v.getDefiningOp<SliceOp>()) {
      source = slice.getSource();
      offsets = slice.getStarts();
    } else if (auto view = v.getDefiningOp<ViewOp>()) {
      source = view.getSource();
      offsets = view.getOffsets();
    } else {
      return false;
    }
    auto shape = cast<BufferType>(v.getType()).getShape();
    if (!variesIn(source, loop, memo))
      for (auto [d, offset] : llvm::enumerate(offsets))
        if (!variesIn(offset, loop, memo) &&
            !uniformity.isUniformAcross(offset, ScopeKind(int(scope) + 1)) &&
            d < shape.size() && separatesInstances(offset, shape[d], scope))
          return true;
    v = source;
  }
}

void Inserter::crossBackEdge(State &state, Operation *loop) {
  llvm::DenseMap<Value, bool> memo;
  for (auto &[key, access] : state) {
    Value buffer = Value::getFromOpaquePointer(std::get<1>(key));
    if (variesIn(buffer, loop, memo) &&
        !fixedPerInstance(buffer, loop, access.scope, memo))
      access.crossed = true;
  }
}

LogicalResult Inserter::closeCluster(KernelOp kernel, State &state) {
  bool pending = llvm::any_of(state, [](const auto &entry) {
    return entry.second.ordered < Level::Cluster &&
           isClusterDistributed(entry.second.root);
  });
  if (!pending || !insert)
    return success();
  Block &body = kernel.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(&body);
  if (!body.empty() && body.back().hasTrait<OpTrait::IsTerminator>())
    b.setInsertionPoint(&body.back());
  BarrierOp::create(b, kernel.getLoc(),
                    ScopeAttr::get(kernel.getContext(), ScopeKind::Cluster));
  ++inserted;
  order(state, Level::Cluster);
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
      if (failed(inserter.walkBlock(kernel.getBody().front(), state)) ||
          failed(inserter.closeCluster(kernel, state)))
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
