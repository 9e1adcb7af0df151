//===- Elementwise.cpp - arith, math and vector ops
//------------------------===//
//
// Each op is a loop over the value's elements and the active lanes. Floats
// of f32 are computed in float (IEEE, correctly rounded); f16, bf16 and f64
// in double and rounded once to the result type.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace axe::gpusim;

namespace {

/// Runs f(lane, element) over the active lanes and `n` elements.
template <typename F> void each(uint32_t mask, uint32_t n, F &&f) {
  for (uint32_t e = 0; e < n; ++e)
    forLanes(mask, [&](int l) { f(l, e); });
}

/// A binary float op on words of kind `k`: `f` is generic in float/double.
template <typename F>
void floatBinary(Machine &m, const Inst &i, uint32_t a, uint32_t b, F &&f) {
  if (i.kind == Kind::F32) {
    each(m.mask, i.n, [&](int l, uint32_t e) {
      m.reg(i.out[0], e, l) =
          f32ToBits(f(bitsToF32(m.reg(a, e, l)), bitsToF32(m.reg(b, e, l))));
    });
    return;
  }
  Kind k = i.kind;
  each(m.mask, i.n, [&](int l, uint32_t e) {
    m.reg(i.out[0], e, l) = floatWord(
        k, f(floatValue(k, m.reg(a, e, l)), floatValue(k, m.reg(b, e, l))));
  });
}

template <typename F> void floatUnary(Machine &m, const Inst &i, F &&f) {
  uint32_t a = i.in[0];
  if (i.kind == Kind::F32) {
    each(m.mask, i.n, [&](int l, uint32_t e) {
      m.reg(i.out[0], e, l) = f32ToBits(f(bitsToF32(m.reg(a, e, l))));
    });
    return;
  }
  Kind k = i.kind;
  each(m.mask, i.n, [&](int l, uint32_t e) {
    m.reg(i.out[0], e, l) = floatWord(k, f(floatValue(k, m.reg(a, e, l))));
  });
}

template <typename T> T maximumNaN(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b && a == 0)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename T> T minimumNaN(T a, T b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<T>::quiet_NaN();
  if (a == b && a == 0)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

} // namespace

void Machine::execIBin(const Inst &i) {
  uint64_t m = widthMask(i.bits);
  unsigned bits = i.bits;
  uint32_t a = i.in[0], b = i.in[1];
  auto run = [&](auto f) {
    each(mask, i.n, [&](int l, uint32_t e) {
      reg(i.out[0], e, l) = uint64_t(f(reg(a, e, l), reg(b, e, l))) & m;
    });
  };
  auto sx = [bits](uint64_t v) { return signExtend(v, bits); };
  auto checkedRun = [&](auto f) {
    each(mask, i.n, [&](int l, uint32_t e) {
      uint64_t y = reg(b, e, l);
      if (y == 0)
        return fail(i, l, "integer division by zero");
      reg(i.out[0], e, l) = uint64_t(f(reg(a, e, l), y)) & m;
    });
  };
  switch (IBinOp(i.sub)) {
  case IBinOp::Add:
    return run([](uint64_t x, uint64_t y) { return x + y; });
  case IBinOp::Sub:
    return run([](uint64_t x, uint64_t y) { return x - y; });
  case IBinOp::Mul:
    return run([](uint64_t x, uint64_t y) { return x * y; });
  case IBinOp::And:
    return run([](uint64_t x, uint64_t y) { return x & y; });
  case IBinOp::Or:
    return run([](uint64_t x, uint64_t y) { return x | y; });
  case IBinOp::Xor:
    return run([](uint64_t x, uint64_t y) { return x ^ y; });
  case IBinOp::Shl:
    return run([&](uint64_t x, uint64_t y) { return y >= bits ? 0 : x << y; });
  case IBinOp::ShrU:
    return run([&](uint64_t x, uint64_t y) { return y >= bits ? 0 : x >> y; });
  case IBinOp::ShrS:
    return run([&](uint64_t x, uint64_t y) {
      return uint64_t(sx(x) >> (y >= bits ? bits - 1 : y));
    });
  case IBinOp::MaxS:
    return run([&](uint64_t x, uint64_t y) { return sx(x) > sx(y) ? x : y; });
  case IBinOp::MinS:
    return run([&](uint64_t x, uint64_t y) { return sx(x) < sx(y) ? x : y; });
  case IBinOp::MaxU:
    return run([](uint64_t x, uint64_t y) { return x > y ? x : y; });
  case IBinOp::MinU:
    return run([](uint64_t x, uint64_t y) { return x < y ? x : y; });
  case IBinOp::DivU:
    return checkedRun([](uint64_t x, uint64_t y) { return x / y; });
  case IBinOp::RemU:
    return checkedRun([](uint64_t x, uint64_t y) { return x % y; });
  case IBinOp::CeilDivU:
    return checkedRun(
        [](uint64_t x, uint64_t y) { return x / y + (x % y != 0); });
  case IBinOp::DivS:
    return checkedRun([&](uint64_t x, uint64_t y) {
      int64_t p = sx(x), q = sx(y);
      return q == -1 ? uint64_t(0) - uint64_t(p) : uint64_t(p / q);
    });
  case IBinOp::RemS:
    return checkedRun([&](uint64_t x, uint64_t y) {
      int64_t p = sx(x), q = sx(y);
      return q == -1 ? uint64_t(0) : uint64_t(p % q);
    });
  case IBinOp::FloorDivS:
    return checkedRun([&](uint64_t x, uint64_t y) {
      int64_t p = sx(x), q = sx(y);
      if (q == -1)
        return uint64_t(0) - uint64_t(p);
      int64_t d = p / q;
      return uint64_t((p % q != 0 && ((p < 0) != (q < 0))) ? d - 1 : d);
    });
  case IBinOp::CeilDivS:
    return checkedRun([&](uint64_t x, uint64_t y) {
      int64_t p = sx(x), q = sx(y);
      if (q == -1)
        return uint64_t(0) - uint64_t(p);
      int64_t d = p / q;
      return uint64_t((p % q != 0 && ((p < 0) == (q < 0))) ? d + 1 : d);
    });
  default:
    return fail(i, -1, "internal: unknown integer op");
  }
}

void Machine::execFBin(const Inst &i) {
  uint32_t a = i.in[0], b = i.in[1];
  auto run = [&](auto f) { floatBinary(*this, i, a, b, f); };
  switch (FBinOp(i.sub)) {
  case FBinOp::Add:
    return run([](auto x, auto y) { return x + y; });
  case FBinOp::Sub:
    return run([](auto x, auto y) { return x - y; });
  case FBinOp::Mul:
    return run([](auto x, auto y) { return x * y; });
  case FBinOp::Div:
    return run([](auto x, auto y) { return x / y; });
  case FBinOp::Rem:
    return run([](auto x, auto y) { return std::fmod(x, y); });
  case FBinOp::MaximumF:
    return run([](auto x, auto y) { return maximumNaN(x, y); });
  case FBinOp::MinimumF:
    return run([](auto x, auto y) { return minimumNaN(x, y); });
  case FBinOp::MaxNumF:
    return run([](auto x, auto y) { return std::fmax(x, y); });
  case FBinOp::MinNumF:
    return run([](auto x, auto y) { return std::fmin(x, y); });
  case FBinOp::Pow:
    return run([](auto x, auto y) { return std::pow(x, y); });
  case FBinOp::Atan2:
    return run([](auto x, auto y) { return std::atan2(x, y); });
  case FBinOp::CopySign:
    return run([](auto x, auto y) { return std::copysign(x, y); });
  }
}

void Machine::execFUn(const Inst &i) {
  auto run = [&](auto f) { floatUnary(*this, i, f); };
  switch (FUnOp(i.sub)) {
  case FUnOp::Neg:
    return run([](auto x) { return -x; });
  case FUnOp::Abs:
    return run([](auto x) { return std::fabs(x); });
  case FUnOp::Exp:
    return run([](auto x) { return std::exp(x); });
  case FUnOp::Exp2:
    return run([](auto x) { return std::exp2(x); });
  case FUnOp::Expm1:
    return run([](auto x) { return std::expm1(x); });
  case FUnOp::Log:
    return run([](auto x) { return std::log(x); });
  case FUnOp::Log2:
    return run([](auto x) { return std::log2(x); });
  case FUnOp::Log10:
    return run([](auto x) { return std::log10(x); });
  case FUnOp::Log1p:
    return run([](auto x) { return std::log1p(x); });
  case FUnOp::Sqrt:
    return run([](auto x) { return std::sqrt(x); });
  case FUnOp::Rsqrt:
    return run([](auto x) { return decltype(x)(1) / std::sqrt(x); });
  case FUnOp::Tanh:
    return run([](auto x) { return std::tanh(x); });
  case FUnOp::Sin:
    return run([](auto x) { return std::sin(x); });
  case FUnOp::Cos:
    return run([](auto x) { return std::cos(x); });
  case FUnOp::Tan:
    return run([](auto x) { return std::tan(x); });
  case FUnOp::Atan:
    return run([](auto x) { return std::atan(x); });
  case FUnOp::Erf:
    return run([](auto x) { return std::erf(x); });
  case FUnOp::Ceil:
    return run([](auto x) { return std::ceil(x); });
  case FUnOp::Floor:
    return run([](auto x) { return std::floor(x); });
  case FUnOp::Round:
    return run([](auto x) { return std::round(x); });
  case FUnOp::RoundEven:
    return run([](auto x) { return std::nearbyint(x); });
  case FUnOp::Trunc:
    return run([](auto x) { return std::trunc(x); });
  }
}

void Machine::execIUn(const Inst &i) {
  unsigned bits = i.bits;
  uint64_t m = widthMask(bits);
  each(mask, i.n, [&](int l, uint32_t e) {
    uint64_t x = reg(i.in[0], e, l), r = 0;
    switch (IUnOp(i.sub)) {
    case IUnOp::AbsI: {
      int64_t s = signExtend(x, bits);
      r = uint64_t(s < 0 ? -s : s);
      break;
    }
    case IUnOp::Ctlz:
      r = x ? llvm::countl_zero(x) - (64 - bits) : bits;
      break;
    case IUnOp::Cttz:
      r = x ? llvm::countr_zero(x) : bits;
      break;
    case IUnOp::Ctpop:
      r = llvm::popcount(x);
      break;
    }
    reg(i.out[0], e, l) = r & m;
  });
}

void Machine::execFma(const Inst &i) {
  uint32_t a = i.in[0], b = i.in[1], c = i.in[2];
  if (i.kind == Kind::F32) {
    each(mask, i.n, [&](int l, uint32_t e) {
      reg(i.out[0], e, l) =
          f32ToBits(std::fma(bitsToF32(reg(a, e, l)), bitsToF32(reg(b, e, l)),
                             bitsToF32(reg(c, e, l))));
    });
    return;
  }
  Kind k = i.kind;
  each(mask, i.n, [&](int l, uint32_t e) {
    reg(i.out[0], e, l) = floatWord(k, std::fma(floatValue(k, reg(a, e, l)),
                                                floatValue(k, reg(b, e, l)),
                                                floatValue(k, reg(c, e, l))));
  });
}

void Machine::execCmpI(const Inst &i) {
  unsigned bits = i.bits2;
  auto p = arith::CmpIPredicate(i.sub);
  each(mask, i.n, [&](int l, uint32_t e) {
    uint64_t x = reg(i.in[0], e, l), y = reg(i.in[1], e, l);
    int64_t sx = signExtend(x, bits), sy = signExtend(y, bits);
    bool r = false;
    switch (p) {
    case arith::CmpIPredicate::eq:
      r = x == y;
      break;
    case arith::CmpIPredicate::ne:
      r = x != y;
      break;
    case arith::CmpIPredicate::slt:
      r = sx < sy;
      break;
    case arith::CmpIPredicate::sle:
      r = sx <= sy;
      break;
    case arith::CmpIPredicate::sgt:
      r = sx > sy;
      break;
    case arith::CmpIPredicate::sge:
      r = sx >= sy;
      break;
    case arith::CmpIPredicate::ult:
      r = x < y;
      break;
    case arith::CmpIPredicate::ule:
      r = x <= y;
      break;
    case arith::CmpIPredicate::ugt:
      r = x > y;
      break;
    case arith::CmpIPredicate::uge:
      r = x >= y;
      break;
    }
    reg(i.out[0], e, l) = r;
  });
}

void Machine::execCmpF(const Inst &i) {
  Kind k = i.kind2;
  auto p = arith::CmpFPredicate(i.sub);
  each(mask, i.n, [&](int l, uint32_t e) {
    double x = floatValue(k, reg(i.in[0], e, l));
    double y = floatValue(k, reg(i.in[1], e, l));
    bool unordered = std::isnan(x) || std::isnan(y);
    bool r = false;
    using P = arith::CmpFPredicate;
    switch (p) {
    case P::AlwaysFalse:
      r = false;
      break;
    case P::OEQ:
      r = !unordered && x == y;
      break;
    case P::OGT:
      r = !unordered && x > y;
      break;
    case P::OGE:
      r = !unordered && x >= y;
      break;
    case P::OLT:
      r = !unordered && x < y;
      break;
    case P::OLE:
      r = !unordered && x <= y;
      break;
    case P::ONE:
      r = !unordered && x != y;
      break;
    case P::ORD:
      r = !unordered;
      break;
    case P::UEQ:
      r = unordered || x == y;
      break;
    case P::UGT:
      r = unordered || x > y;
      break;
    case P::UGE:
      r = unordered || x >= y;
      break;
    case P::ULT:
      r = unordered || x < y;
      break;
    case P::ULE:
      r = unordered || x <= y;
      break;
    case P::UNE:
      r = unordered || x != y;
      break;
    case P::UNO:
      r = unordered;
      break;
    case P::AlwaysTrue:
      r = true;
      break;
    }
    reg(i.out[0], e, l) = r;
  });
}

void Machine::execSelect(const Inst &i) {
  bool scalar = i.imm[0];
  each(mask, i.n, [&](int l, uint32_t e) {
    bool c = reg(i.in[0], scalar ? 0 : e, l) & 1;
    reg(i.out[0], e, l) = reg(i.in[c ? 1 : 2], e, l);
  });
}

void Machine::execCast(const Inst &i) {
  unsigned from = i.bits2, to = i.bits;
  uint64_t m = widthMask(to);
  Kind src = i.kind2, dst = i.kind;
  auto toFloat = [&](double v, int64_t exact, bool isExact) -> uint64_t {
    // Integers convert with one rounding: through float for f32, which
    // rounds an int64 correctly; double is exact below 2^53.
    if (dst == Kind::F32 && isExact)
      return f32ToBits(float(exact));
    return floatWord(dst, v);
  };
  each(mask, i.n, [&](int l, uint32_t e) {
    uint64_t x = reg(i.in[0], e, l), r = 0;
    switch (CastOp(i.sub)) {
    case CastOp::ExtS:
      r = uint64_t(signExtend(x, from)) & m;
      break;
    case CastOp::ExtU:
      r = x & m;
      break;
    case CastOp::Trunc:
      r = x & m;
      break;
    case CastOp::SIToFP: {
      int64_t s = signExtend(x, from);
      r = toFloat(double(s), s, true);
      break;
    }
    case CastOp::UIToFP:
      r = dst == Kind::F32 ? f32ToBits(float(x)) : floatWord(dst, double(x));
      break;
    case CastOp::FPToSI: {
      double v = std::trunc(floatValue(src, x));
      // Out of range is poison in MLIR; PTX saturates. Saturate.
      double lo = -std::ldexp(1.0, to - 1), hi = std::ldexp(1.0, to - 1);
      int64_t s = std::isnan(v) ? 0
                  : v < lo      ? int64_t(lo)
                  : v >= hi     ? (to == 64 ? INT64_MAX : int64_t(hi) - 1)
                                : int64_t(v);
      r = uint64_t(s) & m;
      break;
    }
    case CastOp::FPToUI: {
      double v = std::trunc(floatValue(src, x));
      double hi = std::ldexp(1.0, to);
      r = std::isnan(v) || v <= 0 ? 0 : v >= hi ? m : uint64_t(v);
      break;
    }
    case CastOp::FPToFP:
      r = floatWord(dst, floatValue(src, x));
      break;
    case CastOp::Bitcast:
      r = x & widthMask(storageBits(dst, to));
      break;
    }
    reg(i.out[0], e, l) = r;
  });
}

void Machine::execGather(const Inst &i) {
  for (uint32_t e = 0; e < i.n; ++e) {
    uint32_t src = i.in[i.imm[e]];
    int64_t at = i.imm2[e];
    forLanes(mask, [&](int l) { reg(i.out[0], e, l) = reg(src, at, l); });
  }
}

void Machine::execExtractDyn(const Inst &i) {
  int64_t n = i.imm[0];
  forLanes(mask, [&](int l) {
    int64_t at = int64_t(reg(i.in[1], 0, l));
    if (at < 0 || at >= n)
      return fail(i, l,
                  llvm::formatv("vector.extract at position {0} of a vector "
                                "of {1} elements",
                                at, n));
    reg(i.out[0], 0, l) = reg(i.in[0], at, l);
  });
}

void Machine::execVBitcast(const Inst &i) {
  unsigned sb = storageBits(i.kind2, i.bits2), db = storageBits(i.kind, i.bits);
  uint32_t srcN = i.n * db / sb;
  forLanes(mask, [&](int l) {
    uint8_t bytes[256] = {};
    unsigned total = srcN * sb / 8;
    if (total > sizeof(bytes))
      return fail(i, l, "vector.bitcast of more than 256 bytes");
    for (uint32_t e = 0; e < srcN; ++e) {
      uint64_t w = reg(i.in[0], e, l);
      if (sb >= 8)
        std::memcpy(bytes + e * sb / 8, &w, sb / 8);
      else
        bytes[e * sb / 8] |= uint8_t((w & widthMask(sb)) << (e * sb % 8));
    }
    for (uint32_t e = 0; e < i.n; ++e) {
      uint64_t w = 0;
      if (db >= 8)
        std::memcpy(&w, bytes + e * db / 8, db / 8);
      else
        w = (bytes[e * db / 8] >> (e * db % 8)) & widthMask(db);
      reg(i.out[0], e, l) = w;
    }
  });
}

void Machine::execReduce(const Inst &i) {
  bool hasAcc = i.in.size() > 1;
  Kind k = i.kind;
  unsigned bits = i.bits;
  uint64_t m = widthMask(bits);
  auto combineInt = [&](uint64_t a, uint64_t b) -> uint64_t {
    int64_t sa = signExtend(a, bits), sb = signExtend(b, bits);
    switch (ReduceOp(i.sub)) {
    case ReduceOp::Add:
      return (a + b) & m;
    case ReduceOp::Mul:
      return (a * b) & m;
    case ReduceOp::MinS:
      return sa < sb ? a : b;
    case ReduceOp::MaxS:
      return sa > sb ? a : b;
    case ReduceOp::MinU:
      return a < b ? a : b;
    case ReduceOp::MaxU:
      return a > b ? a : b;
    case ReduceOp::And:
      return a & b;
    case ReduceOp::Or:
      return a | b;
    default:
      return a ^ b;
    }
  };
  auto combineFloat = [&](uint64_t a, uint64_t b) -> uint64_t {
    double x = floatValue(k, a), y = floatValue(k, b), r;
    switch (ReduceOp(i.sub)) {
    case ReduceOp::Add:
      r = x + y;
      break;
    case ReduceOp::Mul:
      r = x * y;
      break;
    case ReduceOp::MinF:
      r = std::fmin(x, y);
      break;
    case ReduceOp::MaxF:
      r = std::fmax(x, y);
      break;
    case ReduceOp::MinimumF:
      r = minimumNaN(x, y);
      break;
    default:
      r = maximumNaN(x, y);
    }
    return floatWord(k, r);
  };
  forLanes(mask, [&](int l) {
    uint64_t acc = reg(i.in[0], 0, l);
    for (uint32_t e = 1; e < i.n; ++e)
      acc = isFloat(k) ? combineFloat(acc, reg(i.in[0], e, l))
                       : combineInt(acc, reg(i.in[0], e, l));
    if (hasAcc)
      acc = isFloat(k) ? combineFloat(reg(i.in[1], 0, l), acc)
                       : combineInt(reg(i.in[1], 0, l), acc);
    reg(i.out[0], 0, l) = acc;
  });
}
