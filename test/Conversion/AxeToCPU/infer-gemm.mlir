// axe-infer-layouts on CPU GEMMs: the shared tiles of the staged GEMM of
// axe-cpu-bench (written `?`) get the packed kernel's panels
// (gemmPanelLayoutA/B), which its copies pack into, and the accumulator
// rows; the gemm is pinned to cpu.gemm.panels, which packs nothing. The
// panels follow the vector unit: 8-row A panels and 32-column B panels for
// 512 bits; A k-major and 16-column B panels for 256 bits.
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=512" | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=256" | FileCheck %s --check-prefixes=CHECK,AVX2
// Idempotent: a second run changes nothing.
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=512" -o %t.once.mlir
// RUN: axe-opt %t.once.mlir --axe-infer-layouts="target=cpu vector-bits=512" -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// Why: the remarks of print-analysis-only, and the IR left as it was.
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=512 print-analysis-only" 2>&1 | FileCheck %s --check-prefix=WHY
// The whole pipeline lowers it.
// RUN: axe-opt %s --axe-to-cpu=vector-bits=512 | FileCheck %s --check-prefix=LOWERED

!gA = !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (256, 1)]>, global>
!sA = !axe.buffer<128x128xf32, ?, shared>
!sB = !axe.buffer<128x128xf32, ?, shared>
!acc = !axe.buffer<128x128xf32, ?, shared>

module attributes {axe.target = #axe.target<"cpu">} {
// CHECK-LABEL: func.func @staged
// AVX512: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(16, 8, 128) : (1024, 1, 8)]>, shared>
// AVX512-NEXT: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 4, 32) : (32, 4096, 1)]>, shared>
// AVX2: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (1, 128)]>, shared>
// AVX2-NEXT: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 8, 16) : (16, 2048, 1)]>, shared>
// CHECK-NEXT: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, shared>
// CHECK: axe.fill {{.*}} {schedule = {cpu = "cpu.fill"}}
// CHECK: axe.copy {{.*}} {schedule = {cpu = "cpu.copy"}}
// CHECK: axe.copy {{.*}} {schedule = {cpu = "cpu.copy"}}
// CHECK: axe.gemm {{.*}} {schedule = {cpu = "cpu.gemm.panels"}}
// CHECK: axe.copy {{.*}} {schedule = {cpu = "cpu.copy"}}
// CHECK-NOT: axe.alloc
// WHY: remark: layout S[(16, 8, 128) : (1024, 1, 8)] from schedule 'cpu.gemm.panels' of axe.gemm {{.*}} the micro-kernel's panels (A in 8-row panels, B in 32-column panels, C in rows), read in place
// WHY: note: also S[(128, 128) : (128, 1)] from schedule 'cpu.copy' of axe.copy {{.*}} dense in the order of the known side
// WHY: remark: layout S[(128, 4, 32) : (32, 4096, 1)] from schedule 'cpu.gemm.panels'
// WHY: remark: layout S[(128, 128) : (128, 1)] from schedule 'cpu.fill'
// WHY: remark: schedule 'cpu.gemm.panels', cost 0
// The counts -mlir-pass-statistics would show with an LLVM built with them.
// WHY: remark: axe-infer-layouts would infer 3 layout(s) and insert 0 conversion(s)
// WHY: func.func @staged
// WHY: axe.alloc : !axe.buffer<128x128xf32, ?, shared>
// LOWERED-LABEL: llvm.func @staged
// LOWERED-NOT: axe.
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
    %gC = axe.view %C[%m0, %n0] : memref<256x256xf32> -> !gA
    axe.copy %acc to %gC at cta : !acc to !gA
  }
  return
}

// K staged whole and read in 128-deep slices: the panels proposed for a
// slice are lifted to the whole tile (a grid of two slices on m), and B
// transposed takes the transposed panels.
// CHECK-LABEL: func.func @sliced
// AVX512: axe.alloc : !axe.buffer<128x256xf32, #axe.layout<S[(16, 8, 2, 128) : (1024, 1, 16384, 8)]>, shared>
// AVX512-NEXT: axe.alloc : !axe.buffer<128x256xf32, #axe.layout<S[(4, 32, 2, 128) : (4096, 1, 16384, 32)]>, shared>
// CHECK: axe.gemm {{.*}} {schedule = {cpu = "cpu.gemm.panels"}, transpose_b}
func.func @sliced(%A: memref<128x256xf32>, %Bt: memref<128x256xf32>, %C: memref<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %ct = arith.constant 128 : index
  %cn = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 32 {
    %gA = axe.view %A[0, 0] : memref<128x256xf32> -> !axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (256, 1)]>, global>
    %gB = axe.view %Bt[0, 0] : memref<128x256xf32> -> !axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (256, 1)]>, global>
    %sA = axe.alloc : !axe.buffer<128x256xf32, ?, shared>
    %sB = axe.alloc : !axe.buffer<128x256xf32, ?, shared>
    axe.copy %gA to %sA at cta : !axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (256, 1)]>, global> to !axe.buffer<128x256xf32, ?, shared>
    axe.copy %gB to %sB at cta : !axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (256, 1)]>, global> to !axe.buffer<128x256xf32, ?, shared>
    %acc = axe.alloc : !acc
    axe.fill %acc, %zero at cta : !acc
    scf.for %k = %c0 to %cn step %ct {
      %a = axe.slice %sA[0, %k] : !axe.buffer<128x256xf32, ?, shared> -> !axe.buffer<128x128xf32, ?, shared>
      %b = axe.slice %sB[0, %k] : !axe.buffer<128x256xf32, ?, shared> -> !axe.buffer<128x128xf32, ?, shared>
      axe.gemm %a, %b into %acc at cta {transpose_b} : !axe.buffer<128x128xf32, ?, shared>, !axe.buffer<128x128xf32, ?, shared> into !acc
    }
    %gC = axe.view %C[0, 0] : memref<128x128xf32> -> !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, global>
    axe.copy %acc to %gC at cta : !acc to !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, global>
  }
  return
}

// Integers: the packed kernel declines, cpu.gemm.naive proposes rows.
// CHECK-LABEL: func.func @integers
// CHECK: axe.alloc : !axe.buffer<16x16xi32, #axe.layout<S[(16, 16) : (16, 1)]>, shared>
// CHECK: axe.gemm {{.*}} {schedule = {cpu = "cpu.gemm.naive"}}
func.func @integers(%A: memref<16x16xi32>, %C: memref<16x16xi32>) {
  %z = arith.constant 0 : i32
  axe.kernel grid [1] threads 32 {
    %gA = axe.view %A[0, 0] : memref<16x16xi32> -> !axe.buffer<16x16xi32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
    %gC = axe.view %C[0, 0] : memref<16x16xi32> -> !axe.buffer<16x16xi32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
    %acc = axe.alloc : !axe.buffer<16x16xi32, ?, shared>
    axe.gemm %gA, %gA into %acc at cta : !axe.buffer<16x16xi32, #axe.layout<S[(16, 16) : (16, 1)]>, global>, !axe.buffer<16x16xi32, #axe.layout<S[(16, 16) : (16, 1)]>, global> into !axe.buffer<16x16xi32, ?, shared>
    axe.copy %acc to %gC at cta : !axe.buffer<16x16xi32, ?, shared> to !axe.buffer<16x16xi32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
  }
  return
}
}
