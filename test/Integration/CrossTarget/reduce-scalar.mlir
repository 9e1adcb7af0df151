// Reductions over every dim into a scalar (rank-0) target, which the
// verifier accepts as the dropped-dims form: sums, an accumulating max, a
// scalar-schedule sum of a 1-D row and an i32 sum, each printed.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

!src = !axe.buffer<6x10xf32, #axe.layout<S[(6, 10) : (10, 1)]>, global>
!srct = !axe.buffer<6x10xf32, #axe.layout<S[(6, 10) : (1, 6)]>, shared>
!one = !axe.buffer<f32, #axe.layout<S[1 : 1]>, shared>
!out = !axe.buffer<f32, #axe.layout<S[1 : 1]>, global>
!isrc = !axe.buffer<6x10xi32, #axe.layout<S[(6, 10) : (10, 1)]>, global>
!ione = !axe.buffer<i32, #axe.layout<S[1 : 1]>, shared>
!iout = !axe.buffer<i32, #axe.layout<S[1 : 1]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<6x10xf32>, %I: memref<6x10xi32>, %O: memref<4xf32>, %P: memref<i32>) {
    %init = arith.constant 7.5 : f32
    %half = arith.constant 0.5 : f32
    %O0 = memref.subview %O[0] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: 0>>
    %O1 = memref.subview %O[1] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: 1>>
    %O2 = memref.subview %O[2] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: 2>>
    %O3 = memref.subview %O[3] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: 3>>
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<6x10xf32> -> !src
      // O[0] = sum of A (vectorized along the contiguous rows).
      %s0 = axe.alloc : !one
      axe.reduce sum %a into %s0 dims [0, 1] at cta : !src into !one
      // O[1] = max(7.5, max of A) from a column-major copy.
      %t = axe.alloc : !srct
      axe.copy %a to %t at cta : !src to !srct
      %s1 = axe.alloc : !one
      axe.fill %s1, %init at cta : !one
      axe.reduce max %t into %s1 dims [0, 1] at cta {accumulate} : !srct into !one
      // O[2] = 0.5 + sum of row 3 of A by the scalar schedule.
      %r = axe.view %A[3, 0] : memref<6x10xf32> -> !axe.buffer<1x10xf32, #axe.layout<S[(1, 10) : (10, 1)]>, global>
      %s2 = axe.alloc : !one
      axe.fill %s2, %half at cta : !one
      axe.reduce sum %r into %s2 dims [0, 1] at cta {accumulate, schedule = {cpu = "cpu.reduce.elements"}}
          : !axe.buffer<1x10xf32, #axe.layout<S[(1, 10) : (10, 1)]>, global> into !one
      // O[3] = product of A[3][1..4]: 2 * 3 * 4 * 5.
      %p = axe.view %A[3, 1] : memref<6x10xf32> -> !axe.buffer<1x4xf32, #axe.layout<S[(1, 4) : (10, 1)]>, global>
      %s3 = axe.alloc : !one
      axe.reduce prod %p into %s3 dims [0, 1] at cta
          : !axe.buffer<1x4xf32, #axe.layout<S[(1, 4) : (10, 1)]>, global> into !one
      // Each scalar lands in one element of O through a rank-0 view.
      %v0 = axe.view %O0[] : memref<f32, strided<[], offset: 0>> -> !out
      %v1 = axe.view %O1[] : memref<f32, strided<[], offset: 1>> -> !out
      %v2 = axe.view %O2[] : memref<f32, strided<[], offset: 2>> -> !out
      %v3 = axe.view %O3[] : memref<f32, strided<[], offset: 3>> -> !out
      axe.copy %s0 to %v0 at cta : !one to !out
      axe.copy %s1 to %v1 at cta : !one to !out
      axe.copy %s2 to %v2 at cta : !one to !out
      axe.copy %s3 to %v3 at cta : !one to !out
      // P = sum of the i32 matrix I.
      %i = axe.view %I[0, 0] : memref<6x10xi32> -> !isrc
      %si = axe.alloc : !ione
      axe.reduce sum %i into %si dims [0, 1] at cta : !isrc into !ione
      %pv = axe.view %P[] : memref<i32> -> !iout
      axe.copy %si to %pv at cta : !ione to !iout
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c10 = arith.constant 10 : index
    %A = memref.alloc() : memref<6x10xf32>
    %I = memref.alloc() : memref<6x10xi32>
    %O = memref.alloc() : memref<4xf32>
    %P = memref.alloc() : memref<i32>
    // A[i][j] = j + (i == 3), I[i][j] = 10 i + j.
    scf.for %i = %c0 to %c6 step %c1 {
      scf.for %j = %c0 to %c10 step %c1 {
        %is3 = arith.cmpi eq, %i, %c3 : index
        %b = arith.select %is3, %c1, %c0 : index
        %jb = arith.addi %j, %b : index
        %ji = arith.index_cast %jb : index to i64
        %v = arith.sitofp %ji : i64 to f32
        memref.store %v, %A[%i, %j] : memref<6x10xf32>
        %r = arith.muli %i, %c10 : index
        %f = arith.addi %r, %j : index
        %fi = arith.index_cast %f : index to i32
        memref.store %fi, %I[%i, %j] : memref<6x10xi32>
      }
    }
    call @kernel(%A, %I, %O, %P) : (memref<6x10xf32>, memref<6x10xi32>, memref<4xf32>, memref<i32>) -> ()
    // 6 rows of 0..9 (45 each), row 3 one more per element.
    // CHECK: 280
    // CHECK-NEXT: 10
    // CHECK-NEXT: 55.5
    // CHECK-NEXT: 120
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %O[%k] : memref<4xf32>
      vector.print %v : f32
    }
    // 10 * (0 + ... + 5) * 10 + 6 * 45 = 1770.
    // CHECK-NEXT: 1770
    %p = memref.load %P[] : memref<i32>
    vector.print %p : i32
    return
  }
}
