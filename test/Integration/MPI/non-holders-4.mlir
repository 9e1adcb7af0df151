// Ranks that hold none of a mesh operator's target leave its memory as it
// was, whatever the plan: a gather then an all-gather, a reduce-scatter on
// the devices of one coordinate, a reduce onto a root then a local slice,
// and a local slice of a replicated buffer onto one device. Targets start
// at -1; a holder compares every element with its value, a non-holder
// every element with -1.
// REQUIRES: mpi
// RUN: axe-mpirun -n 4 --timeout 120 %s | FileCheck %s

// CHECK-DAG: [0] mismatches: 0 0 0 0
// CHECK-DAG: [1] mismatches: 0 0 0 0
// CHECK-DAG: [2] mismatches: 0 0 0 0
// CHECK-DAG: [3] mismatches: 0 0 0 0

// mesh<dx = 2, dy = 2>, rank 2 dx + dy; x[i] = i + 1.
// Device (dx, dy) holds x[4 dx + 2 dy, +2).
#quarters = #axe.layout<S[(2, 2, 2) : (1@dx, 1@dy, 1)]>
// The devices with dx = 0 hold all of it.
#onDx0 = #axe.layout<S[8 : 1] + R[2 : 1@dy]>
// Row dx of a 2x8 matrix of addends, on the devices with dy = 1 only.
#rowsOnDy1 = #axe.layout<S[(2, 8) : (1@dx, 1)] + 1@dy>
// Half dx of the sum, on the devices with dy = 1 only.
#halvesOnDy1 = #axe.layout<S[(2, 4) : (1@dx, 1)] + 1@dy>
// Row dx of the addends, on both dy.
#rows = #axe.layout<S[(2, 8) : (1@dx, 1)] + R[2 : 1@dy]>
// Half dy of the sum, on the devices with dx = 1 only.
#halvesOnDx1 = #axe.layout<S[(2, 4) : (1@dy, 1)] + 1@dx>
#everywhere = #axe.layout<S[8 : 1] + R[(2, 2) : (1@dx, 1@dy)]>
#onDx1 = #axe.layout<S[8 : 1] + R[2 : 1@dy] + 1@dx>

module {
  func.func @gathers(%x: memref<2xf32>, %y: memref<8xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<2xf32> -> !axe.buffer<8xf32, #quarters, global>
      %b = axe.view %y[0] : memref<8xf32> -> !axe.buffer<8xf32, #onDx0, global>
      axe.copy %a to %b at mesh<dx = 2, dy = 2>
          : !axe.buffer<8xf32, #quarters, global> to !axe.buffer<8xf32, #onDx0, global>
    }
    return
  }
  func.func @scatterOnDy1(%x: memref<8xf32>, %y: memref<4xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<8xf32> -> !axe.buffer<2x8xf32, #rowsOnDy1, global>
      %b = axe.view %y[0] : memref<4xf32> -> !axe.buffer<8xf32, #halvesOnDy1, global>
      axe.reduce sum %a into %b dims [0] at mesh<dx = 2, dy = 2>
          : !axe.buffer<2x8xf32, #rowsOnDy1, global> into !axe.buffer<8xf32, #halvesOnDy1, global>
    }
    return
  }
  func.func @reduceOnDx1(%x: memref<8xf32>, %y: memref<4xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<8xf32> -> !axe.buffer<2x8xf32, #rows, global>
      %b = axe.view %y[0] : memref<4xf32> -> !axe.buffer<8xf32, #halvesOnDx1, global>
      axe.reduce sum %a into %b dims [0] at mesh<dx = 2, dy = 2>
          : !axe.buffer<2x8xf32, #rows, global> into !axe.buffer<8xf32, #halvesOnDx1, global>
    }
    return
  }
  func.func @keepOnDx1(%x: memref<8xf32>, %y: memref<8xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<8xf32> -> !axe.buffer<8xf32, #everywhere, global>
      %b = axe.view %y[0] : memref<8xf32> -> !axe.buffer<8xf32, #onDx1, global>
      axe.copy %a to %b at mesh<dx = 2, dy = 2>
          : !axe.buffer<8xf32, #everywhere, global> to !axe.buffer<8xf32, #onDx1, global>
    }
    return
  }

  // Elements of m that differ from f(base + step k) = base + step k + 1
  // when `holds`, from -1 otherwise.
  func.func @count(%m: memref<?xf32>, %holds: i1, %base: index, %step: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %none = arith.constant -1.0 : f32
    %n = memref.dim %m, %c0 : memref<?xf32>
    %bad = scf.for %k = %c0 to %n step %c1 iter_args(%b = %c0) -> index {
      %sk = arith.muli %k, %step : index
      %i = arith.addi %base, %sk : index
      %i1 = arith.addi %i, %c1 : index
      %ii = arith.index_cast %i1 : index to i64
      %v = arith.sitofp %ii : i64 to f32
      %want = arith.select %holds, %v, %none : f32
      %got = memref.load %m[%k] : memref<?xf32>
      %ne = arith.cmpf une, %got, %want : f32
      %b1 = arith.addi %b, %c1 : index
      %b2 = arith.select %ne, %b1, %b : index
      scf.yield %b2 : index
    }
    return %bad : index
  }

  // m[k] = base + k + 1.
  func.func @fill(%m: memref<?xf32>, %base: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %m, %c0 : memref<?xf32>
    scf.for %k = %c0 to %n step %c1 {
      %i = arith.addi %base, %k : index
      %i1 = arith.addi %i, %c1 : index
      %ii = arith.index_cast %i1 : index to i64
      %v = arith.sitofp %ii : i64 to f32
      memref.store %v, %m[%k] : memref<?xf32>
    }
    return
  }

  func.func @clear(%m: memref<?xf32>) {
    %none = arith.constant -1.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %m, %c0 : memref<?xf32>
    scf.for %k = %c0 to %n step %c1 {
      memref.store %none, %m[%k] : memref<?xf32>
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
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %c1000 = arith.constant 1000 : index
    %dx = arith.divui %r, %c2 : index
    %dy = arith.remui %r, %c2 : index
    %dxIs0 = arith.cmpi eq, %dx, %c0 : index
    %dxIs1 = arith.cmpi eq, %dx, %c1 : index
    %dyIs1 = arith.cmpi eq, %dy, %c1 : index

    %x2 = memref.alloc() : memref<2xf32>
    %x2d = memref.cast %x2 : memref<2xf32> to memref<?xf32>
    %x8 = memref.alloc() : memref<8xf32>
    %x8d = memref.cast %x8 : memref<8xf32> to memref<?xf32>
    %y8 = memref.alloc() : memref<8xf32>
    %y8d = memref.cast %y8 : memref<8xf32> to memref<?xf32>
    %y4 = memref.alloc() : memref<4xf32>
    %y4d = memref.cast %y4 : memref<4xf32> to memref<?xf32>

    // A gather onto dx = 0, then an all-gather over dy.
    %dx4 = arith.muli %dx, %c4 : index
    %dy2 = arith.muli %dy, %c2 : index
    %q = arith.addi %dx4, %dy2 : index
    func.call @fill(%x2d, %q) : (memref<?xf32>, index) -> ()
    func.call @clear(%y8d) : (memref<?xf32>) -> ()
    func.call @gathers(%x2, %y8) : (memref<2xf32>, memref<8xf32>) -> ()
    %bad1 = func.call @count(%y8d, %dxIs0, %c0, %c1) : (memref<?xf32>, i1, index, index) -> index

    // Addends v(i, j) = 8 i + j + 1, row dx on (dx, 1); the others hold
    // junk. Half dx of the sum: 8 dx + 2 k + 10.
    %dx8 = arith.muli %dx, %c8 : index
    %junk = arith.select %dyIs1, %dx8, %c1000 : index
    func.call @fill(%x8d, %junk) : (memref<?xf32>, index) -> ()
    func.call @clear(%y4d) : (memref<?xf32>) -> ()
    func.call @scatterOnDy1(%x8, %y4) : (memref<8xf32>, memref<4xf32>) -> ()
    %base2 = arith.addi %dx8, %c9 : index
    %bad2 = func.call @count(%y4d, %dyIs1, %base2, %c2) : (memref<?xf32>, i1, index, index) -> index

    // The same addends on both dy, summed onto dx = 1 and sliced over dy.
    func.call @fill(%x8d, %dx8) : (memref<?xf32>, index) -> ()
    func.call @clear(%y4d) : (memref<?xf32>) -> ()
    func.call @reduceOnDx1(%x8, %y4) : (memref<8xf32>, memref<4xf32>) -> ()
    %dy8 = arith.muli %dy, %c8 : index
    %base3 = arith.addi %dy8, %c9 : index
    %bad3 = func.call @count(%y4d, %dxIs1, %base3, %c2) : (memref<?xf32>, i1, index, index) -> index

    // Everywhere, kept on dx = 1 only.
    func.call @fill(%x8d, %c0) : (memref<?xf32>, index) -> ()
    func.call @clear(%y8d) : (memref<?xf32>) -> ()
    func.call @keepOnDx1(%x8, %y8) : (memref<8xf32>, memref<8xf32>) -> ()
    %bad4 = func.call @count(%y8d, %dxIs1, %c0, %c1) : (memref<?xf32>, i1, index, index) -> index

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
