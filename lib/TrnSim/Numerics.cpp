//===- Numerics.cpp - Element arithmetic as the engines do it -------------===//

#include "Numerics.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace axe;
using namespace axe::trnsim;

static double roundToBf16(float f) {
  if (std::isnan(f))
    return f;
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  // Round to nearest even on the 16 bits dropped.
  bits += 0x7fff + ((bits >> 16) & 1);
  bits &= 0xffff0000u;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

static double roundToInteger(IntegerType type, double v) {
  if (std::isnan(v))
    return 0;
  unsigned w = type.getWidth();
  if (w == 1)
    return v != 0 ? 1 : 0;
  double lo, hi;
  if (type.isUnsigned()) {
    lo = 0;
    hi = std::ldexp(1.0, std::min(w, 63u)) - 1;
  } else {
    lo = -std::ldexp(1.0, std::min(w - 1, 62u));
    hi = -lo - 1;
  }
  return std::min(hi, std::max(lo, std::trunc(v)));
}

double axe::trnsim::roundTo(Type type, double v) {
  if (type.isF64())
    return v;
  if (type.isF32())
    return double(float(v));
  if (type.isBF16())
    return roundToBf16(float(v));
  if (auto f = dyn_cast<FloatType>(type)) {
    llvm::APFloat x(v);
    bool lost;
    x.convert(f.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    x.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return x.convertToDouble();
  }
  if (auto i = dyn_cast<IntegerType>(type))
    return roundToInteger(i, v);
  if (type.isIndex())
    return std::trunc(v);
  return v;
}

static int64_t asInt(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9.2e18)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9.2e18)
    return std::numeric_limits<int64_t>::min();
  return int64_t(v);
}

double axe::trnsim::applyAlu(trn::AluOp op, double a, double b) {
  float x = float(a), y = float(b);
  using trn::AluOp;
  switch (op) {
  case AluOp::Add:
    return x + y;
  case AluOp::Subtract:
    return x - y;
  case AluOp::Multiply:
    return x * y;
  case AluOp::Divide:
    return x / y;
  case AluOp::Max:
    return std::fmax(x, y);
  case AluOp::Min:
    return std::fmin(x, y);
  case AluOp::AbsMax:
    return std::fmax(std::fabs(x), std::fabs(y));
  case AluOp::Power:
    return std::pow(x, y);
  case AluOp::IsEqual:
    return x == y;
  case AluOp::NotEqual:
    return x != y;
  case AluOp::IsGt:
    return x > y;
  case AluOp::IsGe:
    return x >= y;
  case AluOp::IsLt:
    return x < y;
  case AluOp::IsLe:
    return x <= y;
  case AluOp::BitwiseAnd:
    return double(asInt(a) & asInt(b));
  case AluOp::BitwiseOr:
    return double(asInt(a) | asInt(b));
  case AluOp::BitwiseXor:
    return double(asInt(a) ^ asInt(b));
  case AluOp::ShiftLeft: {
    int64_t s = asInt(b);
    return s < 0 || s > 63 ? 0 : double(uint64_t(asInt(a)) << s);
  }
  case AluOp::ShiftRight: {
    int64_t s = asInt(b);
    // Logical: the bits of the 32-bit value, shifted in as zeros.
    return s < 0 || s > 31 ? 0 : double(uint32_t(asInt(a)) >> s);
  }
  }
  return 0;
}

double axe::trnsim::applyActivation(trn::ActFunc func, double v) {
  float x = float(v);
  using trn::ActFunc;
  switch (func) {
  case ActFunc::Copy:
    return x;
  case ActFunc::Exp:
    return std::exp(x);
  case ActFunc::Log:
    return std::log(x);
  case ActFunc::Reciprocal:
    return 1.0f / x;
  case ActFunc::Rsqrt:
    return 1.0f / std::sqrt(x);
  case ActFunc::Sqrt:
    return std::sqrt(x);
  case ActFunc::Square:
    return x * x;
  case ActFunc::Tanh:
    return std::tanh(x);
  case ActFunc::Sigmoid:
    return 1.0f / (1.0f + std::exp(-x));
  case ActFunc::Relu:
    return x > 0 ? x : 0.0f;
  case ActFunc::Gelu:
    return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
  case ActFunc::Silu:
    return x / (1.0f + std::exp(-x));
  }
  return x;
}
