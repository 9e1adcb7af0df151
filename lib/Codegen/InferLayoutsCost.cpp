//===- InferLayoutsCost.cpp - Pricing an assignment of layouts ------------===//

#include "KernelInference.h"

#include "axe/Layout/Algebra.h"
#include "axe/Support/ElementBytes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <set>

using namespace mlir;

namespace axe::inference {

int64_t addSaturating(int64_t a, int64_t b) {
  int64_t sum;
  return addOverflows(a, b, sum) ? INT64_MAX : sum;
}

/// The axis along which slices of a buffer in `space` are laid side by side
/// when a slice's layout is lifted to the whole buffer.
llvm::StringRef gridAxis(MemorySpace space) {
  switch (space) {
  case MemorySpace::SBuf:
  case MemorySpace::PSum:
    return "F";
  case MemorySpace::TMem:
    return "TCol";
  default:
    return "m";
  }
}

int64_t bufferBytes(BufferType type) {
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementBitWidth() / 8);
}

/// What taking a schedule `gap` priority points below the best costs, in
/// the unit of conversions (bytes moved): priorities come in tiers of 10
/// (a tensor-core or packed kernel, a vectorized one, a scalar one), and a
/// tier down is taken to cost as much as moving the operator's buffers four
/// times, so a conversion of one operand beats falling back a tier.
double scheduleCost(Operation *op, int gap) {
  int64_t bytes = 0;
  for (Type type : op->getOperandTypes())
    if (auto buffer = dyn_cast<BufferType>(type))
      bytes += bufferBytes(buffer);
  return gap / 10.0 * 4.0 * bytes;
}

/// How far apart a conversion moves an element: within a thread's storage,
/// across lanes, across warps or partitions, across devices.
double conversionFactor(const Layout &from, const Layout &to, int64_t size) {
  // A sample is enough to see which axes the two placements disagree on.
  int64_t step = std::max<int64_t>(1, size / 4096);
  double factor = 1;
  for (int64_t flat = 0; flat < size; flat += step) {
    Coord a = from.apply(flat).front(), b = to.apply(flat).front();
    std::set<std::string> axes;
    for (const auto &[axis, v] : a.entries())
      if (b.get(axis) != v)
        axes.insert(axis);
    for (const auto &[axis, v] : b.entries())
      if (a.get(axis) != v)
        axes.insert(axis);
    for (const std::string &axis : axes) {
      AxisKind kind = axisKind(axis);
      if (kind == AxisKind::Device || kind == AxisKind::User)
        factor = std::max(factor, 64.0);
      else if (axis == "laneid")
        factor = std::max(factor, 2.0);
      else if (kind == AxisKind::Thread || axis == "P" || axis == "TLane")
        factor = std::max(factor, 8.0);
    }
  }
  return factor;
}

/// The op's own verifier's complaint about its operands' current types, if
/// any, caught rather than reported.
std::optional<std::string> verifyQuietly(Operation *op) {
  std::optional<std::string> why;
  ScopedDiagnosticHandler handler(op->getContext(), [&](Diagnostic &d) {
    if (!why)
      why = d.str();
    return success();
  });
  if (succeeded(mlir::verify(op, /*verifyRecursively=*/false)))
    return std::nullopt;
  return why ? why : std::string("(no message)");
}

//===----------------------------------------------------------------------===//
// Trying layouts in place
//===----------------------------------------------------------------------===//

LogicalResult KernelInference::apply(ArrayRef<int> assignment) {
  applied.assign(assignment.begin(), assignment.end());
  for (int n : order) {
    Node &node = nodes[n];
    BufferType type = node.pending;
    if (node.parent < 0) {
      int choice = assignment[node.variable];
      if (choice >= 0)
        type = node.pending.cloneWith(
            node.pending.getShape(),
            variables[node.variable].candidates[choice].layout);
    } else {
      auto source =
          cast<BufferType>(nodes[node.parent].values.front().getType());
      if (source.hasLayout()) {
        Result<Layout> layout = SliceOp::computeLayout(
            source, node.slice.getKnownStarts(), node.pending.getShape());
        if (!layout) {
          restore();
          return failure();
        }
        type =
            node.pending.cloneWith(node.pending.getShape(),
                                   getLayoutAttr(kernel.getContext(), *layout));
      }
    }
    for (Value v : node.values)
      v.setType(type);
  }
  return success();
}

void KernelInference::restore() {
  applied.assign(variables.size(), -1);
  for (Node &node : nodes)
    for (Value v : node.values)
      v.setType(node.pending);
}

bool KernelInference::fitsCapacity() {
  std::map<std::string, int64_t> bytes = fixedBytes;
  for (const Variable &var : variables) {
    for (Value v : nodes[var.node].values) {
      if (!v.getDefiningOp<AllocOp>())
        continue;
      auto type = cast<BufferType>(v.getType());
      int64_t &total = bytes[stringifyMemorySpace(type.getMemorySpace()).str()];
      total = addSaturating(total, getFootprintBytes(type, *ctx.target));
    }
  }
  for (const TargetMemorySpace &space : ctx.target->memorySpaces) {
    auto it = bytes.find(space.name.str());
    int64_t limit = space.bytesPerPartition();
    if (it != bytes.end() && limit > 0 && it->second > limit)
      return false;
  }
  return true;
}

OpCost KernelInference::evaluate(Operation *op) {
  std::vector<const void *> key;
  for (Type t : op->getOperandTypes())
    key.push_back(t.getAsOpaquePointer());
  auto [it, inserted] = memo.try_emplace({op, std::move(key)});
  if (!inserted)
    return it->second;
  OpCost result;
  // Layouts the op itself rejects (a register buffer its scope cannot own)
  // are out whatever a schedule says.
  if (std::optional<std::string> why = verifyQuietly(op)) {
    result.declined.push_back({nullptr, *why});
    it->second = result;
    return result;
  }
  llvm::SmallVector<const Schedule *> schedules = registry.eligible(op, ctx);
  int top = schedules.empty() ? 0 : schedules.front()->priority;
  for (const Schedule *s : schedules) {
    ScheduleMatch m = s->match(op, ctx);
    if (m.accepted()) {
      result.cost = scheduleCost(op, top - s->priority);
      result.schedule = s;
      break;
    }
    result.declined.push_back({s, m.reason()});
  }
  if (!result.schedule && options.allowConversions)
    evaluateConversions(op, result);
  it->second = result;
  return result;
}

/// The cheapest way to run `op` through scratch buffers in the layouts one
/// of its schedules proposes for the operands it cannot take as they are.
void KernelInference::evaluateConversions(Operation *op, OpCost &result) {
  llvm::SmallVector<const Schedule *> schedules = registry.eligible(op, ctx);
  int top = schedules.empty() ? 0 : schedules.front()->priority;
  // What each schedule would want with this op's variables unknown (all of
  // their values at once, so that a slice and its buffer agree).
  Assignment current = applied;
  Assignment open = current;
  for (int v : opVariables[op])
    open[v] = -1;
  std::vector<std::pair<const Schedule *, LayoutProposal>> proposals;
  if (succeeded(apply(open)))
    for (const Schedule *s : schedules)
      if (s->propose)
        for (LayoutProposal &p : s->propose(op, ctx))
          proposals.push_back({s, std::move(p)});
  (void)apply(current);

  for (auto &[s, proposal] : proposals) {
    llvm::SmallVector<Conversion, 2> conversions;
    double cost = scheduleCost(op, top - s->priority) + proposal.cost;
    bool usable = true;
    for (auto &[operandNo, attr] : proposal.layouts) {
      auto layout = dyn_cast_or_null<LayoutAttrInterface>(attr);
      if (!layout || operandNo >= op->getNumOperands()) {
        usable = false;
        break;
      }
      Value operand = op->getOperand(operandNo);
      auto type = cast<BufferType>(operand.getType());
      if (type.hasLayout() && type.getLayoutAttr() == layout)
        continue;
      if (nodeOf(operand) < 0 || !layout.admitsShape(type.getShape())) {
        usable = false;
        break;
      }
      conversions.push_back({operandNo, layout});
      cost += bufferBytes(type) * conversionFactor(type.getLayout(),
                                                   layout.getLayout(),
                                                   type.getNumElements());
    }
    if (!usable || conversions.empty() || cost >= result.cost)
      continue;
    // The op as it would read the scratch buffers: the operand, not the
    // value, changes (a value may be two operands that want two layouts).
    OpBuilder builder(op->getContext());
    builder.setInsertionPointToStart(&kernel.getBody().front());
    llvm::SmallVector<std::pair<unsigned, Value>, 2> originals;
    llvm::SmallVector<Operation *, 2> scratch;
    for (const Conversion &c : conversions) {
      Value operand = op->getOperand(c.operand);
      auto type = cast<BufferType>(operand.getType());
      auto alloc = AllocOp::create(builder, op->getLoc(),
                                   type.cloneWith(type.getShape(), c.layout));
      originals.push_back({c.operand, operand});
      scratch.push_back(alloc);
      op->setOperand(c.operand, alloc);
    }
    bool accepted = s->match(op, ctx).accepted();
    // The copies into and out of the scratch buffers must run too (a
    // backend may not reach a buffer carried through a region).
    if (accepted) {
      ScopeAttr scope = cast<OperatorOpInterface>(op).getScope();
      llvm::SmallVector<Operation *, 2> copies;
      for (auto [c, alloc] : llvm::zip(conversions, scratch)) {
        Value original = originals[&c - conversions.data()].second;
        auto [reads, writes] = accessOf(op, c.operand);
        if (reads) {
          builder.setInsertionPoint(copyInPoint(op, original));
          copies.push_back(CopyOp::create(builder, op->getLoc(), original,
                                          alloc->getResult(0), scope,
                                          /*schedule=*/nullptr));
        }
        if (writes) {
          std::string why;
          Operation *point = copyBackPoint(op, original, why);
          if (!point) {
            result.declined.push_back(
                {s, (llvm::Twine("operand #") + llvm::Twine(c.operand) +
                     " would go through a scratch buffer, but the copy back "
                     "has no one right place: " +
                     why)
                        .str()});
            accepted = false;
            break;
          }
          builder.setInsertionPointAfter(point);
          copies.push_back(CopyOp::create(builder, op->getLoc(),
                                          alloc->getResult(0), original, scope,
                                          /*schedule=*/nullptr));
        }
      }
      for (Operation *copy : copies)
        accepted &=
            llvm::any_of(registry.eligible(copy, ctx), [&](const Schedule *cs) {
              return cs->match(copy, ctx).accepted();
            });
      for (Operation *copy : copies)
        copy->erase();
    }
    for (auto [index, value] : originals)
      op->setOperand(index, value);
    for (Operation *alloc : scratch)
      alloc->erase();
    if (!accepted)
      continue;
    result.cost = cost;
    result.schedule = s;
    result.conversions = conversions;
  }
}

double KernelInference::totalCost(ArrayRef<int> assignment) {
  if (failed(apply(assignment)))
    return kInfeasible;
  double total = fitsCapacity() ? 0 : kInfeasible;
  for (Operation *op : ops) {
    if (total == kInfeasible)
      break;
    total += evaluate(op).cost;
  }
  restore();
  return total;
}

//===----------------------------------------------------------------------===//
// Reads, writes and completion
//===----------------------------------------------------------------------===//

/// Whether `op` reads (and whether it writes) operand `index`.
std::pair<bool, bool> accessOf(Operation *op, unsigned index) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return {true, true};
  llvm::SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  bool reads = false, writes = false;
  for (const auto &e : list) {
    OpOperand *operand = e.getEffectValue<OpOperand *>();
    if (!operand || operand->getOperandNumber() != index)
      continue;
    reads |= isa<MemoryEffects::Read>(e.getEffect());
    writes |= isa<MemoryEffects::Write>(e.getEffect());
  }
  return {reads, writes};
}

/// Whether an op nested in `root` has an operand that is `original` or
/// shares its buffer (a slice of it, the alloc it slices, a value tied to
/// either).
bool KernelInference::touches(Operation *root, Value original) const {
  int variable = nodes[nodeOf(original)].variable;
  WalkResult found = root->walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (int n = nodeOf(operand); n >= 0 && nodes[n].variable == variable)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// Where what `op` wrote into a scratch buffer can be copied back to
/// `original`: right after `op`, or for an asynchronous operator after the
/// axe.wait that completes its token. A wait nested in an scf.if (or
/// another region run at most once) takes the copy right after it, so that
/// it runs exactly when the wait does; a wait inside a loop takes it after
/// the loop, which is only right when nothing in the loop touches the
/// buffer (a copy inside would run again on every trip, over what the loop
/// wrote). Null, with `why`, where no single place is right.
Operation *KernelInference::copyBackPoint(Operation *op, Value original,
                                          std::string &why) const {
  llvm::SmallVector<Operation *, 2> waits;
  bool async = false;
  for (Value result : op->getResults()) {
    if (!isa<TokenType>(result.getType()))
      continue;
    async = true;
    for (Operation *user : result.getUsers()) {
      if (!isa<WaitOp>(user)) {
        why = (llvm::Twine("its token reaches ") +
               user->getName().getStringRef() +
               ", so the wait that completes it is not in reach; only a "
               "wait in the operator's block or in regions nested there is")
                  .str();
        return nullptr;
      }
      if (!llvm::is_contained(waits, user))
        waits.push_back(user);
    }
  }
  if (!async)
    return op;
  if (waits.empty()) {
    why = "nothing waits for its token";
    return nullptr;
  }
  Block *block = op->getBlock();
  // Each wait's ancestor in the operator's block, the first of them, and
  // whether a wait lies there directly.
  Operation *first = nullptr, *direct = nullptr, *wait = nullptr;
  for (Operation *w : waits) {
    Operation *ancestor = block->findAncestorOpInBlock(*w);
    if (!ancestor || ancestor->isBeforeInBlock(op)) {
      why = "its token is waited for outside the block the operator is in";
      return nullptr;
    }
    if (!first || ancestor->isBeforeInBlock(first)) {
      first = ancestor;
      wait = w;
    }
    if (ancestor == w && (!direct || w->isBeforeInBlock(direct)))
      direct = w;
  }
  // A wait in the block that no other wait precedes completes the token
  // before anything after it runs; later waits only repeat it.
  if (direct && direct == first)
    return direct;
  if (waits.size() > 1) {
    why = (llvm::Twine("its token is waited for in ") +
           llvm::Twine(waits.size()) +
           " places, the first of them nested in a region, so no one place "
           "follows the wait that completes it on every path")
              .str();
    return nullptr;
  }
  bool once = true;
  for (Operation *parent = wait->getParentOp(); parent != first;
       parent = parent->getParentOp())
    once &= isa<scf::IfOp, scf::ExecuteRegionOp>(parent);
  once &= isa<scf::IfOp, scf::ExecuteRegionOp>(first);
  if (once)
    return wait;
  if (!touches(first, original))
    return first;
  why = (llvm::Twine("its axe.wait is inside ") +
         first->getName().getStringRef() +
         ", which may run its region more than once and also touches the "
         "buffer: a copy back after the wait would run again on every trip, "
         "one after that op comes after its own reads")
            .str();
  return nullptr;
}

/// Where the copy into a scratch buffer `op` reads goes: right before
/// `op`, but before the ops just ahead of it that only prepare `op`'s other
/// operands (a zero fill of its accumulator), so a schedule that folds
/// such an op into the next one still finds `op` next.
Operation *KernelInference::copyInPoint(Operation *op, Value original) const {
  Operation *point = op;
  int variable = nodeOf(original) >= 0 ? nodes[nodeOf(original)].variable : -1;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (!isa<OperatorOpInterface>(prev) || prev->getNumRegions() != 0)
      break;
    bool prepares = true;
    for (Value operand : prev->getOperands()) {
      if (!isa<BufferType>(operand.getType()))
        continue;
      int n = nodeOf(operand);
      prepares &= operand != original &&
                  llvm::is_contained(op->getOperands(), operand) &&
                  (n < 0 || nodes[n].variable != variable);
    }
    if (!prepares)
      break;
    point = prev;
  }
  return point;
}

} // namespace axe::inference
