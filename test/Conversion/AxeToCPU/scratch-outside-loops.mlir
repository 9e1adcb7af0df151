// RUN: axe-opt %s --axe-dispatch="target=cpu vector-bits=256" | FileCheck %s

// A gemm in a loop over K slices packs B (and widens A) into scratch on the
// stack. The scratch is allocated once, at the start of the CTA, not in the
// loop's body: an alloca there would take a new block of stack at every
// iteration until the CTA ends (scf.for is an allocation scope to MLIR, but
// nothing releases its allocas when it lowers to branches), so a deep K
// would overflow the stack.
// CHECK-LABEL: func.func @gemm_over_k_slices
// CHECK: axe.kernel
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4096xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4096xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloca
// CHECK: vector.fma
func.func @gemm_over_k_slices(%A: memref<64x1024xf16>, %B: memref<1024x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  axe.kernel grid [1] threads 1 {
    %gC = axe.view %C[%c0, %c0] : memref<64x64xf32> -> !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
    scf.for %k = %c0 to %c1024 step %c64 {
      %gA = axe.view %A[%c0, %k] : memref<64x1024xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (1024, 1)]>, global>
      %gB = axe.view %B[%k, %c0] : memref<1024x64xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      axe.gemm %gA, %gB into %gC at cta : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (1024, 1)]>, global>, !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global> into !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
    }
  }
  return
}
