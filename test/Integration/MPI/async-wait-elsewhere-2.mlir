// An axe.reduce_async started in one function and waited in another (its
// token returned, then passed on): the wait completes the all-reduce. Every
// element of the sum is checked after the wait.
// REQUIRES: mpi
// RUN: axe-mpirun -n 2 --timeout 120 %s | FileCheck %s

// CHECK-DAG: [0] mismatches: 0
// CHECK-DAG: [1] mismatches: 0

#p = #axe.layout<S[(2, 4096) : (1@d, 1)]>
#f = #axe.layout<S[4096 : 1] + R[2 : 1@d]>
module {
  func.func @start(%x: memref<4096xf32>, %y: memref<4096xf32>) -> !axe.token {
    %a = axe.view %x[0] : memref<4096xf32> -> !axe.buffer<2x4096xf32, #p, global>
    %b = axe.view %y[0] : memref<4096xf32> -> !axe.buffer<4096xf32, #f, global>
    %t = axe.reduce_async sum %a into %b dims [0] at mesh<d = 2>
        : !axe.buffer<2x4096xf32, #p, global> into !axe.buffer<4096xf32, #f, global>
    return %t : !axe.token
  }
  func.func @finish(%t: !axe.token) {
    axe.wait %t at mesh<d = 2>
    return
  }
  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %r32 = mpi.comm_rank(%world) : i32
    %r = arith.index_cast %r32 : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 4096 : index
    %x = memref.alloc() : memref<4096xf32>
    %y = memref.alloc() : memref<4096xf32>
    %zero = arith.constant 0.0 : f32
    // Rank r adds x[i] = i + r + 1; the sum is 2 i + 3.
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.addi %i, %r : index
      %s1 = arith.addi %s, %c1 : index
      %si = arith.index_cast %s1 : index to i64
      %v = arith.sitofp %si : i64 to f32
      memref.store %v, %x[%i] : memref<4096xf32>
      memref.store %zero, %y[%i] : memref<4096xf32>
    }
    %t = func.call @start(%x, %y) : (memref<4096xf32>, memref<4096xf32>) -> !axe.token
    func.call @finish(%t) : (!axe.token) -> ()
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %bad = scf.for %i = %c0 to %n step %c1 iter_args(%b = %c0) -> index {
      %i2 = arith.muli %i, %c2 : index
      %w = arith.addi %i2, %c3 : index
      %wi = arith.index_cast %w : index to i64
      %want = arith.sitofp %wi : i64 to f32
      %v = memref.load %y[%i] : memref<4096xf32>
      %ne = arith.cmpf une, %v, %want : f32
      %b1 = arith.addi %b, %c1 : index
      %b2 = arith.select %ne, %b1, %b : index
      scf.yield %b2 : index
    }
    vector.print str "mismatches: "
    vector.print %bad : index
    return
  }
}
