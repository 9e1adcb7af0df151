// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s

// An accelerator GEMM for trn1: C (128x1024 f32) = A (128x256 f16) x
// B (256x1024 f16). The contraction dim K goes on the 128 SBUF partitions
// (P) for both operands, 128 at a time; TensorE accumulates into PSUM with
// the rows of C on the partitions and its 1024 columns across two 2 KiB
// banks. The result goes through SBUF back to HBM.

#hA = #axe.layout<S[(128, 128) : (256, 1)]>
#hB = #axe.layout<S[(128, 1024) : (1024, 1)]>
#hC = #axe.layout<S[(128, 1024) : (1024, 1)]>
// A tile (M x K): K on partitions, M along the free dim.
#sA = #axe.layout<S[(128, 128) : (1@F, 1@P)]>
// B tile (K x N): K on partitions.
#sB = #axe.layout<S[(128, 1024) : (1@P, 1@F)]>
// C (M x N): M on partitions, N over 2 banks of 512 f32.
#pC = #axe.layout<S[(128, 2, 512) : (1@P, 1@Bank, 1@F)]>
#sC = #axe.layout<S[(128, 1024) : (1@P, 1@F)]>

// CHECK-LABEL: func.func @gemm_trn1
// CHECK: axe.kernel {
// CHECK: axe.alloc : !axe.buffer<128x1024xf32, #axe.layout<S[(128, 2, 512) : (1@P, 1@Bank, 1@F)]>, psum>
// CHECK: axe.view %{{.*}} [0, %{{.*}}] : memref<128x256xf16> -> !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (256, 1)]>, hbm>
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at cta : !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (1@F, 1@P)]>, sbuf>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_trn1(%A: memref<128x256xf16>, %B: memref<256x1024xf16>,
                       %C: memref<128x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel {
      %sA = axe.alloc : !axe.buffer<128x128xf16, #sA, sbuf>
      %sB = axe.alloc : !axe.buffer<128x1024xf16, #sB, sbuf>
      %pC = axe.alloc : !axe.buffer<128x1024xf32, #pC, psum>
      axe.fill %pC, %zero at cta : !axe.buffer<128x1024xf32, #pC, psum>
      scf.for %k = %c0 to %c256 step %c128 {
        %hA = axe.view %A[0, %k] : memref<128x256xf16>
            -> !axe.buffer<128x128xf16, #hA, hbm>
        %hB = axe.view %B[%k, 0] : memref<256x1024xf16>
            -> !axe.buffer<128x1024xf16, #hB, hbm>
        axe.copy %hA to %sA at cta
            : !axe.buffer<128x128xf16, #hA, hbm> to !axe.buffer<128x128xf16, #sA, sbuf>
        axe.copy %hB to %sB at cta
            : !axe.buffer<128x1024xf16, #hB, hbm> to !axe.buffer<128x1024xf16, #sB, sbuf>
        axe.gemm %sA, %sB into %pC at cta
            : !axe.buffer<128x128xf16, #sA, sbuf>, !axe.buffer<128x1024xf16, #sB, sbuf>
              into !axe.buffer<128x1024xf32, #pC, psum>
      }
      %sC = axe.alloc : !axe.buffer<128x1024xf32, #sC, sbuf>
      axe.copy %pC to %sC at cta
          : !axe.buffer<128x1024xf32, #pC, psum> to !axe.buffer<128x1024xf32, #sC, sbuf>
      %hC = axe.view %C[0, 0] : memref<128x1024xf32>
          -> !axe.buffer<128x1024xf32, #hC, hbm>
      axe.copy %sC to %hC at cta
          : !axe.buffer<128x1024xf32, #sC, sbuf> to !axe.buffer<128x1024xf32, #hC, hbm>
    }
    return
  }
}
