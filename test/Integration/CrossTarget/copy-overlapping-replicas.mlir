// A register column held by threads whose coordinates overlap: element d of
// each 12-row half lives on threads tx = 2 d + 3 r (r the replica digit)
// and twice in each thread's registers (a replica on the register axis).
// The digits of tx cannot be found by division (strides 2 and 3 over
// extents 2), so the per-thread view searches the four sums. The column
// is copied in and out, and scaled by an elementwise op into global memory,
// one holder of each element storing it. B = A and C = 3 A, every element
// checked on the CPU and, with races checked, in axe-gpu-run for sm_80 and
// sm_90.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// CHECK: copy mismatches: 0
// CHECK: elementwise mismatches: 0

!g = !axe.buffer<24x1xf32, #axe.layout<S[(24, 1) : (1, 1)]>, global>
!r = !axe.buffer<24x1xf32, #axe.layout<S[(12, 2, 1) : (1, 2@tx, 12)] + R[(2, 2) : (3@tx, 12)] + 7>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<24x1xf32>, %B: memref<24x1xf32>, %C: memref<24x1xf32>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<24x1xf32> -> !g
      %b = axe.view %B[0, 0] : memref<24x1xf32> -> !g
      %c = axe.view %C[0, 0] : memref<24x1xf32> -> !g
      %r = axe.alloc : !r
      axe.copy %a to %r at cta : !g to !r
      axe.copy %r to %b at cta : !r to !g
      axe.elementwise ins(%r : !r) outs(%c : !g) at cta {
      ^bb0(%x: f32):
        %three = arith.constant 3.0 : f32
        %y = arith.mulf %x, %three : f32
        axe.yield %y : f32
      }
    }
    return
  }

  func.func @mismatches(%X: memref<24x1xf32>, %Y: memref<24x1xf32>, %scale: f32) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c24 = arith.constant 24 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c24 step %c1 iter_args(%k = %zero) -> (i64) {
      %x = memref.load %X[%i, %c0] : memref<24x1xf32>
      %y = memref.load %Y[%i, %c0] : memref<24x1xf32>
      %w = arith.mulf %x, %scale : f32
      %ne = arith.cmpf une, %w, %y : f32
      %inc = arith.select %ne, %one, %zero : i64
      %k2 = arith.addi %k, %inc : i64
      scf.yield %k2 : i64
    }
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c24 = arith.constant 24 : index
    %one = arith.constant 1.0 : f32
    %three = arith.constant 3.0 : f32
    %junk = arith.constant -1000.0 : f32
    %A = memref.alloc() : memref<24x1xf32>
    %B = memref.alloc() : memref<24x1xf32>
    %C = memref.alloc() : memref<24x1xf32>
    scf.for %i = %c0 to %c24 step %c1 {
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f32
      %ten = arith.constant 10.0 : f32
      %v = arith.subf %f, %ten : f32
      memref.store %v, %A[%i, %c0] : memref<24x1xf32>
      memref.store %junk, %B[%i, %c0] : memref<24x1xf32>
      memref.store %junk, %C[%i, %c0] : memref<24x1xf32>
    }
    call @kernel(%A, %B, %C) : (memref<24x1xf32>, memref<24x1xf32>, memref<24x1xf32>) -> ()
    %n = call @mismatches(%A, %B, %one) : (memref<24x1xf32>, memref<24x1xf32>, f32) -> i64
    vector.print str "copy mismatches: "
    vector.print %n : i64
    %m = call @mismatches(%A, %C, %three) : (memref<24x1xf32>, memref<24x1xf32>, f32) -> i64
    vector.print str "elementwise mismatches: "
    vector.print %m : i64
    return
  }
}
