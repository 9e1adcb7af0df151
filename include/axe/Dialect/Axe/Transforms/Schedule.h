//===- Schedule.h - Registry of schedules per (op, target) ------*- C++ -*-===//
//
// A schedule is registered data: a name, a priority, a match step that
// accepts an op or declines with a reason, and a rewrite. Dispatch picks the
// highest-priority schedule that matches (or the one an op forces with
// `schedule = "name"`); when none matches, its diagnostic lists every
// candidate and why it declined. Users add their own schedules from C++.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_DIALECT_AXE_TRANSFORMS_SCHEDULE_H
#define AXE_DIALECT_AXE_TRANSFORMS_SCHEDULE_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace axe {

/// What a schedule sees besides the op: the target it compiles for.
struct ScheduleContext {
  /// Target name, as in #axe.target<...>: "cpu", "sm_80", ...
  std::string target;
  /// Lanes of the widest vector the target prefers, per 32-bit element.
  int64_t vectorLanes32 = 8;
  /// Vector registers of that width.
  int64_t vectorRegisters = 16;
};

/// The answer of a match step: accepted, or declined with a reason.
class ScheduleMatch {
public:
  static ScheduleMatch accept() { return ScheduleMatch(true, ""); }
  static ScheduleMatch decline(const llvm::Twine &reason) {
    return ScheduleMatch(false, reason.str());
  }
  bool accepted() const { return ok; }
  const std::string &reason() const { return why; }

private:
  ScheduleMatch(bool ok, std::string why) : ok(ok), why(std::move(why)) {}
  bool ok;
  std::string why;
};

/// The attribute by which an op forces a schedule.
inline constexpr llvm::StringLiteral kScheduleAttrName = "schedule";

struct Schedule {
  using MatchFn =
      std::function<ScheduleMatch(mlir::Operation *, const ScheduleContext &)>;
  /// Replaces (or erases) the op; called only after match accepted it.
  using RewriteFn = std::function<mlir::LogicalResult(
      mlir::Operation *, const ScheduleContext &, mlir::RewriterBase &)>;

  std::string name;
  /// The op it lowers, e.g. "axe.copy".
  std::string opName;
  /// The target it is for, e.g. "cpu"; "*" for every target.
  std::string target;
  /// Higher is tried first.
  int priority = 0;
  std::string summary;
  MatchFn match;
  RewriteFn rewrite;
};

class ScheduleRegistry {
public:
  /// The process-wide registry the dispatch pass reads.
  static ScheduleRegistry &global();

  /// Adds a schedule; fails (with a message) when one with the same name is
  /// already registered for the same (op, target), or a field is missing.
  mlir::LogicalResult add(Schedule schedule, std::string *error = nullptr);
  /// Removes a schedule by (op, target, name); true when one was removed.
  bool remove(llvm::StringRef opName, llvm::StringRef target,
              llvm::StringRef name);

  /// Schedules for `opName` on `target` (including "*" ones), highest
  /// priority first, then by name.
  llvm::SmallVector<const Schedule *> candidates(llvm::StringRef opName,
                                                 llvm::StringRef target) const;

  /// The schedule to use for `op`: the forced one when the op carries
  /// `schedule = "name"` (which must then match), otherwise the
  /// highest-priority one that matches. On failure emits an error on `op`
  /// listing each candidate and why it declined.
  mlir::FailureOr<const Schedule *> select(mlir::Operation *op,
                                           const ScheduleContext &ctx) const;

  /// select() then rewrite.
  mlir::LogicalResult dispatch(mlir::Operation *op, const ScheduleContext &ctx,
                               mlir::RewriterBase &rewriter) const;

private:
  mutable std::mutex mutex;
  // A deque keeps schedule addresses stable while more are added.
  std::deque<std::unique_ptr<Schedule>> schedules;
};

} // namespace axe

#endif // AXE_DIALECT_AXE_TRANSFORMS_SCHEDULE_H
