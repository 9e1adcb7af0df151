//===- CPUCodegenTest.cpp - CPU schedules on random layouts, executed -----===//
//
// Builds copy / fill / reduce / gemm / elementwise code for seeded random
// layouts with the CPU code generator, JIT-compiles it in-process and checks
// every storage cell against the layout semantics computed in C++.
//
//===----------------------------------------------------------------------===//

#include "RandomLayouts.h"

#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace axe;
using namespace axe::testing;

namespace {

constexpr float kUntouched = -12345.0f;

/// Host memory for one buffer, and its expected contents.
struct HostBuffer {
  Layout layout;
  Shape shape;
  StoragePlan storage = StoragePlan::linear(0);
  std::vector<float> data;

  static HostBuffer make(const Layout &layout, Shape shape) {
    HostBuffer h;
    h.layout = layout;
    h.shape = std::move(shape);
    Result<StoragePlan> plan = StoragePlan::forLayout(layout);
    EXPECT_TRUE(bool(plan)) << plan.message();
    h.storage = *plan;
    h.data.assign(h.storage.size(), kUntouched);
    return h;
  }
  int64_t numElements() const { return layout.size(); }
  /// Every storage address element `flat` lives at.
  std::vector<int64_t> addresses(int64_t flat) const {
    std::vector<int64_t> out;
    for (const Coord &c : layout.apply(flat))
      out.push_back(storage.address(c));
    return out;
  }
  void set(int64_t flat, float v) {
    for (int64_t a : addresses(flat))
      data[a] = v;
  }
  float get(int64_t flat) const { return data[addresses(flat).front()]; }
  /// Sets every element `f` to value(f).
  void fill(llvm::function_ref<float(int64_t)> value) {
    for (int64_t f = 0; f < numElements(); ++f)
      set(f, value(f));
  }
  /// The cells once every element `f` is set to value(f); the others keep
  /// their contents.
  std::vector<float> cellsWith(llvm::function_ref<float(int64_t)> value) const {
    std::vector<float> cells = data;
    for (int64_t f = 0; f < numElements(); ++f)
      for (int64_t a : addresses(f))
        cells[a] = value(f);
    return cells;
  }
};

/// One function `kernel(memref<?xf32>...)` built by a callback, JITed.
class Kernel {
public:
  /// `f16`: the buffers hold f16 (memref<?xf16>); run() is f32-only.
  explicit Kernel(unsigned numArgs, bool f16 = false) : f16(f16) {
    DialectRegistry registry;
    registerCPUCodegenDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    OpBuilder b(&ctx);
    loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto memTy = MemRefType::get({ShapedType::kDynamic},
                                 f16 ? b.getF16Type() : b.getF32Type());
    SmallVector<Type> args(numArgs, memTy);
    func = func::FuncOp::create(b, loc, "kernel", b.getFunctionType(args, {}));
    func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    Block *body = func.addEntryBlock();
    b.setInsertionPointToEnd(body);
    func::ReturnOp::create(b, loc);
  }

  OpBuilder builder() {
    OpBuilder b(&ctx);
    b.setInsertionPoint(func.getBody().front().getTerminator());
    return b;
  }
  CPUBuffer buffer(unsigned arg, const HostBuffer &h) {
    CPUBuffer buf;
    buf.ref.layout = h.layout;
    buf.ref.shape = h.shape;
    buf.ref.elementType =
        f16 ? Type(Float16Type::get(&ctx)) : Type(Float32Type::get(&ctx));
    buf.memory = func.getArgument(arg);
    buf.storage = h.storage;
    return buf;
  }

  /// Verifies, lowers, JITs and runs with the given buffers. With `shift`
  /// at 0 or more each buffer runs from a copy `shift` floats past a 64-byte
  /// boundary (copied back after), for code whose path depends on the
  /// alignment of its memory.
  ::testing::AssertionResult run(std::vector<HostBuffer *> buffers,
                                 int64_t shift = -1) {
    if (failed(verify(*module))) {
      std::string text;
      llvm::raw_string_ostream os(text);
      module->print(os);
      return ::testing::AssertionFailure() << "invalid IR:\n" << text;
    }
    if (getenv("AXE_TEST_DUMP"))
      module->print(llvm::errs());
    std::string error;
    auto engine = lowerAndJIT(*module, error);
    if (!engine)
      return ::testing::AssertionFailure() << error;
    std::vector<StridedMemRefType<float, 1>> descs(buffers.size());
    std::vector<std::vector<float>> staged(buffers.size());
    SmallVector<void *> ptrs;
    for (size_t i = 0; i < buffers.size(); ++i) {
      auto &d = descs[i];
      float *data = buffers[i]->data.data();
      if (shift >= 0) {
        std::vector<float> &st = staged[i];
        st.resize(buffers[i]->data.size() + 16 + shift);
        auto at =
            (reinterpret_cast<uintptr_t>(st.data()) + 63) & ~uintptr_t(63);
        data = reinterpret_cast<float *>(at) + shift;
        std::copy(buffers[i]->data.begin(), buffers[i]->data.end(), data);
      }
      d.basePtr = d.data = data;
      d.offset = 0;
      d.sizes[0] = buffers[i]->data.size();
      d.strides[0] = 1;
    }
    std::vector<StridedMemRefType<float, 1> *> descPtrs;
    for (auto &d : descs)
      descPtrs.push_back(&d);
    for (auto &p : descPtrs)
      ptrs.push_back(&p);
    if (llvm::Error e = engine->invokePacked("_mlir_ciface_kernel", ptrs))
      return ::testing::AssertionFailure() << llvm::toString(std::move(e));
    for (size_t i = 0; i < buffers.size() && shift >= 0; ++i)
      std::copy(descs[i].data, descs[i].data + buffers[i]->data.size(),
                buffers[i]->data.begin());
    return ::testing::AssertionSuccess();
  }

  bool f16 = false;
  MLIRContext ctx;
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
};

/// Counts cells of `got` that differ from `want` (all cells, including the
/// ones no element maps to, which must stay untouched).
int64_t mismatches(const HostBuffer &got, const std::vector<float> &want) {
  int64_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (!(got.data[i] == want[i] ||
          std::fabs(got.data[i] - want[i]) <= 1e-3f * std::fabs(want[i])))
      ++bad;
  return bad;
}

std::string describe(const HostBuffer &h) {
  return h.layout.str() + " on " + shapeStr(h.shape);
}

class RandomCopy : public ::testing::TestWithParam<int> {};

TEST_P(RandomCopy, EveryCellMatches) {
  std::mt19937_64 rng(GetParam());
  unsigned rank = 1 + GetParam() % 3;
  Shape shape = randomShape(rng, rank);
  RandomLayoutOptions srcOpts, dstOpts;
  srcOpts.threadAxes = dstOpts.threadAxes = GetParam() % 2;
  dstOpts.replicas = true;
  HostBuffer src = HostBuffer::make(randomLayout(rng, shape, srcOpts), shape);
  HostBuffer dst = HostBuffer::make(randomLayout(rng, shape, dstOpts), shape);
  auto counting = [](int64_t f) { return float(f + 1); };
  src.fill(counting);
  std::vector<float> want = dst.cellsWith(counting);

  for (int64_t lanes : {8, 1}) {
    Kernel k(2);
    OpBuilder b = k.builder();
    CPUCodegenOptions opts;
    opts.vectorLanes32 = lanes;
    CPUBuffer s = k.buffer(0, src), d = k.buffer(1, dst);
    Result<bool> r = emitCopy(b, k.loc, s, d, opts);
    ASSERT_TRUE(bool(r)) << r.message();
    HostBuffer out = dst;
    ASSERT_TRUE(k.run({&src, &out}));
    EXPECT_EQ(mismatches(out, want), 0)
        << describe(src) << " -> " << describe(dst) << " plan "
        << describeCopyPlan(s, d, opts);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomCopy, ::testing::Range(1, 41));

TEST(CPUCodegen, TransposeUsesRegisterTranspose) {
  Shape shape{16, 32};
  auto src = *parseLayout("S[(16, 32) : (32, 1)]");
  auto dst = *parseLayout("S[(16, 32) : (1, 16)]");
  HostBuffer hs = HostBuffer::make(src, shape),
             hd = HostBuffer::make(dst, shape);
  Kernel k(2);
  CPUBuffer s = k.buffer(0, hs), d = k.buffer(1, hd);
  EXPECT_EQ(describeCopyPlan(s, d), "transpose 8x8");
}

// Transposes large enough to be cache-blocked (blocks of 2 to 16 tiles of 8
// along each loop, and loops whose tiles do not divide into blocks), with a
// batch dim outside: every cell checked.
TEST(CPUCodegen, BlockedTransposeEveryCell) {
  struct Case {
    Shape shape;
    const char *src, *dst;
    int64_t block;
  };
  const Case cases[] = {
      {{96, 256}, "S[(96, 256) : (256, 1)]", "S[(96, 256) : (1, 96)]", 128},
      {{96, 256}, "S[(96, 256) : (256, 1)]", "S[(96, 256) : (1, 96)]", 32},
      {{40, 136}, "S[(40, 136) : (136, 1)]", "S[(40, 136) : (1, 40)]", 64},
      {{3, 64, 48},
       "S[(3, 64, 48) : (3072, 48, 1)]",
       "S[(3, 64, 48) : (3072, 1, 64)]",
       128},
  };
  for (const Case &c : cases) {
    HostBuffer src = HostBuffer::make(*parseLayout(c.src), c.shape);
    HostBuffer dst = HostBuffer::make(*parseLayout(c.dst), c.shape);
    auto counting = [](int64_t f) { return float(f + 1); };
    src.fill(counting);
    std::vector<float> want = dst.cellsWith(counting);
    Kernel k(2);
    OpBuilder b = k.builder();
    CPUCodegenOptions opts;
    opts.transposeBlock = c.block;
    CPUBuffer s = k.buffer(0, src), d = k.buffer(1, dst);
    EXPECT_EQ(describeCopyPlan(s, d, opts), "transpose 8x8");
    Result<bool> r = emitCopy(b, k.loc, s, d, opts);
    ASSERT_TRUE(bool(r)) << r.message();
    HostBuffer out = dst;
    ASSERT_TRUE(k.run({&src, &out}));
    EXPECT_EQ(mismatches(out, want), 0)
        << describe(src) << " -> " << describe(dst) << " block " << c.block;
  }
}

// The blocked transpose with streaming stores on: blocks of different sizes
// along the two loops that do not divide the shapes (non-square, a batch dim
// outside), tiles grouped by destination line or not, each run on memory
// aligned to the vector (the streaming stores) and off it (the regular
// stores), every cell checked.
TEST(CPUCodegen, StreamingBlockedTransposeEveryCell) {
  struct Case {
    Shape shape;
    const char *src, *dst;
    int64_t block, blockDst;
  };
  const Case cases[] = {
      {{40, 136}, "S[(40, 136) : (136, 1)]", "S[(40, 136) : (1, 40)]", 32, 64},
      {{96, 264}, "S[(96, 264) : (264, 1)]", "S[(96, 264) : (1, 96)]", 16, 512},
      // The defaults: strips of 32 source rows, each a block of four 8 x 8
      // tiles whose streaming stores go in pairs, a whole line per pair.
      {{64, 208},
       "S[(64, 208) : (208, 1)]",
       "S[(64, 208) : (1, 64)]",
       4096,
       32},
      {{3, 72, 48},
       "S[(3, 72, 48) : (3456, 48, 1)]",
       "S[(3, 72, 48) : (3456, 1, 72)]",
       32,
       16},
  };
  for (const Case &c : cases) {
    HostBuffer src = HostBuffer::make(*parseLayout(c.src), c.shape);
    HostBuffer dst = HostBuffer::make(*parseLayout(c.dst), c.shape);
    auto counting = [](int64_t f) { return float(f + 1); };
    src.fill(counting);
    std::vector<float> want = dst.cellsWith(counting);
    // The lowering rewrites the module: one kernel per run.
    for (int64_t shift : {0, 8, 1, 3}) {
      Kernel k(2);
      OpBuilder b = k.builder();
      CPUCodegenOptions opts;
      opts.transposeBlock = c.block;
      opts.transposeBlockDst = c.blockDst;
      opts.transposeStreamingBytes = 1;
      CPUBuffer s = k.buffer(0, src), d = k.buffer(1, dst);
      EXPECT_EQ(describeCopyPlan(s, d, opts), "transpose 8x8");
      Result<bool> r = emitCopy(b, k.loc, s, d, opts);
      ASSERT_TRUE(bool(r)) << r.message();
      std::string text;
      llvm::raw_string_ostream os(text);
      k.module->print(os);
      EXPECT_NE(text.find("nontemporal = true"), std::string::npos);
      HostBuffer out = dst;
      ASSERT_TRUE(k.run({&src, &out}, shift));
      EXPECT_EQ(mismatches(out, want), 0)
          << describe(src) << " -> " << describe(dst) << " blocks " << c.block
          << " x " << c.blockDst << " shift " << shift;
    }
  }
}

// f16 transposes: tiles of 16 source rows with 512-bit vectors (8 with
// 256-bit ones), 32 (16) of them where the destination's contiguous dim
// allows, two rows per vector; rows moved in 32- and 64-bit lanes and
// streamed as 16-bit integers. Every element a distinct bit pattern, copied
// bit-exactly, on memory aligned to the vector and off it, every cell
// checked.
TEST(CPUCodegen, F16TransposeEveryCell) {
  struct Case {
    Shape shape;
    const char *src, *dst;
    // The plan with lanes32 16 and with 8: rows by lanes along the
    // destination's contiguous dim.
    const char *plan16, *plan8;
  };
  const Case cases[] = {
      {{48, 80},
       "S[(48, 80) : (80, 1)]",
       "S[(48, 80) : (1, 48)]",
       "transpose 16x16",
       "transpose 8x16"},
      {{96, 272},
       "S[(96, 272) : (272, 1)]",
       "S[(96, 272) : (1, 96)]",
       "transpose 16x32",
       "transpose 8x16"},
      {{96, 264},
       "S[(96, 264) : (264, 1)]",
       "S[(96, 264) : (1, 96)]",
       "transpose 8x16",
       "transpose 8x16"},
      {{3, 72, 48},
       "S[(3, 72, 48) : (3456, 48, 1)]",
       "S[(3, 72, 48) : (3456, 1, 72)]",
       "transpose 8x8",
       "transpose 8x8"},
  };
  for (const Case &c : cases)
    for (int64_t lanes32 : {16, 8})
      for (int64_t streamingBytes : {int64_t(0), int64_t(1)})
        for (int64_t shift : {0, 16, 1, 5}) {
          HostBuffer src = HostBuffer::make(*parseLayout(c.src), c.shape);
          HostBuffer dst = HostBuffer::make(*parseLayout(c.dst), c.shape);
          std::vector<uint16_t> in(src.storage.size(), 0xffff);
          std::vector<uint16_t> want(dst.storage.size(), 0xffff);
          for (int64_t f = 0; f < src.numElements(); ++f) {
            for (int64_t a : src.addresses(f))
              in[a] = uint16_t(f + 1);
            for (int64_t a : dst.addresses(f))
              want[a] = uint16_t(f + 1);
          }
          Kernel k(2, /*f16=*/true);
          OpBuilder b = k.builder();
          CPUCodegenOptions opts;
          opts.vectorLanes32 = lanes32;
          opts.transposeBlock = 32;
          opts.transposeBlockDst = 64;
          opts.transposeStreamingBytes = streamingBytes;
          CPUBuffer s = k.buffer(0, src), d = k.buffer(1, dst);
          EXPECT_EQ(describeCopyPlan(s, d, opts),
                    lanes32 == 16 ? c.plan16 : c.plan8);
          Result<bool> r = emitCopy(b, k.loc, s, d, opts);
          ASSERT_TRUE(bool(r)) << r.message();
          ASSERT_TRUE(succeeded(verify(*k.module)));
          std::string error;
          auto engine = lowerAndJIT(*k.module, error);
          ASSERT_TRUE(bool(engine)) << error;
          // Each buffer `shift` elements past a 64-byte boundary.
          std::vector<uint16_t> inStage(in.size() + 64),
              outStage(want.size() + 64);
          auto place = [&](std::vector<uint16_t> &st) {
            auto at =
                (reinterpret_cast<uintptr_t>(st.data()) + 63) & ~uintptr_t(63);
            return reinterpret_cast<uint16_t *>(at) + shift;
          };
          uint16_t *inData = place(inStage), *outData = place(outStage);
          std::copy(in.begin(), in.end(), inData);
          std::fill(outData, outData + want.size(), uint16_t(0xffff));
          StridedMemRefType<uint16_t, 1> descs[2];
          descs[0].basePtr = descs[0].data = inData;
          descs[0].sizes[0] = in.size();
          descs[1].basePtr = descs[1].data = outData;
          descs[1].sizes[0] = want.size();
          for (auto &dsc : descs) {
            dsc.offset = 0;
            dsc.strides[0] = 1;
          }
          StridedMemRefType<uint16_t, 1> *descPtrs[2] = {&descs[0], &descs[1]};
          SmallVector<void *> ptrs = {&descPtrs[0], &descPtrs[1]};
          llvm::Error e = engine->invokePacked("_mlir_ciface_kernel", ptrs);
          ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
          int64_t bad = 0;
          for (size_t a = 0; a < want.size(); ++a)
            bad += outData[a] != want[a];
          EXPECT_EQ(bad, 0)
              << c.src << " -> " << c.dst << " lanes32 " << lanes32
              << " streaming " << streamingBytes << " shift " << shift;
        }
}

class RandomReduce : public ::testing::TestWithParam<int> {};

TEST_P(RandomReduce, EveryCellMatches) {
  std::mt19937_64 rng(1000 + GetParam());
  unsigned rank = 1 + GetParam() % 3;
  Shape shape = randomShape(rng, rank);
  std::vector<int64_t> dims;
  for (unsigned d = 0; d < rank; ++d)
    if (std::uniform_int_distribution<int>(0, 1)(rng))
      dims.push_back(d);
  if (dims.empty())
    dims.push_back(rank - 1);
  bool keep = GetParam() % 2 || dims.size() == rank;
  Shape dstShape;
  for (unsigned d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, int64_t(d));
    if (!reduced || keep)
      dstShape.push_back(reduced ? 1 : shape[d]);
  }
  RandomLayoutOptions opts;
  opts.threadAxes = GetParam() % 2;
  HostBuffer src = HostBuffer::make(randomLayout(rng, shape, opts), shape);
  RandomLayoutOptions dopts = opts;
  dopts.replicas = true;
  HostBuffer dst =
      HostBuffer::make(randomLayout(rng, dstShape, dopts), dstShape);
  Combiner kind = Combiner(GetParam() % 4);
  bool accumulate = GetParam() % 3 == 0;
  src.fill([&](int64_t f) {
    return float((f * 7) % 5 + 1) * (kind == Combiner::Prod ? 0.5f : 1.f);
  });
  dst.fill([](int64_t f) { return 1.0f + f % 3; });
  auto apply = [&](float x, float y) {
    switch (kind) {
    case Combiner::Sum:
      return x + y;
    case Combiner::Prod:
      return x * y;
    case Combiner::Max:
      return std::max(x, y);
    case Combiner::Min:
      return std::min(x, y);
    }
    return x;
  };
  std::vector<float> acc(dst.numElements());
  std::vector<bool> seen(dst.numElements(), false);
  for (int64_t f = 0; f < src.numElements(); ++f) {
    Shape x = unflattenIndex(f, shape);
    Shape y;
    for (unsigned d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(dims, int64_t(d));
      if (!reduced || keep)
        y.push_back(reduced ? 0 : x[d]);
    }
    int64_t g = dstShape.empty() ? 0 : *flattenCoord(y, dstShape);
    float v = src.get(f);
    acc[g] = seen[g] ? apply(acc[g], v) : v;
    seen[g] = true;
  }
  std::vector<float> want = dst.cellsWith([&](int64_t g) {
    return accumulate ? apply(dst.get(g), acc[g]) : acc[g];
  });
  for (int64_t lanes : {8, 1}) {
    Kernel k(2);
    OpBuilder b = k.builder();
    CPUCodegenOptions o;
    o.vectorLanes32 = lanes;
    Result<bool> r = emitReduce(b, k.loc, k.buffer(0, src), k.buffer(1, dst),
                                dims, kind, accumulate, o);
    ASSERT_TRUE(bool(r)) << r.message();
    HostBuffer out = dst;
    ASSERT_TRUE(k.run({&src, &out}));
    EXPECT_EQ(mismatches(out, want), 0)
        << describe(src) << " -> " << describe(dst) << " kind " << int(kind)
        << " lanes " << lanes;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomReduce, ::testing::Range(1, 25));

/// Fills A, B and C with small integers and returns C's storage after
/// C (+)= op(A) x op(B), every replica of C written.
std::vector<float> fillGemm(HostBuffer &A, bool ta, HostBuffer &B, bool tb,
                            HostBuffer &C, bool accumulate) {
  A.fill([](int64_t f) { return float(f % 7) - 3; });
  B.fill([](int64_t f) { return float(f % 5) - 2; });
  C.fill([](int64_t f) { return float(f % 3); });
  auto at = [](const HostBuffer &h, int64_t i, int64_t j) {
    return h.get(i * h.shape[1] + j);
  };
  int64_t M = C.shape[0], N = C.shape[1], K = ta ? A.shape[0] : A.shape[1];
  std::vector<float> want = C.data;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float s = accumulate ? at(C, i, j) : 0.f;
      for (int64_t k = 0; k < K; ++k)
        s +=
            (ta ? at(A, k, i) : at(A, i, k)) * (tb ? at(B, j, k) : at(B, k, j));
      for (int64_t a : C.addresses(i * N + j))
        want[a] = s;
    }
  return want;
}

class RandomGemm : public ::testing::TestWithParam<int> {};

TEST_P(RandomGemm, PackedAndNaiveMatchReference) {
  std::mt19937_64 rng(2000 + GetParam());
  static const int64_t sizes[] = {2, 4, 6, 8, 16, 24};
  auto pick = [&] {
    return sizes[std::uniform_int_distribution<int>(0, 5)(rng)];
  };
  int64_t M = pick(), N = pick(), K = pick();
  bool ta = GetParam() % 2, tb = (GetParam() / 2) % 2;
  bool accumulate = GetParam() % 3 != 0;
  Shape aShape = ta ? Shape{K, M} : Shape{M, K};
  Shape bShape = tb ? Shape{N, K} : Shape{K, N};
  Shape cShape{M, N};
  RandomLayoutOptions opts;
  opts.threadAxes = GetParam() % 2;
  HostBuffer A = HostBuffer::make(randomLayout(rng, aShape, opts), aShape);
  HostBuffer B = HostBuffer::make(randomLayout(rng, bShape, opts), bShape);
  RandomLayoutOptions copts = opts;
  copts.replicas = true;
  HostBuffer C = HostBuffer::make(randomLayout(rng, cShape, copts), cShape);
  std::vector<float> want = fillGemm(A, ta, B, tb, C, accumulate);
  // The naive loop nest, then the packed gemm sized for SSE, AVX2 and
  // AVX-512 register files (the blocking differs, the answer must not).
  struct Unit {
    int64_t lanes, registers;
  };
  for (Unit unit : {Unit{0, 0}, Unit{4, 16}, Unit{8, 16}, Unit{16, 32}}) {
    bool packed = unit.lanes > 0;
    CPUCodegenOptions opts;
    opts.vectorLanes32 = unit.lanes;
    opts.vectorRegisters = unit.registers;
    Kernel k(3);
    OpBuilder b = k.builder();
    CPUBuffer a = k.buffer(0, A), bb = k.buffer(1, B), c = k.buffer(2, C);
    Result<bool> r =
        packed ? emitGemmPacked(b, k.loc, a, ta, bb, tb, c, accumulate, opts)
               : emitGemmNaive(b, k.loc, a, ta, bb, tb, c, accumulate);
    ASSERT_TRUE(bool(r)) << r.message();
    HostBuffer out = C;
    ASSERT_TRUE(k.run({&A, &B, &out}));
    EXPECT_EQ(mismatches(out, want), 0)
        << (packed ? "packed, lanes " + std::to_string(unit.lanes) : "naive")
        << ": " << describe(A) << " x " << describe(B) << " -> " << describe(C);
  }
}

TEST(CPUGemm, BlockingFollowsTheVectorUnit) {
  CPUCodegenOptions avx2, avx512;
  avx2.vectorLanes32 = 8;
  avx2.vectorRegisters = 16;
  avx512.vectorLanes32 = 16;
  avx512.vectorRegisters = 32;
  // 6 x 2 accumulators + 2 B vectors + 1 broadcast fill 16 ymm registers.
  // 6 does not divide 128, and 4 rows (8 accumulators) would leave the
  // FMA pipes waiting: A is kept k-major, 20 blocks of 6 rows and the 8
  // rows left as two blocks of 4.
  GemmBlocking g2 = chooseGemmBlocking(128, 128, 128, avx2);
  EXPECT_EQ(g2.lanes, 8);
  EXPECT_EQ(g2.nr(), 16);
  EXPECT_EQ(g2.mr, 6);
  EXPECT_FALSE(g2.aPanels);
  ASSERT_EQ(g2.rowBlocks.size(), 2u);
  EXPECT_EQ(g2.rowBlocks[0].first, 0);
  EXPECT_EQ(g2.rowBlocks[0].count, 20);
  EXPECT_EQ(g2.rowBlocks[0].rows, 6);
  EXPECT_EQ(g2.rowBlocks[1].first, 120);
  EXPECT_EQ(g2.rowBlocks[1].count, 2);
  EXPECT_EQ(g2.rowBlocks[1].rows, 4);
  EXPECT_EQ(gemmPanelLayoutA(128, 64, false, g2), "S[(128, 64) : (1, 128)]");
  // 8 rows divide 128 and hold 16 accumulators: panels.
  GemmBlocking g5 = chooseGemmBlocking(128, 128, 128, avx512);
  EXPECT_EQ(g5.nr(), 32);
  EXPECT_EQ(g5.mr, 8);
  EXPECT_TRUE(g5.aPanels);
  ASSERT_EQ(g5.rowBlocks.size(), 1u);
  EXPECT_EQ(g5.rowBlocks[0].count, 16);
  EXPECT_EQ(g5.kc, 128);
  // 96 rows: 12 divides it and fits 32 zmm registers (24 + 2 + 1).
  EXPECT_EQ(chooseGemmBlocking(96, 64, 64, avx512).mr, 12);
  // A deep K is cut into blocks whose A micro-panel stays in L1.
  GemmBlocking deep = chooseGemmBlocking(128, 128, 1024, avx512);
  EXPECT_LT(deep.kc, 1024);
  EXPECT_EQ(1024 % deep.kc, 0);
  EXPECT_LE(deep.kc * deep.mr * 4, 16 * 1024);
  EXPECT_EQ(deep.kc, 256);
}

// The row blocks cover M exactly, in order, none above mr, and a
// remainder under half a block is never left on its own.
TEST(CPUGemm, RowBlocksCoverEveryRow) {
  CPUCodegenOptions avx2;
  avx2.vectorLanes32 = 8;
  avx2.vectorRegisters = 16;
  for (int64_t m = 1; m <= 64; ++m) {
    GemmBlocking g = chooseGemmBlocking(m, 16, 16, avx2);
    int64_t next = 0;
    for (const GemmRowBlocks &blocks : g.rowBlocks) {
      EXPECT_EQ(blocks.first, next) << "m " << m;
      EXPECT_GE(blocks.count, 1) << "m " << m;
      EXPECT_LE(blocks.rows, g.mr) << "m " << m;
      EXPECT_TRUE(m < g.mr || 2 * blocks.rows >= g.mr) << "m " << m;
      next += blocks.count * blocks.rows;
    }
    EXPECT_EQ(next, m);
    if (g.aPanels) {
      EXPECT_EQ(m % g.mr, 0) << "m " << m;
    }
  }
}

int64_t countOps(Operation *root, StringRef name) {
  int64_t n = 0;
  root->walk([&](Operation *op) { n += op->getName().getStringRef() == name; });
  return n;
}

// Operands already laid out as the gemm's panels (what a kernel's shared
// tiles can be) are read in place: no scratch, no packing copy.
TEST(CPUGemm, PanelLayoutsAreReadInPlace) {
  CPUCodegenOptions opts;
  opts.vectorLanes32 = 8;
  opts.vectorRegisters = 16;
  const int64_t M = 32, N = 32, K = 24;
  GemmBlocking g = chooseGemmBlocking(M, N, K, opts);
  auto text = [](std::initializer_list<int64_t> e,
                 std::initializer_list<int64_t> s) {
    std::string t = "S[(";
    for (int64_t v : e)
      t += std::to_string(v) + ", ";
    t.resize(t.size() - 2);
    t += ") : (";
    for (int64_t v : s)
      t += std::to_string(v) + ", ";
    t.resize(t.size() - 2);
    return t + ")]";
  };
  std::string aText = gemmPanelLayoutA(M, K, false, g);
  std::string bText = gemmPanelLayoutB(K, N, false, g);
  HostBuffer A = HostBuffer::make(*parseLayout(aText), {M, K});
  HostBuffer B = HostBuffer::make(*parseLayout(bText), {K, N});
  HostBuffer C = HostBuffer::make(*parseLayout(text({M, N}, {N, 1})), {M, N});
  std::vector<float> want = fillGemm(A, false, B, false, C, true);
  Kernel k(3);
  OpBuilder b = k.builder();
  CPUBuffer a = k.buffer(0, A), bb = k.buffer(1, B), c = k.buffer(2, C);
  Result<bool> r = emitGemmPacked(b, k.loc, a, false, bb, false, c, true, opts);
  ASSERT_TRUE(bool(r)) << r.message();
  EXPECT_EQ(countOps(k.module.get(), "memref.alloca") +
                countOps(k.module.get(), "memref.alloc"),
            0);
  HostBuffer out = C;
  ASSERT_TRUE(k.run({&A, &B, &out}));
  EXPECT_EQ(mismatches(out, want), 0);
}

// A in rows or columns of unit stride within a larger matrix (a view of a
// global operand) is read in place for any block height, tails included,
// and so is C in rows of unit stride; only B is packed.
TEST(CPUGemm, UnitStrideAIsReadInPlace) {
  CPUCodegenOptions opts;
  opts.vectorLanes32 = 8;
  opts.vectorRegisters = 16;
  const int64_t M = 26, N = 32, K = 20, ld = 37;
  auto strided = [](int64_t r, int64_t c, int64_t s0, int64_t s1) {
    return "S[(" + std::to_string(r) + ", " + std::to_string(c) + ") : (" +
           std::to_string(s0) + ", " + std::to_string(s1) + ")]";
  };
  struct Case {
    bool transA;
    std::string aText;
  };
  for (const Case &cs :
       {Case{false, strided(M, K, ld, 1)}, Case{false, strided(M, K, 1, ld)},
        Case{true, strided(K, M, ld, 1)}}) {
    Shape aShape = cs.transA ? Shape{K, M} : Shape{M, K};
    HostBuffer A = HostBuffer::make(*parseLayout(cs.aText), aShape);
    HostBuffer B = HostBuffer::make(*parseLayout(strided(K, N, N, 1)), {K, N});
    HostBuffer C =
        HostBuffer::make(*parseLayout(strided(M, N, N + 8, 1)), {M, N});
    std::vector<float> want = fillGemm(A, cs.transA, B, false, C, true);
    Kernel k(3);
    OpBuilder b = k.builder();
    CPUBuffer a = k.buffer(0, A), bb = k.buffer(1, B), c = k.buffer(2, C);
    Result<bool> r =
        emitGemmPacked(b, k.loc, a, cs.transA, bb, false, c, true, opts);
    ASSERT_TRUE(bool(r)) << r.message();
    // B's panels are the one scratch buffer.
    EXPECT_EQ(countOps(k.module.get(), "memref.alloca") +
                  countOps(k.module.get(), "memref.alloc"),
              1)
        << cs.aText;
    HostBuffer out = C;
    ASSERT_TRUE(k.run({&A, &B, &out}));
    EXPECT_EQ(mismatches(out, want), 0) << cs.aText;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGemm, ::testing::Range(1, 17));

class RandomElementwise : public ::testing::TestWithParam<int> {};

TEST_P(RandomElementwise, FillThenScaleAdd) {
  std::mt19937_64 rng(3000 + GetParam());
  Shape shape = randomShape(rng, 1 + GetParam() % 2);
  RandomLayoutOptions opts;
  opts.threadAxes = GetParam() % 2;
  HostBuffer x = HostBuffer::make(randomLayout(rng, shape, opts), shape);
  HostBuffer y = HostBuffer::make(randomLayout(rng, shape, opts), shape);
  RandomLayoutOptions dopts = opts;
  dopts.replicas = true;
  HostBuffer z = HostBuffer::make(randomLayout(rng, shape, dopts), shape);
  x.fill([](int64_t f) { return float(f); });
  y.fill([](int64_t f) { return float(f % 4); });
  // z = x * 2 + y, then a fill of y with 7 (checked through y's storage).
  std::vector<float> wantZ =
      z.cellsWith([](int64_t f) { return float(f) * 2 + float(f % 4); });
  std::vector<float> wantY = y.cellsWith([](int64_t) { return 7.f; });
  Kernel k(3);
  OpBuilder b = k.builder();
  // The body lives in a detached region, as an op's region would.
  Region body;
  Block *blk = new Block();
  body.push_back(blk);
  Type f32 = b.getF32Type();
  blk->addArgument(f32, k.loc);
  blk->addArgument(f32, k.loc);
  {
    OpBuilder rb(&k.ctx);
    rb.setInsertionPointToEnd(blk);
    Value two = arith::ConstantOp::create(rb, k.loc, rb.getF32FloatAttr(2));
    Value m = arith::MulFOp::create(rb, k.loc, blk->getArgument(0), two);
    Value s = arith::AddFOp::create(rb, k.loc, m, blk->getArgument(1));
    func::ReturnOp::create(rb, k.loc, s);
  }
  CPUBuffer bx = k.buffer(0, x), by = k.buffer(1, y), bz = k.buffer(2, z);
  Result<bool> r = emitElementwise(b, k.loc, {bx, by}, {bz}, body);
  ASSERT_TRUE(bool(r)) << r.message();
  Value seven = arith::ConstantOp::create(b, k.loc, b.getF32FloatAttr(7));
  r = emitFill(b, k.loc, by, seven);
  ASSERT_TRUE(bool(r)) << r.message();
  HostBuffer outY = y, outZ = z;
  ASSERT_TRUE(k.run({&x, &outY, &outZ}));
  EXPECT_EQ(mismatches(outZ, wantZ), 0) << describe(x) << " -> " << describe(z);
  EXPECT_EQ(mismatches(outY, wantY), 0) << describe(y);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomElementwise, ::testing::Range(1, 13));

} // namespace
