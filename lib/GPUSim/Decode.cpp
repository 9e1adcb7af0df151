//===- Decode.cpp - gpu.func to the interpreter's instructions ------------===//
//
// One pass over the kernel body: every value gets a register-file slot,
// constants are collected to be written once per warp, and each op becomes
// an instruction with its static data resolved (element kinds, widths,
// gather maps of vector shuffles, view recipes). Anything the interpreter
// does not model is refused here, before the kernel runs. This file holds
// the types and slots, structured control flow and the dispatch to the
// other pieces (DecodeInternal.h lists them).
//
//===----------------------------------------------------------------------===//

#include "DecodeInternal.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace axe::gpusim;
using namespace axe::gpusim::decode;

//===----------------------------------------------------------------------===//
// Types and slots
//===----------------------------------------------------------------------===//

FailureOr<ElementInfo> Decoder::info(Type t, Operation *where) {
  ElementInfo e;
  if (auto v = dyn_cast<VectorType>(t)) {
    if (v.isScalable())
      return where->emitError("axe-gpu-run: scalable vectors are not "
                              "modelled");
    FailureOr<ElementInfo> el = info(v.getElementType(), where);
    if (failed(el))
      return failure();
    e = *el;
    e.n = e.words = uint32_t(v.getNumElements());
    return e;
  }
  if (auto m = dyn_cast<MemRefType>(t)) {
    e.kind = Kind::MemRef;
    e.words = 2 + 2 * m.getRank();
    return e;
  }
  if (isa<IndexType>(t))
    return e;
  // A pointer is its address: the host's for global memory, the CTA's
  // shared window for address space 3.
  if (isa<LLVM::LLVMPointerType>(t))
    return e;
  // A tensor map descriptor is the address of the record the host built.
  if (isa<nvgpu::TensorMapDescriptorType>(t))
    return e;
  // A struct of one scalar type (mma/ldmatrix registers) is a vector.
  if (auto s = dyn_cast<LLVM::LLVMStructType>(t)) {
    ArrayRef<Type> body = s.getBody();
    if (body.empty() || !llvm::all_equal(body) ||
        isa<LLVM::LLVMStructType, LLVM::LLVMPointerType, VectorType>(body[0]))
      return where->emitError("axe-gpu-run: only structs of one scalar type "
                              "are modelled, not ")
             << t;
    FailureOr<ElementInfo> el = info(body[0], where);
    if (failed(el))
      return failure();
    e = *el;
    e.n = e.words = body.size();
    return e;
  }
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.getWidth() > 64)
      return where->emitError("axe-gpu-run: integers wider than 64 bits are "
                              "not modelled: ")
             << t;
    e.bits = i.getWidth();
    return e;
  }
  // 8-bit floats are only moved here (copies, TMA) and read by tensor-core
  // instructions, which decode them themselves: their values are their bits.
  if (isa<FloatType>(t) && t.getIntOrFloatBitWidth() == 8) {
    e.bits = 8;
    return e;
  }
  if (t.isF16())
    e.kind = Kind::F16;
  else if (t.isBF16())
    e.kind = Kind::BF16;
  else if (t.isF32())
    e.kind = Kind::F32;
  else if (t.isF64())
    e.kind = Kind::F64;
  else if (isa<nvgpu::DeviceAsyncTokenType, gpu::AsyncTokenType,
               nvgpu::MBarrierGroupType, nvgpu::MBarrierTokenType>(t))
    e.kind = Kind::Token; // an mbarrier group's word is its buffer
  else
    return where->emitError("axe-gpu-run: values of type ")
           << t << " are not modelled";
  return e;
}

FailureOr<Slot> Decoder::define(Value v, Operation *where) {
  FailureOr<ElementInfo> e = info(v.getType(), where);
  if (failed(e))
    return failure();
  Slot s{p.regWords, e->words};
  p.regWords += e->words * 32;
  slots[v] = s;
  return s;
}

/// The slot of a load's result `v`; 0 for a store (`v` null).
FailureOr<uint32_t> Decoder::loadSlot(Value v, Operation *where) {
  if (!v)
    return uint32_t(0);
  FailureOr<Slot> s = define(v, where);
  if (failed(s))
    return failure();
  return s->base;
}

//===----------------------------------------------------------------------===//
// Blocks and control flow
//===----------------------------------------------------------------------===//

LogicalResult Decoder::block(Block &b) {
  for (Operation &o : b.without_terminator())
    if (failed(op(&o)))
      return failure();
  return success();
}

LogicalResult Decoder::scfIf(scf::IfOp ifOp) {
  SmallVector<uint32_t> results, resultWords;
  for (Value r : ifOp.getResults()) {
    FailureOr<Slot> s = define(r, ifOp);
    if (failed(s))
      return failure();
    results.push_back(s->base);
    resultWords.push_back(s->words);
  }
  auto yieldInto = [&](Block &b) {
    auto y = cast<scf::YieldOp>(b.getTerminator());
    if (y.getNumOperands() == 0)
      return;
    Inst &i = emit(Opc::IfYield, y);
    for (Value v : y.getOperands())
      i.in.push_back(in(v));
    i.out.assign(results.begin(), results.end());
    i.imm2.assign(resultWords.begin(), resultWords.end());
  };
  int32_t ifAt = here();
  emit(Opc::If, ifOp).in.push_back(in(ifOp.getCondition()));
  if (failed(block(ifOp.getThenRegion().front())))
    return failure();
  yieldInto(ifOp.getThenRegion().front());
  int32_t elseAt = here();
  emit(Opc::Else, ifOp);
  if (!ifOp.getElseRegion().empty()) {
    if (failed(block(ifOp.getElseRegion().front())))
      return failure();
    yieldInto(ifOp.getElseRegion().front());
  }
  int32_t endAt = here();
  emit(Opc::EndIf, ifOp);
  p.code[ifAt].target = elseAt;
  p.code[ifAt].target2 = endAt;
  p.code[elseAt].target = endAt;
  return success();
}

LogicalResult Decoder::scfFor(scf::ForOp forOp) {
  FailureOr<Slot> iv = define(forOp.getInductionVar(), forOp);
  if (failed(iv))
    return failure();
  FailureOr<ElementInfo> ivInfo =
      info(forOp.getInductionVar().getType(), forOp);
  SmallVector<uint32_t> iterArgs{iv->base};
  SmallVector<int64_t> iterWords;
  for (auto [arg, result] :
       llvm::zip(forOp.getRegionIterArgs(), forOp.getResults())) {
    FailureOr<Slot> s = define(arg, forOp);
    if (failed(s))
      return failure();
    // A lane's results are its iter_args when it leaves the loop.
    slots[result] = *s;
    iterArgs.push_back(s->base);
    iterWords.push_back(s->words);
  }
  int32_t forAt = here();
  {
    Inst &i = emit(Opc::For, forOp);
    i.bits = ivInfo->bits;
    i.sub = forOp.getUnsignedCmp();
    i.in = {in(forOp.getLowerBound()), in(forOp.getUpperBound()),
            in(forOp.getStep())};
    for (Value v : forOp.getInitArgs())
      i.in.push_back(in(v));
    i.out.assign(iterArgs.begin(), iterArgs.end());
    i.imm2.assign(iterWords.begin(), iterWords.end());
  }
  if (failed(block(*forOp.getBody())))
    return failure();
  auto y = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  int32_t endAt = here();
  Inst &e = emit(Opc::EndFor, y);
  e.bits = ivInfo->bits;
  e.sub = forOp.getUnsignedCmp();
  e.in = {in(forOp.getUpperBound()), in(forOp.getStep())};
  for (Value v : y.getOperands())
    e.in.push_back(in(v));
  e.out.assign(iterArgs.begin(), iterArgs.end());
  e.imm2.assign(iterWords.begin(), iterWords.end());
  e.target = forAt + 1;
  p.code[forAt].target = endAt + 1;
  return success();
}

LogicalResult Decoder::scfWhile(scf::WhileOp w) {
  SmallVector<uint32_t> before, after;
  SmallVector<int64_t> beforeWords, afterWords;
  for (Value a : w.getBeforeArguments()) {
    FailureOr<Slot> s = define(a, w);
    if (failed(s))
      return failure();
    before.push_back(s->base);
    beforeWords.push_back(s->words);
  }
  for (auto [a, r] : llvm::zip(w.getAfterArguments(), w.getResults())) {
    FailureOr<Slot> s = define(a, w);
    if (failed(s))
      return failure();
    // A lane's results are the condition's operands when it leaves.
    slots[r] = *s;
    after.push_back(s->base);
    afterWords.push_back(s->words);
  }
  int32_t whileAt = here();
  {
    Inst &i = emit(Opc::While, w);
    for (Value v : w.getInits())
      i.in.push_back(in(v));
    i.out.assign(before.begin(), before.end());
    i.imm2.assign(beforeWords.begin(), beforeWords.end());
  }
  if (failed(block(w.getBefore().front())))
    return failure();
  scf::ConditionOp c = w.getConditionOp();
  int32_t condAt = here();
  {
    Inst &i = emit(Opc::Cond, c);
    i.in.push_back(in(c.getCondition()));
    for (Value v : c.getArgs())
      i.in.push_back(in(v));
    i.out.assign(after.begin(), after.end());
    i.imm2.assign(afterWords.begin(), afterWords.end());
  }
  if (failed(block(w.getAfter().front())))
    return failure();
  auto y = cast<scf::YieldOp>(w.getAfter().front().getTerminator());
  int32_t endAt = here();
  Inst &e = emit(Opc::EndWhile, y);
  for (Value v : y.getOperands())
    e.in.push_back(in(v));
  e.out.assign(before.begin(), before.end());
  e.imm2.assign(beforeWords.begin(), beforeWords.end());
  e.target = whileAt + 1;
  p.code[condAt].target = endAt + 1;
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult Decoder::op(Operation *o) {
  if (std::optional<LogicalResult> r = elementwiseOp(o))
    return *r;
  if (auto f = dyn_cast<scf::ForOp>(o))
    return scfFor(f);
  if (auto i = dyn_cast<scf::IfOp>(o))
    return scfIf(i);
  if (auto w = dyn_cast<scf::WhileOp>(o))
    return scfWhile(w);
  if (isa<vector::ExtractOp, vector::InsertOp, vector::BroadcastOp,
          vector::FromElementsOp, vector::ShapeCastOp, vector::TransposeOp,
          vector::ExtractStridedSliceOp, vector::InsertStridedSliceOp,
          vector::ShuffleOp>(o))
    return vectorOp(o);
  if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
          memref::AllocaOp, memref::GetGlobalOp, memref::DimOp,
          memref::ExtractAlignedPointerAsIndexOp,
          memref::ExtractStridedMetadataOp, memref::CastOp,
          memref::MemorySpaceCastOp, memref::AssumeAlignmentOp,
          memref::ReinterpretCastOp, memref::SubViewOp, memref::CollapseShapeOp,
          memref::ExpandShapeOp, memref::ViewOp, gpu::DynamicSharedMemoryOp>(o))
    return memoryOp(o);
  if (isa<UnrealizedConversionCastOp>(o))
    return unrealizedCast(o);
  if (isa<nvgpu::TmaAsyncLoadOp, nvgpu::TmaAsyncStoreOp, nvgpu::TmaPrefetchOp,
          nvgpu::TmaFenceOp, NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaFenceAlignedOp,
          NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp,
          NVVM::FenceMbarrierInitOp, NVVM::FenceProxyOp,
          NVVM::SetMaxRegisterOp>(o))
    return hopperOp(o);
  if (isa<NVVM::Tcgen05AllocOp, NVVM::Tcgen05DeallocOp,
          NVVM::Tcgen05RelinquishAllocPermitOp, NVVM::Tcgen05MMAOp,
          NVVM::Tcgen05CommitOp, NVVM::Tcgen05LdOp, NVVM::Tcgen05StOp,
          NVVM::Tcgen05WaitOp, NVVM::Tcgen05FenceOp, NVVM::Tcgen05CpOp,
          NVVM::Tcgen05ShiftOp>(o))
    return blackwellOp(o);
  if (isa<NVVM::ClusterArriveOp, NVVM::ClusterArriveRelaxedOp,
          NVVM::ClusterWaitOp, NVVM::MapaOp, LLVM::AddrSpaceCastOp>(o))
    return clusterOp(o);
  if (isa<LLVM::LLVMDialect>(o->getDialect()))
    return llvmOp(o);
  if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
          NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierExpectTxOp,
          NVVM::MBarrierTryWaitParityOp, NVVM::MBarrierTestWaitOp,
          NVVM::LdMatrixOp, NVVM::StMatrixOp, NVVM::CpAsyncOp,
          NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp>(o))
    return rawNvvmOp(o);
  if (isa<gpu::GPUDialect, NVVM::NVVMDialect>(o->getDialect()))
    return gpuOp(o);
  if (isa<nvgpu::NVGPUDialect>(o->getDialect()))
    return nvgpuOp(o);
  if (o->getNumRegions() != 0 || o->getNumSuccessors() != 0)
    return o->emitError("axe-gpu-run: only structured control flow (scf.for, "
                        "scf.if, scf.while) is modelled; '")
           << o->getName() << "' is not";
  return unsupported(o);
}

LogicalResult Decoder::unrealizedCast(Operation *o) {
  // The descriptor casts around a kernel's !llvm.ptr parameter: the
  // value is the same word.
  if (o->getNumOperands() != 1 || o->getNumResults() != 1)
    return unsupported(o);
  FailureOr<ElementInfo> src = info(o->getOperand(0).getType(), o);
  FailureOr<ElementInfo> dst = info(o->getResult(0).getType(), o);
  if (failed(src) || failed(dst))
    return failure();
  if (src->words != 1 || dst->words != 1 || src->kind != Kind::Int ||
      dst->kind != Kind::Int || src->bits != dst->bits)
    return o->emitError("axe-gpu-run: builtin.unrealized_conversion_cast "
                        "is modelled between !llvm.ptr and tensor map "
                        "descriptors (or integers of one width) only");
  return simple(o, Opc::Cast, uint8_t(CastOp::Bitcast));
}

LogicalResult Decoder::run() {
  gpu::GPUFuncOp f = p.func;
  if (!f.getBody().hasOneBlock())
    return f.emitError("axe-gpu-run: kernel @")
           << p.name << " has branches (several blocks); only structured "
           << "control flow (scf) is modelled";
  Block &entry = f.getBody().front();
  // The entry block's arguments are the signature's, then the attributions.
  unsigned numInputs = f.getFunctionType().getNumInputs();
  for (BlockArgument a : entry.getArguments().take_front(numInputs)) {
    FailureOr<Slot> s = define(a, f);
    if (failed(s))
      return failure();
    FailureOr<ElementInfo> e = info(a.getType(), f);
    ArgInfo ai{*s, e->kind, e->bits, isa<MemRefType>(a.getType()), a.getType()};
    if (ai.isMemRef) {
      auto mt = cast<MemRefType>(a.getType());
      FailureOr<ElementInfo> el = info(mt.getElementType(), f);
      if (failed(el))
        return failure();
      ai.kind = el->kind;
      ai.bits = el->bits;
    }
    p.args.push_back(ai);
  }
  for (auto [n, a] : llvm::enumerate(f.getWorkgroupAttributions())) {
    FailureOr<Slot> s = define(a, f);
    FailureOr<BufferDecl> d = staticBuffer(cast<MemRefType>(a.getType()), f);
    if (failed(s) || failed(d))
      return failure();
    d->name = "workgroup attribution " + std::to_string(n);
    if (auto align = dyn_cast_or_null<IntegerAttr>(
            f.getWorkgroupAttributionAttr(n, "llvm.align"))) {
      d->align = align.getInt();
      if (d->align <= 0 || (d->align & (d->align - 1)))
        return f.emitError("axe-gpu-run: llvm.align ")
               << d->align << " of workgroup attribution " << n
               << " is not a power of two";
    }
    p.shared.push_back({s->base, *d});
  }
  for (auto [n, a] : llvm::enumerate(f.getPrivateAttributions())) {
    FailureOr<Slot> s = define(a, f);
    FailureOr<BufferDecl> d = staticBuffer(cast<MemRefType>(a.getType()), f);
    if (failed(s) || failed(d))
      return failure();
    d->name = "private attribution " + std::to_string(n);
    p.privates.push_back({s->base, *d});
  }
  if (failed(block(entry)))
    return failure();
  Operation *term = entry.getTerminator();
  if (!isa<gpu::ReturnOp>(term))
    return term->emitError("axe-gpu-run: a kernel ends with gpu.return");
  emit(Opc::Return, term);
  return success();
}

FailureOr<std::unique_ptr<Program>>
axe::gpusim::decodeKernel(gpu::GPUFuncOp func) {
  auto p = std::make_unique<Program>();
  p->func = func;
  p->name = func.getName().str();
  Decoder d(*p);
  if (failed(d.run()))
    return failure();
  return p;
}

StringRef axe::gpusim::statName(const Program &p, size_t inst) {
  switch (p.code[inst].opc) {
  case Opc::Else:
  case Opc::EndIf:
    return "scf.if";
  case Opc::EndFor:
    return "scf.for";
  case Opc::Cond:
  case Opc::EndWhile:
    return "scf.while";
  case Opc::IfYield:
    return "scf.yield";
  default:
    return p.ops[inst]->getName().getStringRef();
  }
}
