//===- Decode.cpp - gpu.func to the interpreter's instructions ------------===//
//
// One pass over the kernel body: every value gets a register-file slot,
// constants are collected to be written once per warp, and each op becomes
// an instruction with its static data resolved (element kinds, widths,
// gather maps of vector shuffles, view recipes). Anything the interpreter
// does not model is refused here, before the kernel runs.
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Program.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace axe::gpusim;

namespace {

struct ElementInfo {
  Kind kind = Kind::Int;
  unsigned bits = 64;
  uint32_t n = 1;     // elements (vectors), 1 for scalars
  uint32_t words = 1; // words per lane
};

/// Static shape/stride spec: a constant, or operand `value` of the inst.
constexpr int64_t kStatic = 0, kDynamic = 1;

class Decoder {
public:
  Decoder(Program &p) : p(p) {}

  LogicalResult run();

private:
  Program &p;
  DenseMap<Value, Slot> slots;

  FailureOr<ElementInfo> info(Type t, Operation *where);
  FailureOr<Slot> define(Value v, Operation *where);
  uint32_t in(Value v) { return slots.lookup(v).base; }
  uint32_t words(Value v) { return slots.lookup(v).words; }
  Inst &emit(Opc opc, Operation *op) {
    p.code.emplace_back();
    p.ops.push_back(op);
    Inst &i = p.code.back();
    i.opc = opc;
    return i;
  }
  int32_t here() const { return int32_t(p.code.size()); }

  LogicalResult block(Block &b);
  LogicalResult op(Operation *op);
  LogicalResult simple(Operation *op, Opc opc, uint8_t sub);
  LogicalResult constant(arith::ConstantOp op);
  LogicalResult castOp(Operation *op);
  LogicalResult scfIf(scf::IfOp op);
  LogicalResult scfFor(scf::ForOp op);
  LogicalResult scfWhile(scf::WhileOp op);
  LogicalResult gather(Operation *op, ArrayRef<std::pair<int64_t, int64_t>>);
  LogicalResult vectorOp(Operation *op);
  LogicalResult memoryOp(Operation *op);
  LogicalResult view(Operation *op);
  LogicalResult gpuOp(Operation *op);
  LogicalResult nvgpuOp(Operation *op);
  LogicalResult llvmOp(Operation *op);
  LogicalResult rawNvvmOp(Operation *op);
  LogicalResult hopperOp(Operation *op);
  LogicalResult blackwellOp(Operation *op);
  LogicalResult clusterOp(Operation *op);
  FailureOr<int64_t> sharedBuffer(memref::GetGlobalOp op);
  void spec(Inst &i, OpFoldResult r, Operation *op);
  FailureOr<BufferDecl> staticBuffer(MemRefType t, Operation *where);
  /// memref.view's LLVM lowering moves the result's base pointer by the
  /// shift and gives it offset 0; the interpreter keeps the base and adds
  /// the shift to the offset. Loads and stores see the same bytes either
  /// way; what reads the base back (extract_strided_metadata,
  /// extract_aligned_pointer_as_index, reinterpret_cast) would not, so such
  /// programs are refused rather than run differently.
  LogicalResult checkViewBaseUnused(memref::ViewOp view) {
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

  LogicalResult unsupported(Operation *op) {
    return op->emitError("axe-gpu-run: unsupported op '")
           << op->getName() << "' in kernel @" << p.name;
  }
};

} // namespace

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

/// Sets kind/bits/n of `i` from `t`.
static void setType(Inst &i, const ElementInfo &e) {
  i.kind = e.kind;
  i.bits = e.bits;
  i.n = e.n;
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
// Element-wise ops
//===----------------------------------------------------------------------===//

/// Operands in order, one result; kind/bits/n of the result, kind2/bits2 of
/// the first operand.
LogicalResult Decoder::simple(Operation *o, Opc opc, uint8_t sub) {
  Value first = o->getNumOperands() ? o->getOperand(0) : o->getResult(0);
  FailureOr<ElementInfo> src = info(first.getType(), o);
  if (failed(src))
    return failure();
  SmallVector<uint32_t> ins;
  for (Value v : o->getOperands())
    ins.push_back(in(v));
  SmallVector<uint32_t> outs;
  for (Value r : o->getResults()) {
    FailureOr<Slot> s = define(r, o);
    if (failed(s))
      return failure();
    outs.push_back(s->base);
  }
  FailureOr<ElementInfo> res =
      o->getNumResults() ? info(o->getResult(0).getType(), o) : src;
  Inst &i = emit(opc, o);
  i.sub = sub;
  setType(i, *res);
  // Memrefs and tokens (select, shuffles of them) move all their words.
  if (res->kind == Kind::MemRef || res->kind == Kind::Token)
    i.n = res->words;
  i.kind2 = src->kind;
  i.bits2 = src->bits;
  i.in.assign(ins.begin(), ins.end());
  i.out.assign(outs.begin(), outs.end());
  return success();
}

LogicalResult Decoder::constant(arith::ConstantOp c) {
  FailureOr<Slot> s = define(c.getResult(), c);
  if (failed(s))
    return failure();
  FailureOr<ElementInfo> e = info(c.getType(), c);
  Program::Const k{s->base, {}};
  auto word = [&](Attribute a) -> std::optional<uint64_t> {
    if (auto i = dyn_cast<IntegerAttr>(a))
      return i.getValue().getZExtValue() & widthMask(e->bits);
    if (auto f = dyn_cast<FloatAttr>(a))
      return f.getValue().bitcastToAPInt().getZExtValue();
    return std::nullopt;
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue())) {
    for (Attribute a : dense.getValues<Attribute>())
      if (auto w = word(a))
        k.words.push_back(*w);
  } else if (auto w = word(c.getValue())) {
    k.words.push_back(*w);
  }
  if (k.words.size() != e->words)
    return c.emitError("axe-gpu-run: unsupported constant ") << c.getValue();
  p.consts.push_back(std::move(k));
  return success();
}

LogicalResult Decoder::castOp(Operation *o) {
  FailureOr<ElementInfo> src = info(o->getOperand(0).getType(), o);
  FailureOr<ElementInfo> dst = info(o->getResult(0).getType(), o);
  if (failed(src) || failed(dst))
    return failure();
  CastOp k;
  bool isSigned = !isa<arith::ExtUIOp, arith::IndexCastUIOp>(o);
  if (isa<arith::SIToFPOp>(o))
    k = CastOp::SIToFP;
  else if (isa<arith::UIToFPOp>(o))
    k = CastOp::UIToFP;
  else if (isa<arith::FPToSIOp>(o))
    k = CastOp::FPToSI;
  else if (isa<arith::FPToUIOp>(o))
    k = CastOp::FPToUI;
  else if (isa<arith::ExtFOp, arith::TruncFOp>(o))
    k = CastOp::FPToFP;
  else if (isa<arith::BitcastOp>(o))
    k = CastOp::Bitcast;
  else if (src->bits < dst->bits)
    k = isSigned ? CastOp::ExtS : CastOp::ExtU;
  else if (src->bits > dst->bits)
    k = CastOp::Trunc;
  else
    k = CastOp::Bitcast;
  if (k == CastOp::Bitcast && isFloat(src->kind) != isFloat(dst->kind) &&
      storageBits(src->kind, src->bits) != storageBits(dst->kind, dst->bits))
    return o->emitError("axe-gpu-run: bitcast between sizes");
  return simple(o, Opc::Cast, uint8_t(k));
}

//===----------------------------------------------------------------------===//
// Vector shuffles as gathers
//===----------------------------------------------------------------------===//

/// out[e] = operand(map[e].first)[map[e].second].
LogicalResult Decoder::gather(Operation *o,
                              ArrayRef<std::pair<int64_t, int64_t>> map) {
  FailureOr<Slot> s = define(o->getResult(0), o);
  if (failed(s))
    return failure();
  Inst &i = emit(Opc::Gather, o);
  for (Value v : o->getOperands())
    i.in.push_back(in(v));
  i.out = {s->base};
  i.n = map.size();
  for (auto [operand, element] : map) {
    i.imm.push_back(operand);
    i.imm2.push_back(element);
  }
  return success();
}

static SmallVector<int64_t> shapeOf(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return SmallVector<int64_t>(v.getShape());
  return {};
}

static int64_t product(ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// Row-major linear index of `idx` in `shape`.
static int64_t linear(ArrayRef<int64_t> idx, ArrayRef<int64_t> shape) {
  int64_t l = 0;
  for (auto [i, s] : llvm::zip(idx, shape))
    l = l * s + i;
  return l;
}

static SmallVector<int64_t> delinear(int64_t l, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> idx(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    idx[d] = l % shape[d];
    l /= shape[d];
  }
  return idx;
}

LogicalResult Decoder::vectorOp(Operation *o) {
  using Map = SmallVector<std::pair<int64_t, int64_t>>;
  SmallVector<int64_t> out = shapeOf(o->getResult(0).getType());
  int64_t n = product(out);
  Map map;
  if (isa<vector::BroadcastOp>(o)) {
    SmallVector<int64_t> src = shapeOf(o->getOperand(0).getType());
    size_t lead = out.size() - src.size();
    for (int64_t e = 0; e < n; ++e) {
      SmallVector<int64_t> o_ = delinear(e, out), s(src.size());
      for (size_t d = 0; d < src.size(); ++d)
        s[d] = src[d] == 1 ? 0 : o_[d + lead];
      map.push_back({0, linear(s, src)});
    }
    return gather(o, map);
  }
  if (auto x = dyn_cast<vector::ExtractOp>(o)) {
    if (!x.getDynamicPosition().empty()) {
      if (shapeOf(x.getSource().getType()).size() != 1)
        return o->emitError("axe-gpu-run: vector.extract at a dynamic "
                            "position of a vector of rank > 1");
      if (failed(simple(o, Opc::ExtractDyn, 0)))
        return failure();
      p.code.back().imm = {shapeOf(x.getSource().getType())[0]};
      return success();
    }
    SmallVector<int64_t> src = shapeOf(x.getSource().getType());
    ArrayRef<int64_t> pos = x.getStaticPosition();
    int64_t inner = product(ArrayRef(src).drop_front(pos.size()));
    SmallVector<int64_t> full(pos);
    full.resize(src.size(), 0);
    int64_t start = linear(full, src);
    for (int64_t e = 0; e < inner; ++e)
      map.push_back({0, start + e});
    // Only the source is read.
    FailureOr<Slot> s = define(o->getResult(0), o);
    if (failed(s))
      return failure();
    Inst &i = emit(Opc::Gather, o);
    i.in = {in(x.getSource())};
    i.out = {s->base};
    i.n = map.size();
    for (auto [a, b] : map) {
      i.imm.push_back(a);
      i.imm2.push_back(b);
    }
    return success();
  }
  if (auto ins = dyn_cast<vector::InsertOp>(o)) {
    if (!ins.getDynamicPosition().empty())
      return o->emitError("axe-gpu-run: vector.insert at a dynamic position");
    ArrayRef<int64_t> pos = ins.getStaticPosition();
    int64_t inner = product(ArrayRef(out).drop_front(pos.size()));
    SmallVector<int64_t> full(pos);
    full.resize(out.size(), 0);
    int64_t start = linear(full, out);
    for (int64_t e = 0; e < n; ++e)
      map.push_back(e >= start && e < start + inner
                        ? std::pair<int64_t, int64_t>{0, e - start}
                        : std::pair<int64_t, int64_t>{1, e});
    FailureOr<Slot> s = define(o->getResult(0), o);
    if (failed(s))
      return failure();
    Inst &i = emit(Opc::Gather, o);
    i.in = {in(ins.getValueToStore()), in(ins.getDest())};
    i.out = {s->base};
    i.n = n;
    for (auto [a, b] : map) {
      i.imm.push_back(a);
      i.imm2.push_back(b);
    }
    return success();
  }
  if (isa<vector::FromElementsOp>(o)) {
    for (int64_t e = 0; e < n; ++e)
      map.push_back({e, 0});
    return gather(o, map);
  }
  if (isa<vector::ShapeCastOp>(o)) {
    for (int64_t e = 0; e < n; ++e)
      map.push_back({0, e});
    return gather(o, map);
  }
  if (auto t = dyn_cast<vector::TransposeOp>(o)) {
    SmallVector<int64_t> src = shapeOf(t.getVector().getType());
    ArrayRef<int64_t> perm = t.getPermutation();
    for (int64_t e = 0; e < n; ++e) {
      SmallVector<int64_t> oi = delinear(e, out), si(src.size());
      for (size_t d = 0; d < perm.size(); ++d)
        si[perm[d]] = oi[d];
      map.push_back({0, linear(si, src)});
    }
    return gather(o, map);
  }
  if (auto x = dyn_cast<vector::ExtractStridedSliceOp>(o)) {
    SmallVector<int64_t> src = shapeOf(x.getSource().getType());
    SmallVector<int64_t> offs, strides;
    for (Attribute a : x.getOffsets())
      offs.push_back(cast<IntegerAttr>(a).getInt());
    for (Attribute a : x.getStrides())
      strides.push_back(cast<IntegerAttr>(a).getInt());
    for (int64_t e = 0; e < n; ++e) {
      SmallVector<int64_t> oi = delinear(e, out);
      for (size_t d = 0; d < offs.size(); ++d)
        oi[d] = offs[d] + oi[d] * strides[d];
      map.push_back({0, linear(oi, src)});
    }
    return gather(o, map);
  }
  if (auto x = dyn_cast<vector::InsertStridedSliceOp>(o)) {
    SmallVector<int64_t> src = shapeOf(x.getValueToStore().getType());
    SmallVector<int64_t> offs, strides;
    for (Attribute a : x.getOffsets())
      offs.push_back(cast<IntegerAttr>(a).getInt());
    for (Attribute a : x.getStrides())
      strides.push_back(cast<IntegerAttr>(a).getInt());
    map.resize(n);
    for (int64_t e = 0; e < n; ++e)
      map[e] = {1, e};
    size_t lead = out.size() - src.size();
    for (int64_t e = 0, m = product(src); e < m; ++e) {
      SmallVector<int64_t> si = delinear(e, src), di(offs);
      for (size_t d = 0; d < src.size(); ++d)
        di[lead + d] += si[d] * strides[d];
      map[linear(di, out)] = {0, e};
    }
    return gather(o, map);
  }
  if (auto s = dyn_cast<vector::ShuffleOp>(o)) {
    SmallVector<int64_t> v1 = shapeOf(s.getV1().getType());
    int64_t rows1 = v1.empty() ? 1 : v1[0];
    int64_t inner = n / std::max<int64_t>(1, int64_t(s.getMask().size()));
    for (auto [r, m] : llvm::enumerate(s.getMask()))
      for (int64_t e = 0; e < inner; ++e)
        map.push_back(m < rows1 ? std::pair<int64_t, int64_t>{0, m * inner + e}
                                : std::pair<int64_t, int64_t>{
                                      1, (m - rows1) * inner + e});
    return gather(o, map);
  }
  return unsupported(o);
}

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

LogicalResult Decoder::memoryOp(Operation *o) {
  uint64_t alignment = 0;
  auto access = [&](Value memref, ValueRange indices, Value stored,
                    Type valueType, bool isLoad) -> LogicalResult {
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
    uint32_t out = 0;
    if (isLoad) {
      FailureOr<Slot> s = define(o->getResult(0), o);
      if (failed(s))
        return failure();
      out = s->base;
    }
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
      i.out = {out};
    i.imm.push_back(mt.getRank());
    // The alignment a vector access declares (0: none), checked when it
    // runs: a GPU faults on a misaligned wide access.
    i.imm.push_back(int64_t(alignment));
    // The vector's shape spans the memref's trailing dims.
    i.imm2.assign(vshape.begin(), vshape.end());
    return success();
  };
  if (auto l = dyn_cast<memref::LoadOp>(o))
    return access(l.getMemRef(), l.getIndices(), {}, l.getType(), true);
  if (auto s = dyn_cast<memref::StoreOp>(o))
    return access(s.getMemRef(), s.getIndices(), s.getValueToStore(),
                  s.getValueToStore().getType(), false);
  if (auto l = dyn_cast<vector::LoadOp>(o)) {
    alignment = l.getAlignment().value_or(0);
    return access(l.getBase(), l.getIndices(), {}, l.getType(), true);
  }
  if (auto s = dyn_cast<vector::StoreOp>(o)) {
    alignment = s.getAlignment().value_or(0);
    return access(s.getBase(), s.getIndices(), s.getValueToStore(),
                  s.getValueToStore().getType(), false);
  }
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
  return view(o);
}

//===----------------------------------------------------------------------===//
// gpu, nvvm and nvgpu
//===----------------------------------------------------------------------===//

static uint8_t dimOffset(gpu::Dimension d) { return uint8_t(d); }

LogicalResult Decoder::gpuOp(Operation *o) {
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
  if (auto s = dyn_cast<gpu::ShuffleOp>(o)) {
    ShuffleMode m;
    switch (s.getMode()) {
    case gpu::ShuffleMode::XOR:
      m = ShuffleMode::Xor;
      break;
    case gpu::ShuffleMode::UP:
      m = ShuffleMode::Up;
      break;
    case gpu::ShuffleMode::DOWN:
      m = ShuffleMode::Down;
      break;
    default:
      m = ShuffleMode::Idx;
    }
    // in: value, offset, width; imm[0] = 0: gpu.shuffle (width form).
    if (failed(simple(o, Opc::Shuffle, uint8_t(m))))
      return failure();
    p.code.back().imm = {0};
    return success();
  }
  if (auto s = dyn_cast<NVVM::ShflOp>(o)) {
    if (o->getNumResults() != 1 || isa<LLVM::LLVMStructType>(s.getType()))
      return o->emitError("axe-gpu-run: nvvm.shfl.sync with a validity "
                          "result is not modelled");
    ShuffleMode m;
    switch (s.getKind()) {
    case NVVM::ShflKind::bfly:
      m = ShuffleMode::Xor;
      break;
    case NVVM::ShflKind::up:
      m = ShuffleMode::Up;
      break;
    case NVVM::ShflKind::down:
      m = ShuffleMode::Down;
      break;
    default:
      m = ShuffleMode::Idx;
    }
    // in: mask, value, offset, clamp; imm[0] = 1: the PTX form. The result's
    // kind is the value's.
    if (failed(simple(o, Opc::Shuffle, uint8_t(m))))
      return failure();
    p.code.back().imm = {1};
    return success();
  }
  if (auto v = dyn_cast<NVVM::VoteSyncOp>(o)) {
    VoteOp k;
    switch (v.getKind()) {
    case NVVM::VoteSyncKind::ballot:
      k = VoteOp::Ballot;
      break;
    case NVVM::VoteSyncKind::any:
      k = VoteOp::Any;
      break;
    case NVVM::VoteSyncKind::all:
      k = VoteOp::All;
      break;
    default:
      k = VoteOp::Uni;
    }
    return simple(o, Opc::Vote, uint8_t(k));
  }
  if (auto r = dyn_cast<NVVM::ReduxOp>(o)) {
    ReduceOp k;
    switch (r.getKind()) {
    case NVVM::ReduxKind::ADD:
      k = ReduceOp::Add;
      break;
    case NVVM::ReduxKind::AND:
      k = ReduceOp::And;
      break;
    case NVVM::ReduxKind::OR:
      k = ReduceOp::Or;
      break;
    case NVVM::ReduxKind::XOR:
      k = ReduceOp::Xor;
      break;
    case NVVM::ReduxKind::MAX:
      k = ReduceOp::MaxS;
      break;
    case NVVM::ReduxKind::MIN:
      k = ReduceOp::MinS;
      break;
    case NVVM::ReduxKind::UMAX:
      k = ReduceOp::MaxU;
      break;
    case NVVM::ReduxKind::UMIN:
      k = ReduceOp::MinU;
      break;
    case NVVM::ReduxKind::FMIN:
      k = ReduceOp::MinF;
      break;
    default:
      k = ReduceOp::MaxF;
    }
    return simple(o, Opc::Redux, uint8_t(k));
  }
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

LogicalResult Decoder::nvgpuOp(Operation *o) {
  if (auto l = dyn_cast<nvgpu::LdMatrixOp>(o)) {
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
  if (auto c = dyn_cast<nvgpu::DeviceAsyncCopyOp>(o)) {
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
  auto mbarrier = [&](MBarrierOp k) -> LogicalResult {
    if (failed(simple(o, Opc::MBarrier, uint8_t(k))))
      return failure();
    p.code.back().imm = {int64_t(o->getNumOperands())};
    return success();
  };
  // Operands: the group, the barrier's index, then the op's own.
  if (isa<nvgpu::MBarrierInitOp>(o)) {
    auto m = cast<nvgpu::MBarrierInitOp>(o);
    if (failed(mbarrier(MBarrierOp::Init)))
      return failure();
    Inst &i = p.code.back();
    i.in = {in(m.getBarriers()), in(m.getMbarId()), in(m.getCount())};
    if (m.getPredicate())
      i.in.push_back(in(m.getPredicate()));
    return success();
  }
  if (auto m = dyn_cast<nvgpu::MBarrierArriveOp>(o)) {
    if (failed(mbarrier(MBarrierOp::Arrive)))
      return failure();
    p.code.back().in = {in(m.getBarriers()), in(m.getMbarId())};
    return success();
  }
  if (auto m = dyn_cast<nvgpu::MBarrierArriveNoCompleteOp>(o)) {
    if (failed(mbarrier(MBarrierOp::ArriveNoComplete)))
      return failure();
    p.code.back().in = {in(m.getBarriers()), in(m.getMbarId()),
                        in(m.getCount())};
    return success();
  }
  if (auto m = dyn_cast<nvgpu::MBarrierArriveExpectTxOp>(o)) {
    if (failed(mbarrier(MBarrierOp::ArriveExpectTx)))
      return failure();
    Inst &i = p.code.back();
    i.in = {in(m.getBarriers()), in(m.getMbarId()), in(m.getTxcount())};
    if (m.getPredicate())
      i.in.push_back(in(m.getPredicate()));
    return success();
  }
  if (auto m = dyn_cast<nvgpu::MBarrierTestWaitOp>(o)) {
    if (failed(mbarrier(MBarrierOp::TestWait)))
      return failure();
    p.code.back().in = {in(m.getBarriers()), in(m.getMbarId()),
                        in(m.getToken())};
    return success();
  }
  if (auto m = dyn_cast<nvgpu::MBarrierTryWaitParityOp>(o)) {
    if (failed(mbarrier(MBarrierOp::TryWaitParity)))
      return failure();
    p.code.back().in = {in(m.getBarriers()), in(m.getMbarId()),
                        in(m.getPhaseParity())};
    return success();
  }
  if (auto m = dyn_cast<nvgpu::MBarrierGetOp>(o)) {
    if (failed(mbarrier(MBarrierOp::Get)))
      return failure();
    p.code.back().in = {in(m.getBarriers()), in(m.getMbarId())};
    return success();
  }
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

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult Decoder::op(Operation *o) {
  static const llvm::StringMap<IBinOp> ibin = {
      {"arith.addi", IBinOp::Add},
      {"arith.subi", IBinOp::Sub},
      {"arith.muli", IBinOp::Mul},
      {"arith.divsi", IBinOp::DivS},
      {"arith.divui", IBinOp::DivU},
      {"arith.remsi", IBinOp::RemS},
      {"arith.remui", IBinOp::RemU},
      {"arith.floordivsi", IBinOp::FloorDivS},
      {"arith.ceildivsi", IBinOp::CeilDivS},
      {"arith.ceildivui", IBinOp::CeilDivU},
      {"arith.andi", IBinOp::And},
      {"arith.ori", IBinOp::Or},
      {"arith.xori", IBinOp::Xor},
      {"arith.shli", IBinOp::Shl},
      {"arith.shrsi", IBinOp::ShrS},
      {"arith.shrui", IBinOp::ShrU},
      {"arith.maxsi", IBinOp::MaxS},
      {"arith.maxui", IBinOp::MaxU},
      {"arith.minsi", IBinOp::MinS},
      {"arith.minui", IBinOp::MinU}};
  static const llvm::StringMap<FBinOp> fbin = {
      {"arith.addf", FBinOp::Add},
      {"arith.subf", FBinOp::Sub},
      {"arith.mulf", FBinOp::Mul},
      {"arith.divf", FBinOp::Div},
      {"arith.remf", FBinOp::Rem},
      {"arith.maximumf", FBinOp::MaximumF},
      {"arith.minimumf", FBinOp::MinimumF},
      {"arith.maxnumf", FBinOp::MaxNumF},
      {"arith.minnumf", FBinOp::MinNumF},
      {"math.powf", FBinOp::Pow},
      {"math.atan2", FBinOp::Atan2},
      {"math.copysign", FBinOp::CopySign}};
  static const llvm::StringMap<FUnOp> fun = {
      {"arith.negf", FUnOp::Neg},
      {"math.absf", FUnOp::Abs},
      {"math.exp", FUnOp::Exp},
      {"math.exp2", FUnOp::Exp2},
      {"math.expm1", FUnOp::Expm1},
      {"math.log", FUnOp::Log},
      {"math.log2", FUnOp::Log2},
      {"math.log10", FUnOp::Log10},
      {"math.log1p", FUnOp::Log1p},
      {"math.sqrt", FUnOp::Sqrt},
      {"math.rsqrt", FUnOp::Rsqrt},
      {"math.tanh", FUnOp::Tanh},
      {"math.sin", FUnOp::Sin},
      {"math.cos", FUnOp::Cos},
      {"math.tan", FUnOp::Tan},
      {"math.atan", FUnOp::Atan},
      {"math.erf", FUnOp::Erf},
      {"math.ceil", FUnOp::Ceil},
      {"math.floor", FUnOp::Floor},
      {"math.round", FUnOp::Round},
      {"math.roundeven", FUnOp::RoundEven},
      {"math.trunc", FUnOp::Trunc}};
  static const llvm::StringMap<IUnOp> iun = {{"math.absi", IUnOp::AbsI},
                                             {"math.ctlz", IUnOp::Ctlz},
                                             {"math.cttz", IUnOp::Cttz},
                                             {"math.ctpop", IUnOp::Ctpop}};
  StringRef name = o->getName().getStringRef();
  if (auto it = ibin.find(name); it != ibin.end())
    return simple(o, Opc::IBin, uint8_t(it->second));
  if (auto it = fbin.find(name); it != fbin.end())
    return simple(o, Opc::FBin, uint8_t(it->second));
  if (auto it = fun.find(name); it != fun.end())
    return simple(o, Opc::FUn, uint8_t(it->second));
  if (auto it = iun.find(name); it != iun.end())
    return simple(o, Opc::IUn, uint8_t(it->second));
  if (auto c = dyn_cast<arith::ConstantOp>(o))
    return constant(c);
  if (auto c = dyn_cast<arith::CmpIOp>(o))
    return simple(o, Opc::CmpI, uint8_t(c.getPredicate()));
  if (auto c = dyn_cast<arith::CmpFOp>(o))
    return simple(o, Opc::CmpF, uint8_t(c.getPredicate()));
  if (auto s = dyn_cast<arith::SelectOp>(o)) {
    if (failed(simple(o, Opc::Select, 0)))
      return failure();
    // Whether one i1 selects whole vectors.
    p.code.back().imm = {isa<VectorType>(s.getCondition().getType()) ? 0 : 1};
    return success();
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
          arith::IndexCastUIOp, arith::SIToFPOp, arith::UIToFPOp,
          arith::FPToSIOp, arith::FPToUIOp, arith::ExtFOp, arith::TruncFOp,
          arith::BitcastOp>(o))
    return castOp(o);
  if (isa<math::FmaOp, vector::FMAOp>(o))
    return simple(o, Opc::Fma, 0);
  if (auto f = dyn_cast<scf::ForOp>(o))
    return scfFor(f);
  if (auto i = dyn_cast<scf::IfOp>(o))
    return scfIf(i);
  if (auto w = dyn_cast<scf::WhileOp>(o))
    return scfWhile(w);
  if (isa<vector::ReductionOp>(o)) {
    auto r = cast<vector::ReductionOp>(o);
    ReduceOp k;
    switch (r.getKind()) {
    case vector::CombiningKind::ADD:
      k = ReduceOp::Add;
      break;
    case vector::CombiningKind::MUL:
      k = ReduceOp::Mul;
      break;
    case vector::CombiningKind::MINUI:
      k = ReduceOp::MinU;
      break;
    case vector::CombiningKind::MINSI:
      k = ReduceOp::MinS;
      break;
    case vector::CombiningKind::MAXUI:
      k = ReduceOp::MaxU;
      break;
    case vector::CombiningKind::MAXSI:
      k = ReduceOp::MaxS;
      break;
    case vector::CombiningKind::AND:
      k = ReduceOp::And;
      break;
    case vector::CombiningKind::OR:
      k = ReduceOp::Or;
      break;
    case vector::CombiningKind::XOR:
      k = ReduceOp::Xor;
      break;
    case vector::CombiningKind::MINNUMF:
      k = ReduceOp::MinF;
      break;
    case vector::CombiningKind::MAXNUMF:
      k = ReduceOp::MaxF;
      break;
    case vector::CombiningKind::MINIMUMF:
      k = ReduceOp::MinimumF;
      break;
    default:
      k = ReduceOp::MaximumF;
    }
    if (failed(simple(o, Opc::Reduce, uint8_t(k))))
      return failure();
    // The lane loop runs over the source's elements.
    FailureOr<ElementInfo> src = info(r.getVector().getType(), o);
    p.code.back().n = src->n;
    return success();
  }
  if (isa<vector::BitCastOp>(o)) {
    if (failed(simple(o, Opc::VBitcast, 0)))
      return failure();
    return success();
  }
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
          memref::ExpandShapeOp, memref::ViewOp>(o))
    return memoryOp(o);
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
  if (isa<UnrealizedConversionCastOp>(o)) {
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

//===----------------------------------------------------------------------===//
// llvm ops and nvvm ops on raw pointers
//===----------------------------------------------------------------------===//

static int64_t addressSpace(Type t) {
  auto p = dyn_cast<LLVM::LLVMPointerType>(t);
  return p ? p.getAddressSpace() : 0;
}

LogicalResult Decoder::llvmOp(Operation *o) {
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
  if (isa<LLVM::LoadOp, LLVM::StoreOp>(o)) {
    // imm: -1 (a raw address), the address space.
    bool isLoad = isa<LLVM::LoadOp>(o);
    Value addr = isLoad ? cast<LLVM::LoadOp>(o).getAddr()
                        : cast<LLVM::StoreOp>(o).getAddr();
    Value value = isLoad ? o->getResult(0) : cast<LLVM::StoreOp>(o).getValue();
    FailureOr<ElementInfo> e = info(value.getType(), o);
    if (failed(e) || e->kind == Kind::MemRef || e->kind == Kind::Token)
      return o->emitError("axe-gpu-run: llvm.load/store of scalars and "
                          "vectors only");
    uint32_t out = 0;
    if (isLoad) {
      FailureOr<Slot> s = define(value, o);
      if (failed(s))
        return failure();
      out = s->base;
    }
    Inst &i = emit(isLoad ? Opc::Load : Opc::Store, o);
    setType(i, *e);
    i.in = {in(addr)};
    if (isLoad)
      i.out = {out};
    else
      i.in.push_back(in(value));
    i.imm = {-1, addressSpace(addr.getType())};
    return success();
  }
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

LogicalResult Decoder::rawNvvmOp(Operation *o) {
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

//===----------------------------------------------------------------------===//
// sm_90: TMA and wgmma
//===----------------------------------------------------------------------===//

LogicalResult Decoder::hopperOp(Operation *o) {
  if (isa<nvgpu::TmaPrefetchOp, nvgpu::TmaFenceOp, NVVM::WgmmaFenceAlignedOp,
          NVVM::FenceMbarrierInitOp, NVVM::FenceProxyOp,
          NVVM::SetMaxRegisterOp>(o)) {
    // Ordering and resource hints: every access is immediately visible
    // and registers are not counted.
    emit(Opc::Nop, o);
    return success();
  }
  if (auto l = dyn_cast<nvgpu::TmaAsyncLoadOp>(o)) {
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
    int64_t swizzle = 0;
    switch (type.getSwizzle()) {
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
      break;
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
      swizzle = 32;
      break;
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
      swizzle = 64;
      break;
    case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
      swizzle = 128;
      break;
    }
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
  auto w = cast<NVVM::WgmmaMmaAsyncOp>(o);
  NVVM::MMAShapeAttr shape = w.getShape();
  int64_t m = shape.getM(), n = shape.getN(), k = shape.getK();
  auto inputKind = [&](NVVM::WGMMATypes t) -> std::optional<Kind> {
    if (t == NVVM::WGMMATypes::f16)
      return Kind::F16;
    if (t == NVVM::WGMMATypes::bf16)
      return Kind::BF16;
    return std::nullopt;
  };
  std::optional<Kind> ka = inputKind(w.getTypeA()),
                      kb = inputKind(w.getTypeB());
  if (!ka || ka != kb || k != 16)
    return o->emitError("axe-gpu-run: wgmma of f16 or bf16 operands (k = 16) "
                        "only is modelled");
  if (w.getTypeD() != NVVM::WGMMATypes::f32)
    return o->emitError("axe-gpu-run: wgmma into f32 accumulators only is "
                        "modelled");
  if (m != 64 || n < 8 || n > 256 || n % 8)
    return o->emitError("axe-gpu-run: wgmma m64nNk16 with N a multiple of 8 "
                        "up to 256");
  if (w.getLayoutA() != NVVM::MMALayout::row ||
      w.getLayoutB() != NVVM::MMALayout::col)
    return o->emitError("axe-gpu-run: MN-major wgmma operands (A <col>, B "
                        "<row>) are not modelled; K-major (A <row>, B <col>) "
                        "are");
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
           scale(w.getScaleB())};
  return success();
}

//===----------------------------------------------------------------------===//
// sm_100: tcgen05
//===----------------------------------------------------------------------===//

LogicalResult Decoder::blackwellOp(Operation *o) {
  if (isa<NVVM::Tcgen05WaitOp, NVVM::Tcgen05FenceOp>(o)) {
    // tcgen05 results are written at issue and every access is immediately
    // visible: waits and fences order nothing more.
    emit(Opc::Nop, o);
    return success();
  }
  auto cta1 = [&](NVVM::CTAGroupKind g) -> LogicalResult {
    if (g != NVVM::CTAGroupKind::CTA_1)
      return o->emitError("axe-gpu-run: tcgen05 with cta_group::2 (CTA "
                          "pairs) is not modelled");
    return success();
  };
  auto sharedPointer = [&](Value v, StringRef what) -> LogicalResult {
    if (addressSpace(v.getType()) != 3)
      return o->emitError("axe-gpu-run: ")
             << what << " takes a shared-memory pointer (!llvm.ptr<3>) here";
    return success();
  };
  auto tcgen05 = [&](Tcgen05Op k) -> Inst & {
    Inst &i = emit(Opc::Tcgen05, o);
    i.sub = uint8_t(k);
    return i;
  };
  if (auto a = dyn_cast<NVVM::Tcgen05AllocOp>(o)) {
    if (failed(cta1(a.getGroup())) ||
        failed(sharedPointer(a.getAddr(), "tcgen05.alloc")))
      return failure();
    tcgen05(Tcgen05Op::Alloc).in = {in(a.getAddr()), in(a.getNCols())};
    return success();
  }
  if (auto d = dyn_cast<NVVM::Tcgen05DeallocOp>(o)) {
    if (failed(cta1(d.getGroup())))
      return failure();
    tcgen05(Tcgen05Op::Dealloc).in = {in(d.getTaddr()), in(d.getNCols())};
    return success();
  }
  if (auto r = dyn_cast<NVVM::Tcgen05RelinquishAllocPermitOp>(o)) {
    if (failed(cta1(r.getGroup())))
      return failure();
    tcgen05(Tcgen05Op::Relinquish);
    return success();
  }
  if (auto c = dyn_cast<NVVM::Tcgen05CommitOp>(o)) {
    if (failed(cta1(c.getGroup())) ||
        failed(sharedPointer(c.getAddr(), "tcgen05.commit")))
      return failure();
    if (c.getMulticastMask())
      return o->emitError("axe-gpu-run: tcgen05.commit with a multicast "
                          "mask (clusters) is not modelled");
    // imm: operand count, 1 (a raw mbarrier address, as mbarrierKey reads).
    Inst &i = tcgen05(Tcgen05Op::Commit);
    i.in = {in(c.getAddr())};
    i.imm = {1, 1};
    return success();
  }
  if (auto m = dyn_cast<NVVM::Tcgen05MMAOp>(o)) {
    if (failed(cta1(m.getCtaGroup())))
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
    Inst &i = tcgen05(Tcgen05Op::Mma);
    i.in = {in(m.getMatrixD()), in(m.getMatrixA()), in(m.getMatrixB()),
            in(m.getIdesc()), in(m.getEnableInputD())};
    return success();
  }
  if (auto c = dyn_cast<NVVM::Tcgen05CpOp>(o)) {
    if (failed(cta1(c.getGroup())))
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
    Inst &i = tcgen05(Tcgen05Op::Cp);
    i.in = {in(c.getTaddr()), in(c.getSmemDesc())};
    switch (c.getShape()) {
    case NVVM::Tcgen05CpShape::SHAPE_128x256b:
      i.imm = {128, 32};
      break;
    case NVVM::Tcgen05CpShape::SHAPE_128x128b:
      i.imm = {128, 16};
      break;
    case NVVM::Tcgen05CpShape::SHAPE_4x256b:
      i.imm = {4, 32};
      break;
    default:
      return o->emitError("axe-gpu-run: tcgen05.cp of shape ")
             << NVVM::stringifyTcgen05CpShape(c.getShape())
             << " is not modelled";
    }
    return success();
  }
  if (auto s = dyn_cast<NVVM::Tcgen05ShiftOp>(o)) {
    if (failed(cta1(s.getGroup())))
      return failure();
    tcgen05(Tcgen05Op::Shift).in = {in(s.getTaddr())};
    return success();
  }
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
  uint32_t out = 0;
  if (isLoad) {
    FailureOr<Slot> s = define(value, o);
    if (failed(s))
      return failure();
    out = s->base;
  }
  Inst &i = tcgen05(isLoad ? Tcgen05Op::Ld : Tcgen05Op::St);
  setType(i, *e);
  Value addr = isLoad ? cast<NVVM::Tcgen05LdOp>(o).getTmemAddr()
                      : cast<NVVM::Tcgen05StOp>(o).getTmemAddr();
  i.in = {in(addr)};
  if (isLoad)
    i.out = {out};
  else
    i.in.push_back(in(value));
  return success();
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
