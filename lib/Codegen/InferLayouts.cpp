//===- InferLayouts.cpp - axe-infer-layouts: choose the layouts of '?' ----===//
//
// Layout inference over the schedules' own knowledge. The buffers whose
// layout is `?` are the variables; the values tied to one (region arguments
// and results of scf ops) share its type, and slices of one follow from it
// through the slice algebra. Candidates come from the schedules' proposals
// (asked again as candidates appear, so layouts travel from the anchors
// through the other operators) and from copy partners. The cost of an
// assignment is read off the same match steps dispatch runs: the pass sets
// the types in place, asks each operator's schedules, and puts the `?` types
// back, so no schedule is known here by name.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/Algebra.h"
#include "axe/Layout/Strided.h"
#include "axe/Support/ElementBytes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <map>
#include <set>

namespace axe {
#define GEN_PASS_DEF_AXEINFERLAYOUTS
#include "axe/Codegen/Passes.h.inc"
} // namespace axe

using namespace mlir;

namespace axe {
namespace {

constexpr double kInfeasible = std::numeric_limits<double>::infinity();
/// Assignments tried one by one up to this many; coordinate descent beyond.
constexpr int64_t kExhaustiveLimit = 4096;
/// Partial assignments an operator's schedules are asked to complete, per
/// round of propagation.
constexpr int64_t kProposalCombos = 64;
constexpr int kPropagationRounds = 4;

/// Values that are one buffer and share one `?` type: an alloc's result, or
/// a slice's, with the region arguments and results tied to it.
struct Node {
  llvm::SmallVector<Value, 4> values;
  BufferType pending;
  /// For a slice: the op, and the node of its source.
  SliceOp slice;
  int parent = -1;
  /// The variable whose layout decides this node's.
  int variable = -1;
};

struct Candidate {
  LayoutAttrInterface layout;
  std::string origin;
};

/// A buffer whose layout the pass chooses (a node without parent).
struct Variable {
  int node;
  llvm::SmallVector<Candidate, 8> candidates;
};

/// A scratch buffer with `layout` in place of operand `operand` of an op.
struct Conversion {
  unsigned operand;
  LayoutAttrInterface layout;
};

/// What running an operator costs under the current types.
struct OpCost {
  double cost = kInfeasible;
  const Schedule *schedule = nullptr;
  llvm::SmallVector<Conversion, 2> conversions;
  /// Each schedule's reason to decline, when none accepts.
  llvm::SmallVector<std::pair<const Schedule *, std::string>, 4> declined;
};

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

std::pair<bool, bool> accessOf(Operation *op, unsigned index);

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
Operation *completionOf(Operation *op);

class KernelInference {
public:
  KernelInference(KernelOp kernel, const ScheduleRegistry &registry,
                  const ScheduleContext &ctx,
                  const AxeInferLayoutsOptions &options)
      : kernel(kernel), registry(registry), ctx(ctx), options(options) {}

  /// Finds the `?` buffers; fails on one that is not an alloc's, a slice's
  /// or tied to one of those.
  LogicalResult collect();
  bool empty() const { return variables.empty(); }
  void gatherCandidates();
  /// Chooses; on failure explains why and leaves the IR as it was.
  LogicalResult choose();
  /// Writes the choice into the IR, or reports it (print-analysis-only).
  void materialize(bool printOnly, int64_t &inferred, int64_t &conversions);

private:
  using Assignment = llvm::SmallVector<int, 8>;

  void tie(ArrayRef<Value> values);
  LogicalResult buildNodes();
  /// Sets every node's values to the type `assignment` gives (-1: `?`);
  /// fails when a slice of a chosen layout does not exist.
  LogicalResult apply(ArrayRef<int> assignment);
  void restore();
  bool fitsCapacity();
  double totalCost(ArrayRef<int> assignment);
  OpCost evaluate(Operation *op);
  void evaluateConversions(Operation *op, OpCost &result);
  void ask(Operation *op, ArrayRef<int> vars, llvm::StringRef why);
  bool addCandidate(Operation *op, unsigned operand, Attribute attr,
                    const std::string &origin);
  void addCopyPartner(Operation *op);
  void addDefaults();
  std::optional<Layout> lift(const Layout &sliceLayout, const Node &node);
  void explain(ArrayRef<int> assignment);
  /// `assignment` with every variable that has the layout variable `from`
  /// takes there set to it.
  Assignment spread(const Assignment &assignment, unsigned from) const;
  int nodeOf(Value v) const {
    auto it = nodeIndex.find(v);
    return it == nodeIndex.end() ? -1 : it->second;
  }
  std::string describe(Operation *op) const;

  KernelOp kernel;
  const ScheduleRegistry &registry;
  const ScheduleContext &ctx;
  const AxeInferLayoutsOptions &options;

  llvm::EquivalenceClasses<Value> ties;
  llvm::SmallVector<Value> pendingValues;
  std::vector<Node> nodes;
  /// Node indices, parents before their slices.
  llvm::SmallVector<int> order;
  llvm::DenseMap<Value, int> nodeIndex;
  std::vector<Variable> variables;
  /// The operators on inferred buffers and the variables each depends on.
  llvm::SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, llvm::SmallVector<int, 4>> opVariables;
  /// Cost of an operator by the types of its operands.
  std::map<std::pair<Operation *, std::vector<const void *>>, OpCost> memo;
  Assignment best;
  /// The assignment the values' types show now (-1: `?`).
  Assignment applied;
  /// Bytes of each memory space the kernel's concrete allocs take.
  std::map<std::string, int64_t> fixedBytes;
};

//===----------------------------------------------------------------------===//
// The buffers to infer
//===----------------------------------------------------------------------===//

bool isPending(Type type) {
  auto buffer = dyn_cast<BufferType>(type);
  return buffer && !buffer.hasLayout();
}

void KernelInference::tie(ArrayRef<Value> values) {
  Value first;
  for (Value v : values) {
    if (!v || !isPending(v.getType()))
      continue;
    if (!first)
      first = v;
    else
      ties.unionSets(first, v);
  }
}

LogicalResult KernelInference::collect() {
  kernel.getBody().walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (isPending(v.getType()))
        pendingValues.push_back(v);
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (isPending(arg.getType()))
          pendingValues.push_back(arg);
  });
  for (Value v : pendingValues)
    ties.insert(v);
  kernel.getBody().walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
        tie({init, loop.getRegionIterArgs()[i], loop.getResult(i),
             yield.getOperand(i)});
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      for (unsigned i = 0; i < branch.getNumResults(); ++i)
        tie({branch.getResult(i), branch.thenYield().getOperand(i),
             branch.getElseRegion().empty()
                 ? Value()
                 : branch.elseYield().getOperand(i)});
    } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      scf::ConditionOp cond = loop.getConditionOp();
      for (auto [i, init] : llvm::enumerate(loop.getInits()))
        tie({init, loop.getBeforeArguments()[i],
             loop.getYieldOp().getOperand(i)});
      for (unsigned i = 0; i < loop.getNumResults(); ++i)
        tie({loop.getResult(i), loop.getAfterArguments()[i],
             cond.getArgs()[i]});
    }
  });
  return buildNodes();
}

LogicalResult KernelInference::buildNodes() {
  for (Value v : pendingValues) {
    if (nodeIndex.count(v))
      continue;
    Node node;
    node.pending = cast<BufferType>(v.getType());
    for (auto it = ties.findLeader(v); it != ties.member_end(); ++it)
      node.values.push_back(*it);
    for (Value member : node.values)
      nodeIndex[member] = nodes.size();
    nodes.push_back(std::move(node));
  }
  for (Node &node : nodes) {
    bool fromAlloc = false;
    for (Value v : node.values) {
      if (auto slice = v.getDefiningOp<SliceOp>())
        node.slice = slice;
      fromAlloc |= static_cast<bool>(v.getDefiningOp<AllocOp>());
    }
    if (fromAlloc == static_cast<bool>(node.slice)) {
      Value v = node.values.front();
      return emitError(v.getLoc())
             << "layout '?' is for axe.alloc results, slices of them and the "
                "region arguments tied to them; "
             << (fromAlloc ? "this buffer is both an alloc and a slice"
                           : "this buffer comes from neither");
    }
  }
  Value outside;
  kernel.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isPending(operand.getType()) && nodeOf(operand) < 0)
        outside = operand;
  });
  if (outside)
    return emitError(outside.getLoc())
           << "layout '?' is for axe.alloc results, slices of them and the "
              "region arguments tied to them; this buffer comes from outside "
              "the kernel";
  for (Node &node : nodes)
    if (node.slice)
      node.parent = nodeOf(node.slice.getSource());
  // Parents first: a slice's depth is its source's plus one.
  std::vector<int> depth(nodes.size(), -1);
  std::function<int(int)> depthOf = [&](int n) {
    if (depth[n] >= 0)
      return depth[n];
    depth[n] = 0; // a cycle (unverified IR) ends here
    return depth[n] = nodes[n].parent < 0 ? 0 : depthOf(nodes[n].parent) + 1;
  };
  for (int n = 0, e = nodes.size(); n < e; ++n) {
    depthOf(n);
    order.push_back(n);
  }
  llvm::stable_sort(order, [&](int a, int b) { return depth[a] < depth[b]; });
  for (int n : order) {
    Node &node = nodes[n];
    if (node.parent < 0) {
      node.variable = variables.size();
      variables.push_back(Variable{n, {}});
    } else {
      node.variable = nodes[node.parent].variable;
    }
  }

  kernel.getBody().walk([&](OperatorOpInterface op) {
    llvm::SmallVector<int, 4> vars;
    for (Value operand : op->getOperands())
      if (int n = nodeOf(operand);
          n >= 0 && !llvm::is_contained(vars, nodes[n].variable))
        vars.push_back(nodes[n].variable);
    if (vars.empty())
      return;
    ops.push_back(op);
    opVariables[op] = std::move(vars);
  });
  kernel.getBody().walk([&](AllocOp alloc) {
    if (!alloc.getType().hasLayout())
      return;
    int64_t &bytes =
        fixedBytes[stringifyMemorySpace(alloc.getType().getMemorySpace())
                       .str()];
    bytes =
        addSaturating(bytes, getFootprintBytes(alloc.getType(), *ctx.target));
  });
  return success();
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
          builder.setInsertionPoint(op);
          copies.push_back(CopyOp::create(builder, op->getLoc(), original,
                                          alloc->getResult(0), scope,
                                          /*schedule=*/nullptr));
        }
        if (writes) {
          builder.setInsertionPointAfter(completionOf(op));
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
// Candidates
//===----------------------------------------------------------------------===//

std::string KernelInference::describe(Operation *op) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " at " << op->getLoc();
  return text;
}

/// The layout of the whole buffer whose grid of slices of `node`'s shape
/// each have `sliceLayout`, when the node's slice is one of them.
std::optional<Layout> KernelInference::lift(const Layout &sliceLayout,
                                            const Node &node) {
  const Node &parent = nodes[node.parent];
  if (parent.parent >= 0)
    return std::nullopt;
  llvm::ArrayRef<int64_t> inner = node.pending.getShape();
  llvm::ArrayRef<int64_t> whole = parent.pending.getShape();
  Shape grid;
  for (auto [w, s] : llvm::zip(whole, inner)) {
    if (w % s)
      return std::nullopt;
    grid.push_back(w / s);
  }
  TileLayout rowMajor = rowMajorLayout(grid);
  IterList iters;
  for (const Iter &it : rowMajor.shard())
    iters.push_back(Iter{it.extent, it.stride,
                         gridAxis(node.pending.getMemorySpace()).str()});
  Result<TileLayout> outer = TileLayout::create(iters);
  if (!outer)
    return std::nullopt;
  Result<TileLayout> tiled = tile(sliceLayout.tile(), inner, *outer, grid);
  if (!tiled)
    return std::nullopt;
  Layout lifted = sliceLayout.isSwizzled()
                      ? Layout(*sliceLayout.swizzle(), *tiled)
                      : Layout(*tiled);
  BufferType wholeType = parent.pending.cloneWith(
      whole, getLayoutAttr(kernel.getContext(), lifted));
  SliceOp slice = node.slice;
  Result<Layout> back =
      SliceOp::computeLayout(wholeType, slice.getKnownStarts(), inner);
  if (!back || !(canonicalize(*back) == canonicalize(sliceLayout)))
    return std::nullopt;
  return lifted;
}

bool KernelInference::addCandidate(Operation *op, unsigned operand,
                                   Attribute attr, const std::string &origin) {
  auto layoutAttr = dyn_cast_or_null<LayoutAttrInterface>(attr);
  if (!layoutAttr || operand >= op->getNumOperands())
    return false;
  int n = nodeOf(op->getOperand(operand));
  if (n < 0 || cast<BufferType>(op->getOperand(operand).getType()).hasLayout())
    return false;
  Node &node = nodes[n];
  Layout layout = layoutAttr.getLayout();
  if (node.parent >= 0) {
    if (cast<BufferType>(nodes[node.parent].values.front().getType())
            .hasLayout())
      return false;
    std::optional<Layout> whole = lift(layout, node);
    if (!whole)
      return false;
    // The tiling's iters merged where they can be, then split by the
    // buffer's dims again, as a person would write it.
    layout = canonicalize(*whole);
    if (Result<GroupedLayout> grouped =
            group(layout.tile(), nodes[node.parent].pending.getShape()))
      layout = layout.isSwizzled() ? Layout(*layout.swizzle(), grouped->layout)
                                   : Layout(grouped->layout);
  }
  Node &root = nodes[variables[node.variable].node];
  if (!layout.admits(root.pending.getShape()) ||
      checkLayoutForMemorySpace(layout, root.pending.getMemorySpace()))
    return false;
  Variable &var = variables[node.variable];
  Layout canonical = canonicalize(layout);
  for (const Candidate &c : var.candidates)
    if (canonicalize(c.layout.getLayout()) == canonical)
      return false;
  if (var.candidates.size() >= options.maxCandidates)
    return false;
  var.candidates.push_back(
      {getLayoutAttr(kernel.getContext(), layout), origin});
  return true;
}

/// A copy's other side, where this side's memory admits its layout.
void KernelInference::addCopyPartner(Operation *op) {
  auto copy = dyn_cast<CopyOp>(op);
  if (!copy)
    return;
  BufferType source = copy.getSource().getType();
  BufferType target = copy.getTarget().getType();
  if (source.hasLayout() == target.hasLayout())
    return;
  unsigned known = source.hasLayout() ? 0 : 1;
  BufferType from = known == 0 ? source : target;
  BufferType to = known == 0 ? target : source;
  // A global view's gaps (a tile of a larger matrix) would waste on-chip
  // memory: only a dense partner layout is a candidate.
  BufferType trial = to.cloneWith(to.getShape(), from.getLayoutAttr());
  if (checkLayoutForMemorySpace(from.getLayout(), to.getMemorySpace()) ||
      getFootprintBytes(trial, *ctx.target) > bufferBytes(to))
    return;
  std::string origin = "the other side of " + describe(op);
  addCandidate(op, 1 - known, from.getLayoutAttr(), origin);
}

void KernelInference::ask(Operation *op, ArrayRef<int> vars,
                          llvm::StringRef why) {
  for (const Schedule *s : registry.eligible(op, ctx)) {
    if (!s->propose)
      continue;
    for (const LayoutProposal &p : s->propose(op, ctx))
      for (const auto &[operand, attr] : p.layouts)
        addCandidate(op, operand, attr,
                     "schedule '" + s->name + "' of " + describe(op) +
                         (p.reason.empty() ? "" : ": " + p.reason) + why.str());
  }
  addCopyPartner(op);
}

void KernelInference::gatherCandidates() {
  for (int round = 0; round < kPropagationRounds; ++round) {
    size_t before = 0;
    for (const Variable &var : variables)
      before += var.candidates.size();
    for (Operation *op : ops) {
      llvm::ArrayRef<int> vars = opVariables[op];
      // Every partial assignment of this op's variables with at least one
      // left open, up to a bound: each open one is what the schedules fill.
      llvm::SmallVector<int, 4> choice(vars.size(), -1);
      int64_t tried = 0;
      std::function<void(unsigned)> visit = [&](unsigned i) {
        if (tried >= kProposalCombos)
          return;
        if (i == vars.size()) {
          if (llvm::all_of(choice, [](int c) { return c >= 0; }))
            return;
          ++tried;
          Assignment assignment(variables.size(), -1);
          for (auto [v, c] : llvm::zip(vars, choice))
            assignment[v] = c;
          if (failed(apply(assignment)))
            return;
          ask(op, vars, round ? " (propagated)" : "");
          restore();
          return;
        }
        int count = variables[vars[i]].candidates.size();
        for (int c = -1; c < count; ++c) {
          choice[i] = c;
          visit(i + 1);
        }
      };
      visit(0);
    }
    size_t after = 0;
    for (const Variable &var : variables)
      after += var.candidates.size();
    if (after == before)
      break;
  }
  addDefaults();
}

/// Buffers no schedule had anything to say about take the plain layout of
/// their memory.
void KernelInference::addDefaults() {
  for (Variable &var : variables) {
    if (!var.candidates.empty())
      continue;
    BufferType type = nodes[var.node].pending;
    std::optional<Layout> layout;
    if (type.getMemorySpace() == MemorySpace::Shared)
      layout = Layout(rowMajorLayout(type.getShape()));
    if (layout)
      var.candidates.push_back({getLayoutAttr(kernel.getContext(), *layout),
                                "the row-major default of shared memory"});
  }
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

LogicalResult KernelInference::choose() {
  for (const Variable &var : variables)
    if (var.candidates.empty()) {
      InFlightDiagnostic diag =
          emitError(nodes[var.node].values.front().getLoc())
          << "axe-infer-layouts: no schedule proposes a layout for this "
          << stringifyMemorySpace(nodes[var.node].pending.getMemorySpace())
          << " buffer on target " << ctx.targetName()
          << ", and its memory has no default; write its layout";
      for (Operation *op : ops)
        if (llvm::is_contained(opVariables[op], &var - variables.data()))
          diag.attachNote(op->getLoc()) << "it is used here";
      return failure();
    }

  int64_t combos = 1;
  for (const Variable &var : variables)
    combos =
        std::min<int64_t>(kExhaustiveLimit + 1, combos * var.candidates.size());
  Assignment current(variables.size(), 0);
  double bestCost = totalCost(current);
  best = current;
  if (combos <= kExhaustiveLimit) {
    // Odometer order: the first assignment of least cost is kept, so ties
    // go to the candidates proposed first.
    while (true) {
      unsigned i = 0;
      for (; i < current.size(); ++i) {
        if (++current[i] < static_cast<int>(variables[i].candidates.size()))
          break;
        current[i] = 0;
      }
      if (i == current.size())
        break;
      double cost = totalCost(current);
      if (cost < bestCost) {
        bestCost = cost;
        best = current;
      }
    }
  } else {
    // One variable at a time, and every variable that has a candidate at
    // once: a layout that only pays off when the buffers between two
    // operators all take it (a fragment carried through an epilogue) is
    // never reached one step at a time.
    for (int sweep = 0; sweep < 10; ++sweep) {
      bool improved = false;
      auto tryAssignment = [&](const Assignment &trial) {
        double cost = totalCost(trial);
        if (cost < bestCost) {
          bestCost = cost;
          best = trial;
          improved = true;
        }
      };
      for (unsigned v = 0; v < variables.size(); ++v)
        for (int c = 0, e = variables[v].candidates.size(); c < e; ++c) {
          Assignment trial = best;
          trial[v] = c;
          tryAssignment(trial);
          if (Assignment group = spread(trial, v); group != trial)
            tryAssignment(group);
        }
      if (!improved)
        break;
    }
  }
  if (bestCost != kInfeasible)
    return success();
  explain(best);
  return failure();
}

KernelInference::Assignment
KernelInference::spread(const Assignment &assignment, unsigned from) const {
  Assignment group = assignment;
  Attribute layout = variables[from].candidates[assignment[from]].layout;
  for (unsigned w = 0; w < variables.size(); ++w)
    for (auto [i, c] : llvm::enumerate(variables[w].candidates))
      if (Attribute(c.layout) == layout) {
        group[w] = i;
        break;
      }
  return group;
}

void KernelInference::explain(ArrayRef<int> assignment) {
  if (failed(apply(assignment))) {
    emitError(kernel.getLoc())
        << "axe-infer-layouts: no candidate layouts slice as the kernel does";
    return;
  }
  bool reported = false;
  for (Operation *op : ops) {
    OpCost cost = evaluate(op);
    if (cost.cost != kInfeasible)
      continue;
    reported = true;
    InFlightDiagnostic diag =
        op->emitError() << "axe-infer-layouts: no layouts found for which a "
                           "schedule of target "
                        << ctx.targetName() << " runs this op"
                        << (options.allowConversions
                                ? ""
                                : " (conversions are off: "
                                  "allow-conversions=false)");
    for (const auto &[s, why] : cost.declined) {
      if (!s)
        diag.attachNote() << "the op does not verify: " << why;
      else
        diag.attachNote() << "schedule '" << s->name << "' declined: "
                          << (why.empty() ? "(no reason given)" : why);
    }
    for (int v : opVariables[op]) {
      const Variable &var = variables[v];
      Diagnostic &note =
          diag.attachNote(nodes[var.node].values.front().getLoc());
      note << "candidates for this buffer:";
      for (const Candidate &c : var.candidates)
        note << " " << c.layout.str() << " (" << c.origin << ");";
    }
  }
  if (!reported)
    emitError(kernel.getLoc())
        << "axe-infer-layouts: every assignment of the candidate layouts "
           "overflows a memory of target "
        << ctx.targetName();
  restore();
}

//===----------------------------------------------------------------------===//
// Writing the choice
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

/// Where what `op` wrote can be read: after the axe.wait on its token for
/// an asynchronous operator, right after it otherwise.
Operation *completionOf(Operation *op) {
  for (Value result : op->getResults())
    if (isa<TokenType>(result.getType()))
      for (Operation *user : result.getUsers())
        if (isa<WaitOp>(user) && user->getBlock() == op->getBlock())
          return user;
  return op;
}

void KernelInference::materialize(bool printOnly, int64_t &inferred,
                                  int64_t &conversions) {
  (void)apply(best);
  std::vector<std::pair<Operation *, OpCost>> costs;
  for (Operation *op : ops)
    costs.push_back({op, evaluate(op)});
  if (printOnly) {
    for (const Variable &var : variables) {
      const Candidate &c = var.candidates[best[&var - variables.data()]];
      InFlightDiagnostic remark =
          emitRemark(nodes[var.node].values.front().getLoc())
          << "layout " << c.layout.str() << " from " << c.origin << "; "
          << var.candidates.size() << " candidate(s)";
      for (const Candidate &other : var.candidates)
        if (&other != &c)
          remark.attachNote()
              << "also " << other.layout.str() << " from " << other.origin;
    }
    size_t pendingConversions = 0;
    for (auto &[op, cost] : costs) {
      InFlightDiagnostic remark = op->emitRemark()
                                  << "schedule '" << cost.schedule->name
                                  << "', cost " << cost.cost;
      for (const Conversion &c : cost.conversions)
        remark << "; operand #" << c.operand << " through a scratch buffer "
               << c.layout.str();
      pendingConversions += cost.conversions.size();
    }
    // The pass statistics in summary: Debian's LLVM is built without
    // statistics, so -mlir-pass-statistics cannot show them.
    kernel.emitRemark() << "axe-infer-layouts would infer " << variables.size()
                        << " layout(s) and insert " << pendingConversions
                        << " conversion(s)";
    restore();
    return;
  }
  inferred += variables.size();
  OpBuilder builder(kernel.getContext());
  Block &entry = kernel.getBody().front();
  for (auto &[op, cost] : costs) {
    for (const Conversion &c : cost.conversions) {
      Value original = op->getOperand(c.operand);
      auto type = cast<BufferType>(original.getType());
      builder.setInsertionPointToStart(&entry);
      auto scratch = AllocOp::create(builder, op->getLoc(),
                                     type.cloneWith(type.getShape(), c.layout));
      ScopeAttr scope = cast<OperatorOpInterface>(op).getScope();
      auto [reads, writes] = accessOf(op, c.operand);
      if (reads) {
        builder.setInsertionPoint(op);
        CopyOp::create(builder, op->getLoc(), original, scratch, scope,
                       /*schedule=*/nullptr);
      }
      if (writes) {
        builder.setInsertionPointAfter(completionOf(op));
        CopyOp::create(builder, op->getLoc(), scratch, original, scope,
                       /*schedule=*/nullptr);
      }
      op->setOperand(c.operand, scratch);
      ++conversions;
    }
    if (op->hasAttr(kScheduleAttrName))
      continue;
    op->setAttr(
        kScheduleAttrName,
        builder.getDictionaryAttr(builder.getNamedAttr(
            ctx.targetName(), builder.getStringAttr(cost.schedule->name))));
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AxeInferLayoutsPass
    : public impl::AxeInferLayoutsBase<AxeInferLayoutsPass> {
  using AxeInferLayoutsBase::AxeInferLayoutsBase;

  AxeInferLayoutsPass(const AxeInferLayoutsOptions &options,
                      BackendSet backends)
      : AxeInferLayoutsBase(options), backends(std::move(backends)) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    // Proposals and match steps may build the backends' types (trn tiles).
    backends.addDependentDialects(registry);
  }

  LogicalResult initialize(MLIRContext *) override {
    schedules = backends.schedules();
    return success();
  }

  void runOnOperation() override {
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    bool ok = true;
    int64_t inferred = 0, conversions = 0;
    for (KernelOp kernel : kernels)
      ok &= succeeded(inferKernel(kernel, inferred, conversions));
    numInferred += inferred;
    numConversions += conversions;
    if (!ok)
      signalPassFailure();
  }

  LogicalResult inferKernel(KernelOp kernel, int64_t &inferred,
                            int64_t &conversions) {
    AxeInferLayoutsOptions opts;
    opts.target = target;
    opts.vectorBits = vectorBits;
    opts.allowConversions = allowConversions;
    opts.printAnalysisOnly = printAnalysisOnly;
    opts.maxCandidates = std::max(1u, static_cast<unsigned>(maxCandidates));
    // A kernel with nothing to infer needs no target: it is left alone.
    bool pending = false;
    kernel.getBody().walk([&](Operation *op) {
      pending |= llvm::any_of(op->getResultTypes(), isPending);
    });
    if (!pending)
      return success();
    FailureOr<KernelScheduleContext> context = buildScheduleContext(
        kernel, target, vectorBits, backends, getArgument());
    if (failed(context))
      return failure();
    KernelInference inference(kernel, *schedules, context->schedule, opts);
    if (failed(inference.collect()))
      return failure();
    inference.gatherCandidates();
    if (failed(inference.choose()))
      return failure();
    inference.materialize(printAnalysisOnly, inferred, conversions);
    return success();
  }

  BackendSet backends;
  std::shared_ptr<const ScheduleRegistry> schedules;
};

} // namespace

std::unique_ptr<Pass>
createAxeInferLayouts(const AxeInferLayoutsOptions &options,
                      const BackendSet &backends) {
  return std::make_unique<AxeInferLayoutsPass>(options, backends);
}

} // namespace axe
