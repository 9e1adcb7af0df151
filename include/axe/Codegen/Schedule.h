//===- Schedule.h - Schedules, backends and their registry ------*- C++ -*-===//
//
// A schedule is registered data: a name, the targets it applies to (a
// predicate over target descriptions, so one schedule serves "every CPU" or
// "sm_90 and newer"), a priority, a match step that accepts an op with a
// plan or declines with a reason, and a rewrite that consumes the plan.
// Dispatch picks the highest-priority schedule that matches, or the one the
// op forces for this target; when none matches, its diagnostic lists every
// candidate and why it declined.
//
// A backend contributes schedules, the dialects its schedules emit and its
// TargetCodegen. There is no process-wide list of backends: each pipeline
// hands axe-dispatch the BackendSet it lowers with (axe-to-cpu the CPU's,
// axe-to-nvvm the NVIDIA one's), and a tool that offers axe-dispatch on its
// own names the backends it links. The dispatch pass builds its
// ScheduleRegistry from that set, so which schedules an op can take follows
// from reading the pipeline; a test or a library user may hand the pass a
// registry of its own instead.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_SCHEDULE_H
#define AXE_CODEGEN_SCHEDULE_H

#include "axe/Target/Target.h"
#include "axe/Target/TargetPredicate.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

#include <any>
#include <deque>
#include <functional>
#include <memory>
#include <string>

namespace axe {

class TargetCodegen;

/// Knobs a pass hands its schedules.
struct ScheduleOptions {
  /// Lanes of the widest vector to use, per 32-bit element.
  int64_t vectorLanes32 = 8;
  /// Vector registers of that width.
  int64_t vectorRegisters = 16;
  /// CPU: the packed gemm may keep B's packed panels from one CTA to the
  /// next (axe-dispatch's `reuse-packed-panels`).
  bool reusePackedPanels = true;
};

/// What a schedule sees besides the op, built once per kernel by dispatch:
/// the facts come from target descriptions, never from names.
struct ScheduleContext {
  /// The machine the code runs on (cpu, sm_90, trn1).
  const TargetDescription *target = nullptr;
  /// The machine the kernel's layouts are written for: the kernel's
  /// #axe.target (an sm_90 kernel run on the CPU), else `target`. Its thread
  /// hierarchy (warp size, warpgroups) is the one the layouts use.
  const TargetDescription *source = nullptr;
  /// The backend's emission hooks for `target`; null when its backend has
  /// none.
  const TargetCodegen *codegen = nullptr;
  ScheduleOptions options;

  llvm::StringRef targetName() const {
    return target ? llvm::StringRef(target->name) : llvm::StringRef();
  }
};

/// The answer of a match step: accepted with a plan for the rewrite, or
/// declined with a reason.
class ScheduleMatch {
public:
  /// `plan` is whatever the rewrite needs that the match worked out (an
  /// instruction shape, a loop plan), so the rewrite neither recomputes it
  /// nor fails after emitting IR.
  static ScheduleMatch accept(std::any plan = {}) {
    return ScheduleMatch(true, "", std::move(plan));
  }
  static ScheduleMatch decline(const llvm::Twine &reason) {
    return ScheduleMatch(false, reason.str(), {});
  }
  bool accepted() const { return ok; }
  const std::string &reason() const { return why; }
  const std::any &plan() const { return matchPlan; }

private:
  ScheduleMatch(bool ok, std::string why, std::any plan)
      : ok(ok), why(std::move(why)), matchPlan(std::move(plan)) {}
  bool ok;
  std::string why;
  std::any matchPlan;
};

/// The attribute by which an op forces a schedule: a name (forced on every
/// target), or a dictionary from target name to schedule name, so one kernel
/// source names its choice per target and targets it does not name choose
/// freely: `{schedule = {sm_90 = "tma"}}`.
inline constexpr llvm::StringLiteral kScheduleAttrName = "schedule";

/// Layouts a schedule would run an op with, proposed for the buffers whose
/// layout is `?` (see axe-infer-layouts): a layout for each such buffer
/// operand, keyed by operand number, consistent with the operands whose
/// layouts are known. Only a proposal the schedule's own match accepts
/// counts; the pass checks that before it uses one.
struct LayoutProposal {
  /// Operand number -> layout attribute (an #axe.layout, swizzled or not).
  llvm::SmallVector<std::pair<unsigned, mlir::Attribute>, 4> layouts;
  /// What choosing it costs beyond the best the target has (0): a slower
  /// variant of the schedule, or one that needs more memory.
  double cost = 0;
  /// Why these layouts, for -axe-infer-layouts=print-analysis-only.
  std::string reason;
};

struct Schedule {
  using MatchFn =
      std::function<ScheduleMatch(mlir::Operation *, const ScheduleContext &)>;
  /// Replaces (or erases) the op; called only with an accepted match's plan.
  using RewriteFn = std::function<mlir::LogicalResult(
      mlir::Operation *, const ScheduleContext &, const std::any &plan,
      mlir::RewriterBase &)>;

  std::string name;
  /// The op it lowers, e.g. "axe.copy".
  std::string opName;
  /// The targets it is for.
  TargetPredicate targets = anyTarget();
  /// Higher is tried first.
  int priority = 0;
  std::string summary;
  MatchFn match;
  RewriteFn rewrite;
  /// Proposes layouts for an op some of whose buffers are `?` (the
  /// anchors of layout inference: instruction fragments, swizzle atoms,
  /// partitions). Optional: a schedule that accepts what it is given
  /// proposes nothing.
  using ProposeFn = std::function<llvm::SmallVector<LayoutProposal>(
      mlir::Operation *, const ScheduleContext &)>;
  ProposeFn propose;
  /// An axe.gemm schedule that honours `zero_init` itself (computes C = A x B
  /// without reading C). For the others, axe-dispatch fills C with zeros
  /// before the gemm and drops the attribute.
  bool zeroInit = false;
};

class ScheduleRegistry {
public:
  /// Adds a schedule; fails (with a message) when one with the same name is
  /// already registered for the same op, or a field is missing.
  mlir::LogicalResult add(Schedule schedule, std::string *error = nullptr);
  /// Removes a schedule by (op, name); true when one was removed.
  bool remove(llvm::StringRef opName, llvm::StringRef name);

  /// Schedules for `opName` that apply to `target`, highest priority first,
  /// then by name.
  llvm::SmallVector<const Schedule *>
  candidates(llvm::StringRef opName, const TargetDescription &target) const;
  /// The schedule for `opName` called `name`, whatever its targets.
  const Schedule *find(llvm::StringRef opName, llvm::StringRef name) const;

  /// The schedules `op` may take on `ctx`'s target: the one it forces, or
  /// every candidate, highest priority first. Empty on a malformed or
  /// unknown forced name (select() says why).
  llvm::SmallVector<const Schedule *>
  eligible(mlir::Operation *op, const ScheduleContext &ctx) const;

  /// The schedule to use for `op` and its match: the forced one when the op
  /// names one for this target (it must then match), otherwise the
  /// highest-priority one that matches. On failure emits an error on `op`
  /// listing each candidate and why it declined.
  mlir::FailureOr<std::pair<const Schedule *, ScheduleMatch>>
  select(mlir::Operation *op, const ScheduleContext &ctx) const;

  /// Rewrites `op` by `schedule` with its accepted `match`, from `op`'s
  /// place; on failure says which schedule failed.
  static mlir::LogicalResult apply(mlir::Operation *op,
                                   const ScheduleContext &ctx,
                                   const Schedule &schedule,
                                   const ScheduleMatch &match,
                                   mlir::RewriterBase &rewriter);

  /// select() then apply().
  mlir::LogicalResult dispatch(mlir::Operation *op, const ScheduleContext &ctx,
                               mlir::RewriterBase &rewriter) const;

private:
  // A deque keeps schedule addresses stable while more are added.
  std::deque<Schedule> schedules;
};

/// A code generator for a family of targets.
struct Backend {
  /// "cpu", "nvvm", "trn".
  std::string name;
  /// The targets it lowers for.
  TargetPredicate targets = anyTarget();
  /// Adds its schedules to a registry.
  std::function<void(ScheduleRegistry &)> addSchedules;
  /// The dialects its schedules emit, which a dispatch pass must load.
  std::function<void(mlir::DialectRegistry &)> dependentDialects;
  /// Its emission hooks for one of its targets (may be empty).
  std::function<std::unique_ptr<TargetCodegen>(const TargetDescription &)>
      codegen;
};

/// The backends one pipeline or tool dispatches with. The first whose
/// `targets` hold for a target serves it.
class BackendSet {
public:
  BackendSet() = default;
  BackendSet(std::initializer_list<Backend> backends)
      : backends(backends.begin(), backends.end()) {}

  /// Adds `backend` unless one of the same name is in the set.
  void add(Backend backend);
  /// The backend that lowers for `target`, or null.
  const Backend *find(const TargetDescription &target) const;
  /// A registry holding the schedules of every backend of the set.
  std::shared_ptr<const ScheduleRegistry> schedules() const;
  /// The dialects the set's schedules emit.
  void addDependentDialects(mlir::DialectRegistry &registry) const;
  bool empty() const { return backends.empty(); }

private:
  std::vector<Backend> backends;
};

/// The context every operator of one kernel is scheduled in, with the
/// TargetCodegen it points to (owned here).
struct KernelScheduleContext {
  KernelScheduleContext();
  KernelScheduleContext(KernelScheduleContext &&);
  ~KernelScheduleContext();
  ScheduleContext schedule;
  std::unique_ptr<TargetCodegen> codegen;
};

/// Builds the context for the kernel around `op`: the target the pass option
/// names (else the kernel's or module's #axe.target), its vector unit sized
/// by `vectorBits` (0: the host's), and the codegen of the backend of
/// `backends` that serves it. Emits an error naming `pass` on failure.
mlir::FailureOr<KernelScheduleContext>
buildScheduleContext(mlir::Operation *op, llvm::StringRef targetOption,
                     int64_t vectorBits, const BackendSet &backends,
                     llvm::StringRef pass);

} // namespace axe

#endif // AXE_CODEGEN_SCHEDULE_H
