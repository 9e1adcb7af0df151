//===- DecodeElementwise.cpp - Decoding arith, math and vector ops --------===//
//
// Element-wise ops (one instruction whose sub-opcode comes from a table by
// op name or enum), constants, casts, vector reductions, and the vector ops
// that only move elements, decoded as gathers with a static map.
//
//===----------------------------------------------------------------------===//

#include "DecodeInternal.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace axe::gpusim;
using namespace axe::gpusim::decode;

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
// Ops by name and enum
//===----------------------------------------------------------------------===//

static const llvm::StringMap<IBinOp> &ibinOps() {
  static const llvm::StringMap<IBinOp> ops = {
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
  return ops;
}

static const llvm::StringMap<FBinOp> &fbinOps() {
  static const llvm::StringMap<FBinOp> ops = {
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
  return ops;
}

static const llvm::StringMap<FUnOp> &funOps() {
  static const llvm::StringMap<FUnOp> ops = {
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
  return ops;
}

static const llvm::StringMap<IUnOp> &iunOps() {
  static const llvm::StringMap<IUnOp> ops = {{"math.absi", IUnOp::AbsI},
                                             {"math.ctlz", IUnOp::Ctlz},
                                             {"math.cttz", IUnOp::Cttz},
                                             {"math.ctpop", IUnOp::Ctpop}};
  return ops;
}

/// The sub-opcode of `name` in `ops`, or nullopt.
template <typename Sub>
static std::optional<uint8_t> subOf(const llvm::StringMap<Sub> &ops,
                                    StringRef name) {
  auto it = ops.find(name);
  if (it == ops.end())
    return std::nullopt;
  return uint8_t(it->second);
}

/// Whether `t` (or its elements) is a float of 8 bits: a value the
/// interpreter holds as its bits only (Decoder::info).
static bool isEightBitFloat(Type t) {
  Type e = getElementTypeOrSelf(t);
  return isa<FloatType>(e) && e.getIntOrFloatBitWidth() == 8;
}

std::optional<LogicalResult> Decoder::elementwiseOp(Operation *o) {
  StringRef name = o->getName().getStringRef();
  // Moving 8-bit floats (select, bitcast, constants) keeps their bits;
  // arithmetic or conversions on them would need their values.
  if (!isa<arith::SelectOp, arith::BitcastOp, arith::ConstantOp>(o) &&
      (llvm::any_of(o->getOperandTypes(), isEightBitFloat) ||
       llvm::any_of(o->getResultTypes(), isEightBitFloat)) &&
      (o->getDialect() && (o->getDialect()->getNamespace() == "arith" ||
                           o->getDialect()->getNamespace() == "math")))
    return o->emitError("axe-gpu-run: ")
           << name
           << " on 8-bit floats is not modelled (they are moved and "
              "read by wgmma only)";
  if (std::optional<uint8_t> sub = subOf(ibinOps(), name))
    return simple(o, Opc::IBin, *sub);
  if (std::optional<uint8_t> sub = subOf(fbinOps(), name))
    return simple(o, Opc::FBin, *sub);
  if (std::optional<uint8_t> sub = subOf(funOps(), name))
    return simple(o, Opc::FUn, *sub);
  if (std::optional<uint8_t> sub = subOf(iunOps(), name))
    return simple(o, Opc::IUn, *sub);
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
  if (isa<vector::ReductionOp>(o))
    return vectorReduction(o);
  if (isa<vector::BitCastOp>(o))
    return simple(o, Opc::VBitcast, 0);
  return std::nullopt;
}

/// vector.reduction's kinds; the rest (maximumf) is MaximumF.
static constexpr EnumRow<vector::CombiningKind, ReduceOp> kCombiningKinds[] = {
    {vector::CombiningKind::ADD, ReduceOp::Add},
    {vector::CombiningKind::MUL, ReduceOp::Mul},
    {vector::CombiningKind::MINUI, ReduceOp::MinU},
    {vector::CombiningKind::MINSI, ReduceOp::MinS},
    {vector::CombiningKind::MAXUI, ReduceOp::MaxU},
    {vector::CombiningKind::MAXSI, ReduceOp::MaxS},
    {vector::CombiningKind::AND, ReduceOp::And},
    {vector::CombiningKind::OR, ReduceOp::Or},
    {vector::CombiningKind::XOR, ReduceOp::Xor},
    {vector::CombiningKind::MINNUMF, ReduceOp::MinF},
    {vector::CombiningKind::MAXNUMF, ReduceOp::MaxF},
    {vector::CombiningKind::MINIMUMF, ReduceOp::MinimumF}};

LogicalResult Decoder::vectorReduction(Operation *o) {
  auto r = cast<vector::ReductionOp>(o);
  ReduceOp k =
      lookupEnum(kCombiningKinds, r.getKind()).value_or(ReduceOp::MaximumF);
  if (failed(simple(o, Opc::Reduce, uint8_t(k))))
    return failure();
  // The lane loop runs over the source's elements.
  FailureOr<ElementInfo> src = info(r.getVector().getType(), o);
  p.code.back().n = src->n;
  return success();
}

//===----------------------------------------------------------------------===//
// Vector shuffles as gathers
//===----------------------------------------------------------------------===//

/// out[e] = operand(map[e].first)[map[e].second].
LogicalResult Decoder::gather(Operation *o,
                              ArrayRef<std::pair<int64_t, int64_t>> map) {
  return gatherFrom(o, o->getOperands(), map);
}

/// out[e] = ins[map[e].first][map[e].second].
LogicalResult Decoder::gatherFrom(Operation *o, ValueRange ins,
                                  ArrayRef<std::pair<int64_t, int64_t>> map) {
  FailureOr<Slot> s = define(o->getResult(0), o);
  if (failed(s))
    return failure();
  Inst &i = emit(Opc::Gather, o);
  for (Value v : ins)
    i.in.push_back(in(v));
  i.out = {s->base};
  i.n = map.size();
  for (auto [operand, element] : map) {
    i.imm.push_back(operand);
    i.imm2.push_back(element);
  }
  return success();
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

static SmallVector<int64_t> intsOf(ArrayAttr a) {
  SmallVector<int64_t> out;
  for (Attribute x : a)
    out.push_back(cast<IntegerAttr>(x).getInt());
  return out;
}

static GatherMap broadcastMap(ArrayRef<int64_t> out, ArrayRef<int64_t> src) {
  GatherMap map;
  size_t lead = out.size() - src.size();
  for (int64_t e = 0, n = product(out); e < n; ++e) {
    SmallVector<int64_t> o_ = delinear(e, out), s(src.size());
    for (size_t d = 0; d < src.size(); ++d)
      s[d] = src[d] == 1 ? 0 : o_[d + lead];
    map.push_back({0, linear(s, src)});
  }
  return map;
}

/// The elements of `src` below static position `pos`.
static GatherMap extractMap(ArrayRef<int64_t> src, ArrayRef<int64_t> pos) {
  GatherMap map;
  int64_t inner = product(src.drop_front(pos.size()));
  SmallVector<int64_t> full(pos);
  full.resize(src.size(), 0);
  int64_t start = linear(full, src);
  for (int64_t e = 0; e < inner; ++e)
    map.push_back({0, start + e});
  return map;
}

/// Operand 0 (the value) at static position `pos` of operand 1 (the dest).
static GatherMap insertMap(ArrayRef<int64_t> out, ArrayRef<int64_t> pos) {
  GatherMap map;
  int64_t n = product(out);
  int64_t inner = product(out.drop_front(pos.size()));
  SmallVector<int64_t> full(pos);
  full.resize(out.size(), 0);
  int64_t start = linear(full, out);
  for (int64_t e = 0; e < n; ++e)
    map.push_back(e >= start && e < start + inner
                      ? std::pair<int64_t, int64_t>{0, e - start}
                      : std::pair<int64_t, int64_t>{1, e});
  return map;
}

static GatherMap transposeMap(ArrayRef<int64_t> out, ArrayRef<int64_t> src,
                              ArrayRef<int64_t> perm) {
  GatherMap map;
  for (int64_t e = 0, n = product(out); e < n; ++e) {
    SmallVector<int64_t> oi = delinear(e, out), si(src.size());
    for (size_t d = 0; d < perm.size(); ++d)
      si[perm[d]] = oi[d];
    map.push_back({0, linear(si, src)});
  }
  return map;
}

static GatherMap extractStridedMap(ArrayRef<int64_t> out, ArrayRef<int64_t> src,
                                   ArrayRef<int64_t> offs,
                                   ArrayRef<int64_t> strides) {
  GatherMap map;
  for (int64_t e = 0, n = product(out); e < n; ++e) {
    SmallVector<int64_t> oi = delinear(e, out);
    for (size_t d = 0; d < offs.size(); ++d)
      oi[d] = offs[d] + oi[d] * strides[d];
    map.push_back({0, linear(oi, src)});
  }
  return map;
}

/// Operand 0 (of shape `src`) into operand 1 (of shape `out`).
static GatherMap insertStridedMap(ArrayRef<int64_t> out, ArrayRef<int64_t> src,
                                  ArrayRef<int64_t> offs,
                                  ArrayRef<int64_t> strides) {
  int64_t n = product(out);
  GatherMap map(n);
  for (int64_t e = 0; e < n; ++e)
    map[e] = {1, e};
  size_t lead = out.size() - src.size();
  for (int64_t e = 0, m = product(src); e < m; ++e) {
    SmallVector<int64_t> si = delinear(e, src), di(offs);
    for (size_t d = 0; d < src.size(); ++d)
      di[lead + d] += si[d] * strides[d];
    map[linear(di, out)] = {0, e};
  }
  return map;
}

/// Rows of v1 (`rows1` of them) and v2 picked by `mask`; `n` elements out.
static GatherMap shuffleMap(int64_t n, int64_t rows1, ArrayRef<int64_t> mask) {
  GatherMap map;
  int64_t inner = n / std::max<int64_t>(1, int64_t(mask.size()));
  for (int64_t m : mask)
    for (int64_t e = 0; e < inner; ++e)
      map.push_back(
          m < rows1 ? std::pair<int64_t, int64_t>{0, m * inner + e}
                    : std::pair<int64_t, int64_t>{1, (m - rows1) * inner + e});
  return map;
}

/// One operand per element (from_elements) or the source's elements in
/// order (shape_cast).
static GatherMap identityMap(int64_t n, bool perOperand) {
  GatherMap map;
  for (int64_t e = 0; e < n; ++e)
    map.push_back(perOperand ? std::pair<int64_t, int64_t>{e, 0}
                             : std::pair<int64_t, int64_t>{0, e});
  return map;
}

LogicalResult Decoder::vectorOp(Operation *o) {
  SmallVector<int64_t> out = shapeOf(o->getResult(0).getType());
  int64_t n = product(out);
  if (isa<vector::BroadcastOp>(o))
    return gather(o, broadcastMap(out, shapeOf(o->getOperand(0).getType())));
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
    // Only the source is read.
    return gatherFrom(
        o, x.getSource(),
        extractMap(shapeOf(x.getSource().getType()), x.getStaticPosition()));
  }
  if (auto ins = dyn_cast<vector::InsertOp>(o)) {
    if (!ins.getDynamicPosition().empty())
      return o->emitError("axe-gpu-run: vector.insert at a dynamic position");
    return gatherFrom(o, ValueRange{ins.getValueToStore(), ins.getDest()},
                      insertMap(out, ins.getStaticPosition()));
  }
  if (isa<vector::FromElementsOp, vector::ShapeCastOp>(o))
    return gather(o, identityMap(n, isa<vector::FromElementsOp>(o)));
  if (auto t = dyn_cast<vector::TransposeOp>(o))
    return gather(o, transposeMap(out, shapeOf(t.getVector().getType()),
                                  t.getPermutation()));
  if (auto x = dyn_cast<vector::ExtractStridedSliceOp>(o))
    return gather(o, extractStridedMap(out, shapeOf(x.getSource().getType()),
                                       intsOf(x.getOffsets()),
                                       intsOf(x.getStrides())));
  if (auto x = dyn_cast<vector::InsertStridedSliceOp>(o))
    return gather(
        o, insertStridedMap(out, shapeOf(x.getValueToStore().getType()),
                            intsOf(x.getOffsets()), intsOf(x.getStrides())));
  if (auto s = dyn_cast<vector::ShuffleOp>(o)) {
    SmallVector<int64_t> v1 = shapeOf(s.getV1().getType());
    return gather(o, shuffleMap(n, v1.empty() ? 1 : v1[0], s.getMask()));
  }
  return unsupported(o);
}
