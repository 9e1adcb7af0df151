// RUN: axe-opt %s -split-input-file -trn-assign-addresses -verify-diagnostics | FileCheck %s
// RUN: not axe-opt %s -split-input-file -trn-assign-addresses=sbuf-alignment=48 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: trn-assign-addresses: sbuf-alignment must be a power of two, got 48

// Two tiles live at once sit side by side; a third, allocated after the
// first's last use, takes its bytes.
// CHECK-LABEL: func.func @reuse_after_last_use
// CHECK-SAME: trn.psum_bytes = 0 : i64, trn.sbuf_bytes = 2048 : i64
// CHECK: trn.alloc {trn.offset = 0 : i64} : memref<128x512xbf16
// CHECK: trn.alloc {trn.offset = 1024 : i64} : memref<128x512xbf16
// CHECK: trn.alloc {trn.offset = 0 : i64} : memref<128x512xbf16
func.func @reuse_after_last_use(%h: memref<128x512xbf16, #trn.space<hbm>>) {
  %a = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %b = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  trn.dma_copy %h to %a : memref<128x512xbf16, #trn.space<hbm>> to memref<128x512xbf16, #trn.space<sbuf>>
  trn.tensor_copy %a into %b engine vector
      : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xbf16, #trn.space<sbuf>>
  %c = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  trn.dma_copy %b to %c : memref<128x512xbf16, #trn.space<sbuf>> to memref<128x512xbf16, #trn.space<sbuf>>
  return
}

// -----

// A use through a view counts, and a use inside a loop keeps the tile live
// to the loop's end: %t (used in the loop through a subview) and %u (in the
// loop body) must not overlap; %w after the loop reuses both.
// CHECK-LABEL: func.func @views_and_loops
// CHECK-SAME: trn.sbuf_bytes = 3072 : i64
// CHECK: trn.alloc {trn.offset = 0 : i64} : memref<128x2x256xf32
// CHECK: scf.for
// CHECK: trn.alloc {trn.offset = 2048 : i64} : memref<128x256xf32
// CHECK: trn.alloc {trn.offset = 0 : i64} : memref<128x768xf32
func.func @views_and_loops(%h: memref<128x256xf32, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = trn.alloc : memref<128x2x256xf32, #trn.space<sbuf>>
  scf.for %i = %c0 to %c2 step %c1 {
    %u = trn.alloc : memref<128x256xf32, #trn.space<sbuf>>
    trn.dma_copy %h to %u : memref<128x256xf32, #trn.space<hbm>> to memref<128x256xf32, #trn.space<sbuf>>
    %slot = memref.subview %t[0, %i, 0] [128, 1, 256] [1, 1, 1]
        : memref<128x2x256xf32, #trn.space<sbuf>>
          to memref<128x256xf32, strided<[512, 1], offset: ?>, #trn.space<sbuf>>
    trn.tensor_copy %u into %slot engine vector
        : memref<128x256xf32, #trn.space<sbuf>>
          into memref<128x256xf32, strided<[512, 1], offset: ?>, #trn.space<sbuf>>
  }
  %w = trn.alloc : memref<128x768xf32, #trn.space<sbuf>>
  trn.memset 0.0 : f32 into %w engine vector : memref<128x768xf32, #trn.space<sbuf>>
  return
}

// -----

// PSUM tiles take whole banks, so a 1 KiB accumulator never straddles two.
// CHECK-LABEL: func.func @psum_banks
// CHECK-SAME: trn.psum_bytes = 6144 : i64
// CHECK: trn.alloc {trn.offset = 0 : i64} : memref<128x256xf32, #trn.space<psum>>
// CHECK: trn.alloc {trn.offset = 2048 : i64} : memref<128x2x512xf32, #trn.space<psum>>
func.func @psum_banks() {
  %a = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %b = trn.alloc : memref<128x2x512xf32, #trn.space<psum>>
  trn.memset 0.0 : f32 into %a engine vector : memref<128x256xf32, #trn.space<psum>>
  trn.memset 0.0 : f32 into %b engine vector : memref<128x2x512xf32, #trn.space<psum>>
  return
}

// -----

// Nine live banks do not fit PSUM's eight: the error names the tiles that
// hold the memory.
func.func @psum_full() {
  // expected-note @+1 {{live here: 8192 bytes per partition at offset 0}}
  %a = trn.alloc : memref<128x4x512xf32, #trn.space<psum>>
  // expected-note @+1 {{live here: 8192 bytes per partition at offset 8192}}
  %b = trn.alloc : memref<128x4x512xf32, #trn.space<psum>>
  // expected-error @+1 {{'trn.alloc' op needs 2048 bytes per partition of PSUM, but the 2 tiles live here take 16384 of its 16384 bytes per partition and leave no free run that long}}
  %c = trn.alloc : memref<128x16xf32, #trn.space<psum>>
  trn.memset 0.0 : f32 into %a engine vector : memref<128x4x512xf32, #trn.space<psum>>
  trn.memset 0.0 : f32 into %b engine vector : memref<128x4x512xf32, #trn.space<psum>>
  trn.memset 0.0 : f32 into %c engine vector : memref<128x16xf32, #trn.space<psum>>
  return
}

// -----

// A tile that leaves its region (here yielded by scf.if) stays live to the
// end of the region it was allocated in.
// CHECK-LABEL: func.func @escaping
// CHECK: trn.alloc {trn.offset = 0 : i64} : memref<128x128xf32
// CHECK: trn.alloc {trn.offset = 512 : i64} : memref<128x128xf32
func.func @escaping(%flag: i1) {
  %a = trn.alloc : memref<128x128xf32, #trn.space<sbuf>>
  %r = scf.if %flag -> memref<128x128xf32, #trn.space<sbuf>> {
    scf.yield %a : memref<128x128xf32, #trn.space<sbuf>>
  } else {
    scf.yield %a : memref<128x128xf32, #trn.space<sbuf>>
  }
  %b = trn.alloc : memref<128x128xf32, #trn.space<sbuf>>
  trn.tensor_copy %r into %b engine vector
      : memref<128x128xf32, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<sbuf>>
  return
}

