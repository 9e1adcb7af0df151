// RUN: axe-opt %s | axe-opt | FileCheck %s --check-prefix=PARSE
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s

// gemm_sm100.mlir with only its global views written: the shared tiles, the
// tensor-memory accumulator and the epilogue's registers are `?`. The
// kernel still forces TMA and tcgen05 for sm_100a, as the hand-written one
// does. TMA and tcgen05.mma anchor the shared tiles (the 128B swizzle atom
// of their 128-byte rows, K-major), tcgen05.mma the accumulator (data path
// D: row i on TMEM lane i), and tcgen05.ld.32x32b the registers it reads
// into (row t on thread t of the warpgroup) (test/GPUSim/infer-kernels.test
// compares the two lowered, assembled and run).

#gA = #axe.layout<S[(128, 64) : (512, 1)]>
#gC = #axe.layout<S[(128, 128) : (1024, 1)]>

// PARSE: axe.alloc : !axe.buffer<128x128xf32, ?, tmem>
// CHECK-LABEL: func.func @gemm_sm100
// CHECK: axe.alloc : !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (1@TLane, 1@TCol)]>, tmem>
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at warp {schedule = {sm_100a = "tcgen05"}, transpose_b, zero_init}
// CHECK: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (1@tid_in_wg, 1)]>, reg>
// CHECK: axe.copy %{{.*}} to %{{.*}} at warpgroup {schedule = {sm_100a = "tcgen05.ld"}}
// CHECK-NOT: ?,
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @gemm_sm100(%A: memref<?x512xf16>, %B: memref<1024x512xf16>,
                        %C: memref<?x1024xf32>, %mTiles: index) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    axe.kernel grid [%mTiles, 8] threads 256 cluster [2, 1] {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c128 : index
      %n0 = arith.muli %by, %c128 : index
      %sA = axe.alloc : !axe.buffer<128x64xf16, ?, shared>
      %sB = axe.alloc : !axe.buffer<128x64xf16, ?, shared>
      %acc = axe.alloc : !axe.buffer<128x128xf32, ?, tmem>
      axe.warp_specialize {
        axe.partition warps [0, 1) {
          axe.barrier at cta
          scf.for %k = %c0 to %c512 step %c64 {
            %gA = axe.view %A[%m0, %k] : memref<?x512xf16>
                -> !axe.buffer<128x64xf16, #gA, global>
            %gB = axe.view %B[%n0, %k] : memref<1024x512xf16>
                -> !axe.buffer<128x64xf16, #gA, global>
            %tA = axe.copy_async %gA to %sA at warp {schedule = {sm_100a = "tma"}}
                : !axe.buffer<128x64xf16, #gA, global> to !axe.buffer<128x64xf16, ?, shared>
            %tB = axe.copy_async %gB to %sB at warp {schedule = {sm_100a = "tma"}}
                : !axe.buffer<128x64xf16, #gA, global> to !axe.buffer<128x64xf16, ?, shared>
            axe.wait %tA, %tB at warp
            axe.barrier at cta
            axe.barrier at cta
          }
        }
        axe.partition warps [1, 2) {
          axe.barrier at cta
          axe.barrier at cta
          axe.gemm %sA, %sB into %acc at warp {schedule = {sm_100a = "tcgen05"}, transpose_b, zero_init}
              : !axe.buffer<128x64xf16, ?, shared>, !axe.buffer<128x64xf16, ?, shared>
                into !axe.buffer<128x128xf32, ?, tmem>
          axe.barrier at cta
          scf.for %k = %c64 to %c512 step %c64 {
            axe.barrier at cta
            axe.gemm %sA, %sB into %acc at warp {schedule = {sm_100a = "tcgen05"}, transpose_b}
                : !axe.buffer<128x64xf16, ?, shared>, !axe.buffer<128x64xf16, ?, shared>
                  into !axe.buffer<128x128xf32, ?, tmem>
            axe.barrier at cta
          }
        }
        axe.partition warps [2, 4) {
          axe.barrier at cta
          scf.for %k = %c0 to %c512 step %c64 {
            axe.barrier at cta
            axe.barrier at cta
          }
        }
        axe.partition warps [4, 8) {
          axe.barrier at cta
          scf.for %k = %c0 to %c512 step %c64 {
            axe.barrier at cta
            axe.barrier at cta
          }
          %r = axe.alloc : !axe.buffer<128x128xf32, ?, reg>
          axe.copy %acc to %r at warpgroup
              : !axe.buffer<128x128xf32, ?, tmem> to !axe.buffer<128x128xf32, ?, reg>
          %gC = axe.view %C[%m0, %n0] : memref<?x1024xf32>
              -> !axe.buffer<128x128xf32, #gC, global>
          axe.copy %r to %gC at warpgroup
              : !axe.buffer<128x128xf32, ?, reg> to !axe.buffer<128x128xf32, #gC, global>
        }
      }
    }
    return
  }
}
