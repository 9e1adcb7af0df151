//===- MPIRuntime.cpp - Collective steps of mesh operators over MPI -------===//
//
// One function, axe_mpi_step, runs one step of a collective plan that the
// compiler described in a constant array (axe/Support/MPIStepABI.h). The
// library also initializes MPI when it is loaded and finalizes it when the
// program ends, so a host program needs no mpi.init of its own.
//
// Ranks map to mesh coordinates row-major (the last axis fastest). A
// communicator over a set of mesh axes groups the ranks that differ only on
// them; its rank order is the order of the axes in the descriptor.
//
//===----------------------------------------------------------------------===//

#include "axe/Support/MPIStepABI.h"

#include "llvm/ADT/StringMap.h"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

using namespace axe;

namespace {

[[noreturn]] void abortRun(const std::string &message) {
  int rank = 0;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "axe-mpi (rank %d): %s\n", rank, message.c_str());
  std::fflush(stderr);
  if (initialized)
    MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

/// Ends the run on an error every rank finds at the same point (the process
/// count): each rank says why and finalizes, so mpiexec forwards every
/// message. MPI_Abort may kill the processes before mpiexec has read what
/// they wrote.
[[noreturn]] void failOnEveryRank(const std::string &message) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "axe-mpi (rank %d): %s\n", rank, message.c_str());
  std::fflush(stderr);
  MPI_Finalize();
  std::exit(1);
}

void check(int code, const char *what) {
  if (code == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  abortRun(std::string(what) + " failed: " + std::string(text, length));
}

/// Reads the descriptor front to back.
class Reader {
public:
  explicit Reader(const int64_t *words) : words(words) {}
  int64_t next() { return words[at++]; }
  std::vector<int64_t> list() {
    int64_t n = next();
    if (n < 0 || n > (1 << 20))
      abortRun("corrupt step descriptor (list of " + std::to_string(n) + ")");
    std::vector<int64_t> out(n);
    for (int64_t &v : out)
      v = next();
    return out;
  }

  size_t position() const { return at; }

private:
  const int64_t *words;
  size_t at = 0;
};

/// The shape outer x n x inner and the digits of n that number chunks.
struct Pack {
  int64_t outer = 1, n = 1, inner = 1;
  std::vector<std::pair<int64_t, int64_t>> digits;

  static Pack read(Reader &r) {
    Pack p;
    p.outer = r.next();
    p.n = r.next();
    p.inner = r.next();
    int64_t d = r.next();
    for (int64_t i = 0; i < d; ++i) {
      int64_t stride = r.next();
      p.digits.push_back({stride, r.next()});
    }
    return p;
  }
  int64_t chunks() const {
    int64_t c = 1;
    for (auto [stride, extent] : digits)
      c *= extent;
    return c;
  }
  /// Whether chunk r is the contiguous block r of the buffer, so packing is
  /// a no-op: one digit block of n that is the most significant of the
  /// buffer.
  bool identity() const {
    if (outer != 1 && chunks() != 1)
      return false;
    int64_t stride = n;
    for (auto [s, e] : digits) {
      stride /= e;
      if (s != stride)
        return false;
    }
    return true;
  }
  /// The chunk of index l along n, and its index within the chunk.
  std::pair<int64_t, int64_t> split(int64_t l) const {
    int64_t chunk = 0;
    for (auto [s, e] : digits)
      chunk = chunk * e + (l / s) % e;
    // Remove digits from the most to the least significant place, so the
    // smaller strides stay valid.
    std::vector<std::pair<int64_t, int64_t>> byStride(digits);
    std::sort(byStride.begin(), byStride.end(),
              [](auto a, auto b) { return a.first > b.first; });
    int64_t rest = l;
    for (auto [s, e] : byStride)
      rest = rest % s + rest / (s * e) * s;
    return {chunk, rest};
  }
};

/// buffer (outer x n x inner) -> chunks, each outer x n/P x inner.
void pack(const Pack &p, int64_t bytes, const char *in, char *out) {
  int64_t per = p.n / p.chunks();
  size_t row = size_t(p.inner * bytes);
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t l = 0; l < p.n; ++l) {
      auto [chunk, rest] = p.split(l);
      std::memcpy(out + ((chunk * p.outer + o) * per + rest) * row,
                  in + (o * p.n + l) * row, row);
    }
}

void unpack(const Pack &p, int64_t bytes, const char *in, char *out) {
  int64_t per = p.n / p.chunks();
  size_t row = size_t(p.inner * bytes);
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t l = 0; l < p.n; ++l) {
      auto [chunk, rest] = p.split(l);
      std::memcpy(out + (o * p.n + l) * row,
                  in + ((chunk * p.outer + o) * per + rest) * row, row);
    }
}

/// Chunk `which` of the buffer alone.
void extract(const Pack &p, int64_t bytes, int64_t which, const char *in,
             char *out) {
  int64_t per = p.n / p.chunks();
  size_t row = size_t(p.inner * bytes);
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t l = 0; l < p.n; ++l) {
      auto [chunk, rest] = p.split(l);
      if (chunk == which)
        std::memcpy(out + (o * per + rest) * row, in + (o * p.n + l) * row,
                    row);
    }
}

MPI_Datatype datatypeOf(MPIElementKind kind) {
  switch (kind) {
  case MPIElementKind::F32:
    return MPI_FLOAT;
  case MPIElementKind::F64:
    return MPI_DOUBLE;
  case MPIElementKind::I8:
    return MPI_INT8_T;
  case MPIElementKind::I16:
    return MPI_INT16_T;
  case MPIElementKind::I32:
    return MPI_INT32_T;
  case MPIElementKind::I64:
    return MPI_INT64_T;
  case MPIElementKind::Bytes:
    break;
  }
  return MPI_BYTE;
}

/// arith.maximumf / arith.minimumf on one pair: a NaN wins, and +0 is
/// larger than -0. MPI_MAX and MPI_MIN leave both unspecified (MPICH keeps
/// the non-NaN operand), so a mesh reduce would disagree with the same
/// reduce at cta scope.
template <typename T, bool IsMax> T combineIEEE(T a, T b) {
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  if (a == b)
    return (std::signbit(a) == IsMax) ? b : a;
  return (a > b) == IsMax ? a : b;
}

template <typename T, bool IsMax>
void combineIEEEOp(void *in, void *inout, int *length, MPI_Datatype *) {
  const T *x = static_cast<const T *>(in);
  T *y = static_cast<T *>(inout);
  for (int i = 0; i < *length; ++i)
    y[i] = combineIEEE<T, IsMax>(x[i], y[i]);
}

/// The user-defined op for a float max or min, created once MPI runs.
MPI_Op floatOp(MPIElementKind element, bool isMax) {
  static MPI_Op ops[2][2] = {{MPI_OP_NULL, MPI_OP_NULL},
                             {MPI_OP_NULL, MPI_OP_NULL}};
  bool f64 = element == MPIElementKind::F64;
  MPI_Op &op = ops[f64][isMax];
  if (op != MPI_OP_NULL)
    return op;
  MPI_User_function *fn = f64 ? (isMax ? &combineIEEEOp<double, true>
                                       : &combineIEEEOp<double, false>)
                              : (isMax ? &combineIEEEOp<float, true>
                                       : &combineIEEEOp<float, false>);
  check(MPI_Op_create(fn, /*commute=*/1, &op), "MPI_Op_create");
  return op;
}

MPI_Op opOf(MPIReduction r, MPIElementKind element) {
  bool isFloat =
      element == MPIElementKind::F32 || element == MPIElementKind::F64;
  switch (r) {
  case MPIReduction::Sum:
  case MPIReduction::None:
    return MPI_SUM;
  case MPIReduction::Max:
    return isFloat ? floatOp(element, true) : MPI_MAX;
  case MPIReduction::Min:
    return isFloat ? floatOp(element, false) : MPI_MIN;
  case MPIReduction::Prod:
    return MPI_PROD;
  }
  return MPI_SUM;
}

int toCount(int64_t count) {
  if (count < 0 || count > INT32_MAX)
    abortRun("a message of " + std::to_string(count) +
             " elements exceeds MPI's int count");
  return int(count);
}

/// Communicators by (mesh extents, axes), split from MPI_COMM_WORLD once.
class Communicators {
public:
  MPI_Comm get(const std::vector<int64_t> &extents,
               const std::vector<int64_t> &axes) {
    auto key = std::make_pair(extents, axes);
    auto it = cache.find(key);
    if (it != cache.end())
      return it->second;
    MPI_Comm comm = split(extents, axes);
    cache.emplace(key, comm);
    return comm;
  }

private:
  static std::string meshText(const std::vector<int64_t> &extents) {
    std::string out;
    for (int64_t e : extents)
      out += (out.empty() ? "" : "x") + std::to_string(e);
    return out.empty() ? "1" : out;
  }

public:
  /// Aborts every rank unless the run has one rank per device of the mesh.
  static void checkSize(const std::vector<int64_t> &extents) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t ranks = 1;
    for (int64_t e : extents)
      ranks *= e;
    if (ranks != size)
      failOnEveryRank("the kernel's mesh " + meshText(extents) + " has " +
                      std::to_string(ranks) + " devices but the run has " +
                      std::to_string(size) + " ranks (axe-mpirun -n " +
                      std::to_string(ranks) + ")");
  }

private:
  MPI_Comm split(const std::vector<int64_t> &extents,
                 const std::vector<int64_t> &axes) {
    checkSize(extents);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // Row-major coordinates of this rank.
    std::vector<int64_t> coords(extents.size());
    int64_t rest = rank;
    for (size_t i = extents.size(); i-- > 0;) {
      coords[i] = rest % extents[i];
      rest /= extents[i];
    }
    int64_t key = 0;
    std::vector<int64_t> others(coords);
    for (int64_t a : axes) {
      if (a < 0 || size_t(a) >= extents.size())
        abortRun("corrupt step descriptor (axis " + std::to_string(a) + ")");
      key = key * extents[a] + coords[a];
      others[a] = 0;
    }
    int64_t color = 0;
    for (size_t i = 0; i < extents.size(); ++i)
      color = color * extents[i] + others[i];
    MPI_Comm comm;
    check(MPI_Comm_split(MPI_COMM_WORLD, int(color), int(key), &comm),
          "MPI_Comm_split");
    return comm;
  }

  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, MPI_Comm>
      cache;
};

Communicators &communicators() {
  static Communicators c;
  return c;
}

struct Step {
  MPIStepKind kind;
  MPIElementKind element;
  int64_t bytes;
  MPIReduction reduction;
  std::vector<int64_t> extents, axes;
  int64_t root;
  int64_t before, after;
  /// How the send buffer splits into the chunks the step sends, and how
  /// the chunks received form the receive buffer.
  Pack sendPack, recvPack;
  std::vector<int64_t> transfers;
  /// (mesh axis, coordinate) pairs outside the communicator where the data
  /// sits; a rank elsewhere skips the step, as does its whole communicator.
  std::vector<int64_t> holders;
  /// Words of the descriptor.
  size_t length = 0;
};

Step readStep(const int64_t *descriptor) {
  Reader r(descriptor);
  if (int64_t v = r.next(); v != kMPIStepVersion)
    abortRun("step descriptor version " + std::to_string(v) +
             ", this runtime reads " + std::to_string(kMPIStepVersion) +
             "; rebuild the kernel with the matching axe-opt");
  Step s;
  s.kind = MPIStepKind(r.next());
  s.element = MPIElementKind(r.next());
  s.bytes = r.next();
  s.reduction = MPIReduction(r.next());
  s.extents = r.list();
  s.axes = r.list();
  s.root = r.next();
  s.before = r.next();
  s.after = r.next();
  s.sendPack = Pack::read(r);
  s.recvPack = Pack::read(r);
  s.transfers = r.list();
  s.holders = r.list();
  s.length = r.position();
  return s;
}

/// A step's descriptor is a constant of the program, so it is read (and its
/// communicator found) once; later calls cost a hash lookup and a compare of
/// the words (a program JIT-compiled later may reuse the address).
struct ReadStep {
  std::vector<int64_t> words;
  Step step;
  MPI_Comm comm;
  /// Whether this rank takes part (Step::holders).
  bool holds = true;
};

/// Whether this rank lies at every coordinate the step's data sits at.
bool holdsData(const Step &s) {
  if (s.holders.empty())
    return true;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int64_t rest = rank;
  std::vector<int64_t> coords(s.extents.size());
  for (size_t i = s.extents.size(); i-- > 0;) {
    coords[i] = rest % s.extents[i];
    rest /= s.extents[i];
  }
  for (size_t i = 0; i + 1 < s.holders.size(); i += 2) {
    int64_t axis = s.holders[i];
    if (axis < 0 || size_t(axis) >= coords.size())
      abortRun("corrupt step descriptor (holder axis " + std::to_string(axis) +
               ")");
    if (coords[axis] != s.holders[i + 1])
      return false;
  }
  return true;
}

const ReadStep &lookupStep(const int64_t *descriptor) {
  static std::unordered_map<const int64_t *, ReadStep> steps;
  auto it = steps.find(descriptor);
  if (it != steps.end() &&
      std::equal(it->second.words.begin(), it->second.words.end(), descriptor))
    return it->second;
  ReadStep r{{}, readStep(descriptor), MPI_COMM_WORLD};
  r.words.assign(descriptor, descriptor + r.step.length);
  // A permutation's transfers name world ranks; it still needs the run to
  // match the mesh, or ranks past the mesh would wait on no one.
  if (r.step.kind == MPIStepKind::Permute)
    Communicators::checkSize(r.step.extents);
  else
    r.comm = communicators().get(r.step.extents, r.step.axes);
  r.holds = holdsData(r.step);
  return steps.insert_or_assign(descriptor, std::move(r)).first->second;
}

void runStep(const Step &s, MPI_Comm comm, char *send, char *recv) {
  int me = 0, size = 1;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &size);
  MPI_Datatype type = datatypeOf(s.element);
  MPI_Op op = opOf(s.reduction, s.element);
  // Steps that only move data send elements of the MPI type when there is
  // one (MPICH picks its algorithms by type and count), else bytes.
  bool raw = s.element == MPIElementKind::Bytes;
  MPI_Datatype moved = raw ? MPI_BYTE : type;
  auto count = [&](int64_t elements) {
    return toCount(raw ? elements * s.bytes : elements);
  };
  int64_t unit = s.bytes;
  std::vector<char> scratch, scratch2;
  switch (s.kind) {
  case MPIStepKind::AllReduce:
    check(MPI_Allreduce(send, recv, toCount(s.before), type, op, comm),
          "MPI_Allreduce");
    return;
  case MPIStepKind::Reduce:
    check(MPI_Reduce(send, me == s.root ? recv : nullptr, toCount(s.before),
                     type, op, int(s.root), comm),
          "MPI_Reduce");
    return;
  case MPIStepKind::ReduceScatter: {
    const char *in = send;
    if (!s.sendPack.identity()) {
      scratch.resize(size_t(s.before * unit));
      pack(s.sendPack, unit, send, scratch.data());
      in = scratch.data();
    }
    check(MPI_Reduce_scatter_block(in, recv, toCount(s.after), type, op, comm),
          "MPI_Reduce_scatter_block");
    return;
  }
  case MPIStepKind::AllGather: {
    char *out = recv;
    if (!s.recvPack.identity()) {
      scratch.resize(size_t(s.after * unit));
      out = scratch.data();
    }
    check(MPI_Allgather(send, count(s.before), moved, out, count(s.before),
                        moved, comm),
          "MPI_Allgather");
    if (out != recv)
      unpack(s.recvPack, unit, out, recv);
    return;
  }
  case MPIStepKind::AllToAll: {
    const char *in = send;
    if (!s.sendPack.identity()) {
      scratch.resize(size_t(s.before * unit));
      pack(s.sendPack, unit, send, scratch.data());
      in = scratch.data();
    }
    char *out = recv;
    if (!s.recvPack.identity()) {
      scratch2.resize(size_t(s.after * unit));
      out = scratch2.data();
    }
    int chunk = count(s.before / size);
    check(MPI_Alltoall(in, chunk, moved, out, chunk, moved, comm),
          "MPI_Alltoall");
    if (out != recv)
      unpack(s.recvPack, unit, out, recv);
    return;
  }
  case MPIStepKind::LocalSlice:
    extract(s.sendPack, unit, me, send, recv);
    return;
  case MPIStepKind::Broadcast:
    if (me == s.root && send != recv)
      std::memcpy(recv, send, size_t(s.before * unit));
    check(MPI_Bcast(recv, count(s.before), moved, int(s.root), comm),
          "MPI_Bcast");
    return;
  case MPIStepKind::Scatter: {
    const char *in = send;
    if (me == s.root && !s.sendPack.identity()) {
      scratch.resize(size_t(s.before * unit));
      pack(s.sendPack, unit, send, scratch.data());
      in = scratch.data();
    }
    check(MPI_Scatter(in, count(s.after), moved, recv, count(s.after), moved,
                      int(s.root), comm),
          "MPI_Scatter");
    return;
  }
  case MPIStepKind::Gather: {
    char *out = recv;
    if (me == s.root && !s.recvPack.identity()) {
      scratch.resize(size_t(s.after * unit));
      out = scratch.data();
    }
    check(MPI_Gather(send, count(s.before), moved, me == s.root ? out : nullptr,
                     count(s.before), moved, int(s.root), comm),
          "MPI_Gather");
    if (me == s.root && out != recv)
      unpack(s.recvPack, unit, out, recv);
    return;
  }
  case MPIStepKind::Permute: {
    int target = -1, source = -1;
    for (size_t i = 0; i + 1 < s.transfers.size(); i += 2) {
      if (s.transfers[i] == me)
        target = int(s.transfers[i + 1]);
      if (s.transfers[i + 1] == me)
        source = int(s.transfers[i]);
    }
    if (target == me && source == me) {
      std::memmove(recv, send, size_t(s.before * unit));
      return;
    }
    int n = count(s.before);
    check(MPI_Sendrecv(send, target < 0 ? 0 : n, moved,
                       target < 0 ? MPI_PROC_NULL : target, 0, recv,
                       source < 0 ? 0 : n, moved,
                       source < 0 ? MPI_PROC_NULL : source, 0, comm,
                       MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    return;
  }
  }
  abortRun("corrupt step descriptor (kind " + std::to_string(int64_t(s.kind)) +
           ")");
}

/// A step in flight: its request, the scratch it reads or writes, and
/// what to do with the received data once it has arrived.
struct Pending {
  MPI_Request request = MPI_REQUEST_NULL;
  std::vector<char> scratch;
  const Step *step = nullptr;
  char *recv = nullptr;
};

std::vector<std::unique_ptr<Pending>> &pending() {
  // Never destroyed: MPI is finalized by a global's destructor, which may
  // run after function-local statics are gone.
  static auto *list = new std::vector<std::unique_ptr<Pending>>;
  return *list;
}

void startStep(const Step &s, MPI_Comm comm, char *send, char *recv) {
  MPI_Datatype type = datatypeOf(s.element);
  MPI_Op op = opOf(s.reduction, s.element);
  auto p = std::make_unique<Pending>();
  p->step = &s;
  p->recv = recv;
  int64_t unit = s.bytes;
  int size = 1;
  MPI_Comm_size(comm, &size);
  switch (s.kind) {
  case MPIStepKind::AllReduce:
    check(MPI_Iallreduce(send, recv, toCount(s.before), type, op, comm,
                         &p->request),
          "MPI_Iallreduce");
    break;
  case MPIStepKind::ReduceScatter: {
    const char *in = send;
    if (!s.sendPack.identity()) {
      p->scratch.resize(size_t(s.before * unit));
      pack(s.sendPack, unit, send, p->scratch.data());
      in = p->scratch.data();
    }
    check(MPI_Ireduce_scatter_block(in, recv, toCount(s.after), type, op, comm,
                                    &p->request),
          "MPI_Ireduce_scatter_block");
    break;
  }
  case MPIStepKind::AllGather: {
    bool raw = s.element == MPIElementKind::Bytes;
    MPI_Datatype moved = raw ? MPI_BYTE : type;
    int count = toCount(raw ? s.before * unit : s.before);
    char *out = recv;
    if (!s.recvPack.identity()) {
      p->scratch.resize(size_t(s.after * unit));
      out = p->scratch.data();
    }
    check(MPI_Iallgather(send, count, moved, out, count, moved, comm,
                         &p->request),
          "MPI_Iallgather");
    break;
  }
  default:
    // The other kinds complete here.
    runStep(s, comm, send, recv);
    return;
  }
  pending().push_back(std::move(p));
}

/// `descriptor`, once MPI is known to be running.
const int64_t *requireMPI(const int64_t *descriptor) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    abortRun("MPI is not initialized: run the program with axe-mpirun");
  return descriptor;
}

} // namespace

extern "C" void axe_mpi_start(int64_t send, int64_t recv,
                              const int64_t *descriptor) {
  const ReadStep &r = lookupStep(requireMPI(descriptor));
  if (!r.holds)
    return;
  startStep(r.step, r.comm, reinterpret_cast<char *>(send),
            reinterpret_cast<char *>(recv));
}

extern "C" void axe_mpi_wait_all() {
  for (auto &p : pending()) {
    check(MPI_Wait(&p->request, MPI_STATUS_IGNORE), "MPI_Wait");
    const Step &s = *p->step;
    if (s.kind == MPIStepKind::AllGather && !p->scratch.empty())
      unpack(s.recvPack, s.bytes, p->scratch.data(), p->recv);
  }
  pending().clear();
}

extern "C" void axe_mpi_step(int64_t send, int64_t recv,
                             const int64_t *descriptor) {
  const ReadStep &r = lookupStep(requireMPI(descriptor));
  if (!r.holds)
    return;
  runStep(r.step, r.comm, reinterpret_cast<char *>(send),
          reinterpret_cast<char *>(recv));
}

namespace {

void initializeMPI() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return;
  int provided = 0;
  // Only the CTA at the grid's origin calls MPI, but with openmp=true it may
  // run on any thread.
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
        "MPI_Init_thread");
}

void finalizeMPI() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return;
  // A program that ends with a collective in flight still completes it.
  axe_mpi_wait_all();
  MPI_Finalize();
}

/// MPI lives as long as the library is loaded: from before the program's
/// main to its exit, whether mlir-runner or lli loads it.
struct Lifetime {
  Lifetime() { initializeMPI(); }
  ~Lifetime() { finalizeMPI(); }
} lifetime;

} // namespace

// mlir-runner calls these when it loads the library and when its execution
// engine is destroyed. With them defined, the JIT sees only the symbols the
// init function registers.
extern "C" void __mlir_execution_engine_init(llvm::StringMap<void *> &symbols) {
  initializeMPI();
  symbols["axe_mpi_step"] = reinterpret_cast<void *>(&axe_mpi_step);
  symbols["axe_mpi_start"] = reinterpret_cast<void *>(&axe_mpi_start);
  symbols["axe_mpi_wait_all"] = reinterpret_cast<void *>(&axe_mpi_wait_all);
}

extern "C" void __mlir_execution_engine_destroy() { finalizeMPI(); }
