//===- CudaRuntime.cpp - mgpu* entry points on the CUDA driver API --------===//
//
// The host code that upstream MLIR 22 generates for GPU programs
// (gpu-to-llvm, the gpu.binary offloading translation, nvgpu's TMA
// descriptor lowering) calls a fixed set of C functions named mgpu*. Upstream
// ships them as libmlir_cuda_runtime, which Debian's LLVM packages do not
// build, so axe carries its own: libaxe_cuda_runtime.so, written on the CUDA
// driver API only (no cudart), for `mlir-runner -shared-libs=...` and for
// programs linked against it.
//
// Contract with the generated code:
//  - Each function has exactly the C signature MLIR 22's lowering declares
//    (index arguments are intptr_t/int64_t, enums arrive as i64). A mismatch
//    would not be diagnosed by anyone: the JIT resolves names only.
//  - Nothing is initialized explicitly: the generated module loads its
//    kernels from a global constructor, before main. Every entry point
//    therefore makes the primary context of the default device current on
//    the calling thread first (lazily: cuInit, cuDeviceGet,
//    cuDevicePrimaryCtxRetain, cuCtxSetCurrent).
//  - Every failing driver call prints "axe-cuda-runtime: <function>: <call>
//    failed: <CUresult name> (<description>)" to stderr; functions that
//    return handles then return null. Nothing fails silently, and nothing
//    aborts, so that a host program can still report what it checked.
//
// Memory rule: kernels launched through this runtime dereference the
// pointers in their arguments on the device. Plain host memory (malloc,
// memref.alloc) is only valid there on systems with HMM; otherwise use
// device memory (gpu.alloc + gpu.memcpy), managed memory (gpu.alloc
// host_shared) or page-locked host memory (gpu.host_register, i.e.
// mgpuMemHostRegisterMemRef). docs/CUDARuntime.md has the details.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>

#define AXE_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// Reports a failed driver call; returns whether `result` is success.
bool check(CUresult result, const char *call, const char *entry) {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  const char *text = nullptr;
  // Both lookups fail for codes the installed driver does not know; the
  // number is still worth printing then.
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUresult";
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = "no description";
  fprintf(stderr, "axe-cuda-runtime: %s: %s failed: %s (%d: %s)\n", entry, call,
          name, static_cast<int>(result), text);
  return false;
}

/// Calls driver function `fn` and reports a failure with its name and the
/// entry point that made the call.
#define AXE_CU(fn, ...) check(fn(__VA_ARGS__), #fn, __func__)

void reportError(const char *entry, const char *message) {
  fprintf(stderr, "axe-cuda-runtime: %s: %s\n", entry, message);
}

/// The device ordinal that later calls on this thread use (upstream's
/// mgpuSetDefaultDevice semantics: per thread, 0 until set).
thread_local int32_t defaultDevice = 0;

/// Primary contexts retained so far, by device ordinal. They are never
/// released: the generated module unloads its kernels from a global
/// destructor, which may run after this library's static destructors, and
/// the driver reclaims everything at process exit anyway.
struct ContextTable {
  std::mutex mutex;
  bool initTried = false;
  bool initOk = false;
  std::map<int32_t, CUcontext> byDevice;
};

ContextTable &contexts() {
  static ContextTable *table = new ContextTable(); // never destroyed, see above
  return *table;
}

/// The primary context of `ordinal`, retained on first use; null (reported)
/// when the driver or the device is missing.
CUcontext primaryContext(int32_t ordinal, const char *entry) {
  ContextTable &table = contexts();
  std::lock_guard<std::mutex> lock(table.mutex);
  if (!table.initTried) {
    table.initTried = true;
    table.initOk = check(cuInit(0), "cuInit", entry);
    if (!table.initOk)
      return nullptr;
  }
  if (!table.initOk) {
    // cuInit's failure was printed once; say on every later call why
    // nothing happens instead of repeating the driver message.
    reportError(entry, "no CUDA context (cuInit failed earlier)");
    return nullptr;
  }
  auto it = table.byDevice.find(ordinal);
  if (it != table.byDevice.end())
    return it->second;
  CUdevice device;
  if (!check(cuDeviceGet(&device, ordinal), "cuDeviceGet", entry))
    return nullptr;
  CUcontext context = nullptr;
  if (!check(cuDevicePrimaryCtxRetain(&context, device),
             "cuDevicePrimaryCtxRetain", entry))
    return nullptr;
  table.byDevice.emplace(ordinal, context);
  return context;
}

/// Makes the default device's primary context current on this thread.
/// Checked on every call rather than cached per thread, because the host
/// program may switch contexts itself between our calls.
bool ensureContext(const char *entry) {
  CUcontext context = primaryContext(defaultDevice, entry);
  if (!context)
    return false;
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context)
    return true;
  return check(cuCtxSetCurrent(context), "cuCtxSetCurrent", entry);
}

#define AXE_ENSURE_CONTEXT(failValue)                                          \
  do {                                                                         \
    if (!ensureContext(__func__))                                              \
      return failValue;                                                        \
  } while (false)

/// Raises the function's dynamic shared memory limit when a launch asks for
/// more than the 48 KiB every kernel gets by default; past the device's
/// opt-in maximum the launch cannot succeed, so say so plainly.
bool prepareSharedMemory(CUfunction function, int32_t smem, const char *entry) {
  if (smem <= 48 * 1024)
    return true;
  CUdevice device;
  int maxOptIn = 0;
  if (!check(cuCtxGetDevice(&device), "cuCtxGetDevice", entry) ||
      !check(cuDeviceGetAttribute(
                 &maxOptIn,
                 CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device),
             "cuDeviceGetAttribute", entry))
    return false;
  if (smem > maxOptIn) {
    fprintf(stderr,
            "axe-cuda-runtime: %s: %d bytes of dynamic shared memory "
            "requested, the device allows at most %d per block\n",
            entry, smem, maxOptIn);
    return false;
  }
  return check(
      cuFuncSetAttribute(function,
                         CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
      "cuFuncSetAttribute", entry);
}

/// The fields of a ranked memref descriptor, as MLIR lays it out:
/// { T *allocated, T *aligned, int64 offset, int64 sizes[rank],
///   int64 strides[rank] }.
struct MemRefView {
  char *aligned;
  int64_t offset;
  const int64_t *sizes;
  const int64_t *strides;
};

MemRefView viewMemRef(int64_t rank, void *descriptor) {
  auto *pointers = static_cast<char **>(descriptor);
  auto *ints = reinterpret_cast<const int64_t *>(pointers + 2);
  return {pointers[1], ints[0], ints + 1, ints + 1 + rank};
}

/// The byte range a memref's elements occupy: [begin, begin + bytes).
/// Strides may be negative or zero, so the extent is the span between the
/// lowest and the highest element addressed, not sizes times strides.
bool memRefByteRange(int64_t rank, void *descriptor, int64_t elementBytes,
                     char **begin, uint64_t *bytes) {
  MemRefView view = viewMemRef(rank, descriptor);
  int64_t low = 0, high = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (view.sizes[i] == 0) {
      *begin = nullptr;
      *bytes = 0;
      return false;
    }
    int64_t reach = (view.sizes[i] - 1) * view.strides[i];
    if (reach < 0)
      low += reach;
    else
      high += reach;
  }
  *begin = view.aligned + (view.offset + low) * elementBytes;
  *bytes = static_cast<uint64_t>(high - low + 1) * elementBytes;
  return true;
}

/// Bytes per element of a CUtensorMapDataType; 0 for the packed sub-byte
/// formats, which a memref of whole elements cannot describe.
int64_t tensorMapElementBytes(int64_t dataType) {
  switch (dataType) {
  case CU_TENSOR_MAP_DATA_TYPE_UINT8:
    return 1;
  case CU_TENSOR_MAP_DATA_TYPE_UINT16:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
  case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
    return 2;
  case CU_TENSOR_MAP_DATA_TYPE_UINT32:
  case CU_TENSOR_MAP_DATA_TYPE_INT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
  case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
    return 4;
  case CU_TENSOR_MAP_DATA_TYPE_UINT64:
  case CU_TENSOR_MAP_DATA_TYPE_INT64:
  case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
    return 8;
  default:
    return 0;
  }
}

/// Launch timing for benchmarks (axeCudaTimeLaunches). The generated host
/// code creates, synchronizes and destroys a stream around every launch and
/// encodes its TMA descriptors on each call, so a wall clock around it
/// measures the host as much as the kernel; events around the launch alone
/// do not.
struct LaunchTiming {
  std::mutex mutex;
  bool enabled = false;
  double millis = 0;
  int64_t launches = 0;
};

LaunchTiming &launchTiming() {
  static LaunchTiming *timing = new LaunchTiming(); // see ContextTable
  return *timing;
}

/// Runs `launch` (which enqueues one kernel on `stream` and returns whether
/// that worked), bracketed by timed events when timing is on. It then waits
/// for the kernel so that its time is known before the next launch.
template <typename Launch>
void launchTimed(CUstream stream, const char *entry, Launch launch) {
  LaunchTiming &timing = launchTiming();
  {
    std::lock_guard<std::mutex> lock(timing.mutex);
    if (!timing.enabled) {
      launch();
      return;
    }
  }
  CUevent start = nullptr, stop = nullptr;
  if (!check(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate", entry) ||
      !check(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate", entry)) {
    if (start)
      cuEventDestroy(start);
    launch();
    return;
  }
  float millis = 0;
  bool timed = check(cuEventRecord(start, stream), "cuEventRecord", entry) &&
               launch() &&
               check(cuEventRecord(stop, stream), "cuEventRecord", entry) &&
               check(cuEventSynchronize(stop), "cuEventSynchronize", entry) &&
               check(cuEventElapsedTime(&millis, start, stop),
                     "cuEventElapsedTime", entry);
  cuEventDestroy(start);
  cuEventDestroy(stop);
  if (!timed)
    return;
  std::lock_guard<std::mutex> lock(timing.mutex);
  timing.millis += millis;
  ++timing.launches;
}

} // namespace

//===----------------------------------------------------------------------===//
// Launch timing (axe's own entry points, for benchmarks)
//===----------------------------------------------------------------------===//

/// Turns launch timing on (non-zero) or off, and clears the totals.
AXE_CUDA_EXPORT void axeCudaTimeLaunches(int32_t enable) {
  LaunchTiming &timing = launchTiming();
  std::lock_guard<std::mutex> lock(timing.mutex);
  timing.enabled = enable != 0;
  timing.millis = 0;
  timing.launches = 0;
}

/// The device time in milliseconds of the kernels launched since timing was
/// turned on, summed; `launches` (if not null) gets how many were timed.
AXE_CUDA_EXPORT double axeCudaTimedLaunches(int64_t *launches) {
  LaunchTiming &timing = launchTiming();
  std::lock_guard<std::mutex> lock(timing.mutex);
  if (launches)
    *launches = timing.launches;
  return timing.millis;
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

/// Loads a cubin or fatbin (gpu.binary with format=bin or fatbin). The size
/// is not needed: both formats carry their own length.
AXE_CUDA_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*sizeBytes*/) {
  AXE_ENSURE_CONTEXT(nullptr);
  CUmodule module = nullptr;
  if (!AXE_CU(cuModuleLoadData, &module, data))
    return nullptr;
  return module;
}

/// Loads NUL-terminated PTX (format=isa), compiling it with the driver's JIT
/// at `optLevel` (0-4). The JIT's own log explains a failure better than the
/// CUresult, so it is printed too.
AXE_CUDA_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  AXE_ENSURE_CONTEXT(nullptr);
  char errorLog[8192] = {0};
  unsigned level = optLevel < 0 ? 0u : optLevel > 4 ? 4u : unsigned(optLevel);
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<uintptr_t>(level)),
                    errorLog, reinterpret_cast<void *>(sizeof(errorLog) - 1)};
  CUmodule module = nullptr;
  if (!AXE_CU(cuModuleLoadDataEx, &module, data, 3, options, values)) {
    if (errorLog[0])
      fprintf(stderr, "axe-cuda-runtime: PTX JIT log:\n%s\n", errorLog);
    return nullptr;
  }
  return module;
}

AXE_CUDA_EXPORT void mgpuModuleUnload(CUmodule module) {
  // A module that failed to load was reported then; unloading it is moot.
  if (!module)
    return;
  // The generated code unloads from a global destructor, which may run
  // after the driver has shut down at process exit (seen on an H200 with
  // driver 580: every call then fails with CUDA_ERROR_DEINITIALIZED). The
  // driver has released the module by then; there is nothing to report.
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_ERROR_DEINITIALIZED)
    return;
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuModuleUnload, module);
}

AXE_CUDA_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                                 const char *name) {
  if (!module) {
    fprintf(stderr,
            "axe-cuda-runtime: %s: no module to look up '%s' in (its load "
            "failed)\n",
            __func__, name ? name : "");
    return nullptr;
  }
  AXE_ENSURE_CONTEXT(nullptr);
  CUfunction function = nullptr;
  if (!AXE_CU(cuModuleGetFunction, &function, module, name))
    return nullptr;
  return function;
}

/// `params` holds one pointer per kernel argument (`paramsCount` of them);
/// the driver reads the argument sizes from the kernel itself.
AXE_CUDA_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                      intptr_t gridY, intptr_t gridZ,
                                      intptr_t blockX, intptr_t blockY,
                                      intptr_t blockZ, int32_t smem,
                                      CUstream stream, void **params,
                                      void **extra, size_t /*paramsCount*/) {
  if (!function) {
    reportError(__func__, "no kernel to launch (its lookup failed)");
    return;
  }
  AXE_ENSURE_CONTEXT();
  if (!prepareSharedMemory(function, smem, __func__))
    return;
  launchTimed(stream, __func__, [&] {
    return AXE_CU(cuLaunchKernel, function, gridX, gridY, gridZ, blockX, blockY,
                  blockZ, smem, stream, params, extra);
  });
}

/// Thread-block cluster launch (sm_90+). MLIR 22 passes no parameter count
/// here, unlike mgpuLaunchKernel, so the signature has none either.
AXE_CUDA_EXPORT void
mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                        intptr_t clusterY, intptr_t clusterZ, intptr_t gridX,
                        intptr_t gridY, intptr_t gridZ, intptr_t blockX,
                        intptr_t blockY, intptr_t blockZ, int32_t smem,
                        CUstream stream, void **params, void **extra) {
  if (!function) {
    reportError(__func__, "no kernel to launch (its lookup failed)");
    return;
  }
  AXE_ENSURE_CONTEXT();
  if (!prepareSharedMemory(function, smem, __func__))
    return;
  // Clusters of more than 8 CTAs are "non-portable" and refused unless the
  // kernel opts in.
  if (clusterX * clusterY * clusterZ > 8 &&
      !AXE_CU(cuFuncSetAttribute, function,
              CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1))
    return;
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = static_cast<unsigned>(clusterX);
  attribute.value.clusterDim.y = static_cast<unsigned>(clusterY);
  attribute.value.clusterDim.z = static_cast<unsigned>(clusterZ);
  CUlaunchConfig config = {};
  config.gridDimX = static_cast<unsigned>(gridX);
  config.gridDimY = static_cast<unsigned>(gridY);
  config.gridDimZ = static_cast<unsigned>(gridZ);
  config.blockDimX = static_cast<unsigned>(blockX);
  config.blockDimY = static_cast<unsigned>(blockY);
  config.blockDimZ = static_cast<unsigned>(blockZ);
  config.sharedMemBytes = static_cast<unsigned>(smem);
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  launchTimed(stream, __func__, [&] {
    return AXE_CU(cuLaunchKernelEx, &config, function, params, extra);
  });
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

/// Non-blocking, so that generated code's streams never serialize against
/// the legacy default stream that other libraries in the process may use.
AXE_CUDA_EXPORT CUstream mgpuStreamCreate() {
  AXE_ENSURE_CONTEXT(nullptr);
  CUstream stream = nullptr;
  if (!AXE_CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING))
    return nullptr;
  return stream;
}

AXE_CUDA_EXPORT void mgpuStreamDestroy(CUstream stream) {
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuStreamDestroy, stream);
}

AXE_CUDA_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuStreamSynchronize, stream);
}

AXE_CUDA_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuStreamWaitEvent, stream, event, 0);
}

/// Events only order work here; timing them would cost for nothing.
AXE_CUDA_EXPORT CUevent mgpuEventCreate() {
  AXE_ENSURE_CONTEXT(nullptr);
  CUevent event = nullptr;
  if (!AXE_CU(cuEventCreate, &event, CU_EVENT_DISABLE_TIMING))
    return nullptr;
  return event;
}

AXE_CUDA_EXPORT void mgpuEventDestroy(CUevent event) {
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuEventDestroy, event);
}

AXE_CUDA_EXPORT void mgpuEventSynchronize(CUevent event) {
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuEventSynchronize, event);
}

AXE_CUDA_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuEventRecord, event, stream);
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// gpu.alloc. `isHostShared` (gpu.alloc host_shared) asks for memory both
/// sides can dereference: managed memory. A zero-byte request gets null,
/// which the driver would refuse to allocate anyway.
///
/// The flag arrives as an i8 with no extension attribute, so the bits of its
/// register above the low byte are undefined. Declared bool or uint8_t, the
/// compiler (clang, at least) may assume them zero-extended and test the
/// whole register; declared as a 32-bit integer and masked, only the low
/// byte counts. It is the third integer argument, passed in a register on
/// every 64-bit ABI that MLIR targets here, so the wider type reads the same
/// register.
AXE_CUDA_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                                   uint32_t isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  AXE_ENSURE_CONTEXT(nullptr);
  CUdeviceptr pointer = 0;
  bool ok =
      (isHostShared & 0xff) != 0
          ? AXE_CU(cuMemAllocManaged, &pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL)
          : AXE_CU(cuMemAlloc, &pointer, sizeBytes);
  return ok ? reinterpret_cast<void *>(pointer) : nullptr;
}

/// gpu.dealloc. cuMemFree is not ordered with `stream`, on which the
/// dealloc's dependencies were joined, so the stream is drained first: the
/// memory must outlive the kernels still using it.
AXE_CUDA_EXPORT void mgpuMemFree(void *pointer, CUstream stream) {
  if (!pointer)
    return;
  AXE_ENSURE_CONTEXT();
  if (stream)
    AXE_CU(cuStreamSynchronize, stream);
  AXE_CU(cuMemFree, reinterpret_cast<CUdeviceptr>(pointer));
}

/// gpu.memcpy, any direction: with unified addressing the driver tells host
/// from device pointers itself.
AXE_CUDA_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                CUstream stream) {
  if (sizeBytes == 0)
    return;
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst),
         reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream);
}

/// gpu.memset of 32-bit elements; `count` is in elements.
AXE_CUDA_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                  CUstream stream) {
  if (count == 0)
    return;
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(dst), value, count,
         stream);
}

/// gpu.memset of 16-bit elements; `count` is in elements. The value is an
/// i16 with no extension attribute: read as 32 bits and masked for the
/// reason given at mgpuMemAlloc.
AXE_CUDA_EXPORT void mgpuMemset16(void *dst, uint32_t value, size_t count,
                                  CUstream stream) {
  if (count == 0)
    return;
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuMemsetD16Async, reinterpret_cast<CUdeviceptr>(dst),
         static_cast<unsigned short>(value & 0xffff), count, stream);
}

/// Page-locks host memory and maps it for the device. With unified
/// addressing the device then uses the same pointer value as the host.
AXE_CUDA_EXPORT void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  if (!pointer || sizeBytes == 0)
    return;
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuMemHostRegister, pointer, sizeBytes, CU_MEMHOSTREGISTER_PORTABLE);
}

AXE_CUDA_EXPORT void mgpuMemHostUnregister(void *pointer) {
  if (!pointer)
    return;
  AXE_ENSURE_CONTEXT();
  AXE_CU(cuMemHostUnregister, pointer);
}

/// gpu.host_register: registers the bytes a ranked memref (descriptor of
/// rank `rank`) addresses, whatever its strides.
AXE_CUDA_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                               int64_t elementSizeBytes) {
  char *begin = nullptr;
  uint64_t bytes = 0;
  if (memRefByteRange(rank, descriptor, elementSizeBytes, &begin, &bytes))
    mgpuMemHostRegister(begin, bytes);
}

/// gpu.host_unregister: the same range's start, as registered above.
AXE_CUDA_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                                 int64_t elementSizeBytes) {
  char *begin = nullptr;
  uint64_t bytes = 0;
  if (memRefByteRange(rank, descriptor, elementSizeBytes, &begin, &bytes))
    mgpuMemHostUnregister(begin);
}

//===----------------------------------------------------------------------===//
// Devices and TMA descriptors
//===----------------------------------------------------------------------===//

/// gpu.set_default_device: later calls from this thread use `device`.
AXE_CUDA_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}

/// nvgpu.tma.create.descriptor: encodes a tiled CUtensorMap for the ranked
/// memref `descriptor` with box sizes `boxDims` (outermost first, like the
/// memref), and returns it copied to device memory, because the generated
/// kernels take the descriptor as a plain global pointer rather than as a
/// grid constant. The 128-byte device copy is never freed: MLIR has no op
/// that releases it.
AXE_CUDA_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims) {
  if (rank < 1 || rank > 5) {
    fprintf(stderr,
            "axe-cuda-runtime: %s: rank %lld, but TMA supports ranks 1 to "
            "5\n",
            __func__, static_cast<long long>(rank));
    return nullptr;
  }
  int64_t elementBytes = tensorMapElementBytes(dataType);
  if (elementBytes == 0) {
    fprintf(stderr,
            "axe-cuda-runtime: %s: tensor map data type %lld is not "
            "supported for memrefs\n",
            __func__, static_cast<long long>(dataType));
    return nullptr;
  }
  MemRefView view = viewMemRef(rank, descriptor);
  // The driver wants dimensions innermost first, and strides (in bytes) for
  // every dimension but the innermost, which must be contiguous.
  if (view.strides[rank - 1] != 1) {
    fprintf(stderr,
            "axe-cuda-runtime: %s: the innermost dimension has stride %lld; "
            "TMA needs it contiguous (stride 1)\n",
            __func__, static_cast<long long>(view.strides[rank - 1]));
    return nullptr;
  }
  cuuint64_t globalDim[5] = {1, 1, 1, 1, 1};
  cuuint64_t globalStrides[5] = {0, 0, 0, 0, 0};
  cuuint32_t boxDim[5] = {1, 1, 1, 1, 1};
  cuuint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < rank; ++i) {
    globalDim[i] = static_cast<cuuint64_t>(view.sizes[rank - 1 - i]);
    boxDim[i] = static_cast<cuuint32_t>(boxDims[rank - 1 - i]);
  }
  for (int64_t i = 0; i + 1 < rank; ++i)
    globalStrides[i] =
        static_cast<cuuint64_t>(view.strides[rank - 2 - i] * elementBytes);
  // The memref's offset is part of where its first element lives.
  void *globalAddress = view.aligned + view.offset * elementBytes;

  AXE_ENSURE_CONTEXT(nullptr);
  CUtensorMap tensorMap;
  if (!AXE_CU(cuTensorMapEncodeTiled, &tensorMap,
              static_cast<CUtensorMapDataType>(dataType),
              static_cast<cuuint32_t>(rank), globalAddress, globalDim,
              globalStrides, boxDim, elementStrides,
              static_cast<CUtensorMapInterleave>(interleave),
              static_cast<CUtensorMapSwizzle>(swizzle),
              static_cast<CUtensorMapL2promotion>(l2Promotion),
              static_cast<CUtensorMapFloatOOBfill>(oobFill))) {
    // CUDA_ERROR_INVALID_VALUE alone does not say which rule was broken
    // (16-byte aligned address and strides, box <= 256 per dimension, the
    // swizzle span...), so show what was asked for.
    fprintf(stderr,
            "axe-cuda-runtime: %s: address %p, data type %lld, rank %lld, "
            "innermost first: dims [%llu %llu %llu %llu %llu], byte strides "
            "[%llu %llu %llu %llu], box [%u %u %u %u %u], interleave %lld, "
            "swizzle %lld, l2 promotion %lld, oob fill %lld\n",
            __func__, globalAddress, static_cast<long long>(dataType),
            static_cast<long long>(rank),
            static_cast<unsigned long long>(globalDim[0]),
            static_cast<unsigned long long>(globalDim[1]),
            static_cast<unsigned long long>(globalDim[2]),
            static_cast<unsigned long long>(globalDim[3]),
            static_cast<unsigned long long>(globalDim[4]),
            static_cast<unsigned long long>(globalStrides[0]),
            static_cast<unsigned long long>(globalStrides[1]),
            static_cast<unsigned long long>(globalStrides[2]),
            static_cast<unsigned long long>(globalStrides[3]), boxDim[0],
            boxDim[1], boxDim[2], boxDim[3], boxDim[4],
            static_cast<long long>(interleave), static_cast<long long>(swizzle),
            static_cast<long long>(l2Promotion),
            static_cast<long long>(oobFill));
    return nullptr;
  }
  CUdeviceptr deviceMap = 0;
  if (!AXE_CU(cuMemAlloc, &deviceMap, sizeof(CUtensorMap)))
    return nullptr;
  if (!AXE_CU(cuMemcpyHtoD, deviceMap, &tensorMap, sizeof(CUtensorMap))) {
    AXE_CU(cuMemFree, deviceMap);
    return nullptr;
  }
  return reinterpret_cast<void *>(deviceMap);
}
