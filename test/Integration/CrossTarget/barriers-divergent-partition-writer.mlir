// Inside a partition of two warps, warp 1 alone writes a shared buffer at
// warp scope; both warps then read it: a barrier over the partition, not
// a warp one. GPU only (the CPU refuses control flow on a thread axis);
// races checked.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-insert-barriers | FileCheck %s --check-prefix=BARRIERS
// BARRIERS: axe.partition_barrier
// CHECK: mismatches: 0
// threads 96, partition [1,3): only warp 1 fills s from X (scf.if on warpid), then both
// partition warps copy s to their row of Y.
!s32 = !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, shared>
!g32 = !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<32xf32>, %Y: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    axe.kernel grid [1] threads 96 {
      %s = axe.alloc : !s32
      axe.warp_specialize {
        axe.partition warps [1, 3) {
          %w = axe.axis_id warpid
          %is1 = arith.cmpi eq, %w, %c1 : index
          scf.if %is1 {
            %gx = axe.view %X[0] : memref<32xf32> -> !g32
            axe.copy %gx to %s at warp : !g32 to !s32
          }
          %k = arith.subi %w, %c1 : index
          %o = arith.muli %k, %c32 : index
          %gy = axe.view %Y[%o] : memref<64xf32> -> !g32
          axe.copy %s to %gy at warp : !s32 to !g32
        }
      }
    }
    return
  }
  func.func @ref(%X: memref<32xf32>, %Z: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {
      %j = arith.remui %i, %c32 : index
      %v = memref.load %X[%j] : memref<32xf32>
      memref.store %v, %Z[%i] : memref<64xf32>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c101 = arith.constant 101 : index
    %nx = arith.constant 32 : index
    %ny = arith.constant 64 : index
    %m1 = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<32xf32>
    %Y = memref.alloc() : memref<64xf32>
    %Z = memref.alloc() : memref<64xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %a = arith.muli %i, %c7 : index
      %m = arith.remui %a, %c101 : index
      %mi = arith.index_cast %m : index to i64
      %v = arith.sitofp %mi : i64 to f32
      memref.store %v, %X[%i] : memref<32xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %m1, %Y[%i] : memref<64xf32>
      memref.store %m1, %Z[%i] : memref<64xf32>
    }
    call @kernel(%X, %Y) : (memref<32xf32>, memref<64xf32>) -> ()
    call @ref(%X, %Z) : (memref<32xf32>, memref<64xf32>) -> ()
    %bad = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %c0) -> index {
      %g = memref.load %Y[%i] : memref<64xf32>
      %w = memref.load %Z[%i] : memref<64xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %n1 = arith.addi %n, %c1 : index
      %r = arith.select %ne, %n1, %n : index
      scf.yield %r : index
    }
    vector.print str "mismatches: "
    vector.print %bad : index
    %first = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %ny) -> index {
      %g = memref.load %Y[%i] : memref<64xf32>
      %w = memref.load %Z[%i] : memref<64xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %lt = arith.cmpi ult, %i, %n : index
      %both = arith.andi %ne, %lt : i1
      %r = arith.select %both, %i, %n : index
      scf.yield %r : index
    }
    %has = arith.cmpi ult, %first, %ny : index
    scf.if %has {
      %g = memref.load %Y[%first] : memref<64xf32>
      %w = memref.load %Z[%first] : memref<64xf32>
      vector.print str "first bad index/got/want: "
      vector.print %first : index
      vector.print %g : f32
      vector.print %w : f32
    }
    return
  }
}
