// A register tile replicated over the 32 lanes of each warp (element 4a + w
// on warp w, register a, every lane), loaded from global memory and stored
// back at cta scope. On the CPU the load is a transposing copy (the tile's
// fast dim is the register, the memory's is the element) into a destination
// with more replicas than are unrolled: each store must sit in the loop over
// the replicas that computes its address (it once came after the loop, and
// the IR did not verify).
// B = A, every element checked, on the CPU and, with races checked, in
// axe-gpu-run for sm_80 and sm_90.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// CHECK: ( 10, 11, 12, 13, 14, 15, 16, 17 )
!g = !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, global>
!r = !axe.buffer<8xf32, #axe.layout<S[(2, 4) : (1, 1@warpid)] + R[32 : 1@laneid]>, reg>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<8xf32>, %B: memref<8xf32>) {
    axe.kernel grid [1] threads 128 {
      %a = axe.view %A[0] : memref<8xf32> -> !g
      %b = axe.view %B[0] : memref<8xf32> -> !g
      %r = axe.alloc : !r
      axe.copy %a to %r at cta : !g to !r
      axe.copy %r to %b at cta : !r to !g
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %ten = arith.constant 10.0 : f32
    %junk = arith.constant -1.0 : f32
    %A = memref.alloc() : memref<8xf32>
    %B = memref.alloc() : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f32
      %v = arith.addf %f, %ten : f32
      memref.store %v, %A[%i] : memref<8xf32>
      memref.store %junk, %B[%i] : memref<8xf32>
    }
    call @kernel(%A, %B) : (memref<8xf32>, memref<8xf32>) -> ()
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %B[%c0], %z : memref<8xf32>, vector<8xf32>
    vector.print %v : vector<8xf32>
    memref.dealloc %A : memref<8xf32>
    memref.dealloc %B : memref<8xf32>
    return
  }
}
