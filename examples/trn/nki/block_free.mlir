// nki_matmul_block_free_dimension_ (the AWS Neuron NKI matmul tutorial,
// "Optimization 2") in trn IR: result[M, N] = lhsT[K, M]^T @ rhs[K, N] for
// K = 8192, M = 4096, N = 8192, bf16. Blocks of 2 x 128 rows of M and
// 2 x 512 columns of N: each loaded block of tiles serves two output tiles.
//
// SBUF: the rhs block ([128, 2, 64, 512], 128 KiB per partition) and the
// lhsT block (32 KiB) are single-buffered, since doubling either would
// exceed 192 KiB; the output staging tile is double-buffered
// (docs/Benchmarks-TRN.md).
//
//   axe-trn-sim examples/trn/nki/block_free.mlir --kernel=block_free --timing-only
func.func @block_free(%lhsT: memref<8192x4096xbf16, #trn.space<hbm>>,
                      %rhs: memref<8192x8192xbf16, #trn.space<hbm>>,
                      %result: memref<4096x8192xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  scf.for %m = %c0 to %c16 step %c1 {
    %lhsT_tiles = trn.alloc : memref<128x2x64x128xbf16, #trn.space<sbuf>>
    scf.for %bm = %c0 to %c2 step %c1 {
      %mb = arith.muli %m, %c2 : index
      %mi = arith.addi %mb, %bm : index
      %m0 = arith.muli %mi, %c128 : index
      scf.for %k = %c0 to %c64 step %c1 {
        %k0 = arith.muli %k, %c128 : index
        %a = memref.subview %lhsT[%k0, %m0] [128, 128] [1, 1]
            : memref<8192x4096xbf16, #trn.space<hbm>>
              to memref<128x128xbf16, strided<[4096, 1], offset: ?>, #trn.space<hbm>>
        %slot = memref.subview %lhsT_tiles[0, %bm, %k, 0] [128, 1, 1, 128] [1, 1, 1, 1]
            : memref<128x2x64x128xbf16, #trn.space<sbuf>>
              to memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>
        trn.dma_copy %a to %slot
            : memref<128x128xbf16, strided<[4096, 1], offset: ?>, #trn.space<hbm>>
              to memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>
      }
    }
    scf.for %n = %c0 to %c8 step %c1 {
      %rhs_tiles = trn.alloc : memref<128x2x64x512xbf16, #trn.space<sbuf>>
      scf.for %bn = %c0 to %c2 step %c1 {
        %nb = arith.muli %n, %c2 : index
        %ni = arith.addi %nb, %bn : index
        %n0 = arith.muli %ni, %c512 : index
        scf.for %k = %c0 to %c64 step %c1 {
          %k0 = arith.muli %k, %c128 : index
          %b = memref.subview %rhs[%k0, %n0] [128, 512] [1, 1]
              : memref<8192x8192xbf16, #trn.space<hbm>>
                to memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
          %slot = memref.subview %rhs_tiles[0, %bn, %k, 0] [128, 1, 1, 512] [1, 1, 1, 1]
              : memref<128x2x64x512xbf16, #trn.space<sbuf>>
                to memref<128x512xbf16, strided<[65536, 1], offset: ?>, #trn.space<sbuf>>
          trn.dma_copy %b to %slot
              : memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
                to memref<128x512xbf16, strided<[65536, 1], offset: ?>, #trn.space<sbuf>>
        }
      }
      scf.for %bm = %c0 to %c2 step %c1 {
        scf.for %bn = %c0 to %c2 step %c1 {
          %result_tile = trn.alloc {trn_sim.buffers = 2} : memref<128x512xf32, #trn.space<psum>>
          scf.for %k = %c0 to %c64 step %c1 {
            %st = memref.subview %lhsT_tiles[0, %bm, %k, 0] [128, 1, 1, 128] [1, 1, 1, 1]
                : memref<128x2x64x128xbf16, #trn.space<sbuf>>
                  to memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>
            %mv = memref.subview %rhs_tiles[0, %bn, %k, 0] [128, 1, 1, 512] [1, 1, 1, 1]
                : memref<128x2x64x512xbf16, #trn.space<sbuf>>
                  to memref<128x512xbf16, strided<[65536, 1], offset: ?>, #trn.space<sbuf>>
            %first = arith.cmpi eq, %k, %c0 : index
            scf.if %first {
              trn.matmul %st, %mv into %result_tile start
                  : memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>,
                    memref<128x512xbf16, strided<[65536, 1], offset: ?>, #trn.space<sbuf>>
                    into memref<128x512xf32, #trn.space<psum>>
            } else {
              trn.matmul %st, %mv into %result_tile
                  : memref<128x128xbf16, strided<[16384, 1], offset: ?>, #trn.space<sbuf>>,
                    memref<128x512xbf16, strided<[65536, 1], offset: ?>, #trn.space<sbuf>>
                    into memref<128x512xf32, #trn.space<psum>>
            }
          }
          %result_tmp = trn.alloc {trn_sim.buffers = 2} : memref<128x512xbf16, #trn.space<sbuf>>
          trn.tensor_copy %result_tile into %result_tmp engine vector
              : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
          %mb = arith.muli %m, %c2 : index
          %mi = arith.addi %mb, %bm : index
          %m0 = arith.muli %mi, %c128 : index
          %nb = arith.muli %n, %c2 : index
          %ni = arith.addi %nb, %bn : index
          %n0 = arith.muli %ni, %c512 : index
          %c = memref.subview %result[%m0, %n0] [128, 512] [1, 1]
              : memref<4096x8192xbf16, #trn.space<hbm>>
                to memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
          trn.dma_copy %result_tmp to %c
              : memref<128x512xbf16, #trn.space<sbuf>>
                to memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
        }
      }
    }
  }
  return
}
