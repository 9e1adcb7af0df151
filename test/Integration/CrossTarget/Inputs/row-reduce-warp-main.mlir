// The host side of row-reduce-warp-kernel.mlir: it calls the kernel, compiled from its own
// file and linked in, and checks every element against a reference.
module {
  func.func private @row_softmax_numerator(memref<64x64xf32>, memref<64x64xf32>, memref<64x1xf32>)
  // Returns 0 for lli, which exits with main's result.
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c13 = arith.constant 13 : index
    %c37 = arith.constant 37 : index
    %c64 = arith.constant 64 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %eighth = arith.constant 0.125 : f32
    %four = arith.constant 4.0 : f32
    %tol = arith.constant 1.0e-6 : f32
    %untouched = arith.constant -7.0 : f32
    %X = memref.alloc() : memref<64x64xf32>
    %Y = memref.alloc() : memref<64x64xf32>
    %Max = memref.alloc() : memref<64x1xf32>
    // X[i][j] = ((7i + 13j) mod 37) / 8 - 4: every row has its own maximum,
    // at a column that moves from row to row.
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %a = arith.muli %i, %c7 : index
        %b = arith.muli %j, %c13 : index
        %s = arith.addi %a, %b : index
        %r = arith.remui %s, %c37 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %sc = arith.mulf %rf, %eighth : f32
        %v = arith.subf %sc, %four : f32
        memref.store %v, %X[%i, %j] : memref<64x64xf32>
        memref.store %untouched, %Y[%i, %j] : memref<64x64xf32>
      }
      memref.store %untouched, %Max[%i, %c0] : memref<64x1xf32>
    }
    call @row_softmax_numerator(%X, %Y, %Max)
        : (memref<64x64xf32>, memref<64x64xf32>, memref<64x1xf32>) -> ()
    // Reference: the row maximum, then exp(x - max) for every element.
    %bad:2 = scf.for %i = %c0 to %c64 step %c1 iter_args(%nm = %zi, %ny = %zi) -> (i64, i64) {
      %mx = scf.for %j = %c0 to %c64 step %c1 iter_args(%m = %ninf) -> (f32) {
        %x = memref.load %X[%i, %j] : memref<64x64xf32>
        %m2 = arith.maximumf %m, %x : f32
        scf.yield %m2 : f32
      }
      %gm = memref.load %Max[%i, %c0] : memref<64x1xf32>
      %nem = arith.cmpf une, %gm, %mx : f32
      %incm = arith.select %nem, %one, %zi : i64
      %nm2 = arith.addi %nm, %incm : i64
      %ny2 = scf.for %j = %c0 to %c64 step %c1 iter_args(%n = %ny) -> (i64) {
        %x = memref.load %X[%i, %j] : memref<64x64xf32>
        %d = arith.subf %x, %mx : f32
        %want = math.exp %d : f32
        %got = memref.load %Y[%i, %j] : memref<64x64xf32>
        %diff = arith.subf %got, %want : f32
        %ad = math.absf %diff : f32
        // A NaN or a wrong value both fail the test.
        %ok = arith.cmpf ole, %ad, %tol : f32
        %inc = arith.select %ok, %zi, %one : i64
        %n2 = arith.addi %n, %inc : i64
        scf.yield %n2 : i64
      }
      scf.yield %nm2, %ny2 : i64, i64
    }
    vector.print str "row max mismatches: "
    vector.print %bad#0 : i64
    vector.print str "exp(x - max) mismatches: "
    vector.print %bad#1 : i64
    %m5 = memref.load %Max[%c5, %c0] : memref<64x1xf32>
    vector.print str "Max[5] = "
    vector.print %m5 : f32
    %y = memref.load %Y[%c3, %c13] : memref<64x64xf32>
    vector.print str "Y[3][13] = "
    vector.print %y : f32
    memref.dealloc %X : memref<64x64xf32>
    memref.dealloc %Y : memref<64x64xf32>
    memref.dealloc %Max : memref<64x1xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
