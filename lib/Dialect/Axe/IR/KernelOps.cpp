//===- KernelOps.cpp - axe.kernel, warp specialization --------------------===//
//
// Verifiers of the launch (grid, cluster, threads against the target) and of
// what runs in it: every buffer inside a kernel must fit the launch and the
// target's axes and memories, and warp-specialized partitions must tile the
// kernel's warps.
//
//===----------------------------------------------------------------------===//

#include "AxeOpsInternal.h"

#include "axe/Dialect/Axe/IR/KernelChecks.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"

#include <map>

using namespace mlir;
using namespace axe;
using namespace axe::detail;

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state,
                     llvm::ArrayRef<OpFoldResult> grid, int64_t threads,
                     TargetAttr target) {
  llvm::SmallVector<Value> dynamicGrid;
  llvm::SmallVector<int64_t> staticGrid;
  dispatchIndexOpFoldResults(grid, dynamicGrid, staticGrid);
  build(builder, state, dynamicGrid, builder.getDenseI64ArrayAttr(staticGrid),
        builder.getI64IntegerAttr(threads), /*cluster=*/nullptr, target);
  state.regions.front()->emplaceBlock();
}

llvm::SmallVector<OpFoldResult> KernelOp::getMixedGrid() {
  return getMixedValues(getStaticGrid(), getGrid(), getContext());
}

TargetAttr KernelOp::getEffectiveTarget() {
  return axe::getTargetAttr(getOperation());
}

int64_t KernelOp::getClusterSize() {
  int64_t size = 1;
  if (std::optional<llvm::ArrayRef<int64_t>> cluster = getCluster())
    for (int64_t dim : *cluster)
      // The verifier rejects a cluster whose size overflows; an unverified
      // op saturates rather than wraps into a small, plausible size.
      if (mulOverflows(size, dim, size))
        return INT64_MAX;
  return size;
}

/// "[4, ?, 2]" for the static grid or cluster dims of diagnostics.
static std::string dimsStr(llvm::ArrayRef<int64_t> dims) {
  std::string out = "[";
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (i > 0)
      out += ", ";
    out += ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
  }
  return out + "]";
}

LogicalResult KernelOp::verify() {
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError() << "cannot be nested in another axe.kernel";
  // A launch is host code: outside a function (directly in a module) nothing
  // runs it, and the CPU lowering would leave its loops in the module body.
  if (!(*this)->getParentOfType<FunctionOpInterface>())
    return emitOpError() << "must be inside a function";
  llvm::ArrayRef<int64_t> grid = getStaticGrid();
  // No grid is one CTA.
  if (grid.size() > 3)
    return emitOpError() << "grid has at most 3 dims, got " << grid.size();
  if (failed(verifyListOfOperandsOrIntegers(*this, "grid", grid.size(), grid,
                                            getGrid())))
    return failure();
  for (int64_t dim : grid)
    if (!ShapedType::isDynamic(dim) && dim < 1)
      return emitOpError() << "grid dims must be positive, got " << dim;
  // Lowerings number the CTAs of a grid and of a cluster linearly, so their
  // counts must fit in int64 (as far as the static dims tell).
  int64_t ctas = 1;
  for (int64_t dim : grid)
    if (!ShapedType::isDynamic(dim) && mulOverflows(ctas, dim, ctas))
      return emitOpError() << "grid " << dimsStr(grid)
                           << " has more CTAs than int64 can count";
  if (std::optional<llvm::ArrayRef<int64_t>> cluster = getCluster()) {
    if (cluster->empty() || cluster->size() > 3)
      return emitOpError() << "cluster needs 1 to 3 dims, got "
                           << cluster->size();
    for (int64_t dim : *cluster)
      if (dim < 1)
        return emitOpError() << "cluster dims must be positive, got " << dim;
    int64_t size = 1;
    for (int64_t dim : *cluster)
      if (mulOverflows(size, dim, size))
        return emitOpError() << "cluster " << dimsStr(*cluster)
                             << " has more CTAs than int64 can count";
  }
  const TargetDescription *target = getTargetDescription(*this);
  if (!target)
    return success();
  for (auto [i, dim] : llvm::enumerate(grid)) {
    // A machine without grid axes (an accelerator core) runs one instance.
    if (!target->axisNumbering(ExecutionScope::CTA, ExecutionScope::Kernel,
                               i) &&
        dim != 1)
      return emitOpError() << "has a grid dim " << i << " of "
                           << (ShapedType::isDynamic(dim)
                                   ? std::string("run-time size")
                                   : std::to_string(dim))
                           << ", but " << target->name
                           << " has no grid: a kernel runs once on it "
                              "(write no `grid`)";
    int64_t limit = target->maxGridExtent(i);
    if (!ShapedType::isDynamic(dim) && limit > 0 && dim > limit)
      return emitOpError() << "grid dim " << i << " ("
                           << TargetDescription::gridAxisName(i) << ") is "
                           << dim << ", but " << target->name
                           << " allows at most " << limit << " CTAs along it";
  }
  if (target->maxThreadsPerCTA == 1 && getThreads() > 1)
    return emitOpError() << "has " << getThreads() << " threads per CTA, but "
                         << target->name
                         << " has no threads: a kernel runs on one core "
                            "(write no `threads`)";
  if (static_cast<int64_t>(getThreads()) > target->maxThreadsPerCTA)
    return emitOpError() << "has " << getThreads() << " threads per CTA; "
                         << target->name << " allows at most "
                         << target->maxThreadsPerCTA;
  if (target->hasWarps() && getThreads() % target->warpSize != 0)
    return emitOpError() << "has " << getThreads()
                         << " threads per CTA, not a multiple of the warp "
                            "size "
                         << target->warpSize << " of " << target->name;
  if (getCluster()) {
    if (!target->hasClusters())
      return emitOpError() << "has a cluster, but " << target->name
                           << " has no thread-block clusters";
    if (getClusterSize() > target->maxClusterSize)
      return emitOpError() << "has clusters of " << getClusterSize()
                           << " CTAs; " << target->name << " allows at most "
                           << target->maxClusterSize;
  }
  return success();
}

namespace {
/// The extent of each thread axis in this kernel's launch, as far as the
/// launch and the target fix it.
/// The axis that numbers the CTAs of a cluster along `dim` on the targets
/// that have clusters (cbx, cby, cbz).
const TargetAxis *findClusterAxis(unsigned dim) {
  for (const TargetDescription *t : allTargets())
    if (const TargetAxis *axis =
            t->axisNumbering(ExecutionScope::CTA, ExecutionScope::Cluster, dim))
      return axis;
  return nullptr;
}

std::map<std::string, int64_t> launchExtents(KernelOp kernel,
                                             const TargetDescription *target) {
  std::map<std::string, int64_t> extents;
  LaunchShape launch;
  launch.threadsPerCTA = kernel.getThreads();
  if (std::optional<llvm::ArrayRef<int64_t>> c = kernel.getCluster())
    launch.cluster.assign(c->begin(), c->end());
  if (target) {
    // No grid in the shape: no memory space lets a buffer place data on
    // bx/by/bz (checkLayoutForMemorySpace), so the buffer types never
    // reach them.
    for (auto [axis, extent] : target->launchExtents(launch))
      extents[axis.str()] = extent;
    return extents;
  }
  // Without a target only the launch itself fixes extents: the threads of
  // a CTA, and the CTAs of a cluster on the axes any target numbers them
  // with.
  extents["tx"] = launch.threadsPerCTA;
  for (unsigned dim = 0; dim < 3; ++dim)
    if (const TargetAxis *axis = findClusterAxis(dim))
      extents[axis->name.str()] =
          dim < launch.cluster.size() ? launch.cluster[dim] : 1;
  return extents;
}

std::string launchDescription(KernelOp kernel, llvm::StringRef axis,
                              int64_t extent) {
  std::string out = std::to_string(extent);
  if (axis == "warpid")
    return "the kernel has " + out + " warps (" +
           std::to_string(kernel.getThreads()) + " threads per CTA)";
  if (axis == "wgid")
    return "the kernel has " + out + " warpgroups (" +
           std::to_string(kernel.getThreads()) + " threads per CTA)";
  if (axis == "tx")
    return "the kernel has " + out + " threads per CTA";
  if (axis == "laneid")
    return "a warp has " + out + " lanes";
  if (axis == "wid_in_wg")
    return "a warpgroup has " + out + " warps";
  if (axis == "tid_in_wg")
    return "a warpgroup has " + out + " threads";
  assert((axis == "cbx" || axis == "cby" || axis == "cbz") &&
         "launchExtents holds thread and cluster axes only");
  return "the cluster has extent " + out + " on " + axis.str();
}
} // namespace

namespace {
/// Checks every buffer the kernel's ops use against the launch and
/// `target`'s axes (or the launch alone without a target), and adds each
/// alloc's footprint to `allocated`, per memory space.
LogicalResult checkKernelBuffers(KernelOp kernel,
                                 const TargetDescription *target,
                                 std::map<std::string, int64_t> &allocated) {
  std::map<std::string, int64_t> extents = launchExtents(kernel, target);
  llvm::DenseSet<Type> checked;

  // Where the layout reaches on an axis the target bounds but the launch
  // does not fix (P, TLane, TCol, Bank).
  auto checkTargetAxis = [&](Operation *owner, BufferType buffer,
                             llvm::StringRef axis, int64_t lo,
                             int64_t hi) -> LogicalResult {
    const TargetAxis *bound = target ? target->findAxis(axis) : nullptr;
    if (!bound || bound->extent == 0)
      return success();
    if (bound->cellBits == 0) {
      if (lo < 0 || hi >= bound->extent)
        return owner->emitOpError()
               << "places data on " << axis << " " << lo << ".." << hi
               << ", but " << target->name << "'s " << axis << " axis ("
               << bound->description << ") has extent " << bound->extent;
      return success();
    }
    int64_t cells = getCellsOn(buffer, *bound);
    if (lo < 0 || cells > bound->extent)
      return owner->emitOpError()
             << "places " << buffer.getElementBitWidth() << "-bit elements on "
             << axis << " " << lo << ".." << hi << ", which takes " << cells
             << " " << bound->cellBits << "-bit cells, but " << target->name
             << "'s " << axis << " axis (" << bound->description << ") has "
             << bound->extent;
    return success();
  };

  auto checkBuffer = [&](Operation *owner, Type type) -> LogicalResult {
    auto buffer = dyn_cast<BufferType>(type);
    if (!buffer || !checked.insert(buffer).second)
      return success();
    llvm::StringRef space = stringifyMemorySpace(buffer.getMemorySpace());
    if (target && !target->hasMemorySpace(space))
      return owner->emitOpError()
             << "uses " << space << " memory, which " << target->name
             << " does not have (it has " << target->memorySpaceNames() << ")";
    // Where a `?` buffer lies is checked once axe-infer-layouts chose it.
    if (!buffer.hasLayout())
      return success();
    Layout layout = buffer.getLayout();
    Result<std::map<std::string, AxisReach>> reach = axisReach(layout);
    if (!reach)
      return owner->emitOpError() << reach.message();
    if (auto distinct = checkThreadAxesDistinct(layout.tile()); !distinct)
      return owner->emitOpError() << distinct.message();
    for (const std::string &axis : placementAxes(layout.tile())) {
      if (isDeviceAxis(axis))
        continue;
      if (target && !target->hasAxis(axis))
        return owner->emitOpError()
               << "places data on axis '" << axis << "', which " << target->name
               << " does not have (its axes: " << target->axisNames() << ")";
      auto [lo, hi] = (*reach)[axis];
      auto extent = extents.find(axis);
      if (extent == extents.end()) {
        if (failed(checkTargetAxis(owner, buffer, axis, lo, hi)))
          return failure();
        continue;
      }
      if (lo < 0 || hi >= extent->second)
        return owner->emitOpError()
               << "places data on " << axis << " " << lo << ".." << hi
               << ", but " << launchDescription(kernel, axis, extent->second);
    }
    // A banked layout addresses each bank on its free axis: it must not run
    // into the next bank.
    std::optional<PartitionAxes> axes =
        getPartitionAxes(buffer.getMemorySpace());
    const TargetMemorySpace *capacity =
        target ? target->findMemorySpace(space) : nullptr;
    if (axes && !axes->bank.empty() && capacity && capacity->banks > 0 &&
        reach->count(axes->bank.str())) {
      int64_t bytes = getFreeAxisBytes(buffer, *target);
      if (bytes > capacity->bytesPerBank())
        return owner->emitOpError()
               << "places " << bytes << " bytes on " << axes->free
               << " in each " << space << " bank, but a bank of "
               << target->name << " holds " << capacity->bytesPerBank()
               << " bytes per partition";
    }
    return success();
  };

  WalkResult result = kernel.getBody().walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(checkBuffer(op, arg.getType())))
            return WalkResult::interrupt();
    // Operands too: buffers may come from outside the kernel (function
    // arguments).
    for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (failed(checkBuffer(op, value.getType())))
        return WalkResult::interrupt();
    if (auto alloc = dyn_cast<AllocOp>(op);
        alloc && target && alloc.getType().hasLayout()) {
      BufferType type = alloc.getType();
      int64_t &total =
          allocated[stringifyMemorySpace(type.getMemorySpace()).str()];
      if (addOverflows(total, getFootprintBytes(type, *target), total))
        total = INT64_MAX;
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
} // namespace

LogicalResult axe::verifyKernelBuffersFor(KernelOp kernel,
                                          const TargetDescription &target) {
  std::map<std::string, int64_t> allocated;
  return checkKernelBuffers(kernel, &target, allocated);
}

LogicalResult KernelOp::verifyRegions() {
  const TargetDescription *target = getTargetDescription(*this);
  // Bytes each memory space's allocations take, in the unit the target
  // counts its capacity in (getFootprintBytes). Every alloc counts once: one
  // in a loop body is one buffer however often the loop runs.
  std::map<std::string, int64_t> allocated;
  if (failed(checkKernelBuffers(*this, target, allocated)))
    return failure();
  if (!target)
    return success();
  for (const TargetMemorySpace &space : target->memorySpaces) {
    auto it = allocated.find(space.name.str());
    int64_t limit = space.bytesPerPartition();
    if (it == allocated.end() || limit == 0 || it->second <= limit)
      continue;
    auto diag = emitOpError() << "allocates " << it->second << " bytes of "
                              << space.name << " memory";
    std::optional<MemorySpace> kind = symbolizeMemorySpace(space.name);
    std::optional<PartitionAxes> axes =
        kind ? getPartitionAxes(*kind) : std::nullopt;
    if (axes && space.isPartitioned())
      diag << " in each of its " << space.partitions << " partitions ("
           << axes->partition << ")";
    return diag << "; " << target->name << " allows " << limit << " per "
                << space.capacityUnit();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp, PartitionOp
//===----------------------------------------------------------------------===//

LogicalResult WarpSpecializeOp::verifyRegions() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!kernel)
    return emitOpError() << "must be inside an axe.kernel";
  const TargetDescription *target = getTargetDescription(*this);
  if (target && !target->hasWarps())
    return emitOpError() << target->name << " has no warps to specialize";
  int64_t warpSize = target ? target->warpSize : kWarpSize;
  int64_t numWarps = kernel.getThreads() / warpSize;

  llvm::SmallVector<PartitionOp> partitions;
  for (Operation &op : getBody().front()) {
    auto partition = dyn_cast<PartitionOp>(op);
    if (!partition)
      return emitOpError() << "holds only axe.partition ops, found '"
                           << op.getName() << "'";
    partitions.push_back(partition);
  }
  if (partitions.empty())
    return emitOpError() << "needs at least one axe.partition";
  llvm::sort(partitions, [](PartitionOp a, PartitionOp b) {
    return a.getWarpBegin() < b.getWarpBegin();
  });
  for (size_t i = 1; i < partitions.size(); ++i) {
    PartitionOp prev = partitions[i - 1], next = partitions[i];
    if (prev.getWarpEnd() > next.getWarpBegin())
      return next.emitOpError()
             << "warps [" << next.getWarpBegin() << ", " << next.getWarpEnd()
             << ") overlap the partition warps [" << prev.getWarpBegin() << ", "
             << prev.getWarpEnd() << ")";
  }
  // setmaxnreg hands registers between warpgroups of one SM's 64K file.
  int64_t registers = 0;
  for (PartitionOp p : partitions)
    if (std::optional<uint64_t> n = p.getRegisters())
      registers += int64_t(*n) * p.getNumWarps() * warpSize;
  if (registers > 65536)
    return emitOpError() << "partitions claim " << registers
                         << " registers; an SM has 65536";
  PartitionOp last = partitions.back();
  if (static_cast<int64_t>(last.getWarpEnd()) > numWarps)
    return last.emitOpError()
           << "warps [" << last.getWarpBegin() << ", " << last.getWarpEnd()
           << ") reach beyond the " << numWarps << " warps of the kernel's "
           << kernel.getThreads() << "-thread CTA";
  return success();
}

LogicalResult PartitionOp::verify() {
  if (getWarpBegin() >= getWarpEnd())
    return emitOpError() << "warp range [" << getWarpBegin() << ", "
                         << getWarpEnd() << ") is empty";
  if (std::optional<uint64_t> n = getRegisters()) {
    if (*n < 24 || *n > 256 || *n % 8 != 0)
      return emitOpError() << "registers " << *n
                           << ": setmaxnreg takes a multiple of 8 from 24 "
                              "to 256";
    if (getWarpBegin() % 4 != 0 || getNumWarps() % 4 != 0)
      return emitOpError() << "registers are set per warpgroup; warps ["
                           << getWarpBegin() << ", " << getWarpEnd()
                           << ") are not whole aligned warpgroups";
  }
  return success();
}
