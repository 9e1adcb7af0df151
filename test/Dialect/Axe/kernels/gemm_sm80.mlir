// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s -emit-bytecode | axe-opt | FileCheck %s

// A CTA-level tiled GEMM for sm_80: C (256x256 f32) = A (256x256 f16) x
// B (256x256 f16). Each CTA computes a 64x64 tile of C with 4 warps (2x2,
// each warp 32x32 from m16n8k16 accumulator fragments), staging 64x32 and
// 32x64 tiles of A and B through swizzled shared memory. Every operator runs
// at CTA scope; the same source runs on the CPU target.

#gA = #axe.layout<S[(64, 32) : (256, 1)]>
#gB = #axe.layout<S[(32, 64) : (256, 1)]>
#gC = #axe.layout<S[(64, 64) : (256, 1)]>
// 64-byte rows of A: the 64B swizzle; 128-byte rows of B: the 128B swizzle.
#sA = #axe.layout<SW(3, 2, 3) o S[(64, 32) : (32, 1)]>
#sB = #axe.layout<SW(3, 3, 3) o S[(32, 64) : (64, 1)]>
// Rows: warp row (2) x 16-row tile (2) x fragment half (2) x lane group (8);
// cols: warp col (2) x 8-col tile (4) x lane in group (4) x pair (2). Each
// thread holds 2 x 4 x 2 x 2 = 32 f32 accumulators.
#acc = #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>

// CHECK-LABEL: func.func @gemm_sm80
// CHECK: axe.kernel grid [4, 4] threads 128 {
// CHECK: axe.alloc : !axe.buffer<64x32xf16, #axe.layout<SW(3, 2, 3) o S[(64, 32) : (32, 1)]>, shared>
// CHECK: axe.fill %{{.*}}, %{{.*}} at cta
// CHECK: scf.for
// CHECK: axe.view %{{.*}} [%{{.*}}, %{{.*}}] : memref<256x256xf16> -> !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (256, 1)]>, global>
// CHECK: axe.copy %{{.*}} to %{{.*}} at cta
// CHECK: axe.barrier at cta
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at cta
// CHECK: axe.copy %{{.*}} to %{{.*}} at cta : !axe.buffer<64x64xf32, #axe.layout<{{.*}}>, reg> to !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (256, 1)]>, global>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @gemm_sm80(%A: memref<256x256xf16>, %B: memref<256x256xf16>,
                       %C: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [4, 4] threads 128 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c64 : index
      %n0 = arith.muli %by, %c64 : index
      %sA = axe.alloc : !axe.buffer<64x32xf16, #sA, shared>
      %sB = axe.alloc : !axe.buffer<32x64xf16, #sB, shared>
      %acc = axe.alloc : !axe.buffer<64x64xf32, #acc, reg>
      axe.fill %acc, %zero at cta : !axe.buffer<64x64xf32, #acc, reg>
      scf.for %k = %c0 to %c256 step %c32 {
        %gA = axe.view %A[%m0, %k] : memref<256x256xf16>
            -> !axe.buffer<64x32xf16, #gA, global>
        %gB = axe.view %B[%k, %n0] : memref<256x256xf16>
            -> !axe.buffer<32x64xf16, #gB, global>
        axe.copy %gA to %sA at cta
            : !axe.buffer<64x32xf16, #gA, global> to !axe.buffer<64x32xf16, #sA, shared>
        axe.copy %gB to %sB at cta
            : !axe.buffer<32x64xf16, #gB, global> to !axe.buffer<32x64xf16, #sB, shared>
        axe.barrier at cta
        axe.gemm %sA, %sB into %acc at cta
            : !axe.buffer<64x32xf16, #sA, shared>, !axe.buffer<32x64xf16, #sB, shared>
              into !axe.buffer<64x64xf32, #acc, reg>
        axe.barrier at cta
      }
      %gC = axe.view %C[%m0, %n0] : memref<256x256xf32>
          -> !axe.buffer<64x64xf32, #gC, global>
      axe.copy %acc to %gC at cta
          : !axe.buffer<64x64xf32, #acc, reg> to !axe.buffer<64x64xf32, #gC, global>
    }
    return
  }
}
