//===- RandomDispatchTest.cpp - Random axe kernels through axe-to-cpu -----===//
//
// Writes axe kernels as text whose buffers have seeded random layouts
// (shared, swizzled, registers of a CTA or of each warp or thread,
// replicated destinations) around axe.copy / gemm / reduce / fill /
// elementwise, with axe.view of global memrefs and axe.slice at run-time
// starts inside scf.for loops; runs the real pipeline (axe-dispatch{target=
// cpu}, convert-axe-to-cpu, upstream conversions to llvm) in-process, JIT-
// compiles the result and checks every element of every global memref
// against a C++ reference. The unit tests in CPUCodegenTest.cpp check the
// code generator alone; these check dispatch, per-warp execution and the
// structural lowering around it.
//
// Operators run at cta, warpgroup, warp or thread scope, or in producer and
// consumer partitions of a warp-specialized CTA. At warpgroup (warp,
// thread) scope every instance works on its own tile of the global arrays
// and on its own slice of shared buffers, so the kernels are race-free SPMD
// programs. Register buffers place data on one family of thread axes that
// do not alias: laneid/warpid, tx, tid_in_wg/wgid or laneid/wid_in_wg/wgid.
//
// Replicated destinations (up to two replica iters of extent 2 or 3, on m
// or thread axes) are read back once per replica: through whole-buffer
// slices whose equivalent layouts make that replica the one a copy reads,
// so a schedule that skips any replica is caught.
//
// Elements are f32, and f16, bf16 and i32 in copies, gemm (f16/bf16 A and B
// into f32 C), i32 reductions and casts in elementwise bodies; values are
// exact in their types, so results are compared exactly after rounding the
// reference to the output's type. A few gemms are 32 to 64 on each side.
//
// The RandomDispatchWide suite widens the inputs, each a shape of kernel
// that once found a defect (issue 8): every element type from i1 (one byte
// per element; read back whole, so a stray bit of a packed vector shows) to
// i64 and f64; rank-0 reduction targets; globals with gaps of up to 3 and
// negative strides; copy_async tokens carried through scf.for iter_args;
// f16/bf16 gemms into f16/bf16 accumulators on the forced naive schedule.
// Every suite slices register tiles at loop-variable starts that move
// along thread axes (such a slice stays with the scope of those axes).
//
//===----------------------------------------------------------------------===//

#include "RandomLayouts.h"

#include "axe/Conversion/AxeToCPU/AxeToCPU.h"
#include "axe/Conversion/AxeToCPU/CPULowering.h"
#include "axe/InitAllDialects.h"
#include "axe/Layout/Algebra.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/APFloat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <set>
#include <sstream>

using namespace mlir;
using namespace axe;
using namespace axe::testing;

namespace {

constexpr float kUntouched = -12345.0f;

bool coin(std::mt19937_64 &rng, int percent) {
  return std::uniform_int_distribution<int>(0, 99)(rng) < percent;
}
int64_t pick(std::mt19937_64 &rng, llvm::ArrayRef<int64_t> from) {
  return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
}

/// A value of `from` no larger than `limit` (the smallest one must be), drawn
/// the way pick() draws, so the seeds keep their cases.
int64_t pickAtMost(std::mt19937_64 &rng, llvm::ArrayRef<int64_t> from,
                   int64_t limit) {
  int64_t s;
  do
    s = pick(rng, from);
  while (s > limit);
  return s;
}

int64_t product(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t e : shape)
    n *= e;
  return n;
}
std::string joined(llvm::ArrayRef<int64_t> v, const char *sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? sep : "") + std::to_string(v[i]);
  return out;
}

//===----------------------------------------------------------------------===//
// Element types: values are kept as floats on the C++ side (every value the
// tests use is exact in f32) and stored in the element type for the kernel
//===----------------------------------------------------------------------===//

int64_t elementBytes(const std::string &elem) {
  if (elem == "i1" || elem == "i8")
    return 1;
  if (elem == "f16" || elem == "bf16" || elem == "i16")
    return 2;
  if (elem == "i64" || elem == "f64")
    return 8;
  return 4;
}

bool isInteger(const std::string &elem) { return elem[0] == 'i'; }

const llvm::fltSemantics *semanticsOf(const std::string &elem) {
  if (elem == "f16")
    return &llvm::APFloat::IEEEhalf();
  if (elem == "bf16")
    return &llvm::APFloat::BFloat();
  return nullptr;
}

/// Writes `v` as one `elem` at `p`: integers truncated to their width (an
/// i1 is one byte holding 0 or 1, as memref.store of an i1 writes it),
/// floats rounded to nearest even.
void encode(const std::string &elem, float v, uint8_t *p) {
  if (isInteger(elem)) {
    int64_t i = int64_t(v);
    if (elem == "i1")
      i &= 1;
    memcpy(p, &i, elementBytes(elem)); // Little-endian: the low bytes.
  } else if (const llvm::fltSemantics *sem = semanticsOf(elem)) {
    llvm::APFloat f(v);
    bool lost;
    f.convert(*sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = uint16_t(f.bitcastToAPInt().getZExtValue());
    memcpy(p, &bits, 2);
  } else if (elem == "f64") {
    double d = v;
    memcpy(p, &d, 8);
  } else {
    memcpy(p, &v, 4);
  }
}

/// The value of the `elem` at `p`. An i1 reads its whole byte, so that a
/// byte other than 0 or 1 (bits of a packed vector) is a mismatch.
float decode(const std::string &elem, const uint8_t *p) {
  if (elem == "i1")
    return float(*p);
  if (elem == "i8")
    return float(int8_t(*p));
  if (elem == "i16") {
    int16_t i;
    memcpy(&i, p, 2);
    return float(i);
  }
  if (elem == "i32") {
    int32_t i;
    memcpy(&i, p, 4);
    return float(i);
  }
  if (elem == "i64") {
    int64_t i;
    memcpy(&i, p, 8);
    return float(i);
  }
  if (elem == "f64") {
    double d;
    memcpy(&d, p, 8);
    return float(d);
  }
  if (const llvm::fltSemantics *sem = semanticsOf(elem)) {
    uint16_t bits;
    memcpy(&bits, p, 2);
    llvm::APFloat f(*sem, llvm::APInt(16, bits));
    bool lost;
    f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.convertToFloat();
  }
  float v;
  memcpy(&v, p, 4);
  return v;
}

/// `v` as an `elem` holds it.
float roundTrip(const std::string &elem, float v) {
  uint8_t bytes[4];
  encode(elem, v, bytes);
  return decode(elem, bytes);
}

//===----------------------------------------------------------------------===//
// Launch: which scope the operators run at, and how many instances
//===----------------------------------------------------------------------===//

enum class Scope { CTA, Warp, Thread, Warpgroup };

struct Launch {
  Scope scope = Scope::CTA;
  int64_t grid = 1;
  int64_t threads = 128;
  /// Warp specialization: producer warps [0, W/2) and consumer warps
  /// [W/2, W) of the CTA, each pair of a producer and a consumer on its own
  /// tile; the kernel defines %inst and %k in each partition.
  bool specialized = false;
  int64_t warps() const { return threads / 32; }
  /// Instances of the operators' scope per CTA (with their own tiles).
  int64_t instances() const {
    if (specialized)
      return warps() / 2;
    switch (scope) {
    case Scope::CTA:
      return 1;
    case Scope::Warpgroup:
      return threads / 128;
    case Scope::Warp:
      return warps();
    case Scope::Thread:
      return threads;
    }
    return 1;
  }
  /// Instances in the whole grid: each has its own tile of the globals.
  int64_t total() const { return grid * instances(); }
  const char *scopeName() const {
    return scope == Scope::CTA         ? "cta"
           : scope == Scope::Warpgroup ? "warpgroup"
           : scope == Scope::Warp      ? "warp"
                                       : "thread";
  }
};

Launch randomLaunch(std::mt19937_64 &rng, int seed) {
  Launch l;
  l.scope = Scope(seed % 4);
  l.grid = coin(rng, 50) ? 2 : 1;
  switch (l.scope) {
  case Scope::CTA:
  case Scope::Warpgroup:
    // Two warpgroups sometimes, so that wgid places data.
    l.threads = coin(rng, 50) ? 128 : 256;
    break;
  case Scope::Warp:
    l.threads = coin(rng, 50) ? 64 : 128;
    break;
  case Scope::Thread:
    l.threads = coin(rng, 50) ? 32 : 64;
    break;
  }
  return l;
}

/// A shape of `rank` dims with at most `maxElements` elements.
Shape smallShape(std::mt19937_64 &rng, unsigned rank, int64_t maxElements) {
  for (;;) {
    Shape s = randomShape(rng, rank);
    if (product(s) <= maxElements)
      return s;
  }
}

//===----------------------------------------------------------------------===//
// Global arrays: memrefs with random strides holding one tile per instance
//===----------------------------------------------------------------------===//

struct GlobalArray {
  std::string name;
  /// The tile each instance reads or writes.
  Shape tile;
  Shape shape, strides;
  /// Where instance 0's tile starts; instance k's starts k * tile[0] rows
  /// further.
  Shape base;
  /// The values (as floats) of every cell, stored as `elem` for the kernel.
  std::vector<float> data;
  std::string elem = "f32";

  /// Where element 0 sits in `data` (negative strides start it further in).
  int64_t offset = 0;

  /// `wildStrides` draws strides with gaps of 1 to 3 elements and some of
  /// them negative (the dim stored back to front).
  static GlobalArray make(std::mt19937_64 &rng, std::string name, Shape tile,
                          int64_t instances, std::string elem,
                          bool wildStrides = false) {
    GlobalArray g;
    g.name = std::move(name);
    g.elem = std::move(elem);
    g.tile = tile;
    unsigned rank = tile.size();
    for (unsigned d = 0; d < rank; ++d) {
      int64_t pad = std::uniform_int_distribution<int64_t>(0, 2)(rng);
      g.shape.push_back((d == 0 ? instances : 1) * tile[d] + pad);
      g.base.push_back(std::uniform_int_distribution<int64_t>(0, pad)(rng));
    }
    // Strides from a random order of the dims, sometimes with a gap.
    std::vector<unsigned> order(rank);
    for (unsigned d = 0; d < rank; ++d)
      order[d] = d;
    std::shuffle(order.begin(), order.end(), rng);
    g.strides.assign(rank, 1);
    int64_t next = 1;
    for (unsigned d : order) {
      g.strides[d] = next;
      int64_t gap = coin(rng, 20) ? 1 : 0;
      if (wildStrides && coin(rng, 30))
        gap = std::uniform_int_distribution<int64_t>(1, 3)(rng);
      next *= g.shape[d] + gap;
    }
    if (wildStrides)
      for (unsigned d = 0; d < rank; ++d)
        if (coin(rng, 35)) {
          g.offset += (g.shape[d] - 1) * g.strides[d];
          g.strides[d] = -g.strides[d];
        }
    g.data.assign(next, kUntouched);
    return g;
  }

  int64_t address(llvm::ArrayRef<int64_t> index) const {
    int64_t a = offset;
    for (size_t d = 0; d < index.size(); ++d)
      a += index[d] * strides[d];
    return a;
  }
  /// The address of element `x` of instance `k`'s tile.
  int64_t tileAddress(int64_t k, llvm::ArrayRef<int64_t> x) const {
    Shape index(x.begin(), x.end());
    for (size_t d = 0; d < index.size(); ++d)
      index[d] += base[d] + (d == 0 ? k * tile[0] : 0);
    return address(index);
  }
  std::string memrefType() const {
    return "memref<" + joined(shape, "x") + "x" + elem + ", strided<[" +
           joined(strides, ", ") + "]" +
           (offset ? ", offset: " + std::to_string(offset) : "") + ">>";
  }
  /// The layout of a `tile`-shaped view: the memref's strides.
  std::string viewLayout(llvm::ArrayRef<int64_t> t) const {
    return "S[(" + joined(t, ", ") + ") : (" +
           joined(llvm::ArrayRef<int64_t>(strides).take_front(t.size()), ", ") +
           ")]";
  }
};

//===----------------------------------------------------------------------===//
// Buffers and the kernel text
//===----------------------------------------------------------------------===//

struct Buf {
  std::string name;
  Shape shape;
  Layout layout;
  std::string space;
  std::string elem = "f32";

  std::string type() const {
    std::string dims = shape.empty() ? "" : joined(shape, "x") + "x";
    return "!axe.buffer<" + dims + elem + ", #axe.layout<" + layout.str() +
           ">, " + space + ">";
  }
};

/// The scope that owns a register buffer placing data on `axes`: the widest
/// scope among them.
Scope ownerOf(const std::set<std::string> &axes) {
  for (const char *a : {"tx", "warpid", "wgid"})
    if (axes.count(a))
      return Scope::CTA;
  for (const char *a : {"tid_in_wg", "wid_in_wg"})
    if (axes.count(a))
      return Scope::Warpgroup;
  if (axes.count("laneid"))
    return Scope::Warp;
  return Scope::Thread;
}

/// The kernel being written: constants go before the kernel (uniform
/// values), everything else inside it.
class KernelText {
public:
  explicit KernelText(const Launch &launch) : launch(launch) {}

  std::string index(int64_t v) {
    std::string name = "%c" + std::to_string(v);
    if (constants.insert(name).second)
      prologue << "    " << name << " = arith.constant " << v << " : index\n";
    return name;
  }
  std::string f32(float v) {
    std::string name = "%f" + std::to_string(nextId++);
    char text[32];
    snprintf(text, sizeof(text), "%e", double(v));
    prologue << "    " << name << " = arith.constant " << text << " : f32\n";
    return name;
  }
  /// A constant `v` of element type `elem`.
  std::string constant(float v, const std::string &elem) {
    if (elem == "f32")
      return f32(v);
    std::string name = "%f" + std::to_string(nextId++);
    char text[32];
    if (elem == "i1")
      snprintf(text, sizeof(text), "%d", int(int64_t(v) & 1));
    else if (isInteger(elem))
      snprintf(text, sizeof(text), "%lld", (long long)int64_t(v));
    else
      snprintf(text, sizeof(text), "%e", double(v));
    prologue << "    " << name << " = arith.constant " << text << " : " << elem
             << "\n";
    return name;
  }
  std::string fresh(const std::string &prefix) {
    return "%" + prefix + std::to_string(nextId++);
  }
  /// Appends a line of the kernel body at the current loop depth.
  void line(const std::string &text) {
    body << std::string(6 + 2 * depth, ' ') << text << "\n";
  }
  /// Opens `scf.for %iv = 0 to ub step step`; returns %iv.
  std::string beginFor(int64_t ub, int64_t step) {
    std::string iv = fresh("i");
    line("scf.for " + iv + " = " + index(0) + " to " + index(ub) + " step " +
         index(step) + " {");
    ++depth;
    return iv;
  }
  void endFor() { close(); }
  /// Opens a region: `text` ends with "{".
  void open(const std::string &text) {
    line(text);
    ++depth;
  }
  void close() {
    --depth;
    line("}");
  }

  /// %k: the number of the running instance in the grid (its tile).
  std::string instanceInGrid() { return "%k"; }
  /// %inst: the number of the running instance in its CTA.
  std::string instanceInCTA() { return "%inst"; }

  GlobalArray &global(std::mt19937_64 &rng, Shape tile,
                      std::string elem = "f32") {
    std::string name = "%G" + std::to_string(globals.size());
    globals.push_back(std::make_unique<GlobalArray>(
        GlobalArray::make(rng, name, std::move(tile), launch.total(),
                          std::move(elem), wildStrides)));
    return *globals.back();
  }

  /// A view of instance %k's tile of `g`, or of its rows [row, row +
  /// t[0]) when `row` (an index value) is given.
  Buf view(const GlobalArray &g, llvm::ArrayRef<int64_t> t,
           const std::string &row = "") {
    std::string r0 = fresh("row");
    line(r0 + " = arith.muli " + instanceInGrid() + ", " + index(g.tile[0]) +
         " : index");
    std::string r1 = fresh("row");
    line(r1 + " = arith.addi " + r0 + ", " + index(g.base[0]) + " : index");
    if (!row.empty()) {
      std::string r2 = fresh("row");
      line(r2 + " = arith.addi " + r1 + ", " + row + " : index");
      r1 = r2;
    }
    Buf b;
    b.name = fresh("g");
    b.shape.assign(t.begin(), t.end());
    b.layout = *parseLayout(g.viewLayout(t));
    b.space = "global";
    b.elem = g.elem;
    std::string offsets = r1;
    for (size_t d = 1; d < t.size(); ++d)
      offsets += ", " + std::to_string(g.base[d]);
    line(b.name + " = axe.view " + g.name + "[" + offsets +
         "] : " + g.memrefType() + " -> " + b.type());
    return b;
  }

  /// A fresh on-chip buffer of `shape` at a random placement that the
  /// operators' scope owns; `replicas` allows replicated layouts.
  Buf buffer(std::mt19937_64 &rng, Shape shape, bool replicas,
             const std::string &elem = "f32") {
    RandomLayoutOptions opts;
    opts.replicas = replicas;
    Buf b;
    b.shape = shape;
    b.name = fresh("b");
    b.elem = elem;
    bool shared = coin(rng, 45);
    if (!shared) {
      b.space = "reg";
      opts.swizzle = false;
      int64_t wgs = launch.threads / 128;
      switch (launch.scope) {
      case Scope::CTA: {
        // Registers of the whole CTA: some data on a CTA axis, from one of
        // the families of axes that number threads without aliasing.
        opts.threadAxes = true;
        int family =
            std::uniform_int_distribution<int>(0, wgs > 1 ? 3 : 1)(rng);
        if (family == 0) {
          opts.axes = {"laneid", "warpid"};
          opts.axisLimit = {{"laneid", 32}, {"warpid", launch.warps()}};
          opts.requireAxis = "warpid";
        } else if (family == 1) {
          opts.axes = {"tx"};
          opts.axisLimit = {{"tx", launch.threads}};
          opts.requireAxis = "tx";
        } else if (family == 2) {
          opts.axes = {"tid_in_wg", "wgid"};
          opts.axisLimit = {{"tid_in_wg", 128}, {"wgid", wgs}};
          opts.requireAxis = "wgid";
        } else {
          opts.axes = {"laneid", "wid_in_wg", "wgid"};
          opts.axisLimit = {{"laneid", 32}, {"wid_in_wg", 4}, {"wgid", wgs}};
          opts.requireAxis = "wgid";
        }
        break;
      }
      case Scope::Warpgroup:
        // One copy per warpgroup: data on tid_in_wg, or on lanes and
        // wid_in_wg.
        opts.threadAxes = true;
        if (coin(rng, 50)) {
          opts.axes = {"tid_in_wg"};
          opts.axisLimit = {{"tid_in_wg", 128}};
          opts.requireAxis = "tid_in_wg";
        } else {
          opts.axes = {"laneid", "wid_in_wg"};
          opts.axisLimit = {{"laneid", 32}, {"wid_in_wg", 4}};
          opts.requireAxis = "wid_in_wg";
        }
        break;
      case Scope::Warp:
        // One copy per warp: data on lanes.
        opts.threadAxes = true;
        opts.axes = {"laneid"};
        opts.axisLimit = {{"laneid", 32}};
        opts.requireAxis = "laneid";
        break;
      case Scope::Thread:
        break;
      }
      b.layout = randomLayout(rng, shape, opts);
      line(b.name + " = axe.alloc : " + b.type());
      return b;
    }
    b.space = "shared";
    if (launch.scope == Scope::CTA) {
      b.layout = randomLayout(rng, shape, opts);
      line(b.name + " = axe.alloc : " + b.type());
      return b;
    }
    // Shared memory belongs to the CTA: each instance takes its own slice
    // of a buffer that stacks one tile per instance along dim 0.
    int64_t n = launch.instances();
    Shape stackedShape{n};
    stackedShape.append(shape.begin(), shape.end());
    Buf all;
    all.name = fresh("all");
    all.shape = shape;
    all.shape[0] *= n;
    all.layout = randomLayout(rng, stackedShape, opts);
    all.space = "shared";
    all.elem = elem;
    line(all.name + " = axe.alloc : " + all.type());
    return instanceSlice(all, shape);
  }

  /// A fresh rank-0 buffer that the operators' scope owns: shared memory or
  /// registers at cta scope, registers elsewhere, sometimes replicated (over
  /// the scope's threads, or on m).
  Buf scalarBuffer(std::mt19937_64 &rng, const std::string &elem) {
    Buf b;
    b.name = fresh("b");
    b.elem = elem;
    b.space = "reg";
    std::string text = "S[1 : 1]";
    std::string n = coin(rng, 50) ? "2" : "3";
    switch (launch.scope) {
    case Scope::CTA:
      if (coin(rng, 50))
        b.space = "shared";
      else
        text += " + R[2 : 1@warpid]";
      break;
    case Scope::Warpgroup:
      text += " + R[" + n + " : 1@tid_in_wg]";
      break;
    case Scope::Warp:
      text += " + R[" + n + " : 1@laneid]";
      break;
    case Scope::Thread:
      if (coin(rng, 50))
        text += " + R[" + n + " : 1]";
      break;
    }
    Result<Layout> layout = parseLayout(text);
    EXPECT_TRUE(bool(layout)) << layout.message();
    if (layout)
      b.layout = *layout;
    line(b.name + " = axe.alloc : " + b.type());
    return b;
  }

  /// A rank-0 view of instance %k's element of `g`, a global of one element
  /// per instance: a memref.reinterpret_cast of it at that element.
  Buf scalarView(const GlobalArray &g) {
    std::string r0 = fresh("row");
    line(r0 + " = arith.addi " + instanceInGrid() + ", " + index(g.base[0]) +
         " : index");
    std::string r1 = fresh("row");
    line(r1 + " = arith.muli " + r0 + ", " + index(g.strides[0]) + " : index");
    std::string at = fresh("row");
    line(at + " = arith.addi " + r1 + ", " + index(g.offset) + " : index");
    std::string memref = "memref<" + g.elem + ", strided<[], offset: ?>>";
    std::string elt = fresh("elt");
    line(elt + " = memref.reinterpret_cast " + g.name + " to offset: [" + at +
         "], sizes: [], strides: [] : " + g.memrefType() + " to " + memref);
    Buf b;
    b.name = fresh("g");
    b.layout = *parseLayout("S[1 : 1]");
    b.space = "global";
    b.elem = g.elem;
    line(b.name + " = axe.view " + elt + "[] : " + memref + " -> " + b.type());
    return b;
  }

  /// The running instance's tile of `all`, a stack of one `shape` tile per
  /// instance along dim 0.
  Buf instanceSlice(const Buf &all, llvm::ArrayRef<int64_t> shape) {
    Buf b;
    b.name = fresh("b");
    b.shape.assign(shape.begin(), shape.end());
    b.space = all.space;
    b.elem = all.elem;
    std::string start = fresh("start");
    line(start + " = arith.muli " + instanceInCTA() + ", " + index(shape[0]) +
         " : index");
    SmallVector<SliceStart> starts(shape.size(), SliceStart::constant(0));
    starts[0] = SliceStart::aligned(shape[0]);
    Result<TileLayout> tile =
        axe::slice(all.layout.tile(), all.shape, starts, shape);
    EXPECT_TRUE(bool(tile)) << tile.message();
    b.layout = all.layout.isSwizzled() ? Layout(*all.layout.swizzle(), *tile)
                                       : Layout(*tile);
    std::string rest;
    for (size_t d = 1; d < shape.size(); ++d)
      rest += ", 0";
    line(b.name + " = axe.slice " + all.name + "[" + start + rest +
         "] : " + all.type() + " -> " + b.type());
    return b;
  }

  /// The layout of a region of `src` by the slice algebra, if there is one
  /// and the region still belongs to the operators' scope: a region of a
  /// CTA's registers that lies in one warp is that warp's alone (the
  /// dialect's ownership rule), so the CTA cannot run operators on it. A
  /// run-time start that moves along a thread axis keeps the region with the
  /// scope that axis spans, though the slice's layout leaves the axis out
  /// (a row of a warp's tile at a loop-variable row on laneid is the warp's).
  std::optional<Layout> sliceLayout(const Buf &src,
                                    llvm::ArrayRef<SliceStart> known,
                                    llvm::ArrayRef<int64_t> lengths) const {
    Result<TileLayout> tile =
        axe::slice(src.layout.tile(), src.shape, known, lengths);
    if (!tile)
      return std::nullopt;
    if (src.space == "reg") {
      std::set<std::string> axes;
      for (llvm::ArrayRef<Iter> iters : {tile->shard(), tile->replica()})
        for (const Iter &it : iters)
          if (it.extent > 1 && it.stride != 0)
            axes.insert(it.axis);
      for (const auto &[axis, v] : tile->offset().entries())
        if (v != 0)
          axes.insert(axis);
      Result<SmallVector<std::string, 4>> moved =
          axe::sliceStartAxes(src.layout.tile(), src.shape, known, lengths);
      EXPECT_TRUE(bool(moved)) << moved.message();
      if (moved)
        axes.insert(moved->begin(), moved->end());
      if (ownerOf(axes) != launch.scope)
        return std::nullopt;
    }
    return src.layout.isSwizzled() ? Layout(*src.layout.swizzle(), *tile)
                                   : Layout(*tile);
  }

  /// A slice of `src` at starts (an index value or "0" per dim); sliceLayout
  /// must have found its layout.
  Buf slice(const Buf &src, llvm::ArrayRef<std::string> starts,
            llvm::ArrayRef<SliceStart> known, llvm::ArrayRef<int64_t> lengths) {
    std::optional<Layout> layout = sliceLayout(src, known, lengths);
    EXPECT_TRUE(layout.has_value()) << "no slice of " << src.layout.str();
    Buf b;
    b.name = fresh("s");
    b.shape.assign(lengths.begin(), lengths.end());
    if (layout)
      b.layout = *layout;
    b.space = src.space;
    b.elem = src.elem;
    std::string list;
    for (size_t d = 0; d < starts.size(); ++d)
      list += (d ? ", " : "") + starts[d];
    line(b.name + " = axe.slice " + src.name + "[" + list +
         "] : " + src.type() + " -> " + b.type());
    return b;
  }

  /// The whole of `b` read through equivalent layouts, one per replica
  /// but the first, whose replica 0 (the placement a copy reads) is that
  /// replica: a replica iter (e, s) at digit d becomes the overlapping
  /// iters (e - d, s) and (d + 1, -s) with d * s added to the offset, the
  /// same set of placements. Reading them back checks every replica.
  std::vector<Buf> replicaViews(const Buf &b) {
    const TileLayout &t = b.layout.tile();
    std::vector<Buf> views;
    for (int64_t r = 1; r < t.replicaCount(); ++r) {
      IterList replica;
      Coord offset = t.offset();
      int64_t rest = r;
      for (const Iter &it : t.replica()) {
        int64_t d = rest % it.extent;
        rest /= it.extent;
        if (it.extent - d > 1)
          replica.push_back({it.extent - d, it.stride, it.axis});
        if (d > 0) {
          replica.push_back({d + 1, -it.stride, it.axis});
          offset.add(it.axis, d * it.stride);
        }
      }
      Result<TileLayout> moved = TileLayout::create(
          IterList(t.shard().begin(), t.shard().end()), replica, offset);
      EXPECT_TRUE(bool(moved)) << moved.message();
      if (!moved)
        continue;
      Buf m;
      m.name = fresh("replica");
      m.shape = b.shape;
      m.layout = b.layout.isSwizzled() ? Layout(*b.layout.swizzle(), *moved)
                                       : Layout(*moved);
      m.space = b.space;
      m.elem = b.elem;
      std::string zeros;
      for (size_t d = 0; d < b.shape.size(); ++d)
        zeros += d ? ", 0" : "0";
      line(m.name + " = axe.slice " + b.name + "[" + zeros + "] : " + b.type() +
           " -> " + m.type());
      views.push_back(m);
    }
    return views;
  }

  void copy(const Buf &src, const Buf &dst, bool scalar = false) {
    line("axe.copy " + src.name + " to " + dst.name + " at " +
         launch.scopeName() +
         (scalar ? " {schedule = \"cpu.copy.scalar\"}" : "") + " : " +
         src.type() + " to " + dst.type());
  }

  /// The whole module.
  std::string module() const {
    std::ostringstream os;
    os << "module attributes {axe.target = #axe.target<\"cpu\">} {\n";
    os << "  func.func @kernel(";
    for (size_t i = 0; i < globals.size(); ++i)
      os << (i ? ", " : "") << globals[i]->name << ": "
         << globals[i]->memrefType();
    os << ") attributes {llvm.emit_c_interface} {\n";
    os << prologue.str();
    os << "    axe.kernel grid [" << launch.grid << "] threads "
       << launch.threads << " {\n";
    os << "      %bx = axe.axis_id bx\n";
    switch (launch.specialized ? Scope::Thread : launch.scope) {
    case Scope::Thread:
      if (launch.specialized)
        break;
      [[fallthrough]];
    case Scope::Warp:
    case Scope::Warpgroup:
      os << "      %inst = axe.axis_id "
         << (launch.scope == Scope::Warp        ? "warpid"
             : launch.scope == Scope::Warpgroup ? "wgid"
                                                : "tx")
         << "\n"
         << "      %n = arith.constant " << launch.instances() << " : index\n"
         << "      %first = arith.muli %bx, %n : index\n"
         << "      %k = arith.addi %first, %inst : index\n";
      break;
    case Scope::CTA:
      os << "      %inst = arith.constant 0 : index\n"
         << "      %k = arith.addi %bx, %inst : index\n";
      break;
    }
    os << body.str();
    os << "    }\n    return\n  }\n}\n";
    return os.str();
  }

  Launch launch;
  std::vector<std::unique_ptr<GlobalArray>> globals;
  /// Globals made from now on get GlobalArray::make's wild strides.
  bool wildStrides = false;

private:
  std::ostringstream prologue, body;
  std::set<std::string> constants;
  int nextId = 0;
  int depth = 0;
};

//===----------------------------------------------------------------------===//
// Running a kernel
//===----------------------------------------------------------------------===//

/// Parses, runs axe-to-cpu, JIT-compiles and calls `kernel` on the globals.
::testing::AssertionResult runKernel(KernelText &k) {
  std::string text = k.module();
  if (getenv("AXE_TEST_DUMP"))
    llvm::errs() << text;
  DialectRegistry registry;
  registerAllAxeDialects(registry);
  registerCPUCodegenDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d << "\n";
    for (const Diagnostic &note : d.getNotes())
      os << "  note: " << note << "\n";
    return success();
  });
  auto fail = [&](const char *what) {
    return ::testing::AssertionFailure() << what << ":\n"
                                         << diagnostics << "\n-- kernel --\n"
                                         << text;
  };
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module)
    return fail("the generated kernel does not parse or verify");
  PassManager pm(&ctx);
  buildAxeToCPUPipeline(pm);
  if (failed(pm.run(*module)))
    return fail("axe-to-cpu failed");
  std::string error;
  auto engine = lowerAndJIT(*module, error, /*alreadyLowered=*/true);
  if (!engine)
    return fail(error.c_str());
  // Each global stored as its element type, and one ranked memref
  // descriptor per global: {allocated, aligned, offset, sizes...,
  // strides...}.
  std::vector<std::vector<uint8_t>> raw;
  for (auto &g : k.globals) {
    int64_t bytes = elementBytes(g->elem);
    raw.emplace_back(g->data.size() * bytes);
    for (size_t i = 0; i < g->data.size(); ++i)
      encode(g->elem, g->data[i], raw.back().data() + i * bytes);
  }
  std::vector<std::vector<int64_t>> descs;
  for (size_t i = 0; i < k.globals.size(); ++i) {
    auto &g = k.globals[i];
    std::vector<int64_t> d;
    d.push_back(reinterpret_cast<int64_t>(raw[i].data()));
    d.push_back(reinterpret_cast<int64_t>(raw[i].data()));
    d.push_back(g->offset);
    d.insert(d.end(), g->shape.begin(), g->shape.end());
    d.insert(d.end(), g->strides.begin(), g->strides.end());
    descs.push_back(std::move(d));
  }
  std::vector<void *> descPtrs;
  for (auto &d : descs)
    descPtrs.push_back(d.data());
  SmallVector<void *> args;
  for (void *&p : descPtrs)
    args.push_back(&p);
  if (llvm::Error e = engine->invokePacked("_mlir_ciface_kernel", args))
    return ::testing::AssertionFailure() << llvm::toString(std::move(e));
  for (size_t i = 0; i < k.globals.size(); ++i) {
    auto &g = k.globals[i];
    int64_t bytes = elementBytes(g->elem);
    for (size_t j = 0; j < g->data.size(); ++j)
      g->data[j] = decode(g->elem, raw[i].data() + j * bytes);
  }
  return ::testing::AssertionSuccess();
}

/// Compares every cell of `g` with `want` rounded to g's element type;
/// describes the first mismatches.
::testing::AssertionResult matches(const GlobalArray &g,
                                   const std::vector<float> &want,
                                   float tolerance = 0) {
  int64_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < want.size(); ++i) {
    float got = g.data[i];
    float w = roundTrip(g.elem, want[i]);
    bool ok = got == w || std::fabs(got - w) <= tolerance * std::fabs(w);
    if (ok)
      continue;
    if (bad < 5)
      first << " [" << i << "] got " << got << " want " << w << ";";
    ++bad;
  }
  if (bad == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << g.name << ": " << bad << " of " << want.size()
         << " cells differ:" << first.str();
}

/// Visits every index of `shape` (row-major).
void forEachIndex(llvm::ArrayRef<int64_t> shape,
                  const std::function<void(llvm::ArrayRef<int64_t>)> &fn) {
  int64_t n = product(shape);
  for (int64_t f = 0; f < n; ++f)
    fn(unflattenIndex(f, shape));
}

/// Fills instance k's tile of `g` with value(k, x).
void fillTiles(
    GlobalArray &g, int64_t total,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value) {
  for (int64_t k = 0; k < total; ++k)
    forEachIndex(g.tile, [&](llvm::ArrayRef<int64_t> x) {
      g.data[g.tileAddress(k, x)] = value(k, x);
    });
}

/// Writes `dst` to a fresh global output, and each replica but the first
/// (read through replicaViews) to one more; returns the outputs, replica 0
/// first.
std::vector<GlobalArray *> storeResult(std::mt19937_64 &rng, KernelText &k,
                                       const Buf &dst, bool blockwise) {
  if (dst.shape.empty()) {
    // A scalar: one element per instance of a rank-1 global.
    std::vector<GlobalArray *> outs;
    std::vector<Buf> views{dst};
    for (const Buf &r : k.replicaViews(dst))
      views.push_back(r);
    for (const Buf &v : views) {
      GlobalArray &g = k.global(rng, {1}, dst.elem);
      k.copy(v, k.scalarView(g), coin(rng, 25));
      outs.push_back(&g);
    }
    return outs;
  }
  GlobalArray &out = k.global(rng, dst.shape, dst.elem);
  bool done = false;
  if (blockwise && dst.shape[0] > 1) {
    // Rows [i, i + b) at a time: slices at a run-time start in a loop.
    SmallVector<int64_t> blocks;
    for (int64_t b = 1; b < dst.shape[0]; ++b)
      if (dst.shape[0] % b == 0)
        blocks.push_back(b);
    int64_t b = pick(rng, blocks);
    Shape part = dst.shape;
    part[0] = b;
    SmallVector<SliceStart> known(dst.shape.size(), SliceStart::constant(0));
    known[0] = SliceStart::aligned(b);
    if (k.sliceLayout(dst, known, part)) {
      std::string i = k.beginFor(dst.shape[0], b);
      SmallVector<std::string> starts(dst.shape.size(), "0");
      starts[0] = i;
      Buf s = k.slice(dst, starts, known, part);
      Buf g = k.view(out, part, i);
      k.copy(s, g, coin(rng, 25));
      k.endFor();
      done = true;
    }
  }
  if (!done)
    k.copy(dst, k.view(out, dst.shape), coin(rng, 25));
  std::vector<GlobalArray *> outs{&out};
  for (const Buf &r : k.replicaViews(dst)) {
    GlobalArray &g = k.global(rng, dst.shape, dst.elem);
    k.copy(r, k.view(g, dst.shape), coin(rng, 25));
    outs.push_back(&g);
  }
  return outs;
}

/// The expected contents of output `g`: value(k, x) in every tile, the
/// rest untouched.
std::vector<float> expectTiles(
    const GlobalArray &g, int64_t total,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value) {
  std::vector<float> want(g.data.size(), kUntouched);
  for (int64_t k = 0; k < total; ++k)
    forEachIndex(g.tile, [&](llvm::ArrayRef<int64_t> x) {
      want[g.tileAddress(k, x)] = value(k, x);
    });
  return want;
}

/// Runs the kernel and checks every output of storeResult (every replica).
void checkOutputs(
    KernelText &k, const std::vector<GlobalArray *> &outs,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value,
    float tolerance = 0) {
  ASSERT_TRUE(runKernel(k));
  int64_t total = k.launch.total();
  for (size_t r = 0; r < outs.size(); ++r)
    EXPECT_TRUE(
        matches(*outs[r], expectTiles(*outs[r], total, value), tolerance))
        << "(replica " << r << " of " << outs.size() << ")\n"
        << k.module();
}

/// Tiles at thread scope stay small: every thread holds its own.
int64_t maxElements(const Launch &l) {
  return l.scope == Scope::Thread ? 128 : 512;
}

//===----------------------------------------------------------------------===//
// The kernels
//===----------------------------------------------------------------------===//

class RandomDispatch : public ::testing::TestWithParam<int> {};

/// Values of element type `elem` that differ between neighbours and
/// instances, exact in the type (as floats on the C++ side).
float distinctValue(const std::string &elem, int64_t inst,
                    llvm::ArrayRef<int64_t> x) {
  int64_t f = 0;
  for (int64_t v : x)
    f = f * 37 + v;
  if (elem == "i1")
    return float((f + inst) % 3 == 0);
  if (elem == "i8")
    return float((f + 7 * inst) % 251 - 125);
  if (elem == "i16")
    return float((3 * f + 17 * inst) % 60001 - 30000);
  if (elem == "f16" || elem == "bf16")
    return float((f + 13 * inst) % 201 - 100);
  if (elem == "i32" || elem == "i64")
    return float(inst * 65536 + f % 65536 - 1000);
  return float(inst * 4096 + f + 1);
}

/// global -> buffer -> (replicated) buffer -> global, copied whole or by
/// row blocks at run-time starts, of elements of type `elem`; with
/// `wildStrides`, the globals have gaps and negative strides.
void copyCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
              const std::string &elem = "f32", bool wildStrides = false) {
  KernelText k(launch);
  k.wildStrides = wildStrides;
  Shape shape = smallShape(rng, rank, maxElements(launch));
  GlobalArray &in = k.global(rng, shape, elem);
  auto value = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return distinctValue(elem, inst, x);
  };
  fillTiles(in, launch.total(), value);
  Buf g = k.view(in, shape);
  Buf a = k.buffer(rng, shape, /*replicas=*/false, elem);
  k.copy(g, a, coin(rng, 25));
  Buf b = k.buffer(rng, shape, /*replicas=*/true, elem);
  k.copy(a, b, coin(rng, 25));
  auto outs = storeResult(rng, k, b, coin(rng, 50));
  checkOutputs(k, outs, value);
}

TEST_P(RandomDispatch, Copy) {
  int seed = GetParam();
  std::mt19937_64 rng(10000 + seed);
  Launch launch = randomLaunch(rng, seed);
  copyCase(rng, launch, 1 + seed % 3);
}

/// C (+)= A x B (MxN, K deep) over k blocks sliced at run-time starts, any
/// transposes; A and B of element type `abElem` (f32, f16, bf16), C of
/// `cElem`; `forceNaive` forces the cpu.gemm.naive schedule, which converts
/// A and B to C's type.
void gemmCase(std::mt19937_64 &rng, const Launch &launch, int64_t M, int64_t N,
              int64_t K, const std::string &abElem = "f32",
              const std::string &cElem = "f32", bool forceNaive = false) {
  KernelText k(launch);
  bool ta = coin(rng, 50), tb = coin(rng, 50), accumulate = coin(rng, 50);
  Shape aShape = ta ? Shape{K, M} : Shape{M, K};
  Shape bShape = tb ? Shape{N, K} : Shape{K, N};
  GlobalArray &ga = k.global(rng, aShape, abElem);
  GlobalArray &gb = k.global(rng, bShape, abElem);
  GlobalArray &gc = k.global(rng, {M, N}, cElem);
  int64_t total = launch.total();
  auto aVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] * 3 + x[1] * 5 + inst) % 7) - 3;
  };
  auto bVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] * 2 + x[1] * 7 + 2 * inst) % 5) - 2;
  };
  auto cVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return float((x[0] + x[1] + inst) % 3);
  };
  fillTiles(ga, total, aVal);
  fillTiles(gb, total, bVal);
  fillTiles(gc, total, cVal);
  Buf a = k.buffer(rng, aShape, false, abElem);
  k.copy(k.view(ga, aShape), a);
  Buf b = k.buffer(rng, bShape, false, abElem);
  k.copy(k.view(gb, bShape), b);
  Buf c = k.buffer(rng, {M, N}, true, cElem);
  if (accumulate)
    k.copy(k.view(gc, {M, N}), c);
  else
    k.line("axe.fill " + c.name + ", " + k.constant(0, cElem) + " at " +
           launch.scopeName() + " : " + c.type());
  // The k loop: the largest proper block for which both slices exist.
  int64_t kb = K;
  for (int64_t cand = K / 2; cand >= 1; --cand) {
    if (K % cand != 0 || !coin(rng, 70))
      continue;
    Shape as = ta ? Shape{cand, M} : Shape{M, cand};
    Shape bs = tb ? Shape{N, cand} : Shape{cand, N};
    auto known = [&](bool kFirst) {
      SmallVector<SliceStart> s(2, SliceStart::constant(0));
      s[kFirst ? 0 : 1] = SliceStart::aligned(cand);
      return s;
    };
    if (k.sliceLayout(a, known(ta), as) && k.sliceLayout(b, known(!tb), bs)) {
      kb = cand;
      break;
    }
  }
  std::string attrs;
  SmallVector<std::string> parts;
  if (ta || tb || coin(rng, 25)) {
    if (ta)
      parts.push_back("transpose_a");
    if (tb)
      parts.push_back("transpose_b");
    if (coin(rng, 25) && !forceNaive)
      parts.push_back("schedule = \"cpu.gemm.naive\"");
  }
  if (forceNaive)
    parts.push_back("schedule = \"cpu.gemm.naive\"");
  for (size_t i = 0; i < parts.size(); ++i)
    attrs += (i ? ", " : "") + parts[i];
  if (!attrs.empty())
    attrs = " {" + attrs + "}";
  auto gemm = [&](const Buf &x, const Buf &y) {
    k.line("axe.gemm " + x.name + ", " + y.name + " into " + c.name + " at " +
           launch.scopeName() + attrs + " : " + x.type() + ", " + y.type() +
           " into " + c.type());
  };
  if (kb == K) {
    gemm(a, b);
  } else {
    std::string i = k.beginFor(K, kb);
    auto sliceOf = [&](const Buf &src, bool kFirst, int64_t other) {
      SmallVector<std::string> starts{"0", "0"};
      SmallVector<SliceStart> known(2, SliceStart::constant(0));
      starts[kFirst ? 0 : 1] = i;
      known[kFirst ? 0 : 1] = SliceStart::aligned(kb);
      Shape len = kFirst ? Shape{kb, other} : Shape{other, kb};
      return k.slice(src, starts, known, len);
    };
    gemm(sliceOf(a, ta, M), sliceOf(b, !tb, N));
    k.endFor();
  }
  auto outs = storeResult(rng, k, c, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    float s = accumulate ? cVal(inst, x) : 0.f;
    for (int64_t kk = 0; kk < K; ++kk) {
      float av = ta ? aVal(inst, {kk, x[0]}) : aVal(inst, {x[0], kk});
      float bv = tb ? bVal(inst, {x[1], kk}) : bVal(inst, {kk, x[1]});
      s += av * bv;
    }
    return s;
  });
}

// C (+)= A x B on small tiles, f32.
TEST_P(RandomDispatch, Gemm) {
  int seed = GetParam();
  std::mt19937_64 rng(20000 + seed);
  Launch launch = randomLaunch(rng, seed);
  int64_t limit = launch.scope == Scope::Thread ? 8 : 16;
  auto size = [&] { return pickAtMost(rng, {2, 3, 4, 6, 8, 12, 16}, limit); };
  int64_t M = size(), N = size(), K = size();
  gemmCase(rng, launch, M, N, K);
}

/// sum / max / min / prod over random dims, kept or dropped, optionally
/// accumulating into a filled destination; elements of type `elem` (f32,
/// f64, i32 or i64). `widerInputs` adds rank-0 targets (every dim reduced
/// and dropped) and globals with wild strides.
void reduceCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
                const std::string &elem = "f32", bool widerInputs = false) {
  KernelText k(launch);
  k.wildStrides = widerInputs;
  bool isInt = isInteger(elem);
  Shape shape = smallShape(rng, rank, maxElements(launch));
  SmallVector<int64_t> dims;
  for (unsigned d = 0; d < rank; ++d)
    if (coin(rng, 50))
      dims.push_back(d);
  if (dims.empty())
    dims.push_back(rank - 1);
  bool keep = coin(rng, 50) || (dims.size() == rank && !widerInputs);
  if (widerInputs && coin(rng, 50)) {
    // Every dim reduced and dropped: a rank-0 target.
    dims.clear();
    for (unsigned d = 0; d < rank; ++d)
      dims.push_back(d);
    keep = false;
  }
  Shape dstShape;
  for (unsigned d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, int64_t(d));
    if (!reduced || keep)
      dstShape.push_back(reduced ? 1 : shape[d]);
  }
  static const char *kinds[] = {"sum", "max", "min", "prod"};
  int kind = std::uniform_int_distribution<int>(0, 3)(rng);
  bool accumulate = coin(rng, 40);
  GlobalArray &gx = k.global(rng, shape, elem);
  auto xVal = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = inst * 11;
    for (int64_t v : x)
      f = f * 7 + v;
    if (kind == 3 && isInt) // Products of +-1 and a few 2s fit in i32.
      return f % 29 == 0 ? 2.f : f % 3 ? 1.f : -1.f;
    if (kind == 3) // Products of +-1 and a few 2s and halves stay exact.
      return f % 13 == 0 ? 2.f : f % 11 == 0 ? 0.5f : f % 3 ? 1.f : -1.f;
    return float(f % 9) - 4;
  };
  fillTiles(gx, launch.total(), xVal);
  Buf x = k.buffer(rng, shape, false, elem);
  k.copy(k.view(gx, shape), x);
  Buf d = dstShape.empty() ? k.scalarBuffer(rng, elem)
                           : k.buffer(rng, dstShape, true, elem);
  float init = kind == 3 ? 2.f : isInt ? 3.f : 1.5f;
  if (accumulate)
    k.line("axe.fill " + d.name + ", " + k.constant(init, elem) + " at " +
           launch.scopeName() + " : " + d.type());
  std::string dimList;
  for (size_t i = 0; i < dims.size(); ++i)
    dimList += (i ? ", " : "") + std::to_string(dims[i]);
  SmallVector<std::string> attrs;
  if (accumulate)
    attrs.push_back("accumulate");
  if (coin(rng, 25))
    attrs.push_back("schedule = \"cpu.reduce.scalar\"");
  std::string attrDict;
  for (size_t i = 0; i < attrs.size(); ++i)
    attrDict += (i ? ", " : " {") + attrs[i];
  if (!attrDict.empty())
    attrDict += "}";
  k.line("axe.reduce " + std::string(kinds[kind]) + " " + x.name + " into " +
         d.name + " dims [" + dimList + "] at " + launch.scopeName() +
         attrDict + " : " + x.type() + " into " + d.type());
  auto outs = storeResult(rng, k, d, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> y) {
    // Every source element whose kept coordinates are y.
    float acc = 0;
    bool first = true;
    forEachIndex(shape, [&](llvm::ArrayRef<int64_t> xi) {
      unsigned j = 0;
      for (unsigned dd = 0; dd < rank; ++dd) {
        bool reduced = llvm::is_contained(dims, int64_t(dd));
        if (reduced && !keep)
          continue;
        if (!reduced && xi[dd] != y[j])
          return;
        ++j;
      }
      float v = xVal(inst, xi);
      if (first)
        acc = v;
      else if (kind == 0)
        acc += v;
      else if (kind == 1)
        acc = std::max(acc, v);
      else if (kind == 2)
        acc = std::min(acc, v);
      else
        acc *= v;
      first = false;
    });
    if (!accumulate)
      return acc;
    switch (kind) {
    case 0:
      return init + acc;
    case 1:
      return std::max(init, acc);
    case 2:
      return std::min(init, acc);
    default:
      return init * acc;
    }
  });
}

TEST_P(RandomDispatch, Reduce) {
  int seed = GetParam();
  std::mt19937_64 rng(30000 + seed);
  Launch launch = randomLaunch(rng, seed);
  reduceCase(rng, launch, 1 + seed % 3);
}

/// A fill of the whole (replicated) buffer, then fills of row blocks at
/// run-time starts with a value computed from the loop variable, of
/// elements of type `elem`; with `wildStrides`, the global has gaps and
/// negative strides.
void fillCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
              const std::string &elem = "f32", bool wildStrides = false) {
  KernelText k(launch);
  k.wildStrides = wildStrides;
  Shape shape = smallShape(rng, rank, maxElements(launch));
  Buf b = k.buffer(rng, shape, true, elem);
  k.line("axe.fill " + b.name + ", " + k.constant(7, elem) + " at " +
         launch.scopeName() + " : " + b.type());
  // Rows [i, i + blk) get the value i + 1 for i < cut; the rest stay 7.
  int64_t blk = 0, cut = 0;
  SmallVector<int64_t> blocks;
  for (int64_t c = 1; c < shape[0]; ++c)
    if (shape[0] % c == 0)
      blocks.push_back(c);
  if (!blocks.empty()) {
    int64_t c = pick(rng, blocks);
    Shape part = shape;
    part[0] = c;
    SmallVector<SliceStart> known(shape.size(), SliceStart::constant(0));
    known[0] = SliceStart::aligned(c);
    if (k.sliceLayout(b, known, part)) {
      blk = c;
      cut = shape[0] - c;
      std::string i = k.beginFor(cut, blk);
      SmallVector<std::string> starts(shape.size(), "0");
      starts[0] = i;
      Buf s = k.slice(b, starts, known, part);
      std::string v = k.fresh("v");
      if (isInteger(elem)) {
        // i + 1, wrapping in the element type as the reference does.
        std::string iv = k.fresh("v");
        k.line(iv + " = arith.index_cast " + i + " : index to " + elem);
        k.line(v + " = arith.addi " + iv + ", " + k.constant(1, elem) + " : " +
               elem);
      } else {
        // i + 1 in f32 (exact), then rounded once to the element type.
        std::string iv = k.fresh("v");
        k.line(iv + " = arith.index_cast " + i + " : index to i32");
        std::string fv = k.fresh("v");
        k.line(fv + " = arith.sitofp " + iv + " : i32 to f32");
        std::string one = k.f32(1);
        std::string sum = elem == "f32" ? v : k.fresh("v");
        k.line(sum + " = arith.addf " + fv + ", " + one + " : f32");
        if (elem != "f32")
          k.line(v + " = arith." + (elem == "f64" ? "extf " : "truncf ") + sum +
                 " : f32 to " + elem);
      }
      k.line("axe.fill " + s.name + ", " + v + " at " + launch.scopeName() +
             " : " + s.type());
      k.endFor();
    }
  }
  auto outs = storeResult(rng, k, b, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t, llvm::ArrayRef<int64_t> x) {
    if (blk && x[0] < cut)
      return float(x[0] / blk * blk + 1);
    return 7.f;
  });
}

TEST_P(RandomDispatch, Fill) {
  int seed = GetParam();
  std::mt19937_64 rng(40000 + seed);
  Launch launch = randomLaunch(rng, seed);
  fillCase(rng, launch, 1 + seed % 3);
}

// z = x * (k + 1) + y with y broadcast along its dims of extent 1; the
// scale is computed from the instance number outside the operator and
// captured by its body.
TEST_P(RandomDispatch, Elementwise) {
  int seed = GetParam();
  std::mt19937_64 rng(50000 + seed);
  Launch launch = randomLaunch(rng, seed);
  KernelText k(launch);
  Shape shape = smallShape(rng, 1 + seed % 3, maxElements(launch));
  Shape yShape = shape;
  for (int64_t &e : yShape)
    if (coin(rng, 35))
      e = 1;
  GlobalArray &gx = k.global(rng, shape);
  GlobalArray &gy = k.global(rng, yShape);
  auto xVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = inst;
    for (int64_t v : x)
      f = f * 5 + v;
    return float(f % 17) - 8;
  };
  auto yVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = 2 * inst;
    for (int64_t v : x)
      f = f * 3 + v;
    return float(f % 7) * 0.5f;
  };
  fillTiles(gx, launch.total(), xVal);
  fillTiles(gy, launch.total(), yVal);
  Buf x = k.buffer(rng, shape, false);
  k.copy(k.view(gx, shape), x);
  Buf y = k.buffer(rng, yShape, false);
  k.copy(k.view(gy, yShape), y);
  Buf z = k.buffer(rng, shape, true);
  k.line("%ki = arith.index_cast %k : index to i32");
  k.line("%kf = arith.sitofp %ki : i32 to f32");
  k.line("%scale = arith.addf %kf, " + k.f32(1) + " : f32");
  k.line("axe.elementwise ins(" + x.name + ", " + y.name + " : " + x.type() +
         ", " + y.type() + ") outs(" + z.name + " : " + z.type() + ") at " +
         launch.scopeName() + " {");
  k.line("^bb0(%xe: f32, %ye: f32):");
  k.line("  %t = arith.mulf %xe, %scale : f32");
  k.line("  %u = arith.addf %t, %ye : f32");
  k.line("  axe.yield %u : f32");
  k.line("}");
  auto outs = storeResult(rng, k, z, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> i) {
    Shape yi(i.begin(), i.end());
    for (size_t d = 0; d < yi.size(); ++d)
      if (yShape[d] == 1)
        yi[d] = 0;
    return xVal(inst, i) * float(inst + 1) + yVal(inst, yi);
  });
}

// Warp specialization: producer warps stage their tiles into their slices
// of a shared buffer; after a CTA barrier the consumer warps copy theirs
// into a buffer allocated inside their partition (per-warp registers or a
// slice of shared memory) and store it, whole or by row blocks.
TEST_P(RandomDispatch, WarpSpecialized) {
  int seed = GetParam();
  std::mt19937_64 rng(60000 + seed);
  Launch launch;
  launch.scope = Scope::Warp;
  launch.specialized = true;
  launch.grid = coin(rng, 50) ? 2 : 1;
  launch.threads = coin(rng, 50) ? 128 : 256;
  int64_t half = launch.warps() / 2;
  KernelText k(launch);
  Shape shape = smallShape(rng, 1 + seed % 3, 512);
  GlobalArray &in = k.global(rng, shape);
  auto value = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = 0;
    for (int64_t v : x)
      f = f * 41 + v;
    return float(inst * 8192 + f + 1);
  };
  fillTiles(in, launch.total(), value);
  Shape stackedShape{half};
  stackedShape.append(shape.begin(), shape.end());
  Buf all;
  all.name = k.fresh("all");
  all.shape = shape;
  all.shape[0] *= half;
  all.layout = randomLayout(rng, stackedShape, RandomLayoutOptions());
  all.space = "shared";
  k.line(all.name + " = axe.alloc : " + all.type());
  std::string cHalf = k.index(half);
  auto defineInstance = [&](const std::string &inst) {
    k.line("%first = arith.muli %bx, " + cHalf + " : index");
    k.line("%k = arith.addi %first, " + inst + " : index");
  };
  k.open("axe.warp_specialize {");
  k.open("axe.partition warps [0, " + std::to_string(half) + ") {");
  k.line("%inst = axe.axis_id warpid");
  defineInstance("%inst");
  Buf mine = k.instanceSlice(all, shape);
  k.copy(k.view(in, shape), mine, coin(rng, 25));
  k.line("axe.barrier at cta");
  k.close();
  k.open("axe.partition warps [" + std::to_string(half) + ", " +
         std::to_string(launch.warps()) + ") {");
  k.line("axe.barrier at cta");
  k.line("%w = axe.axis_id warpid");
  k.line("%inst = arith.subi %w, " + cHalf + " : index");
  defineInstance("%inst");
  Buf theirs = k.instanceSlice(all, shape);
  Buf r = k.buffer(rng, shape, /*replicas=*/true);
  k.copy(theirs, r, coin(rng, 25));
  auto outs = storeResult(rng, k, r, coin(rng, 50));
  k.close();
  k.close();
  checkOutputs(k, outs, value);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatch, ::testing::Range(1, 51));

//===----------------------------------------------------------------------===//
// Element types other than f32
//===----------------------------------------------------------------------===//

class RandomDispatchTypes : public ::testing::TestWithParam<int> {};

const char *const kNarrowFloats[] = {"f16", "bf16"};

// Copies of f16, bf16 and i32 (seed % 3) at every scope (seed % 4).
TEST_P(RandomDispatchTypes, Copy) {
  int seed = GetParam();
  std::mt19937_64 rng(110000 + seed);
  Launch launch = randomLaunch(rng, seed);
  static const char *elems[] = {"f16", "bf16", "i32"};
  copyCase(rng, launch, 1 + seed % 3, elems[seed % 3]);
}

// f16 or bf16 A and B into an f32 C: products of small integers are exact.
TEST_P(RandomDispatchTypes, Gemm) {
  int seed = GetParam();
  std::mt19937_64 rng(120000 + seed);
  Launch launch = randomLaunch(rng, seed);
  int64_t limit = launch.scope == Scope::Thread ? 8 : 32;
  auto size = [&] { return pickAtMost(rng, {2, 4, 6, 8, 12, 16, 32}, limit); };
  int64_t M = size(), N = size(), K = size();
  gemmCase(rng, launch, M, N, K, kNarrowFloats[seed % 2]);
}

// i32 sum / max / min / prod.
TEST_P(RandomDispatchTypes, Reduce) {
  int seed = GetParam();
  std::mt19937_64 rng(130000 + seed);
  Launch launch = randomLaunch(rng, seed);
  reduceCase(rng, launch, 1 + seed % 3, "i32");
}

// Casts in an elementwise body: z = to_z(to_f32(x) * (k + 1) + y) with x of
// f16, bf16 or i32 (seed % 3), y f32 and z f32 or f16 (rounded to nearest
// even, which the reference reproduces).
TEST_P(RandomDispatchTypes, CastElementwise) {
  int seed = GetParam();
  std::mt19937_64 rng(140000 + seed);
  Launch launch = randomLaunch(rng, seed);
  KernelText k(launch);
  static const char *xElems[] = {"f16", "bf16", "i32"};
  std::string xElem = xElems[seed % 3];
  std::string zElem = coin(rng, 50) ? "f16" : "f32";
  Shape shape = smallShape(rng, 1 + seed % 3, maxElements(launch));
  GlobalArray &gx = k.global(rng, shape, xElem);
  GlobalArray &gy = k.global(rng, shape);
  auto xVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = inst;
    for (int64_t v : x)
      f = f * 5 + v;
    return float(f % 61) - 30;
  };
  auto yVal = [](int64_t inst, llvm::ArrayRef<int64_t> x) {
    int64_t f = 2 * inst;
    for (int64_t v : x)
      f = f * 3 + v;
    return float(f % 7) * 0.25f + 0.125f;
  };
  fillTiles(gx, launch.total(), xVal);
  fillTiles(gy, launch.total(), yVal);
  Buf x = k.buffer(rng, shape, false, xElem);
  k.copy(k.view(gx, shape), x);
  Buf y = k.buffer(rng, shape, false);
  k.copy(k.view(gy, shape), y);
  Buf z = k.buffer(rng, shape, true, zElem);
  k.line("%ki = arith.index_cast %k : index to i32");
  k.line("%kf = arith.sitofp %ki : i32 to f32");
  k.line("%scale = arith.addf %kf, " + k.f32(1) + " : f32");
  k.line("axe.elementwise ins(" + x.name + ", " + y.name + " : " + x.type() +
         ", " + y.type() + ") outs(" + z.name + " : " + z.type() + ") at " +
         launch.scopeName() + " {");
  k.line("^bb0(%xe: " + xElem + ", %ye: f32):");
  if (xElem == "i32")
    k.line("  %xf = arith.sitofp %xe : i32 to f32");
  else
    k.line("  %xf = arith.extf %xe : " + xElem + " to f32");
  k.line("  %t = arith.mulf %xf, %scale : f32");
  k.line("  %u = arith.addf %t, %ye : f32");
  if (zElem == "f16") {
    k.line("  %z = arith.truncf %u : f32 to f16");
    k.line("  axe.yield %z : f16");
  } else {
    k.line("  axe.yield %u : f32");
  }
  k.line("}");
  auto outs = storeResult(rng, k, z, coin(rng, 30));
  checkOutputs(k, outs, [&](int64_t inst, llvm::ArrayRef<int64_t> i) {
    return xVal(inst, i) * float(inst + 1) + yVal(inst, i);
  });
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchTypes, ::testing::Range(1, 25));

//===----------------------------------------------------------------------===//
// Larger gemms
//===----------------------------------------------------------------------===//

class RandomDispatchLarge : public ::testing::TestWithParam<int> {};

// 32 to 64 on each side with random layouts at cta, warpgroup or warp
// scope; the first seed is 64x64x32. A and B are sometimes f16 or bf16.
TEST_P(RandomDispatchLarge, Gemm) {
  int seed = GetParam();
  std::mt19937_64 rng(150000 + seed);
  static const Scope scopes[] = {Scope::CTA, Scope::Warpgroup, Scope::Warp};
  Launch launch = randomLaunch(rng, seed);
  launch.scope = scopes[seed % 3];
  if (launch.scope == Scope::Warp)
    launch.threads = 64;
  int64_t M = 64, N = 64, K = 32;
  if (seed > 1) {
    M = pick(rng, {32, 48, 64});
    N = pick(rng, {32, 64});
    K = pick(rng, {16, 32, 64});
  }
  std::string abElem = seed % 4 == 0 ? kNarrowFloats[seed / 4 % 2] : "f32";
  gemmCase(rng, launch, M, N, K, abElem);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchLarge, ::testing::Range(1, 9));

//===----------------------------------------------------------------------===//
// Wider inputs: every element type, rank-0 targets, wild memref strides,
// tokens through loops, forced schedules
//===----------------------------------------------------------------------===//

class RandomDispatchWide : public ::testing::TestWithParam<int> {};

const char *const kEveryElement[] = {"i1",  "i8",   "i16", "i32", "i64",
                                     "f16", "bf16", "f32", "f64"};

/// Every element type, i1 on a third of the seeds: whether a schedule
/// vectorizes depends on the random layouts, and i1 is the type whose
/// vectors are laid out differently in memory.
const char *elementOf(int seed) {
  return seed % 3 == 0 ? "i1" : kEveryElement[1 + seed % 8];
}

/// A buffer filled with decoys by an axe.copy_async of the whole of one
/// global, then overwritten by row blocks of another with axe.copy_async,
/// each started before the wait on the previous copy: the token is carried
/// through the loop's iter_args, as software pipelining does; then the
/// buffer is stored. Every element must come from the block copies.
void asyncLoopCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
                   const std::string &elem) {
  KernelText k(launch);
  k.wildStrides = true;
  Shape shape = smallShape(rng, rank, maxElements(launch));
  GlobalArray &in = k.global(rng, shape, elem);
  GlobalArray &decoys = k.global(rng, shape, elem);
  auto value = [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
    return distinctValue(elem, inst, x);
  };
  fillTiles(in, launch.total(), value);
  fillTiles(decoys, launch.total(),
            [&](int64_t inst, llvm::ArrayRef<int64_t> x) {
              float v = value(inst, x);
              return elem == "i1" ? 1 - v : v + 1;
            });
  Buf a = k.buffer(rng, shape, /*replicas=*/false, elem);
  // Row blocks of b rows whose slices at run-time starts exist; the whole
  // buffer (one block) always does.
  SmallVector<int64_t> blocks;
  for (int64_t b = 1; b < shape[0]; ++b)
    if (shape[0] % b == 0)
      blocks.push_back(b);
  std::shuffle(blocks.begin(), blocks.end(), rng);
  blocks.push_back(shape[0]);
  int64_t b = shape[0];
  Shape part = shape;
  SmallVector<SliceStart> known(shape.size(), SliceStart::constant(0));
  for (int64_t cand : blocks) {
    part[0] = cand;
    known[0] = SliceStart::aligned(cand);
    if (k.sliceLayout(a, known, part)) {
      b = cand;
      break;
    }
  }
  part[0] = b;
  known[0] = SliceStart::aligned(b);
  std::string scope = std::string(" at ") + launch.scopeName();
  auto copyAsync = [&](const Buf &from, const Buf &to) {
    std::string t = k.fresh("t");
    k.line(t + " = axe.copy_async " + from.name + " to " + to.name + scope +
           " : " + from.type() + " to " + to.type());
    return t;
  };
  std::string t0 = copyAsync(k.view(decoys, shape), a);
  std::string i = k.fresh("i"), t = k.fresh("t"), tf = k.fresh("t");
  k.open(tf + " = scf.for " + i + " = " + k.index(0) + " to " +
         k.index(shape[0]) + " step " + k.index(b) + " iter_args(" + t + " = " +
         t0 + ") -> (!axe.token) {");
  SmallVector<std::string> starts(shape.size(), "0");
  starts[0] = i;
  Buf s = k.slice(a, starts, known, part);
  std::string next = copyAsync(k.view(in, part, i), s);
  k.line("axe.wait " + t + scope);
  k.line("scf.yield " + next + " : !axe.token");
  k.close();
  k.line("axe.wait " + tf + scope);
  auto outs = storeResult(rng, k, a, coin(rng, 50));
  checkOutputs(k, outs, value);
}

// Copies of every element type (elementOf) at every scope (seed % 4), with
// wild strides on odd seeds: i1 elements are one byte each, as scalar
// accesses see them.
TEST_P(RandomDispatchWide, Copy) {
  int seed = GetParam();
  std::mt19937_64 rng(210000 + seed);
  Launch launch = randomLaunch(rng, seed);
  copyCase(rng, launch, 1 + seed % 3, elementOf(seed), seed % 2);
}

// Fills of every element type, wild strides on odd seeds.
TEST_P(RandomDispatchWide, Fill) {
  int seed = GetParam();
  std::mt19937_64 rng(220000 + seed);
  Launch launch = randomLaunch(rng, seed);
  fillCase(rng, launch, 1 + seed % 3, elementOf(seed), seed % 2);
}

// Reductions into rank-0 targets (half the seeds) of f32, f64, i32, i64,
// from globals with wild strides.
TEST_P(RandomDispatchWide, Reduce) {
  int seed = GetParam();
  std::mt19937_64 rng(230000 + seed);
  Launch launch = randomLaunch(rng, seed);
  static const char *elems[] = {"f32", "i32", "f64", "i64"};
  reduceCase(rng, launch, 1 + seed % 3, elems[seed / 4 % 4], true);
}

// copy_async tokens carried through scf.for iter_args.
TEST_P(RandomDispatchWide, AsyncCopyLoop) {
  int seed = GetParam();
  std::mt19937_64 rng(240000 + seed);
  Launch launch = randomLaunch(rng, seed);
  asyncLoopCase(rng, launch, 1 + seed % 3, elementOf(seed));
}

// f16 or bf16 A and B into an f16 or bf16 C, forced onto cpu.gemm.naive on
// half the seeds (which converts between the two formats through f32);
// sums stay below 256, exact in both formats.
TEST_P(RandomDispatchWide, GemmNarrowAccumulator) {
  int seed = GetParam();
  std::mt19937_64 rng(250000 + seed);
  Launch launch = randomLaunch(rng, seed);
  int64_t limit = launch.scope == Scope::Thread ? 8 : 16;
  auto size = [&] { return pickAtMost(rng, {2, 3, 4, 6, 8, 12, 16}, limit); };
  int64_t M = size(), N = size(), K = size();
  gemmCase(rng, launch, M, N, K, kNarrowFloats[seed % 2],
           kNarrowFloats[seed / 2 % 2], /*forceNaive=*/seed / 4 % 2 == 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDispatchWide, ::testing::Range(1, 37));

} // namespace
