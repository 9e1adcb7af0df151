// Collectives with a root on a mesh of 2 processes: a buffer that only
// device 0 holds is broadcast, scattered by rows, gathered back, and an
// all-gather and an all-to-all reshard the rows. Every rank checks every
// element it holds after each step.
// REQUIRES: mpi
// RUN: axe-mpirun -n 2 --timeout 120 %s | FileCheck %s

// CHECK: [0] broadcast mismatches: 0
// CHECK-NEXT: [0] scatter mismatches: 0
// CHECK-NEXT: [0] all-to-all mismatches: 0
// CHECK-NEXT: [0] gather mismatches: 0
// CHECK-NEXT: [1] broadcast mismatches: 0
// CHECK-NEXT: [1] scatter mismatches: 0
// CHECK-NEXT: [1] all-to-all mismatches: 0
// CHECK-NEXT: [1] gather mismatches: 0

// On device 0 only (no iter on d: its coordinate is the offset, 0).
#root = #axe.layout<S[(8, 8) : (8, 1)]>
// On both devices.
#full = #axe.layout<S[(8, 8) : (8, 1)] + R[2 : 1@d]>
// Rows [4 d, 4 d + 4) on device d.
#rows = #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>
// Columns [4 d, 4 d + 4) on device d.
#cols = #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>

module {
  func.func @steps(%a: memref<8x8xf32>, %b: memref<8x8xf32>,
                   %r: memref<4x8xf32>, %c: memref<8x4xf32>,
                   %g: memref<8x8xf32>) {
    axe.kernel {
      %root = axe.view %a[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #root, global>
      %full = axe.view %b[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #full, global>
      %rows = axe.view %r[0, 0] : memref<4x8xf32> -> !axe.buffer<8x8xf32, #rows, global>
      %cols = axe.view %c[0, 0] : memref<8x4xf32> -> !axe.buffer<8x8xf32, #cols, global>
      %back = axe.view %g[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #root, global>
      axe.copy %root to %full at mesh<d = 2>
          : !axe.buffer<8x8xf32, #root, global> to !axe.buffer<8x8xf32, #full, global>
      axe.copy %root to %rows at mesh<d = 2>
          : !axe.buffer<8x8xf32, #root, global> to !axe.buffer<8x8xf32, #rows, global>
      axe.copy %rows to %cols at mesh<d = 2>
          : !axe.buffer<8x8xf32, #rows, global> to !axe.buffer<8x8xf32, #cols, global>
      axe.copy %cols to %back at mesh<d = 2>
          : !axe.buffer<8x8xf32, #cols, global> to !axe.buffer<8x8xf32, #root, global>
    }
    return
  }

  // g(i, j) = 8 i + j + 1 (0 marks an element never written).
  func.func @g(%i: index, %j: index) -> f32 {
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %a = arith.muli %i, %c8 : index
    %s = arith.addi %a, %j : index
    %t = arith.addi %s, %c1 : index
    %si = arith.index_cast %t : index to i64
    %v = arith.sitofp %si : i64 to f32
    return %v : f32
  }

  // Elements of a rows x cols block whose element (i, j) should be
  // g(i0 + i, j0 + j) and is not; fill = true writes them instead.
  func.func @block(%m: memref<?x?xf32>, %i0: index, %j0: index, %fill: i1) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = memref.dim %m, %c0 : memref<?x?xf32>
    %cols = memref.dim %m, %c1 : memref<?x?xf32>
    %n = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %c0) -> index {
      %r = scf.for %j = %c0 to %cols step %c1 iter_args(%b = %a) -> index {
        %gi = arith.addi %i0, %i : index
        %gj = arith.addi %j0, %j : index
        %want = func.call @g(%gi, %gj) : (index, index) -> f32
        scf.if %fill {
          memref.store %want, %m[%i, %j] : memref<?x?xf32>
        }
        %got = memref.load %m[%i, %j] : memref<?x?xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %b1 = arith.addi %b, %c1 : index
        %b2 = arith.select %ne, %b1, %b : index
        scf.yield %b2 : index
      }
      scf.yield %r : index
    }
    return %n : index
  }

  func.func @report(%what: index, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %is0 = arith.cmpi eq, %what, %c0 : index
    %is1 = arith.cmpi eq, %what, %c1 : index
    %is2 = arith.cmpi eq, %what, %c2 : index
    scf.if %is0 {
      vector.print str "broadcast mismatches: "
    } else {
      scf.if %is1 {
        vector.print str "scatter mismatches: "
      } else {
        scf.if %is2 {
          vector.print str "all-to-all mismatches: "
        } else {
          vector.print str "gather mismatches: "
        }
      }
    }
    vector.print %n : index
    return
  }

  func.func @zero(%m: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %rows = memref.dim %m, %c0 : memref<?x?xf32>
    %cols = memref.dim %m, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        memref.store %zero, %m[%i, %j] : memref<?x?xf32>
      }
    }
    return
  }

  // Elements that are not 0.
  func.func @nonzero(%m: memref<?x?xf32>) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %rows = memref.dim %m, %c0 : memref<?x?xf32>
    %cols = memref.dim %m, %c1 : memref<?x?xf32>
    %n = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %c0) -> index {
      %r = scf.for %j = %c0 to %cols step %c1 iter_args(%b = %a) -> index {
        %got = memref.load %m[%i, %j] : memref<?x?xf32>
        %ne = arith.cmpf une, %got, %zero : f32
        %b1 = arith.addi %b, %c1 : index
        %b2 = arith.select %ne, %b1, %b : index
        scf.yield %b2 : index
      }
      scf.yield %r : index
    }
    return %n : index
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %rank32 = mpi.comm_rank(%world) : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %true = arith.constant true
    %false = arith.constant false
    %a = memref.alloc() : memref<8x8xf32>
    %b = memref.alloc() : memref<8x8xf32>
    %r = memref.alloc() : memref<4x8xf32>
    %c = memref.alloc() : memref<8x4xf32>
    %g = memref.alloc() : memref<8x8xf32>
    %da = memref.cast %a : memref<8x8xf32> to memref<?x?xf32>
    %db = memref.cast %b : memref<8x8xf32> to memref<?x?xf32>
    %dr = memref.cast %r : memref<4x8xf32> to memref<?x?xf32>
    %dc = memref.cast %c : memref<8x4xf32> to memref<?x?xf32>
    %dg = memref.cast %g : memref<8x8xf32> to memref<?x?xf32>
    func.call @zero(%da) : (memref<?x?xf32>) -> ()
    func.call @zero(%db) : (memref<?x?xf32>) -> ()
    func.call @zero(%dr) : (memref<?x?xf32>) -> ()
    func.call @zero(%dc) : (memref<?x?xf32>) -> ()
    func.call @zero(%dg) : (memref<?x?xf32>) -> ()
    // Only device 0 holds the data.
    %is_root = arith.cmpi eq, %rank, %c0 : index
    scf.if %is_root {
      %unused = func.call @block(%da, %c0, %c0, %true) : (memref<?x?xf32>, index, index, i1) -> index
    }
    func.call @steps(%a, %b, %r, %c, %g)
        : (memref<8x8xf32>, memref<8x8xf32>, memref<4x8xf32>, memref<8x4xf32>,
           memref<8x8xf32>) -> ()
    %first = arith.muli %rank, %c4 : index
    %n0 = func.call @block(%db, %c0, %c0, %false) : (memref<?x?xf32>, index, index, i1) -> index
    func.call @report(%c0, %n0) : (index, index) -> ()
    %n1 = func.call @block(%dr, %first, %c0, %false) : (memref<?x?xf32>, index, index, i1) -> index
    func.call @report(%c1, %n1) : (index, index) -> ()
    %n2 = func.call @block(%dc, %c0, %first, %false) : (memref<?x?xf32>, index, index, i1) -> index
    func.call @report(%c2, %n2) : (index, index) -> ()
    // The gather writes device 0's buffer only.
    %n3 = scf.if %is_root -> index {
      %n = func.call @block(%dg, %c0, %c0, %false) : (memref<?x?xf32>, index, index, i1) -> index
      scf.yield %n : index
    } else {
      %n = func.call @nonzero(%dg) : (memref<?x?xf32>) -> index
      scf.yield %n : index
    }
    func.call @report(%c3, %n3) : (index, index) -> ()
    return
  }
}
