// A 1 x 37 register tile at warp scope: 37 elements have no runs that
// divide evenly among a warp's 32 lanes, so the copy's proposal is a layout
// on no thread axis, one thread's own buffer, which an operator at warp
// scope may not own. Inference used to refuse the kernel; when nothing else
// runs it, it now also tries the proposals replicated over the scope's
// threads (every lane holds all 37 elements). B = A + A, every element
// checked on the CPU and lane by lane in axe-gpu-run.
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=INFER
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// INFER: axe.alloc : !axe.buffer<1x37xf32, #axe.layout<S[37 : 1]>, shared>
// INFER: axe.alloc : !axe.buffer<1x37xf32, #axe.layout<S[37 : 1] + R[32 : 1@laneid]>, reg>
// INFER: axe.alloc : !axe.buffer<1x37xf32, #axe.layout<S[37 : 1] + R[32 : 1@laneid]>, reg>
// CHECK: mismatches: 0

!g = !axe.buffer<1x37xf32, #axe.layout<S[(1, 37) : (37, 1)]>, global>
!s = !axe.buffer<1x37xf32, ?, shared>
!r = !axe.buffer<1x37xf32, ?, reg>

module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @kernel(%A: memref<1x37xf32>, %B: memref<1x37xf32>) {
    axe.kernel grid [1] threads 32 {
      %gA = axe.view %A[0, 0] : memref<1x37xf32> -> !g
      %gB = axe.view %B[0, 0] : memref<1x37xf32> -> !g
      %s = axe.alloc : !s
      %r = axe.alloc : !r
      %r2 = axe.alloc : !r
      axe.copy %gA to %s at warp : !g to !s
      axe.copy %s to %r at warp : !s to !r
      axe.elementwise ins(%r, %r : !r, !r) outs(%r2 : !r) at warp {
      ^bb0(%x: f32, %y: f32):
        %z = arith.addf %x, %y : f32
        axe.yield %z : f32
      }
      axe.copy %r2 to %gB at warp : !r to !g
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %c37 = arith.constant 37 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %nan = arith.constant 0x7FC00000 : f32
    %f5 = arith.constant 5.0 : f32
    %A = memref.alloc() : memref<1x37xf32>
    %B = memref.alloc() : memref<1x37xf32>
    // A[0][j] = (7 j + 3) % 11 - 5; B starts as NaN.
    scf.for %j = %c0 to %c37 step %c1 {
      %t = arith.muli %j, %c7 : index
      %c3 = arith.constant 3 : index
      %u = arith.addi %t, %c3 : index
      %w = arith.remui %u, %c11 : index
      %x = arith.index_cast %w : index to i64
      %y = arith.sitofp %x : i64 to f32
      %v = arith.subf %y, %f5 : f32
      memref.store %v, %A[%c0, %j] : memref<1x37xf32>
      memref.store %nan, %B[%c0, %j] : memref<1x37xf32>
    }
    call @kernel(%A, %B) : (memref<1x37xf32>, memref<1x37xf32>) -> ()
    %bad = scf.for %j = %c0 to %c37 step %c1 iter_args(%n = %zi) -> (i64) {
      %a = memref.load %A[%c0, %j] : memref<1x37xf32>
      %want = arith.addf %a, %a : f32
      %got = memref.load %B[%c0, %j] : memref<1x37xf32>
      %ne = arith.cmpf une, %got, %want : f32
      %inc = arith.select %ne, %one, %zi : i64
      %n2 = arith.addi %n, %inc : i64
      scf.yield %n2 : i64
    }
    vector.print str "mismatches: "
    vector.print %bad : i64
    memref.dealloc %A : memref<1x37xf32>
    memref.dealloc %B : memref<1x37xf32>
    return
  }
}
