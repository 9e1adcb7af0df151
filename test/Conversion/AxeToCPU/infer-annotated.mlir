// A fully annotated kernel (the staged GEMM of axe-cpu-bench with its
// hand-written panels, and a register tile) goes through
// axe-infer-layouts unchanged: no layout, no pinned schedule, no copy.
// RUN: axe-opt %s -o %t.plain.mlir
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=512" -o %t.inferred.mlir
// RUN: diff %t.plain.mlir %t.inferred.mlir
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=512" | FileCheck %s
// CHECK-NOT: schedule
// CHECK-NOT: ?

!gA = !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (256, 1)]>, global>
!sA = !axe.buffer<128x128xf32, #axe.layout<S[(16, 8, 128) : (1024, 1, 8)]>, shared>
!sB = !axe.buffer<128x128xf32, #axe.layout<S[(128, 4, 32) : (32, 4096, 1)]>, shared>
!acc = !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, shared>
!r = !axe.buffer<128x128xf32, #axe.layout<S[(32, 4, 128) : (1@tx, 128, 1)]>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
func.func @staged(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %ct = arith.constant 128 : index
  %cn = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  axe.kernel grid [2, 2] threads 32 {
    %bx = axe.axis_id bx
    %by = axe.axis_id by
    %m0 = arith.muli %bx, %ct : index
    %n0 = arith.muli %by, %ct : index
    %sA = axe.alloc : !sA
    %sB = axe.alloc : !sB
    %acc = axe.alloc : !acc
    axe.fill %acc, %zero at cta : !acc
    scf.for %k = %c0 to %cn step %ct {
      %gA = axe.view %A[%m0, %k] : memref<256x256xf32> -> !gA
      %gB = axe.view %B[%k, %n0] : memref<256x256xf32> -> !gA
      axe.copy %gA to %sA at cta : !gA to !sA
      axe.copy %gB to %sB at cta : !gA to !sB
      axe.gemm %sA, %sB into %acc at cta : !sA, !sB into !acc
    }
    %r = axe.alloc : !r
    axe.copy %acc to %r at cta : !acc to !r
    %gC = axe.view %C[%m0, %n0] : memref<256x256xf32> -> !gA
    axe.copy %r to %gC at cta : !r to !gA
  }
  return
}
}
