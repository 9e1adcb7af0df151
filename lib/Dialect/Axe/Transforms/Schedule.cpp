//===- Schedule.cpp - Registry of schedules per (op, target) --------------===//

#include "axe/Dialect/Axe/Transforms/Schedule.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace axe {

ScheduleRegistry &ScheduleRegistry::global() {
  static ScheduleRegistry registry;
  return registry;
}

LogicalResult ScheduleRegistry::add(Schedule schedule, std::string *error) {
  auto reject = [&](const std::string &why) {
    if (error)
      *error = why;
    return failure();
  };
  if (schedule.name.empty() || schedule.opName.empty() ||
      schedule.target.empty())
    return reject("a schedule needs a name, an op name and a target");
  if (!schedule.match || !schedule.rewrite)
    return reject("schedule '" + schedule.name +
                  "' needs both a match and a rewrite function");
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto &s : schedules)
    if (s && s->name == schedule.name && s->opName == schedule.opName &&
        s->target == schedule.target)
      return reject("schedule '" + schedule.name +
                    "' is already registered for " + schedule.opName +
                    " on target " + schedule.target);
  schedules.push_back(std::make_unique<Schedule>(std::move(schedule)));
  return success();
}

bool ScheduleRegistry::remove(llvm::StringRef opName, llvm::StringRef target,
                              llvm::StringRef name) {
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &s : schedules)
    if (s && s->name == name && s->opName == opName && s->target == target) {
      // Leave a hole rather than erase so other addresses stay valid.
      s.reset();
      return true;
    }
  return false;
}

SmallVector<const Schedule *>
ScheduleRegistry::candidates(llvm::StringRef opName,
                             llvm::StringRef target) const {
  SmallVector<const Schedule *> result;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto &s : schedules)
      if (s && s->opName == opName && (s->target == target || s->target == "*"))
        result.push_back(s.get());
  }
  llvm::stable_sort(result, [](const Schedule *a, const Schedule *b) {
    if (a->priority != b->priority)
      return a->priority > b->priority;
    return a->name < b->name;
  });
  return result;
}

FailureOr<const Schedule *>
ScheduleRegistry::select(Operation *op, const ScheduleContext &ctx) const {
  StringRef opName = op->getName().getStringRef();
  SmallVector<const Schedule *> all = candidates(opName, ctx.target);

  if (auto forced = op->getAttrOfType<StringAttr>(kScheduleAttrName)) {
    for (const Schedule *s : all) {
      if (s->name != forced.getValue())
        continue;
      ScheduleMatch m = s->match(op, ctx);
      if (m.accepted())
        return s;
      op->emitError() << "forced schedule '" << s->name << "' declined "
                      << opName << " on target " << ctx.target << ": "
                      << m.reason();
      return failure();
    }
    InFlightDiagnostic diag =
        op->emitError() << "no schedule named '" << forced.getValue()
                        << "' for " << opName << " on target " << ctx.target;
    if (all.empty())
      diag << " (none is registered)";
    else {
      diag << "; known:";
      for (const Schedule *s : all)
        diag << " '" << s->name << "'";
    }
    return failure();
  }

  SmallVector<std::pair<const Schedule *, std::string>> declined;
  for (const Schedule *s : all) {
    ScheduleMatch m = s->match(op, ctx);
    if (m.accepted())
      return s;
    // A user schedule may decline without saying why; the note must still
    // read as a sentence.
    declined.push_back(
        {s, m.reason().empty() ? "(the schedule gave no reason)" : m.reason()});
  }
  InFlightDiagnostic diag = op->emitError() << "no schedule for " << opName
                                            << " on target " << ctx.target;
  if (declined.empty()) {
    diag << ": none is registered";
    return failure();
  }
  diag << "; every candidate declined";
  for (const auto &[s, why] : declined)
    diag.attachNote() << "schedule '" << s->name << "' (priority "
                      << s->priority << ") declined: " << why;
  return failure();
}

LogicalResult ScheduleRegistry::dispatch(Operation *op,
                                         const ScheduleContext &ctx,
                                         RewriterBase &rewriter) const {
  FailureOr<const Schedule *> s = select(op, ctx);
  if (failed(s))
    return failure();
  rewriter.setInsertionPoint(op);
  if (failed((*s)->rewrite(op, ctx, rewriter)))
    return op->emitError() << "schedule '" << (*s)->name
                           << "' failed to rewrite " << op->getName();
  return success();
}

} // namespace axe
