// RUN: axe-opt %s --axe-to-nvvm -split-input-file | FileCheck %s

// The SIMT copies move up to 16 bytes per access (vectors, cp.async) where
// the layouts make the elements consecutive; the accesses must also start
// on a multiple of their size. A view one column into its memref starts 4
// bytes past a 16-byte boundary, so its copy goes element by element
// (cp.async of 4 bytes).
// CHECK-LABEL: gpu.func @misaligned_view_kernel
// CHECK-NOT: vector.load
// CHECK: nvgpu.device_async_copy {{.*}}, 1 :
// CHECK: gpu.return
!g = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (64, 1)]>, global>
!s = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (32, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @misaligned_view(%X: memref<16x64xf32>) {
    axe.kernel grid [1] threads 32 {
      %g = axe.view %X[0, 1] : memref<16x64xf32> -> !g
      %s = axe.alloc : !s
      axe.copy %g to %s at cta : !g to !s
    }
    return
  }
}

// -----

// Run-time starts that are multiples of 4 elements (a loop of step 32, a
// block index times 32) keep 16-byte cp.async copies; a start of k + 2
// halves them to 8 bytes.
// CHECK-LABEL: gpu.func @aligned_starts_kernel
// CHECK: nvgpu.device_async_copy {{.*}}, 4 :
// CHECK: nvgpu.device_async_copy {{.*}}, 2 :
!g = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (128, 1)]>, global>
!s = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (32, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @aligned_starts(%X: memref<64x128xf32>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c96 = arith.constant 96 : index
    axe.kernel grid [2] threads 32 {
      %bx = axe.axis_id bx
      %row = arith.muli %bx, %c32 : index
      %s = axe.alloc : !s
      scf.for %k = %c0 to %c96 step %c32 {
        %g = axe.view %X[%row, %k] : memref<64x128xf32> -> !g
        axe.copy %g to %s at cta : !g to !s
        axe.barrier at cta
        %k2 = arith.addi %k, %c2 : index
        %h = axe.view %X[%row, %k2] : memref<64x128xf32> -> !g
        axe.copy %h to %s at cta : !g to !s
        axe.barrier at cta
      }
    }
    return
  }
}

// -----

// Global to global (no cp.async): the proven 16-byte starts give the vector
// accesses their alignment, so LLVM emits ld/st.global.v4 instead of four
// 4-byte accesses.
// CHECK-LABEL: gpu.func @vector_copy_kernel
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<{{.*}}>, vector<4xf32>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<{{.*}}>, vector<4xf32>
!g = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (64, 1)]>, global>
!g2 = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (32, 1)]>, global>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @vector_copy(%X: memref<16x64xf32>, %Y: memref<16x32xf32>) {
    axe.kernel grid [1] threads 32 {
      %g = axe.view %X[0, 32] : memref<16x64xf32> -> !g
      %h = axe.view %Y[0, 0] : memref<16x32xf32> -> !g2
      axe.copy %g to %h at cta : !g to !g2
    }
    return
  }
}
