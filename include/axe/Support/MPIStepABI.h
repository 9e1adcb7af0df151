//===- MPIStepABI.h - The ABI between mesh collectives and MPI --*- C++ -*-===//
//
// axe-to-cpu lowers an operator at mesh scope to one call per step of its
// collective plan (axe/Layout/Collective.h):
//
//   axe_mpi_step(send, recv, descriptor)
//
// where send and recv are the addresses of this rank's local buffers and
// descriptor points to a constant array of int64 that the compiler emits
// once per step. The array holds everything the step needs, so the ABI is
// one symbol and the layout math stays in the compiler:
//
//   [0]  kMPIStepVersion
//   [1]  MPIStepKind
//   [2]  MPIElementKind      (the MPI datatype of a reduction)
//   [3]  bytes per element
//   [4]  MPIReduction
//   [5]  R, the number of mesh axes, then R extents
//        C, the number of communicator axes, then C mesh-axis indices, most
//        significant first (the communicator's rank order)
//        root (a rank of the communicator)
//        elements of the local buffer before, and after the step
//        the pack of the send buffer, then that of the receive buffer
//        T, then T (source rank, target rank) pairs (Permute)
//        H, then H (mesh-axis index, coordinate) pairs: the data sits at
//        that coordinate of each such axis before the step (axes outside
//        the communicator only); a rank elsewhere holds nothing, nor does
//        any rank of its communicator, so it skips the step and leaves its
//        receive buffer as it was
//
// A pack: a buffer of shape outer x n x inner, the step's dim being n;
// D digits of the index l along n, each (stride, extent), in communicator
// rank order. Chunk r holds the elements whose digits spell r, in their
// order with those digits removed from l (mixed radix).
//
// Nothing here includes MPI: the compiler uses the enums, the runtime
// library (lib/Runtime/MPI, built when MPICH is found) implements the step.
// It lives in Support, below both, because the two sides must agree on it
// and neither may include the other.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_SUPPORT_MPISTEPABI_H
#define AXE_SUPPORT_MPISTEPABI_H

#include <cstdint>

namespace axe {

constexpr int64_t kMPIStepVersion = 2;

enum class MPIStepKind : int64_t {
  AllReduce = 0,
  Reduce = 1,
  ReduceScatter = 2,
  AllGather = 3,
  AllToAll = 4,
  LocalSlice = 5,
  Broadcast = 6,
  Scatter = 7,
  Gather = 8,
  Permute = 9,
};

enum class MPIElementKind : int64_t {
  /// Moved as bytes; no reduction.
  Bytes = 0,
  F32 = 1,
  F64 = 2,
  I8 = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
};

enum class MPIReduction : int64_t {
  None = 0,
  Sum = 1,
  Max = 2,
  Min = 3,
  Prod = 4,
};

} // namespace axe

extern "C" {
/// Runs one step; aborts every rank (MPI_Abort) with a message on stderr
/// when the run does not match the mesh or MPI fails.
void axe_mpi_step(int64_t send, int64_t recv, const int64_t *descriptor);
/// Starts one step (axe.reduce_async): reductions, reduce-scatters and
/// all-gathers are left in flight as MPI's nonblocking collectives; other
/// kinds complete before it returns. `send` must not be written, nor
/// `recv` read, before axe_mpi_wait_all.
void axe_mpi_start(int64_t send, int64_t recv, const int64_t *descriptor);
/// Completes every step started and not yet completed.
void axe_mpi_wait_all();
}

#endif // AXE_SUPPORT_MPISTEPABI_H
