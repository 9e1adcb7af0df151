//===- Schedule.cpp - Schedules, backends and their registry --------------===//

#include "axe/Codegen/Schedule.h"
#include "axe/Codegen/TargetCodegen.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace axe {

//===----------------------------------------------------------------------===//
// ScheduleRegistry
//===----------------------------------------------------------------------===//

LogicalResult ScheduleRegistry::add(Schedule schedule, std::string *error) {
  auto reject = [&](const std::string &why) {
    if (error)
      *error = why;
    return failure();
  };
  if (schedule.name.empty() || schedule.opName.empty())
    return reject("a schedule needs a name and an op name");
  if (!schedule.match || !schedule.rewrite)
    return reject("schedule '" + schedule.name +
                  "' needs both a match and a rewrite function");
  if (find(schedule.opName, schedule.name))
    return reject("schedule '" + schedule.name +
                  "' is already registered for " + schedule.opName);
  schedules.push_back(std::move(schedule));
  return success();
}

bool ScheduleRegistry::remove(llvm::StringRef opName, llvm::StringRef name) {
  for (auto it = schedules.begin(); it != schedules.end(); ++it)
    if (it->name == name && it->opName == opName) {
      schedules.erase(it);
      return true;
    }
  return false;
}

const Schedule *ScheduleRegistry::find(llvm::StringRef opName,
                                       llvm::StringRef name) const {
  for (const Schedule &s : schedules)
    if (s.name == name && s.opName == opName)
      return &s;
  return nullptr;
}

SmallVector<const Schedule *>
ScheduleRegistry::candidates(llvm::StringRef opName,
                             const TargetDescription &target) const {
  SmallVector<const Schedule *> result;
  for (const Schedule &s : schedules)
    if (s.opName == opName && s.targets(target))
      result.push_back(&s);
  llvm::stable_sort(result, [](const Schedule *a, const Schedule *b) {
    if (a->priority != b->priority)
      return a->priority > b->priority;
    return a->name < b->name;
  });
  return result;
}

namespace {

/// The schedule name `op` forces on `target`: none (an empty string), or
/// failure after a diagnostic on a malformed `schedule` attribute.
FailureOr<std::string> forcedName(Operation *op, llvm::StringRef target) {
  Attribute attr = op->getAttr(kScheduleAttrName);
  if (!attr)
    return std::string();
  if (auto name = dyn_cast<StringAttr>(attr))
    return name.str();
  auto perTarget = dyn_cast<DictionaryAttr>(attr);
  if (!perTarget) {
    op->emitError() << "'" << kScheduleAttrName
                    << "' must be a schedule name or a dictionary from "
                       "target name to schedule name, got "
                    << attr;
    return failure();
  }
  std::string chosen;
  for (NamedAttribute entry : perTarget) {
    if (!lookupTarget(entry.getName().getValue())) {
      op->emitError() << "'" << kScheduleAttrName << "' names unknown target '"
                      << entry.getName().getValue()
                      << "'; known: " << knownTargetNames();
      return failure();
    }
    auto name = dyn_cast<StringAttr>(entry.getValue());
    if (!name) {
      op->emitError() << "'" << kScheduleAttrName << "' entry for "
                      << entry.getName().getValue()
                      << " must be a schedule name, got " << entry.getValue();
      return failure();
    }
    if (entry.getName().getValue() == target)
      chosen = name.str();
  }
  return chosen;
}

} // namespace

SmallVector<const Schedule *>
ScheduleRegistry::eligible(Operation *op, const ScheduleContext &ctx) const {
  SmallVector<const Schedule *> all =
      candidates(op->getName().getStringRef(), *ctx.target);
  // The op verifier has checked the attribute, so this emits nothing.
  FailureOr<std::string> forced = forcedName(op, ctx.targetName());
  if (failed(forced))
    return {};
  if (forced->empty())
    return all;
  llvm::erase_if(all, [&](const Schedule *s) { return s->name != *forced; });
  return all;
}

FailureOr<std::pair<const Schedule *, ScheduleMatch>>
ScheduleRegistry::select(Operation *op, const ScheduleContext &ctx) const {
  StringRef opName = op->getName().getStringRef();
  assert(ctx.target && "dispatch needs a target");
  SmallVector<const Schedule *> all = candidates(opName, *ctx.target);

  FailureOr<std::string> forced = forcedName(op, ctx.targetName());
  if (failed(forced))
    return failure();
  if (!forced->empty()) {
    for (const Schedule *s : all) {
      if (s->name != *forced)
        continue;
      ScheduleMatch m = s->match(op, ctx);
      if (m.accepted())
        return std::make_pair(s, std::move(m));
      op->emitError() << "forced schedule '" << s->name << "' declined "
                      << opName << " on target " << ctx.targetName() << ": "
                      << m.reason();
      return failure();
    }
    InFlightDiagnostic diag = op->emitError()
                              << "no schedule named '" << *forced << "' for "
                              << opName << " on target " << ctx.targetName();
    if (const Schedule *elsewhere = find(opName, *forced)) {
      diag << ": it is for " << elsewhere->targets.description()
           << "; to force it there only, write {" << kScheduleAttrName
           << " = {<target> = \"" << *forced << "\"}}";
      return failure();
    }
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
      return std::make_pair(s, std::move(m));
    // A user schedule may decline without saying why; the note must still
    // read as a sentence.
    declined.push_back(
        {s, m.reason().empty() ? "(the schedule gave no reason)" : m.reason()});
  }
  InFlightDiagnostic diag = op->emitError()
                            << "no schedule for " << opName << " on target "
                            << ctx.targetName();
  if (declined.empty()) {
    diag << ": none is registered";
    // Dispatch finds the context's codegen in the backends it was given.
    if (!ctx.codegen)
      diag << " (no backend given to this dispatch lowers for this target)";
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
  auto selected = select(op, ctx);
  if (failed(selected))
    return failure();
  const auto &[schedule, match] = *selected;
  return apply(op, ctx, *schedule, match, rewriter);
}

LogicalResult ScheduleRegistry::apply(Operation *op, const ScheduleContext &ctx,
                                      const Schedule &schedule,
                                      const ScheduleMatch &match,
                                      RewriterBase &rewriter) {
  rewriter.setInsertionPoint(op);
  if (failed(schedule.rewrite(op, ctx, match.plan(), rewriter)))
    return op->emitError() << "schedule '" << schedule.name
                           << "' failed to rewrite " << op->getName();
  return success();
}

//===----------------------------------------------------------------------===//
// Backends
//===----------------------------------------------------------------------===//

void BackendSet::add(Backend backend) {
  for (const Backend &b : backends)
    if (b.name == backend.name)
      return;
  backends.push_back(std::move(backend));
}

const Backend *BackendSet::find(const TargetDescription &target) const {
  for (const Backend &b : backends)
    if (b.targets(target))
      return &b;
  return nullptr;
}

std::shared_ptr<const ScheduleRegistry> BackendSet::schedules() const {
  auto registry = std::make_shared<ScheduleRegistry>();
  for (const Backend &b : backends)
    if (b.addSchedules)
      b.addSchedules(*registry);
  return registry;
}

void BackendSet::addDependentDialects(DialectRegistry &registry) const {
  for (const Backend &b : backends)
    if (b.dependentDialects)
      b.dependentDialects(registry);
}

TargetCodegen::~TargetCodegen() = default;
ThreadTargetCodegen::~ThreadTargetCodegen() = default;

} // namespace axe
