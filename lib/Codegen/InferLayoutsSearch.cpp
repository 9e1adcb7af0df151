//===- InferLayoutsSearch.cpp - Candidates, search, the choice ------------===//

#include "KernelInference.h"

#include "axe/Codegen/ElementLoops.h"
#include "axe/Layout/Algebra.h"
#include "axe/Layout/Placement.h"
#include "axe/Layout/Strided.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace axe::inference {

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
  if (std::optional<Layout> replicated =
          replicateOverScope(op, layout, root.pending))
    fallbacks.push_back({node.variable,
                         getLayoutAttr(kernel.getContext(), *replicated),
                         origin + ", replicated over the scope's threads"});
  return true;
}

/// A register layout on no thread axis is one thread's own buffer, which an
/// operator at a wider scope may not own (a 1 x 37 tile has no runs that
/// divide evenly among a warp's lanes, so a proposal can come out so).
/// Every thread of `op`'s scope holding all of it is a layout such an
/// operator owns.
std::optional<Layout>
KernelInference::replicateOverScope(Operation *op, const Layout &layout,
                                    BufferType type) const {
  auto operatorOp = dyn_cast<OperatorOpInterface>(op);
  if (!operatorOp || type.getMemorySpace() != MemorySpace::Reg ||
      layout.isSwizzled() || !layout.tile().replica().empty())
    return std::nullopt;
  ScopeKind scope = operatorOp.getScope().getKind();
  if (scope == ScopeKind::Thread || scope > ScopeKind::CTA)
    return std::nullopt;
  for (const std::string &axis : placementAxes(layout.tile()))
    if (axisKind(axis) == AxisKind::Thread)
      return std::nullopt;
  const TargetDescription &target = ctx.source ? *ctx.source : *ctx.target;
  auto unit = ExecutionScope(static_cast<int>(scope));
  int64_t threads = target.threadsPerInstance(unit, threadsOf(op));
  const TargetAxis *axis =
      target.axisNumbering(ExecutionScope::Thread, unit, /*dim=*/0);
  if (threads <= 1 || !axis)
    return std::nullopt;
  Result<TileLayout> tile = TileLayout::create(
      IterList(layout.tile().shard().begin(), layout.tile().shard().end()),
      {Iter{threads, 1, axis->name.str()}});
  if (!tile)
    return std::nullopt;
  return Layout(*tile);
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

  double bestCost = search();
  // Register layouts replicated over a scope's threads hold as many copies
  // as threads: tried only when nothing else runs the kernel.
  if (bestCost == kInfeasible && !fallbacks.empty()) {
    std::vector<Fallback> kept = std::move(fallbacks);
    fallbacks.clear();
    for (const Fallback &f : kept) {
      Variable &var = variables[f.variable];
      Layout canonical = canonicalize(f.layout.getLayout());
      if (llvm::none_of(var.candidates, [&](const Candidate &c) {
            return canonicalize(c.layout.getLayout()) == canonical;
          }))
        var.candidates.push_back({f.layout, f.origin});
    }
    bestCost = search();
  }
  if (bestCost != kInfeasible)
    return success();
  explain(best);
  return failure();
}

double KernelInference::search() {
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
  return bestCost;
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
  llvm::SmallVector<std::pair<Operation *, const Schedule *>> pinned;
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
        builder.setInsertionPoint(copyInPoint(op, original));
        CopyOp::create(builder, op->getLoc(), original, scratch, scope,
                       /*schedule=*/nullptr);
      }
      if (writes) {
        // evaluateConversions kept only conversions with a place to copy
        // back to.
        std::string why;
        Operation *point = copyBackPoint(op, original, why);
        assert(point && "a conversion without a place for its copy back");
        builder.setInsertionPointAfter(point);
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
    pinned.push_back({op, cost.schedule});
  }
  // Each op was priced with the IR as it was before any conversion copy: a
  // schedule that looks at its neighbours (a zero fill folded into the next
  // gemm) may no longer hold. Such an op is left to axe-dispatch's choice
  // rather than pinned to a schedule that would refuse it there.
  for (auto [op, schedule] : pinned)
    if (!schedule->match(op, ctx).accepted())
      op->removeAttr(kScheduleAttrName);
}

} // namespace axe::inference
