// axe.reduce max and min at mesh scope combine like arith.maximumf and
// arith.minimumf, as the same reduce at cta scope does: a NaN addend makes
// the result NaN, and +0 is larger than -0 (MPI_MAX and MPI_MIN promise
// neither). f32 blocking, f64 through axe.reduce_async. Every element of
// every result is compared, bit for bit (any NaN for a NaN), with
// maximumf/minimumf of the two addends.
// REQUIRES: mpi
// RUN: axe-mpirun -n 2 --timeout 120 %s | FileCheck %s

// CHECK-DAG: [0] mismatches: 0 0 0 0
// CHECK-DAG: [1] mismatches: 0 0 0 0

#p = #axe.layout<S[(2, 8) : (1@d, 1)]>
#f = #axe.layout<S[8 : 1] + R[2 : 1@d]>

module {
  func.func @max32(%x: memref<8xf32>, %y: memref<8xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<8xf32> -> !axe.buffer<2x8xf32, #p, global>
      %b = axe.view %y[0] : memref<8xf32> -> !axe.buffer<8xf32, #f, global>
      axe.reduce max %a into %b dims [0] at mesh<d = 2>
          : !axe.buffer<2x8xf32, #p, global> into !axe.buffer<8xf32, #f, global>
    }
    return
  }
  func.func @min32(%x: memref<8xf32>, %y: memref<8xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<8xf32> -> !axe.buffer<2x8xf32, #p, global>
      %b = axe.view %y[0] : memref<8xf32> -> !axe.buffer<8xf32, #f, global>
      axe.reduce min %a into %b dims [0] at mesh<d = 2>
          : !axe.buffer<2x8xf32, #p, global> into !axe.buffer<8xf32, #f, global>
    }
    return
  }
  func.func @max64(%x: memref<8xf64>, %y: memref<8xf64>) {
    %a = axe.view %x[0] : memref<8xf64> -> !axe.buffer<2x8xf64, #p, global>
    %b = axe.view %y[0] : memref<8xf64> -> !axe.buffer<8xf64, #f, global>
    %t = axe.reduce_async max %a into %b dims [0] at mesh<d = 2>
        : !axe.buffer<2x8xf64, #p, global> into !axe.buffer<8xf64, #f, global>
    axe.wait %t at mesh<d = 2>
    return
  }
  func.func @min64(%x: memref<8xf64>, %y: memref<8xf64>) {
    %a = axe.view %x[0] : memref<8xf64> -> !axe.buffer<2x8xf64, #p, global>
    %b = axe.view %y[0] : memref<8xf64> -> !axe.buffer<8xf64, #f, global>
    %t = axe.reduce_async min %a into %b dims [0] at mesh<d = 2>
        : !axe.buffer<2x8xf64, #p, global> into !axe.buffer<8xf64, #f, global>
    axe.wait %t at mesh<d = 2>
    return
  }

  // Row r is rank r's addends.
  memref.global "private" constant @init : memref<2x8xf32> =
      dense<[[0x7FC00000, 1.0, 2.0, 3.0, 0.0, -0.0, 0xFF800000, 5.0],
             [10.0, 0x7FC00000, 12.0, -13.0, -0.0, 0.0, 7.0, 0x7FC00000]]>

  func.func @same32(%got: f32, %want: f32) -> i1 {
    %gn = arith.cmpf uno, %got, %got : f32
    %wn = arith.cmpf uno, %want, %want : f32
    %bothNaN = arith.andi %gn, %wn : i1
    %gb = arith.bitcast %got : f32 to i32
    %wb = arith.bitcast %want : f32 to i32
    %eq = arith.cmpi eq, %gb, %wb : i32
    %ok = arith.ori %bothNaN, %eq : i1
    return %ok : i1
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %r32 = mpi.comm_rank(%world) : i32
    %r = arith.index_cast %r32 : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %g = memref.get_global @init : memref<2x8xf32>
    %x = memref.alloc() : memref<8xf32>
    %x64 = memref.alloc() : memref<8xf64>
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %g[%r, %i] : memref<2x8xf32>
      memref.store %v, %x[%i] : memref<8xf32>
      %w = arith.extf %v : f32 to f64
      memref.store %w, %x64[%i] : memref<8xf64>
    }
    %mx = memref.alloc() : memref<8xf32>
    %mn = memref.alloc() : memref<8xf32>
    %mx64 = memref.alloc() : memref<8xf64>
    %mn64 = memref.alloc() : memref<8xf64>
    func.call @max32(%x, %mx) : (memref<8xf32>, memref<8xf32>) -> ()
    func.call @min32(%x, %mn) : (memref<8xf32>, memref<8xf32>) -> ()
    func.call @max64(%x64, %mx64) : (memref<8xf64>, memref<8xf64>) -> ()
    func.call @min64(%x64, %mn64) : (memref<8xf64>, memref<8xf64>) -> ()
    %z = arith.constant 0 : index
    %bad:4 = scf.for %i = %c0 to %c8 step %c1
        iter_args(%b0 = %z, %b1 = %z, %b2 = %z, %b3 = %z)
        -> (index, index, index, index) {
      %u = memref.load %g[%c0, %i] : memref<2x8xf32>
      %v = memref.load %g[%c1, %i] : memref<2x8xf32>
      %wmax = arith.maximumf %u, %v : f32
      %wmin = arith.minimumf %u, %v : f32
      %gmax = memref.load %mx[%i] : memref<8xf32>
      %gmin = memref.load %mn[%i] : memref<8xf32>
      %gmax64 = memref.load %mx64[%i] : memref<8xf64>
      %gmin64 = memref.load %mn64[%i] : memref<8xf64>
      // f64 results of f32 inputs narrow back exactly (NaNs stay NaN).
      %nmax = arith.truncf %gmax64 : f64 to f32
      %nmin = arith.truncf %gmin64 : f64 to f32
      %ok0 = func.call @same32(%gmax, %wmax) : (f32, f32) -> i1
      %ok1 = func.call @same32(%gmin, %wmin) : (f32, f32) -> i1
      %ok2 = func.call @same32(%nmax, %wmax) : (f32, f32) -> i1
      %ok3 = func.call @same32(%nmin, %wmin) : (f32, f32) -> i1
      %n0 = arith.addi %b0, %c1 : index
      %n1 = arith.addi %b1, %c1 : index
      %n2 = arith.addi %b2, %c1 : index
      %n3 = arith.addi %b3, %c1 : index
      %s0 = arith.select %ok0, %b0, %n0 : index
      %s1 = arith.select %ok1, %b1, %n1 : index
      %s2 = arith.select %ok2, %b2, %n2 : index
      %s3 = arith.select %ok3, %b3, %n3 : index
      scf.yield %s0, %s1, %s2, %s3 : index, index, index, index
    }
    vector.print str "mismatches: "
    vector.print %bad#0 : index punctuation <no_punctuation>
    vector.print str " "
    vector.print %bad#1 : index punctuation <no_punctuation>
    vector.print str " "
    vector.print %bad#2 : index punctuation <no_punctuation>
    vector.print str " "
    vector.print %bad#3 : index
    return
  }
}
