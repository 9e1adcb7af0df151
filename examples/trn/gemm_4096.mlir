// C (4096x4096, bf16) = A^T B for A stored [K, M] (NKI's lhsT) and B [K, N],
// K = M = N = 4096, bf16 in, f32 accumulation in PSUM: a trn1 GEMM written
// in axe. Nothing here names an instruction; axe-to-trn derives them from
// the layouts (docs/Trn.md).
//
// Blocking. Half of B (4096 x 2048, 128 KiB per partition) stays in SBUF
// for a whole N half, loaded one 128-row K tile at a time so the first
// products start as soon as their rows arrive. Strips of C go in pairs:
// one DMA brings the pair's 256 columns of A (4096 x 256, rows of 512 B;
// the DMA's per-descriptor cost makes 256 B rows nearly twice as slow
// per byte),
// and one axe.gemm per strip accumulates its 128 x 2048 tile in PSUM (4
// banks): TensorE does 32 K steps x 4 moving tiles of 512. Each strip has
// its own PSUM tile, so one strip's products overlap the other's copy out
// (PSUM has room for two tiles of 8 KiB per partition, not more).
//
// A is double-buffered by hand: %sA holds two slots of 256 columns, and
// the pair in slot j mod 2 first starts the load of the next pair's
// strips (the first pair of the next N half after the last one; a
// redundant reload at the very end) into the other slot. DMAs issue in
// program order, so that load must come before this pair's stores, which
// wait for its products; loaded after them, it would wait for this pair
// and TensorE would wait for it. The first pair's strips load before B.
//
//   axe-opt examples/trn/gemm_4096.mlir --axe-to-trn | axe-trn-sim --timing-only

// HBM views.
#hA = #axe.layout<S[(4096, 256) : (4096, 1)]>
#hBk = #axe.layout<S[(128, 2048) : (4096, 1)]>
#hC = #axe.layout<S[(128, 2048) : (4096, 1)]>
// SBUF: K on the partitions, 128 rows at a time; the K tiles along F.
// A: two slots of 256 columns, each one contiguous run of a partition
// (so the simulator's bounding boxes of the two slots do not overlap).
#sA = #axe.layout<S[(32, 128, 2, 256) : (256@F, 1@P, 8192@F, 1@F)]>
#sAs = #axe.layout<S[(32, 128, 256) : (256@F, 1@P, 1@F)]>
#sAh = #axe.layout<S[(32, 128, 128) : (256@F, 1@P, 1@F)]>
#sB = #axe.layout<S[(32, 128, 2048) : (2048@F, 1@P, 1@F)]>
#sBk = #axe.layout<S[(128, 2048) : (1@P, 1@F)]>
// PSUM: the C tile's rows on the partitions, its 2048 columns over 4 banks.
#pC = #axe.layout<S[(128, 4, 512) : (1@P, 1@Bank, 1@F)]>
#sC = #axe.layout<S[(128, 2048) : (1@P, 1@F)]>

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_4096(%A: memref<4096x4096xbf16>, %B: memref<4096x4096xbf16>,
                       %C: memref<4096x4096xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c2048 = arith.constant 2048 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel {
      %sB = axe.alloc : !axe.buffer<4096x2048xbf16, #sB, sbuf>
      %sA = axe.alloc : !axe.buffer<4096x512xbf16, #sA, sbuf>
      %hAp = axe.view %A[0, 0] : memref<4096x4096xbf16>
          -> !axe.buffer<4096x256xbf16, #hA, hbm>
      %sAp = axe.slice %sA[0, 0] : !axe.buffer<4096x512xbf16, #sA, sbuf>
          -> !axe.buffer<4096x256xbf16, #sAs, sbuf>
      axe.copy %hAp to %sAp at cta
          : !axe.buffer<4096x256xbf16, #hA, hbm> to !axe.buffer<4096x256xbf16, #sAs, sbuf>
      %pC0 = axe.alloc : !axe.buffer<128x2048xf32, #pC, psum>
      %pC1 = axe.alloc : !axe.buffer<128x2048xf32, #pC, psum>
      %sC0 = axe.alloc : !axe.buffer<128x2048xbf16, #sC, sbuf>
      %sC1 = axe.alloc : !axe.buffer<128x2048xbf16, #sC, sbuf>
      scf.for %n0 = %c0 to %c4096 step %c2048 {
        scf.for %k0 = %c0 to %c4096 step %c128 {
          %hB = axe.view %B[%k0, %n0] : memref<4096x4096xbf16>
              -> !axe.buffer<128x2048xbf16, #hBk, hbm>
          %sBk = axe.slice %sB[%k0, 0] : !axe.buffer<4096x2048xbf16, #sB, sbuf>
              -> !axe.buffer<128x2048xbf16, #sBk, sbuf>
          axe.copy %hB to %sBk at cta
              : !axe.buffer<128x2048xbf16, #hBk, hbm> to !axe.buffer<128x2048xbf16, #sBk, sbuf>
        }
        scf.for %m0 = %c0 to %c4096 step %c256 {
          %m1 = arith.addi %m0, %c128 : index
          %j = arith.divui %m0, %c256 : index
          %slot = arith.remui %j, %c2 : index
          %nslot = arith.subi %c1, %slot : index
          %mn = arith.addi %m0, %c256 : index
          %mnext = arith.remui %mn, %c4096 : index
          %a0 = arith.muli %slot, %c256 : index
          %a1 = arith.addi %a0, %c128 : index
          %an = arith.muli %nslot, %c256 : index
          %hAn = axe.view %A[0, %mnext] : memref<4096x4096xbf16>
              -> !axe.buffer<4096x256xbf16, #hA, hbm>
          %sAn = axe.slice %sA[0, %an] : !axe.buffer<4096x512xbf16, #sA, sbuf>
              -> !axe.buffer<4096x256xbf16, #sAs, sbuf>
          axe.copy %hAn to %sAn at cta
              : !axe.buffer<4096x256xbf16, #hA, hbm> to !axe.buffer<4096x256xbf16, #sAs, sbuf>
          %sA0 = axe.slice %sA[0, %a0] : !axe.buffer<4096x512xbf16, #sA, sbuf>
              -> !axe.buffer<4096x128xbf16, #sAh, sbuf>
          %sA1 = axe.slice %sA[0, %a1] : !axe.buffer<4096x512xbf16, #sA, sbuf>
              -> !axe.buffer<4096x128xbf16, #sAh, sbuf>
          axe.fill %pC0, %zero at cta : !axe.buffer<128x2048xf32, #pC, psum>
          axe.gemm %sA0, %sB into %pC0 at cta {transpose_a}
              : !axe.buffer<4096x128xbf16, #sAh, sbuf>, !axe.buffer<4096x2048xbf16, #sB, sbuf>
                into !axe.buffer<128x2048xf32, #pC, psum>
          axe.fill %pC1, %zero at cta : !axe.buffer<128x2048xf32, #pC, psum>
          axe.gemm %sA1, %sB into %pC1 at cta {transpose_a}
              : !axe.buffer<4096x128xbf16, #sAh, sbuf>, !axe.buffer<4096x2048xbf16, #sB, sbuf>
                into !axe.buffer<128x2048xf32, #pC, psum>
          axe.elementwise ins(%pC0 : !axe.buffer<128x2048xf32, #pC, psum>)
                          outs(%sC0 : !axe.buffer<128x2048xbf16, #sC, sbuf>) at cta {
          ^bb0(%x: f32):
            %h = arith.truncf %x : f32 to bf16
            axe.yield %h : bf16
          }
          %hC0 = axe.view %C[%m0, %n0] : memref<4096x4096xbf16>
              -> !axe.buffer<128x2048xbf16, #hC, hbm>
          axe.copy %sC0 to %hC0 at cta
              : !axe.buffer<128x2048xbf16, #sC, sbuf> to !axe.buffer<128x2048xbf16, #hC, hbm>
          axe.elementwise ins(%pC1 : !axe.buffer<128x2048xf32, #pC, psum>)
                          outs(%sC1 : !axe.buffer<128x2048xbf16, #sC, sbuf>) at cta {
          ^bb0(%x: f32):
            %h = arith.truncf %x : f32 to bf16
            axe.yield %h : bf16
          }
          %hC1 = axe.view %C[%m1, %n0] : memref<4096x4096xbf16>
              -> !axe.buffer<128x2048xbf16, #hC, hbm>
          axe.copy %sC1 to %hC1 at cta
              : !axe.buffer<128x2048xbf16, #sC, sbuf> to !axe.buffer<128x2048xbf16, #hC, hbm>
        }
      }
    }
    return
  }
}
