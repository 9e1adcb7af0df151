// nki_matmul_hoist_load_ (the AWS Neuron NKI matmul tutorial,
// "Optimization 1") in trn IR: result[M, N] = lhsT[K, M]^T @ rhs[K, N] for
// K = 8192, M = 4096, N = 8192, bf16. The lhsT column of 64 [128, 128] tiles
// is loaded once per M tile; the rhs column of 64 [128, 512] tiles once per
// (M, N) tile. NKI's Python lists of tiles are one allocation with a block
// dim ([128, 64, 128]); tiles allocated in a loop body are double-buffered
// (trn_sim.buffers = 2; docs/Benchmarks-TRN.md).
//
//   axe-trn-sim examples/trn/nki/hoist_load.mlir --kernel=hoist_load --timing-only
func.func @hoist_load(%lhsT: memref<8192x4096xbf16, #trn.space<hbm>>,
                      %rhs: memref<8192x8192xbf16, #trn.space<hbm>>,
                      %result: memref<4096x8192xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  scf.for %m = %c0 to %c32 step %c1 {
    %m0 = arith.muli %m, %c128 : index
    %lhsT_tiles = trn.alloc {trn_sim.buffers = 2} : memref<128x64x128xbf16, #trn.space<sbuf>>
    scf.for %k = %c0 to %c64 step %c1 {
      %k0 = arith.muli %k, %c128 : index
      %a = memref.subview %lhsT[%k0, %m0] [128, 128] [1, 1]
          : memref<8192x4096xbf16, #trn.space<hbm>>
            to memref<128x128xbf16, strided<[4096, 1], offset: ?>, #trn.space<hbm>>
      %slot = memref.subview %lhsT_tiles[0, %k, 0] [128, 1, 128] [1, 1, 1]
          : memref<128x64x128xbf16, #trn.space<sbuf>>
            to memref<128x128xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
      trn.dma_copy %a to %slot
          : memref<128x128xbf16, strided<[4096, 1], offset: ?>, #trn.space<hbm>>
            to memref<128x128xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
    }
    scf.for %n = %c0 to %c16 step %c1 {
      %n0 = arith.muli %n, %c512 : index
      %rhs_tiles = trn.alloc {trn_sim.buffers = 2} : memref<128x64x512xbf16, #trn.space<sbuf>>
      scf.for %k = %c0 to %c64 step %c1 {
        %k0 = arith.muli %k, %c128 : index
        %b = memref.subview %rhs[%k0, %n0] [128, 512] [1, 1]
            : memref<8192x8192xbf16, #trn.space<hbm>>
              to memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
        %slot = memref.subview %rhs_tiles[0, %k, 0] [128, 1, 512] [1, 1, 1]
            : memref<128x64x512xbf16, #trn.space<sbuf>>
              to memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
        trn.dma_copy %b to %slot
            : memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
              to memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
      }
      %res_psum = trn.alloc {trn_sim.buffers = 2} : memref<128x512xf32, #trn.space<psum>>
      scf.for %k = %c0 to %c64 step %c1 {
        %st = memref.subview %lhsT_tiles[0, %k, 0] [128, 1, 128] [1, 1, 1]
            : memref<128x64x128xbf16, #trn.space<sbuf>>
              to memref<128x128xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>
        %mv = memref.subview %rhs_tiles[0, %k, 0] [128, 1, 512] [1, 1, 1]
            : memref<128x64x512xbf16, #trn.space<sbuf>>
              to memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
        %first = arith.cmpi eq, %k, %c0 : index
        scf.if %first {
          trn.matmul %st, %mv into %res_psum start
              : memref<128x128xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>,
                memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
                into memref<128x512xf32, #trn.space<psum>>
        } else {
          trn.matmul %st, %mv into %res_psum
              : memref<128x128xbf16, strided<[8192, 1], offset: ?>, #trn.space<sbuf>>,
                memref<128x512xbf16, strided<[32768, 1], offset: ?>, #trn.space<sbuf>>
                into memref<128x512xf32, #trn.space<psum>>
        }
      }
      %res_sb = trn.alloc {trn_sim.buffers = 2} : memref<128x512xbf16, #trn.space<sbuf>>
      trn.tensor_copy %res_psum into %res_sb engine vector
          : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
      %c = memref.subview %result[%m0, %n0] [128, 512] [1, 1]
          : memref<4096x8192xbf16, #trn.space<hbm>>
            to memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
      trn.dma_copy %res_sb to %c
          : memref<128x512xbf16, #trn.space<sbuf>>
            to memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
    }
  }
  return
}
