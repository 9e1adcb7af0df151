// A partition of two warps hands rows between its warps through shared
// memory: warp w of partition [0, 2) stores row w of X into s, then reads
// row 1 - w back and stores it as row w of Y (Y = X with the rows swapped).
// Partition [2, 3) copies row 2 on its own. No barrier is written:
// axe-insert-barriers places one over the two warps alone
// (axe.partition_barrier, a named barrier of 64 threads), which the third
// warp never reaches. On the CPU and, with races checked, in axe-gpu-run for
// sm_80 and sm_90, every element is compared with the reference.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-insert-barriers | FileCheck %s --check-prefix=BARRIERS
// BARRIERS: axe.partition warps [0, 2)
// BARRIERS: axe.copy
// BARRIERS: axe.partition_barrier
// BARRIERS-NEXT: axe.copy
// BARRIERS: axe.partition warps [2, 3)
// BARRIERS-NOT: axe.partition_barrier
// BARRIERS: axe.barrier at warp
// BARRIERS-NOT: axe.partition_barrier
// The named barrier after the CTA's (0) and the partitions' shared one (1):
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=NVVM
// NVVM: barrier.sync 2, 64;
// CHECK: mismatches: 0

!s2 = !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, shared>
!row = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!grow = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!rrep = !axe.buffer<1x32xf32, #axe.layout<S[(1, 2, 16) : (32, 1, 2@laneid)] + R[2 : 1@laneid]>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @swap_rows(%X: memref<3x32xf32>, %Y: memref<3x32xf32>) {
    %c1 = arith.constant 1 : index
    axe.kernel grid [1] threads 96 {
      %s = axe.alloc : !s2
      %t = axe.alloc : !row
      axe.warp_specialize {
        axe.partition warps [0, 2) {
          %w = axe.axis_id warpid
          %o = arith.subi %c1, %w : index
          %gx = axe.view %X[%w, 0] : memref<3x32xf32> -> !grow
          %mine = axe.slice %s[%w, 0] : !s2 -> !row
          axe.copy %gx to %mine at warp : !grow to !row
          %other = axe.slice %s[%o, 0] : !s2 -> !row
          %r = axe.alloc : !rrep
          axe.copy %other to %r at warp : !row to !rrep
          %gy = axe.view %Y[%w, 0] : memref<3x32xf32> -> !grow
          axe.copy %r to %gy at warp : !rrep to !grow
        }
        axe.partition warps [2, 3) {
          %gx = axe.view %X[2, 0] : memref<3x32xf32> -> !grow
          axe.copy %gx to %t at warp : !grow to !row
          %r = axe.alloc : !rrep
          axe.copy %t to %r at warp : !row to !rrep
          %gy = axe.view %Y[2, 0] : memref<3x32xf32> -> !grow
          axe.copy %r to %gy at warp : !rrep to !grow
        }
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %X = memref.alloc() : memref<3x32xf32>
    %Y = memref.alloc() : memref<3x32xf32>
    scf.for %i = %c0 to %c3 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %a = arith.muli %i, %c32 : index
        %b = arith.addi %a, %j : index
        %bb = arith.index_cast %b : index to i64
        %f = arith.sitofp %bb : i64 to f32
        memref.store %f, %X[%i, %j] : memref<3x32xf32>
      }
    }
    call @swap_rows(%X, %Y) : (memref<3x32xf32>, memref<3x32xf32>) -> ()
    %bad = scf.for %i = %c0 to %c3 step %c1 iter_args(%n = %c0) -> index {
      // Rows 0 and 1 swapped, row 2 kept.
      %lt = arith.cmpi ult, %i, %c2 : index
      %sw = arith.subi %c1, %i : index
      %src = arith.select %lt, %sw, %i : index
      %m = scf.for %j = %c0 to %c32 step %c1 iter_args(%q = %n) -> index {
        %want = memref.load %X[%src, %j] : memref<3x32xf32>
        %got = memref.load %Y[%i, %j] : memref<3x32xf32>
        %ne = arith.cmpf une, %want, %got : f32
        %q1 = arith.addi %q, %c1 : index
        %q2 = arith.select %ne, %q1, %q : index
        scf.yield %q2 : index
      }
      scf.yield %m : index
    }
    vector.print str "mismatches: "
    vector.print %bad : index
    memref.dealloc %X : memref<3x32xf32>
    memref.dealloc %Y : memref<3x32xf32>
    return
  }
}
