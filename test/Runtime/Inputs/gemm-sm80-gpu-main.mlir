// The host side of cuda-gemm-gpu.test: the CPU test's main
// (Integration/CrossTarget/Inputs/gemm-sm80-main.mlir) with its buffers in managed
// memory (gpu.alloc host_shared), because the generated gemm_sm80 hands the
// memrefs it is called with straight to the kernel, and plain host memory is
// not device-accessible (docs/CUDARuntime.md). The host fills and checks
// the same buffers; gemm_sm80 synchronizes its stream before returning.
module {
  func.func private @gemm_sm80(memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf32>)
  // Returns 0 for lli, which exits with main's result.
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c256 = arith.constant 256 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %A = gpu.alloc host_shared () : memref<256x256xf16>
    %B = gpu.alloc host_shared () : memref<256x256xf16>
    %C = gpu.alloc host_shared () : memref<256x256xf32>
    // Small integers (exact in f16 and in f32 sums).
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %s = arith.addi %i, %j : index
        %a = arith.remui %s, %c5 : index
        %p = arith.muli %i, %c7 : index
        %q = arith.addi %p, %j : index
        %b = arith.remui %q, %c7 : index
        %ai = arith.index_cast %a : index to i64
        %bi = arith.index_cast %b : index to i64
        %af = arith.sitofp %ai : i64 to f16
        %bf = arith.sitofp %bi : i64 to f16
        memref.store %af, %A[%i, %j] : memref<256x256xf16>
        memref.store %bf, %B[%i, %j] : memref<256x256xf16>
        memref.store %zf, %C[%i, %j] : memref<256x256xf32>
      }
    }
    call @gemm_sm80(%A, %B, %C) : (memref<256x256xf16>, memref<256x256xf16>, memref<256x256xf32>) -> ()
    %bad = scf.for %i = %c0 to %c256 step %c1 iter_args(%n = %zi) -> (i64) {
      %row = scf.for %j = %c0 to %c256 step %c1 iter_args(%m = %n) -> (i64) {
        %dot = scf.for %k = %c0 to %c256 step %c1 iter_args(%s = %zf) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<256x256xf16>
          %b = memref.load %B[%k, %j] : memref<256x256xf16>
          %a32 = arith.extf %a : f16 to f32
          %b32 = arith.extf %b : f16 to f32
          %p = arith.mulf %a32, %b32 : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %j] : memref<256x256xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "gemm_sm80 on gpu mismatches: "
    vector.print %bad : i64
    %v = memref.load %C[%c5, %c6] : memref<256x256xf32>
    vector.print str "C[5][6] = "
    vector.print %v : f32
    // gpu-to-llvm lowers only the async form of gpu.dealloc.
    %t0 = gpu.wait async
    %t1 = gpu.dealloc async [%t0] %A : memref<256x256xf16>
    %t2 = gpu.dealloc async [%t1] %B : memref<256x256xf16>
    %t3 = gpu.dealloc async [%t2] %C : memref<256x256xf32>
    gpu.wait [%t3]
    %ok = arith.constant 0 : i32
    return %ok : i32
  }
}
