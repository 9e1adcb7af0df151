// axe.gemm {zero_init} on trn: tensore-matmul honours zero_init itself with
// the start flag of each output tile's first matmul (two K tiles here, so
// only the first step of the K loop starts). The gemm runs twice into the
// same PSUM buffer, so a zero_init that were lost would leave 2 A x B, not
// A x B. The axe.barrier in the loop lowers to nothing (the engines'
// semaphores order the instructions). axe-dispatch used to put a zero fill
// and a barrier before the gemm, and the barrier had no trn lowering.
// Every element of C is checked against A x B in the simulator.
// RUN: axe-opt %s --axe-to-trn > %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: axe-trn-sim %t.mlir --check-matmul --check-lhs=mk | FileCheck %s
// IR-NOT: trn.memset
// IR: scf.if
// IR-NEXT: trn.matmul {{.*}} start :
// IR-NEXT: } else {
// IR-NEXT: trn.matmul {{.*}}sbuf>> into
// IR-NOT: axe.
// CHECK: check-matmul: 2048 elements, {{.*}}: PASS
!hA = !axe.buffer<64x256xf32, #axe.layout<S[(64, 256) : (256, 1)]>, hbm>
!hB = !axe.buffer<256x32xf32, #axe.layout<S[(256, 32) : (32, 1)]>, hbm>
!hC = !axe.buffer<64x32xf32, #axe.layout<S[(64, 32) : (32, 1)]>, hbm>
!a = !axe.buffer<64x256xf32, ?, sbuf>
!b = !axe.buffer<256x32xf32, ?, sbuf>
!p = !axe.buffer<64x32xf32, ?, psum>
!s = !axe.buffer<64x32xf32, ?, sbuf>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k(%A: memref<64x256xf32>, %B: memref<256x32xf32>, %C: memref<64x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    axe.kernel {
      %hA = axe.view %A[0, 0] : memref<64x256xf32> -> !hA
      %hB = axe.view %B[0, 0] : memref<256x32xf32> -> !hB
      %hC = axe.view %C[0, 0] : memref<64x32xf32> -> !hC
      %a = axe.alloc : !a
      %b = axe.alloc : !b
      %p = axe.alloc : !p
      %s = axe.alloc : !s
      axe.copy %hA to %a at cta : !hA to !a
      axe.copy %hB to %b at cta : !hB to !b
      scf.for %i = %c0 to %c2 step %c1 {
        axe.gemm %a, %b into %p at cta {zero_init} : !a, !b into !p
        axe.barrier at cta
      }
      axe.copy %p to %s at cta : !p to !s
      axe.copy %s to %hC at cta : !s to !hC
    }
    return
  }
}
