//===- DecodeGPU.cpp - Decoding gpu, nvvm and nvgpu warp ops --------------===//
//
// Special registers, barriers, warp shuffles, votes and reductions,
// printf, ldmatrix/stmatrix, mma.sync, cp.async and mbarriers (through
// nvgpu's groups or on raw pointers). The enum mappings are tables.
//
//===----------------------------------------------------------------------===//

#include "DecodeInternal.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace axe::gpusim;
using namespace axe::gpusim::decode;

//===----------------------------------------------------------------------===//
// gpu and nvvm
//===----------------------------------------------------------------------===//

static constexpr EnumRow<gpu::ShuffleMode, ShuffleMode> kGpuShuffleModes[] = {
    {gpu::ShuffleMode::XOR, ShuffleMode::Xor},
    {gpu::ShuffleMode::UP, ShuffleMode::Up},
    {gpu::ShuffleMode::DOWN, ShuffleMode::Down}};

static constexpr EnumRow<NVVM::ShflKind, ShuffleMode> kShflKinds[] = {
    {NVVM::ShflKind::bfly, ShuffleMode::Xor},
    {NVVM::ShflKind::up, ShuffleMode::Up},
    {NVVM::ShflKind::down, ShuffleMode::Down}};

static constexpr EnumRow<NVVM::VoteSyncKind, VoteOp> kVoteKinds[] = {
    {NVVM::VoteSyncKind::ballot, VoteOp::Ballot},
    {NVVM::VoteSyncKind::any, VoteOp::Any},
    {NVVM::VoteSyncKind::all, VoteOp::All}};

static constexpr EnumRow<NVVM::ReduxKind, ReduceOp> kReduxKinds[] = {
    {NVVM::ReduxKind::ADD, ReduceOp::Add},
    {NVVM::ReduxKind::AND, ReduceOp::And},
    {NVVM::ReduxKind::OR, ReduceOp::Or},
    {NVVM::ReduxKind::XOR, ReduceOp::Xor},
    {NVVM::ReduxKind::MAX, ReduceOp::MaxS},
    {NVVM::ReduxKind::MIN, ReduceOp::MinS},
    {NVVM::ReduxKind::UMAX, ReduceOp::MaxU},
    {NVVM::ReduxKind::UMIN, ReduceOp::MinU},
    {NVVM::ReduxKind::FMIN, ReduceOp::MinF}};

LogicalResult Decoder::gpuOp(Operation *o) {
  if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
          gpu::ClusterIdOp, gpu::ClusterBlockIdOp, gpu::ClusterDimOp,
          gpu::ClusterDimBlocksOp, gpu::LaneIdOp, gpu::SubgroupIdOp,
          gpu::NumSubgroupsOp>(o) ||
      o->getName().getStringRef().starts_with("nvvm.read.ptx.sreg."))
    return sregOp(o);
  if (isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::InlinePtxOp, NVVM::BarrierOp,
          NVVM::BarrierArriveOp>(o))
    return barrierOp(o);
  // imm[0]: 0 for gpu.shuffle (in: value, offset, width), 1 for the PTX
  // form (in: mask, value, offset, clamp; the result's kind is the
  // value's).
  auto shuffle = [&](ShuffleMode m, int64_t form) -> LogicalResult {
    if (failed(simple(o, Opc::Shuffle, uint8_t(m))))
      return failure();
    p.code.back().imm = {form};
    return success();
  };
  if (auto s = dyn_cast<gpu::ShuffleOp>(o))
    return shuffle(
        lookupEnum(kGpuShuffleModes, s.getMode()).value_or(ShuffleMode::Idx),
        0);
  if (auto s = dyn_cast<NVVM::ShflOp>(o)) {
    if (o->getNumResults() != 1 || isa<LLVM::LLVMStructType>(s.getType()))
      return o->emitError("axe-gpu-run: nvvm.shfl.sync with a validity "
                          "result is not modelled");
    return shuffle(
        lookupEnum(kShflKinds, s.getKind()).value_or(ShuffleMode::Idx), 1);
  }
  if (auto v = dyn_cast<NVVM::VoteSyncOp>(o))
    return simple(
        o, Opc::Vote,
        uint8_t(lookupEnum(kVoteKinds, v.getKind()).value_or(VoteOp::Uni)));
  if (auto r = dyn_cast<NVVM::ReduxOp>(o))
    return simple(
        o, Opc::Redux,
        uint8_t(lookupEnum(kReduxKinds, r.getKind()).value_or(ReduceOp::MaxF)));
  if (auto pr = dyn_cast<gpu::PrintfOp>(o)) {
    Inst &i = emit(Opc::Printf, o);
    p.formats.push_back(pr.getFormat().str());
    i.imm = {int64_t(p.formats.size() - 1)};
    for (Value v : pr.getArgs()) {
      FailureOr<ElementInfo> e = info(v.getType(), o);
      if (failed(e) || e->n != 1 || e->kind == Kind::MemRef)
        return o->emitError("axe-gpu-run: gpu.printf prints scalars");
      i.in.push_back(in(v));
      i.imm2.push_back(int64_t(e->kind));
      i.imm2.push_back(e->bits);
    }
    return success();
  }
  if (isa<NVVM::SyncWarpOp>(o)) {
    // Lockstep already orders the lanes; the race detector counts it.
    emit(Opc::Nop, o).sub = kWarpSyncNop;
    return success();
  }
  return unsupported(o);
}

static uint8_t dimOffset(gpu::Dimension d) { return uint8_t(d); }

LogicalResult Decoder::sregOp(Operation *o) {
  auto sreg = [&](SRegOp r) { return simple(o, Opc::SReg, uint8_t(r)); };
  auto sregOf = [&](SRegOp base, gpu::Dimension d) {
    return sreg(SRegOp(uint8_t(base) + dimOffset(d)));
  };
  if (auto t = dyn_cast<gpu::ThreadIdOp>(o))
    return sregOf(SRegOp::TidX, t.getDimension());
  if (auto t = dyn_cast<gpu::BlockIdOp>(o))
    return sregOf(SRegOp::CtaIdX, t.getDimension());
  if (auto t = dyn_cast<gpu::BlockDimOp>(o))
    return sregOf(SRegOp::NTidX, t.getDimension());
  if (auto t = dyn_cast<gpu::GridDimOp>(o))
    return sregOf(SRegOp::NCtaIdX, t.getDimension());
  if (auto t = dyn_cast<gpu::ClusterIdOp>(o))
    return sregOf(SRegOp::ClusterIdX, t.getDimension());
  if (auto t = dyn_cast<gpu::ClusterBlockIdOp>(o))
    return sregOf(SRegOp::ClusterCtaIdX, t.getDimension());
  if (auto t = dyn_cast<gpu::ClusterDimOp>(o))
    return sregOf(SRegOp::NClusterIdX, t.getDimension());
  if (auto t = dyn_cast<gpu::ClusterDimBlocksOp>(o))
    return sregOf(SRegOp::ClusterNCtaIdX, t.getDimension());
  if (isa<gpu::LaneIdOp>(o))
    return sreg(SRegOp::LaneId);
  if (isa<gpu::SubgroupIdOp>(o))
    return sreg(SRegOp::WarpId);
  if (isa<gpu::NumSubgroupsOp>(o))
    return sreg(SRegOp::NWarpId);
  StringRef name = o->getName().getStringRef();
  if (name.consume_front("nvvm.read.ptx.sreg.")) {
    static const llvm::StringMap<SRegOp> regs = {
        {"tid.x", SRegOp::TidX},
        {"tid.y", SRegOp::TidY},
        {"tid.z", SRegOp::TidZ},
        {"ntid.x", SRegOp::NTidX},
        {"ntid.y", SRegOp::NTidY},
        {"ntid.z", SRegOp::NTidZ},
        {"ctaid.x", SRegOp::CtaIdX},
        {"ctaid.y", SRegOp::CtaIdY},
        {"ctaid.z", SRegOp::CtaIdZ},
        {"nctaid.x", SRegOp::NCtaIdX},
        {"nctaid.y", SRegOp::NCtaIdY},
        {"nctaid.z", SRegOp::NCtaIdZ},
        {"laneid", SRegOp::LaneId},
        {"warpid", SRegOp::WarpId},
        {"nwarpid", SRegOp::NWarpId},
        {"cluster.ctaid.x", SRegOp::ClusterCtaIdX},
        {"cluster.ctaid.y", SRegOp::ClusterCtaIdY},
        {"cluster.ctaid.z", SRegOp::ClusterCtaIdZ},
        {"cluster.nctaid.x", SRegOp::ClusterNCtaIdX},
        {"cluster.nctaid.y", SRegOp::ClusterNCtaIdY},
        {"cluster.nctaid.z", SRegOp::ClusterNCtaIdZ},
        {"cluster.ctarank", SRegOp::ClusterCtaRank},
        {"cluster.nctarank", SRegOp::ClusterNCtaRank},
        {"clusterid.x", SRegOp::ClusterIdX},
        {"clusterid.y", SRegOp::ClusterIdY},
        {"clusterid.z", SRegOp::ClusterIdZ},
        {"nclusterid.x", SRegOp::NClusterIdX},
        {"nclusterid.y", SRegOp::NClusterIdY},
        {"nclusterid.z", SRegOp::NClusterIdZ}};
    auto it = regs.find(name);
    if (it == regs.end())
      return unsupported(o);
    return sreg(it->second);
  }
  return unsupported(o);
}

LogicalResult Decoder::barrierOp(Operation *o) {
  // Barrier imm: whether an id and a thread count are given, whether the
  // barrier is aligned.
  if (isa<gpu::BarrierOp, NVVM::Barrier0Op>(o)) {
    emit(Opc::Barrier, o).imm = {0, 0, 1}; // barrier 0, the whole CTA
    return success();
  }
  if (auto ptx = dyn_cast<NVVM::InlinePtxOp>(o)) {
    // The non-aligned barrier with an id and a count, what warps that meet
    // at different code points use (nvvm.barrier is aligned): "barrier.sync
    // ID, COUNT;" with immediates, or with operands $0, $1.
    StringRef code = ptx.getPtxCode().trim();
    int64_t id = 0, count = 0;
    bool immediates = false;
    if (code.consume_front("barrier.sync ") && code.consume_back(";")) {
      auto [a, c] = code.split(',');
      immediates =
          !a.trim().getAsInteger(10, id) && !c.trim().getAsInteger(10, count);
    }
    bool operands = ptx.getPtxCode().trim() == "barrier.sync $0, $1;" &&
                    ptx.getReadOnlyArgs().size() == 2;
    if ((!immediates && !operands) || ptx.getPredicate() ||
        !ptx.getWriteOnlyArgs().empty())
      return o->emitError("axe-gpu-run: inline PTX other than "
                          "'barrier.sync ID, COUNT;' is not modelled");
    Inst &i = emit(Opc::Barrier, o);
    i.imm = {1, 1, 0};
    if (operands) {
      i.in = {in(ptx.getReadOnlyArgs()[0]), in(ptx.getReadOnlyArgs()[1])};
    } else {
      i.imm.push_back(id);
      i.imm.push_back(count);
    }
    return success();
  }
  if (auto b = dyn_cast<NVVM::BarrierArriveOp>(o)) {
    // in: the barrier id (0 when not given), then the thread count.
    Inst &i = emit(Opc::BarrierArrive, o);
    i.imm = {b.getBarrierId() ? 1 : 0};
    if (b.getBarrierId())
      i.in.push_back(in(b.getBarrierId()));
    i.in.push_back(in(b.getNumberOfThreads()));
    return success();
  }
  if (auto b = dyn_cast<NVVM::BarrierOp>(o)) {
    if (b.getReductionOp() || o->getNumResults() != 0)
      return o->emitError("axe-gpu-run: barrier reductions are not "
                          "modelled yet");
    // in: the barrier id, then the thread count (imm: which are given).
    Inst &i = emit(Opc::Barrier, o);
    i.imm = {b.getBarrierId() ? 1 : 0, b.getNumberOfThreads() ? 1 : 0, 1};
    if (b.getBarrierId())
      i.in.push_back(in(b.getBarrierId()));
    if (b.getNumberOfThreads())
      i.in.push_back(in(b.getNumberOfThreads()));
    return success();
  }
  return unsupported(o);
}

//===----------------------------------------------------------------------===//
// nvgpu
//===----------------------------------------------------------------------===//

LogicalResult Decoder::nvgpuOp(Operation *o) {
  if (isa<nvgpu::LdMatrixOp>(o))
    return nvgpuLdMatrix(o);
  if (auto m = dyn_cast<nvgpu::MmaSyncOp>(o)) {
    if (failed(simple(o, Opc::Mma, m.getTf32Enabled() ? 1 : 0)))
      return failure();
    Inst &i = p.code.back();
    std::array<int64_t, 3> s = m.getMmaShapeAsArray();
    i.imm = {s[0], s[1], s[2]};
    // Operands are defined values: their types decoded already.
    ElementInfo a = *info(m.getMatrixA().getType(), o);
    ElementInfo b = *info(m.getMatrixB().getType(), o);
    ElementInfo c = *info(m.getMatrixC().getType(), o);
    i.kind2 = a.kind;
    i.bits2 = a.bits;
    i.imm2 = {int64_t(a.n), int64_t(c.n), int64_t(b.n)};
    return success();
  }
  if (isa<nvgpu::DeviceAsyncCopyOp>(o))
    return nvgpuAsyncCopy(o);
  if (auto c = dyn_cast<nvgpu::MBarrierCreateOp>(o)) {
    // One group of 8-byte mbarriers per CTA, in shared memory.
    FailureOr<Slot> s = define(c.getBarriers(), o);
    if (failed(s))
      return failure();
    BufferDecl d;
    d.bytes = 8 * int64_t(c.getBarriers().getType().getNumBarriers());
    d.rank = 1;
    d.sizes = {d.bytes / 8};
    d.strides = {1};
    d.name = "mbarrier group";
    p.shared.push_back({-1, d});
    Inst &i = emit(Opc::Alloca, o);
    i.sub = 3;
    i.out = {s->base};
    i.imm = {int64_t(p.shared.size() - 1)};
    return success();
  }
  if (isa<nvgpu::MBarrierInitOp, nvgpu::MBarrierArriveOp,
          nvgpu::MBarrierArriveNoCompleteOp, nvgpu::MBarrierArriveExpectTxOp,
          nvgpu::MBarrierTestWaitOp, nvgpu::MBarrierTryWaitParityOp,
          nvgpu::MBarrierGetOp>(o))
    return nvgpuMBarrier(o);
  if (isa<nvgpu::DeviceAsyncCreateGroupOp>(o)) {
    FailureOr<Slot> s = define(o->getResult(0), o);
    if (failed(s))
      return failure();
    emit(Opc::AsyncGroup, o).out = {s->base};
    return success();
  }
  if (auto w = dyn_cast<nvgpu::DeviceAsyncWaitOp>(o)) {
    Inst &i = emit(Opc::AsyncWait, o);
    i.imm = {w.getNumGroups() ? int64_t(*w.getNumGroups()) : 0};
    return success();
  }
  return unsupported(o);
}

LogicalResult Decoder::nvgpuAsyncCopy(Operation *o) {
  auto c = cast<nvgpu::DeviceAsyncCopyOp>(o);
  auto src = cast<MemRefType>(c.getSrc().getType());
  auto dst = cast<MemRefType>(c.getDst().getType());
  FailureOr<ElementInfo> el = info(dst.getElementType(), o);
  FailureOr<Slot> s = define(c.getAsyncToken(), o);
  if (failed(el) || failed(s))
    return failure();
  Inst &i = emit(Opc::AsyncCopy, o);
  i.kind = el->kind;
  i.bits = el->bits;
  i.n = c.getDstElements().getZExtValue();
  i.sub = c.getBypassL1().has_value();
  i.in.push_back(in(c.getSrc()));
  for (Value v : c.getSrcIndices())
    i.in.push_back(in(v));
  i.in.push_back(in(c.getDst()));
  for (Value v : c.getDstIndices())
    i.in.push_back(in(v));
  // imm: src rank, dst rank, whether srcElements is given (last operand).
  i.imm = {src.getRank(), dst.getRank(), c.getSrcElements() ? 1 : 0};
  if (c.getSrcElements())
    i.in.push_back(in(c.getSrcElements()));
  i.out = {s->base};
  return success();
}

LogicalResult Decoder::nvgpuLdMatrix(Operation *o) {
  auto l = cast<nvgpu::LdMatrixOp>(o);
  if (failed(simple(o, Opc::LdMatrix, l.getTranspose())))
    return failure();
  Inst &i = p.code.back();
  auto mt = cast<MemRefType>(l.getSrcMemref().getType());
  FailureOr<ElementInfo> el = info(mt.getElementType(), o);
  if (failed(el))
    return failure();
  int64_t tiles = l.getNumTiles();
  if (tiles != 1 && tiles != 2 && tiles != 4)
    return o->emitError("axe-gpu-run: ldmatrix loads 1, 2 or 4 tiles");
  i.kind2 = el->kind;
  i.bits2 = el->bits;
  i.imm = {tiles, mt.getRank()};
  auto vt = cast<VectorType>(l.getType());
  if (storageBits(i.kind, i.bits) * vt.getShape().back() != 32 ||
      vt.getShape()[0] != l.getNumTiles() ||
      storageBits(el->kind, el->bits) != storageBits(i.kind, i.bits))
    return o->emitError("axe-gpu-run: ldmatrix result must be "
                        "vector<numTiles x (32 bits)> of the memref's "
                        "element type");
  if (storageBits(i.kind, i.bits) != 16 && l.getTranspose())
    return o->emitError("axe-gpu-run: ldmatrix.trans loads b16 elements");
  return success();
}

LogicalResult Decoder::nvgpuMBarrier(Operation *o) {
  // in: the group, the barrier's index, then the op's own operands (an
  // absent predicate left out); imm: the operand count.
  auto mbarrier = [&](MBarrierOp k, ArrayRef<Value> operands) -> LogicalResult {
    if (failed(simple(o, Opc::MBarrier, uint8_t(k))))
      return failure();
    Inst &i = p.code.back();
    i.imm = {int64_t(o->getNumOperands())};
    i.in.clear();
    for (Value v : operands)
      if (v)
        i.in.push_back(in(v));
    return success();
  };
  if (auto m = dyn_cast<nvgpu::MBarrierInitOp>(o))
    return mbarrier(MBarrierOp::Init, {m.getBarriers(), m.getMbarId(),
                                       m.getCount(), m.getPredicate()});
  if (auto m = dyn_cast<nvgpu::MBarrierArriveOp>(o))
    return mbarrier(MBarrierOp::Arrive, {m.getBarriers(), m.getMbarId()});
  if (auto m = dyn_cast<nvgpu::MBarrierArriveNoCompleteOp>(o))
    return mbarrier(MBarrierOp::ArriveNoComplete,
                    {m.getBarriers(), m.getMbarId(), m.getCount()});
  if (auto m = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(o))
    return mbarrier(
        MBarrierOp::ArriveExpectTx,
        {m.getBarriers(), m.getMbarId(), m.getTxcount(), m.getPredicate()});
  if (auto m = dyn_cast<nvgpu::MBarrierTestWaitOp>(o))
    return mbarrier(MBarrierOp::TestWait,
                    {m.getBarriers(), m.getMbarId(), m.getToken()});
  if (auto m = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(o))
    return mbarrier(MBarrierOp::TryWaitParity,
                    {m.getBarriers(), m.getMbarId(), m.getPhaseParity()});
  if (auto m = dyn_cast<nvgpu::MBarrierGetOp>(o))
    return mbarrier(MBarrierOp::Get, {m.getBarriers(), m.getMbarId()});
  return unsupported(o);
}

//===----------------------------------------------------------------------===//
// nvvm ops on raw pointers
//===----------------------------------------------------------------------===//

LogicalResult Decoder::rawMBarrier(Operation *o) {
  // mbarriers on raw pointers run as nvgpu's do; in[1] repeats the address
  // where nvgpu has the barrier's index. imm: operand count, 1 (raw).
  auto mbarrier = [&](MBarrierOp k, Value addr, ArrayRef<Value> rest,
                      Value predicate) -> LogicalResult {
    // A remote arrive (shared::cluster, !llvm.ptr<7>) on a CTA of the
    // cluster; the other mbarrier ops take the CTA's own barriers.
    int64_t space = addressSpace(addr.getType());
    if (space != 3 && !(space == 7 && k == MBarrierOp::Arrive))
      return o->emitError("axe-gpu-run: mbarriers in shared memory "
                          "(!llvm.ptr<3>; mbarrier.arrive also "
                          "!llvm.ptr<7>) only");
    SmallVector<uint32_t> outs;
    for (Value r : o->getResults()) {
      FailureOr<Slot> s = define(r, o);
      if (failed(s))
        return failure();
      outs.push_back(s->base);
    }
    Inst &i = emit(Opc::MBarrier, o);
    i.sub = uint8_t(k);
    i.bits = 64;
    i.in = {in(addr), in(addr)};
    for (Value v : rest)
      i.in.push_back(in(v));
    if (predicate)
      i.in.push_back(in(predicate));
    i.out.assign(outs.begin(), outs.end());
    i.imm = {int64_t(o->getNumOperands()), 1, space};
    return success();
  };
  if (auto m = dyn_cast<NVVM::MBarrierInitOp>(o))
    return mbarrier(MBarrierOp::Init, m.getAddr(), {m.getCount()},
                    m.getPredicate());
  if (auto m = dyn_cast<NVVM::MBarrierArriveOp>(o)) {
    if (m.getCount())
      return o->emitError("axe-gpu-run: mbarrier.arrive with a count");
    return mbarrier(MBarrierOp::Arrive, m.getAddr(), {}, {});
  }
  if (auto m = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(o))
    return mbarrier(MBarrierOp::ArriveExpectTx, m.getAddr(), {m.getTxcount()},
                    m.getPredicate());
  if (auto m = dyn_cast<NVVM::MBarrierExpectTxOp>(o))
    return mbarrier(MBarrierOp::ExpectTx, m.getAddr(), {m.getTxcount()}, {});
  if (auto m = dyn_cast<NVVM::MBarrierTryWaitParityOp>(o))
    return mbarrier(MBarrierOp::TryWaitParity, m.getAddr(), {m.getPhase()}, {});
  if (auto m = dyn_cast<NVVM::MBarrierTestWaitOp>(o))
    return mbarrier(MBarrierOp::TestWait, m.getAddr(), {m.getStateOrPhase()},
                    {});
  return unsupported(o);
}

LogicalResult Decoder::rawNvvmOp(Operation *o) {
  if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
          NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierExpectTxOp,
          NVVM::MBarrierTryWaitParityOp, NVVM::MBarrierTestWaitOp>(o))
    return rawMBarrier(o);
  if (auto l = dyn_cast<NVVM::LdMatrixOp>(o)) {
    if (l.getEltType() != NVVM::LdStMatrixEltType::B16 ||
        l.getShape().getM() != 8 || l.getShape().getN() != 8)
      return o->emitError("axe-gpu-run: nvvm.ldmatrix of m8n8 b16 only");
    if (failed(simple(o, Opc::LdMatrix, l.getLayout() == NVVM::MMALayout::col)))
      return failure();
    Inst &i = p.code.back();
    // imm: tiles, -1 (a raw address). Elements are b16 in i32 registers.
    i.imm = {int64_t(l.getNum()), -1};
    i.kind2 = Kind::Int;
    i.bits2 = 16;
    return success();
  }
  if (auto s = dyn_cast<NVVM::StMatrixOp>(o)) {
    if (s.getEltType() != NVVM::LdStMatrixEltType::B16 ||
        s.getShape().getM() != 8 || s.getShape().getN() != 8)
      return o->emitError("axe-gpu-run: nvvm.stmatrix of m8n8 b16 only");
    Inst &i = emit(Opc::StMatrix, o);
    i.sub = s.getLayout() == NVVM::MMALayout::col;
    i.in.push_back(in(s.getPtr()));
    for (Value v : s.getSources())
      i.in.push_back(in(v));
    i.imm = {int64_t(s.getSources().size())};
    return success();
  }
  if (auto c = dyn_cast<NVVM::CpAsyncOp>(o)) {
    if (addressSpace(c.getDst().getType()) != 3)
      return o->emitError("axe-gpu-run: cp.async writes shared memory");
    Inst &i = emit(Opc::AsyncCopy, o);
    i.kind = Kind::Int;
    i.bits = 8;
    i.n = c.getSize();
    // imm: -1 (raw addresses), whether a source size is given.
    i.in = {in(c.getSrc()), in(c.getDst())};
    i.imm = {-1, -1, c.getCpSize() ? 1 : 0};
    if (c.getCpSize())
      i.in.push_back(in(c.getCpSize()));
    return success();
  }
  if (isa<NVVM::CpAsyncCommitGroupOp>(o)) {
    emit(Opc::AsyncGroup, o);
    return success();
  }
  if (auto w = dyn_cast<NVVM::CpAsyncWaitGroupOp>(o)) {
    emit(Opc::AsyncWait, o).imm = {int64_t(w.getN())};
    return success();
  }
  return unsupported(o);
}
