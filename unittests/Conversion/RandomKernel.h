//===- RandomKernel.h - Random axe kernels: write, run, check ---*- C++ -*-===//
//
// The support of the RandomDispatch suites: seeded random axe kernels
// written as text (KernelText, in RandomKernelText.cpp) over global arrays
// with random strides and on-chip buffers with random layouts, run through
// axe-to-cpu and the JIT and checked element by element against a C++
// reference (RandomKernelRun.cpp), and the kernel shapes that more than one
// suite draws (RandomKernelCases.cpp).
//
// Element values are kept as floats on the C++ side (every value the tests
// use is exact in f32) and stored in the element type for the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_UNITTESTS_CONVERSION_RANDOMKERNEL_H
#define AXE_UNITTESTS_CONVERSION_RANDOMKERNEL_H

#include "RandomLayouts.h"

#include "axe/Layout/Algebra.h"

#include "gtest/gtest.h"

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace axe::randomkernel {

/// What every cell of a global holds before the kernel runs.
constexpr float kUntouched = -12345.0f;

inline bool coin(std::mt19937_64 &rng, int percent) {
  return std::uniform_int_distribution<int>(0, 99)(rng) < percent;
}
inline int64_t pick(std::mt19937_64 &rng, llvm::ArrayRef<int64_t> from) {
  return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
}

/// A value of `from` no larger than `limit` (the smallest one must be), drawn
/// the way pick() draws, so the seeds keep their cases.
int64_t pickAtMost(std::mt19937_64 &rng, llvm::ArrayRef<int64_t> from,
                   int64_t limit);

int64_t product(llvm::ArrayRef<int64_t> shape);
std::string joined(llvm::ArrayRef<int64_t> v, const char *sep);

//===----------------------------------------------------------------------===//
// Element types: values are kept as floats on the C++ side (every value the
// tests use is exact in f32) and stored in the element type for the kernel
//===----------------------------------------------------------------------===//

int64_t elementBytes(const std::string &elem);

inline bool isInteger(const std::string &elem) { return elem[0] == 'i'; }

/// Writes `v` as one `elem` at `p`: integers truncated to their width (an
/// i1 is one byte holding 0 or 1, as memref.store of an i1 writes it),
/// floats rounded to nearest even.
void encode(const std::string &elem, float v, uint8_t *p);

/// The value of the `elem` at `p`. An i1 reads its whole byte, so that a
/// byte other than 0 or 1 (bits of a packed vector) is a mismatch.
float decode(const std::string &elem, const uint8_t *p);

/// `v` as an `elem` holds it.
float roundTrip(const std::string &elem, float v);

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
  int64_t instances() const;
  /// Instances in the whole grid: each has its own tile of the globals.
  int64_t total() const { return grid * instances(); }
  const char *scopeName() const;
};

Launch randomLaunch(std::mt19937_64 &rng, int seed);

/// A shape of `rank` dims with at most `maxElements` elements.
Shape smallShape(std::mt19937_64 &rng, unsigned rank, int64_t maxElements);

/// Tiles at thread scope stay small: every thread holds its own.
inline int64_t maxElements(const Launch &l) {
  return l.scope == Scope::Thread ? 128 : 512;
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
                          bool wildStrides = false);

  int64_t address(llvm::ArrayRef<int64_t> index) const;
  /// The address of element `x` of instance `k`'s tile.
  int64_t tileAddress(int64_t k, llvm::ArrayRef<int64_t> x) const;
  std::string memrefType() const;
  /// The layout of a `tile`-shaped view: the memref's strides.
  std::string viewLayout(llvm::ArrayRef<int64_t> t) const;
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

  std::string type() const;
};

/// The scope that owns a register buffer placing data on `axes`: the widest
/// scope among them.
Scope ownerOf(const std::set<std::string> &axes);

//===----------------------------------------------------------------------===//
// The `?` mode: on-chip layouts left to axe-infer-layouts
//===----------------------------------------------------------------------===//

/// Whether the running test belongs to an instantiation named `Inferred`
/// (Inferred/RandomDispatch.Copy/3): the kernel of Seeds/RandomDispatch.
/// Copy/3 with every shared and register layout written `?`, checked
/// against the same reference.
bool inferredMode();

/// `text` with the layout of every buffer type in shared memory or
/// registers written `?` (global views keep theirs).
std::string withLayoutsToInfer(const std::string &text);

/// The seeds in [first, last) whose kernels run at cta scope (`isCTA`):
/// the values of a suite's Inferred instantiation.
std::vector<int> ctaSeeds(int first, int last,
                          const std::function<bool(int)> &isCTA);

/// Names an instantiation's tests as Seeds names them (index = seed - 1),
/// so that Inferred/S.T/3 is the `?` twin of Seeds/S.T/3 whatever seeds
/// the Inferred list leaves out.
std::string seedName(const ::testing::TestParamInfo<int> &info);

/// The kernel being written: constants go before the kernel (uniform
/// values), everything else inside it.
class KernelText {
public:
  explicit KernelText(const Launch &launch);

  std::string index(int64_t v);
  std::string f32(float v);
  /// A constant `v` of element type `elem`.
  std::string constant(float v, const std::string &elem);
  std::string fresh(const std::string &prefix) {
    return "%" + prefix + std::to_string(nextId++);
  }
  /// Appends a line of the kernel body at the current loop depth. An
  /// operator at a scope of several threads is preceded by a barrier at
  /// that scope (with autoBarriers): on a GPU the threads of one operator
  /// may read what another wrote only after one (the CPU runs operators in
  /// order and drops it).
  void line(const std::string &text) {
    if (std::string scope = barrierScopeBefore(text);
        autoBarriers && !scope.empty())
      body << std::string(6 + 2 * depth, ' ') << "axe.barrier at " << scope
           << "\n";
    body << std::string(6 + 2 * depth, ' ') << text << "\n";
  }
  /// The scope of the operator `text` starts, when it needs a barrier
  /// before it; empty otherwise.
  static std::string barrierScopeBefore(const std::string &text);
  /// Opens `scf.for %iv = 0 to ub step step`; returns %iv.
  std::string beginFor(int64_t ub, int64_t step);
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
                      std::string elem = "f32");

  /// A view of instance %k's tile of `g`, or of its rows [row, row +
  /// t[0]) when `row` (an index value) is given.
  Buf view(const GlobalArray &g, llvm::ArrayRef<int64_t> t,
           const std::string &row = "");

  /// A fresh on-chip buffer of `shape` at a random placement that the
  /// operators' scope owns; `replicas` allows replicated layouts.
  Buf buffer(std::mt19937_64 &rng, Shape shape, bool replicas,
             const std::string &elem = "f32");
  /// buffer() in registers: a random layout on a family of thread axes that
  /// the operators' scope owns. `name` is the buffer's (a fresh one if
  /// empty).
  Buf registerBuffer(std::mt19937_64 &rng, Shape shape, bool replicas,
                     const std::string &elem = "f32", std::string name = "");
  /// buffer() in shared memory: at cta scope a buffer of its own, else the
  /// running instance's slice of a buffer with one tile per instance.
  Buf sharedBuffer(std::mt19937_64 &rng, Shape shape, bool replicas,
                   const std::string &elem = "f32", std::string name = "");
  /// A fresh buffer of `shape` at `layout` in `space` (registers, or shared
  /// memory at cta scope).
  Buf alloc(Shape shape, const Layout &layout, const std::string &space,
            const std::string &elem = "f32");

  /// A fresh rank-0 buffer that the operators' scope owns: shared memory or
  /// registers at cta scope, registers elsewhere, sometimes replicated (over
  /// the scope's threads, or on m).
  Buf scalarBuffer(std::mt19937_64 &rng, const std::string &elem);

  /// A rank-0 view of instance %k's element of `g`, a global of one element
  /// per instance: a memref.reinterpret_cast of it at that element.
  Buf scalarView(const GlobalArray &g);

  /// The running instance's tile of `all`, a stack of one `shape` tile per
  /// instance along dim 0.
  Buf instanceSlice(const Buf &all, llvm::ArrayRef<int64_t> shape);

  /// The layout of a region of `src` by the slice algebra, if there is one
  /// and the region still belongs to the operators' scope: a region of a
  /// CTA's registers that lies in one warp is that warp's alone (the
  /// dialect's ownership rule), so the CTA cannot run operators on it. A
  /// run-time start that moves along a thread axis keeps the region with the
  /// scope that axis spans, though the slice's layout leaves the axis out
  /// (a row of a warp's tile at a loop-variable row on laneid is the warp's).
  std::optional<Layout> sliceLayout(const Buf &src,
                                    llvm::ArrayRef<SliceStart> known,
                                    llvm::ArrayRef<int64_t> lengths) const;

  /// A slice of `src` at starts (an index value or "0" per dim); sliceLayout
  /// must have found its layout.
  Buf slice(const Buf &src, llvm::ArrayRef<std::string> starts,
            llvm::ArrayRef<SliceStart> known, llvm::ArrayRef<int64_t> lengths);

  /// The whole of `b` read through equivalent layouts, one per replica
  /// but the first, whose replica 0 (the placement a copy reads) is that
  /// replica: a replica iter (e, s) at digit d becomes the overlapping
  /// iters (e - d, s) and (d + 1, -s) with d * s added to the offset, the
  /// same set of placements. Reading them back checks every replica.
  std::vector<Buf> replicaViews(const Buf &b);

  void copy(const Buf &src, const Buf &dst, bool scalar = false);

  /// The whole module.
  std::string module() const;

  Launch launch;
  std::vector<std::unique_ptr<GlobalArray>> globals;
  /// Globals made from now on get GlobalArray::make's wild strides.
  bool wildStrides = false;
  /// The `?` mode at cta scope: module() writes every shared and register
  /// layout `?`. The generator still draws layouts (and decides slices and
  /// replica read-backs by them), so the kernel is the hand-written one's
  /// text with its on-chip layouts replaced.
  bool inferLayouts = false;
  /// Whether line() writes a barrier before each operator at a scope of
  /// several threads. Without, the kernel relies on axe-insert-barriers
  /// (part of axe-to-nvvm) to order operators that share memory.
  bool autoBarriers = true;

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
::testing::AssertionResult runKernel(KernelText &k);

/// Compares every cell of `g` with `want` rounded to g's element type;
/// describes the first mismatches.
::testing::AssertionResult matches(const GlobalArray &g,
                                   const std::vector<float> &want,
                                   float tolerance = 0);

/// Visits every index of `shape` (row-major).
void forEachIndex(llvm::ArrayRef<int64_t> shape,
                  const std::function<void(llvm::ArrayRef<int64_t>)> &fn);

/// Fills instance k's tile of `g` with value(k, x).
void fillTiles(
    GlobalArray &g, int64_t total,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value);

/// Writes `dst` to a fresh global output, and each replica but the first
/// (read through replicaViews) to one more; returns the outputs, replica 0
/// first.
std::vector<GlobalArray *> storeResult(std::mt19937_64 &rng, KernelText &k,
                                       const Buf &dst, bool blockwise);

/// The expected contents of output `g`: value(k, x) in every tile, the
/// rest untouched.
std::vector<float> expectTiles(
    const GlobalArray &g, int64_t total,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value);

/// With AXE_RANDOM_EXPORT_DIR set, writes the running test's kernel to that
/// folder for a run outside this process (bench/gpu/README.md): NAME.mlir,
/// the kernel and a host @main that fills every global with `initial` (its
/// contents before the kernel ran), calls the kernel and prints every cell
/// of each output, and NAME.ref, the cells each output must hold
/// (`expected`, as matches() compares them). NAME is the test's
/// (RandomDispatch.Copy.7). Does nothing without the variable.
void exportKernel(const KernelText &k,
                  const std::vector<std::vector<float>> &initial,
                  const std::vector<GlobalArray *> &outs,
                  const std::vector<std::vector<float>> &expected,
                  float tolerance);

/// Runs the kernel and checks every output of storeResult (every replica).
void checkOutputs(
    KernelText &k, const std::vector<GlobalArray *> &outs,
    const std::function<float(int64_t, llvm::ArrayRef<int64_t>)> &value,
    float tolerance = 0);

/// The value of element x of instance k's tile of an output.
using TileValue = std::function<float(int64_t, llvm::ArrayRef<int64_t>)>;

/// checkOutputs with output `outs[i]` holding `values[i]`.
void checkOutputs(KernelText &k, const std::vector<GlobalArray *> &outs,
                  const std::vector<TileValue> &values, float tolerance = 0);

//===----------------------------------------------------------------------===//
// Kernels that more than one suite draws
//===----------------------------------------------------------------------===//

/// Values of element type `elem` that differ between neighbours and
/// instances, exact in the type (as floats on the C++ side).
float distinctValue(const std::string &elem, int64_t inst,
                    llvm::ArrayRef<int64_t> x);

/// global -> buffer -> (replicated) buffer -> global, copied whole or by
/// row blocks at run-time starts, of elements of type `elem`; with
/// `wildStrides`, the globals have gaps and negative strides.
void copyCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
              const std::string &elem = "f32", bool wildStrides = false);

/// C (+)= A x B (MxN, K deep) over k blocks sliced at run-time starts, any
/// transposes; A and B of element type `abElem` (f32, f16, bf16), C of
/// `cElem`; `forceNaive` forces the cpu.gemm.naive schedule, which converts
/// A and B to C's type.
void gemmCase(std::mt19937_64 &rng, const Launch &launch, int64_t M, int64_t N,
              int64_t K, const std::string &abElem = "f32",
              const std::string &cElem = "f32", bool forceNaive = false);

/// sum / max / min / prod over random dims, kept or dropped, optionally
/// accumulating into a filled destination; elements of type `elem` (f32,
/// f64, i32 or i64). `widerInputs` adds rank-0 targets (every dim reduced
/// and dropped) and globals with wild strides.
void reduceCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
                const std::string &elem = "f32", bool widerInputs = false);

/// A fill of the whole (replicated) buffer, then fills of row blocks at
/// run-time starts with a value computed from the loop variable, of
/// elements of type `elem`; with `wildStrides`, the global has gaps and
/// negative strides.
void fillCase(std::mt19937_64 &rng, const Launch &launch, unsigned rank,
              const std::string &elem = "f32", bool wildStrides = false);

} // namespace axe::randomkernel

#endif // AXE_UNITTESTS_CONVERSION_RANDOMKERNEL_H
