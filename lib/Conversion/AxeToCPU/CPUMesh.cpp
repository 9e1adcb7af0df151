//===- CPUMesh.cpp - Operators at mesh scope as MPI collectives -----------===//
//
// On the CPU a device of a mesh is a process. An axe.copy or axe.reduce at
// mesh scope moves data between the processes' local buffers; the collective
// planner (axe/Layout/Collective.h) turns the operands' layouts into steps
// (reduce-scatter, all-gather, ...), and each step becomes one call
// axe_mpi_step(send, recv, descriptor) into lib/Runtime/MPI with a constant
// descriptor (axe/Support/MPIStepABI.h).
//
// Each process's buffer is an axe.view of its memref. The runtime sees that
// memory as the dense row-major array of the local shape, which is what the
// layout's memory iters must say; anything else is declined with the iter
// that differs.
//
// An axe.gemm at mesh scope is a local gemm per process followed by such a
// plan, from the local products (addends on the axes that split K) to C.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/BufferRef.h"
#include "axe/Codegen/Schedule.h"
#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/Algebra.h"
#include "axe/Layout/Axis.h"
#include "axe/Layout/Collective.h"
#include "axe/Layout/MeshStorage.h"
#include "axe/Layout/Strided.h"
#include "axe/Support/MPIStepABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace axe {
namespace {

constexpr StringLiteral kStepFunction = "axe_mpi_step";
constexpr StringLiteral kStartFunction = "axe_mpi_start";
constexpr StringLiteral kWaitFunction = "axe_mpi_wait_all";

int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

//===----------------------------------------------------------------------===//
// What the planner needs from the op
//===----------------------------------------------------------------------===//

/// A plan and the two local buffers it moves between.
struct MeshPlan {
  CollectivePlan plan;
  ViewOp source, target;
  Type elementType;
  MPIReduction reduction = MPIReduction::None;
  /// One descriptor per step, or one local copy when the plan has none.
  std::vector<std::vector<int64_t>> descriptors;
};

Result<Mesh> meshOf(ScopeAttr scope) {
  SmallVector<MeshAxis, 4> axes;
  for (auto [name, extent] :
       llvm::zip(scope.getMeshAxes(), scope.getMeshShape()))
    axes.push_back({name.str(), extent});
  return Mesh::create(axes);
}

/// The buffer operand must be an axe.view: its memref is this process's
/// local buffer.
Result<ViewOp> localView(Value buffer) {
  auto view = buffer.getDefiningOp<ViewOp>();
  if (!view)
    return fail("an operand of a mesh operator must be an axe.view of this "
                "process's memref (a slice or an axe.alloc has no memory the "
                "other processes can address)");
  auto type = cast<BufferType>(buffer.getType());
  if (type.getLayout().isSwizzled())
    return fail("a swizzled buffer cannot be sent as it is: copy it into a "
                "plain layout first");
  return view;
}

//===----------------------------------------------------------------------===//
// Step descriptors
//===----------------------------------------------------------------------===//

Result<MPIElementKind> elementKindOf(Type type) {
  if (type.isF32())
    return MPIElementKind::F32;
  if (type.isF64())
    return MPIElementKind::F64;
  if (auto i = dyn_cast<IntegerType>(type)) {
    switch (i.getWidth()) {
    case 8:
      return MPIElementKind::I8;
    case 16:
      return MPIElementKind::I16;
    case 32:
      return MPIElementKind::I32;
    case 64:
      return MPIElementKind::I64;
    default:
      break;
    }
  }
  return MPIElementKind::Bytes;
}

MPIStepKind stepKindOf(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::ReduceScatter:
    return MPIStepKind::ReduceScatter;
  case CollectiveKind::AllReduce:
    return MPIStepKind::AllReduce;
  case CollectiveKind::Reduce:
    return MPIStepKind::Reduce;
  case CollectiveKind::AllToAll:
    return MPIStepKind::AllToAll;
  case CollectiveKind::LocalSlice:
    return MPIStepKind::LocalSlice;
  case CollectiveKind::Permute:
    return MPIStepKind::Permute;
  case CollectiveKind::Scatter:
    return MPIStepKind::Scatter;
  case CollectiveKind::Gather:
    return MPIStepKind::Gather;
  case CollectiveKind::Broadcast:
    return MPIStepKind::Broadcast;
  case CollectiveKind::AllGather:
    return MPIStepKind::AllGather;
  case CollectiveKind::Exchange:
    break;
  }
  llvm_unreachable("the exchange has no MPI step");
}

/// The descriptor's holder list: the mesh axes outside `axes` on which
/// `before` sits at one coordinate. Ranks off it hold nothing, and neither
/// does any rank of their communicator (it spans only `axes`), so the
/// runtime skips the step there and their target memory stays untouched.
/// `kept` adds the axes of a local slice onto one device (no communication):
/// only the ranks at that coordinate keep, and write, anything.
void appendHolders(std::vector<int64_t> &d, const Distribution &before,
                   ArrayRef<unsigned> axes, const Distribution *kept = nullptr,
                   ArrayRef<unsigned> keptAxes = {}) {
  std::vector<int64_t> holders;
  for (auto [i, p] : llvm::enumerate(before.axes))
    if (p.kind == PlacementKind::Fixed && !llvm::is_contained(axes, i)) {
      holders.push_back(int64_t(i));
      holders.push_back(p.coordinate);
    }
  for (unsigned i : keptAxes) {
    holders.push_back(int64_t(i));
    holders.push_back(kept->axes[i].coordinate);
  }
  d.push_back(int64_t(holders.size()));
  d.insert(d.end(), holders.begin(), holders.end());
}

Result<std::vector<int64_t>> describeStep(const MeshPlan &mp,
                                          const CollectiveStep &step) {
  const Mesh &mesh = mp.plan.mesh;
  if (step.kind == CollectiveKind::Exchange)
    return fail("the plan needs a generic exchange (" + step.str() +
                "), which the MPI lowering does not implement; make each "
                "mesh axis shard one dim in blocks, replicate it, or hold "
                "the data on one device");
  for (const Distribution *d : {&step.before, &step.after})
    if (!d->balanced())
      return fail("step '" + step.str() + "' moves an unbalanced " +
                  "distribution (" + d->str(mesh) + ")");
  // A local slice onto one device along an axis is no slice there: the
  // ranks at that coordinate keep their whole buffer, the others skip the
  // step; the communicator keeps the axes that shard.
  SmallVector<unsigned, 2> axes, onOneDevice;
  for (const std::string &name : step.axes) {
    unsigned axis = *mesh.find(name);
    bool keeps = step.kind == CollectiveKind::LocalSlice &&
                 step.after.axes[axis].kind == PlacementKind::Fixed;
    (keeps ? onOneDevice : axes).push_back(axis);
  }

  std::vector<int64_t> noPack = {1, 1, 1, 0};
  std::vector<int64_t> sendPack = noPack, recvPack = noPack;
  auto assign = [&](std::vector<int64_t> &slot, const Distribution &full,
                    const Distribution &sharded) -> Result<bool> {
    auto p = digitPack(mesh, full, sharded, axes);
    if (!p)
      return p.takeFailure();
    slot = *p;
    return true;
  };
  Result<bool> ok = true;
  switch (step.kind) {
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::LocalSlice:
  case CollectiveKind::Scatter:
    ok = assign(sendPack, step.before, step.after);
    break;
  case CollectiveKind::AllGather:
  case CollectiveKind::Gather:
    ok = assign(recvPack, step.after, step.before);
    break;
  case CollectiveKind::AllToAll:
    ok = assign(sendPack, step.before, step.after);
    if (ok)
      ok = assign(recvPack, step.after, step.before);
    break;
  default:
    break;
  }
  if (!ok)
    return fail("step '" + step.str() + "': " + ok.message());

  bool reduces = step.kind == CollectiveKind::ReduceScatter ||
                 step.kind == CollectiveKind::AllReduce ||
                 step.kind == CollectiveKind::Reduce;
  auto element = *elementKindOf(mp.elementType);
  if (reduces && element == MPIElementKind::Bytes)
    return fail("MPI cannot reduce " + [&] {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << mp.elementType;
      return s;
    }() + " across processes; reduce in f32 or f64");

  std::vector<int64_t> d = {
      kMPIStepVersion, int64_t(stepKindOf(step.kind)), int64_t(element),
      mp.elementType.getIntOrFloatBitWidth() / 8,
      int64_t(reduces ? mp.reduction : MPIReduction::None)};
  d.push_back(mesh.axes().size());
  for (const MeshAxis &a : mesh.axes())
    d.push_back(a.extent);
  d.push_back(axes.size());
  for (unsigned a : axes)
    d.push_back(a);
  d.push_back(step.root);
  d.push_back(product(step.localBefore));
  d.push_back(product(step.localAfter));
  d.insert(d.end(), sendPack.begin(), sendPack.end());
  d.insert(d.end(), recvPack.begin(), recvPack.end());
  d.push_back(int64_t(step.transfers.size() * 2));
  for (const Transfer &t : step.transfers) {
    d.push_back(t.source);
    d.push_back(t.target);
  }
  // A permutation's targets hold nothing before it; its transfers already
  // leave every other rank alone.
  if (step.kind == CollectiveKind::Permute)
    d.push_back(0);
  else
    appendHolders(d, step.before, axes, &step.after, onOneDevice);
  return d;
}

/// A local copy of the whole shard: the step of a plan without
/// communication.
std::vector<int64_t> localCopy(const MeshPlan &mp) {
  int64_t count = product(mp.plan.source.localShape());
  std::vector<int64_t> d = {kMPIStepVersion, int64_t(MPIStepKind::LocalSlice),
                            int64_t(MPIElementKind::Bytes),
                            mp.elementType.getIntOrFloatBitWidth() / 8,
                            int64_t(MPIReduction::None)};
  d.push_back(mp.plan.mesh.axes().size());
  for (const MeshAxis &a : mp.plan.mesh.axes())
    d.push_back(a.extent);
  d.insert(d.end(), {0, 0, count, count, 1, count, 1, 0, 1, 1, 1, 0, 0});
  appendHolders(d, mp.plan.source, {});
  return d;
}

//===----------------------------------------------------------------------===//
// Match
//===----------------------------------------------------------------------===//

MPIReduction reductionOf(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return MPIReduction::Sum;
  case ReduceKind::Max:
    return MPIReduction::Max;
  case ReduceKind::Min:
    return MPIReduction::Min;
  case ReduceKind::Prod:
    return MPIReduction::Prod;
  }
  llvm_unreachable("unknown reduce kind");
}

/// What the MPI runtime needs of each process's shard of a buffer: the
/// same number of elements on every process that holds one, stored densely
/// and row-major. `role` names the buffer in the messages.
Result<bool> checkProcessShards(const Mesh &mesh, const Distribution &dist,
                                const TileLayout &layout,
                                ArrayRef<int64_t> shape, StringRef role) {
  if (!dist.balanced())
    return fail("the " + role.str() +
                " is not a balanced distribution over the mesh (" +
                dist.str(mesh) + ")");
  return checkDenseLocalStorage(mesh, layout, shape, dist, role);
}

/// One descriptor per step of the plan.
Result<bool> describeSteps(MeshPlan &mp) {
  for (const CollectiveStep &step : mp.plan.steps) {
    auto d = describeStep(mp, step);
    if (!d)
      return d.takeFailure();
    mp.descriptors.push_back(std::move(*d));
  }
  return true;
}

Result<MeshPlan> planMeshOp(Operation *op) {
  auto iface = cast<OperatorOpInterface>(op);
  ScopeAttr scope = iface.getScope();
  if (!scope.isMesh())
    return fail("not at mesh scope");
  if (op->getParentOfType<PartitionOp>())
    return fail("a mesh operator cannot run inside axe.partition");
  auto mesh = meshOf(scope);
  if (!mesh)
    return mesh.takeFailure();

  MeshPlan mp;
  Value src, dst;
  std::vector<std::string> partial;
  std::optional<ReduceKind> kind;
  ArrayRef<int64_t> reducedDims;
  if (auto copy = dyn_cast<CopyOp>(op)) {
    src = copy.getSource();
    dst = copy.getTarget();
  } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
    src = reduce.getSource();
    dst = reduce.getTarget();
    if (reduce.getAccumulate())
      return fail("a mesh reduce that accumulates into its target is not "
                  "implemented; reduce into a fresh buffer and add");
    kind = reduce.getKind();
    reducedDims = reduce.getDims();
  } else if (auto reduce = dyn_cast<ReduceAsyncOp>(op)) {
    src = reduce.getSource();
    dst = reduce.getTarget();
    kind = reduce.getKind();
    reducedDims = reduce.getDims();
  } else {
    return fail("only axe.copy, axe.reduce and axe.reduce_async run at mesh "
                "scope");
  }
  if (kind)
    mp.reduction = reductionOf(*kind);
  auto srcView = localView(src);
  if (!srcView)
    return srcView.takeFailure();
  auto dstView = localView(dst);
  if (!dstView)
    return dstView.takeFailure();
  mp.source = *srcView;
  mp.target = *dstView;

  auto srcType = cast<BufferType>(src.getType());
  auto dstType = cast<BufferType>(dst.getType());
  mp.elementType = srcType.getElementType();
  if (mp.elementType != dstType.getElementType())
    return fail("a mesh operator moves elements as they are; both buffers "
                "must have one element type");
  if (!mp.elementType.isIntOrFloat() ||
      mp.elementType.getIntOrFloatBitWidth() % 8 != 0)
    return fail("a mesh operator sends integers or floats of whole bytes; "
                "the buffers hold other elements");

  TileLayout srcLayout = srcType.getLayout().tile();
  SmallVector<int64_t, 4> srcShape(srcType.getShape());
  if (kind) {
    auto partialLayout = partialSource(*mesh, srcLayout, srcShape, reducedDims);
    if (!partialLayout)
      return partialLayout.takeFailure();
    srcLayout = partialLayout->first;
    partial = partialLayout->second;
    srcShape.assign(dstType.getShape().begin(), dstType.getShape().end());
  }
  TileLayout dstLayout = dstType.getLayout().tile();
  auto plan = planCollective(srcLayout, srcShape, dstLayout, dstType.getShape(),
                             *mesh, partial);
  if (!plan)
    return plan.takeFailure();
  mp.plan = std::move(*plan);
  if (auto ok = checkProcessShards(*mesh, mp.plan.source, srcLayout, srcShape,
                                   "source");
      !ok)
    return ok.takeFailure();
  if (auto ok = checkProcessShards(*mesh, mp.plan.destination, dstLayout,
                                   dstType.getShape(), "target");
      !ok)
    return ok.takeFailure();
  if (mp.plan.steps.empty())
    mp.descriptors.push_back(localCopy(mp));
  if (auto ok = describeSteps(mp); !ok)
    return ok.takeFailure();
  return mp;
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// The address of the first element of the view, as i64.
Value addressOf(OpBuilder &b, Location loc, ViewOp view, Type elementType) {
  Value memref = view.getSource();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value offset = meta.getOffset();
  for (auto [i, start] : llvm::enumerate(view.getMixedOffsets())) {
    Value s = getValueOrCreateConstantIndexOp(b, loc, start);
    offset = arith::AddIOp::create(
        b, loc, offset, arith::MulIOp::create(b, loc, s, meta.getStrides()[i]));
  }
  Value bytes = arith::ConstantIndexOp::create(
      b, loc, elementType.getIntOrFloatBitWidth() / 8);
  Value address = arith::AddIOp::create(
      b, loc, base, arith::MulIOp::create(b, loc, offset, bytes));
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), address);
}

Value addressOfMemRef(OpBuilder &b, Location loc, Value memref) {
  Value p = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), p);
}

/// The descriptor as a private constant global of the enclosing symbol
/// table, and its address.
Value emitDescriptor(OpBuilder &b, Location loc, Operation *op,
                     ArrayRef<int64_t> words) {
  Operation *tableOp = SymbolTable::getNearestSymbolTable(op);
  SymbolTable table(tableOp);
  auto type = MemRefType::get({int64_t(words.size())}, b.getI64Type());
  auto value = DenseElementsAttr::get(
      RankedTensorType::get(type.getShape(), b.getI64Type()), words);
  OpBuilder top(tableOp->getRegion(0));
  auto global = memref::GlobalOp::create(
      top, loc, "__axe_mpi_step", top.getStringAttr("private"), type, value,
      /*constant=*/true, /*alignment=*/nullptr);
  table.insert(global);
  Value ref = memref::GetGlobalOp::create(b, loc, type, global.getSymName());
  return addressOfMemRef(b, loc, ref);
}

/// The runtime function `name` taking `inputs` i64s, declared once per
/// symbol table.
func::FuncOp runtimeFunction(Operation *op, StringRef name, unsigned inputs) {
  Operation *tableOp = SymbolTable::getNearestSymbolTable(op);
  if (auto f = dyn_cast_or_null<func::FuncOp>(
          SymbolTable::lookupSymbolIn(tableOp, name)))
    return f;
  OpBuilder top(tableOp->getRegion(0));
  Builder b(op->getContext());
  SmallVector<Type> types(inputs, b.getI64Type());
  auto f = func::FuncOp::create(top, op->getLoc(), name,
                                b.getFunctionType(types, {}));
  f.setPrivate();
  return f;
}

/// Inside a kernel the operator runs once per process: on the CTA at the
/// origin of the grid (the CPU runs CTAs in order, so the others see its
/// result).
void guardFirstCTA(RewriterBase &rw, Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return;
  unsigned dims = kernel.getMixedGrid().size();
  if (dims == 0)
    return;
  Location loc = op->getLoc();
  Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
  Value first;
  for (unsigned d = 0; d < dims; ++d) {
    Value id = AxisIdOp::create(rw, loc, rw.getIndexType(),
                                TargetDescription::gridAxisName(d));
    Value isZero =
        arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, id, zero);
    first = first ? arith::AndIOp::create(rw, loc, first, isZero).getResult()
                  : isZero;
  }
  auto ifOp = scf::IfOp::create(rw, loc, first, /*withElseRegion=*/false);
  rw.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

/// An axe.reduce_async's token: every wait at mesh scope in the program
/// completes every collective the process has started (a stronger order
/// than the token's, and exact when one is in flight, as in a pipelined
/// loop), and the token becomes the CPU's placeholder. The token may be
/// returned or passed to another function before its wait, so the waits of
/// the whole program are found, not only those of the op's function.
void lowerMeshToken(ReduceAsyncOp op, RewriterBase &rw) {
  Operation *top = op;
  while (Operation *parent = top->getParentOp())
    top = parent;
  SmallVector<WaitOp> waits;
  top->walk([&](WaitOp w) {
    if (w.getScope().isMesh())
      waits.push_back(w);
  });
  for (WaitOp w : waits) {
    func::FuncOp wait = runtimeFunction(w, kWaitFunction, 0);
    Operation *before = w->getPrevNode();
    auto call = dyn_cast_or_null<func::CallOp>(before);
    if (call && call.getCallee() == kWaitFunction)
      continue;
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPoint(w);
    guardFirstCTA(rw, w);
    func::CallOp::create(rw, w.getLoc(), wait, ValueRange{});
  }
  replaceTokenWithPlaceholder(op.getToken(), rw);
}

/// The plan's steps, one runtime call each, at the insertion point.
void emitMeshSteps(Operation *op, const MeshPlan &mp, bool start,
                   RewriterBase &rw) {
  Location loc = op->getLoc();
  func::FuncOp step =
      runtimeFunction(op, start ? kStartFunction : kStepFunction, 3);
  Value first = addressOf(rw, loc, mp.source, mp.elementType);
  Value last = addressOf(rw, loc, mp.target, mp.elementType);
  Value send = first;
  SmallVector<Value> scratch;
  for (auto [i, words] : llvm::enumerate(mp.descriptors)) {
    Value recv = last;
    if (i + 1 < mp.descriptors.size()) {
      // An intermediate shard: this step's local buffer after.
      int64_t count = product(mp.plan.steps[i].localAfter);
      auto type = MemRefType::get({count}, mp.elementType);
      Value buf = memref::AllocOp::create(rw, loc, type);
      scratch.push_back(buf);
      recv = addressOfMemRef(rw, loc, buf);
    }
    Value desc = emitDescriptor(rw, loc, op, words);
    func::CallOp::create(rw, loc, step, ValueRange{send, recv, desc});
    send = recv;
  }
  for (Value buf : scratch)
    memref::DeallocOp::create(rw, loc, buf);
}

LogicalResult rewriteMeshOp(Operation *op, const MeshPlan &mp,
                            RewriterBase &rw) {
  auto async = dyn_cast<ReduceAsyncOp>(op);
  if (async)
    lowerMeshToken(async, rw);
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(op);
  guardFirstCTA(rw, op);
  // One step may stay in flight; the steps of a longer plan depend on each
  // other through scratch shards, so they run one after another.
  emitMeshSteps(op, mp, async && mp.descriptors.size() == 1, rw);
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// gemm at mesh scope
//===----------------------------------------------------------------------===//

/// A gemm at mesh scope: every process multiplies its shards of A and B
/// into a local product P, whose placement on each mesh axis follows from
/// the operands' (rows of A, columns of B, or an addend where both split
/// K), and the collective plan takes P to C's layout: a reduce-scatter when
/// C is split where K was, an all-reduce when C is replicated there.
struct MeshGemmPlan {
  /// P to C; its source is the scratch view the rewrite makes.
  MeshPlan collective;
  /// P is C's own shard: the local gemm writes C and nothing moves.
  bool direct = false;
  BufferType localA, localB, localC;
};

/// Where `dist` places the operand along mesh axis `axis`, for messages.
std::string placementOn(const Mesh &mesh, const Distribution &dist,
                        unsigned axis) {
  return "'" + mesh.axes()[axis].name + "' " + dist.axes[axis].str();
}

/// The dense row-major buffer of a process's shard of `type`.
BufferType localBufferType(BufferType type, ArrayRef<int64_t> localShape) {
  MLIRContext *ctx = type.getContext();
  return BufferType::get(localShape, type.getElementType(),
                         LayoutAttr::get(ctx, rowMajorLayout(localShape)),
                         MemorySpace::Global);
}

/// The iters of one dim of P: the operand's iters on device axes as they
/// are, its memory iters restrided to P's dense rows (`rowStride` apart).
void appendProductDim(const Mesh &mesh, ArrayRef<Iter> block, int64_t rowStride,
                      IterList &shard) {
  size_t first = shard.size();
  shard.append(block.begin(), block.end());
  int64_t place = rowStride;
  for (size_t i = shard.size(); i-- > first;) {
    Iter &it = shard[i];
    if (onDevices(mesh, it.axis))
      continue;
    it.axis = std::string(kDefaultAxis);
    it.stride = it.extent == 1 ? 0 : place;
    place *= it.extent;
  }
}

struct OperandShards {
  Distribution dist;
  GroupedLayout grouped;
};

Result<OperandShards> shardsOf(const Mesh &mesh, Value value, StringRef role) {
  auto type = cast<BufferType>(value.getType());
  TileLayout layout = type.getLayout().tile();
  auto dist = classify(layout, type.getShape(), mesh);
  if (!dist)
    return dist.takeFailure();
  if (auto ok = checkProcessShards(mesh, *dist, layout, type.getShape(), role);
      !ok)
    return ok.takeFailure();
  auto grouped = group(layout, type.getShape());
  if (!grouped)
    return grouped.takeFailure();
  return OperandShards{std::move(*dist), std::move(*grouped)};
}

Result<MeshGemmPlan> planMeshGemm(GemmOp op) {
  if (!op.getScope().isMesh())
    return fail("not at mesh scope");
  if (op->getParentOfType<PartitionOp>())
    return fail("a mesh operator cannot run inside axe.partition");
  auto mesh = meshOf(op.getScope());
  if (!mesh)
    return mesh.takeFailure();
  for (Value v : {op.getA(), op.getB(), op.getC()})
    if (auto view = localView(v); !view)
      return view.takeFailure();
  auto a = shardsOf(*mesh, op.getA(), "operand A");
  auto b = shardsOf(*mesh, op.getB(), "operand B");
  if (!a || !b)
    return !a ? a.takeFailure() : b.takeFailure();
  unsigned aM = op.getTransposeA() ? 1 : 0, aK = 1 - aM;
  unsigned bK = op.getTransposeB() ? 1 : 0, bN = 1 - bK;

  // P's placement, mesh axis by mesh axis.
  IterList replica;
  std::vector<std::string> partial;
  for (unsigned i = 0; i < mesh->axes().size(); ++i) {
    const AxisPlacement &pa = a->dist.axes[i], &pb = b->dist.axes[i];
    const MeshAxis &axis = mesh->axes()[i];
    // An axis of extent 1 has one device, which holds every operand whole
    // along it (its placement reads as on one device): nothing to match.
    if (axis.extent == 1)
      continue;
    bool aSharded = pa.kind == PlacementKind::Sharded;
    bool bSharded = pb.kind == PlacementKind::Sharded;
    bool aReplicated = pa.kind == PlacementKind::Replicated;
    bool bReplicated = pb.kind == PlacementKind::Replicated;
    if (aSharded && pa.dim == aK) {
      if (!bSharded || pb.dim != bK || pb.stride != pa.stride ||
          pb.extent != pa.extent)
        return fail("A splits K over " + placementOn(*mesh, a->dist, i) +
                    " but B does not split K the same way (" +
                    placementOn(*mesh, b->dist, i) +
                    "): each process must multiply matching parts of K");
      replica.push_back({axis.extent, 1, axis.name});
      partial.push_back(axis.name);
    } else if (aSharded && pa.dim == aM && bReplicated) {
      continue;
    } else if (bSharded && pb.dim == bN && aReplicated) {
      continue;
    } else if (aReplicated && bReplicated) {
      replica.push_back({axis.extent, 1, axis.name});
    } else {
      return fail("on mesh axis " + placementOn(*mesh, a->dist, i) +
                  " for A and " + b->dist.axes[i].str() +
                  " for B: a mesh gemm needs, per axis, K split the same way "
                  "in both, rows of A or columns of B split with the other "
                  "replicated, or both replicated");
    }
  }

  MeshGemmPlan gp;
  auto at = cast<BufferType>(op.getA().getType());
  auto bt = cast<BufferType>(op.getB().getType());
  auto ct = cast<BufferType>(op.getC().getType());
  Shape aLocal = a->dist.localShape(), bLocal = b->dist.localShape();
  SmallVector<int64_t, 2> pLocal = {aLocal[aM], bLocal[bN]};
  IterList shard;
  appendProductDim(*mesh, a->grouped.block(aM), pLocal[1], shard);
  appendProductDim(*mesh, b->grouped.block(bN), 1, shard);
  auto pLayout = TileLayout::create(shard, replica);
  if (!pLayout)
    return pLayout.takeFailure();

  MeshPlan &mp = gp.collective;
  mp.elementType = ct.getElementType();
  mp.reduction = MPIReduction::Sum;
  mp.target = op.getC().getDefiningOp<ViewOp>();
  auto plan = planCollective(*pLayout, ct.getShape(), ct.getLayout().tile(),
                             ct.getShape(), *mesh, partial);
  if (!plan)
    return fail("from the local products to C: " + plan.message());
  mp.plan = std::move(*plan);
  if (auto ok =
          checkProcessShards(*mesh, mp.plan.destination, ct.getLayout().tile(),
                             ct.getShape(), "accumulator C");
      !ok)
    return ok.takeFailure();
  gp.direct = mp.plan.steps.empty();
  if (!gp.direct && !op.getZeroInit()) {
    std::string steps;
    for (const CollectiveStep &step : mp.plan.steps)
      steps += (steps.empty() ? "" : "; ") + step.str();
    return fail("C is not laid out as the local products are (they reach it "
                "by " +
                steps +
                "), so the gemm cannot accumulate onto it; write zero_init "
                "and add the old C afterwards");
  }
  if (auto ok = describeSteps(mp); !ok)
    return ok.takeFailure();
  gp.localA = localBufferType(at, aLocal);
  gp.localB = localBufferType(bt, bLocal);
  gp.localC = localBufferType(ct, pLocal);
  return gp;
}

/// `view` again, as its process's dense shard of type `local`.
ViewOp localShardView(ViewOp view, BufferType local, RewriterBase &rw) {
  auto shard = cast<ViewOp>(rw.clone(*view));
  rw.modifyOpInPlace(shard, [&] { shard.getResult().setType(local); });
  return shard;
}

LogicalResult rewriteMeshGemm(GemmOp op, MeshGemmPlan gp, RewriterBase &rw) {
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPoint(op);
  guardFirstCTA(rw, op);
  auto viewOf = [](Value v) { return v.getDefiningOp<ViewOp>(); };
  ViewOp a = localShardView(viewOf(op.getA()), gp.localA, rw);
  ViewOp b = localShardView(viewOf(op.getB()), gp.localB, rw);
  Value scratch;
  ViewOp product;
  if (gp.direct) {
    product = localShardView(viewOf(op.getC()), gp.localC, rw);
  } else {
    auto type =
        MemRefType::get(gp.localC.getShape(), gp.localC.getElementType());
    scratch = memref::AllocOp::create(rw, loc, type);
    product = ViewOp::create(
        rw, loc, gp.localC, scratch, ValueRange{},
        rw.getDenseI64ArrayAttr(SmallVector<int64_t>(type.getRank(), 0)));
  }
  // Dispatch takes the local gemm like any other (cpu.gemm.*).
  UnitAttr zeroInit = gp.direct ? op.getZeroInitAttr() : rw.getUnitAttr();
  GemmOp::create(rw, loc, a, b, product, op.getTransposeAAttr(),
                 op.getTransposeBAttr(), zeroInit,
                 ScopeAttr::get(rw.getContext(), ScopeKind::CTA),
                 /*schedule=*/nullptr);
  if (!gp.direct) {
    gp.collective.source = product;
    emitMeshSteps(op, gp.collective, /*start=*/false, rw);
    memref::DeallocOp::create(rw, loc, scratch);
  }
  rw.eraseOp(op);
  return success();
}

void addMeshSchedule(ScheduleRegistry &r, StringRef opName) {
  (void)r.add(
      {"cpu.mesh", opName.str(), targetKind(TargetKind::CPU), 20,
       "a process per device: the collective plan of the two layouts, one "
       "MPI call per step (lib/Runtime/MPI), on dense row-major shards",
       [](Operation *op, const ScheduleContext &) {
         auto mp = planMeshOp(op);
         if (!mp)
           return ScheduleMatch::decline(mp.message());
         return ScheduleMatch::accept(std::move(*mp));
       },
       [](Operation *op, const ScheduleContext &, const std::any &plan,
          RewriterBase &rw) -> LogicalResult {
         const auto *mp = std::any_cast<MeshPlan>(&plan);
         if (!mp)
           return op->emitError("cpu.mesh rewrite without its match's plan");
         return rewriteMeshOp(op, *mp, rw);
       }});
}

void addMeshGemmSchedule(ScheduleRegistry &r) {
  (void)r.add(
      {"cpu.mesh.gemm", "axe.gemm", targetKind(TargetKind::CPU), 20,
       "a process per device: each multiplies its shards (a local gemm, "
       "dispatched in turn), then the collective plan from the local "
       "products to C (a reduce-scatter where K is split)",
       [](Operation *op, const ScheduleContext &) {
         auto gp = planMeshGemm(cast<GemmOp>(op));
         if (!gp)
           return ScheduleMatch::decline(gp.message());
         return ScheduleMatch::accept(std::move(*gp));
       },
       [](Operation *op, const ScheduleContext &, const std::any &plan,
          RewriterBase &rw) -> LogicalResult {
         const auto *gp = std::any_cast<MeshGemmPlan>(&plan);
         if (!gp)
           return op->emitError(
               "cpu.mesh.gemm rewrite without its match's plan");
         return rewriteMeshGemm(cast<GemmOp>(op), *gp, rw);
       },
       /*propose=*/nullptr,
       // The local gemm carries zero_init to the schedule that runs it.
       /*zeroInit=*/true});
}

} // namespace

void addCPUMeshSchedules(ScheduleRegistry &registry) {
  addMeshGemmSchedule(registry);
  addMeshSchedule(registry, "axe.copy");
  addMeshSchedule(registry, "axe.reduce");
  addMeshSchedule(registry, "axe.reduce_async");
}

} // namespace axe
