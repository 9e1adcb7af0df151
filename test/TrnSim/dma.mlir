// RUN: axe-trn-sim %s --kernel=full --timing-only --report=%t.full.json
// RUN: FileCheck %s --check-prefix=FULL < %t.full.json
// RUN: axe-trn-sim %s --kernel=full --timing-only --param dma_desc_ns=10 --param dma_fixed_ns=500 --report=%t.desc.json
// RUN: FileCheck %s --check-prefix=DESC < %t.desc.json
// RUN: axe-trn-sim %s --kernel=full --timing-only --param hbm_bw=136 --param dma_fixed_ns=0 --report=%t.hbm.json
// RUN: FileCheck %s --check-prefix=HBM < %t.hbm.json
// RUN: axe-trn-sim %s --kernel=quarter --timing-only --report=%t.quarter.json
// RUN: FileCheck %s --check-prefix=QUARTER < %t.quarter.json
// RUN: axe-trn-sim %s --kernel=two_halves --timing-only --report=%t.halves.json
// RUN: FileCheck %s --check-prefix=HALVES < %t.halves.json

// A DMA's time: its partitions spread over 16 engines (8 each); each engine
// moves its bytes at dma_engine_bw = 17 B/ns and pays dma_desc_ns per
// contiguous run; the consumers see it dma_fixed_ns = 1300 ns later.

// 128 x 512 bf16 = 128 KiB: 8 KiB per engine = 481.882 ns; done at 1781.882.
// FULL: "dma": {
// FULL-NEXT: "busy_ns": 481.882352941
// FULL-NEXT: "utilization": 0.27043
// FULL: "total_ns": 1781.882352941
// With 10 ns per descriptor (1 KiB rows: 8 per engine): 561.882, done at
// 561.882 + 500.
// DESC: "busy_ns": 561.882352941
// DESC: "total_ns": 1061.882352941
// HBM at 136 B/ns caps each engine at 8.5 B/ns: 963.765 ns.
// HBM: "total_ns": 963.764705882
func.func @full(%h: memref<128x1024xbf16, #trn.space<hbm>>) {
  %s = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %v = memref.subview %h[0, 0] [128, 512] [1, 1]
      : memref<128x1024xbf16, #trn.space<hbm>>
        to memref<128x512xbf16, strided<[1024, 1]>, #trn.space<hbm>>
  trn.dma_copy %v to %s
      : memref<128x512xbf16, strided<[1024, 1]>, #trn.space<hbm>>
        to memref<128x512xbf16, #trn.space<sbuf>>
  return
}

// 32 partitions reach 4 engines: the same 8 KiB per engine, so the same
// 481.882 ns, but the mean busy time over 16 engines is a quarter.
// QUARTER: "dma": {
// QUARTER-NEXT: "busy_ns": 120.470588235
// QUARTER: "total_ns": 1781.882352941
func.func @quarter(%h: memref<32x512xbf16, #trn.space<hbm>>) {
  %s = trn.alloc : memref<32x512xbf16, #trn.space<sbuf>>
  trn.dma_copy %h to %s
      : memref<32x512xbf16, #trn.space<hbm>> to memref<32x512xbf16, #trn.space<sbuf>>
  return
}

// Two 64-partition loads into the two halves of SBUF use disjoint engines
// and overlap: each 481.882 ns on 8 engines, done together at 1781.882.
// HALVES: "total_ns": 1781.882352941
func.func @two_halves(%h: memref<128x512xbf16, #trn.space<hbm>>) {
  %s = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %h0 = memref.subview %h[0, 0] [64, 512] [1, 1]
      : memref<128x512xbf16, #trn.space<hbm>> to memref<64x512xbf16, strided<[512, 1]>, #trn.space<hbm>>
  %h1 = memref.subview %h[64, 0] [64, 512] [1, 1]
      : memref<128x512xbf16, #trn.space<hbm>> to memref<64x512xbf16, strided<[512, 1], offset: 32768>, #trn.space<hbm>>
  %s0 = memref.subview %s[0, 0] [64, 512] [1, 1]
      : memref<128x512xbf16, #trn.space<sbuf>> to memref<64x512xbf16, strided<[512, 1]>, #trn.space<sbuf>>
  %s1 = memref.subview %s[64, 0] [64, 512] [1, 1]
      : memref<128x512xbf16, #trn.space<sbuf>> to memref<64x512xbf16, strided<[512, 1], offset: 32768>, #trn.space<sbuf>>
  trn.dma_copy %h0 to %s0
      : memref<64x512xbf16, strided<[512, 1]>, #trn.space<hbm>> to memref<64x512xbf16, strided<[512, 1]>, #trn.space<sbuf>>
  trn.dma_copy %h1 to %s1
      : memref<64x512xbf16, strided<[512, 1], offset: 32768>, #trn.space<hbm>> to memref<64x512xbf16, strided<[512, 1], offset: 32768>, #trn.space<sbuf>>
  return
}
