// The host side of dsmem-swap-kernel.mlir: X holds 0..127 row by row; after
// the kernel, Y must hold X with its two rows swapped.
module {
  func.func private @swap(memref<2x64xf32>, memref<2x64xf32>)
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %X = memref.alloc() : memref<2x64xf32>
    %Y = memref.alloc() : memref<2x64xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %k = arith.muli %i, %c64 : index
        %v = arith.addi %k, %j : index
        %vi = arith.index_cast %v : index to i64
        %vf = arith.sitofp %vi : i64 to f32
        memref.store %vf, %X[%i, %j] : memref<2x64xf32>
      }
    }
    call @swap(%X, %Y) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c2 step %c1 iter_args(%n = %zi) -> (i64) {
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%m = %n) -> (i64) {
        %o = arith.subi %c1, %i : index
        %want = memref.load %X[%o, %j] : memref<2x64xf32>
        %got = memref.load %Y[%i, %j] : memref<2x64xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "swap mismatches: "
    vector.print %bad : i64
    %y = memref.load %Y[%c0, %c1] : memref<2x64xf32>
    vector.print str "Y[0][1] = "
    vector.print %y : f32
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
