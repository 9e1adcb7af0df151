/* The allocator of the integration tests when they run on a GPU.
 *
 * prepare.py renames the tests' malloc, aligned_alloc and free (what
 * memref.alloc and memref.dealloc lower to) to these functions, so that the
 * buffers the host code fills and the kernels read are CUDA managed memory:
 * plain host memory is reachable from a GPU only on systems with HMM. The
 * memory comes from libaxe_cuda_runtime's mgpuMemAlloc, which makes the
 * primary context current first. Managed allocations are at least 256-byte
 * aligned, more than any alignment memref.alloc asks for here (checked).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, int32_t isHostShared);
void mgpuMemFree(void *pointer, void *stream);

void *axe_test_malloc(size_t bytes) {
  void *p = mgpuMemAlloc(bytes ? bytes : 1, NULL, 1);
  if (!p) {
    fprintf(stderr, "axe_test_malloc: no managed memory for %zu bytes\n",
            bytes);
    abort();
  }
  return p;
}

void *axe_test_aligned_alloc(size_t alignment, size_t bytes) {
  if (alignment > 256) {
    fprintf(stderr, "axe_test_aligned_alloc: alignment %zu over 256\n",
            alignment);
    abort();
  }
  return axe_test_malloc(bytes);
}

void axe_test_free(void *p) {
  if (p)
    mgpuMemFree(p, NULL);
}
