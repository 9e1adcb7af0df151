//===- AxeDialect.cpp - The axe dialect and layout/scope helpers ----------===//

#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Layout/Placement.h"
#include "axe/Support/ElementBytes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace axe;

#include "axe/Dialect/Axe/IR/AxeDialect.cpp.inc"
#include "axe/Dialect/Axe/IR/AxeEnums.cpp.inc"

void AxeDialect::initialize() {
  registerAttributes();
  registerTypes();
  registerOps();
}

LogicalResult AxeDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getTargetAttrName()
             << "' must be a #axe.target<\"name\">, got " << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown axe attribute '"
                         << attr.getName().getValue()
                         << "' (the dialect defines '" << getTargetAttrName()
                         << "')";
}

//===----------------------------------------------------------------------===//
// Layouts, scopes and memory spaces
//===----------------------------------------------------------------------===//

std::optional<ScopeKind> axe::getAxisScope(llvm::StringRef axis) {
  switch (axisKind(axis)) {
  case AxisKind::Memory:
    return std::nullopt;
  case AxisKind::Device:
  case AxisKind::User:
    return ScopeKind::Mesh;
  case AxisKind::Thread:
    break;
  }
  // The scope within which the axis numbers its units, as the targets
  // describe it (laneid: a warp, cbx: a cluster, bx: the kernel).
  if (const TargetAxis *a = findAxisOnAnyTarget(axis); a && a->scope)
    return static_cast<ScopeKind>(*a->scope);
  // A thread axis no target describes: treat it as spanning the whole
  // kernel, the safe (most restrictive) answer.
  return ScopeKind::Kernel;
}

/// Bytes that `elements` elements of `type` take; saturates so that sums of
/// footprints cannot wrap either.
static int64_t footprintBytes(BufferType type, int64_t elements) {
  int64_t bytes;
  if (mulOverflows(elements, elementBytes(type.getElementType()), bytes))
    return INT64_MAX;
  return bytes;
}

namespace {
/// Where a buffer's layout reaches, for counting the memory it takes.
class BufferReach {
public:
  explicit BufferReach(BufferType type) : reach(axisReach(type.getLayout())) {}

  /// Whether the layout mentions `axis`; a layout whose reach does not fit
  /// in int64 is taken to use every axis.
  bool uses(llvm::StringRef axis) const {
    return !reach || reach->count(axis.str());
  }
  /// The number of coordinates 0..hi on `axis`, or lo..hi when lo is
  /// below 0 (the lowerings store a buffer from there): 1 when the layout
  /// does not use it, INT64_MAX when that does not fit.
  int64_t count(llvm::StringRef axis) const {
    if (!reach)
      return INT64_MAX;
    auto it = reach->find(axis.str());
    if (it == reach->end())
      return 1;
    int64_t span, n;
    if (llvm::SubOverflow(it->second.hi, std::min<int64_t>(it->second.lo, 0),
                          span) ||
        addOverflows(span, 1, n))
      return INT64_MAX;
    return n;
  }

private:
  Result<std::map<std::string, AxisReach>> reach;
};
} // namespace

int64_t axe::getFootprintBytes(BufferType type) {
  BufferReach reach(type);
  if (!reach.uses(kDefaultAxis))
    return 0;
  return footprintBytes(type, reach.count(kDefaultAxis));
}

int64_t axe::getCellsOn(BufferType type, const TargetAxis &axis) {
  int64_t elements = BufferReach(type).count(axis.name);
  if (axis.cellBits == 0)
    return elements;
  int64_t bits;
  if (mulOverflows(elements, type.getElementBitWidth(), bits))
    return INT64_MAX;
  return bits / axis.cellBits + (bits % axis.cellBits != 0);
}

std::optional<PartitionAxes> axe::getPartitionAxes(MemorySpace space) {
  switch (space) {
  case MemorySpace::SBuf:
    return PartitionAxes{"P", "F", ""};
  case MemorySpace::PSum:
    return PartitionAxes{"P", "F", "Bank"};
  case MemorySpace::TMem:
    return PartitionAxes{"TLane", "TCol", ""};
  case MemorySpace::Global:
  case MemorySpace::HBM:
  case MemorySpace::Shared:
  case MemorySpace::Reg:
    return std::nullopt;
  }
  return std::nullopt;
}

int64_t axe::getFootprintBytes(BufferType type,
                               const TargetDescription &target) {
  const TargetMemorySpace *space =
      target.findMemorySpace(stringifyMemorySpace(type.getMemorySpace()));
  std::optional<PartitionAxes> axes = getPartitionAxes(type.getMemorySpace());
  if (!space || !space->isPartitioned() || !axes)
    return getFootprintBytes(type);
  BufferReach reach(type);
  if (!axes->bank.empty() && space->banks > 0 && reach.uses(axes->bank)) {
    // Whole banks: the free axis stays inside each (getFreeAxisBytes).
    int64_t bytes;
    if (mulOverflows(reach.count(axes->bank), space->bytesPerBank(), bytes))
      return INT64_MAX;
    return bytes;
  }
  return getFreeAxisBytes(type, target);
}

int64_t axe::getFreeAxisBytes(BufferType type,
                              const TargetDescription &target) {
  std::optional<PartitionAxes> axes = getPartitionAxes(type.getMemorySpace());
  if (!axes)
    return 0;
  const TargetAxis *free = target.findAxis(axes->free);
  if (free && free->cellBits > 0) {
    int64_t bytes;
    if (mulOverflows(getCellsOn(type, *free), free->cellBits / 8, bytes))
      return INT64_MAX;
    return bytes;
  }
  return footprintBytes(type, BufferReach(type).count(axes->free));
}

namespace {
/// Which axes may place data in a memory space, and how to say so.
struct SpaceRule {
  bool m = false, thread = false, clusterOnly = false, device = false;
  bool partition = false, bank = false, tensorMemory = false;
  llvm::StringLiteral allowed;
};

SpaceRule ruleFor(MemorySpace space) {
  switch (space) {
  case MemorySpace::Global:
  case MemorySpace::HBM:
    return {true, false, false, true, false, false, false, "m and device axes"};
  case MemorySpace::Shared:
    return {
        true,  false, true,  false,
        false, false, false, "m, and cbx/cby/cbz across the CTAs of a cluster"};
  case MemorySpace::Reg:
    return {true,  true,  false, false,
            false, false, false, "m and the thread axes within a CTA"};
  case MemorySpace::TMem:
    return {false, false, false, false, false, false, true, "TLane and TCol"};
  case MemorySpace::SBuf:
    return {false, false, false, false, true, false, false, "P and F"};
  case MemorySpace::PSum:
    return {false, false, false, false, true, true, false, "P, F and Bank"};
  }
  llvm_unreachable("unknown memory space");
}

bool allows(const SpaceRule &rule, llvm::StringRef axis) {
  if (axis == kDefaultAxis)
    return rule.m;
  if (axis == "P" || axis == "F")
    return rule.partition;
  if (axis == "Bank")
    return rule.bank;
  if (axis == "TLane" || axis == "TCol")
    return rule.tensorMemory;
  switch (axisKind(axis)) {
  case AxisKind::Thread:
    // Registers belong to one thread of one CTA: a register buffer may be
    // spread over the threads of a CTA, never over CTAs (a grid or cluster
    // axis), whose registers no thread can reach.
    if (rule.thread)
      return getAxisScope(axis) <= ScopeKind::CTA;
    return rule.clusterOnly && getAxisScope(axis) == ScopeKind::Cluster;
  case AxisKind::Device:
  case AxisKind::User:
    return rule.device;
  case AxisKind::Memory:
    return false;
  }
  return false;
}
} // namespace

std::optional<std::string> axe::checkLayoutForMemorySpace(const Layout &layout,
                                                          MemorySpace space) {
  SpaceRule rule = ruleFor(space);
  std::string spaceName = stringifyMemorySpace(space).str();
  for (const std::string &axis : placementAxes(layout.tile())) {
    if (allows(rule, axis))
      continue;
    std::string kind = axisKindName(axisKind(axis)).str() + " axis";
    // Say why a thread axis is wrong where only its reach is (registers).
    std::optional<ScopeKind> scope = getAxisScope(axis);
    if (axisKind(axis) == AxisKind::Thread && scope && *scope > ScopeKind::CTA)
      kind += " across the CTAs of a " + stringifyScopeKind(*scope).str();
    return "layout axis '" + axis + "' (a " + kind + ") cannot place data in " +
           spaceName + " memory; " + spaceName + " buffers are placed on " +
           rule.allowed.str();
  }
  if (layout.isSwizzled() && !rule.m)
    return "a swizzle permutes m addresses, but " + spaceName +
           " memory is not addressed by m";
  // A partitioned buffer (sbuf, psum, tmem) is the region of its space from
  // 0 to its reach on each axis (getFootprintBytes counts 0..hi, and so do
  // the lowerings): a coordinate below 0 lies outside it. Global, shared and
  // register storage starts wherever the reach does.
  if (rule.partition || rule.tensorMemory) {
    if (auto reach = axisReach(layout))
      for (const auto &[axis, r] : *reach)
        if (r.lo < 0)
          return "layout places data at " + axis + " = " +
                 std::to_string(r.lo) + ", below 0; " + spaceName +
                 " buffers are placed from 0 on " + rule.allowed.str();
  }
  return std::nullopt;
}

std::optional<BufferOwner> axe::getBufferOwner(BufferType type) {
  if (!type.hasLayout())
    return std::nullopt;
  llvm::SmallVector<std::string, 4> axes =
      placementAxes(type.getLayout().tile());
  // The widest scope among the axes of a given kind.
  auto widest = [&](auto pred) {
    BufferOwner owner{ScopeKind::Thread, ""};
    for (const std::string &axis : axes) {
      std::optional<ScopeKind> scope = getAxisScope(axis);
      if (!scope || !pred(axis))
        continue;
      if (owner.axis.empty() || *scope > owner.scope)
        owner = {*scope, axis};
    }
    return owner;
  };
  auto isThread = [](llvm::StringRef a) {
    return axisKind(a) == AxisKind::Thread;
  };
  auto isDevice = [](llvm::StringRef a) {
    AxisKind k = axisKind(a);
    return k == AxisKind::Device || k == AxisKind::User;
  };
  switch (type.getMemorySpace()) {
  case MemorySpace::Reg:
    return widest(isThread);
  case MemorySpace::Shared:
  case MemorySpace::TMem: {
    BufferOwner owner = widest(isThread);
    if (owner.scope < ScopeKind::CTA)
      owner = {ScopeKind::CTA, ""};
    return owner;
  }
  case MemorySpace::Global:
  case MemorySpace::HBM: {
    BufferOwner owner = widest(isDevice);
    if (owner.axis.empty())
      return std::nullopt;
    return owner;
  }
  case MemorySpace::SBuf:
  case MemorySpace::PSum:
    return std::nullopt;
  }
  return std::nullopt;
}

static bool isPendingBuffer(Type type) {
  auto buffer = dyn_cast<BufferType>(type);
  return buffer && !buffer.hasLayout();
}

LogicalResult axe::requireConcreteLayouts(Operation *root,
                                          llvm::StringRef pass) {
  Operation *offender = nullptr;
  root->walk([&](Operation *op) {
    bool pending =
        llvm::any_of(op->getResultTypes(), isPendingBuffer) ||
        llvm::any_of(op->getRegions(), [](Region &region) {
          return llvm::any_of(region.getArguments(), [](BlockArgument arg) {
            return isPendingBuffer(arg.getType());
          });
        });
    if (!pending)
      return WalkResult::advance();
    offender = op;
    return WalkResult::interrupt();
  });
  if (!offender)
    return success();
  return offender->emitError()
         << pass << " needs concrete layouts, but this op's buffers have "
         << "layout '?'; run axe-infer-layouts first (the axe-to-cpu, "
            "axe-to-nvvm, axe-to-ptx and axe-to-trn pipelines do)";
}
