// RUN: axe-opt %s | axe-opt | FileCheck %s --check-prefix=PARSE
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s

// gemm_sm80.mlir with only its global views written: the shared tiles of A
// and B and the register accumulator are `?`, chosen by axe-infer-layouts
// from the nvvm schedules' proposals. mma.sync anchors all three: C as
// m16n8k16 accumulator fragments over the CTA's 4 warps (2x2, the split
// whose warps read the fewest fragment rows), A's 64-byte rows under the
// 64B swizzle and B's 128-byte rows under the 128B swizzle, which ldmatrix
// reads without bank conflicts. They come out as the hand-written kernel
// spells them (test/GPUSim/infer-kernels.test compares the two lowered,
// assembled and run).

#gA = #axe.layout<S[(64, 32) : (256, 1)]>
#gB = #axe.layout<S[(32, 64) : (256, 1)]>
#gC = #axe.layout<S[(64, 64) : (256, 1)]>

// PARSE: axe.alloc : !axe.buffer<64x32xf16, ?, shared>
// CHECK-LABEL: func.func @gemm_sm80
// CHECK: axe.alloc : !axe.buffer<64x32xf16, #axe.layout<SW(3, 2, 3) o S[(64, 32) : (32, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<32x64xf16, #axe.layout<SW(3, 3, 3) o S[(32, 64) : (64, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at cta {schedule = {sm_80 = "mma.sync"}}
// CHECK-NOT: ?,
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
      %sA = axe.alloc : !axe.buffer<64x32xf16, ?, shared>
      %sB = axe.alloc : !axe.buffer<32x64xf16, ?, shared>
      %acc = axe.alloc : !axe.buffer<64x64xf32, ?, reg>
      axe.fill %acc, %zero at cta : !axe.buffer<64x64xf32, ?, reg>
      scf.for %k = %c0 to %c256 step %c32 {
        %gA = axe.view %A[%m0, %k] : memref<256x256xf16>
            -> !axe.buffer<64x32xf16, #gA, global>
        %gB = axe.view %B[%k, %n0] : memref<256x256xf16>
            -> !axe.buffer<32x64xf16, #gB, global>
        axe.copy %gA to %sA at cta
            : !axe.buffer<64x32xf16, #gA, global> to !axe.buffer<64x32xf16, ?, shared>
        axe.copy %gB to %sB at cta
            : !axe.buffer<32x64xf16, #gB, global> to !axe.buffer<32x64xf16, ?, shared>
        axe.barrier at cta
        axe.gemm %sA, %sB into %acc at cta
            : !axe.buffer<64x32xf16, ?, shared>, !axe.buffer<32x64xf16, ?, shared>
              into !axe.buffer<64x64xf32, ?, reg>
        axe.barrier at cta
      }
      %gC = axe.view %C[%m0, %n0] : memref<256x256xf32>
          -> !axe.buffer<64x64xf32, #gC, global>
      axe.copy %acc to %gC at cta
          : !axe.buffer<64x64xf32, ?, reg> to !axe.buffer<64x64xf32, #gC, global>
    }
    return
  }
}
