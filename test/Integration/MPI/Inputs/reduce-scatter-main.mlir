// Host program of reduce-scatter-kernel.mlir: each rank fills its 64x128
// addend with (rank + 1) * f(row, col), runs the kernel and checks its 16
// rows of the sum, 10 * f(16 * rank + row, col), element by element.
module {
  func.func private @reduce_scatter(memref<64x128xf32>, memref<16x128xf32>)

  // f(i, j) = (131 i + 7 j) mod 97, exact in f32.
  func.func @f(%i: index, %j: index) -> f32 {
    %c131 = arith.constant 131 : index
    %c7 = arith.constant 7 : index
    %c97 = arith.constant 97 : index
    %a = arith.muli %i, %c131 : index
    %b = arith.muli %j, %c7 : index
    %s = arith.addi %a, %b : index
    %m = arith.remui %s, %c97 : index
    %mi = arith.index_cast %m : index to i64
    %v = arith.sitofp %mi : i64 to f32
    return %v : f32
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %rank32 = mpi.comm_rank(%world) : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    %ten = arith.constant 10.0 : f32
    %rankf = arith.uitofp %rank32 : i32 to f32
    %scale = arith.addf %rankf, %one : f32
    %p = memref.alloc() : memref<64x128xf32>
    %y = memref.alloc() : memref<16x128xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c128 step %c1 {
        %v = func.call @f(%i, %j) : (index, index) -> f32
        %w = arith.mulf %v, %scale : f32
        memref.store %w, %p[%i, %j] : memref<64x128xf32>
      }
    }
    func.call @reduce_scatter(%p, %y) : (memref<64x128xf32>, memref<16x128xf32>) -> ()
    %first = arith.muli %rank, %c16 : index
    %bad = scf.for %i = %c0 to %c16 step %c1 iter_args(%n = %c0) -> index {
      %row = arith.addi %first, %i : index
      %m = scf.for %j = %c0 to %c128 step %c1 iter_args(%k = %n) -> index {
        %v = func.call @f(%row, %j) : (index, index) -> f32
        %want = arith.mulf %v, %ten : f32
        %got = memref.load %y[%i, %j] : memref<16x128xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %k1 = arith.addi %k, %c1 : index
        %k2 = arith.select %ne, %k1, %k : index
        scf.yield %k2 : index
      }
      scf.yield %m : index
    }
    vector.print str "reduce_scatter mismatches: "
    vector.print %bad : index
    %c5 = arith.constant 5 : index
    %sample = memref.load %y[%c1, %c5] : memref<16x128xf32>
    vector.print str "y[1][5] = "
    vector.print %sample : f32
    memref.dealloc %p : memref<64x128xf32>
    memref.dealloc %y : memref<16x128xf32>
    return
  }
}
