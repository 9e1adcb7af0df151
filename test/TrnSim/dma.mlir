// The DMA model (docs/TrnSim.md, "DMA"), worked through by hand. Most runs
// take the documented set and round numbers, so that each figure below is
// simple arithmetic: DOC is the documented set as it is; the others set
// dma_engine_bw = 16 B/ns and dma_fixed_ns = 0 on top of it.
// RUN: axe-trn-sim %s --kernel=full --timing-only --params=documented --report=%t.full.json
// RUN: FileCheck %s --check-prefix=FULL < %t.full.json
// RUN: axe-trn-sim %s --kernel=full --timing-only --params=documented --param dma_desc_ns=10 --param dma_fixed_ns=500 --report=%t.desc.json
// RUN: FileCheck %s --check-prefix=DESC < %t.desc.json
// RUN: axe-trn-sim %s --kernel=full --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param dma_queue_desc_ns=100 --report=%t.queue.json
// RUN: FileCheck %s --check-prefix=QUEUE < %t.queue.json
// RUN: axe-trn-sim %s --kernel=small_rows --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param dma_desc_ns=50 --report=%t.rows.json
// RUN: FileCheck %s --check-prefix=ROWS < %t.rows.json
// RUN: axe-trn-sim %s --kernel=full --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param dma_desc_ns=50 --report=%t.bigrows.json
// RUN: FileCheck %s --check-prefix=BIGROWS < %t.bigrows.json
// RUN: axe-trn-sim %s --kernel=small_rows --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param dma_desc_ns=50 --param dma_queue_desc_ns=100 --report=%t.rowsq.json
// RUN: FileCheck %s --check-prefix=ROWSQ < %t.rowsq.json
// RUN: axe-trn-sim %s --kernel=one_site --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param dma_queue_desc_ns=100 --report=%t.site.json
// RUN: FileCheck %s --check-prefix=SITE < %t.site.json
// RUN: axe-trn-sim %s --kernel=two_sites --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param dma_queue_desc_ns=100 --report=%t.sites.json
// RUN: FileCheck %s --check-prefix=SITES < %t.sites.json
// RUN: axe-trn-sim %s --kernel=full --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param hbm_bw=64 --report=%t.hbm.json
// RUN: FileCheck %s --check-prefix=HBM < %t.hbm.json
// RUN: axe-trn-sim %s --kernel=quarter --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param hbm_bw=64 --report=%t.hbmq.json
// RUN: FileCheck %s --check-prefix=HBMQ < %t.hbmq.json
// RUN: axe-trn-sim %s --kernel=two_quarters --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param hbm_bw=64 --report=%t.hbm2q.json
// RUN: FileCheck %s --check-prefix=HBM2Q < %t.hbm2q.json
// RUN: axe-trn-sim %s --kernel=cast_store --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --report=%t.cast.json
// RUN: FileCheck %s --check-prefix=CAST < %t.cast.json
// RUN: axe-trn-sim %s --kernel=cast_store --timing-only --params=documented --param dma_engine_bw=16 --param dma_fixed_ns=0 --param hbm_bw=64 --report=%t.casthbm.json
// RUN: FileCheck %s --check-prefix=SLOWCAST < %t.casthbm.json
// RUN: axe-trn-sim %s --kernel=quarter --timing-only --params=documented --report=%t.quarter.json
// RUN: FileCheck %s --check-prefix=QUARTER < %t.quarter.json
// RUN: axe-trn-sim %s --kernel=two_halves --timing-only --params=documented --report=%t.halves.json
// RUN: FileCheck %s --check-prefix=HALVES < %t.halves.json
// RUN: axe-trn-sim %s --kernel=full --timing-only --report=%t.calibrated.json
// RUN: FileCheck %s --check-prefix=CALIBRATED < %t.calibrated.json

// A DMA's time: its partitions spread over 16 engines (8 each). Each engine
// spends dma_desc_ns per descriptor (one contiguous run of one partition)
// plus its bytes at dma_engine_bw, or at its share of hbm_bw if that is
// lower; a queue's descriptors on one engine are at least
// dma_queue_desc_ns apart; the consumers see the transfer dma_fixed_ns
// after its last engine ends.

// Documented set: 128 x 512 bf16 = 128 KiB: 8 KiB per engine at 17 B/ns =
// 481.882 ns; done at 481.882 + 1300.
// FULL: "dma_bytes": 131072
// FULL: "dma": {
// FULL-NEXT: "busy_ns": 481.882352941
// FULL-NEXT: "utilization": 0.27043
// FULL: "hbm_bytes": 131072
// FULL: "total_ns": 1781.882352941
// With 10 ns per descriptor (1 KiB rows: 8 per engine): 561.882, done at
// 561.882 + 500.
// DESC: "busy_ns": 561.882352941
// DESC: "total_ns": 1061.882352941
// A queue that takes 100 ns a descriptor: the 8 descriptors of each engine
// take 800 ns, though the engine is busy only 8192 / 16 = 512 of them.
// QUEUE: "dma": {
// QUEUE-NEXT: "busy_ns": 512
// QUEUE: "total_ns": 800
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

// Efficiency by row size: the same 128 KiB in rows of 256 B (128 bf16, the
// HBM side's run) instead of 1 KiB: 4 descriptors per partition, 32 per
// engine. At 50 ns a descriptor: 32 x 50 + 512 = 2112 ns, against
// 8 x 50 + 512 = 912 ns for 1 KiB rows (BIGROWS): 3.9 B/ns against 9.0.
// ROWS: "total_ns": 2112
// BIGROWS: "total_ns": 912
// With the queue at 100 ns a descriptor too, the 32 descriptors take
// 3200 ns from the queue's start: the queue, not the engine, bounds a lone
// stream of small rows.
// ROWSQ: "dma": {
// ROWSQ-NEXT: "busy_ns": 2112
// ROWSQ: "total_ns": 3200
func.func @small_rows(%h: memref<128x4x256xbf16, #trn.space<hbm>>) {
  %s = trn.alloc : memref<128x4x128xbf16, #trn.space<sbuf>>
  %v = memref.subview %h[0, 0, 0] [128, 4, 128] [1, 1, 1]
      : memref<128x4x256xbf16, #trn.space<hbm>>
        to memref<128x4x128xbf16, strided<[1024, 256, 1]>, #trn.space<hbm>>
  trn.dma_copy %v to %s
      : memref<128x4x128xbf16, strided<[1024, 256, 1]>, #trn.space<hbm>>
        to memref<128x4x128xbf16, #trn.space<sbuf>>
  return
}

// Queues: one dma_copy in a loop is one DMA instruction on one queue, so
// its two transfers run in order: 800 ns each (8 descriptors at 100 ns),
// done at 1600. Two dma_copy ops take two queues that share the engines:
// the second books the engine after the first's 512 ns of data and ends
// at 512 + 512 = 1024, after its queue's 800.
// SITE: "total_ns": 1600
// SITES: "total_ns": 1024
func.func @one_site(%h: memref<256x512xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %s = trn.alloc : memref<128x2x512xbf16, #trn.space<sbuf>>
  scf.for %i = %c0 to %c2 step %c1 {
    %r = arith.muli %i, %c128 : index
    %v = memref.subview %h[%r, 0] [128, 512] [1, 1]
        : memref<256x512xbf16, #trn.space<hbm>>
          to memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>>
    %t = memref.subview %s[0, %i, 0] [128, 1, 512] [1, 1, 1]
        : memref<128x2x512xbf16, #trn.space<sbuf>>
          to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<sbuf>>
    trn.dma_copy %v to %t
        : memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>>
          to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<sbuf>>
  }
  return
}

func.func @two_sites(%h: memref<256x512xbf16, #trn.space<hbm>>) {
  %s0 = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %s1 = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %v0 = memref.subview %h[0, 0] [128, 512] [1, 1]
      : memref<256x512xbf16, #trn.space<hbm>>
        to memref<128x512xbf16, strided<[512, 1]>, #trn.space<hbm>>
  %v1 = memref.subview %h[128, 0] [128, 512] [1, 1]
      : memref<256x512xbf16, #trn.space<hbm>>
        to memref<128x512xbf16, strided<[512, 1], offset: 65536>, #trn.space<hbm>>
  trn.dma_copy %v0 to %s0
      : memref<128x512xbf16, strided<[512, 1]>, #trn.space<hbm>>
        to memref<128x512xbf16, #trn.space<sbuf>>
  trn.dma_copy %v1 to %s1
      : memref<128x512xbf16, strided<[512, 1], offset: 65536>, #trn.space<hbm>>
        to memref<128x512xbf16, #trn.space<sbuf>>
  return
}

// HBM is shared by the engines that move HBM data at once. At 64 B/ns,
// the 16 engines of a full load get 4 B/ns each: 8192 / 4 = 2048 ns.
// HBM: "total_ns": 2048
// A 32-partition load alone uses 4 engines, which get 16 B/ns each: the
// same 8 KiB per engine in 512 ns, as fast as the engines go.
// HBMQ: "total_ns": 512
// Two 32-partition loads at once (engines 0-3 and 4-7): the first finds
// HBM free and keeps 16 B/ns; the second shares it 8 ways, 8 B/ns: 1024 ns.
// HBM2Q: "total_ns": 1024
func.func @two_quarters(%h: memref<64x512xbf16, #trn.space<hbm>>) {
  %s = trn.alloc : memref<64x512xbf16, #trn.space<sbuf>>
  %h0 = memref.subview %h[0, 0] [32, 512] [1, 1]
      : memref<64x512xbf16, #trn.space<hbm>> to memref<32x512xbf16, strided<[512, 1]>, #trn.space<hbm>>
  %h1 = memref.subview %h[32, 0] [32, 512] [1, 1]
      : memref<64x512xbf16, #trn.space<hbm>> to memref<32x512xbf16, strided<[512, 1], offset: 16384>, #trn.space<hbm>>
  %s0 = memref.subview %s[0, 0] [32, 512] [1, 1]
      : memref<64x512xbf16, #trn.space<sbuf>> to memref<32x512xbf16, strided<[512, 1]>, #trn.space<sbuf>>
  %s1 = memref.subview %s[32, 0] [32, 512] [1, 1]
      : memref<64x512xbf16, #trn.space<sbuf>> to memref<32x512xbf16, strided<[512, 1], offset: 16384>, #trn.space<sbuf>>
  trn.dma_copy %h0 to %s0
      : memref<32x512xbf16, strided<[512, 1]>, #trn.space<hbm>> to memref<32x512xbf16, strided<[512, 1]>, #trn.space<sbuf>>
  trn.dma_copy %h1 to %s1
      : memref<32x512xbf16, strided<[512, 1], offset: 16384>, #trn.space<hbm>> to memref<32x512xbf16, strided<[512, 1], offset: 16384>, #trn.space<sbuf>>
  return
}

// A casting store, f32 in SBUF to bf16 in HBM; the engines read 4 bytes an
// element and HBM receives 2. 128 x 512: 256 KiB through the engines, 16 KiB
// each at 16 B/ns = 1024 ns; 128 KiB into HBM.
// CAST: "dma_bytes": 262144
// CAST: "hbm_bytes": 131072
// CAST: "total_ns": 1024
// At 64 B/ns of HBM (4 B/ns an engine), HBM's 8 KiB per engine take
// 2048 ns; counting the f32 bytes would have made it 4096.
// SLOWCAST: "total_ns": 2048
func.func @cast_store(%h: memref<128x512xbf16, #trn.space<hbm>>) {
  %s = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  trn.dma_copy %s to %h
      : memref<128x512xf32, #trn.space<sbuf>> to memref<128x512xbf16, #trn.space<hbm>>
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

// The calibrated defaults (dma_engine_bw = 27.2, dma_desc_ns = 73.85,
// dma_queue_desc_ns = 150.2, dma_fixed_ns = 1300, hbm_bw = 410) on @full:
// each engine is busy 8 x 73.85 + 8192 / 27.2 = 891.976 ns (HBM's share,
// 410 / 16 = 25.6 B/ns, would allow 8192 / 25.625 = 319.7), but its
// queue's 8 descriptors take 8 x 150.2 = 1201.6: a lone 1 KiB-row load
// moves 6.8 B/ns an engine. Done at 1201.6 + 1300.
// CALIBRATED: "dma": {
// CALIBRATED-NEXT: "busy_ns": 891.976470588
// CALIBRATED: "total_ns": {{2501.6$|2501.5999}}
