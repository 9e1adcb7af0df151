// RUN: axe-opt %s -split-input-file -axe-infer-layouts | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: axe-opt %s -split-input-file -axe-infer-layouts > %t.once.mlir
// RUN: axe-opt %t.once.mlir -split-input-file -axe-infer-layouts > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// Every choice lowers: the pinned schedules take the ops.
// RUN: axe-opt %s -split-input-file --axe-to-trn | FileCheck %s --check-prefix=TRN
// Where each layout came from.
// RUN: axe-opt %s -split-input-file -axe-infer-layouts=print-analysis-only 2>&1 | FileCheck %s --check-prefix=WHY

// The layouts the trn schedules propose for `?` SBUF/PSUM buffers
// (lib/Conversion/AxeToTrn/TrnProposals.cpp), one small kernel each.

// K = 256: K on the partitions of A ([M, K]) and B ([K, N]), its second
// 128 a contiguous block of the free dim (a K loop of two matmuls, each
// reading one); C's rows on the PSUM partitions. A is loaded transposed
// by DMA, as gemm_trn1.mlir does.
// CHECK-LABEL: func.func @gemm_k256
// CHECK: %[[A:.*]] = axe.alloc : !axe.buffer<128x256xf16, #axe.layout<S[(128, 2, 128) : (1@F, 128@F, 1@P)]>, sbuf>
// CHECK: %[[B:.*]] = axe.alloc : !axe.buffer<256x512xf16, #axe.layout<S[(2, 128, 512) : (512@F, 1@P, 1@F)]>, sbuf>
// CHECK: %[[C:.*]] = axe.alloc : !axe.buffer<128x512xf32, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, psum>
// CHECK: axe.copy {{.*}} to %[[A]] at cta {schedule = {trn1 = "dma"}}
// CHECK: axe.gemm %[[A]], %[[B]] into %[[C]] at cta {schedule = {trn1 = "tensore-matmul"}}
// TRN-LABEL: func.func @gemm_k256_trn(
// TRN: scf.for
// TRN: trn.matmul {{.*}} : memref<128x128xf16, {{.*}}>, memref<128x512xf16, {{.*}}> into memref<128x512xf32
// WHY: remark: layout S[(128, 512) : (1@P, 1@F)] from schedule 'tensore-matmul' of axe.gemm {{.*}}K on the partitions of A and B
#hA = #axe.layout<S[(128, 256) : (256, 1)]>
#hB = #axe.layout<S[(256, 512) : (512, 1)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_k256(%A: memref<128x256xf16>, %B: memref<256x512xf16>) {
    axe.kernel {
      %a = axe.alloc : !axe.buffer<128x256xf16, ?, sbuf>
      %b = axe.alloc : !axe.buffer<256x512xf16, ?, sbuf>
      %c = axe.alloc : !axe.buffer<128x512xf32, ?, psum>
      %ha = axe.view %A[0, 0] : memref<128x256xf16> -> !axe.buffer<128x256xf16, #hA, hbm>
      %hb = axe.view %B[0, 0] : memref<256x512xf16> -> !axe.buffer<256x512xf16, #hB, hbm>
      axe.copy %ha to %a at cta : !axe.buffer<128x256xf16, #hA, hbm> to !axe.buffer<128x256xf16, ?, sbuf>
      axe.copy %hb to %b at cta : !axe.buffer<256x512xf16, #hB, hbm> to !axe.buffer<256x512xf16, ?, sbuf>
      axe.gemm %a, %b into %c at cta
          : !axe.buffer<128x256xf16, ?, sbuf>, !axe.buffer<256x512xf16, ?, sbuf> into !axe.buffer<128x512xf32, ?, psum>
    }
    return
  }
}

// -----

// Both inputs transposed (A [K, M], B [N, K]): K still on the partitions;
// C's 2048 columns over four PSUM banks.
// CHECK-LABEL: func.func @gemm_transposed
// CHECK: axe.alloc : !axe.buffer<128x64xbf16, #axe.layout<S[(128, 64) : (1@P, 1@F)]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<2048x128xbf16, #axe.layout<S[(2048, 128) : (1@F, 1@P)]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<64x2048xf32, #axe.layout<S[(64, 4, 512) : (1@P, 1@Bank, 1@F)]>, psum>
// TRN-LABEL: func.func @gemm_transposed_trn(
// TRN: scf.for
// TRN: trn.matmul {{.*}} : memref<128x64xbf16, {{.*}}>, memref<128x512xbf16, {{.*}}> into memref<64x512xf32
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_transposed() {
    %zero = arith.constant 0.0 : bf16
    axe.kernel {
      %a = axe.alloc : !axe.buffer<128x64xbf16, ?, sbuf>
      %b = axe.alloc : !axe.buffer<2048x128xbf16, ?, sbuf>
      %c = axe.alloc : !axe.buffer<64x2048xf32, ?, psum>
      axe.fill %a, %zero at cta : !axe.buffer<128x64xbf16, ?, sbuf>
      axe.fill %b, %zero at cta : !axe.buffer<2048x128xbf16, ?, sbuf>
      axe.gemm %a, %b into %c at cta {transpose_a, transpose_b}
          : !axe.buffer<128x64xbf16, ?, sbuf>, !axe.buffer<2048x128xbf16, ?, sbuf> into !axe.buffer<64x2048xf32, ?, psum>
    }
    return
  }
}

// -----

// Copies: out of PSUM, the flat view of the accumulator's banks; into HBM,
// rows on the partitions.
// CHECK-LABEL: func.func @psum_out
// CHECK: axe.alloc : !axe.buffer<128x1024xf32, #axe.layout<S[(128, 1024) : (1@P, 1@F)]>, sbuf>
// CHECK: axe.copy {{.*}} {schedule = {trn1 = "engine-copy"}}
// CHECK: axe.copy {{.*}} {schedule = {trn1 = "dma"}}
// TRN-LABEL: func.func @psum_out_trn(
// TRN: trn.{{tensor_copy|activation copy}}
// TRN: trn.dma_copy
#pC = #axe.layout<S[(128, 2, 512) : (1@P, 1@Bank, 1@F)]>
#hC = #axe.layout<S[(128, 1024) : (1024, 1)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @psum_out(%C: memref<128x1024xf32>) {
    axe.kernel {
      %p = axe.alloc : !axe.buffer<128x1024xf32, #pC, psum>
      %s = axe.alloc : !axe.buffer<128x1024xf32, ?, sbuf>
      axe.copy %p to %s at cta : !axe.buffer<128x1024xf32, #pC, psum> to !axe.buffer<128x1024xf32, ?, sbuf>
      %h = axe.view %C[0, 0] : memref<128x1024xf32> -> !axe.buffer<128x1024xf32, #hC, hbm>
      axe.copy %s to %h at cta : !axe.buffer<128x1024xf32, ?, sbuf> to !axe.buffer<128x1024xf32, #hC, hbm>
    }
    return
  }
}

// -----

// A DMA from a transposed HBM view: the dim that is contiguous in HBM goes
// on the free dim, so each partition reads one run of 64 elements.
// CHECK-LABEL: func.func @dma_runs
// CHECK: axe.alloc : !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (1@F, 1@P)]>, sbuf>
// WHY: remark: layout S[(64, 128) : (1@F, 1@P)] from schedule 'dma' {{.*}}dim 1 on the partitions, 128 contiguous HBM runs
// WHY: note: also S[(64, 128) : (1@P, 1@F)] from schedule 'dma' {{.*}}dim 0 on the partitions, 8192 contiguous HBM runs
#hT = #axe.layout<S[(64, 128) : (1, 64)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @dma_runs(%X: memref<64x128xf32, strided<[1, 64]>>) {
    axe.kernel {
      %s = axe.alloc : !axe.buffer<64x128xf32, ?, sbuf>
      %h = axe.view %X[0, 0] : memref<64x128xf32, strided<[1, 64]>> -> !axe.buffer<64x128xf32, #hT, hbm>
      axe.copy %h to %s at cta : !axe.buffer<64x128xf32, #hT, hbm> to !axe.buffer<64x128xf32, ?, sbuf>
    }
    return
  }
}

// -----

// Reductions and elementwise operators follow the known operand's
// partitions: the scores in PSUM give the row max and the probabilities
// their layout, the [P, 1] columns on the same partitions.
// CHECK-LABEL: func.func @softmax_rows
// CHECK: axe.alloc : !axe.buffer<128x1xf32, #axe.layout<S[128 : 1@P]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<128x512xbf16, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, sbuf>
// CHECK: axe.reduce max {{.*}} {schedule = {trn1 = "vector-reduce"}}
// CHECK: axe.elementwise {{.*}} {schedule = {trn1 = "engines"}}
// TRN-LABEL: func.func @softmax_rows_trn(
// TRN: trn.tensor_reduce max
// TRN: trn.activation exp
#pS = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @softmax_rows() {
    axe.kernel {
      %s = axe.alloc : !axe.buffer<128x512xf32, #pS, psum>
      %mx = axe.alloc : !axe.buffer<128x1xf32, ?, sbuf>
      %p = axe.alloc : !axe.buffer<128x512xbf16, ?, sbuf>
      axe.reduce max %s into %mx dims [1] at cta
          : !axe.buffer<128x512xf32, #pS, psum> into !axe.buffer<128x1xf32, ?, sbuf>
      axe.elementwise ins(%s, %mx : !axe.buffer<128x512xf32, #pS, psum>, !axe.buffer<128x1xf32, ?, sbuf>)
                      outs(%p : !axe.buffer<128x512xbf16, ?, sbuf>) at cta {
      ^bb0(%x: f32, %m: f32):
        %d = arith.subf %x, %m : f32
        %e = math.exp %d : f32
        %h = arith.truncf %e : f32 to bf16
        axe.yield %h : bf16
      }
    }
    return
  }
}

// -----

// A tile written with its rows on the partitions and read by TensorE with
// them on the free dim: the copy between becomes a TensorE transpose
// rather than the matmul taking a converted operand.
// CHECK-LABEL: func.func @transpose_for_matmul
// CHECK: axe.alloc : !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@F, 1@P)]>, sbuf>
// CHECK: axe.copy {{.*}} {schedule = {trn1 = "tensore-transpose"}}
// CHECK-NOT: axe.alloc
// TRN-LABEL: func.func @transpose_for_matmul_trn(
// TRN: trn.transpose
// TRN: trn.matmul
#rows = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @transpose_for_matmul() {
    axe.kernel {
      %p = axe.alloc : !axe.buffer<128x128xbf16, #rows, sbuf>
      %v = axe.alloc : !axe.buffer<128x128xbf16, #rows, sbuf>
      %o = axe.alloc : !axe.buffer<128x128xf32, #rows, psum>
      %pt = axe.alloc : !axe.buffer<128x128xbf16, ?, sbuf>
      axe.copy %p to %pt at cta : !axe.buffer<128x128xbf16, #rows, sbuf> to !axe.buffer<128x128xbf16, ?, sbuf>
      axe.gemm %pt, %v into %o at cta
          : !axe.buffer<128x128xbf16, ?, sbuf>, !axe.buffer<128x128xbf16, #rows, sbuf> into !axe.buffer<128x128xf32, #rows, psum>
    }
    return
  }
}

// -----

// M = 256: C's rows beyond the 128 partitions go to a second PSUM bank, a
// loop of two matmuls over M.
// CHECK-LABEL: func.func @gemm_m256
// CHECK: axe.alloc : !axe.buffer<256x128xf16, #axe.layout<S[(256, 128) : (1@F, 1@P)]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<128x512xf16, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<256x512xf32, #axe.layout<S[(2, 128, 512) : (1@Bank, 1@P, 1@F)]>, psum>
// TRN-LABEL: func.func @gemm_m256_trn(
// TRN: scf.for
// TRN: trn.matmul {{.*}} : memref<128x128xf16, {{.*}}>, memref<128x512xf16, {{.*}}> into memref<128x512xf32
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_m256() {
    %zero = arith.constant 0.0 : f16
    axe.kernel {
      %a = axe.alloc : !axe.buffer<256x128xf16, ?, sbuf>
      %b = axe.alloc : !axe.buffer<128x512xf16, ?, sbuf>
      %c = axe.alloc : !axe.buffer<256x512xf32, ?, psum>
      axe.fill %a, %zero at cta : !axe.buffer<256x128xf16, ?, sbuf>
      axe.fill %b, %zero at cta : !axe.buffer<128x512xf16, ?, sbuf>
      axe.gemm %a, %b into %c at cta
          : !axe.buffer<256x128xf16, ?, sbuf>, !axe.buffer<128x512xf16, ?, sbuf> into !axe.buffer<256x512xf32, ?, psum>
    }
    return
  }
}

// -----

// Nothing but a fill and a store: rows on the partitions (64 of them), so
// the DMA moves a 1 KiB row per partition rather than an element per
// descriptor with the 256 columns on the partitions.
// CHECK-LABEL: func.func @fill_and_store
// CHECK: axe.alloc : !axe.buffer<64x256xf32, #axe.layout<S[(64, 256) : (1@P, 1@F)]>, sbuf>
// TRN-LABEL: func.func @fill_and_store_trn(
// TRN: trn.memset
// TRN: trn.dma_copy {{.*}} : memref<64x256xf32, strided<[256, 1]>, #trn.space<sbuf>> to memref<64x256xf32, strided<[256, 1]>, #trn.space<hbm>>
#h = #axe.layout<S[(64, 256) : (256, 1)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @fill_and_store(%X: memref<64x256xf32>) {
    %one = arith.constant 1.0 : f32
    axe.kernel {
      %s = axe.alloc : !axe.buffer<64x256xf32, ?, sbuf>
      axe.fill %s, %one at cta : !axe.buffer<64x256xf32, ?, sbuf>
      %h = axe.view %X[0, 0] : memref<64x256xf32> -> !axe.buffer<64x256xf32, #h, hbm>
      axe.copy %s to %h at cta : !axe.buffer<64x256xf32, ?, sbuf> to !axe.buffer<64x256xf32, #h, hbm>
    }
    return
  }
}
