// An in-place update of a shared row, s = c + s, that also yields r = 2 * s
// into a register tile. The register input c and output r are replicated
// over the 4 warps (each warp holds the whole row, one element per lane):
// every holder computes the body for its own r, reading s, and one holder
// per element (warp 0) stores s. The other warps' reads of s must come
// before warp 0's store (they raced with it in the GPU interpreter).
// Y = X + 1 and Z = 2 * (X + 1), every element checked, on the CPU and, with
// races checked, in axe-gpu-run for sm_80 and sm_90.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// CHECK: ( 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32 )
// CHECK-NEXT: ( 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64 )
!g = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!s = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!rc = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (1, 1@laneid)] + R[4 : 1@warpid]>, reg>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<1x32xf32>, %Y: memref<1x32xf32>, %Z: memref<1x32xf32>) {
    axe.kernel grid [1] threads 128 {
      %gx = axe.view %X[0, 0] : memref<1x32xf32> -> !g
      %gy = axe.view %Y[0, 0] : memref<1x32xf32> -> !g
      %gz = axe.view %Z[0, 0] : memref<1x32xf32> -> !g
      %s = axe.alloc : !s
      axe.copy %gx to %s at cta : !g to !s
      %c = axe.alloc : !rc
      %r = axe.alloc : !rc
      %one = arith.constant 1.0 : f32
      axe.fill %c, %one at cta : !rc
      axe.elementwise ins(%c, %s : !rc, !s) outs(%s, %r : !s, !rc) at cta {
      ^bb0(%a: f32, %b: f32):
        %y = arith.addf %a, %b : f32
        %z = arith.addf %y, %y : f32
        axe.yield %y, %z : f32, f32
      }
      axe.copy %s to %gy at cta : !s to !g
      axe.copy %r to %gz at cta : !rc to !g
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %X = memref.alloc() : memref<1x32xf32>
    %Y = memref.alloc() : memref<1x32xf32>
    %Z = memref.alloc() : memref<1x32xf32>
    scf.for %j = %c0 to %c32 step %c1 {
      %jj = arith.index_cast %j : index to i64
      %f = arith.sitofp %jj : i64 to f32
      memref.store %f, %X[%c0, %j] : memref<1x32xf32>
    }
    call @kernel(%X, %Y, %Z) : (memref<1x32xf32>, memref<1x32xf32>, memref<1x32xf32>) -> ()
    %z = arith.constant 0.0 : f32
    %v = vector.transfer_read %Y[%c0, %c0], %z : memref<1x32xf32>, vector<32xf32>
    vector.print %v : vector<32xf32>
    %w = vector.transfer_read %Z[%c0, %c0], %z : memref<1x32xf32>, vector<32xf32>
    vector.print %w : vector<32xf32>
    memref.dealloc %X : memref<1x32xf32>
    memref.dealloc %Y : memref<1x32xf32>
    memref.dealloc %Z : memref<1x32xf32>
    return
  }
}
