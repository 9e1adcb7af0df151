// RUN: axe-opt %s | axe-opt | FileCheck %s --check-prefix=PARSE
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s

// gemm_sm90_ws.mlir with only its global views written: the shared tiles
// of A and B, the consumer's half of A (a slice) and the wgmma accumulator
// are `?`. The kernel still forces TMA and wgmma for sm_90, as the
// hand-written one does (a choice of instruction, not of layout). TMA
// anchors the shared tiles (its 128-byte box rows as the 128B swizzle atom),
// wgmma reads them K-major through descriptors of the same atoms, and
// its m64n128k16 D fragment gives the accumulator, one per consumer
// warpgroup (test/GPUSim/infer-kernels.test compares the two lowered,
// assembled and run).

#gA = #axe.layout<S[(128, 64) : (512, 1)]>
#gB = #axe.layout<S[(128, 64) : (512, 1)]>
#gC = #axe.layout<S[(64, 128) : (1024, 1)]>

// PARSE: axe.alloc : !axe.buffer<128x64xf16, ?, shared>
// CHECK-LABEL: func.func @gemm_sm90_ws
// CHECK: axe.alloc : !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared>
// CHECK: axe.copy_async %{{.*}} to %{{.*}} at warpgroup {schedule = {sm_90 = "tma"}}
// CHECK: axe.alloc : !axe.buffer<64x128xf32, #axe.layout<S[(4, 2, 8, 16, 4, 2) : (32@tid_in_wg, 2, 4@tid_in_wg, 4, 1@tid_in_wg, 1)]>, reg>
// CHECK: axe.slice %{{.*}} [%{{.*}}, 0] : !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared> -> !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b}
// CHECK-NOT: ?,
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @gemm_sm90_ws(%A: memref<?x512xf16>, %B: memref<1024x512xf16>,
                          %C: memref<?x1024xf32>, %mTiles: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [%mTiles, 8] threads 384 cluster [2, 1] {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c128 : index
      %n0 = arith.muli %by, %c128 : index
      %sA = axe.alloc : !axe.buffer<128x64xf16, ?, shared>
      %sB = axe.alloc : !axe.buffer<128x64xf16, ?, shared>
      axe.warp_specialize {
        axe.partition warps [0, 4) registers 40 {
          scf.for %k = %c0 to %c512 step %c64 {
            %gA = axe.view %A[%m0, %k] : memref<?x512xf16>
                -> !axe.buffer<128x64xf16, #gA, global>
            %gB = axe.view %B[%n0, %k] : memref<1024x512xf16>
                -> !axe.buffer<128x64xf16, #gB, global>
            %tA = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}}
                : !axe.buffer<128x64xf16, #gA, global> to !axe.buffer<128x64xf16, ?, shared>
            %tB = axe.copy_async %gB to %sB at warpgroup {schedule = {sm_90 = "tma"}}
                : !axe.buffer<128x64xf16, #gB, global> to !axe.buffer<128x64xf16, ?, shared>
            axe.wait %tA, %tB at warpgroup
            axe.barrier at cta
            axe.barrier at cta
          }
        }
        axe.partition warps [4, 12) registers 232 {
          %wgid = axe.axis_id wgid
          %half = arith.subi %wgid, %c1 : index
          %row = arith.muli %half, %c64 : index
          %acc = axe.alloc : !axe.buffer<64x128xf32, ?, reg>
          axe.fill %acc, %zero at warpgroup : !axe.buffer<64x128xf32, ?, reg>
          scf.for %k = %c0 to %c512 step %c64 {
            axe.barrier at cta
            %a = axe.slice %sA[%row, 0]
                : !axe.buffer<128x64xf16, ?, shared> -> !axe.buffer<64x64xf16, ?, shared>
            axe.gemm %a, %sB into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b}
                : !axe.buffer<64x64xf16, ?, shared>, !axe.buffer<128x64xf16, ?, shared>
                  into !axe.buffer<64x128xf32, ?, reg>
            axe.barrier at cta
          }
          %m = arith.addi %m0, %row : index
          %gC = axe.view %C[%m, %n0] : memref<?x1024xf32>
              -> !axe.buffer<64x128xf32, #gC, global>
          axe.copy %acc to %gC at warpgroup
              : !axe.buffer<64x128xf32, ?, reg> to !axe.buffer<64x128xf32, #gC, global>
        }
      }
    }
    return
  }
}
