//===- ElementOps.cpp - Element casts, reduction identities, combiners ----===//

#include "axe/Codegen/ElementOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace axe {

Combiner combinerOf(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Sum:
    return Combiner::Sum;
  case ReduceKind::Max:
    return Combiner::Max;
  case ReduceKind::Min:
    return Combiner::Min;
  case ReduceKind::Prod:
    return Combiner::Prod;
  }
  llvm_unreachable("reduce kind");
}

/// Whether a vector of `elt` occupies memory exactly as that many scalar
/// `elt`s do. A scalar takes its LLVM store size (whole bytes: an i1 is one
/// byte, 0 or 1, as memref.load and memref.store read and write it), while
/// a vector packs its elements bit by bit: <8 x i1> is one byte. Only
/// element types of 8, 16, 32 or 64 bits agree, so the memory of every other
/// type (i1, i4, i24, ...) is moved element by element by every schedule.
bool vectorMatchesScalarMemory(Type elt) {
  if (!elt.isIntOrFloat())
    return elt.isIndex();
  unsigned bits = elt.getIntOrFloatBitWidth();
  return bits == 8 || bits == 16 || bits == 32 || bits == 64;
}

int64_t lanesFor(Type elt, int64_t lanes32) {
  unsigned bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 64;
  if (bits == 0 || lanes32 <= 1 || !vectorMatchesScalarMemory(elt))
    return 1;
  return std::max<int64_t>(1, lanes32 * 32 / std::max(8u, bits));
}

Value castElements(OpBuilder &b, Location loc, Value v, Type elementType) {
  Type from = getElementTypeOrSelf(v.getType());
  if (from == elementType)
    return v;
  Type to = elementType;
  if (auto vt = dyn_cast<VectorType>(v.getType()))
    to = VectorType::get(vt.getShape(), elementType);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(elementType);
  if (fromFloat && toFloat) {
    unsigned fromBits = from.getIntOrFloatBitWidth(),
             toBits = elementType.getIntOrFloatBitWidth();
    // Floats of one width with different formats (bf16 and f16, the fp8
    // variants) are neither an extension nor a truncation of each other:
    // go through f32, which holds every value of both exactly.
    if (fromBits == toBits && fromBits < 32)
      return castElements(b, loc, castElements(b, loc, v, b.getF32Type()),
                          elementType);
    if (fromBits < toBits)
      return arith::ExtFOp::create(b, loc, to, v);
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (!fromFloat && toFloat)
    return arith::SIToFPOp::create(b, loc, to, v);
  if (fromFloat && !toFloat)
    return arith::FPToSIOp::create(b, loc, to, v);
  if (from.getIntOrFloatBitWidth() < elementType.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
}

Value reductionIdentity(OpBuilder &b, Location loc, Combiner kind,
                        Type elementType) {
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat value = APFloat::getZero(sem);
    switch (kind) {
    case Combiner::Sum:
      break;
    case Combiner::Prod:
      value = APFloat::getOne(sem);
      break;
    case Combiner::Max:
      value = APFloat::getInf(sem, /*Negative=*/true);
      break;
    case Combiner::Min:
      value = APFloat::getInf(sem, /*Negative=*/false);
      break;
    }
    return arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, value));
  }
  unsigned bits = elementType.getIntOrFloatBitWidth();
  APInt value(bits, 0);
  switch (kind) {
  case Combiner::Sum:
    break;
  case Combiner::Prod:
    value = APInt(bits, 1);
    break;
  case Combiner::Max:
    value = bits == 1 ? APInt(1, 0) : APInt::getSignedMinValue(bits);
    break;
  case Combiner::Min:
    value = bits == 1 ? APInt(1, 1) : APInt::getSignedMaxValue(bits);
    break;
  }
  return arith::ConstantOp::create(b, loc, elementType,
                                   b.getIntegerAttr(elementType, value));
}

/// Whether max and min order `elementType` unsigned: i1, where true is
/// above false (max is "any", min is "all"); other integers are signed.
static bool ordersUnsigned(Type elementType) {
  return elementType.isInteger(1);
}

Value combine(OpBuilder &b, Location loc, Combiner kind, Value x, Value y) {
  Type elementType = getElementTypeOrSelf(x.getType());
  bool isFloat = isa<FloatType>(elementType);
  bool isUnsigned = ordersUnsigned(elementType);
  switch (kind) {
  case Combiner::Sum:
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  case Combiner::Prod:
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                   : Value(arith::MulIOp::create(b, loc, x, y));
  case Combiner::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, y);
    if (isUnsigned)
      return arith::MaxUIOp::create(b, loc, x, y);
    return arith::MaxSIOp::create(b, loc, x, y);
  case Combiner::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, x, y);
    if (isUnsigned)
      return arith::MinUIOp::create(b, loc, x, y);
    return arith::MinSIOp::create(b, loc, x, y);
  }
  llvm_unreachable("reduce kind");
}

vector::CombiningKind combiningKind(Combiner kind, Type elementType) {
  bool isFloat = isa<FloatType>(elementType);
  bool isUnsigned = ordersUnsigned(elementType);
  switch (kind) {
  case Combiner::Sum:
    return vector::CombiningKind::ADD;
  case Combiner::Prod:
    return vector::CombiningKind::MUL;
  case Combiner::Max:
    return isFloat      ? vector::CombiningKind::MAXIMUMF
           : isUnsigned ? vector::CombiningKind::MAXUI
                        : vector::CombiningKind::MAXSI;
  case Combiner::Min:
    return isFloat      ? vector::CombiningKind::MINIMUMF
           : isUnsigned ? vector::CombiningKind::MINUI
                        : vector::CombiningKind::MINSI;
  }
  llvm_unreachable("reduce kind");
}

} // namespace axe
