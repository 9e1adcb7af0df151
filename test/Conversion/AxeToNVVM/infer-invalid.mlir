// RUN: axe-opt %s -split-input-file -axe-infer-layouts=allow-conversions=false -verify-diagnostics
// RUN: axe-opt %s -split-input-file -axe-infer-layouts | FileCheck %s

// Tiles of A and B with 256-byte rows loaded by one TMA box each and read
// by wgmma: TMA writes a box that wide only row-major (a swizzle line holds
// at most 128 bytes of a row), and wgmma's descriptors read only tiles of
// shared-memory atoms. Without conversions no layout satisfies both, and
// the pass says why the schedule declined and which layouts it tried; with
// them, each box lands in a row-major scratch tile, copied after the wait
// into the atoms wgmma reads (test/GPUSim/infer-run-sm90.mlir runs it).

// CHECK-LABEL: func.func @tma_box_wider_than_a_swizzle
// CHECK-DAG: %[[ATOMS_A:.*]] = axe.alloc : !axe.buffer<64x128xf16, #axe.layout<SW(3, 3, 3) o S[(64, 2, 64) : (64, 4096, 1)]>, shared>
// CHECK-DAG: %[[ATOMS_B:.*]] = axe.alloc : !axe.buffer<128x128xf16, #axe.layout<SW(3, 3, 3) o S[(128, 2, 64) : (64, 8192, 1)]>, shared>
// CHECK-DAG: %[[ROWS_A:.*]] = axe.alloc : !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, shared>
// CHECK-DAG: %[[ROWS_B:.*]] = axe.alloc : !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (128, 1)]>, shared>
// CHECK: axe.copy_async %{{.*}} to %[[ROWS_A]] at warpgroup {schedule = {sm_90 = "tma"}}
// CHECK: axe.copy_async %{{.*}} to %[[ROWS_B]] at warpgroup {schedule = {sm_90 = "tma"}}
// CHECK: axe.wait
// CHECK-DAG: axe.copy %[[ROWS_A]] to %[[ATOMS_A]] at warpgroup
// CHECK-DAG: axe.copy %[[ROWS_B]] to %[[ATOMS_B]] at warpgroup
// CHECK: axe.gemm %[[ATOMS_A]], %[[ATOMS_B]] into %{{.*}} at warpgroup {schedule = {sm_90 = "wgmma"}
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_box_wider_than_a_swizzle(%A: memref<64x128xf16>,
                                          %B: memref<128x128xf16>,
                                          %C: memref<64x128xf32>) {
    axe.kernel grid [1] threads 128 {
      // expected-note @+1 {{candidates for this buffer: S[(64, 128) : (128, 1)] (schedule 'tma'}}
      %sA = axe.alloc : !axe.buffer<64x128xf16, ?, shared>
      // expected-note @+1 {{candidates for this buffer: S[(128, 128) : (128, 1)] (schedule 'tma'}}
      %sB = axe.alloc : !axe.buffer<128x128xf16, ?, shared>
      // expected-note @+1 {{candidates for this buffer: S[(4, 2, 8, 16, 4, 2) : (32@tid_in_wg, 2, 4@tid_in_wg, 4, 1@tid_in_wg, 1)] (schedule 'wgmma'}}
      %acc = axe.alloc : !axe.buffer<64x128xf32, ?, reg>
      %gA = axe.view %A[0, 0] : memref<64x128xf16>
          -> !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, global>
      %gB = axe.view %B[0, 0] : memref<128x128xf16>
          -> !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (128, 1)]>, global>
      %tA = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}}
          : !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, global>
            to !axe.buffer<64x128xf16, ?, shared>
      %tB = axe.copy_async %gB to %sB at warpgroup {schedule = {sm_90 = "tma"}}
          : !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (128, 1)]>, global>
            to !axe.buffer<128x128xf16, ?, shared>
      axe.wait %tA, %tB at warpgroup
      // expected-error @+2 {{axe-infer-layouts: no layouts found for which a schedule of target sm_90 runs this op (conversions are off: allow-conversions=false)}}
      // expected-note @+1 {{schedule 'wgmma' declined: wgmma reads A through a shared-memory descriptor: the layout S[(64, 128) : (128, 1)] is no tile of a shared-memory atom}}
      axe.gemm %sA, %sB into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b, zero_init}
          : !axe.buffer<64x128xf16, ?, shared>, !axe.buffer<128x128xf16, ?, shared>
            into !axe.buffer<64x128xf32, ?, reg>
      %gC = axe.view %C[0, 0] : memref<64x128xf32>
          -> !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (128, 1)]>, global>
      axe.copy %acc to %gC at warpgroup
          : !axe.buffer<64x128xf32, ?, reg>
            to !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (128, 1)]>, global>
    }
    return
  }
}
