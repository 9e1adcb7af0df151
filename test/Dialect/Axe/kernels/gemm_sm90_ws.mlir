// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s -emit-bytecode | axe-opt | FileCheck %s

// A warp-specialized GEMM for sm_90: C (M x 1024 f32) = A (M x 512 f16) x
// B^T, B stored N x K (1024 x 512 f16, K-major as wgmma reads it). A CTA of
// 3 warpgroups computes a 128x128 tile: warpgroup 0 (warps [0, 4)) loads
// 128x64 tiles of A and B into 128B-swizzled shared memory with TMA-style
// asynchronous copies; warpgroups 1 and 2 (warps [4, 12)) each multiply
// their 64-row half of the A tile with wgmma into a 64x128 register
// accumulator. CTA barriers hand each stage from the producer to the
// consumers. Clusters of 2 CTAs along M. The TMA and wgmma schedules are
// forced for sm_90 only, so the same source runs on other targets (the CPU:
// test/Integration/CrossTarget/gemm-sm90-ws-kernel.mlir) with their own choices.

#gA = #axe.layout<S[(128, 64) : (512, 1)]>
#gB = #axe.layout<S[(128, 64) : (512, 1)]>
#gC = #axe.layout<S[(64, 128) : (1024, 1)]>
#sw = #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>
#swHalf = #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>
// wgmma m64n128 accumulator: warp w of the warpgroup holds rows 16w..16w+15;
// lane l rows l/4 and l/4 + 8, columns 8j + 2(l mod 4) + {0, 1}.
#acc = #axe.layout<S[(4, 2, 8, 16, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>

// CHECK-LABEL: func.func @gemm_sm90_ws
// CHECK: axe.kernel grid [%{{.*}}, 8] threads 384 cluster [2, 1] {
// CHECK: axe.warp_specialize {
// CHECK: axe.partition warps [0, 4) registers 40 {
// CHECK: %[[T:.*]] = axe.copy_async %{{.*}} to %{{.*}} at warpgroup {schedule = {sm_90 = "tma"}}
// CHECK: axe.wait %[[T]], %{{.*}} at warpgroup
// CHECK: axe.barrier at cta
// CHECK: axe.partition warps [4, 12) registers 232 {
// CHECK: %wgid = axe.axis_id wgid
// CHECK: axe.slice %{{.*}} [%{{.*}}, 0] : !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared> -> !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b}
// CHECK: axe.copy %{{.*}} to %{{.*}} at warpgroup
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
      %sA = axe.alloc : !axe.buffer<128x64xf16, #sw, shared>
      %sB = axe.alloc : !axe.buffer<128x64xf16, #sw, shared>
      axe.warp_specialize {
        // Producer warpgroup: 40 registers per thread are plenty for
        // issuing copies; the consumers take the rest for accumulators.
        axe.partition warps [0, 4) registers 40 {
          scf.for %k = %c0 to %c512 step %c64 {
            %gA = axe.view %A[%m0, %k] : memref<?x512xf16>
                -> !axe.buffer<128x64xf16, #gA, global>
            %gB = axe.view %B[%n0, %k] : memref<1024x512xf16>
                -> !axe.buffer<128x64xf16, #gB, global>
            %tA = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}}
                : !axe.buffer<128x64xf16, #gA, global> to !axe.buffer<128x64xf16, #sw, shared>
            %tB = axe.copy_async %gB to %sB at warpgroup {schedule = {sm_90 = "tma"}}
                : !axe.buffer<128x64xf16, #gB, global> to !axe.buffer<128x64xf16, #sw, shared>
            axe.wait %tA, %tB at warpgroup
            // Stage full: hand it to the consumers, then wait until they
            // have read it before overwriting.
            axe.barrier at cta
            axe.barrier at cta
          }
        }
        // Consumer warpgroups 1 and 2.
        axe.partition warps [4, 12) registers 232 {
          %wgid = axe.axis_id wgid
          %half = arith.subi %wgid, %c1 : index
          %row = arith.muli %half, %c64 : index
          %acc = axe.alloc : !axe.buffer<64x128xf32, #acc, reg>
          axe.fill %acc, %zero at warpgroup : !axe.buffer<64x128xf32, #acc, reg>
          scf.for %k = %c0 to %c512 step %c64 {
            axe.barrier at cta
            %a = axe.slice %sA[%row, 0]
                : !axe.buffer<128x64xf16, #sw, shared> -> !axe.buffer<64x64xf16, #swHalf, shared>
            axe.gemm %a, %sB into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b}
                : !axe.buffer<64x64xf16, #swHalf, shared>, !axe.buffer<128x64xf16, #sw, shared>
                  into !axe.buffer<64x128xf32, #acc, reg>
            axe.barrier at cta
          }
          %m = arith.addi %m0, %row : index
          %gC = axe.view %C[%m, %n0] : memref<?x1024xf32>
              -> !axe.buffer<64x128xf32, #gC, global>
          axe.copy %acc to %gC at warpgroup
              : !axe.buffer<64x128xf32, #acc, reg> to !axe.buffer<64x128xf32, #gC, global>
        }
      }
    }
    return
  }
}
