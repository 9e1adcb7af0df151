// Warp reductions whose reduced lanes do not start at a multiple of the
// xor masks' span. nvvm.reduce.shuffle took its masks from the strides of
// the reduced lane digit alone, so its butterfly paired lanes across the
// groups that hold a row: 8 elements on lanes 3..10 (mask 1 pairs lane 3
// with lane 2, which holds nothing), a replica at lane stride 3 (mask 2
// pairs lane 3 with lane 1), a column on lanes 8..23 (mask 8 pairs lane 8
// with lane 0). The sums and maxima were wrong on sm_80 and sm_90 and right
// on the CPU. The schedule now checks, element by element, that every
// thread whose result is used combines each element of its row once, and
// declines otherwise (the staged reduction takes over). Where only the
// first replica stores to memory, its lanes are aligned and the shuffles
// stay. Every result is checked against a reference computed in main; the
// replicated register target is read back from lanes of both replicas.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=NVVM
// NVVM-LABEL: gpu.func @offset_kernel
// NVVM-NOT: gpu.shuffle
// NVVM-LABEL: gpu.func @replica_kernel
// NVVM-NOT: gpu.shuffle
// NVVM-LABEL: gpu.func @column_max_kernel
// NVVM-NOT: gpu.shuffle
// NVVM-NOT: nvvm.redux.sync
// NVVM-LABEL: gpu.func @first_replica_kernel
// NVVM-COUNT-3: gpu.shuffle  xor

// CHECK: offset sum mismatches: 0
// CHECK: replica sum mismatches: 0
// CHECK: column max mismatches: 0
// CHECK: first replica sum mismatches: 0

!row = !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, global>
!scalar = !axe.buffer<f32, #axe.layout<S[1 : 1]>, global>
// Element i on lane 3 + i.
!offset = !axe.buffer<8xf32, #axe.layout<S[8 : 1@laneid] + 3@laneid>, reg>
// Element i on lanes 2i and 2i + 3.
!replica = !axe.buffer<8xf32, #axe.layout<S[8 : 2@laneid] + R[2 : 3@laneid]>, reg>
!replicaSum = !axe.buffer<f32, #axe.layout<S[1 : 1] + R[(8, 2) : (2@laneid, 3@laneid)]>, reg>
!lane2 = !axe.buffer<f32, #axe.layout<S[1 : 1] + 2@laneid>, reg>
!lane3 = !axe.buffer<f32, #axe.layout<S[1 : 1] + 3@laneid>, reg>
!lane14 = !axe.buffer<f32, #axe.layout<S[1 : 1] + 14@laneid>, reg>
!lane17 = !axe.buffer<f32, #axe.layout<S[1 : 1] + 17@laneid>, reg>
!grid = !axe.buffer<16x3xi32, #axe.layout<S[(16, 3) : (3, 1)]>, global>
// Row r of the 16x3 tile on lane 8 + r.
!column = !axe.buffer<16x3xi32, #axe.layout<S[(16, 3) : (1@laneid, 1)] + 8@laneid>, reg>
!columnMax = !axe.buffer<3xi32, #axe.layout<S[3 : 1] + R[16 : 1@laneid] + 8@laneid>, reg>
!maxima = !axe.buffer<3xi32, #axe.layout<S[3 : 1]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @offset(%A: memref<8xf32>, %B: memref<f32>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0] : memref<8xf32> -> !row
      %b = axe.view %B[] : memref<f32> -> !scalar
      %x = axe.alloc : !offset
      axe.copy %a to %x at warp : !row to !offset
      axe.reduce sum %x into %b dims [0] at warp : !offset into !scalar
    }
    return
  }

  // The sum as lanes 2 and 14 (first replica), 3 and 17 (second) hold it.
  func.func @replica(%A: memref<8xf32>, %B2: memref<f32>, %B3: memref<f32>,
                     %B14: memref<f32>, %B17: memref<f32>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0] : memref<8xf32> -> !row
      %x = axe.alloc : !replica
      axe.copy %a to %x at warp : !row to !replica
      %t = axe.alloc : !replicaSum
      axe.reduce sum %x into %t dims [0] at warp : !replica into !replicaSum
      %u2 = axe.alloc : !lane2
      %u3 = axe.alloc : !lane3
      %u14 = axe.alloc : !lane14
      %u17 = axe.alloc : !lane17
      axe.elementwise ins(%t : !replicaSum) outs(%u2 : !lane2) at warp {
      ^bb0(%v: f32):
        axe.yield %v : f32
      }
      axe.elementwise ins(%t : !replicaSum) outs(%u3 : !lane3) at warp {
      ^bb0(%v: f32):
        axe.yield %v : f32
      }
      axe.elementwise ins(%t : !replicaSum) outs(%u14 : !lane14) at warp {
      ^bb0(%v: f32):
        axe.yield %v : f32
      }
      axe.elementwise ins(%t : !replicaSum) outs(%u17 : !lane17) at warp {
      ^bb0(%v: f32):
        axe.yield %v : f32
      }
      %b2 = axe.view %B2[] : memref<f32> -> !scalar
      %b3 = axe.view %B3[] : memref<f32> -> !scalar
      %b14 = axe.view %B14[] : memref<f32> -> !scalar
      %b17 = axe.view %B17[] : memref<f32> -> !scalar
      axe.copy %u2 to %b2 at warp : !lane2 to !scalar
      axe.copy %u3 to %b3 at warp : !lane3 to !scalar
      axe.copy %u14 to %b14 at warp : !lane14 to !scalar
      axe.copy %u17 to %b17 at warp : !lane17 to !scalar
    }
    return
  }

  // i32 column maxima: a warp-wide exchange would be one redux.sync.
  func.func @column_max(%A: memref<16x3xi32>, %B: memref<3xi32>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<16x3xi32> -> !grid
      %b = axe.view %B[0] : memref<3xi32> -> !maxima
      %x = axe.alloc : !column
      axe.copy %a to %x at warp : !grid to !column
      %t = axe.alloc : !columnMax
      axe.reduce max %x into %t dims [0] at warp : !column into !columnMax
      axe.copy %t to %b at warp : !columnMax to !maxima
    }
    return
  }

  // Into memory only the first replica (lanes 0, 2, ..., 14) stores.
  func.func @first_replica(%A: memref<8xf32>, %B: memref<f32>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0] : memref<8xf32> -> !row
      %b = axe.view %B[] : memref<f32> -> !scalar
      %x = axe.alloc : !replica
      axe.copy %a to %x at warp : !row to !replica
      axe.reduce sum %x into %b dims [0] at warp : !replica into !scalar
    }
    return
  }

  // A[i] = (7 i + 3) mod 11 - 5: small integers, so every order of the sum
  // is exact.
  func.func @fill(%A: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %k7 = arith.constant 7 : i64
    %k3 = arith.constant 3 : i64
    %k11 = arith.constant 11 : i64
    %k5 = arith.constant 5 : i64
    scf.for %i = %c0 to %c8 step %c1 {
      %w = arith.index_cast %i : index to i64
      %m = arith.muli %w, %k7 : i64
      %p = arith.addi %m, %k3 : i64
      %r = arith.remsi %p, %k11 : i64
      %s = arith.subi %r, %k5 : i64
      %f = arith.sitofp %s : i64 to f32
      memref.store %f, %A[%i] : memref<8xf32>
    }
    return
  }

  func.func @sum(%A: memref<8xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %A[%i] : memref<8xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    return %s : f32
  }

  // 1 where B[] is not `want`.
  func.func @differs(%B: memref<f32>, %want: f32) -> i64 {
    %got = memref.load %B[] : memref<f32>
    %ne = arith.cmpf une, %got, %want : f32
    %n = arith.extui %ne : i1 to i64
    return %n : i64
  }

  func.func @main() {
    %junk = arith.constant -1000.0 : f32
    %A = memref.alloc() : memref<8xf32>
    call @fill(%A) : (memref<8xf32>) -> ()
    %want = call @sum(%A) : (memref<8xf32>) -> f32

    %B = memref.alloc() : memref<f32>
    memref.store %junk, %B[] : memref<f32>
    call @offset(%A, %B) : (memref<8xf32>, memref<f32>) -> ()
    %n0 = call @differs(%B, %want) : (memref<f32>, f32) -> i64
    vector.print str "offset sum mismatches: "
    vector.print %n0 : i64

    %B2 = memref.alloc() : memref<f32>
    %B3 = memref.alloc() : memref<f32>
    %B14 = memref.alloc() : memref<f32>
    %B17 = memref.alloc() : memref<f32>
    memref.store %junk, %B2[] : memref<f32>
    memref.store %junk, %B3[] : memref<f32>
    memref.store %junk, %B14[] : memref<f32>
    memref.store %junk, %B17[] : memref<f32>
    call @replica(%A, %B2, %B3, %B14, %B17)
        : (memref<8xf32>, memref<f32>, memref<f32>, memref<f32>, memref<f32>) -> ()
    %r2 = call @differs(%B2, %want) : (memref<f32>, f32) -> i64
    %r3 = call @differs(%B3, %want) : (memref<f32>, f32) -> i64
    %r14 = call @differs(%B14, %want) : (memref<f32>, f32) -> i64
    %r17 = call @differs(%B17, %want) : (memref<f32>, f32) -> i64
    %r23 = arith.addi %r2, %r3 : i64
    %r1417 = arith.addi %r14, %r17 : i64
    %n1 = arith.addi %r23, %r1417 : i64
    vector.print str "replica sum mismatches: "
    vector.print %n1 : i64

    // G[r][c] = (37 (3 r + c) + 5) mod 1001 - 500; M[c] = its column max.
    %G = memref.alloc() : memref<16x3xi32>
    %M = memref.alloc() : memref<3xi32>
    %E = memref.alloc() : memref<3xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %k3 = arith.constant 3 : i64
    %k37 = arith.constant 37 : i64
    %k5 = arith.constant 5 : i64
    %k1001 = arith.constant 1001 : i64
    %k500 = arith.constant 500 : i64
    %low = arith.constant -2147483648 : i32
    %ijunk = arith.constant -7 : i32
    scf.for %c = %c0 to %c3 step %c1 {
      memref.store %low, %E[%c] : memref<3xi32>
      memref.store %ijunk, %M[%c] : memref<3xi32>
    }
    scf.for %r = %c0 to %c16 step %c1 {
      scf.for %c = %c0 to %c3 step %c1 {
        %rr = arith.index_cast %r : index to i64
        %cc = arith.index_cast %c : index to i64
        %row3 = arith.muli %rr, %k3 : i64
        %f = arith.addi %row3, %cc : i64
        %m = arith.muli %f, %k37 : i64
        %p = arith.addi %m, %k5 : i64
        %q = arith.remsi %p, %k1001 : i64
        %s = arith.subi %q, %k500 : i64
        %v = arith.trunci %s : i64 to i32
        memref.store %v, %G[%r, %c] : memref<16x3xi32>
        %e = memref.load %E[%c] : memref<3xi32>
        %x = arith.maxsi %e, %v : i32
        memref.store %x, %E[%c] : memref<3xi32>
      }
    }
    call @column_max(%G, %M) : (memref<16x3xi32>, memref<3xi32>) -> ()
    %zero = arith.constant 0 : i64
    %n2 = scf.for %c = %c0 to %c3 step %c1 iter_args(%k = %zero) -> (i64) {
      %got = memref.load %M[%c] : memref<3xi32>
      %exp = memref.load %E[%c] : memref<3xi32>
      %ne = arith.cmpi ne, %got, %exp : i32
      %inc = arith.extui %ne : i1 to i64
      %k2 = arith.addi %k, %inc : i64
      scf.yield %k2 : i64
    }
    vector.print str "column max mismatches: "
    vector.print %n2 : i64

    %F = memref.alloc() : memref<f32>
    memref.store %junk, %F[] : memref<f32>
    call @first_replica(%A, %F) : (memref<8xf32>, memref<f32>) -> ()
    %n3 = call @differs(%F, %want) : (memref<f32>, f32) -> i64
    vector.print str "first replica sum mismatches: "
    vector.print %n3 : i64
    return
  }
}
