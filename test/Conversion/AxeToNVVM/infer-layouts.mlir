// RUN: axe-opt %s -split-input-file -axe-infer-layouts | FileCheck %s
// Running the pass again changes nothing, and neither does it change the
// hand-written kernels, whose layouts are all written.
// RUN: axe-opt %s -split-input-file -axe-infer-layouts -o %t.once
// RUN: axe-opt %t.once -split-input-file -axe-infer-layouts -o %t.twice
// RUN: diff %t.once %t.twice
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm80.mlir -o %t.sm80.hand
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm80.mlir -axe-infer-layouts -o %t.sm80.inferred
// RUN: diff %t.sm80.hand %t.sm80.inferred
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm90_ws.mlir -o %t.sm90.hand
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm90_ws.mlir -axe-infer-layouts -o %t.sm90.inferred
// RUN: diff %t.sm90.hand %t.sm90.inferred
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm100.mlir -o %t.sm100.hand
// RUN: axe-opt %axe_src_root/test/Dialect/Axe/kernels/gemm_sm100.mlir -axe-infer-layouts -o %t.sm100.inferred
// RUN: diff %t.sm100.hand %t.sm100.inferred

// The layouts the nvvm schedules propose where a kernel writes `?`
// (NVVMProposals.cpp; docs/NVIDIA.md, "Layouts the schedules propose").

// mma.sync over 8 warps: C is split 4x2 (each warp 2x4 fragments: 32 rows
// of A and 32 columns of B per K step, fewer than 2x4 or 8x1 warps read);
// A's 32-byte rows take the 32B swizzle, B's 128-byte rows the 128B one.
// CHECK-LABEL: func.func @mma_eight_warps
// CHECK: axe.alloc : !axe.buffer<128x16xf16, #axe.layout<SW(3, 1, 3) o S[(128, 16) : (16, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<16x64xf16, #axe.layout<SW(3, 3, 3) o S[(16, 64) : (64, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<S[(4, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
// CHECK: axe.gemm {{.*}} {schedule = {sm_80 = "mma.sync"}}
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @mma_eight_warps(%A: memref<128x16xf16>, %B: memref<16x64xf16>,
                             %C: memref<128x64xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 256 {
      %sA = axe.alloc : !axe.buffer<128x16xf16, ?, shared>
      %sB = axe.alloc : !axe.buffer<16x64xf16, ?, shared>
      %acc = axe.alloc : !axe.buffer<128x64xf32, ?, reg>
      %gA = axe.view %A[0, 0] : memref<128x16xf16>
          -> !axe.buffer<128x16xf16, #axe.layout<S[(128, 16) : (16, 1)]>, global>
      %gB = axe.view %B[0, 0] : memref<16x64xf16>
          -> !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global>
      %gC = axe.view %C[0, 0] : memref<128x64xf32>
          -> !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
      axe.fill %acc, %zero at cta : !axe.buffer<128x64xf32, ?, reg>
      axe.copy %gA to %sA at cta
          : !axe.buffer<128x16xf16, #axe.layout<S[(128, 16) : (16, 1)]>, global>
            to !axe.buffer<128x16xf16, ?, shared>
      axe.copy %gB to %sB at cta
          : !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global>
            to !axe.buffer<16x64xf16, ?, shared>
      axe.barrier at cta
      axe.gemm %sA, %sB into %acc at cta
          : !axe.buffer<128x16xf16, ?, shared>, !axe.buffer<16x64xf16, ?, shared>
            into !axe.buffer<128x64xf32, ?, reg>
      axe.copy %acc to %gC at cta
          : !axe.buffer<128x64xf32, ?, reg>
            to !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
    }
    return
  }
}

// -----

// At warp scope the accumulator is the bare m16n8k16 C fragment, tiled
// over the warp's two 16x8 tiles (no warp axis: every warp has its own).
// CHECK-LABEL: func.func @mma_warp_scope
// CHECK: axe.alloc : !axe.buffer<16x16xf16, #axe.layout<SW(3, 1, 3) o S[(16, 16) : (16, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
// CHECK: axe.gemm {{.*}} at warp {schedule = {sm_80 = "mma.sync"}, zero_init}
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @mma_warp_scope(%A: memref<16x16xf16>, %C: memref<16x16xf32>) {
    axe.kernel grid [1] threads 32 {
      %sA = axe.alloc : !axe.buffer<16x16xf16, ?, shared>
      %acc = axe.alloc : !axe.buffer<16x16xf32, ?, reg>
      %gA = axe.view %A[0, 0] : memref<16x16xf16>
          -> !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, global>
      %gC = axe.view %C[0, 0] : memref<16x16xf32>
          -> !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
      axe.copy %gA to %sA at warp
          : !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, global>
            to !axe.buffer<16x16xf16, ?, shared>
      axe.barrier at cta
      axe.gemm %sA, %sA into %acc at warp {zero_init}
          : !axe.buffer<16x16xf16, ?, shared>, !axe.buffer<16x16xf16, ?, shared>
            into !axe.buffer<16x16xf32, ?, reg>
      axe.copy %acc to %gC at warp
          : !axe.buffer<16x16xf32, ?, reg>
            to !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
    }
    return
  }
}

// -----

// ldmatrix into a known fragment: the shared side's 16-byte matrix rows,
// under the swizzle of its 32-byte rows.
// CHECK-LABEL: func.func @ldmatrix_shared_side
// CHECK: axe.alloc : !axe.buffer<16x16xf16, #axe.layout<SW(3, 1, 3) o S[(16, 16) : (16, 1)]>, shared>
// CHECK: axe.copy {{.*}} at warp {schedule = {sm_80 = "ldmatrix"}}
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @ldmatrix_shared_side(%A: memref<16x16xf16>) {
    axe.kernel grid [1] threads 32 {
      %s = axe.alloc : !axe.buffer<16x16xf16, ?, shared>
      %r = axe.alloc : !axe.buffer<16x16xf16, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      %g = axe.view %A[0, 0] : memref<16x16xf16>
          -> !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, global>
      axe.copy %g to %s at warp
          : !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, global>
            to !axe.buffer<16x16xf16, ?, shared>
      axe.barrier at cta
      axe.copy %s to %r at warp
          : !axe.buffer<16x16xf16, ?, shared>
            to !axe.buffer<16x16xf16, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
    }
    return
  }
}

// -----

// Registers between global copies: 16-byte runs dealt round robin to the
// CTA's threads; the elementwise takes its known operand's layout, so both
// tiles come out the same.
// CHECK-LABEL: func.func @register_tiles
// CHECK: axe.alloc : !axe.buffer<64x64xf16, #axe.layout<[[TILE:S\[.*@tx.*\]]]>, reg>
// CHECK: axe.alloc : !axe.buffer<64x64xf32, #axe.layout<[[TILE]]>, reg>
// CHECK: axe.elementwise {{.*}} {schedule = {sm_80 = "nvvm.elementwise.elements"}}
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @register_tiles(%X: memref<64x64xf16>, %Y: memref<64x64xf32>) {
    axe.kernel grid [1] threads 128 {
      %x = axe.alloc : !axe.buffer<64x64xf16, ?, reg>
      %y = axe.alloc : !axe.buffer<64x64xf32, ?, reg>
      %gx = axe.view %X[0, 0] : memref<64x64xf16>
          -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      %gy = axe.view %Y[0, 0] : memref<64x64xf32>
          -> !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      axe.copy %gx to %x at cta
          : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
            to !axe.buffer<64x64xf16, ?, reg>
      axe.elementwise ins(%x : !axe.buffer<64x64xf16, ?, reg>)
          outs(%y : !axe.buffer<64x64xf32, ?, reg>) at cta {
      ^bb0(%a: f16):
        %e = arith.extf %a : f16 to f32
        axe.yield %e : f32
      }
      axe.copy %y to %gy at cta
          : !axe.buffer<64x64xf32, ?, reg>
            to !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
    }
    return
  }
}

// -----

// wgmma with K = 128: the 256-byte rows of A and B as two columns of 128B
// swizzle atoms (the atoms of a column one after another, as the
// descriptors' stride wants), and C as two m64n128k16 D fragments.
// CHECK-LABEL: func.func @wgmma_two_atoms
// CHECK: axe.alloc : !axe.buffer<128x128xf16, #axe.layout<SW(3, 3, 3) o S[(128, 2, 64) : (64, 8192, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(2, 4, 2, 8, 16, 4, 2) : (64, 32@tid_in_wg, 2, 4@tid_in_wg, 4, 1@tid_in_wg, 1)]>, reg>
// CHECK: axe.gemm {{.*}} {schedule = {sm_90 = "wgmma"}, transpose_b}
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_two_atoms(%A: memref<128x128xf16>, %C: memref<128x128xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !axe.buffer<128x128xf16, ?, shared>
      %acc = axe.alloc : !axe.buffer<128x128xf32, ?, reg>
      %gA = axe.view %A[0, 0] : memref<128x128xf16>
          -> !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (128, 1)]>, global>
      %gC = axe.view %C[0, 0] : memref<128x128xf32>
          -> !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, global>
      axe.fill %acc, %zero at warpgroup : !axe.buffer<128x128xf32, ?, reg>
      axe.copy %gA to %sA at warpgroup
          : !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (128, 1)]>, global>
            to !axe.buffer<128x128xf16, ?, shared>
      axe.barrier at cta
      axe.gemm %sA, %sA into %acc at warpgroup {transpose_b}
          : !axe.buffer<128x128xf16, ?, shared>, !axe.buffer<128x128xf16, ?, shared>
            into !axe.buffer<128x128xf32, ?, reg>
      axe.copy %acc to %gC at warpgroup
          : !axe.buffer<128x128xf32, ?, reg>
            to !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, global>
    }
    return
  }
}

// -----

// TMA boxes: 64-byte rows as the 64B swizzle atom; 256-byte rows are wider
// than any swizzle line, so row-major.
// CHECK-LABEL: func.func @tma_boxes
// CHECK: axe.alloc : !axe.buffer<64x32xf16, #axe.layout<SW(3, 2, 3) o S[(64, 32) : (32, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_boxes(%A: memref<256x256xf16>) {
    axe.kernel grid [1] threads 128 {
      %s64 = axe.alloc : !axe.buffer<64x32xf16, ?, shared>
      %s256 = axe.alloc : !axe.buffer<64x128xf16, ?, shared>
      %g64 = axe.view %A[0, 0] : memref<256x256xf16>
          -> !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (256, 1)]>, global>
      %g256 = axe.view %A[0, 0] : memref<256x256xf16>
          -> !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (256, 1)]>, global>
      %t0 = axe.copy_async %g64 to %s64 at warpgroup {schedule = {sm_90 = "tma"}}
          : !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (256, 1)]>, global>
            to !axe.buffer<64x32xf16, ?, shared>
      %t1 = axe.copy_async %g256 to %s256 at warpgroup {schedule = {sm_90 = "tma"}}
          : !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (256, 1)]>, global>
            to !axe.buffer<64x128xf16, ?, shared>
      axe.wait %t0, %t1 at warpgroup
    }
    return
  }
}

// -----

// Tensor memory: tcgen05.cp wants the shared tile as K-major descriptor
// atoms (the 128B swizzle of 32 f32, two columns of them) and tmem as data
// path D; tcgen05.ld.32x32b gives thread t of the warpgroup row t.
// CHECK-LABEL: func.func @tmem_moves
// CHECK: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<SW(2, 3, 3) o S[(128, 2, 32) : (32, 4096, 1)]>, shared>
// CHECK: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (1@TLane, 1@TCol)]>, tmem>
// CHECK: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (1@tid_in_wg, 1)]>, reg>
// CHECK: {schedule = {sm_100a = "tcgen05.cp"}}
// CHECK: {schedule = {sm_100a = "tcgen05.ld"}}
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tmem_moves(%X: memref<128x64xf32>, %Y: memref<128x64xf32>) {
    axe.kernel grid [1] threads 128 {
      %s = axe.alloc : !axe.buffer<128x64xf32, ?, shared>
      %t = axe.alloc : !axe.buffer<128x64xf32, ?, tmem>
      %r = axe.alloc : !axe.buffer<128x64xf32, ?, reg>
      %gx = axe.view %X[0, 0] : memref<128x64xf32>
          -> !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
      %gy = axe.view %Y[0, 0] : memref<128x64xf32>
          -> !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
      axe.copy %gx to %s at warpgroup
          : !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
            to !axe.buffer<128x64xf32, ?, shared>
      axe.barrier at cta
      axe.copy %s to %t at warpgroup
          : !axe.buffer<128x64xf32, ?, shared> to !axe.buffer<128x64xf32, ?, tmem>
      axe.copy %t to %r at warpgroup
          : !axe.buffer<128x64xf32, ?, tmem> to !axe.buffer<128x64xf32, ?, reg>
      axe.copy %r to %gy at warpgroup
          : !axe.buffer<128x64xf32, ?, reg>
            to !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
    }
    return
  }
}
