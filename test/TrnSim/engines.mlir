// RUN: axe-trn-sim %s --kernel=overlap --timing-only --report=%t.overlap.json
// RUN: FileCheck %s --check-prefix=OVERLAP < %t.overlap.json
// RUN: axe-trn-sim %s --kernel=sbuf_port --timing-only --report=%t.port.json
// RUN: FileCheck %s --check-prefix=PORT < %t.port.json
// RUN: axe-trn-sim %s --kernel=raw --timing-only --report=%t.raw.json
// RUN: FileCheck %s --check-prefix=RAW < %t.raw.json
// RUN: axe-trn-sim %s --kernel=war --timing-only --report=%t.war.json
// RUN: FileCheck %s --check-prefix=WAR < %t.war.json
// RUN: axe-trn-sim %s --kernel=disjoint --timing-only --report=%t.disjoint.json
// RUN: FileCheck %s --check-prefix=DISJOINT < %t.disjoint.json
// RUN: axe-trn-sim %s --kernel=strided --timing-only --report=%t.strided.json
// RUN: FileCheck %s --check-prefix=STRIDED < %t.strided.json

// VectorE (1.12 GHz) and ScalarE (1.4 GHz) run independent instructions at
// the same time. A [128, 512] copy: 512 cycles = 457.143 ns on VectorE,
// visible 100 cycles (89.286 ns) later; activation copy: 365.714 ns on
// ScalarE, visible 200 cycles (142.857 ns) later. Total max(546.429,
// 508.571) = 546.429, not the 1055 ns of running them one after the other.
// OVERLAP: "scalar": {
// OVERLAP-NEXT: "busy_ns": 365.714285714
// OVERLAP: "vector": {
// OVERLAP-NEXT: "busy_ns": 457.142857142
// OVERLAP: "stalls": {
// OVERLAP-NEXT: "dma": {},
// OVERLAP-NEXT: "gpsimd": {},
// OVERLAP-NEXT: "scalar": {},
// OVERLAP-NEXT: "tensor": {},
// OVERLAP-NEXT: "vector": {}
// OVERLAP: "total_ns": 546.428571428
func.func @overlap() {
  %a = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %b = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %c = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %d = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  trn.tensor_copy %a into %b engine vector
      : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  trn.activation copy %c into %d
      : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// VectorE and GpSimd share the SBUF port (NKI arch guide): GpSimd's copy waits
// for VectorE's (457.143 ns), runs 365.714 ns, visible 71.429 ns later.
// PORT: "stalls": {
// PORT: "gpsimd": {
// PORT-NEXT: "port_sbuf": 457.142857142
// PORT: "total_ns": 894.285714285
func.func @sbuf_port() {
  %a = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %b = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %c = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %d = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  trn.tensor_copy %a into %b engine vector
      : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  trn.tensor_copy %c into %d engine gpsimd
      : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// Read after write across engines: ScalarE reads what VectorE wrote, so it
// starts at 457.143 + 89.286 + 50 (sem_ns) = 596.429 ns and ends at
// 596.429 + 365.714 + 142.857 = 1105 ns.
// RAW: "stalls": {
// RAW: "scalar": {
// RAW-NEXT: "wait_vector": 596.428571428
// RAW: "total_ns": 1105
func.func @raw() {
  %a = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %b = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %c = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  trn.tensor_copy %a into %b engine vector
      : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  trn.activation copy %b into %c
      : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// Write after read: a DMA may overwrite the tile TensorE reads only once the
// matmul has read it (182.857 ns) and signalled its semaphore (50 ns). The
// reload starts at 232.857. Its 32 KiB are 256 B rows, 8 per engine: each
// engine is busy 8 x 73.85 + 2048 / 27.2 = 666.094 ns, and the queue takes
// 8 x 150.2 = 1201.6 (calibrated defaults). It is visible 1300 ns after
// 232.857 + 1201.6: 2734.457.
// WAR: "stalls": {
// WAR-NEXT: "dma": {
// WAR-NEXT: "wait_tensor": 232.857142857
// WAR: "total_ns": 2734.457142857
func.func @war(%h: memref<128x128xbf16, #trn.space<hbm>>) {
  %st = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  %mv = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %acc = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  trn.matmul %st, %mv into %acc start stop
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  trn.dma_copy %h to %st
      : memref<128x128xbf16, #trn.space<hbm>> to memref<128x128xbf16, #trn.space<sbuf>>
  return
}

// Regions, not buffers: ScalarE reads columns [256, 512) of a tile whose
// columns [0, 256) VectorE writes, so it does not wait. VectorE: 256 cycles
// = 228.571 ns (+ 89.286); ScalarE: 256 cycles = 182.857 ns (+ 142.857).
// DISJOINT: "stalls": {
// DISJOINT-NEXT: "dma": {},
// DISJOINT-NEXT: "gpsimd": {},
// DISJOINT-NEXT: "scalar": {},
// DISJOINT: "total_ns": 325.714285714
func.func @disjoint() {
  %a = trn.alloc : memref<128x256xf32, #trn.space<sbuf>>
  %t = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %c = trn.alloc : memref<128x256xf32, #trn.space<sbuf>>
  %lo = memref.subview %t[0, 0] [128, 256] [1, 1]
      : memref<128x512xf32, #trn.space<sbuf>> to memref<128x256xf32, strided<[512, 1]>, #trn.space<sbuf>>
  %hi = memref.subview %t[0, 256] [128, 256] [1, 1]
      : memref<128x512xf32, #trn.space<sbuf>> to memref<128x256xf32, strided<[512, 1], offset: 256>, #trn.space<sbuf>>
  trn.tensor_copy %a into %lo engine vector
      : memref<128x256xf32, #trn.space<sbuf>> into memref<128x256xf32, strided<[512, 1]>, #trn.space<sbuf>>
  trn.activation copy %hi into %c
      : memref<128x256xf32, strided<[512, 1], offset: 256>, #trn.space<sbuf>> into memref<128x256xf32, #trn.space<sbuf>>
  return
}

// An innermost stride of 8 f32 (32 bytes > 16) halves the interface
// bandwidth: 2 x 512 cycles = 914.286 ns on VectorE.
// STRIDED: "vector": {
// STRIDED-NEXT: "busy_ns": 914.285714285
func.func @strided() {
  %a = trn.alloc : memref<128x4096xf32, #trn.space<sbuf>>
  %b = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %v = memref.subview %a[0, 0] [128, 512] [1, 8]
      : memref<128x4096xf32, #trn.space<sbuf>> to memref<128x512xf32, strided<[4096, 8]>, #trn.space<sbuf>>
  trn.tensor_copy %v into %b engine vector
      : memref<128x512xf32, strided<[4096, 8]>, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}
