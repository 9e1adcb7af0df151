//===- NVVMCodegen.cpp - Threads, buffers and operands on NVIDIA ----------===//

#include "NVVMCodegen.h"

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/Swizzle.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace axe::nvvm {

//===----------------------------------------------------------------------===//
// NVVMTargetCodegen
//===----------------------------------------------------------------------===//

/// The kernel whose body `b` inserts into, for its cluster shape.
static KernelOp enclosingKernel(OpBuilder &b) {
  Block *block = b.getInsertionBlock();
  if (!block)
    return {};
  Operation *parent = block->getParentOp();
  if (auto k = dyn_cast_or_null<KernelOp>(parent))
    return k;
  return parent ? parent->getParentOfType<KernelOp>() : KernelOp();
}

static gpu::Dimension dimension(unsigned dim) {
  return dim == 0   ? gpu::Dimension::x
         : dim == 1 ? gpu::Dimension::y
                    : gpu::Dimension::z;
}

Value NVVMTargetCodegen::axisValue(OpBuilder &b, Location loc,
                                   StringRef axis) const {
  const TargetAxis *a = description.findAxis(axis);
  if (!a || !a->isThreadAxis()) {
    emitError(loc) << "nvvm: axis '" << axis << "' of " << description.name
                   << " is not a thread or CTA axis (it has "
                   << description.axisNames() << ")";
    return {};
  }
  if (a->role == AxisRole::CTA) {
    if (a->scope != ExecutionScope::Cluster)
      return gpu::BlockIdOp::create(b, loc, dimension(a->dim));
    // Without clusters every CTA is alone in its own.
    if (!description.hasFeature("clusters"))
      return indexConstant(b, loc, 0);
    // The CTA's place in its cluster, as the hardware numbers it (read
    // from %cluster_ctaid, not derived from the kernel's cluster shape,
    // which is out of reach once the body has moved into the gpu.func).
    Type i32 = b.getI32Type();
    Value id =
        a->dim == 0   ? Value(NVVM::BlockInClusterIdXOp::create(b, loc, i32))
        : a->dim == 1 ? Value(NVVM::BlockInClusterIdYOp::create(b, loc, i32))
                      : Value(NVVM::BlockInClusterIdZOp::create(b, loc, i32));
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), id);
  }
  // Kernels launch one-dimensional CTAs, so a thread's place in its CTA is
  // thread_id x; every other thread axis is a mixed-radix digit of it.
  std::optional<AxisStep> step = description.stepOfAxis(axis);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value v = step->threadsPerStep == 1
                ? tid
                : arith::DivUIOp::create(
                      b, loc, tid, indexConstant(b, loc, step->threadsPerStep));
  if (step->wrap > 0)
    v = arith::RemUIOp::create(b, loc, v, indexConstant(b, loc, step->wrap));
  return v;
}

LogicalResult NVVMTargetCodegen::barrier(OpBuilder &b, Location loc,
                                         ScopeKind scope) const {
  switch (scope) {
  case ScopeKind::Thread:
    return success();
  case ScopeKind::Warp: {
    Value all = arith::ConstantIntOp::create(b, loc, -1, 32);
    NVVM::SyncWarpOp::create(b, loc, all);
    return success();
  }
  case ScopeKind::CTA:
    gpu::BarrierOp::create(b, loc);
    return success();
  case ScopeKind::Warpgroup: {
    if (!description.hasWarpgroups())
      return emitError(loc)
             << "nvvm: " << description.name << " has no warpgroups";
    // Named barrier 1 + wgid over the warpgroup's threads (barrier 0 is
    // the CTA's).
    Value wg = axisValue(b, loc, "wgid");
    Value id = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::AddIOp::create(b, loc, wg, indexConstant(b, loc, 1)));
    Value count =
        arith::ConstantIntOp::create(b, loc, description.warpgroupSize(), 32);
    NVVM::BarrierOp::create(b, loc, Type(), id, count,
                            NVVM::BarrierReductionAttr(), Value());
    return success();
  }
  case ScopeKind::Cluster:
    // barrier.cluster arrive + wait (release / acquire by default): orders
    // the cluster's accesses to distributed shared memory.
    if (!description.hasFeature("clusters"))
      return emitError(loc) << "nvvm: " << description.name
                            << " has no thread-block clusters (sm_90 and "
                               "later do)";
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
    return success();
  default:
    return emitError(loc) << "nvvm: no barrier at " << stringifyScopeKind(scope)
                          << " scope (the threads of a CTA or a cluster "
                             "synchronize in this backend, not a grid's)";
  }
}

/// The alignment in bytes of an access of `lanes` elements: its size.
/// The schedules that emit one proved its start a multiple of `lanes`
/// (SIMT's startsAligned), and memory bases are at least 16-byte aligned.
/// Without it LLVM assumes the element's alignment and splits the access.
static IntegerAttr vectorAlignment(OpBuilder &b, Type element, int64_t lanes) {
  return b.getI64IntegerAttr(lanes *
                             ((element.getIntOrFloatBitWidth() + 7) / 8));
}

Value NVVMTargetCodegen::load(OpBuilder &b, Location loc, Value memory,
                              Value address, Type elementType,
                              int64_t lanes) const {
  if (lanes == 1)
    return memref::LoadOp::create(b, loc, memory, address);
  auto load = vector::LoadOp::create(
      b, loc, VectorType::get({lanes}, elementType), memory, address);
  load.setAlignmentAttr(vectorAlignment(b, elementType, lanes));
  return load;
}

void NVVMTargetCodegen::store(OpBuilder &b, Location loc, Value value,
                              Value memory, Value address) const {
  auto vector = dyn_cast<VectorType>(value.getType());
  if (!vector) {
    memref::StoreOp::create(b, loc, value, memory, address);
    return;
  }
  auto store = vector::StoreOp::create(b, loc, value, memory, address);
  store.setAlignmentAttr(
      vectorAlignment(b, vector.getElementType(), vector.getNumElements()));
}

int64_t NVVMTargetCodegen::maxVectorBits(MemorySpace space) const {
  // ld/st.v4.b32 (and cp.async) move at most 16 bytes per thread.
  return space == MemorySpace::Reg ? 0 : 128;
}

void NVVMTargetCodegen::populateTypeConversions(
    TypeConverter &converter) const {
  converter.addConversion(
      [](BufferType type) -> Type { return getFlatMemRefType(type); });
}

//===----------------------------------------------------------------------===//
// Storage
//===----------------------------------------------------------------------===//

MemRefType getFlatMemRefType(BufferType type) {
  MLIRContext *ctx = type.getContext();
  Attribute space;
  if (type.getMemorySpace() == MemorySpace::Shared)
    space = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto layout = StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {1});
  return MemRefType::get({ShapedType::kDynamic}, type.getElementType(), layout,
                         space);
}

Result<FlatStorage> getFlatStorage(BufferType rootType) {
  auto reach = axisReach(rootType.getLayout());
  if (!reach)
    return reach.takeFailure();
  auto m = reach->find(std::string(kDefaultAxis));
  if (m == reach->end())
    return FlatStorage{0, 1};
  return FlatStorage{m->second.lo, m->second.hi - m->second.lo + 1};
}

SmallVector<HoldingGroup> groupsHolding(const TargetDescription &target,
                                        const InstanceView &view,
                                        ArrayRef<std::string> axes,
                                        int64_t groupThreads, int64_t threads) {
  SmallVector<HoldingGroup> groups;
  for (int64_t first = 0; first < threads; first += groupThreads) {
    Coord c;
    for (const std::string &a : axes)
      c.set(a, threadAxisValue(target, a, first));
    if (std::optional<Shape> base = view.instanceBase(c))
      groups.push_back({c, *base});
  }
  return groups;
}

//===----------------------------------------------------------------------===//
// GPUOperand
//===----------------------------------------------------------------------===//

Value byteAddress(OpBuilder &b, Location loc, const GPUOperand &operand,
                  Value index) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, operand.memory);
  Value base =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand.memory);
  Value element = arith::AddIOp::create(b, loc, meta.getOffset(), index);
  int64_t bytes = (operand.elementType().getIntOrFloatBitWidth() + 7) / 8;
  return addIndex(b, loc, base, mulIndex(b, loc, element, bytes));
}

/// The shared::cluster address of the element at `placement` of a buffer in
/// distributed shared memory: its shared::cta address in this CTA, mapped
/// by mapa to the CTA of the cluster its cluster coordinates name (x
/// fastest, as %cluster_ctarank counts).
static Value clusterPointer(OpBuilder &b, Location loc, const GPUOperand &op,
                            const CoordValue &placement) {
  MLIRContext *ctx = b.getContext();
  Value rank = indexConstant(b, loc, 0);
  for (const auto &[axis, stride] : op.peerAxes)
    rank = addIndex(b, loc, rank,
                    mulIndex(b, loc, placement.get(b, loc, axis), stride));
  Value address = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      byteAddress(b, loc, op, op.address(b, loc, placement)));
  Value local = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 3), address);
  return NVVM::MapaOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 7), local,
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), rank));
}

Value NVVMTargetCodegen::loadAt(OpBuilder &b, Location loc,
                                const ElementOperand &operand,
                                const CoordValue &placement,
                                int64_t lanes) const {
  if (!operand.isDistributed())
    return ThreadTargetCodegen::loadAt(b, loc, operand, placement, lanes);
  assert(lanes == 1 && "distributed shared memory is accessed by element");
  return LLVM::LoadOp::create(b, loc, operand.elementType(),
                              clusterPointer(b, loc, operand, placement));
}

void NVVMTargetCodegen::storeAt(OpBuilder &b, Location loc,
                                const ElementOperand &operand,
                                const CoordValue &placement,
                                Value value) const {
  if (!operand.isDistributed()) {
    ThreadTargetCodegen::storeAt(b, loc, operand, placement, value);
    return;
  }
  assert(!isa<VectorType>(value.getType()) &&
         "distributed shared memory is accessed by element");
  LLVM::StoreOp::create(b, loc, value,
                        clusterPointer(b, loc, operand, placement));
}

Result<int64_t> tmemColumns(BufferType type) {
  auto reach = axisReach(type.getLayout());
  if (!reach)
    return reach.takeFailure();
  int64_t lanes = 1, cells = 1;
  for (const auto &[axis, r] : *reach) {
    if (r.lo < 0)
      return fail("the tmem buffer reaches below 0 on '" + axis + "'");
    if (axis == "TLane")
      lanes = r.hi + 1;
    else if (axis == "TCol")
      cells = r.hi + 1;
    else if (axis != kDefaultAxis || r.hi != 0)
      return fail("a tmem buffer lives on TLane and TCol; its layout uses '" +
                  axis + "'");
  }
  if (lanes > 128)
    return fail("the tmem buffer reaches lane " + std::to_string(lanes - 1) +
                "; TMEM has 128");
  // TCol counts elements; a 32-bit cell holds 32 / bits of them.
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  return (cells * bits + 31) / 32;
}

Value tmemAddressOf(OpBuilder &b, Location loc, Value root) {
  return UnrealizedConversionCastOp::create(b, loc, b.getI32Type(), root)
      .getResult(0);
}

bool isTmemCast(Operation *op) {
  auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
  if (!cast || cast->getNumOperands() != 1 || cast->getNumResults() != 1)
    return false;
  auto type = dyn_cast<BufferType>(cast->getOperand(0).getType());
  return type && type.getMemorySpace() == MemorySpace::TMem &&
         cast->getResult(0).getType().isInteger(32);
}

Result<bool> checkGPUOperand(Value buffer) {
  auto chain = walkBufferChain(buffer);
  if (!chain)
    return fail("the buffer is not an axe.alloc or axe.view (or a slice of "
                "one), so the nvvm target cannot find its memory");
  auto type = cast<BufferType>(chain->root->getResult(0).getType());
  switch (type.getMemorySpace()) {
  case MemorySpace::Global:
  case MemorySpace::Shared:
  case MemorySpace::Reg:
    break;
  case MemorySpace::TMem:
    return fail("tensor memory is read and written by the tcgen05 "
                "schedules only (tcgen05, tcgen05.ld, tcgen05.st)");
  default:
    return fail("memory space '" +
                stringifyMemorySpace(type.getMemorySpace()).str() +
                "' has no nvvm lowering yet (global, shared and reg do)");
  }
  for (const std::string &axis : type.getLayout().tile().axes()) {
    const TargetAxis *a = findAxisOnAnyTarget(axis);
    if (!a || a->isMemory())
      continue;
    bool cluster =
        a->role == AxisRole::CTA && a->scope == ExecutionScope::Cluster;
    if (cluster && type.getMemorySpace() != MemorySpace::Shared)
      return fail("the buffer's layout places data on '" + axis +
                  "' (the CTAs of a cluster); only shared memory is "
                  "distributed over a cluster");
    if (cluster)
      continue;
    if (a->role == AxisRole::CTA || a->role == AxisRole::Device)
      return fail("the buffer's layout places data on '" + axis +
                  "' (other CTAs of the grid, or devices); only a "
                  "cluster's CTAs (cbx, cby, cbz) share memory, and device "
                  "meshes have no nvvm lowering");
  }
  if (auto storage = getFlatStorage(type); !storage)
    return storage.takeFailure();
  return true;
}

Result<GPUOperand> getGPUOperand(OpBuilder &b, Location loc, Value buffer,
                                 const ThreadTargetCodegen &cg) {
  if (auto ok = checkGPUOperand(buffer); !ok)
    return ok.takeFailure();
  auto ref = resolveBuffer(b, loc, buffer);
  if (!ref)
    return ref.takeFailure();
  GPUOperand op;
  op.ref = *ref;
  auto rootType = cast<BufferType>(ref->root->getResult(0).getType());
  op.space = rootType.getMemorySpace();
  FlatStorage flat = *getFlatStorage(rootType);
  op.storage = StoragePlan::onlyM(flat.lo, flat.size);
  op.codegen = &cg;
  op.memory = UnrealizedConversionCastOp::create(
                  b, loc, getFlatMemRefType(rootType), ref->root->getResult(0))
                  .getResult(0);
  auto emitter = LayoutEmitter::get(ref->layout, ref->shape);
  if (!emitter)
    return emitter.takeFailure();
  op.emitter = std::move(*emitter);
  if (op.space == MemorySpace::Shared) {
    KernelOp kernel = enclosingKernel(b);
    // Only the cluster axes the root places data on (as the verifier counts
    // them) distribute it; a buffer that merely mentions one, as in
    // R[n : 0@cbx], is each CTA's own.
    SmallVector<std::string, 4> placed =
        placementAxes(rootType.getLayout().tile());
    for (const std::string &axis : op.layout().tile().axes()) {
      const TargetAxis *a = findAxisOnAnyTarget(axis);
      if (!a || a->role != AxisRole::CTA ||
          a->scope != ExecutionScope::Cluster ||
          !llvm::is_contained(placed, axis))
        continue;
      // A CTA's rank in its cluster counts x fastest.
      int64_t stride = 1;
      for (unsigned d = 0; kernel && kernel.getCluster() && d < a->dim &&
                           d < kernel.getCluster()->size();
           ++d)
        stride *= (*kernel.getCluster())[d];
      op.peerAxes.push_back({axis, stride});
    }
  }
  return op;
}

} // namespace axe::nvvm
