//===- InterpreterTest.cpp - Kernels run by the interpreter ---------------===//
//
// One mma.sync of every supported shape, its operands placed in the lanes
// by the fragment maps and its result compared with a plain matrix
// product; per-lane control flow (loops of different trip counts, while
// loops, branches) under masks.
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Interpreter.h"
#include "axe/GPUSim/Fragments.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace axe::gpusim;

namespace {

class Kernel {
public:
  explicit Kernel(StringRef source) {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, gpu::GPUDialect, memref::MemRefDialect,
                    nvgpu::NVGPUDialect, NVVM::NVVMDialect, scf::SCFDialect,
                    vector::VectorDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return;
    module->walk([&](gpu::GPUFuncOp f) { func = f; });
    if (func) {
      FailureOr<std::unique_ptr<Program>> p = decodeKernel(func);
      if (succeeded(p))
        program = std::move(*p);
    }
  }

  bool run(const LaunchDims &dims, ArrayRef<ArgValue> args) {
    KernelStats stats;
    return program &&
           succeeded(launchKernel(*program, dims, args, RunOptions(), stats));
  }

  std::unique_ptr<Program> program;

private:
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  gpu::GPUFuncOp func;
};

template <typename T> ArgValue rowMajor(std::vector<T> &data, int64_t cols) {
  ArgValue a;
  a.isMemRef = true;
  a.aligned = data.data();
  a.sizes = {int64_t(data.size()) / cols, cols};
  a.strides = {cols, 1};
  return a;
}

struct MmaCase {
  MmaType type;
  int k;
  const char *elt, *acc; // MLIR element types
  int perReg;            // elements in a 32-bit register
};

/// The kernel: each lane loads its A, B and C fragments (rows of
/// lane-major buffers), runs one mma.sync and stores D.
std::string mmaKernel(const MmaCase &c) {
  int na = 16 * c.k / 32, nb = c.k * 8 / 32;
  return llvm::formatv(R"(
gpu.module @m {
  gpu.func @k(%a: memref<32x{0}x{1}>, %b: memref<32x{2}x{1}>,
              %c: memref<32x4x{3}>, %d: memref<32x4x{3}>) kernel {
    %c0 = arith.constant 0 : index
    %lane = gpu.lane_id
    %av = vector.load %a[%lane, %c0] : memref<32x{0}x{1}>, vector<{0}x{1}>
    %a2 = vector.shape_cast %av : vector<{0}x{1}> to vector<{4}x{5}x{1}>
    %bv = vector.load %b[%lane, %c0] : memref<32x{2}x{1}>, vector<{2}x{1}>
    %b2 = vector.shape_cast %bv : vector<{2}x{1}> to vector<{6}x{5}x{1}>
    %cv = vector.load %c[%lane, %c0] : memref<32x4x{3}>, vector<4x{3}>
    %c2 = vector.shape_cast %cv : vector<4x{3}> to vector<2x2x{3}>
    %dv = nvgpu.mma.sync (%a2, %b2, %c2) {mmaShape = [16, 8, {7}]{8}}
        : (vector<{4}x{5}x{1}>, vector<{6}x{5}x{1}>, vector<2x2x{3}>) -> vector<2x2x{3}>
    %d1 = vector.shape_cast %dv : vector<2x2x{3}> to vector<4x{3}>
    vector.store %d1, %d[%lane, %c0] : memref<32x4x{3}>, vector<4x{3}>
    gpu.return
  }
}
)",
                       na, c.elt, nb, c.acc, na / c.perReg, c.perReg,
                       nb / c.perReg, c.k,
                       c.type == MmaType::TF32 ? ", tf32Enabled" : "")
      .str();
}

class MmaTest : public ::testing::TestWithParam<MmaCase> {};

TEST_P(MmaTest, MatchesMatrixProduct) {
  MmaCase c = GetParam();
  Kernel kernel(mmaKernel(c));
  ASSERT_TRUE(kernel.program) << mmaKernel(c);
  int k = c.k, na = 16 * k / 32, nb = k * 8 / 32;
  std::mt19937 rng(k * 7 + int(c.type));
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<int> A(16 * k), B(k * 8), C(128);
  for (int &x : A)
    x = small(rng);
  for (int &x : B)
    x = small(rng);
  for (int &x : C)
    x = small(rng) * 5;
  bool isInt = c.type == MmaType::S8;
  // Lane-major fragments through the maps.
  std::vector<uint16_t> a16(32 * na), b16(32 * nb);
  std::vector<float> a32(32 * na), b32(32 * nb), c32(128), d32(128);
  std::vector<int8_t> a8(32 * na), b8(32 * nb);
  std::vector<int32_t> ci(128), di(128);
  auto half = [&](int v) {
    return c.type == MmaType::BF16 ? doubleToBF16(v) : doubleToHalf(v);
  };
  for (int l = 0; l < 32; ++l) {
    for (int e = 0; e < na; ++e) {
      RowCol rc = mmaA(c.type, k, l, e);
      int v = A[rc.row * k + rc.col];
      a16[l * na + e] = half(v);
      a32[l * na + e] = float(v);
      a8[l * na + e] = int8_t(v);
    }
    for (int e = 0; e < nb; ++e) {
      RowCol rc = mmaB(c.type, k, l, e);
      int v = B[rc.row * 8 + rc.col];
      b16[l * nb + e] = half(v);
      b32[l * nb + e] = float(v);
      b8[l * nb + e] = int8_t(v);
    }
    for (int e = 0; e < 4; ++e) {
      RowCol rc = mmaC(l, e);
      c32[l * 4 + e] = float(C[rc.row * 8 + rc.col]);
      ci[l * 4 + e] = C[rc.row * 8 + rc.col];
    }
  }
  std::vector<ArgValue> args;
  if (c.type == MmaType::TF32)
    args = {rowMajor(a32, na), rowMajor(b32, nb)};
  else if (isInt)
    args = {rowMajor(a8, na), rowMajor(b8, nb)};
  else
    args = {rowMajor(a16, na), rowMajor(b16, nb)};
  if (isInt) {
    args.push_back(rowMajor(ci, 4));
    args.push_back(rowMajor(di, 4));
  } else {
    args.push_back(rowMajor(c32, 4));
    args.push_back(rowMajor(d32, 4));
  }
  LaunchDims dims;
  dims.block[0] = 32;
  ASSERT_TRUE(kernel.run(dims, args));
  for (int l = 0; l < 32; ++l)
    for (int e = 0; e < 4; ++e) {
      RowCol rc = mmaC(l, e);
      int64_t want = C[rc.row * 8 + rc.col];
      for (int kk = 0; kk < k; ++kk)
        want += int64_t(A[rc.row * k + kk]) * B[kk * 8 + rc.col];
      double got = isInt ? double(di[l * 4 + e]) : double(d32[l * 4 + e]);
      EXPECT_EQ(got, double(want)) << "D[" << rc.row << "][" << rc.col << "]";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MmaTest,
    ::testing::Values(MmaCase{MmaType::F16, 16, "f16", "f32", 2},
                      MmaCase{MmaType::F16, 8, "f16", "f32", 2},
                      MmaCase{MmaType::BF16, 16, "bf16", "f32", 2},
                      MmaCase{MmaType::TF32, 8, "f32", "f32", 1},
                      MmaCase{MmaType::TF32, 4, "f32", "f32", 1},
                      MmaCase{MmaType::S8, 32, "i8", "i32", 4},
                      MmaCase{MmaType::S8, 16, "i8", "i32", 4}));

TEST(Masks, PerLaneLoopsAndBranches) {
  Kernel kernel(R"(
gpu.module @m {
  gpu.func @k(%out: memref<64xindex>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %tid = gpu.thread_id x
    %n = arith.remui %tid, %c5 : index
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %t = arith.addi %acc, %i : index
      scf.yield %t : index
    }
    %w:2 = scf.while (%x = %tid, %k = %c0) : (index, index) -> (index, index) {
      %more = arith.cmpi ugt, %x, %c1 : index
      scf.condition(%more) %x, %k : index, index
    } do {
    ^bb0(%x: index, %k: index):
      %h = arith.divui %x, %c2 : index
      %k1 = arith.addi %k, %c1 : index
      scf.yield %h, %k1 : index, index
    }
    %bit = arith.andi %tid, %c1 : index
    %odd = arith.cmpi eq, %bit, %c1 : index
    %r = scf.if %odd -> (index) {
      scf.yield %s : index
    } else {
      scf.yield %w#1 : index
    }
    memref.store %r, %out[%tid] : memref<64xindex>
    gpu.return
  }
}
)");
  ASSERT_TRUE(kernel.program);
  std::vector<int64_t> out(64, -1);
  ArgValue a;
  a.isMemRef = true;
  a.aligned = out.data();
  a.sizes = {64};
  a.strides = {1};
  LaunchDims dims;
  dims.block[0] = 50; // the second warp is partial
  ASSERT_TRUE(kernel.run(dims, {a}));
  for (int t = 0; t < 64; ++t) {
    int64_t want = -1;
    if (t < 50 && t % 2) {
      want = 0;
      for (int i = 0; i < t % 5; ++i)
        want += i;
    } else if (t < 50) {
      want = 0;
      for (int x = t; x > 1; x /= 2)
        ++want;
    }
    EXPECT_EQ(out[t], want) << "thread " << t;
  }
}

} // namespace
