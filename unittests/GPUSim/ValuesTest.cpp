//===- ValuesTest.cpp - f16/bf16 rounding against APFloat -----------------===//

#include "axe/GPUSim/Values.h"

#include "llvm/ADT/APFloat.h"

#include "gtest/gtest.h"

#include <random>

using namespace axe::gpusim;

namespace {

uint16_t reference(double d, const llvm::fltSemantics &s) {
  llvm::APFloat f(d);
  bool loses;
  f.convert(s, llvm::APFloat::rmNearestTiesToEven, &loses);
  return uint16_t(f.bitcastToAPInt().getZExtValue());
}

TEST(Values, HalfEdges) {
  EXPECT_EQ(doubleToHalf(65504.0), 0x7bff);
  EXPECT_EQ(doubleToHalf(65519.0), 0x7bff);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7c00);
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(doubleToHalf(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(doubleToHalf(std::ldexp(1.0, -25)), 0x0000); // tie to even
  EXPECT_EQ(doubleToHalf(std::ldexp(3.0, -26)), 0x0001);
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
}

TEST(Values, RandomAgainstAPFloat) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> exp(-30, 20);
  for (int n = 0; n < 200000; ++n) {
    double d = std::ldexp(mant(rng), exp(rng));
    ASSERT_EQ(doubleToHalf(d), reference(d, llvm::APFloat::IEEEhalf())) << d;
    ASSERT_EQ(doubleToBF16(d), reference(d, llvm::APFloat::BFloat())) << d;
    uint16_t h = uint16_t(rng());
    if (!std::isnan(halfToFloat(h)))
      ASSERT_EQ(doubleToHalf(halfToFloat(h)), h);
  }
}

} // namespace
