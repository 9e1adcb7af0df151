//===- FakeCudaDriver.cpp - a libcuda.so.1 stand-in for GPU-less tests ----===//
//
// libaxe_cuda_runtime.so needs the driver's libcuda.so.1 at load time, which
// machines without an NVIDIA driver do not have. This stand-in exports the
// driver functions the runtime calls, prints each call with its arguments
// ("fake-cuda: ...", on stdout, so that the trace stays in order with what
// the host program prints) and backs "device" memory with host memory, so
// that lit tests (test/Runtime/cuda-runtime-fake-driver.test) can run
// generated host code through the real runtime and check what reaches the
// driver: context set-up, launch geometry, memset values, TMA descriptor
// fields. Kernels are not executed. Built into build/lib/fake-cuda/, a
// directory nothing searches unless LD_LIBRARY_PATH names it.
//
// FAKE_CUDA_INIT_ERROR=1 in the environment makes cuInit fail with
// CUDA_ERROR_NO_DEVICE, as on a machine with a driver but no GPU.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
thread_local CUcontext current = nullptr;

/// Distinct non-null handles, so that the runtime's null checks pass.
template <typename T> T handle(uintptr_t tag) {
  return reinterpret_cast<T>(static_cast<uintptr_t>(0x1000) + tag);
}

void trace(const char *format, ...) __attribute__((format(printf, 1, 2)));
void trace(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fputs("fake-cuda: ", stdout);
  vfprintf(stdout, format, args);
  fputc('\n', stdout);
  va_end(args);
}
} // namespace

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case CUDA_SUCCESS:
    *name = "CUDA_SUCCESS";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    *name = "CUDA_ERROR_NO_DEVICE";
    return CUDA_SUCCESS;
  default:
    *name = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected"
                                        : nullptr;
  return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuInit(unsigned int flags) {
  trace("cuInit(%u)", flags);
  return getenv("FAKE_CUDA_INIT_ERROR") ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  trace("cuDeviceGet(%d)", ordinal);
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value,
                                          CUdevice_attribute attribute,
                                          CUdevice device) {
  trace("cuDeviceGetAttribute(%d, device %d)", static_cast<int>(attribute),
        device);
  *value = 227 * 1024; // an H100's opt-in shared memory per block
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context,
                                              CUdevice device) {
  trace("cuDevicePrimaryCtxRetain(device %d)", device);
  *context = handle<CUcontext>(device);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext context) {
  trace("cuCtxSetCurrent(%p)", static_cast<void *>(context));
  current = context;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  *device =
      static_cast<CUdevice>(reinterpret_cast<uintptr_t>(current) - 0x1000);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  trace("cuModuleLoadData(%s)", memcmp(image,
                                       "\x7f"
                                       "ELF",
                                       4) == 0
                                    ? "ELF cubin"
                                    : "not a cubin");
  *module = handle<CUmodule>(1);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                        unsigned int numOptions,
                                        CUjit_option *options, void **values) {
  unsigned optLevel = 0;
  for (unsigned i = 0; i < numOptions; ++i)
    if (options[i] == CU_JIT_OPTIMIZATION_LEVEL)
      optLevel = static_cast<unsigned>(reinterpret_cast<uintptr_t>(values[i]));
  trace("cuModuleLoadDataEx(%s, %u options, O%u)",
        strstr(static_cast<const char *>(image), ".version") ? "PTX"
                                                             : "not PTX",
        numOptions, optLevel);
  *module = handle<CUmodule>(2);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule) {
  trace("cuModuleUnload");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule,
                                         const char *name) {
  trace("cuModuleGetFunction(%s)", name);
  *function = handle<CUfunction>(3);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuFuncSetAttribute(CUfunction,
                                        CUfunction_attribute attribute,
                                        int value) {
  trace("cuFuncSetAttribute(%d, %d)", static_cast<int>(attribute), value);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned gx, unsigned gy,
                                    unsigned gz, unsigned bx, unsigned by,
                                    unsigned bz, unsigned smem, CUstream,
                                    void **params, void **extra) {
  trace("cuLaunchKernel(grid %u %u %u, block %u %u %u, smem %u, params %s, "
        "extra %s)",
        gx, gy, gz, bx, by, bz, smem, params ? "set" : "null",
        extra ? "set" : "null");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction,
                                      void **params, void **) {
  unsigned cx = 0, cy = 0, cz = 0;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      cx = config->attrs[i].value.clusterDim.x;
      cy = config->attrs[i].value.clusterDim.y;
      cz = config->attrs[i].value.clusterDim.z;
    }
  trace("cuLaunchKernelEx(cluster %u %u %u, grid %u %u %u, block %u %u %u, "
        "smem %u, params %s)",
        cx, cy, cz, config->gridDimX, config->gridDimY, config->gridDimZ,
        config->blockDimX, config->blockDimY, config->blockDimZ,
        config->sharedMemBytes, params ? "set" : "null");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  trace("cuStreamCreate(%u)", flags);
  *stream = handle<CUstream>(4);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamDestroy(CUstream) {
  trace("cuStreamDestroy");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) {
  trace("cuStreamSynchronize");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  trace("cuStreamWaitEvent");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  trace("cuEventCreate(%u)", flags);
  *event = handle<CUevent>(5);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventDestroy(CUevent) {
  trace("cuEventDestroy");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventSynchronize(CUevent) {
  trace("cuEventSynchronize");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent, CUstream) {
  trace("cuEventRecord");
  return CUDA_SUCCESS;
}

// "Device" memory is host memory, so that host code can read back what the
// runtime's copies and memsets did.
FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr *pointer, size_t bytes) {
  trace("cuMemAlloc(%zu)", bytes);
  *pointer = reinterpret_cast<CUdeviceptr>(calloc(1, bytes));
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes,
                                       unsigned int flags) {
  trace("cuMemAllocManaged(%zu, %u)", bytes, flags);
  *pointer = reinterpret_cast<CUdeviceptr>(calloc(1, bytes));
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree(CUdeviceptr pointer) {
  trace("cuMemFree");
  free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
                                   size_t bytes, CUstream) {
  trace("cuMemcpyAsync(%zu)", bytes);
  memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src,
                                  size_t bytes) {
  trace("cuMemcpyHtoD(%zu)", bytes);
  memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value,
                                      size_t count, CUstream) {
  trace("cuMemsetD32Async(0x%08x, %zu)", value, count);
  auto *words = reinterpret_cast<unsigned int *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value,
                                      size_t count, CUstream) {
  trace("cuMemsetD16Async(0x%04x, %zu)", value, count);
  auto *halves = reinterpret_cast<unsigned short *>(dst);
  for (size_t i = 0; i < count; ++i)
    halves[i] = value;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemHostRegister(void *, size_t bytes,
                                       unsigned int flags) {
  trace("cuMemHostRegister(%zu, %u)", bytes, flags);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemHostUnregister(void *) {
  trace("cuMemHostUnregister");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType dataType, cuuint32_t rank,
    void *address, const cuuint64_t *dims, const cuuint64_t *strides,
    const cuuint32_t *box, const cuuint32_t *elementStrides,
    CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
    CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
  // The address is printed modulo the 16-byte TMA alignment only: its value
  // differs from run to run.
  fprintf(stdout,
          "fake-cuda: cuTensorMapEncodeTiled(type %d, rank %u, address%%16 "
          "%u, dims",
          static_cast<int>(dataType), rank,
          static_cast<unsigned>(reinterpret_cast<uintptr_t>(address) % 16));
  for (cuuint32_t i = 0; i < rank; ++i)
    fprintf(stdout, " %llu", static_cast<unsigned long long>(dims[i]));
  fputs(", strides", stdout);
  for (cuuint32_t i = 0; i + 1 < rank; ++i)
    fprintf(stdout, " %llu", static_cast<unsigned long long>(strides[i]));
  fputs(", box", stdout);
  for (cuuint32_t i = 0; i < rank; ++i)
    fprintf(stdout, " %u", box[i]);
  fputs(", element strides", stdout);
  for (cuuint32_t i = 0; i < rank; ++i)
    fprintf(stdout, " %u", elementStrides[i]);
  fprintf(stdout, ", interleave %d, swizzle %d, l2 %d, oob %d)\n",
          static_cast<int>(interleave), static_cast<int>(swizzle),
          static_cast<int>(l2Promotion), static_cast<int>(oobFill));
  memset(map, 0xab, sizeof(*map));
  return CUDA_SUCCESS;
}
