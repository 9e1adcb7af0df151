//===- InstanceViewTest.cpp - The emitted per-instance view, run ----------===//
//
// Emits, for seeded random layouts, a function of the instance coordinates
// that writes what the instance holds (whether it holds anything, each
// element's logical index and every place it keeps it), in the loop form and
// the unrolled form; JIT-compiles it on the CPU and compares each instance
// with InstanceView::elementsOf, which unittests/Layout checks against the
// brute-force model.
//
//===----------------------------------------------------------------------===//

#include "../Layout/BruteForce.h"

#include "axe/Codegen/InstanceView.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/InitAllDialects.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace axe;
using namespace axe::testing;

namespace {

/// The instance axes the emitted functions take, in argument order.
const char *const kAxes[] = {"laneid", "warpid", "P"};
/// Every axis the generator uses.
const char *const kAllAxes[] = {"m", "laneid", "warpid", "P", "F"};

/// One number per storage coordinate: coordinates stay below 2^11 in
/// magnitude, so 12 bits per axis keep the keys distinct.
int64_t keyWeight(llvm::StringRef axis) {
  for (auto [i, a] : llvm::enumerate(kAllAxes))
    if (axis == a)
      return int64_t(1) << (12 * i);
  return 0;
}

int64_t storageKey(const Coord &c) {
  int64_t key = 0;
  for (const auto &[axis, v] : c.entries())
    key += v * keyWeight(axis);
  return key;
}

Value emitStorageKey(OpBuilder &b, Location loc, const CoordValue &c) {
  Value key = indexConstant(b, loc, 0);
  for (const auto &[axis, v] : c.entries())
    key = addIndex(b, loc, key, mulIndex(b, loc, v, keyWeight(axis)));
  return key;
}

/// The output of one instance: holds, then per local element j (at slot
/// 1 + j * stride()) its flat logical index and the keys of its placements.
struct OutputShape {
  int64_t replicas;
  int64_t stride() const { return 1 + replicas; }
  int64_t size(int64_t elements) const { return 1 + elements * stride(); }
};

void store(OpBuilder &b, Location loc, Value v, Value out, int64_t slot) {
  if (v.getType().isIndex())
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  else
    v = arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  memref::StoreOp::create(b, loc, v, out,
                          ValueRange{indexConstant(b, loc, slot)});
}

void store(OpBuilder &b, Location loc, Value v, Value out, Value slot) {
  v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  memref::StoreOp::create(b, loc, v, out, ValueRange{slot});
}

/// Row-major flat index of `indices` in `shape`.
Value flatten(OpBuilder &b, Location loc, ValueRange indices,
              llvm::ArrayRef<int64_t> shape) {
  Value flat = indexConstant(b, loc, 0);
  for (auto [idx, extent] : llvm::zip_equal(indices, shape))
    flat = addIndex(b, loc, mulIndex(b, loc, flat, extent), idx);
  return flat;
}

/// Writes an element's logical flat index and its placements' keys at
/// element slot `at`.
void storeElement(OpBuilder &b, Location loc, const InstanceEmitter &em,
                  const InstanceElement &e, Value out, Value at) {
  auto slot = [&](OpBuilder &nb, int64_t k) {
    return addIndex(nb, loc, at, indexConstant(nb, loc, k));
  };
  store(b, loc, flatten(b, loc, e.logical, em.view().shape()), out, slot(b, 0));
  int64_t r = 0;
  em.forEachPlacement(
      b, loc, e, [&](OpBuilder &nb, Location l, const CoordValue &c) {
        store(nb, l, emitStorageKey(nb, l, c), out, slot(nb, 1 + r++));
      });
}

/// func @name(%laneid, %warpid, %P : index, %out : memref<?xi64>).
func::FuncOp createFunction(OpBuilder &b, Location loc, StringRef name) {
  Type index = b.getIndexType();
  auto memref = MemRefType::get({ShapedType::kDynamic}, b.getI64Type());
  auto fn = func::FuncOp::create(
      b, loc, name, b.getFunctionType({index, index, index, memref}, {}));
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  Block *entry = fn.addEntryBlock();
  OpBuilder end = OpBuilder::atBlockEnd(entry);
  func::ReturnOp::create(end, loc);
  return fn;
}

/// The instance coordinates of `fn` and its base.
InstanceBase emitBase(OpBuilder &b, Location loc, const InstanceEmitter &em,
                      func::FuncOp fn) {
  CoordValue instance;
  for (auto [i, axis] : llvm::enumerate(kAxes))
    if (em.view().isInstanceAxis(axis))
      instance.set(axis, fn.getArgument(i));
  return em.emitBase(b, loc, instance);
}

/// A function writing what an instance holds, as OutputShape says: with
/// the element loop, or one element at a time (`unrolled`).
void emitForm(OpBuilder &b, Location loc, const InstanceEmitter &em,
              const OutputShape &os, StringRef name, bool unrolled) {
  func::FuncOp fn = createFunction(b, loc, name);
  OpBuilder body = OpBuilder::atBlockBegin(&fn.getBody().front());
  Value out = fn.getArgument(3);
  InstanceBase base = emitBase(body, loc, em, fn);
  store(body, loc, base.holds, out, 0);
  Shape localShape = em.view().localShape();
  auto write = [&](OpBuilder &nb, Location l, const InstanceElement &e) {
    Value j = flatten(nb, l, e.localIndex, localShape);
    Value at = addIndex(nb, l, mulIndex(nb, l, j, os.stride()),
                        indexConstant(nb, l, 1));
    storeElement(nb, l, em, e, out, at);
  };
  if (!unrolled) {
    em.emitLoop(body, loc, base, write);
    return;
  }
  for (int64_t j = 0; j < em.view().localSize(); ++j)
    write(body, loc, em.emitElement(body, loc, base, j));
}

/// What the reference says instance `instance` holds, as the emitted
/// functions write it (ignoring the slots of an instance that holds
/// nothing).
std::vector<int64_t> expectedOutput(const InstanceView &view,
                                    const Coord &instance,
                                    const OutputShape &os) {
  std::vector<int64_t> out(os.size(view.localSize()), 0);
  auto held = view.elementsOf(instance);
  out[0] = !held.empty();
  for (const HeldElement &e : held) {
    int64_t at = 1 + e.localIndex * os.stride();
    out[at] = referenceFlatten(vec(e.logical), vec(view.shape()));
    for (auto [r, c] : llvm::enumerate(e.storage))
      out[at + 1 + r] = storageKey(c);
  }
  return out;
}

/// Placement keys are written in the emitter's replica order; compare
/// them as sets.
void sortPlacements(std::vector<int64_t> &out, const OutputShape &os) {
  for (size_t at = 1; at < out.size(); at += os.stride())
    std::sort(out.begin() + at + 1, out.begin() + at + os.stride());
}

/// Runs function `name` for one instance.
std::vector<int64_t> run(ExecutionEngine &engine, StringRef name,
                         const Coord &instance, int64_t size) {
  std::vector<int64_t> out(size, -1);
  int64_t coords[3];
  for (auto [i, axis] : llvm::enumerate(kAxes))
    coords[i] = instance.get(axis);
  // A ranked memref descriptor: allocated, aligned, offset, size, stride.
  int64_t base = reinterpret_cast<int64_t>(out.data());
  std::vector<int64_t> desc{base, base, 0, size, 1};
  void *descPtr = desc.data();
  SmallVector<void *> args{&coords[0], &coords[1], &coords[2], &descPtr};
  llvm::Error e = engine.invokePacked(("_mlir_ciface_" + name).str(), args);
  EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
  return out;
}

/// Every instance point in [-1, 9] on each instance axis of `view`.
std::vector<Coord> instances(const InstanceView &view) {
  std::vector<Coord> all{Coord()};
  for (const InstanceAxis &axis : view.instanceAxes()) {
    std::vector<Coord> next;
    for (const Coord &c : all)
      for (int64_t v = -1; v <= 9; ++v) {
        Coord d = c;
        d.add(axis.axis, v);
        next.push_back(d);
      }
    all = std::move(next);
  }
  return all;
}

/// Emits both forms for `em`, runs them for every instance and compares
/// with the view.
void checkEmitted(MLIRContext &ctx, const InstanceEmitter &em,
                  const std::string &what) {
  const InstanceView &view = em.view();
  OutputShape os{view.local().tile().replicaCount()};
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  emitForm(b, loc, em, os, "loop", /*unrolled=*/false);
  emitForm(b, loc, em, os, "unrolled", /*unrolled=*/true);
  ASSERT_TRUE(succeeded(verify(*module))) << what;
  std::string error;
  auto engine = lowerAndJIT(*module, error);
  ASSERT_TRUE(engine) << what << ": " << error;
  int64_t size = os.size(view.localSize());
  for (const Coord &instance : instances(view)) {
    std::vector<int64_t> expected = expectedOutput(view, instance, os);
    sortPlacements(expected, os);
    for (StringRef name : {"loop", "unrolled"}) {
      std::vector<int64_t> got = run(*engine, name, instance, size);
      if (!got[0])
        std::fill(got.begin() + 1, got.end(), 0);
      sortPlacements(got, os);
      ASSERT_EQ(got, expected)
          << what << ", @" << name.str() << " at " << instance.str();
    }
  }
}

MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registerAllAxeDialects(registry);
    registerCPUCodegenDialects(registry);
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *ctx;
}

TEST(InstanceEmitter, SpecExample) {
  Result<Layout> l = parseLayout(
      "S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] "
      "+ 5@warpid");
  ASSERT_TRUE(bool(l)) << l.message();
  auto em = InstanceEmitter::get(*l, {8, 16}, {"laneid", "warpid"});
  ASSERT_TRUE(bool(em)) << em.message();
  checkEmitted(context(), *em, l->str());
}

TEST(InstanceEmitter, SwizzledStorageReplicas) {
  Result<Layout> l = parseLayout(
      "SW(1, 2, 2) o S[(4, 2, 16) : (-1@laneid, 5@laneid, 1)] + R[2 : 64] + "
      "2@laneid");
  ASSERT_TRUE(bool(l)) << l.message();
  auto em = InstanceEmitter::get(*l, {8, 16}, {"laneid"});
  ASSERT_TRUE(bool(em)) << em.message();
  EXPECT_FALSE(em->view().instanceAxes()[0].dense());
  checkEmitted(context(), *em, l->str());
}

TEST(InstanceEmitter, OverlappingDigitsSearched) {
  Result<Layout> l = parseLayout("S[(12, 2, 1) : (1, 2@laneid, 12)] + "
                                 "R[(2, 2) : (3@laneid, 12)] + 7");
  ASSERT_TRUE(bool(l)) << l.message();
  auto em = InstanceEmitter::get(*l, {24, 1}, {"laneid"});
  ASSERT_TRUE(bool(em)) << em.message();
  EXPECT_TRUE(em->view().instanceAxes()[0].tabled);
  checkEmitted(context(), *em, l->str());
}

TEST(InstanceEmitter, RandomLayoutsRunAsTheViewSays) {
  int checked = 0;
  for (uint64_t seed = 0; checked < 24 && seed < 200; ++seed) {
    LayoutGenerator gen(seed);
    auto [layout, shape, axes] =
        randomInstanceCase(gen, 64, {"laneid", "warpid", "P"});
    auto em = InstanceEmitter::get(layout, shape, axes);
    if (!em || em->view().local().tile().replicaCount() > 16)
      continue;
    ++checked;
    checkEmitted(context(), *em,
                 "seed " + std::to_string(seed) + ": " + layout.str() +
                     " over " + shapeStr(shape));
  }
  EXPECT_EQ(checked, 24);
}

} // namespace
