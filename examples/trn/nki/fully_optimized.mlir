// nki_matmul_fully_optimized_ (the AWS Neuron NKI matmul tutorial,
// "Optimization 3") in trn IR: result[M, N] = lhsT[K, M]^T @ rhs[K, N] for
// K = 8192, M = 4096, N = 8192, bf16, with TILES_IN_BLOCK_M = 16, _N = 2,
// _K = 8 (BLOCK_M = 2048, BLOCK_N = 1024, BLOCK_K = 1024).
//
// The whole M x BLOCK_N output strip stays in SBUF (result_tmps, bf16,
// [128, NUM_BLOCK_M = 2, 16, 2, 512]); for each K block the rhs block
// ([128, 8, 1024]) and, per M block, the lhsT block ([128, 8, 2048]) are
// loaded; each 8-deep PSUM accumulation is added into the strip on VectorE;
// at the end of an N block, pairs of tiles are packed into an fp32
// [128, 1024] tile and stored. Tiles allocated in a loop body are
// double-buffered (trn_sim.buffers = 2; docs/Benchmarks-TRN.md).
//
// The calibration never runs this kernel: its latency is the prediction.
//
//   axe-trn-sim examples/trn/nki/fully_optimized.mlir --kernel=fully_optimized --timing-only
func.func @fully_optimized(%lhsT: memref<8192x4096xbf16, #trn.space<hbm>>,
                           %rhs: memref<8192x8192xbf16, #trn.space<hbm>>,
                           %result: memref<4096x8192xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  scf.for %n = %c0 to %c8 step %c1 {
    %n0 = arith.muli %n, %c1024 : index
    %result_tmps = trn.alloc : memref<128x2x16x2x512xbf16, #trn.space<sbuf>>
    scf.for %m = %c0 to %c2 step %c1 {
      scf.for %bm = %c0 to %c16 step %c1 {
        scf.for %bn = %c0 to %c2 step %c1 {
          %t = memref.subview %result_tmps[0, %m, %bm, %bn, 0] [128, 1, 1, 1, 512] [1, 1, 1, 1, 1]
              : memref<128x2x16x2x512xbf16, #trn.space<sbuf>>
                to memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
          trn.memset 0.0 : bf16 into %t engine vector
              : memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
        }
      }
    }
    scf.for %k = %c0 to %c8 step %c1 {
      %rhs_tiles = trn.alloc {trn_sim.buffers = 2} : memref<128x8x1024xbf16, #trn.space<sbuf>>
      scf.for %bk = %c0 to %c8 step %c1 {
        %kb = arith.muli %k, %c8 : index
        %ki = arith.addi %kb, %bk : index
        %k0 = arith.muli %ki, %c128 : index
        %b = memref.subview %rhs[%k0, %n0] [128, 1024] [1, 1]
            : memref<8192x8192xbf16, #trn.space<hbm>>
              to memref<128x1024xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
        %slot = memref.subview %rhs_tiles[0, %bk, 0] [128, 1, 1024] [1, 1, 1]
            : memref<128x8x1024xbf16, #trn.space<sbuf>>
              to memref<128x1024xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
        trn.dma_copy %b to %slot
            : memref<128x1024xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
              to memref<128x1024xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
      }
      scf.for %m = %c0 to %c2 step %c1 {
        %m0 = arith.muli %m, %c2048 : index
        %lhsT_tiles = trn.alloc {trn_sim.buffers = 2} : memref<128x8x2048xbf16, #trn.space<sbuf>>
        scf.for %bk = %c0 to %c8 step %c1 {
          %kb = arith.muli %k, %c8 : index
          %ki = arith.addi %kb, %bk : index
          %k0 = arith.muli %ki, %c128 : index
          %a = memref.subview %lhsT[%k0, %m0] [128, 2048] [1, 1]
              : memref<8192x4096xbf16, #trn.space<hbm>>
                to memref<128x2048xbf16, strided<[4096, 1], offset: ?>, #trn.space<hbm>>
          %slot = memref.subview %lhsT_tiles[0, %bk, 0] [128, 1, 2048] [1, 1, 1]
              : memref<128x8x2048xbf16, #trn.space<sbuf>>
                to memref<128x2048xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>
          trn.dma_copy %a to %slot
              : memref<128x2048xbf16, strided<[4096, 1], offset: ?>, #trn.space<hbm>>
                to memref<128x2048xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>
        }
        scf.for %bn = %c0 to %c2 step %c1 {
          %nf = arith.muli %bn, %c512 : index
          scf.for %bm = %c0 to %c16 step %c1 {
            %mf = arith.muli %bm, %c128 : index
            %result_tile = trn.alloc {trn_sim.buffers = 2} : memref<128x512xf32, #trn.space<psum>>
            scf.for %bk = %c0 to %c8 step %c1 {
              %st = memref.subview %lhsT_tiles[0, %bk, %mf] [128, 1, 128] [1, 1, 1]
                  : memref<128x8x2048xbf16, #trn.space<sbuf>>
                    to memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>
              %mv = memref.subview %rhs_tiles[0, %bk, %nf] [128, 1, 512] [1, 1, 1]
                  : memref<128x8x1024xbf16, #trn.space<sbuf>>
                    to memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
              %first = arith.cmpi eq, %bk, %c0 : index
              scf.if %first {
                trn.matmul %st, %mv into %result_tile start
                    : memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>,
                      memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
                      into memref<128x512xf32, #trn.space<psum>>
              } else {
                trn.matmul %st, %mv into %result_tile
                    : memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>,
                      memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
                      into memref<128x512xf32, #trn.space<psum>>
              }
            }
            %acc = memref.subview %result_tmps[0, %m, %bm, %bn, 0] [128, 1, 1, 1, 512] [1, 1, 1, 1, 1]
                : memref<128x2x16x2x512xbf16, #trn.space<sbuf>>
                  to memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
            trn.tensor_tensor add %acc, %result_tile into %acc engine vector
                : memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>,
                  memref<128x512xf32, #trn.space<psum>>
                  into memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
          }
        }
      }
    }
    scf.for %m = %c0 to %c2 step %c1 {
      scf.for %bm = %c0 to %c16 step %c1 {
        %result_packed = trn.alloc {trn_sim.buffers = 2} : memref<128x1024xf32, #trn.space<sbuf>>
        scf.for %bn = %c0 to %c2 step %c1 {
          %nf = arith.muli %bn, %c512 : index
          %src = memref.subview %result_tmps[0, %m, %bm, %bn, 0] [128, 1, 1, 1, 512] [1, 1, 1, 1, 1]
              : memref<128x2x16x2x512xbf16, #trn.space<sbuf>>
                to memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
          %dst = memref.subview %result_packed[0, %nf] [128, 512] [1, 1]
              : memref<128x1024xf32, #trn.space<sbuf>>
                to memref<128x512xf32, strided<[1024, 1], offset: ?>, #trn.space<sbuf>>
          trn.tensor_copy %src into %dst engine vector
              : memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
                into memref<128x512xf32, strided<[1024, 1], offset: ?>, #trn.space<sbuf>>
        }
        %mt = arith.muli %m, %c16 : index
        %mi = arith.addi %mt, %bm : index
        %r0 = arith.muli %mi, %c128 : index
        %c = memref.subview %result[%r0, %n0] [128, 1024] [1, 1]
            : memref<4096x8192xbf16, #trn.space<hbm>>
              to memref<128x1024xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
        trn.dma_copy %result_packed to %c
            : memref<128x1024xf32, #trn.space<sbuf>>
              to memref<128x1024xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
      }
    }
  }
  return
}
