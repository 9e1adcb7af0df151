// Moves on meshes with an extent-3 axis whose digits do not nest: an axis
// that shards a dim of 6 at stride 3 on one side and at stride 1 on the
// other would owe its peers shares of 2 and 1 elements, which MPI's
// all-to-all (equal shares) cannot move. The planner gathers and then
// slices instead. Each rank checks every element it ends with.
// REQUIRES: mpi
// RUN: axe-mpirun -n 6 --timeout 120 %s | FileCheck %s
// RUN: axe-layout plan 'S[(2, 3) : (1@b, 1)] + R[3 : 1@a]' \
// RUN:   'S[(3, 2, 1) : (1@a, 1@b, 1)]' --mesh 'a = 3, b = 2' --check \
// RUN:   | FileCheck %s --check-prefix=PLAN

// PLAN: 1. all-gather over (b): 3 -> 6
// PLAN-NEXT: 2. local-slice over (a, b): 6 -> 1
// PLAN-NEXT: check: every rank holds what DEST places (6 ranks)

// CHECK-DAG: [0] mismatches: 0 0 0 0
// CHECK-DAG: [1] mismatches: 0 0 0 0
// CHECK-DAG: [2] mismatches: 0 0 0 0
// CHECK-DAG: [3] mismatches: 0 0 0 0
// CHECK-DAG: [4] mismatches: 0 0 0 0
// CHECK-DAG: [5] mismatches: 0 0 0 0

// mesh<a = 3, b = 2> (rank 2 a + b). Device (a, b) holds x[3 b, 3 b + 3).
#halves = #axe.layout<S[(2, 3) : (1@b, 1)] + R[3 : 1@a]>
// Device (a, b) holds x[2 a + b].
#single = #axe.layout<S[(3, 2, 1) : (1@a, 1@b, 1)]>
// Addends: device (a, b) holds row a, columns [3 b, 3 b + 3) of a 3x6 matrix.
#rowparts = #axe.layout<S[(3, 2, 3) : (1@a, 1@b, 1)]>
// mesh<a = 2, b = 3> (rank 3 a + b), a 6x3 matrix: device (a, b) holds row
// 2 b + a; then rows [3 a, 3 a + 3) of column b.
#onerow = #axe.layout<S[(3, 2, 1, 3) : (1@b, 1@a, 3, 1)]>
#colpart = #axe.layout<S[(2, 3, 3, 1) : (1@a, 1, 1@b, 1)]>

module {
  func.func @toSingle(%x: memref<3xf32>, %y: memref<1xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<3xf32> -> !axe.buffer<6xf32, #halves, global>
      %b = axe.view %y[0] : memref<1xf32> -> !axe.buffer<6xf32, #single, global>
      axe.copy %a to %b at mesh<a = 3, b = 2>
          : !axe.buffer<6xf32, #halves, global> to !axe.buffer<6xf32, #single, global>
    }
    return
  }
  func.func @toHalves(%x: memref<1xf32>, %y: memref<3xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<1xf32> -> !axe.buffer<6xf32, #single, global>
      %b = axe.view %y[0] : memref<3xf32> -> !axe.buffer<6xf32, #halves, global>
      axe.copy %a to %b at mesh<a = 3, b = 2>
          : !axe.buffer<6xf32, #single, global> to !axe.buffer<6xf32, #halves, global>
    }
    return
  }
  func.func @sumRows(%x: memref<3xf32>, %y: memref<1xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<3xf32> -> !axe.buffer<3x6xf32, #rowparts, global>
      %b = axe.view %y[0] : memref<1xf32> -> !axe.buffer<6xf32, #single, global>
      axe.reduce sum %a into %b dims [0] at mesh<a = 3, b = 2>
          : !axe.buffer<3x6xf32, #rowparts, global> into !axe.buffer<6xf32, #single, global>
    }
    return
  }
  func.func @rowToCol(%x: memref<3xf32>, %y: memref<3x1xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<3xf32> -> !axe.buffer<6x3xf32, #onerow, global>
      %b = axe.view %y[0, 0] : memref<3x1xf32> -> !axe.buffer<6x3xf32, #colpart, global>
      axe.copy %a to %b at mesh<a = 2, b = 3>
          : !axe.buffer<6x3xf32, #onerow, global> to !axe.buffer<6x3xf32, #colpart, global>
    }
    return
  }

  func.func @f(%i: index) -> f32 {
    %c1 = arith.constant 1 : index
    %t = arith.addi %i, %c1 : index
    %ti = arith.index_cast %t : index to i64
    %v = arith.sitofp %ti : i64 to f32
    return %v : f32
  }

  // Mismatches of m[k] against want[k] = f(base + step * k).
  func.func @count(%m: memref<?xf32>, %base: index, %step: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %m, %c0 : memref<?xf32>
    %bad = scf.for %k = %c0 to %n step %c1 iter_args(%b = %c0) -> index {
      %sk = arith.muli %k, %step : index
      %i = arith.addi %base, %sk : index
      %want = func.call @f(%i) : (index) -> f32
      %got = memref.load %m[%k] : memref<?xf32>
      %ne = arith.cmpf une, %got, %want : f32
      %b1 = arith.addi %b, %c1 : index
      %b2 = arith.select %ne, %b1, %b : index
      scf.yield %b2 : index
    }
    return %bad : index
  }

  func.func @fill(%m: memref<?xf32>, %base: index, %step: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %m, %c0 : memref<?xf32>
    scf.for %k = %c0 to %n step %c1 {
      %sk = arith.muli %k, %step : index
      %i = arith.addi %base, %sk : index
      %v = func.call @f(%i) : (index) -> f32
      memref.store %v, %m[%k] : memref<?xf32>
    }
    return
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %r32 = mpi.comm_rank(%world) : i32
    %r = arith.index_cast %r32 : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %m1 = arith.constant -1.0 : f32
    // mesh<a = 3, b = 2>: b = r mod 2, a = r / 2; x[i] = f(i).
    %b = arith.remui %r, %c2 : index
    %a = arith.divui %r, %c2 : index
    %b3 = arith.muli %b, %c3 : index
    %x3 = memref.alloc() : memref<3xf32>
    %x3d = memref.cast %x3 : memref<3xf32> to memref<?xf32>
    %y1 = memref.alloc() : memref<1xf32>
    %y1d = memref.cast %y1 : memref<1xf32> to memref<?xf32>
    func.call @fill(%x3d, %b3, %c1) : (memref<?xf32>, index, index) -> ()
    memref.store %m1, %y1[%c0] : memref<1xf32>
    func.call @toSingle(%x3, %y1) : (memref<3xf32>, memref<1xf32>) -> ()
    %bad1 = func.call @count(%y1d, %r, %c1) : (memref<?xf32>, index, index) -> index

    // And back: device r holds x[r]; the halves come back.
    %z3 = memref.alloc() : memref<3xf32>
    %z3d = memref.cast %z3 : memref<3xf32> to memref<?xf32>
    func.call @fill(%y1d, %r, %c1) : (memref<?xf32>, index, index) -> ()
    func.call @toHalves(%y1, %z3) : (memref<1xf32>, memref<3xf32>) -> ()
    %bad2 = func.call @count(%z3d, %b3, %c1) : (memref<?xf32>, index, index) -> index

    // Sum of rows of v(i, j) = f(6 i + j) / 1: device (a, b) has row a,
    // columns 3 b + k. Column j sums to f(j) + f(6 + j) + f(12 + j)
    // = 3 f(j) + 18, i.e. f(3 j + 20) when f(i) = i + 1.
    %a6 = arith.muli %a, %c6 : index
    %rowbase = arith.addi %a6, %b3 : index
    func.call @fill(%x3d, %rowbase, %c1) : (memref<?xf32>, index, index) -> ()
    memref.store %m1, %y1[%c0] : memref<1xf32>
    func.call @sumRows(%x3, %y1) : (memref<3xf32>, memref<1xf32>) -> ()
    %c20 = arith.constant 20 : index
    %r3 = arith.muli %r, %c3 : index
    %want3 = arith.addi %r3, %c20 : index
    %bad3 = func.call @count(%y1d, %want3, %c1) : (memref<?xf32>, index, index) -> index

    // mesh<a = 2, b = 3>: B = r mod 3, A = r / 3; x(i, j) = f(3 i + j).
    // Device (A, B) holds row 2 B + A, then rows 3 A + k of column B.
    %bb = arith.remui %r, %c3 : index
    %aa = arith.divui %r, %c3 : index
    %bb2 = arith.muli %bb, %c2 : index
    %row = arith.addi %bb2, %aa : index
    %rowstart = arith.muli %row, %c3 : index
    func.call @fill(%x3d, %rowstart, %c1) : (memref<?xf32>, index, index) -> ()
    %c9 = arith.constant 9 : index
    %aa9 = arith.muli %aa, %c9 : index
    %colstart = arith.addi %aa9, %bb : index
    %col = memref.alloc() : memref<3x1xf32>
    func.call @rowToCol(%x3, %col) : (memref<3xf32>, memref<3x1xf32>) -> ()
    %colflat = memref.collapse_shape %col [[0, 1]] : memref<3x1xf32> into memref<3xf32>
    %cold = memref.cast %colflat : memref<3xf32> to memref<?xf32>
    %bad4 = func.call @count(%cold, %colstart, %c3) : (memref<?xf32>, index, index) -> index

    vector.print str "mismatches: "
    vector.print %bad1 : index punctuation <no_punctuation>
    vector.print str " "
    vector.print %bad2 : index punctuation <no_punctuation>
    vector.print str " "
    vector.print %bad3 : index punctuation <no_punctuation>
    vector.print str " "
    vector.print %bad4 : index
    return
  }
}
