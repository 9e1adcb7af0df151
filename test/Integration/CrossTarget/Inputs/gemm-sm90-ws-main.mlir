// The host side of gemm-sm90-ws-kernel.mlir: it calls the kernel, compiled from its own
// file and linked in, and checks every element against a reference.
module {
  func.func private @gemm_sm90_ws(memref<?x512xf16>, memref<1024x512xf16>, memref<?x1024xf32>, index)
  // Returns 0 for lli, which exits with main's result.
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %c1024 = arith.constant 1024 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %minus = arith.constant -1.0 : f32
    %A = memref.alloc(%c256) : memref<?x512xf16>
    %B = memref.alloc() : memref<1024x512xf16>
    %C = memref.alloc(%c256) : memref<?x1024xf32>
    // A[i][k] = (i + 2k) mod 5 - 2 and B[n][k] = (3n + k) mod 7 - 3: small
    // integers, exact in f16 and in the f32 sums.
    scf.for %k = %c0 to %c512 step %c1 {
      scf.for %i = %c0 to %c256 step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remui %u, %c5 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f16
        %two = arith.constant 2.0 : f16
        %v = arith.subf %rf, %two : f16
        memref.store %v, %A[%i, %k] : memref<?x512xf16>
      }
      scf.for %n = %c0 to %c1024 step %c1 {
        %t = arith.muli %n, %c3 : index
        %u = arith.addi %t, %k : index
        %r = arith.remui %u, %c7 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f16
        %three = arith.constant 3.0 : f16
        %v = arith.subf %rf, %three : f16
        memref.store %v, %B[%n, %k] : memref<1024x512xf16>
      }
    }
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %n = %c0 to %c1024 step %c1 {
        memref.store %minus, %C[%i, %n] : memref<?x1024xf32>
      }
    }
    %tiles = arith.constant 2 : index
    call @gemm_sm90_ws(%A, %B, %C, %tiles)
        : (memref<?x512xf16>, memref<1024x512xf16>, memref<?x1024xf32>, index) -> ()
    // C = A x B^T, every element.
    %bad = scf.for %i = %c0 to %c256 step %c1 iter_args(%nb = %zi) -> (i64) {
      %row = scf.for %n = %c0 to %c1024 step %c1 iter_args(%m = %nb) -> (i64) {
        %dot = scf.for %k = %c0 to %c512 step %c1 iter_args(%s = %zf) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<?x512xf16>
          %b = memref.load %B[%n, %k] : memref<1024x512xf16>
          %a32 = arith.extf %a : f16 to f32
          %b32 = arith.extf %b : f16 to f32
          %p = arith.mulf %a32, %b32 : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %n] : memref<?x1024xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "gemm_sm90_ws on cpu mismatches: "
    vector.print %bad : i64
    %c100 = arith.constant 100 : index
    %c700 = arith.constant 700 : index
    %v = memref.load %C[%c100, %c700] : memref<?x1024xf32>
    vector.print str "C[100][700] = "
    vector.print %v : f32
    memref.dealloc %A : memref<?x512xf16>
    memref.dealloc %B : memref<1024x512xf16>
    memref.dealloc %C : memref<?x1024xf32>
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
