//===- CudaRuntime.h - axe's own entry points of libaxe_cuda_runtime ------===//
//
// libaxe_cuda_runtime implements the mgpu* functions that MLIR's generated
// host code calls (docs/CUDARuntime.md); those are declared by the generated
// code itself. These are the library's additions, for programs that link it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_RUNTIME_CUDARUNTIME_H
#define AXE_RUNTIME_CUDARUNTIME_H

#include <cstdint>

extern "C" {

/// Turns launch timing on (non-zero) or off, and clears the totals. While it
/// is on, every kernel launch (mgpuLaunchKernel, mgpuLaunchClusterKernel) is
/// bracketed by CUDA events on its stream and waited for, so that the time
/// the device spent on it is known; host work around the launch (stream
/// creation, TMA descriptor encoding) is not counted.
void axeCudaTimeLaunches(int32_t enable);

/// The device time in milliseconds of the kernels launched since timing was
/// turned on, summed; `launches` (if not null) receives how many were timed.
double axeCudaTimedLaunches(int64_t *launches);
}

#endif // AXE_RUNTIME_CUDARUNTIME_H
