//===- DecodeMemory.cpp - Decoding memref and llvm pointer ops ------------===//
//
// Loads and stores through memrefs, kernel-owned buffers (allocas, shared
// memref.globals, dynamic shared memory, mbarrier groups aside), views and
// memref metadata; the llvm dialect's pointer casts, geps, loads, stores
// and struct values.
//
//===----------------------------------------------------------------------===//

#include "DecodeInternal.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace axe::gpusim;
using namespace axe::gpusim::decode;

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

FailureOr<BufferDecl> Decoder::staticBuffer(MemRefType t, Operation *where) {
  BufferDecl d;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!t.hasStaticShape() || failed(t.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) ||
      ShapedType::isDynamic(offset))
    return where->emitError("axe-gpu-run: a kernel-owned buffer needs a "
                            "static shape and layout, not ")
           << t;
  FailureOr<ElementInfo> e = info(t.getElementType(), where);
  if (failed(e))
    return failure();
  d.rank = t.getRank();
  d.sizes.assign(t.getShape().begin(), t.getShape().end());
  d.strides.assign(strides.begin(), strides.end());
  d.offset = offset;
  int64_t extent = offset + 1;
  for (auto [s, st] : llvm::zip(d.sizes, d.strides))
    extent += (s - 1) * st;
  if (llvm::is_contained(d.sizes, 0))
    extent = 0;
  d.bytes = extent * storageBytes(e->kind, e->bits);
  return d;
}

/// memref.view's LLVM lowering moves the result's base pointer by the
/// shift and gives it offset 0; the interpreter keeps the base and adds
/// the shift to the offset. Loads and stores see the same bytes either
/// way; what reads the base back (extract_strided_metadata,
/// extract_aligned_pointer_as_index, reinterpret_cast) would not, so such
/// programs are refused rather than run differently.
LogicalResult Decoder::checkViewBaseUnused(memref::ViewOp view) {
  auto shift = getConstantIntValue(view.getByteShift());
  if (shift && *shift == 0)
    return success();
  SmallVector<Value> values{view.getResult()};
  while (!values.empty()) {
    Value v = values.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto cast = dyn_cast<memref::CastOp>(user)) {
        values.push_back(cast.getResult());
        continue;
      }
      if (isa<memref::ExtractStridedMetadataOp,
              memref::ExtractAlignedPointerAsIndexOp,
              memref::ReinterpretCastOp>(user))
        return user->emitError("axe-gpu-run: '")
               << user->getName()
               << "' reads the base of a memref.view at a nonzero byte "
                  "shift; the interpreter models such views as an offset "
                  "into their source, not as a moved base pointer";
    }
  }
  return success();
}

void Decoder::spec(Inst &i, OpFoldResult r, Operation *op) {
  if (auto a = dyn_cast<Attribute>(r)) {
    i.imm.push_back(kStatic);
    i.imm.push_back(cast<IntegerAttr>(a).getInt());
    return;
  }
  i.imm.push_back(kDynamic);
  i.imm.push_back(i.in.size());
  i.in.push_back(in(cast<Value>(r)));
}

LogicalResult Decoder::view(Operation *o) {
  Value src = o->getOperand(0);
  auto srcType = cast<MemRefType>(src.getType());
  FailureOr<Slot> s = define(o->getResult(0), o);
  if (failed(s))
    return failure();
  auto resType = cast<MemRefType>(o->getResult(0).getType());
  FailureOr<ElementInfo> el = info(resType.getElementType(), o);
  if (failed(el))
    return failure();
  Inst &i = emit(Opc::View, o);
  i.in = {in(src)};
  i.out = {s->base};
  i.kind = el->kind;
  i.bits = el->bits;
  i.bits2 = srcType.getRank(); // source rank
  i.n = resType.getRank();     // result rank
  if (isa<memref::CastOp, memref::MemorySpaceCastOp, memref::AssumeAlignmentOp>(
          o)) {
    i.sub = uint8_t(ViewOp::Copy);
    return success();
  }
  if (auto r = dyn_cast<memref::ReinterpretCastOp>(o)) {
    i.sub = uint8_t(ViewOp::Reinterpret);
    spec(i, r.getMixedOffsets()[0], o);
    for (OpFoldResult f : r.getMixedSizes())
      spec(i, f, o);
    for (OpFoldResult f : r.getMixedStrides())
      spec(i, f, o);
    return success();
  }
  if (auto sv = dyn_cast<memref::SubViewOp>(o)) {
    i.sub = uint8_t(ViewOp::Subview);
    for (OpFoldResult f : sv.getMixedOffsets())
      spec(i, f, o);
    for (OpFoldResult f : sv.getMixedSizes())
      spec(i, f, o);
    for (OpFoldResult f : sv.getMixedStrides())
      spec(i, f, o);
    llvm::SmallBitVector dropped = sv.getDroppedDims();
    for (unsigned d = 0; d < srcType.getRank(); ++d)
      i.imm2.push_back(dropped.test(d));
    return success();
  }
  if (auto c = dyn_cast<memref::CollapseShapeOp>(o)) {
    i.sub = uint8_t(ViewOp::Collapse);
    for (ReassociationIndices g : c.getReassociationIndices())
      i.imm2.push_back(g.size());
    return success();
  }
  if (auto e = dyn_cast<memref::ExpandShapeOp>(o)) {
    i.sub = uint8_t(ViewOp::Expand);
    for (ReassociationIndices g : e.getReassociationIndices())
      i.imm2.push_back(g.size());
    for (OpFoldResult f : e.getMixedOutputShape())
      spec(i, f, o);
    return success();
  }
  if (auto v = dyn_cast<memref::ViewOp>(o)) {
    if (failed(checkViewBaseUnused(v)))
      return failure();
    i.sub = uint8_t(ViewOp::ByteView);
    i.in.push_back(in(v.getByteShift()));
    unsigned dyn = 0;
    for (int64_t d : resType.getShape()) {
      if (ShapedType::isDynamic(d)) {
        i.imm.push_back(kDynamic);
        i.imm.push_back(i.in.size());
        i.in.push_back(in(v.getSizes()[dyn++]));
      } else {
        i.imm.push_back(kStatic);
        i.imm.push_back(d);
      }
    }
    return success();
  }
  return unsupported(o);
}

FailureOr<int64_t> Decoder::sharedBuffer(memref::GetGlobalOp g) {
  auto module = g->getParentOfType<gpu::GPUModuleOp>();
  auto global =
      module ? module.lookupSymbol<memref::GlobalOp>(g.getName()) : nullptr;
  if (!global)
    return g.emitError("axe-gpu-run: no memref.global @")
           << g.getName() << " in the gpu.module";
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
      global.getType().getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return g.emitError("axe-gpu-run: only memref.globals in workgroup memory "
                       "are modelled");
  for (auto [k, entry] : llvm::enumerate(p.shared))
    if (entry.first == -1 && entry.second.name == g.getName())
      return int64_t(k);
  FailureOr<BufferDecl> d = staticBuffer(global.getType(), g);
  if (failed(d))
    return failure();
  d->name = g.getName().str();
  p.shared.push_back({-1, *d});
  return int64_t(p.shared.size() - 1);
}

/// A load (isLoad) or store of `valueType` through `memref` at `indices`;
/// `alignment` is what a vector access declares (0: none).
LogicalResult Decoder::memrefAccess(Operation *o, Value memref,
                                    ValueRange indices, Value stored,
                                    Type valueType, bool isLoad,
                                    uint64_t alignment) {
  auto mt = cast<MemRefType>(memref.getType());
  FailureOr<ElementInfo> el = info(mt.getElementType(), o);
  FailureOr<ElementInfo> v = info(valueType, o);
  if (failed(el) || failed(v))
    return failure();
  if (isa<VectorType>(mt.getElementType()))
    return o->emitError("axe-gpu-run: memrefs of vectors are not modelled");
  SmallVector<int64_t> vshape = shapeOf(valueType);
  if (int64_t(vshape.size()) > mt.getRank())
    return o->emitError("axe-gpu-run: a vector of higher rank than the "
                        "memref");
  FailureOr<uint32_t> out = loadSlot(isLoad ? o->getResult(0) : Value(), o);
  if (failed(out))
    return failure();
  Inst &i = emit(isLoad ? Opc::Load : Opc::Store, o);
  i.kind = el->kind;
  i.bits = el->bits;
  i.n = v->n;
  i.in.push_back(in(memref));
  for (Value x : indices)
    i.in.push_back(in(x));
  if (!isLoad)
    i.in.push_back(in(stored));
  else
    i.out = {*out};
  i.imm.push_back(mt.getRank());
  // The alignment a vector access declares (0: none), checked when it
  // runs: a GPU faults on a misaligned wide access.
  i.imm.push_back(int64_t(alignment));
  // The vector's shape spans the memref's trailing dims.
  i.imm2.assign(vshape.begin(), vshape.end());
  return success();
}

LogicalResult Decoder::memoryOp(Operation *o) {
  if (auto l = dyn_cast<memref::LoadOp>(o))
    return memrefAccess(o, l.getMemRef(), l.getIndices(), {}, l.getType(), true,
                        0);
  if (auto s = dyn_cast<memref::StoreOp>(o))
    return memrefAccess(o, s.getMemRef(), s.getIndices(), s.getValueToStore(),
                        s.getValueToStore().getType(), false, 0);
  if (auto l = dyn_cast<vector::LoadOp>(o))
    return memrefAccess(o, l.getBase(), l.getIndices(), {}, l.getType(), true,
                        l.getAlignment().value_or(0));
  if (auto s = dyn_cast<vector::StoreOp>(o))
    return memrefAccess(o, s.getBase(), s.getIndices(), s.getValueToStore(),
                        s.getValueToStore().getType(), false,
                        s.getAlignment().value_or(0));
  if (auto a = dyn_cast<memref::AllocaOp>(o)) {
    FailureOr<BufferDecl> d = staticBuffer(a.getType(), o);
    FailureOr<Slot> s = define(a.getResult(), o);
    if (failed(d) || failed(s))
      return failure();
    p.allocas.push_back(*d);
    Inst &i = emit(Opc::Alloca, o);
    i.sub = 0;
    i.out = {s->base};
    i.imm = {int64_t(p.allocas.size() - 1)};
    return success();
  }
  if (auto g = dyn_cast<memref::GetGlobalOp>(o)) {
    FailureOr<int64_t> k = sharedBuffer(g);
    FailureOr<Slot> s = define(g.getResult(), o);
    if (failed(k) || failed(s))
      return failure();
    Inst &i = emit(Opc::Alloca, o);
    i.sub = 1;
    i.out = {s->base};
    i.imm = {*k};
    return success();
  }
  if (auto d = dyn_cast<memref::DimOp>(o)) {
    if (failed(simple(o, Opc::Dim, 0)))
      return failure();
    p.code.back().imm = {cast<MemRefType>(d.getSource().getType()).getRank()};
    return success();
  }
  if (isa<memref::ExtractAlignedPointerAsIndexOp>(o))
    return simple(o, Opc::ExtractPtr, 0);
  if (auto m = dyn_cast<memref::ExtractStridedMetadataOp>(o)) {
    // Results: the base buffer (rank 0, offset 0), then offset, sizes and
    // strides as indices; imm holds the source rank.
    if (failed(simple(o, Opc::ExtractMeta, 0)))
      return failure();
    p.code.back().imm = {cast<MemRefType>(m.getSource().getType()).getRank()};
    return success();
  }
  if (auto d = dyn_cast<gpu::DynamicSharedMemoryOp>(o)) {
    FailureOr<Slot> s = define(d.getResult(), o);
    if (failed(s))
      return failure();
    p.usesDynamicShared = true;
    Inst &i = emit(Opc::Alloca, o);
    i.sub = 2;
    i.out = {s->base};
    return success();
  }
  return view(o);
}

//===----------------------------------------------------------------------===//
// llvm ops
//===----------------------------------------------------------------------===//

/// The MemOrder of an LLVM atomic ordering (seq_cst is at least acq_rel).
static std::optional<MemOrder> memOrder(LLVM::AtomicOrdering o) {
  switch (o) {
  case LLVM::AtomicOrdering::monotonic:
  case LLVM::AtomicOrdering::unordered:
    return MemOrder::Relaxed;
  case LLVM::AtomicOrdering::acquire:
    return MemOrder::Acquire;
  case LLVM::AtomicOrdering::release:
    return MemOrder::Release;
  case LLVM::AtomicOrdering::acq_rel:
  case LLVM::AtomicOrdering::seq_cst:
    return MemOrder::AcqRel;
  default:
    return std::nullopt;
  }
}

/// A syncscope at least as wide as the GPU: "" (system), "device". A
/// narrower one ("block", "cluster") does not order other CTAs' accesses.
static bool gpuWideScope(std::optional<StringRef> scope) {
  return !scope || scope->empty() || *scope == "device";
}

/// llvm.atomicrmw add of an integer, and llvm.fence.
LogicalResult Decoder::llvmAtomic(Operation *o) {
  if (auto fence = dyn_cast<LLVM::FenceOp>(o)) {
    std::optional<MemOrder> order = memOrder(fence.getOrdering());
    if (!order || *order == MemOrder::Relaxed)
      return o->emitError("axe-gpu-run: llvm.fence needs acquire, release, "
                          "acq_rel or seq_cst");
    // A fence narrower than the GPU orders nothing between CTAs.
    Inst &i = emit(gpuWideScope(fence.getSyncscope()) ? Opc::Fence : Opc::Nop,
                   o);
    i.sub = uint8_t(*order == MemOrder::Acquire   ? FenceKind::Acquire
                    : *order == MemOrder::Release ? FenceKind::Release
                                                  : FenceKind::AcqRel);
    return success();
  }
  auto rmw = cast<LLVM::AtomicRMWOp>(o);
  if (rmw.getBinOp() != LLVM::AtomicBinOp::add)
    return o->emitError("axe-gpu-run: llvm.atomicrmw ")
           << LLVM::stringifyAtomicBinOp(rmw.getBinOp())
           << ": only integer add is supported";
  FailureOr<ElementInfo> e = info(rmw.getVal().getType(), o);
  if (failed(e))
    return failure();
  if (e->kind != Kind::Int || e->n != 1 || (e->bits != 32 && e->bits != 64))
    return o->emitError("axe-gpu-run: llvm.atomicrmw add of i32 or i64 only");
  std::optional<MemOrder> order = memOrder(rmw.getOrdering());
  if (!order)
    return o->emitError("axe-gpu-run: llvm.atomicrmw without an ordering");
  if (!gpuWideScope(rmw.getSyncscope()))
    order = MemOrder::Relaxed;
  FailureOr<Slot> out = define(rmw.getRes(), o);
  if (failed(out))
    return failure();
  Inst &i = emit(Opc::AtomicAdd, o);
  setType(i, *e);
  i.in = {in(rmw.getPtr()), in(rmw.getVal())};
  i.out = {out->base};
  i.imm = {addressSpace(rmw.getPtr().getType()), int64_t(*order)};
  return success();
}

LogicalResult Decoder::llvmOp(Operation *o) {
  if (isa<LLVM::AtomicRMWOp, LLVM::FenceOp>(o))
    return llvmAtomic(o);
  if (isa<LLVM::IntToPtrOp, LLVM::PtrToIntOp>(o)) {
    FailureOr<ElementInfo> src = info(o->getOperand(0).getType(), o);
    FailureOr<ElementInfo> dst = info(o->getResult(0).getType(), o);
    if (failed(src) || failed(dst))
      return failure();
    CastOp k = src->bits < dst->bits   ? CastOp::ExtU
               : src->bits > dst->bits ? CastOp::Trunc
                                       : CastOp::Bitcast;
    return simple(o, Opc::Cast, uint8_t(k));
  }
  if (auto g = dyn_cast<LLVM::GEPOp>(o)) {
    Type elt = g.getElemType();
    if (g.getIndices().size() != 1 || !(elt.isIntOrFloat()))
      return o->emitError("axe-gpu-run: llvm.getelementptr with one index "
                          "over a scalar type only");
    FailureOr<Slot> s = define(g.getResult(), o);
    FailureOr<ElementInfo> e = info(elt, o);
    if (failed(s) || failed(e))
      return failure();
    Inst &i = emit(Opc::Gep, o);
    i.in = {in(g.getBase())};
    i.out = {s->base};
    int64_t bytes = storageBytes(e->kind, e->bits);
    auto index = g.getIndices()[0];
    if (auto v = dyn_cast<Value>(index)) {
      i.in.push_back(in(v));
      i.bits2 = cast<IntegerType>(v.getType()).getWidth();
      i.imm = {bytes, 0};
    } else {
      i.imm = {bytes, cast<IntegerAttr>(cast<Attribute>(index)).getInt()};
    }
    return success();
  }
  if (isa<LLVM::LoadOp, LLVM::StoreOp>(o))
    return llvmLoadStore(o);
  if (isa<LLVM::UndefOp, LLVM::PoisonOp, LLVM::ZeroOp>(o)) {
    FailureOr<Slot> s = define(o->getResult(0), o);
    if (failed(s))
      return failure();
    Program::Const k{s->base, {}};
    k.words.assign(s->words, 0);
    p.consts.push_back(std::move(k));
    return success();
  }
  if (auto x = dyn_cast<LLVM::ExtractValueOp>(o)) {
    if (x.getPosition().size() != 1)
      return o->emitError("axe-gpu-run: nested llvm.extractvalue");
    int64_t at = x.getPosition()[0];
    return gather(o, {{0, at}});
  }
  if (auto x = dyn_cast<LLVM::InsertValueOp>(o)) {
    if (x.getPosition().size() != 1)
      return o->emitError("axe-gpu-run: nested llvm.insertvalue");
    int64_t at = x.getPosition()[0];
    FailureOr<ElementInfo> e = info(x.getType(), o);
    if (failed(e))
      return failure();
    SmallVector<std::pair<int64_t, int64_t>> map;
    for (int64_t k = 0; k < int64_t(e->n); ++k)
      map.push_back(k == at ? std::pair<int64_t, int64_t>{1, 0}
                            : std::pair<int64_t, int64_t>{0, k});
    // Operands: the container, then the value.
    return gather(o, map);
  }
  return unsupported(o);
}

LogicalResult Decoder::llvmLoadStore(Operation *o) {
  // imm: -1 (a raw address), the address space.
  bool isLoad = isa<LLVM::LoadOp>(o);
  Value addr = isLoad ? cast<LLVM::LoadOp>(o).getAddr()
                      : cast<LLVM::StoreOp>(o).getAddr();
  Value value = isLoad ? o->getResult(0) : cast<LLVM::StoreOp>(o).getValue();
  FailureOr<ElementInfo> e = info(value.getType(), o);
  if (failed(e) || e->kind == Kind::MemRef || e->kind == Kind::Token)
    return o->emitError("axe-gpu-run: llvm.load/store of scalars and "
                        "vectors only");
  FailureOr<uint32_t> out = loadSlot(isLoad ? value : Value(), o);
  if (failed(out))
    return failure();
  Inst &i = emit(isLoad ? Opc::Load : Opc::Store, o);
  setType(i, *e);
  i.in = {in(addr)};
  if (isLoad)
    i.out = {*out};
  else
    i.in.push_back(in(value));
  i.imm = {-1, addressSpace(addr.getType())};
  LLVM::AtomicOrdering ordering =
      isLoad ? cast<LLVM::LoadOp>(o).getOrdering()
             : cast<LLVM::StoreOp>(o).getOrdering();
  if (ordering != LLVM::AtomicOrdering::not_atomic) {
    if (!isLoad || e->n != 1)
      return o->emitError("axe-gpu-run: atomic llvm.load of a scalar is "
                          "supported; atomic stores and vectors are not");
    std::optional<MemOrder> order = memOrder(ordering);
    if (!gpuWideScope(cast<LLVM::LoadOp>(o).getSyncscope()))
      order = MemOrder::Relaxed;
    i.imm.push_back(int64_t(order.value_or(MemOrder::Relaxed)));
  }
  return success();
}
