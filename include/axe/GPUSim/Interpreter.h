//===- Interpreter.h - Runs a decoded kernel on the CPU ---------*- C++ -*-===//
//
// A launch runs its clusters of CTAs one after another (a CTA is a cluster
// of one without clusters); the warps of a cluster's CTAs run round-robin,
// each until it blocks at a barrier or returns, its 32 lanes in lockstep
// under an active mask (docs/GPURun.md). Global memory is the host's: a
// memref argument is read and written through its descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_INTERPRETER_H
#define AXE_GPUSIM_INTERPRETER_H

#include "axe/GPUSim/Program.h"
#include "axe/GPUSim/Stats.h"

#include "llvm/ADT/ArrayRef.h"

namespace axe::gpusim {

struct TensorMapTable;

struct LaunchDims {
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  /// CTAs per cluster (at most 16). The CTAs of a cluster run together
  /// (their warps round-robin), clusters one after another.
  int64_t cluster[3] = {1, 1, 1};
};

/// One kernel argument as the host passes it: a memref descriptor (the
/// aligned pointer, offset, sizes and strides in elements) or a scalar's
/// bits (integers sign- or zero-extended to 64 bits, floats as f64 bits).
struct ArgValue {
  bool isMemRef = false;
  void *aligned = nullptr;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> sizes, strides;
  uint64_t bits = 0;
};

struct RunOptions {
  /// Shadow memory for shared-memory races (docs/GPURun.md). On by
  /// default: the lockstep order hides races a GPU shows.
  bool checkRaces = true;
  /// Safety net against a warp that never blocks (a spin loop on memory
  /// another warp would write never ends: warps yield only at barriers):
  /// warp instructions one warp may run between two blocking points.
  uint64_t maxWarpInstructionsPerRun = uint64_t(1) << 30;
  /// The tensor maps the host built (nvgpu.tma.create.descriptor): a TMA op
  /// accepts only a descriptor operand that points to one of them.
  const TensorMapTable *tensorMaps = nullptr;
};

/// Runs one launch of `program`. Errors are emitted as diagnostics on the
/// offending op (naming the kernel, block, thread and address) and fail.
mlir::LogicalResult launchKernel(const Program &program, const LaunchDims &dims,
                                 llvm::ArrayRef<ArgValue> args,
                                 const RunOptions &options, KernelStats &stats);

} // namespace axe::gpusim

#endif // AXE_GPUSIM_INTERPRETER_H
