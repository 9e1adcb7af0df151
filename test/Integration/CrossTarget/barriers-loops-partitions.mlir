// Hazards axe-insert-barriers used to miss, each with no barrier written:
// @thread_slice: thread t writes shared s[(t + i) mod 64] through a slice
// computed in the loop and reads it back; iteration i + 1's write follows
// thread t + 1's read of iteration i (one SSA value, other memory: a cta
// barrier starts the body). @warp_slice: the same with rows of a shared
// tile per warp. @partition_stage: each one-warp partition of a warp
// specialization stages a row through shared memory into lane-replicated
// registers (a warp barrier inside the partition). On the CPU and, with
// races checked, in axe-gpu-run for sm_80 and sm_90, every element is
// compared with the reference.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The barriers the analysis places:
// RUN: axe-opt %s --axe-insert-barriers | FileCheck %s --check-prefix=BARRIERS
// BARRIERS-LABEL: func.func @thread_slice
// BARRIERS: scf.for
// BARRIERS: axe.barrier at cta
// BARRIERS-NEXT: axe.copy
// BARRIERS-NOT: axe.barrier
// BARRIERS: }
// BARRIERS-LABEL: func.func @warp_slice
// BARRIERS: scf.for
// BARRIERS: axe.barrier at cta
// BARRIERS-NEXT: axe.copy
// BARRIERS: axe.barrier at warp
// BARRIERS-LABEL: func.func @partition_stage
// BARRIERS: axe.partition warps [0, 1)
// BARRIERS: axe.copy
// BARRIERS: axe.barrier at warp
// BARRIERS: axe.partition warps [1, 2)
// BARRIERS: axe.copy
// BARRIERS: axe.barrier at warp

// CHECK: thread_slice mismatches: 0
// CHECK: warp_slice mismatches: 0
// CHECK: partition_stage mismatches: 0

!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!t = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared>
!g1 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>
!s2 = !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, shared>
!row = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!grow = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!rrow = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (1, 1@laneid)]>, reg>
!rrep = !axe.buffer<1x32xf32, #axe.layout<S[(1, 2, 16) : (32, 1, 2@laneid)] + R[2 : 1@laneid]>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
  // B[i][t] = A[(t + i) mod 64], i < 2.
  func.func @thread_slice(%A: memref<64xf32>, %B: memref<128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    axe.kernel grid [1] threads 64 {
      %s = axe.alloc : !s
      %tid = axe.axis_id tx
      scf.for %i = %c0 to %c2 step %c1 {
        %u = arith.addi %tid, %i : index
        %k = arith.remui %u, %c64 : index
        %e = axe.slice %s[%k] : !s -> !t
        %ga = axe.view %A[%k] : memref<64xf32> -> !g1
        axe.copy %ga to %e at thread : !g1 to !t
        %o0 = arith.muli %i, %c64 : index
        %o = arith.addi %o0, %tid : index
        %gb = axe.view %B[%o] : memref<128xf32> -> !g1
        axe.copy %e to %gb at thread : !t to !g1
      }
    }
    return
  }

  // Y[2i + w] = X[2i + (w + i) mod 2], i < 2, through row (w + i) mod 2.
  func.func @warp_slice(%X: memref<4x32xf32>, %Y: memref<4x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    axe.kernel grid [1] threads 64 {
      %s = axe.alloc : !s2
      %w = axe.axis_id warpid
      scf.for %i = %c0 to %c2 step %c1 {
        %u = arith.addi %w, %i : index
        %k = arith.remui %u, %c2 : index
        %row = axe.slice %s[%k, 0] : !s2 -> !row
        %i2 = arith.muli %i, %c2 : index
        %xr = arith.addi %i2, %k : index
        %gx = axe.view %X[%xr, 0] : memref<4x32xf32> -> !grow
        axe.copy %gx to %row at warp : !grow to !row
        %r = axe.alloc : !rrow
        axe.copy %row to %r at warp : !row to !rrow
        %yr = arith.addi %i2, %w : index
        %gy = axe.view %Y[%yr, 0] : memref<4x32xf32> -> !grow
        axe.copy %r to %gy at warp : !rrow to !grow
      }
    }
    return
  }

  // Y = X, each row by its own one-warp partition through shared memory.
  func.func @partition_stage(%X: memref<2x32xf32>, %Y: memref<2x32xf32>) {
    axe.kernel grid [1] threads 64 {
      %s0 = axe.alloc : !row
      %s1 = axe.alloc : !row
      axe.warp_specialize {
        axe.partition warps [0, 1) {
          %gx = axe.view %X[0, 0] : memref<2x32xf32> -> !grow
          axe.copy %gx to %s0 at warp : !grow to !row
          %r = axe.alloc : !rrep
          axe.copy %s0 to %r at warp : !row to !rrep
          %gy = axe.view %Y[0, 0] : memref<2x32xf32> -> !grow
          axe.copy %r to %gy at warp : !rrep to !grow
        }
        axe.partition warps [1, 2) {
          %gx = axe.view %X[1, 0] : memref<2x32xf32> -> !grow
          axe.copy %gx to %s1 at warp : !grow to !row
          %r = axe.alloc : !rrep
          axe.copy %s1 to %r at warp : !row to !rrep
          %gy = axe.view %Y[1, 0] : memref<2x32xf32> -> !grow
          axe.copy %r to %gy at warp : !rrep to !grow
        }
      }
    }
    return
  }

  func.func @count(%n: index, %want: f32, %got: f32) -> index {
    %c1 = arith.constant 1 : index
    %ne = arith.cmpf une, %want, %got : f32
    %n1 = arith.addi %n, %c1 : index
    %r = arith.select %ne, %n1, %n : index
    return %r : index
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %A = memref.alloc() : memref<64xf32>
    %B = memref.alloc() : memref<128xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f32
      memref.store %f, %A[%i] : memref<64xf32>
    }
    call @thread_slice(%A, %B) : (memref<64xf32>, memref<128xf32>) -> ()
    %bad1 = scf.for %i = %c0 to %c128 step %c1 iter_args(%n = %c0) -> index {
      %t = arith.remui %i, %c64 : index
      %it = arith.divui %i, %c64 : index
      %k0 = arith.addi %t, %it : index
      %k = arith.remui %k0, %c64 : index
      %want = memref.load %A[%k] : memref<64xf32>
      %got = memref.load %B[%i] : memref<128xf32>
      %n2 = func.call @count(%n, %want, %got) : (index, f32, f32) -> index
      scf.yield %n2 : index
    }
    vector.print str "thread_slice mismatches: "
    vector.print %bad1 : index

    %X = memref.alloc() : memref<4x32xf32>
    %Y = memref.alloc() : memref<4x32xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %a = arith.muli %i, %c32 : index
        %b = arith.addi %a, %j : index
        %bb = arith.index_cast %b : index to i64
        %f = arith.sitofp %bb : i64 to f32
        memref.store %f, %X[%i, %j] : memref<4x32xf32>
      }
    }
    call @warp_slice(%X, %Y) : (memref<4x32xf32>, memref<4x32xf32>) -> ()
    %bad2 = scf.for %r = %c0 to %c4 step %c1 iter_args(%n = %c0) -> index {
      %i = arith.divui %r, %c2 : index
      %w = arith.remui %r, %c2 : index
      %u = arith.addi %w, %i : index
      %k = arith.remui %u, %c2 : index
      %i2 = arith.muli %i, %c2 : index
      %xr = arith.addi %i2, %k : index
      %m = scf.for %j = %c0 to %c32 step %c1 iter_args(%q = %n) -> index {
        %want = memref.load %X[%xr, %j] : memref<4x32xf32>
        %got = memref.load %Y[%r, %j] : memref<4x32xf32>
        %q2 = func.call @count(%q, %want, %got) : (index, f32, f32) -> index
        scf.yield %q2 : index
      }
      scf.yield %m : index
    }
    vector.print str "warp_slice mismatches: "
    vector.print %bad2 : index

    %P = memref.alloc() : memref<2x32xf32>
    %Q = memref.alloc() : memref<2x32xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %f = memref.load %X[%i, %j] : memref<4x32xf32>
        memref.store %f, %P[%i, %j] : memref<2x32xf32>
      }
    }
    call @partition_stage(%P, %Q) : (memref<2x32xf32>, memref<2x32xf32>) -> ()
    %bad3 = scf.for %i = %c0 to %c2 step %c1 iter_args(%n = %c0) -> index {
      %m = scf.for %j = %c0 to %c32 step %c1 iter_args(%q = %n) -> index {
        %want = memref.load %P[%i, %j] : memref<2x32xf32>
        %got = memref.load %Q[%i, %j] : memref<2x32xf32>
        %q2 = func.call @count(%q, %want, %got) : (index, f32, f32) -> index
        scf.yield %q2 : index
      }
      scf.yield %m : index
    }
    vector.print str "partition_stage mismatches: "
    vector.print %bad3 : index
    return
  }
}
