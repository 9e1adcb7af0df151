#hA = #axe.layout<S[(128, 128) : (256, 1)]>
#hB = #axe.layout<S[(128, 1024) : (1024, 1)]>
#hC = #axe.layout<S[(128, 1024) : (1024, 1)]>
#sA = #axe.layout<S[(128, 128) : (1@F, 1@P)]>
#sB = #axe.layout<S[(128, 1024) : (1@P, 1@F)]>
#pC = #axe.layout<S[(128, 2, 512) : (0@P, 1@Bank, 1@F)]>
#sC = #axe.layout<S[(128, 1024) : (1@P, 1@F)]>

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_trn1(%A: memref<128x256xf16>, %B: memref<256x1024xf16>,
                       %C: memref<128x1024xf32>) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 1 {
      %sA = axe.alloc : !axe.buffer<128x128xf16, #sA, sbuf>
      %sB = axe.alloc : !axe.buffer<128x1024xf16, #sB, sbuf>
      %pC = axe.alloc : !axe.buffer<128x1024xf32, #pC, psum>
      axe.fill %pC, %zero at kernel : !axe.buffer<128x1024xf32, #pC, psum>
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
