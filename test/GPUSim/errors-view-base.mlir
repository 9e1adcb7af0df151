// memref.view at a nonzero byte shift lowers (to LLVM) to a moved base
// pointer; the interpreter models it as an offset into the source. Code
// that reads such a view's base back is refused before anything runs
// rather than run with other addresses than the GPU's.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s

// CHECK: error: axe-gpu-run: 'memref.extract_aligned_pointer_as_index' reads the base of a memref.view at a nonzero byte shift; the interpreter models such views as an offset into their source, not as a moved base pointer
// CHECK-NOT: not reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%out: memref<1xindex>) kernel {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.view %dyn[%c64][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
      %p = memref.extract_aligned_pointer_as_index %v : memref<16xf32, #gpu.address_space<workgroup>> -> index
      memref.store %p, %out[%c0] : memref<1xindex>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : i32
    %out = memref.alloc() : memref<1xindex>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c128 args(%out : memref<1xindex>)
    vector.print str "not reached"
    return
  }
}
