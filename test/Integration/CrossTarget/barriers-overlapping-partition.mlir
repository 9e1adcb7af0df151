// The overlapping per-warp slices of barriers-overlapping-instances.mlir
// inside a partition of two warps: the barrier over the partition's warps
// (axe.partition_barrier) at the start of each iteration.
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
// BARRIERS: scf.for
// BARRIERS: axe.partition_barrier
// BARRIERS-NEXT: axe.copy
// CHECK: mismatches: 0
// threads 96, partition [1,3) (2 warps): like k01 inside a partition. Local k = w-1:
// Sk = s[32k, +64); loop i<2: E = Sk[32i,+32) = s[32(k+i),+32); X row 2i+k -> E; E -> regs -> Y row.
!s96 = !axe.buffer<96xf32, #axe.layout<S[96 : 1]>, shared>
!s64 = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!s32 = !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, shared>
!g32 = !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, global>
!r32 = !axe.buffer<32xf32, #axe.layout<S[32 : 1@laneid]>, reg>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<128xf32>, %Y: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    axe.kernel grid [1] threads 96 {
      %s = axe.alloc : !s96
      axe.warp_specialize {
        axe.partition warps [1, 3) {
          %w = axe.axis_id warpid
          %k = arith.subi %w, %c1 : index
          %o = arith.muli %k, %c32 : index
          %sw = axe.slice %s[%o] : !s96 -> !s64
          %acc = axe.alloc : !r32
          %zero = arith.constant 0.0 : f32
          axe.fill %acc, %zero at warp : !r32
          scf.for %i = %c0 to %c2 step %c1 {
            %io = arith.muli %i, %c32 : index
            %e = axe.slice %sw[%io] : !s64 -> !s32
            %i2 = arith.muli %i, %c2 : index
            %row = arith.addi %i2, %k : index
            %ro = arith.muli %row, %c32 : index
            %gx = axe.view %X[%ro] : memref<128xf32> -> !g32
            axe.copy %gx to %e at warp : !g32 to !s32
            axe.elementwise ins(%e, %acc : !s32, !r32) outs(%acc : !r32) at warp {
            ^bb0(%a: f32, %b: f32):
              %q = arith.addf %a, %b : f32
              axe.yield %q : f32
            }
          }
          %gy = axe.view %Y[%o] : memref<64xf32> -> !g32
          axe.copy %acc to %gy at warp : !r32 to !g32
        }
      }
    }
    return
  }
  func.func @ref(%X: memref<128xf32>, %Z: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %X[%i] : memref<128xf32>
      %j = arith.addi %i, %c64 : index
      %u = memref.load %X[%j] : memref<128xf32>
      %q = arith.addf %v, %u : f32
      memref.store %q, %Z[%i] : memref<64xf32>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c101 = arith.constant 101 : index
    %nx = arith.constant 128 : index
    %ny = arith.constant 64 : index
    %m1 = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<128xf32>
    %Y = memref.alloc() : memref<64xf32>
    %Z = memref.alloc() : memref<64xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %a = arith.muli %i, %c7 : index
      %m = arith.remui %a, %c101 : index
      %mi = arith.index_cast %m : index to i64
      %v = arith.sitofp %mi : i64 to f32
      memref.store %v, %X[%i] : memref<128xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %m1, %Y[%i] : memref<64xf32>
      memref.store %m1, %Z[%i] : memref<64xf32>
    }
    call @kernel(%X, %Y) : (memref<128xf32>, memref<64xf32>) -> ()
    call @ref(%X, %Z) : (memref<128xf32>, memref<64xf32>) -> ()
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
