//===- KernelInference.h - axe-infer-layouts on one kernel ------*- C++ -*-===//
//
// The state of layout inference over one kernel, shared by the files that
// implement it: InferLayouts.cpp (finding the `?` buffers, the pass),
// InferLayoutsCost.cpp (trying layouts in place and pricing them) and
// InferLayoutsSearch.cpp (candidates, the search, writing the choice).
// Private to lib/Codegen.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_CODEGEN_KERNELINFERENCE_H
#define AXE_LIB_CODEGEN_KERNELINFERENCE_H

#include "axe/Codegen/Passes.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "llvm/ADT/EquivalenceClasses.h"

#include <limits>
#include <map>

namespace axe::inference {

using mlir::ArrayRef;
using mlir::Attribute;
using mlir::LogicalResult;
using mlir::Operation;
using mlir::Type;
using mlir::Value;

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

int64_t addSaturating(int64_t a, int64_t b);
/// The axis along which slices of a buffer in `space` are laid side by side
/// when a slice's layout is lifted to the whole buffer.
llvm::StringRef gridAxis(MemorySpace space);
int64_t bufferBytes(BufferType type);
/// What taking a schedule `gap` priority points below the best costs, in
/// the unit of conversions (bytes moved).
double scheduleCost(Operation *op, int gap);
/// How far apart a conversion moves an element: within a thread's storage,
/// across lanes, across warps or partitions, across devices.
double conversionFactor(const Layout &from, const Layout &to, int64_t size);
/// The op's own verifier's complaint about its operands' current types, if
/// any, caught rather than reported.
std::optional<std::string> verifyQuietly(Operation *op);
/// Whether `op` reads (and whether it writes) operand `index`.
std::pair<bool, bool> accessOf(Operation *op, unsigned index);
/// Whether `type` is a buffer whose layout is still `?`.
bool isPending(Type type);

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
  /// The least cost over the candidates, its assignment in `best`.
  double search();
  std::optional<Layout> replicateOverScope(Operation *op, const Layout &layout,
                                           BufferType type) const;
  void addCopyPartner(Operation *op);
  void addDefaults();
  bool touches(Operation *root, Value original) const;
  /// The op after which the copy from a scratch buffer `op` wrote back to
  /// `original` goes; null, with `why`, where no single place is right.
  Operation *copyBackPoint(Operation *op, Value original,
                           std::string &why) const;
  /// The op before which the copy of `original` into a scratch buffer `op`
  /// reads goes.
  Operation *copyInPoint(Operation *op, Value original) const;
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
  /// Candidates kept back until no assignment of the others is feasible.
  struct Fallback {
    int variable;
    LayoutAttrInterface layout;
    std::string origin;
  };
  std::vector<Fallback> fallbacks;
  /// The assignment the values' types show now (-1: `?`).
  Assignment applied;
  /// Bytes of each memory space the kernel's concrete allocs take.
  std::map<std::string, int64_t> fixedBytes;
};

} // namespace axe::inference

#endif // AXE_LIB_CODEGEN_KERNELINFERENCE_H
