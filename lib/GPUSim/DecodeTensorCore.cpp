//===- DecodeTensorCore.cpp - Decoding sm_90 and sm_100 ops ---------------===//
//
// sm_90: TMA loads, wgmma and its fences and groups, clusters (barriers,
// mapa, shared::cluster address casts); sm_100: tcgen05 (tensor memory
// allocation, mma, commit, copies, loads and stores).
//
//===----------------------------------------------------------------------===//

#include "DecodeInternal.h"

#include "axe/GPUSim/Hopper.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace axe::gpusim;
using namespace axe::gpusim::decode;

//===----------------------------------------------------------------------===//
// sm_90: TMA and wgmma
//===----------------------------------------------------------------------===//

LogicalResult Decoder::hopperOp(Operation *o) {
  if (auto proxy = dyn_cast<NVVM::FenceProxyOp>(o);
      proxy && (proxy.getKind() == NVVM::ProxyKind::async ||
                proxy.getKind() == NVVM::ProxyKind::async_global)) {
    // Orders the thread's generic-proxy view of global memory with the
    // async proxy's (TMA): what the CTA acquired from other CTAs becomes
    // visible to its TMA loads.
    emit(Opc::Fence, o).sub = uint8_t(FenceKind::AsyncProxy);
    return success();
  }
  if (isa<nvgpu::TmaPrefetchOp, nvgpu::TmaFenceOp, NVVM::WgmmaFenceAlignedOp,
          NVVM::FenceMbarrierInitOp, NVVM::FenceProxyOp,
          NVVM::SetMaxRegisterOp>(o)) {
    // Ordering and resource hints: every access is immediately visible
    // and registers are not counted.
    emit(Opc::Nop, o);
    return success();
  }
  if (isa<nvgpu::TmaAsyncLoadOp>(o))
    return tmaLoad(o);
  if (isa<nvgpu::TmaAsyncStoreOp>(o))
    return o->emitError("axe-gpu-run: TMA stores (nvgpu.tma.async.store) "
                        "are not modelled yet");
  if (isa<NVVM::WgmmaGroupSyncAlignedOp>(o)) {
    emit(Opc::WgmmaCommit, o);
    return success();
  }
  if (auto w = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(o)) {
    emit(Opc::WgmmaWait, o).imm = {int64_t(w.getGroup())};
    return success();
  }
  return wgmma(o);
}

/// The bytes of a TMA swizzle pattern (0: none).
static constexpr EnumRow<nvgpu::TensorMapSwizzleKind, int64_t> kSwizzles[] = {
    {nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE, 0},
    {nvgpu::TensorMapSwizzleKind::SWIZZLE_32B, 32},
    {nvgpu::TensorMapSwizzleKind::SWIZZLE_64B, 64},
    {nvgpu::TensorMapSwizzleKind::SWIZZLE_128B, 128}};

LogicalResult Decoder::tmaLoad(Operation *o) {
  auto l = cast<nvgpu::TmaAsyncLoadOp>(o);
  if (l.getMulticastMask())
    return o->emitError("axe-gpu-run: TMA multicast (clusters) is not "
                        "modelled");
  auto type = l.getTensorMapDescriptor().getType();
  MemRefType box = type.getTensor();
  auto dst = cast<MemRefType>(l.getDst().getType());
  FailureOr<ElementInfo> el = info(box.getElementType(), o);
  if (failed(el))
    return failure();
  if (!box.hasStaticShape() ||
      int64_t(l.getCoordinates().size()) != box.getRank())
    return o->emitError("axe-gpu-run: a TMA load gives one coordinate per "
                        "dim of the descriptor's static box");
  int64_t swizzle = lookupEnum(kSwizzles, type.getSwizzle()).value_or(0);
  Inst &i = emit(Opc::TmaLoad, o);
  i.in = {in(l.getBarriers()), in(l.getMbarId()),
          in(l.getTensorMapDescriptor()), in(l.getDst())};
  for (Value c : l.getCoordinates())
    i.in.push_back(in(c));
  if (l.getPredicate())
    i.in.push_back(in(l.getPredicate()));
  i.imm = {int64_t(l.getCoordinates().size()),
           0,
           dst.getRank(),
           l.getPredicate() ? 1 : 0,
           swizzle,
           int64_t(storageBytes(el->kind, el->bits)),
           isFloat(el->kind) ? 1 : 0};
  for (int64_t d = box.getRank() - 1; d >= 0; --d)
    i.imm2.push_back(box.getDimSize(d));
  return success();
}

LogicalResult Decoder::wgmma(Operation *o) {
  auto w = cast<NVVM::WgmmaMmaAsyncOp>(o);
  NVVM::MMAShapeAttr shape = w.getShape();
  int64_t m = shape.getM(), n = shape.getN(), k = shape.getK();
  auto inputKind = [&](NVVM::WGMMATypes t) -> std::optional<TensorInput> {
    switch (t) {
    case NVVM::WGMMATypes::f16:
      return TensorInput::F16;
    case NVVM::WGMMATypes::bf16:
      return TensorInput::BF16;
    case NVVM::WGMMATypes::e4m3:
      return TensorInput::E4M3;
    case NVVM::WGMMATypes::e5m2:
      return TensorInput::E5M2;
    default:
      return std::nullopt;
    }
  };
  std::optional<TensorInput> ka = inputKind(w.getTypeA()),
                             kb = inputKind(w.getTypeB());
  // The PTX ISA: k16 for 16-bit inputs, k32 for 8-bit floats, whose
  // operands' types may differ (e4m3 x e5m2).
  bool eightBit = ka && tensorInputBytes(*ka) == 1;
  if (!ka || !kb || tensorInputBytes(*ka) != tensorInputBytes(*kb) ||
      (!eightBit && ka != kb) || k != (eightBit ? 32 : 16))
    return o->emitError("axe-gpu-run: wgmma of f16 or bf16 operands (k = 16) "
                        "or of e4m3/e5m2 ones (k = 32) only is modelled");
  if (w.getTypeD() != NVVM::WGMMATypes::f32)
    return o->emitError("axe-gpu-run: wgmma into f32 accumulators only is "
                        "modelled");
  if (m != 64 || n < 8 || n > 256 || n % 8)
    return o->emitError("axe-gpu-run: wgmma m64nNkK with N a multiple of 8 "
                        "up to 256");
  // A <col> and B <row> are MN-major (the ISA's .trans-a / .trans-b; the
  // op's verifier refuses them but for 16-bit inputs).
  bool mnA = w.getLayoutA() == NVVM::MMALayout::col,
       mnB = w.getLayoutB() == NVVM::MMALayout::row;
  FailureOr<ElementInfo> acc = info(w.getInouts().getType(), o);
  if (failed(acc))
    return failure();
  if (acc->kind != Kind::F32 || int64_t(acc->n) != n / 2)
    return o->emitError("axe-gpu-run: a wgmma m64n")
           << n << " accumulator is a struct of " << n / 2 << " f32";
  FailureOr<Slot> s = define(w.getResults(), o);
  if (failed(s))
    return failure();
  Inst &i = emit(Opc::Wgmma, o);
  i.kind = Kind::F32;
  i.bits = 32;
  i.n = acc->n;
  i.in = {in(w.getDescriptorA()), in(w.getDescriptorB()), in(w.getInouts())};
  i.out = {s->base};
  auto scale = [](NVVM::WGMMAScaleIn v) {
    return v == NVVM::WGMMAScaleIn::neg ? int64_t(-1) : int64_t(1);
  };
  i.imm = {m,
           n,
           k,
           int64_t(*ka),
           w.getScaleD() == NVVM::WGMMAScaleOut::one ? 1 : 0,
           scale(w.getScaleA()),
           scale(w.getScaleB()),
           int64_t(*kb),
           int64_t(mnA),
           int64_t(mnB)};
  return success();
}

//===----------------------------------------------------------------------===//
// sm_100: tcgen05
//===----------------------------------------------------------------------===//

static LogicalResult checkCta1(Operation *o, NVVM::CTAGroupKind g) {
  if (g != NVVM::CTAGroupKind::CTA_1)
    return o->emitError("axe-gpu-run: tcgen05 with cta_group::2 (CTA "
                        "pairs) is not modelled");
  return success();
}

static LogicalResult checkSharedPointer(Operation *o, Value v, StringRef what) {
  if (addressSpace(v.getType()) != 3)
    return o->emitError("axe-gpu-run: ")
           << what << " takes a shared-memory pointer (!llvm.ptr<3>) here";
  return success();
}

Inst &Decoder::emitTcgen05(Operation *o, Tcgen05Op k) {
  Inst &i = emit(Opc::Tcgen05, o);
  i.sub = uint8_t(k);
  return i;
}

LogicalResult Decoder::blackwellOp(Operation *o) {
  if (isa<NVVM::Tcgen05WaitOp, NVVM::Tcgen05FenceOp>(o)) {
    // tcgen05 results are written at issue and every access is immediately
    // visible: waits and fences order nothing more.
    emit(Opc::Nop, o);
    return success();
  }
  if (auto a = dyn_cast<NVVM::Tcgen05AllocOp>(o)) {
    if (failed(checkCta1(o, a.getGroup())) ||
        failed(checkSharedPointer(o, a.getAddr(), "tcgen05.alloc")))
      return failure();
    emitTcgen05(o, Tcgen05Op::Alloc).in = {in(a.getAddr()), in(a.getNCols())};
    return success();
  }
  if (auto d = dyn_cast<NVVM::Tcgen05DeallocOp>(o)) {
    if (failed(checkCta1(o, d.getGroup())))
      return failure();
    emitTcgen05(o, Tcgen05Op::Dealloc).in = {in(d.getTaddr()),
                                             in(d.getNCols())};
    return success();
  }
  if (auto r = dyn_cast<NVVM::Tcgen05RelinquishAllocPermitOp>(o)) {
    if (failed(checkCta1(o, r.getGroup())))
      return failure();
    emitTcgen05(o, Tcgen05Op::Relinquish);
    return success();
  }
  if (auto c = dyn_cast<NVVM::Tcgen05CommitOp>(o)) {
    if (failed(checkCta1(o, c.getGroup())) ||
        failed(checkSharedPointer(o, c.getAddr(), "tcgen05.commit")))
      return failure();
    if (c.getMulticastMask())
      return o->emitError("axe-gpu-run: tcgen05.commit with a multicast "
                          "mask (clusters) is not modelled");
    // imm: operand count, 1 (a raw mbarrier address, as mbarrierKey reads).
    Inst &i = emitTcgen05(o, Tcgen05Op::Commit);
    i.in = {in(c.getAddr())};
    i.imm = {1, 1};
    return success();
  }
  if (auto m = dyn_cast<NVVM::Tcgen05MMAOp>(o)) {
    if (failed(checkCta1(o, m.getCtaGroup())))
      return failure();
    if (m.getKind() != NVVM::Tcgen05MMAKind::F16)
      return o->emitError("axe-gpu-run: tcgen05.mma of kind::")
             << NVVM::stringifyTcgen05MMAKind(m.getKind())
             << " is not modelled (kind::f16 is)";
    if (!isa<IntegerType>(m.getMatrixA().getType()))
      return o->emitError("axe-gpu-run: tcgen05.mma with A in tensor memory "
                          "is not modelled (A through a shared-memory "
                          "descriptor is)");
    if (m.getScaleInputD() || m.getDisableOutputLane() || m.getAShift() ||
        m.getCollectorOp() != NVVM::Tcgen05MMACollectorOp::DISCARD)
      return o->emitError("axe-gpu-run: tcgen05.mma with scale-input-d, "
                          "disable-output-lane, ashift or a collector "
                          "operation is not modelled");
    Inst &i = emitTcgen05(o, Tcgen05Op::Mma);
    i.in = {in(m.getMatrixD()), in(m.getMatrixA()), in(m.getMatrixB()),
            in(m.getIdesc()), in(m.getEnableInputD())};
    return success();
  }
  if (isa<NVVM::Tcgen05CpOp>(o))
    return tcgen05Cp(o);
  if (auto s = dyn_cast<NVVM::Tcgen05ShiftOp>(o)) {
    if (failed(checkCta1(o, s.getGroup())))
      return failure();
    emitTcgen05(o, Tcgen05Op::Shift).in = {in(s.getTaddr())};
    return success();
  }
  return tcgen05LdSt(o);
}

struct CpShape {
  int64_t rows, rowBytes;
};

/// The TMEM lanes and bytes per row of the tcgen05.cp shapes modelled.
static constexpr EnumRow<NVVM::Tcgen05CpShape, CpShape> kCpShapes[] = {
    {NVVM::Tcgen05CpShape::SHAPE_128x256b, {128, 32}},
    {NVVM::Tcgen05CpShape::SHAPE_128x128b, {128, 16}},
    {NVVM::Tcgen05CpShape::SHAPE_4x256b, {4, 32}}};

LogicalResult Decoder::tcgen05Cp(Operation *o) {
  auto c = cast<NVVM::Tcgen05CpOp>(o);
  if (failed(checkCta1(o, c.getGroup())))
    return failure();
  if (c.getMulticast() != NVVM::Tcgen05CpMulticast::NONE)
    return o->emitError("axe-gpu-run: tcgen05.cp with the multicast ")
           << NVVM::stringifyTcgen05CpMulticast(c.getMulticast())
           << " (shapes 64x128b and 32x128b) is not modelled";
  if (c.getSrcFormat())
    return o->emitError("axe-gpu-run: tcgen05.cp with decompression from "
                        "the source format ")
           << NVVM::stringifyTcgen05CpSrcFormat(*c.getSrcFormat())
           << " is not modelled";
  // imm: rows (TMEM lanes), bytes per row.
  Inst &i = emitTcgen05(o, Tcgen05Op::Cp);
  i.in = {in(c.getTaddr()), in(c.getSmemDesc())};
  std::optional<CpShape> shape = lookupEnum(kCpShapes, c.getShape());
  if (!shape)
    return o->emitError("axe-gpu-run: tcgen05.cp of shape ")
           << NVVM::stringifyTcgen05CpShape(c.getShape()) << " is not modelled";
  i.imm = {shape->rows, shape->rowBytes};
  return success();
}

LogicalResult Decoder::tcgen05LdSt(Operation *o) {
  bool isLoad = isa<NVVM::Tcgen05LdOp>(o);
  NVVM::Tcgen05LdStShape shape = isLoad ? cast<NVVM::Tcgen05LdOp>(o).getShape()
                                        : cast<NVVM::Tcgen05StOp>(o).getShape();
  bool packed = isLoad ? cast<NVVM::Tcgen05LdOp>(o).getPack()
                       : cast<NVVM::Tcgen05StOp>(o).getUnpack();
  if (shape != NVVM::Tcgen05LdStShape::SHAPE_32X32B)
    return o->emitError("axe-gpu-run: tcgen05.")
           << (isLoad ? "ld" : "st") << " of shape "
           << NVVM::stringifyTcgen05LdStShape(shape)
           << " is not modelled (shape_32x32b is)";
  if (packed)
    return o->emitError("axe-gpu-run: tcgen05.ld .pack / tcgen05.st "
                        ".unpack is not modelled");
  Value value = isLoad ? cast<NVVM::Tcgen05LdOp>(o).getRes()
                       : cast<NVVM::Tcgen05StOp>(o).getVal();
  FailureOr<ElementInfo> e = info(value.getType(), o);
  if (failed(e))
    return failure();
  if (!((e->kind == Kind::Int && e->bits == 32) || e->kind == Kind::F32))
    return o->emitError("axe-gpu-run: tcgen05.ld/st of 32-bit elements "
                        "only is modelled");
  FailureOr<uint32_t> out = loadSlot(isLoad ? value : Value(), o);
  if (failed(out))
    return failure();
  Inst &i = emitTcgen05(o, isLoad ? Tcgen05Op::Ld : Tcgen05Op::St);
  setType(i, *e);
  Value addr = isLoad ? cast<NVVM::Tcgen05LdOp>(o).getTmemAddr()
                      : cast<NVVM::Tcgen05StOp>(o).getTmemAddr();
  i.in = {in(addr)};
  if (isLoad)
    i.out = {*out};
  else
    i.in.push_back(in(value));
  return success();
}

//===----------------------------------------------------------------------===//
// Clusters (sm_90)
//===----------------------------------------------------------------------===//

LogicalResult Decoder::clusterOp(Operation *o) {
  auto barrier = [&](ClusterOp k, bool aligned) {
    Inst &i = emit(Opc::Cluster, o);
    i.sub = uint8_t(k);
    i.imm = {aligned ? 1 : 0};
    return success();
  };
  if (auto a = dyn_cast<NVVM::ClusterArriveOp>(o))
    return barrier(ClusterOp::Arrive, a.getAligned().has_value());
  if (auto a = dyn_cast<NVVM::ClusterArriveRelaxedOp>(o))
    return barrier(ClusterOp::ArriveRelaxed, a.getAligned().has_value());
  if (auto w = dyn_cast<NVVM::ClusterWaitOp>(o))
    return barrier(ClusterOp::Wait, w.getAligned().has_value());
  if (auto m = dyn_cast<NVVM::MapaOp>(o)) {
    // imm: 0 (mapa). In: the shared::cta address, the target rank.
    if (addressSpace(m.getA().getType()) != 3)
      return o->emitError("axe-gpu-run: nvvm.mapa of a generic pointer is "
                          "not modelled (generic pointers are global "
                          "addresses here); map an !llvm.ptr<3>");
    if (failed(simple(o, Opc::Mapa, 0)))
      return failure();
    p.code.back().imm = {0};
    return success();
  }
  auto c = cast<LLVM::AddrSpaceCastOp>(o);
  int64_t from = addressSpace(c.getArg().getType());
  int64_t to = addressSpace(c.getType());
  // shared::cta -> shared::cluster: the same address (the CTA's window lies
  // in the cluster's); shared::cluster -> shared::cta: checked to be the
  // CTA's own.
  if (from == 3 && to == 7)
    return simple(o, Opc::Cast, uint8_t(CastOp::Bitcast));
  if (from == 7 && to == 3) {
    if (failed(simple(o, Opc::Mapa, 1)))
      return failure();
    p.code.back().imm = {1};
    return success();
  }
  return o->emitError("axe-gpu-run: llvm.addrspacecast from ")
         << from << " to " << to << " is not modelled (3 -> 7 and 7 -> 3 are)";
}
