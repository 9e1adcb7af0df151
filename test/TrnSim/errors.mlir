// RUN: not axe-trn-sim %s --kernel=sbuf_full 2>&1 | FileCheck %s --check-prefix=SBUF
// RUN: not axe-trn-sim %s --kernel=psum_banks --timing-only 2>&1 | FileCheck %s --check-prefix=PSUM
// RUN: not axe-trn-sim %s --kernel=buffers 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: axe-trn-sim %s --kernel=freed --timing-only | FileCheck %s --check-prefix=FREED
// RUN: not axe-trn-sim %s --kernel=out_of_bounds 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not axe-trn-sim %s --kernel=unsupported 2>&1 | FileCheck %s --check-prefix=NOTSIM
// RUN: not axe-trn-sim %s --kernel=sbuf_arg 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not axe-trn-sim %s --kernel=freed --param nope=1 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not axe-trn-sim %s --kernel=freed --param dma_engine_bw=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not axe-trn-sim %s --kernel=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not axe-trn-sim %s 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: not axe-trn-sim %s --kernel=freed --timing-only --check-matmul 2>&1 | FileCheck %s --check-prefix=NEEDVALUES

// SBUF holds 192 KiB per partition: 128 KiB live, then 96 KiB more.
// SBUF: errors.mlir:[[@LINE+3]]:{{[0-9]+}}: error: trn-sim: allocation %second (98304 bytes per partition) exceeds SBUF capacity: 131072 of 196608 bytes per partition are taken by live allocations
func.func @sbuf_full() {
  %first = trn.alloc : memref<128x65536xbf16, #trn.space<sbuf>>
  %second = trn.alloc : memref<128x24576xf32, #trn.space<sbuf>>
  return
}

// PSUM is handed out in 2 KiB banks: 4 + 3 banks, then a 1 KiB tile takes
// the eighth bank, and a 64-byte tile finds none left.
// PSUM: error: trn-sim: allocation %d (2048 bytes per partition) exceeds PSUM capacity: 16384 of 16384 bytes per partition
func.func @psum_banks() {
  %a = trn.alloc : memref<128x2048xf32, #trn.space<psum>>
  %b = trn.alloc : memref<128x1536xf32, #trn.space<psum>>
  %c = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %d = trn.alloc : memref<128x16xf32, #trn.space<psum>>
  return
}

// A multi-buffered tile takes its size times its buffers.
// BUFFERS: error: trn-sim: allocation %tiles (131072 bytes per partition, 2 buffers) exceeds SBUF capacity: 81920 of 196608
func.func @buffers() {
  %a = trn.alloc : memref<128x40960xbf16, #trn.space<sbuf>>
  %tiles = trn.alloc {trn_sim.buffers = 2} : memref<128x32768xbf16, #trn.space<sbuf>>
  return
}

// A tile allocated in a loop body is freed at the end of each iteration:
// 100 iterations of 128 KiB fit.
// FREED: kernel freed: 0 instructions
func.func @freed() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %i = %c0 to %c100 step %c1 {
    %t = trn.alloc : memref<128x65536xbf16, #trn.space<sbuf>>
  }
  return
}

// BOUNDS: error: trn-sim: subview dim 0 takes [192, 319] (stride 1) of a dim of size 256
func.func @out_of_bounds(%h: memref<256x64xf32, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = trn.alloc : memref<128x64xf32, #trn.space<sbuf>>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.muli %i, %c64 : index
    %v = memref.subview %h[%r, 0] [128, 64] [1, 1]
        : memref<256x64xf32, #trn.space<hbm>> to memref<128x64xf32, strided<[64, 1], offset: ?>, #trn.space<hbm>>
    trn.dma_copy %v to %s
        : memref<128x64xf32, strided<[64, 1], offset: ?>, #trn.space<hbm>> to memref<128x64xf32, #trn.space<sbuf>>
  }
  return
}

// NOTSIM: error: trn-sim: 'memref.alloc' is not simulated
func.func @unsupported() {
  %a = memref.alloc() : memref<4xf32>
  return
}

// ARG: error: trn-sim: kernel argument 0 must be a static identity-layout memref in #trn.space<hbm>
func.func @sbuf_arg(%s: memref<128x4xf32, #trn.space<sbuf>>) {
  return
}

// PARAM: axe-trn-sim: unknown parameter 'nope' (--list-params lists them)
// ZERO: axe-trn-sim: parameter 'dma_engine_bw' must be > 0
// MISSING: axe-trn-sim: no func.func named 'missing'
// SEVERAL: axe-trn-sim: several functions: name one with --kernel=NAME
// NEEDVALUES: axe-trn-sim: --check-matmul and --print-arg need values: drop --timing-only
