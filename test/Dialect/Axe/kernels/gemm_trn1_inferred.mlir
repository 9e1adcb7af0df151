// RUN: axe-opt %s | axe-opt | FileCheck %s --check-prefix=PARSE
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s

// gemm_trn1.mlir with only its HBM views written: every SBUF and PSUM
// layout is `?`, chosen by axe-infer-layouts from the trn schedules'
// proposals. TensorE's matmul anchors them: K on the partitions of A
// (stored [M, K], so M goes on the free dim) and of B, C's rows on the
// PSUM partitions and its 1024 columns over two banks; the copy out of
// PSUM takes the flat view of C. They come out as the hand-written
// kernel spells them (test/Conversion/AxeToTrn/infer-kernels.test
// compares the two lowered and simulated).

#hA = #axe.layout<S[(128, 128) : (256, 1)]>
#hB = #axe.layout<S[(128, 1024) : (1024, 1)]>
#hC = #axe.layout<S[(128, 1024) : (1024, 1)]>

// PARSE: axe.alloc : !axe.buffer<128x128xf16, ?, sbuf>
// CHECK-LABEL: func.func @gemm_trn1
// CHECK: axe.alloc : !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (1@F, 1@P)]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<128x1024xf16, #axe.layout<S[(128, 1024) : (1@P, 1@F)]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<128x1024xf32, #axe.layout<S[(128, 2, 512) : (1@P, 1@Bank, 1@F)]>, psum>
// CHECK: axe.alloc : !axe.buffer<128x1024xf32, #axe.layout<S[(128, 1024) : (1@P, 1@F)]>, sbuf>
// CHECK-NOT: ?,
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_trn1(%A: memref<128x256xf16>, %B: memref<256x1024xf16>,
                       %C: memref<128x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel {
      %sA = axe.alloc : !axe.buffer<128x128xf16, ?, sbuf>
      %sB = axe.alloc : !axe.buffer<128x1024xf16, ?, sbuf>
      %pC = axe.alloc : !axe.buffer<128x1024xf32, ?, psum>
      axe.fill %pC, %zero at cta : !axe.buffer<128x1024xf32, ?, psum>
      scf.for %k = %c0 to %c256 step %c128 {
        %hA = axe.view %A[0, %k] : memref<128x256xf16>
            -> !axe.buffer<128x128xf16, #hA, hbm>
        %hB = axe.view %B[%k, 0] : memref<256x1024xf16>
            -> !axe.buffer<128x1024xf16, #hB, hbm>
        axe.copy %hA to %sA at cta
            : !axe.buffer<128x128xf16, #hA, hbm> to !axe.buffer<128x128xf16, ?, sbuf>
        axe.copy %hB to %sB at cta
            : !axe.buffer<128x1024xf16, #hB, hbm> to !axe.buffer<128x1024xf16, ?, sbuf>
        axe.gemm %sA, %sB into %pC at cta
            : !axe.buffer<128x128xf16, ?, sbuf>, !axe.buffer<128x1024xf16, ?, sbuf>
              into !axe.buffer<128x1024xf32, ?, psum>
      }
      %sC = axe.alloc : !axe.buffer<128x1024xf32, ?, sbuf>
      axe.copy %pC to %sC at cta
          : !axe.buffer<128x1024xf32, ?, psum> to !axe.buffer<128x1024xf32, ?, sbuf>
      %hC = axe.view %C[0, 0] : memref<128x1024xf32>
          -> !axe.buffer<128x1024xf32, #hC, hbm>
      axe.copy %sC to %hC at cta
          : !axe.buffer<128x1024xf32, ?, sbuf> to !axe.buffer<128x1024xf32, #hC, hbm>
    }
    return
  }
}
