//===- Target.cpp - Target descriptions: queries and the registry ---------===//
//
// The facts themselves are in BuiltinTargets.cpp; this file answers
// questions about them and keeps the process-wide list of targets.
//
//===----------------------------------------------------------------------===//

#include "axe/Target/Target.h"
#include "BuiltinTargets.h"

#include "axe/Layout/Axis.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <deque>
#include <mutex>
#include <shared_mutex>

using namespace axe;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

llvm::StringRef axe::targetKindName(TargetKind kind) {
  switch (kind) {
  case TargetKind::GPU:
    return "gpu";
  case TargetKind::CPU:
    return "cpu";
  case TargetKind::Accelerator:
    return "accelerator";
  }
  return "unknown";
}

llvm::StringRef axe::capacityScopeName(CapacityScope scope) {
  switch (scope) {
  case CapacityScope::Device:
    return "device";
  case CapacityScope::Core:
    return "core";
  case CapacityScope::CTA:
    return "CTA";
  case CapacityScope::Thread:
    return "thread";
  }
  return "unit";
}

llvm::StringRef axe::axisRoleName(AxisRole role) {
  switch (role) {
  case AxisRole::Thread:
    return "thread";
  case AxisRole::Warp:
    return "warp";
  case AxisRole::Warpgroup:
    return "warpgroup";
  case AxisRole::CTA:
    return "cta";
  case AxisRole::Device:
    return "device";
  case AxisRole::Memory:
    return "memory";
  }
  return "unknown";
}

std::optional<ExecutionScope> axe::unitOfRole(AxisRole role) {
  switch (role) {
  case AxisRole::Thread:
    return ExecutionScope::Thread;
  case AxisRole::Warp:
    return ExecutionScope::Warp;
  case AxisRole::Warpgroup:
    return ExecutionScope::Warpgroup;
  case AxisRole::CTA:
    return ExecutionScope::CTA;
  case AxisRole::Device:
    // A device runs one kernel's grid: a step of gpuid is a whole kernel.
    return ExecutionScope::Kernel;
  case AxisRole::Memory:
    return std::nullopt;
  }
  return std::nullopt;
}

llvm::StringRef TargetMemorySpace::capacityUnit() const {
  return isPartitioned() ? "partition" : capacityScopeName(capacityScope);
}

bool PartitionAccessRules::isValidStartPartition(int64_t start,
                                                 int64_t partitions) const {
  if (partitions < 1 || partitions > maxPartitions || start < 0 ||
      start + partitions > maxPartitions)
    return false;
  if (partitions > 64)
    return start == 0;
  if (partitions > 32)
    return start == 0 || start == 64;
  return start % 32 == 0;
}

//===----------------------------------------------------------------------===//
// Axes and the thread hierarchy
//===----------------------------------------------------------------------===//

const TargetAxis *TargetDescription::findAxis(llvm::StringRef axis) const {
  for (const TargetAxis &a : axes)
    if (a.name == axis)
      return &a;
  return nullptr;
}

llvm::SmallVector<const TargetAxis *, 16>
TargetDescription::threadAxes() const {
  llvm::SmallVector<const TargetAxis *, 16> out;
  for (const TargetAxis &a : axes)
    if (a.isThreadAxis())
      out.push_back(&a);
  return out;
}

llvm::SmallVector<const TargetAxis *, 8> TargetDescription::memoryAxes() const {
  llvm::SmallVector<const TargetAxis *, 8> out;
  for (const TargetAxis &a : axes)
    if (a.isMemory())
      out.push_back(&a);
  return out;
}

std::optional<ExecutionScope>
TargetDescription::scopeOfAxis(llvm::StringRef axis) const {
  const TargetAxis *a = findAxis(axis);
  return a ? a->scope : std::nullopt;
}

const TargetAxis *TargetDescription::axisNumbering(ExecutionScope unit,
                                                   ExecutionScope within,
                                                   unsigned dim) const {
  for (const TargetAxis &a : axes)
    if (unitOfRole(a.role) == unit && a.scope == within && a.dim == dim)
      return &a;
  return nullptr;
}

int64_t TargetDescription::threadsPerInstance(ExecutionScope scope,
                                              int64_t threadsPerCTA) const {
  switch (scope) {
  case ExecutionScope::Thread:
    return 1;
  case ExecutionScope::Warp:
    return warpSize;
  case ExecutionScope::Warpgroup:
    return warpgroupSize();
  default:
    return threadsPerCTA;
  }
}

Result<int64_t>
TargetDescription::instancesPerCTA(ExecutionScope scope,
                                   int64_t threadsPerCTA) const {
  if (scope >= ExecutionScope::CTA)
    return int64_t(1);
  int64_t per = threadsPerInstance(scope, threadsPerCTA);
  if (per <= 0)
    return fail(name.str() + " has no " + executionScopeName(scope).str() +
                "s");
  if (threadsPerCTA % per != 0)
    return fail("a " + std::to_string(threadsPerCTA) +
                "-thread CTA is not made of whole " +
                executionScopeName(scope).str() + "s of " +
                std::to_string(per) + " threads");
  return threadsPerCTA / per;
}

std::optional<AxisStep>
TargetDescription::stepOfAxis(llvm::StringRef axis) const {
  const TargetAxis *a = findAxis(axis);
  if (!a || !a->isThreadAxis() || !a->scope || *a->scope > ExecutionScope::CTA)
    return std::nullopt;
  ExecutionScope unit = *unitOfRole(a->role);
  if (unit >= ExecutionScope::CTA)
    return std::nullopt;
  int64_t per = threadsPerInstance(unit, /*threadsPerCTA=*/0);
  // An axis numbering within the CTA runs through all of it; one numbering
  // within a warp or warpgroup starts over with each of them.
  int64_t wrap = 0;
  if (*a->scope < ExecutionScope::CTA && per > 0)
    wrap = threadsPerInstance(*a->scope, 0) / per;
  return AxisStep{unit, per, wrap};
}

std::optional<int64_t>
TargetDescription::launchExtent(llvm::StringRef axis,
                                const LaunchShape &launch) const {
  const TargetAxis *a = findAxis(axis);
  if (!a || !a->isThreadAxis() || !a->scope)
    return std::nullopt;
  ExecutionScope unit = *unitOfRole(a->role);
  if (unit == ExecutionScope::CTA) {
    llvm::ArrayRef<int64_t> dims;
    if (*a->scope == ExecutionScope::Cluster)
      dims = launch.cluster;
    else if (launch.grid.empty())
      return std::nullopt;
    else
      dims = launch.grid;
    return a->dim < dims.size() ? dims[a->dim] : 1;
  }
  int64_t per = threadsPerInstance(unit, launch.threadsPerCTA);
  int64_t whole = threadsPerInstance(*a->scope, launch.threadsPerCTA);
  if (per <= 0)
    return std::nullopt;
  // A CTA smaller than one warp still has warp 0.
  return std::max<int64_t>(whole / per, 1);
}

llvm::SmallVector<std::pair<llvm::StringRef, int64_t>, 16>
TargetDescription::launchExtents(const LaunchShape &launch) const {
  llvm::SmallVector<std::pair<llvm::StringRef, int64_t>, 16> out;
  for (const TargetAxis &a : axes)
    if (std::optional<int64_t> e = launchExtent(a.name, launch))
      out.emplace_back(a.name, *e);
  return out;
}

ThreadHierarchy TargetDescription::threadHierarchy() const {
  return ThreadHierarchy{warpSize, hasWarpgroups() ? warpsPerWarpgroup
                                                   : kWarpsPerWarpgroup};
}

llvm::StringRef TargetDescription::gridAxisName(unsigned dim) {
  static constexpr llvm::StringLiteral names[] = {"bx", "by", "bz"};
  assert(dim < 3 && "a grid has at most 3 dims");
  return names[dim];
}

int64_t TargetDescription::maxGridExtent(unsigned dim) const {
  const TargetAxis *axis = findAxis(gridAxisName(dim));
  return axis ? axis->extent : 0;
}

//===----------------------------------------------------------------------===//
// Memory, features, atoms
//===----------------------------------------------------------------------===//

const TargetMemorySpace *
TargetDescription::findMemorySpace(llvm::StringRef space) const {
  for (const TargetMemorySpace &m : memorySpaces)
    if (m.name == space)
      return &m;
  return nullptr;
}

std::optional<AcceleratorConfig> TargetDescription::acceleratorConfig() const {
  const TargetMemorySpace *sbuf = findMemorySpace("sbuf");
  const TargetMemorySpace *psum = findMemorySpace("psum");
  if (!sbuf || !psum || !sbuf->isPartitioned() || psum->banks < 1)
    return std::nullopt;
  AcceleratorConfig config;
  config.partitions = sbuf->partitions;
  config.sbufPartitionBytes = sbuf->bytesPerPartition();
  config.psumBanks = psum->banks;
  config.psumBankBytes = psum->bytesPerBank();
  return config;
}

bool TargetDescription::hasFeature(llvm::StringRef feature) const {
  return llvm::is_contained(features, feature);
}

llvm::SmallVector<const InstructionAtom *, 8>
TargetDescription::findAtoms(const AtomQuery &query) const {
  llvm::SmallVector<const InstructionAtom *, 8> out;
  for (const InstructionAtom &atom : atoms)
    if (query.matches(atom))
      out.push_back(&atom);
  return out;
}

llvm::SmallVector<const InstructionAtom *, 8>
TargetDescription::findAtoms(AtomKind kind) const {
  return findAtoms(AtomQuery{kind});
}

const InstructionAtom *
TargetDescription::findAtom(const AtomQuery &query) const {
  for (const InstructionAtom &atom : atoms)
    if (query.matches(atom))
      return &atom;
  return nullptr;
}

const InstructionAtom *
TargetDescription::findAtom(AtomKind kind, llvm::StringRef elementType,
                            llvm::StringRef accumulatorType) const {
  return findAtom(AtomQuery{kind, elementType, accumulatorType});
}

template <typename Range, typename NameOf>
static std::string joinNames(const Range &range, NameOf nameOf) {
  std::string out;
  for (const auto &item : range) {
    if (!out.empty())
      out += ", ";
    out += llvm::StringRef(nameOf(item)).str();
  }
  return out;
}

std::string TargetDescription::axisNames() const {
  return joinNames(axes, [](const TargetAxis &a) { return a.name; });
}

std::string TargetDescription::memorySpaceNames() const {
  return joinNames(memorySpaces,
                   [](const TargetMemorySpace &m) { return m.name; });
}

std::string TargetDescription::featureNames() const {
  return joinNames(features,
                   [](const std::string &f) { return llvm::StringRef(f); });
}

//===----------------------------------------------------------------------===//
// Checking a description
//===----------------------------------------------------------------------===//

/// The AxisKind the layout library gives a built-in axis name, which a
/// target's axis of that name must agree with.
static bool roleFitsKind(AxisRole role, AxisKind kind) {
  switch (kind) {
  case AxisKind::Thread:
    return role != AxisRole::Memory && role != AxisRole::Device;
  case AxisKind::Memory:
    return role == AxisRole::Memory;
  case AxisKind::Device:
    return role == AxisRole::Device;
  case AxisKind::User:
    return true;
  }
  return true;
}

std::optional<Failure>
axe::checkTargetDescription(const TargetDescription &target) {
  if (target.name.empty())
    return fail("a target needs a name");
  std::string where = "target '" + target.name.str() + "': ";
  llvm::StringSet<> seen;
  for (const TargetAxis &a : target.axes) {
    if (!isValidAxisName(a.name))
      return fail(where + "'" + a.name.str() + "' is not a valid axis name");
    if (!seen.insert(a.name).second)
      return fail(where + "two axes are called '" + a.name.str() + "'");
    if (!roleFitsKind(a.role, axisKind(a.name)))
      return fail(where + "axis '" + a.name.str() + "' is a " +
                  axisKindName(axisKind(a.name)).str() +
                  " axis everywhere, not a " + axisRoleName(a.role).str() +
                  " axis");
    if (a.isMemory() != !a.scope)
      return fail(where + "axis '" + a.name.str() +
                  (a.isMemory() ? "' is a memory axis and has no scope"
                                : "' numbers executors and needs a scope"));
    if (a.scope && unitOfRole(a.role) >= a.scope)
      return fail(where + "axis '" + a.name.str() + "' numbers " +
                  axisRoleName(a.role).str() + "s within a " +
                  executionScopeName(*a.scope).str() +
                  ", which is not wider than one of them");
    if (a.dim > 2)
      return fail(where + "axis '" + a.name.str() + "' has dim " +
                  std::to_string(a.dim) + "; grids have x, y and z only");
    bool needsWarps = a.role == AxisRole::Warp ||
                      (a.scope && *a.scope == ExecutionScope::Warp);
    bool needsWarpgroups = a.role == AxisRole::Warpgroup ||
                           (a.scope && *a.scope == ExecutionScope::Warpgroup);
    if ((needsWarps || needsWarpgroups) && !target.hasWarps())
      return fail(where + "axis '" + a.name.str() +
                  "' needs warps, but warpSize is 0");
    if (needsWarpgroups && !target.hasWarpgroups())
      return fail(where + "axis '" + a.name.str() +
                  "' needs warpgroups, but warpsPerWarpgroup is 0");
  }
  seen.clear();
  for (const TargetMemorySpace &m : target.memorySpaces) {
    if (!seen.insert(m.name).second)
      return fail(where + "two memory spaces are called '" + m.name.str() +
                  "'");
    if (m.capacityBytes < 0 || m.partitions < 0 || m.banks < 0 ||
        (m.banks > 0 && !m.isPartitioned()))
      return fail(where + "memory space '" + m.name.str() +
                  "' needs non-negative sizes, and banks only within "
                  "partitions");
  }
  for (const InstructionAtom &atom : target.atoms)
    for (const AtomOperand &op : atom.operands)
      for (llvm::StringRef space : op.memorySpaces)
        if (!target.hasMemorySpace(space))
          return fail(where + "atom " + atom.name + " operand " + op.name +
                      " is in memory space '" + space.str() +
                      "', which the target does not have");
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

namespace {
/// The process-wide list. A deque, so that the descriptions never move and
/// the pointers handed out stay valid as targets are added.
struct TargetRegistry {
  std::shared_mutex mutex;
  std::deque<TargetDescription> targets;

  TargetRegistry() {
    for (TargetDescription &t : detail::builtinTargets()) {
      assert(!checkTargetDescription(t) && "a built-in target is malformed");
      targets.push_back(std::move(t));
    }
  }
};

TargetRegistry &registry() {
  static TargetRegistry instance;
  return instance;
}

const TargetDescription *findLocked(const TargetRegistry &r,
                                    llvm::StringRef name) {
  for (const TargetDescription &t : r.targets)
    if (t.name == name)
      return &t;
  return nullptr;
}
} // namespace

Result<const TargetDescription *>
axe::registerTarget(TargetDescription target) {
  if (std::optional<Failure> f = checkTargetDescription(target))
    return *f;
  TargetRegistry &r = registry();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  if (findLocked(r, target.name))
    return fail("target '" + target.name.str() + "' is already registered");
  for (const TargetAxis &a : target.axes)
    for (const TargetDescription &other : r.targets)
      if (const TargetAxis *same = other.findAxis(a.name))
        if (same->role != a.role || same->scope != a.scope)
          return fail(
              "target '" + target.name.str() + "': axis '" + a.name.str() +
              "' is a " + axisRoleName(a.role).str() + " axis here but a " +
              axisRoleName(same->role).str() + " axis" +
              (same->scope
                   ? " within a " + executionScopeName(*same->scope).str()
                   : std::string()) +
              " on " + other.name.str() +
              "; an axis name means one thing on every target");
  r.targets.push_back(std::move(target));
  return &r.targets.back();
}

llvm::SmallVector<const TargetDescription *, 8> axe::allTargets() {
  TargetRegistry &r = registry();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  llvm::SmallVector<const TargetDescription *, 8> out;
  for (const TargetDescription &t : r.targets)
    out.push_back(&t);
  return out;
}

std::string axe::knownTargetNames() {
  return joinNames(allTargets(),
                   [](const TargetDescription *t) { return t->name; });
}

Result<const TargetDescription *> axe::lookupTarget(llvm::StringRef name) {
  {
    TargetRegistry &r = registry();
    std::shared_lock<std::shared_mutex> lock(r.mutex);
    if (const TargetDescription *t = findLocked(r, name))
      return t;
  }
  return fail("unknown target '" + name.str() +
              "'; known targets: " + knownTargetNames());
}

const TargetAxis *axe::findAxisOnAnyTarget(llvm::StringRef name) {
  for (const TargetDescription *t : allTargets())
    if (const TargetAxis *a = t->findAxis(name))
      return a;
  return nullptr;
}
