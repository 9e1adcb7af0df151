// axe.gemm at mesh<dx = 1, dy = 2>: an axis of extent 1 holds every operand
// whole and is skipped. Rows of A split over dy with B replicated (no
// communication), then K split over dy with C replicated (an all-reduce).
// Every element of C is compared with a reference computed on the rank.
// REQUIRES: mpi
// RUN: axe-mpirun -n 2 --timeout 120 %s | FileCheck %s

// CHECK-DAG: [0] mismatches: 0 0
// CHECK-DAG: [1] mismatches: 0 0

#a = #axe.layout<S[(2, 4, 4) : (1@dy, 4, 1)]>
#b = #axe.layout<S[(4, 6) : (6, 1)] + R[2 : 1@dy]>
#c = #axe.layout<S[(2, 4, 6) : (1@dy, 6, 1)]>
#ak = #axe.layout<S[(4, 2, 4) : (4, 1@dy, 1)]>
#bk = #axe.layout<S[(2, 4, 6) : (1@dy, 6, 1)]>
#cr = #axe.layout<S[(4, 6) : (6, 1)] + R[2 : 1@dy]>

module {
  func.func @rows(%A: memref<4x4xf32>, %B: memref<4x6xf32>, %C: memref<4x6xf32>) {
    axe.kernel {
      %a = axe.view %A[0, 0] : memref<4x4xf32> -> !axe.buffer<8x4xf32, #a, global>
      %b = axe.view %B[0, 0] : memref<4x6xf32> -> !axe.buffer<4x6xf32, #b, global>
      %c = axe.view %C[0, 0] : memref<4x6xf32> -> !axe.buffer<8x6xf32, #c, global>
      axe.gemm %a, %b into %c at mesh<dx = 1, dy = 2> {zero_init}
          : !axe.buffer<8x4xf32, #a, global>, !axe.buffer<4x6xf32, #b, global> into !axe.buffer<8x6xf32, #c, global>
    }
    return
  }
  func.func @splitK(%A: memref<4x4xf32>, %B: memref<4x6xf32>, %C: memref<4x6xf32>) {
    axe.kernel {
      %a = axe.view %A[0, 0] : memref<4x4xf32> -> !axe.buffer<4x8xf32, #ak, global>
      %b = axe.view %B[0, 0] : memref<4x6xf32> -> !axe.buffer<8x6xf32, #bk, global>
      %c = axe.view %C[0, 0] : memref<4x6xf32> -> !axe.buffer<4x6xf32, #cr, global>
      axe.gemm %a, %b into %c at mesh<dx = 1, dy = 2> {zero_init}
          : !axe.buffer<4x8xf32, #ak, global>, !axe.buffer<8x6xf32, #bk, global> into !axe.buffer<4x6xf32, #cr, global>
    }
    return
  }

  // a(i, k) = i + 2 k - 3, b(k, j) = k - j + 1 (small integers: exact in f32).
  func.func @av(%i: index, %k: index) -> f32 {
    %k2 = arith.addi %k, %k : index
    %s = arith.addi %i, %k2 : index
    %si = arith.index_cast %s : index to i64
    %c3 = arith.constant 3 : i64
    %t = arith.subi %si, %c3 : i64
    %v = arith.sitofp %t : i64 to f32
    return %v : f32
  }
  func.func @bv(%k: index, %j: index) -> f32 {
    %ki = arith.index_cast %k : index to i64
    %ji = arith.index_cast %j : index to i64
    %d = arith.subi %ki, %ji : i64
    %c1 = arith.constant 1 : i64
    %t = arith.addi %d, %c1 : i64
    %v = arith.sitofp %t : i64 to f32
    return %v : f32
  }
  // Mismatches of C (4x6) against rows i0 + i of a x b over K = kn.
  func.func @check(%C: memref<4x6xf32>, %i0: index, %kn: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %zero = arith.constant 0.0 : f32
    %bad = scf.for %i = %c0 to %c4 step %c1 iter_args(%b0 = %c0) -> index {
      %r = scf.for %j = %c0 to %c6 step %c1 iter_args(%b1 = %b0) -> index {
        %gi = arith.addi %i0, %i : index
        %want = scf.for %k = %c0 to %kn step %c1 iter_args(%acc = %zero) -> f32 {
          %x = func.call @av(%gi, %k) : (index, index) -> f32
          %y = func.call @bv(%k, %j) : (index, index) -> f32
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %got = memref.load %C[%i, %j] : memref<4x6xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %n = arith.addi %b1, %c1 : index
        %b2 = arith.select %ne, %n, %b1 : index
        scf.yield %b2 : index
      }
      scf.yield %r : index
    }
    return %bad : index
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %r32 = mpi.comm_rank(%world) : i32
    %dy = arith.index_cast %r32 : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %dy4 = arith.muli %dy, %c4 : index
    %A = memref.alloc() : memref<4x4xf32>
    %B = memref.alloc() : memref<4x6xf32>
    %C = memref.alloc() : memref<4x6xf32>
    // Rows: A rows 4 dy + i, all of B.
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %gi = arith.addi %dy4, %i : index
        %v = func.call @av(%gi, %k) : (index, index) -> f32
        memref.store %v, %A[%i, %k] : memref<4x4xf32>
      }
      scf.for %j = %c0 to %c6 step %c1 {
        %v = func.call @bv(%i, %j) : (index, index) -> f32
        memref.store %v, %B[%i, %j] : memref<4x6xf32>
      }
    }
    func.call @rows(%A, %B, %C) : (memref<4x4xf32>, memref<4x6xf32>, memref<4x6xf32>) -> ()
    %bad1 = func.call @check(%C, %dy4, %c4) : (memref<4x6xf32>, index, index) -> index
    // Split K: columns 4 dy + k of A, rows 4 dy + k of B.
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %gk = arith.addi %dy4, %k : index
        %v = func.call @av(%i, %gk) : (index, index) -> f32
        memref.store %v, %A[%i, %k] : memref<4x4xf32>
      }
    }
    scf.for %k = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c6 step %c1 {
        %gk = arith.addi %dy4, %k : index
        %v = func.call @bv(%gk, %j) : (index, index) -> f32
        memref.store %v, %B[%k, %j] : memref<4x6xf32>
      }
    }
    func.call @splitK(%A, %B, %C) : (memref<4x4xf32>, memref<4x6xf32>, memref<4x6xf32>) -> ()
    %bad2 = func.call @check(%C, %c0, %c8) : (memref<4x6xf32>, index, index) -> index
    vector.print str "mismatches: "
    vector.print %bad1 : index punctuation <no_punctuation>
    vector.print str " "
    vector.print %bad2 : index
    return
  }
}
