//===- MPIBench.cpp - Generated mesh collectives against MPI called directly
//===//
//
// Run under MPICH, one process per device of a 1-d mesh:
//
//   mpiexec.mpich -n 2 build/bin/axe-mpi-bench
//
// Each case times the same collective two ways in one run: an axe kernel
// (axe.reduce / axe.copy at mesh scope, compiled by axe-to-cpu and
// JIT-compiled here) and the MPI call a programmer would write in C
// (MPI_Reduce_scatter_block, MPI_Allgather). N is the number of floats of
// the whole tensor: a reduce-scatter sends N and keeps N / P, an all-gather
// sends N / P and receives N.
//
// Every process must run the same iterations in the same order, so each case
// has a fixed iteration count, and an iteration's time is the slowest
// process's (a barrier, then MPI_Wtime around the call, then a max
// all-reduce). Only rank 0 prints. Figures go to
// docs/Benchmarks-Distributed.md.
//
//===----------------------------------------------------------------------===//

#include "AxeKernelJit.h"
#include "axe/Support/MPIStepABI.h"

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace axe;
using namespace axe::bench;

namespace {

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int worldSize() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::string str(int64_t v) { return std::to_string(v); }

/// Times one iteration as the slowest process saw it.
template <typename Fn> void timeIteration(benchmark::State &state, Fn fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  fn();
  double local = MPI_Wtime() - start, slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  state.SetIterationTime(slowest);
}

/// The reduce-scatter of an N-float tensor whose P addends lie one per
/// process, rows of N / P to each process.
std::string reduceScatterKernel(int64_t n, int64_t p) {
  std::string part =
      "#axe.layout<S[(" + str(p) + ", " + str(n) + ") : (1@d, 1)]>";
  std::string out =
      "#axe.layout<S[(" + str(p) + ", " + str(n / p) + ") : (1@d, 1)]>";
  std::string src =
      "!axe.buffer<" + str(p) + "x" + str(n) + "xf32, " + part + ", global>";
  std::string dst = "!axe.buffer<" + str(n) + "xf32, " + out + ", global>";
  return "func.func @kernel(%a: memref<" + str(n) + "xf32>, %b: memref<" +
         str(n / p) +
         "xf32>) attributes {llvm.emit_c_interface} {\n"
         "  axe.kernel {\n"
         "    %x = axe.view %a[0] : memref<" +
         str(n) + "xf32> -> " + src +
         "\n"
         "    %y = axe.view %b[0] : memref<" +
         str(n / p) + "xf32> -> " + dst +
         "\n"
         "    axe.reduce sum %x into %y dims [0] at mesh<d = " +
         str(p) + "> : " + src + " into " + dst +
         "\n"
         "  }\n"
         "  return\n"
         "}\n";
}

/// The all-gather of an N-float tensor whose rows of N / P lie one block
/// per process, into a copy on every process.
std::string allGatherKernel(int64_t n, int64_t p) {
  std::string rows =
      "#axe.layout<S[(" + str(p) + ", " + str(n / p) + ") : (1@d, 1)]>";
  std::string full =
      "#axe.layout<S[" + str(n) + " : 1] + R[" + str(p) + " : 1@d]>";
  std::string src = "!axe.buffer<" + str(n) + "xf32, " + rows + ", global>";
  std::string dst = "!axe.buffer<" + str(n) + "xf32, " + full + ", global>";
  return "func.func @kernel(%a: memref<" + str(n / p) + "xf32>, %b: memref<" +
         str(n) +
         "xf32>) attributes {llvm.emit_c_interface} {\n"
         "  axe.kernel {\n"
         "    %x = axe.view %a[0] : memref<" +
         str(n / p) + "xf32> -> " + src +
         "\n"
         "    %y = axe.view %b[0] : memref<" +
         str(n) + "xf32> -> " + dst +
         "\n"
         "    axe.copy %x to %y at mesh<d = " +
         str(p) + "> : " + src + " to " + dst +
         "\n"
         "  }\n"
         "  return\n"
         "}\n";
}

/// Checks the generated collective's result against the direct call's, so a
/// timing never stands for a wrong answer.
void requireEqual(const std::vector<float> &a, const std::vector<float> &b,
                  const char *what) {
  int bad = std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0;
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any) {
    if (worldRank() == 0)
      std::fprintf(stderr, "axe-mpi-bench: %s differs from MPI\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

std::vector<float> addend(int64_t n) {
  std::vector<float> v(n);
  int r = worldRank();
  for (int64_t i = 0; i < n; ++i)
    v[i] = float((i * 7 + r * 13) % 101);
  return v;
}

void BM_ReduceScatter(benchmark::State &state) {
  int64_t n = state.range(0), p = worldSize();
  bool generated = state.range(1) != 0;
  std::vector<float> send = addend(n), recv(n / p), reference(n / p);
  MPI_Reduce_scatter_block(send.data(), reference.data(), int(n / p), MPI_FLOAT,
                           MPI_SUM, MPI_COMM_WORLD);
  std::unique_ptr<AxeKernel> kernel;
  if (generated) {
    kernel = std::make_unique<AxeKernel>(reduceScatterKernel(n, p),
                                         AxeToCPUOptions{});
    kernel->define("axe_mpi_step", reinterpret_cast<void *>(&axe_mpi_step));
    kernel->run1d({send.data(), recv.data()}, {n, n / p});
    requireEqual(recv, reference, "the generated reduce-scatter");
  }
  auto call = [&] {
    if (generated)
      kernel->run1d({send.data(), recv.data()}, {n, n / p});
    else
      MPI_Reduce_scatter_block(send.data(), recv.data(), int(n / p), MPI_FLOAT,
                               MPI_SUM, MPI_COMM_WORLD);
  };
  // Both ways start with the same warm buffers.
  call();
  for (auto _ : state)
    timeIteration(state, call);
  state.SetBytesProcessed(state.iterations() * n * int64_t(sizeof(float)));
  state.SetLabel(generated ? "axe" : "MPI_Reduce_scatter_block");
}

void BM_AllGather(benchmark::State &state) {
  int64_t n = state.range(0), p = worldSize();
  bool generated = state.range(1) != 0;
  std::vector<float> send = addend(n / p), recv(n), reference(n);
  MPI_Allgather(send.data(), int(n / p), MPI_FLOAT, reference.data(),
                int(n / p), MPI_FLOAT, MPI_COMM_WORLD);
  std::unique_ptr<AxeKernel> kernel;
  if (generated) {
    kernel =
        std::make_unique<AxeKernel>(allGatherKernel(n, p), AxeToCPUOptions{});
    kernel->define("axe_mpi_step", reinterpret_cast<void *>(&axe_mpi_step));
    kernel->run1d({send.data(), recv.data()}, {n / p, n});
    requireEqual(recv, reference, "the generated all-gather");
  }
  auto call = [&] {
    if (generated)
      kernel->run1d({send.data(), recv.data()}, {n / p, n});
    else
      MPI_Allgather(send.data(), int(n / p), MPI_FLOAT, recv.data(), int(n / p),
                    MPI_FLOAT, MPI_COMM_WORLD);
  };
  call();
  for (auto _ : state)
    timeIteration(state, call);
  state.SetBytesProcessed(state.iterations() * n * int64_t(sizeof(float)));
  state.SetLabel(generated ? "axe" : "MPI_Allgather");
}

/// The GEMM + reduce-scatter of the Axe paper (section 4.2): each process
/// holds K columns of an M x (K P) left operand and those rows of the right
/// one, so its product is a partial sum. `fused`: tiles of `tile` rows, the
/// reduce-scatter of each (axe.reduce_async) in flight while the next tile
/// is multiplied; process d keeps rows [tile/P d, tile/P (d+1)) of each tile.
/// Otherwise: the whole GEMM, then nothing (the caller reduce-scatters).
std::string gemmKernel(int64_t m, int64_t k, int64_t n, int64_t tile, int64_t p,
                       bool fused) {
  int64_t rows = fused ? tile : m;
  std::string a = "!axe.buffer<" + str(rows) + "x" + str(k) +
                  "xf32, #axe.layout<S[(" + str(rows) + ", " + str(k) +
                  ") : (" + str(k) + ", 1)]>, global>";
  std::string b = "!axe.buffer<" + str(k) + "x" + str(n) +
                  "xf32, #axe.layout<S[(" + str(k) + ", " + str(n) + ") : (" +
                  str(n) + ", 1)]>, global>";
  std::string c = "!axe.buffer<" + str(rows) + "x" + str(n) +
                  "xf32, #axe.layout<S[(" + str(rows) + ", " + str(n) +
                  ") : (" + str(n) + ", 1)]>, global>";
  std::string memA = "memref<" + str(m) + "x" + str(k) + "xf32>";
  std::string memB = "memref<" + str(k) + "x" + str(n) + "xf32>";
  std::string memC = "memref<" + str(m) + "x" + str(n) + "xf32>";
  std::string memY = "memref<" + str(m / p) + "x" + str(n) + "xf32>";
  std::string head = "func.func @kernel(%A: " + memA + ", %B: " + memB +
                     ", %C: " + memC + ", %Y: " + memY +
                     ") attributes {llvm.emit_c_interface} {\n"
                     "  axe.kernel {\n"
                     "    %zero = arith.constant 0.0 : f32\n"
                     "    %b = axe.view %B[0, 0] : " +
                     memB + " -> " + b + "\n";
  std::string tail = "  }\n  return\n}\n";
  // `tag` names the tile's values; `row` is its first row.
  auto multiply = [&](const std::string &tag, const std::string &row) {
    return "    %a" + tag + " = axe.view %A[" + row + ", 0] : " + memA +
           " -> " + a + "\n    %c" + tag + " = axe.view %C[" + row +
           ", 0] : " + memC + " -> " + c + "\n    axe.fill %c" + tag +
           ", %zero at cta : " + c + "\n    axe.gemm %a" + tag +
           ", %b into %c" + tag + " at cta : " + a + ", " + b + " into " + c +
           "\n";
  };
  if (!fused)
    return head + "    %r0 = arith.constant 0 : index\n" +
           multiply("0", "%r0") + tail;
  std::string mesh = "mesh<d = " + str(p) + ">";
  std::string part = "!axe.buffer<" + str(p) + "x" + str(tile) + "x" + str(n) +
                     "xf32, #axe.layout<S[(" + str(p) + ", " + str(tile) +
                     ", " + str(n) + ") : (1@d, " + str(n) + ", 1)]>, global>";
  std::string mine = "!axe.buffer<" + str(tile) + "x" + str(n) +
                     "xf32, #axe.layout<S[(" + str(p) + ", " + str(tile / p) +
                     ", " + str(n) + ") : (1@d, " + str(n) + ", 1)]>, global>";
  auto start = [&](const std::string &tag, const std::string &row,
                   const std::string &yrow, const std::string &token) {
    return "    %p" + tag + " = axe.view %C[" + row + ", 0] : " + memC +
           " -> " + part + "\n    %y" + tag + " = axe.view %Y[" + yrow +
           ", 0] : " + memY + " -> " + mine + "\n    " + token +
           " = axe.reduce_async sum %p" + tag + " into %y" + tag +
           " dims [0] at " + mesh + " : " + part + " into " + mine + "\n";
  };
  return head + "    %r0 = arith.constant 0 : index\n" +
         "    %c1 = arith.constant 1 : index\n" +
         "    %tiles = arith.constant " + str(m / tile) + " : index\n" +
         "    %tm = arith.constant " + str(tile) + " : index\n" +
         "    %ty = arith.constant " + str(tile / p) + " : index\n" +
         multiply("0", "%r0") + start("0", "%r0", "%r0", "%t0") +
         "    %last = scf.for %t = %c1 to %tiles step %c1 iter_args(%prev = "
         "%t0) -> (!axe.token) {\n" +
         "    %row = arith.muli %t, %tm : index\n" +
         "    %yrow = arith.muli %t, %ty : index\n" + multiply("t", "%row") +
         "    axe.wait %prev at " + mesh + "\n" +
         start("t", "%row", "%yrow", "%next") +
         "    scf.yield %next : !axe.token\n    }\n" +
         "    axe.wait %last at " + mesh + "\n" + tail;
}

/// The same product as one axe.gemm at mesh scope (cpu.mesh.gemm): A's
/// columns and B's rows split over d, Y's rows split over d; the compiler
/// multiplies the shards and reduce-scatters the partial products. %C is
/// not used (the partials go to a scratch buffer of its own).
std::string meshGemmKernel(int64_t m, int64_t k, int64_t n, int64_t p) {
  std::string memA = "memref<" + str(m) + "x" + str(k) + "xf32>";
  std::string memB = "memref<" + str(k) + "x" + str(n) + "xf32>";
  std::string memC = "memref<" + str(m) + "x" + str(n) + "xf32>";
  std::string memY = "memref<" + str(m / p) + "x" + str(n) + "xf32>";
  std::string a = "!axe.buffer<" + str(m) + "x" + str(k * p) +
                  "xf32, #axe.layout<S[(" + str(m) + ", " + str(p) + ", " +
                  str(k) + ") : (" + str(k) + ", 1@d, 1)]>, global>";
  std::string b = "!axe.buffer<" + str(k * p) + "x" + str(n) +
                  "xf32, #axe.layout<S[(" + str(p) + ", " + str(k) + ", " +
                  str(n) + ") : (1@d, " + str(n) + ", 1)]>, global>";
  std::string y = "!axe.buffer<" + str(m) + "x" + str(n) +
                  "xf32, #axe.layout<S[(" + str(p) + ", " + str(m / p) + ", " +
                  str(n) + ") : (1@d, " + str(n) + ", 1)]>, global>";
  return "func.func @kernel(%A: " + memA + ", %B: " + memB + ", %C: " + memC +
         ", %Y: " + memY +
         ") attributes {llvm.emit_c_interface} {\n"
         "  axe.kernel {\n"
         "    %a = axe.view %A[0, 0] : " +
         memA + " -> " + a + "\n    %b = axe.view %B[0, 0] : " + memB + " -> " +
         b + "\n    %y = axe.view %Y[0, 0] : " + memY + " -> " + y +
         "\n    axe.gemm %a, %b into %y at mesh<d = " + str(p) +
         "> {zero_init} : " + a + ", " + b + " into " + y +
         "\n  }\n  return\n}\n";
}

/// Fused GEMM + reduce-scatter against the same generated GEMM followed by
/// MPI_Reduce_scatter_block. The two keep different rows on each process
/// (tile by tile against one block), so the check maps one onto the other.
void BM_GemmReduceScatter(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  int64_t tile = state.range(3), p = worldSize();
  // 0: GEMM then MPI_Reduce_scatter_block; 1: fused; 2: one mesh gemm.
  int64_t mode = state.range(4);
  bool fused = mode == 1, mesh = mode == 2;
  std::vector<float> a = addend(m * k), b = addend(k * n), c(m * n),
                     y(m / p * n), reference(m / p * n);
  AxeKernel gemm(gemmKernel(m, k, n, tile, p, /*fused=*/false),
                 AxeToCPUOptions{});
  auto sizes = {m, k, k, n, m, n, m / p, n};
  gemm.run2d({a.data(), b.data(), c.data(), reference.data()}, sizes);
  std::vector<float> whole(m * n);
  MPI_Allreduce(c.data(), whole.data(), int(m * n), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
  std::unique_ptr<AxeKernel> kernel;
  if (mesh) {
    kernel = std::make_unique<AxeKernel>(meshGemmKernel(m, k, n, p),
                                         AxeToCPUOptions{});
    std::memcpy(reference.data(), &whole[worldRank() * (m / p) * n],
                m / p * n * sizeof(float));
    kernel->run2d({a.data(), b.data(), c.data(), y.data()}, sizes);
    requireEqual(y, reference, "the mesh-scope gemm");
  } else if (fused) {
    kernel = std::make_unique<AxeKernel>(gemmKernel(m, k, n, tile, p, true),
                                         AxeToCPUOptions{});
    kernel->define("axe_mpi_start", reinterpret_cast<void *>(&axe_mpi_start));
    kernel->define("axe_mpi_wait_all",
                   reinterpret_cast<void *>(&axe_mpi_wait_all));
    kernel->run2d({a.data(), b.data(), c.data(), y.data()}, sizes);
    // Local row r: tile r / (tile / P), row d tile / P + r % (tile / P).
    int64_t share = tile / p, d = worldRank();
    for (int64_t r = 0; r < m / p; ++r)
      std::memcpy(&reference[r * n],
                  &whole[((r / share) * tile + d * share + r % share) * n],
                  n * sizeof(float));
    requireEqual(y, reference, "the fused GEMM + reduce-scatter");
  } else {
    std::memcpy(reference.data(), &whole[worldRank() * (m / p) * n],
                m / p * n * sizeof(float));
  }
  auto call = [&] {
    if (fused || mesh) {
      kernel->run2d({a.data(), b.data(), c.data(), y.data()}, sizes);
      return;
    }
    gemm.run2d({a.data(), b.data(), c.data(), y.data()}, sizes);
    MPI_Reduce_scatter_block(c.data(), y.data(), int(m / p * n), MPI_FLOAT,
                             MPI_SUM, MPI_COMM_WORLD);
  };
  call();
  if (!fused && !mesh)
    requireEqual(y, reference, "GEMM + MPI_Reduce_scatter_block");
  for (auto _ : state)
    timeIteration(state, call);
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(2 * m * k * n) * state.iterations(), benchmark::Counter::kIsRate);
  state.SetLabel(mesh    ? "axe.gemm at mesh scope (cpu.mesh.gemm)"
                 : fused ? "axe fused (reduce_async per tile)"
                         : "axe GEMM + MPI_Reduce_scatter_block");
}

/// 64 Ki to 16 Mi floats, MPI and generated side by side, and 1 Ki floats,
/// where the time is the fixed cost of a call.
void sizes(benchmark::internal::Benchmark *b) {
  for (int generated : {0, 1})
    b->Args({1024, generated});
  for (int64_t n = int64_t(1) << 16; n <= int64_t(1) << 24; n <<= 2)
    for (int generated : {0, 1})
      b->Args({n, generated});
}

/// A process that the OS deschedules slows every other one at the next
/// barrier, so each case is repeated and compared by its median.
void configure(benchmark::internal::Benchmark *b) {
  sizes(b);
  b->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

/// The reporter of ranks other than 0.
class QuietReporter : public benchmark::BenchmarkReporter {
public:
  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &) override {}
};

} // namespace

// Fixed iterations per size: every process must run the same number.
BENCHMARK(BM_ReduceScatter)->Apply(configure)->Iterations(30);
BENCHMARK(BM_AllGather)->Apply(configure)->Iterations(30);
// M, K per process, N, rows per tile, mode (see BM_GemmReduceScatter).
BENCHMARK(BM_GemmReduceScatter)
    ->ArgsProduct({{1024}, {256}, {512}, {128}, {0, 1, 2}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true)
    ->Iterations(10);

int main(int argc, char **argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  if (worldRank() == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    // The others run the same cases in step and print nothing.
    QuietReporter quiet;
    benchmark::RunSpecifiedBenchmarks(&quiet);
  }
  benchmark::Shutdown();
  // The axe MPI runtime, loaded with this program, finalizes MPI at exit.
  return 0;
}
