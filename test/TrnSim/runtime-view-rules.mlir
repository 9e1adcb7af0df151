// The trn verifier's rules on where an engine's tile lies, checked by the
// simulator where a view's offset is only known at run time: the same
// kernels with static offsets are refused by the verifier
// (Dialect/Trn/invalid.mlir).
// RUN: not axe-trn-sim %s --kernel=partition_start 2>&1 | FileCheck %s --check-prefix=START
// RUN: not axe-trn-sim %s --kernel=psum_bank 2>&1 | FileCheck %s --check-prefix=BANK
// RUN: axe-trn-sim %s --kernel=partition_start_ok | FileCheck %s --check-prefix=OK

// START: error: trn-sim: %{{[a-z_0-9]+}} starts at partition 16 at run time; a tile of 16 partitions starts at 0, 32, 64 or 96
func.func @partition_start(%h: memref<128x8xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  %c16 = arith.constant 16 : index
  %t = trn.alloc : memref<128x8xf32, #trn.space<sbuf>>
  %u = trn.alloc : memref<128x8xf32, #trn.space<sbuf>>
  %v = memref.subview %t[0, 0] [16, 8] [1, 1] : memref<128x8xf32, #trn.space<sbuf>> to memref<16x8xf32, strided<[8, 1]>, #trn.space<sbuf>>
  %w = memref.subview %u[%c16, 0] [16, 8] [1, 1] : memref<128x8xf32, #trn.space<sbuf>> to memref<16x8xf32, strided<[8, 1], offset: ?>, #trn.space<sbuf>>
  trn.tensor_copy %v into %w engine vector : memref<16x8xf32, strided<[8, 1]>, #trn.space<sbuf>> into memref<16x8xf32, strided<[8, 1], offset: ?>, #trn.space<sbuf>>
  return
}

// OK: kernel partition_start_ok: 1 instructions
func.func @partition_start_ok(%h: memref<128x8xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  %c32 = arith.constant 32 : index
  %t = trn.alloc : memref<128x8xf32, #trn.space<sbuf>>
  %u = trn.alloc : memref<128x8xf32, #trn.space<sbuf>>
  %v = memref.subview %t[0, 0] [16, 8] [1, 1] : memref<128x8xf32, #trn.space<sbuf>> to memref<16x8xf32, strided<[8, 1]>, #trn.space<sbuf>>
  %w = memref.subview %u[%c32, 0] [16, 8] [1, 1] : memref<128x8xf32, #trn.space<sbuf>> to memref<16x8xf32, strided<[8, 1], offset: ?>, #trn.space<sbuf>>
  trn.tensor_copy %v into %w engine vector : memref<16x8xf32, strided<[8, 1]>, #trn.space<sbuf>> into memref<16x8xf32, strided<[8, 1], offset: ?>, #trn.space<sbuf>>
  return
}

// The second iteration's output starts 1 KiB into a 2 KiB bank and is 2 KiB
// long.
// BANK: error: trn-sim: %{{[a-z_0-9]+}} spans bytes [1024, 3072) of each partition at run time, across a psum bank boundary; a matmul output fits one bank of 2048 bytes
func.func @psum_bank(%h: memref<128x8xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %st = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  %mv = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %acc = trn.alloc : memref<128x1024xf32, #trn.space<psum>>
  scf.for %i = %c0 to %c2 step %c1 {
    %o = arith.muli %i, %c256 : index
    %d = memref.subview %acc[0, %o] [128, 512] [1, 1] : memref<128x1024xf32, #trn.space<psum>> to memref<128x512xf32, strided<[1024, 1], offset: ?>, #trn.space<psum>>
    trn.matmul %st, %mv into %d start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xf32, strided<[1024, 1], offset: ?>, #trn.space<psum>>
  }
  return
}
