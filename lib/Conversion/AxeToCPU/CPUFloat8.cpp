//===- CPUFloat8.cpp - fp8 values on the CPU as bytes and integer code ----===//
//
// LLVM has no fp8 types, and MLIR 22's arith-to-llvm leaves arith.extf and
// arith.truncf of them unconverted (convert-to-llvm does not fail on them).
// The CPU keeps fp8 values as their bytes and converts them with integer
// code; arithmetic on them is done in f32.
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <optional>

using namespace mlir;

namespace axe {
namespace {

/// An fp8 format the CPU converts: `ieee` formats (e5m2) have infinities
/// and NaNs at the top exponent, the others (e4m3fn) only the NaN S.1111.111.
struct Float8Format {
  int64_t exponentBits, mantissaBits, bias;
  bool ieee;
};

std::optional<Float8Format> getFloat8Format(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Float8Format{4, 3, 7, false};
  if (isa<Float8E5M2Type>(type))
    return Float8Format{5, 2, 15, true};
  return std::nullopt;
}

/// Floats LLVM has a type for; any other float type reaching the LLVM
/// lowering would be left unconverted.
bool hasLLVMFloatType(Type type) {
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type, Float80Type,
             Float128Type>(type);
}

Type shapedLike(Type like, Type element) {
  if (auto vt = dyn_cast<VectorType>(like))
    return vt.clone(element);
  return element;
}

struct Float8Builder {
  OpBuilder &b;
  Location loc;
  Type i32, f32;

  Value i(int64_t v) { return createScalarOrSplatConstant(b, loc, i32, v); }
  Value f(double v) {
    return createScalarOrSplatConstant(b, loc, f32, APFloat(float(v)));
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }

  /// The f32 of each fp8 `value`, exactly.
  Value widen(Value value, const Float8Format &fmt) {
    int64_t m = fmt.mantissaBits, shift = 23 - m;
    Value bits = arith::ExtUIOp::create(
        b, loc, i32,
        arith::BitcastOp::create(
            b, loc, shapedLike(value.getType(), b.getI8Type()), value));
    Value sign = arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, bits, i(0x80)), i(24));
    Value magnitude = arith::AndIOp::create(b, loc, bits, i(0x7f));
    Value mantissa = arith::AndIOp::create(b, loc, bits, i((1 << m) - 1));
    // Normal: the fields move up, the exponent rebiased.
    Value normal = arith::AddIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, magnitude, i(shift)),
        i((127 - fmt.bias) << 23));
    // Subnormal (and zero): mantissa * 2^(1 - bias - m), exact in f32.
    Value subnormal = arith::BitcastOp::create(
        b, loc, i32,
        arith::MulFOp::create(b, loc,
                              arith::UIToFPOp::create(b, loc, f32, mantissa),
                              f(std::ldexp(1.0, 1 - fmt.bias - m))));
    Value r = select(cmp(arith::CmpIPredicate::ult, magnitude, i(1 << m)),
                     subnormal, normal);
    if (fmt.ieee) {
      Value special = select(cmp(arith::CmpIPredicate::eq, mantissa, i(0)),
                             i(0x7f800000), i(0x7fc00000));
      r = select(cmp(arith::CmpIPredicate::uge, magnitude,
                     i(((1 << fmt.exponentBits) - 1) << m)),
                 special, r);
    } else {
      r = select(cmp(arith::CmpIPredicate::eq, magnitude, i(0x7f)),
                 i(0x7fc00000), r);
    }
    return arith::BitcastOp::create(b, loc, f32,
                                    arith::OrIOp::create(b, loc, r, sign));
  }

  /// Each f32 `value` rounded to the nearest fp8, ties to even, as
  /// arith.truncf (APFloat) rounds: past the largest finite value e4m3fn
  /// gives NaN, e5m2 infinity. (The GPU's cvt.rn.satfinite would saturate
  /// instead; arith.truncf does not ask for that.)
  Value narrow(Value value, const Float8Format &fmt, Type type) {
    int64_t m = fmt.mantissaBits, drop = 23 - m;
    Value bits = arith::BitcastOp::create(b, loc, i32, value);
    Value sign = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, bits, i(24)), i(0x80));
    Value abs = arith::AndIOp::create(b, loc, bits, i(0x7fffffff));
    Value lsb = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, abs, i(drop)), i(1));
    Value rounded = arith::ShRUIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc,
            arith::AddIOp::create(b, loc, abs, i((1 << (drop - 1)) - 1)), lsb),
        i(drop));
    // A carry out of the mantissa steps the exponent, as it should.
    Value normal =
        arith::SubIOp::create(b, loc, rounded, i((127 - fmt.bias) << m));
    // Below the smallest normal: units of the smallest subnormal, ties to
    // even; a round up to 2^m is the smallest normal's encoding.
    Value magnitude = arith::BitcastOp::create(b, loc, f32, abs);
    Value units = arith::FPToUIOp::create(
        b, loc, i32,
        math::RoundEvenOp::create(
            b, loc,
            arith::MulFOp::create(b, loc, magnitude,
                                  f(std::ldexp(1.0, fmt.bias - 1 + m)))));
    Value isSubnormal =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, magnitude,
                              f(std::ldexp(1.0, 1 - fmt.bias)));
    Value r = select(isSubnormal, units, normal);
    Value isNaN = cmp(arith::CmpIPredicate::ugt, abs, i(0x7f800000));
    if (fmt.ieee) {
      int64_t inf = ((1 << fmt.exponentBits) - 1) << m;
      r = select(cmp(arith::CmpIPredicate::uge, r, i(inf)), i(inf), r);
      r = select(isNaN, i(inf | (1 << (m - 1))), r);
    } else {
      r = select(cmp(arith::CmpIPredicate::ugt, r, i(0x7e)), i(0x7f), r);
    }
    r = arith::OrIOp::create(b, loc, r, sign);
    return arith::BitcastOp::create(
        b, loc, type,
        arith::TruncIOp::create(b, loc,
                                shapedLike(value.getType(), b.getI8Type()), r));
  }
};

} // namespace

LogicalResult lowerCPUFloat8(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type f32 = Float32Type::get(ctx);
  // Arithmetic on fp8 values: each operand widened, the op in f32, the
  // result narrowed, as upstream's arith-emulate-unsupported-floats does.
  {
    SmallVector<Type> float8{Float8E4M3FNType::get(ctx),
                             Float8E5M2Type::get(ctx)};
    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(converter, float8, f32);
    RewritePatternSet patterns(ctx);
    arith::populateEmulateUnsupportedFloatsPatterns(patterns, converter);
    ConversionTarget target(*ctx);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return failure();
  }
  SmallVector<Operation *> casts;
  module.walk([&](Operation *op) {
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      casts.push_back(op);
  });
  for (Operation *op : casts) {
    Type from = getElementTypeOrSelf(op->getOperand(0).getType());
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    std::optional<Float8Format> fromFmt = getFloat8Format(from),
                                toFmt = getFloat8Format(to);
    if (!fromFmt && !toFmt)
      continue;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type shape = op->getResult(0).getType();
    Float8Builder fb{b, loc, shapedLike(shape, b.getI32Type()),
                     shapedLike(shape, f32)};
    Value input = op->getOperand(0);
    Value result;
    if (fromFmt) {
      // f32 holds every fp8 value exactly, and so do f16, bf16 and f64:
      // the second step is exact.
      result = fb.widen(input, *fromFmt);
      if (to != f32)
        result = to.getIntOrFloatBitWidth() > 32
                     ? Value(arith::ExtFOp::create(b, loc, shape, result))
                     : Value(arith::TruncFOp::create(b, loc, shape, result));
    } else {
      auto truncf = cast<arith::TruncFOp>(op);
      if (auto mode = truncf.getRoundingmode();
          mode && *mode != arith::RoundingMode::to_nearest_even)
        return op->emitError("cpu: arith.truncf to ")
               << to << " rounds to nearest even only on the CPU target";
      // f64 -> f32 -> fp8 would round twice; f16 and bf16 widen exactly.
      if (from.getIntOrFloatBitWidth() > 32)
        return op->emitError("cpu: arith.truncf from ")
               << from << " to " << to
               << " is not supported on the CPU target (only from f32, f16 "
                  "and bf16, which round once)";
      if (from != f32)
        input = arith::ExtFOp::create(b, loc, fb.f32, input);
      result = fb.narrow(input, *toFmt, shape);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
  }
  // What still computes on a float type LLVM lacks would be left
  // unconverted by the LLVM lowering (and its module would not run): moves
  // of the bytes are fine, computations are not.
  WalkResult walk =
      module.walk([&](Operation *op) {
        bool computes =
            (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
             !isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op)) ||
            isa<vector::ContractionOp, vector::ReductionOp,
                vector::MultiDimReductionOp, vector::FMAOp,
                vector::OuterProductOp, vector::ScanOp>(op);
        if (!computes)
          return WalkResult::advance();
        auto lacking = [](Type t) {
          Type e = getElementTypeOrSelf(t);
          return isa<FloatType>(e) && !hasLLVMFloatType(e);
        };
        auto bad = llvm::find_if(op->getOperandTypes(), lacking);
        Type type;
        if (bad != op->getOperandTypes().end())
          type = *bad;
        else if (auto r = llvm::find_if(op->getResultTypes(), lacking);
                 r != op->getResultTypes().end())
          type = *r;
        if (!type)
          return WalkResult::advance();
        op->emitError("cpu: ")
            << op->getName() << " on " << getElementTypeOrSelf(type)
            << " values is not supported on the CPU target: LLVM has no such "
               "float type, and the CPU converts only f8E4M3FN and f8E5M2 (to "
               "and from f32)";
        return WalkResult::interrupt();
      });
  return failure(walk.wasInterrupted());
}

} // namespace axe
