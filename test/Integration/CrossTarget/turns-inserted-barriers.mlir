// Two warpgroups of one partition take turns (axe.turn_begin/turn_end) in a
// loop, each writing rows of Y in its turn. The analysis needs a barrier
// over the partition between iterations; it placed it inside the turn,
// where only one warpgroup runs, and the kernel deadlocked in axe-gpu-run.
// What a turn touches is now ordered before its axe.turn_begin, and inside
// a turn at most a warpgroup barrier is placed. On the CPU and, with races
// checked, in axe-gpu-run for sm_90 (sm_80 has no warpgroups).
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-insert-barriers | FileCheck %s --check-prefix=BARRIERS
// BARRIERS: scf.for
// BARRIERS: axe.partition_barrier
// BARRIERS-NEXT: axe.turn_begin
// BARRIERS-NOT: axe.partition_barrier
// BARRIERS: axe.turn_end
// CHECK: mismatches: 0
// threads 256, partition [0,8) of two warpgroups taking turns; loop i<2: in its turn warpgroup g
// writes Y rows 8i+4g.. = X rows 8i+4g.. + 1 (global to global, no shared memory).
!g4 = !axe.buffer<4x32xf32, #axe.layout<S[(4, 32) : (32, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%Xf: memref<512xf32>, %Rf: memref<512xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %X = memref.expand_shape %Xf [[0, 1]] output_shape [16, 32] : memref<512xf32> into memref<16x32xf32>
    %R = memref.expand_shape %Rf [[0, 1]] output_shape [16, 32] : memref<512xf32> into memref<16x32xf32>
    axe.kernel grid [1] threads 256 {
      axe.warp_specialize {
        axe.partition warps [0, 8) {
          %g = axe.axis_id wgid
          %r = arith.muli %g, %c4 : index
          %one = arith.constant 1.0 : f32
          scf.for %i = %c0 to %c2 step %c1 {
            %i8 = arith.muli %i, %c8 : index
            %xr = arith.addi %i8, %r : index
            %gx = axe.view %X[%xr, 0] : memref<16x32xf32> -> !g4
            %gy = axe.view %R[%xr, 0] : memref<16x32xf32> -> !g4
            axe.turn_begin
            axe.elementwise ins(%gx : !g4) outs(%gy : !g4) at warpgroup {
            ^bb0(%v: f32):
              %q = arith.addf %v, %one : f32
              axe.yield %q : f32
            }
            axe.turn_end
          }
        }
      }
    }
    return
  }
  func.func @ref(%Xf: memref<512xf32>, %Zf: memref<512xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c512 = arith.constant 512 : index
    %one = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c512 step %c1 {
      %v = memref.load %Xf[%i] : memref<512xf32>
      %q = arith.addf %v, %one : f32
      memref.store %q, %Zf[%i] : memref<512xf32>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c101 = arith.constant 101 : index
    %nx = arith.constant 512 : index
    %ny = arith.constant 512 : index
    %m1 = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<512xf32>
    %Y = memref.alloc() : memref<512xf32>
    %Z = memref.alloc() : memref<512xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %a = arith.muli %i, %c7 : index
      %m = arith.remui %a, %c101 : index
      %mi = arith.index_cast %m : index to i64
      %v = arith.sitofp %mi : i64 to f32
      memref.store %v, %X[%i] : memref<512xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %m1, %Y[%i] : memref<512xf32>
      memref.store %m1, %Z[%i] : memref<512xf32>
    }
    call @kernel(%X, %Y) : (memref<512xf32>, memref<512xf32>) -> ()
    call @ref(%X, %Z) : (memref<512xf32>, memref<512xf32>) -> ()
    %bad = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %c0) -> index {
      %g = memref.load %Y[%i] : memref<512xf32>
      %w = memref.load %Z[%i] : memref<512xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %n1 = arith.addi %n, %c1 : index
      %r = arith.select %ne, %n1, %n : index
      scf.yield %r : index
    }
    vector.print str "mismatches: "
    vector.print %bad : index
    %first = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %ny) -> index {
      %g = memref.load %Y[%i] : memref<512xf32>
      %w = memref.load %Z[%i] : memref<512xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %lt = arith.cmpi ult, %i, %n : index
      %both = arith.andi %ne, %lt : i1
      %r = arith.select %both, %i, %n : index
      scf.yield %r : index
    }
    %has = arith.cmpi ult, %first, %ny : index
    scf.if %has {
      %g = memref.load %Y[%first] : memref<512xf32>
      %w = memref.load %Z[%first] : memref<512xf32>
      vector.print str "first bad index/got/want: "
      vector.print %first : index
      vector.print %g : f32
      vector.print %w : f32
    }
    return
  }
}
