// RUN: axe-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(trn-software-pipeline{stages=3}))' | FileCheck %s
// RUN: axe-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(trn-software-pipeline{stages=3 report=1}))' -verify-diagnostics -o /dev/null

// scores (TensorE) -> exp (ScalarE) -> product (TensorE) -> copy out, every
// tile rotated through two slots: three stages. The prologue starts
// iterations 0 and 1, the kernel runs matmul(i), exp(i - 1), the rest of
// i - 2, stage 0 first, and the epilogue drains the last two.
// CHECK-LABEL: func.func @pipelined
// CHECK: trn.dma_copy
// CHECK: trn.matmul
// CHECK: trn.matmul
// CHECK: trn.activation exp
// CHECK: scf.for %{{.*}} = %{{.*}} to %c1024 step %c128 {
// CHECK: trn.matmul
// CHECK: trn.activation exp
// CHECK: trn.matmul
// CHECK: trn.activation copy
// CHECK: trn.dma_copy
// CHECK: } {trn.pipelined = 3 : i64}
// CHECK: trn.activation exp
// CHECK: trn.matmul
// CHECK: trn.activation copy
// CHECK: trn.dma_copy
// CHECK: trn.matmul
// CHECK: trn.activation copy
// CHECK: trn.dma_copy
// CHECK: return
!ps = memref<128x128xf32, strided<[256, 1], offset: ?>, #trn.space<psum>>
!sb = memref<128x128xbf16, strided<[256, 1], offset: ?>, #trn.space<sbuf>>
func.func @pipelined(%a: memref<128x128xbf16, #trn.space<hbm>>, %o: memref<128x1024xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %w = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  trn.dma_copy %a to %w : memref<128x128xbf16, #trn.space<hbm>> to memref<128x128xbf16, #trn.space<sbuf>>
  %s = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %e = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  %r = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %y = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  // expected-warning @+1 {{pipelined in 3 stages}}
  scf.for %i = %c0 to %c1024 step %c128 {
    %k = arith.divui %i, %c128 : index
    %slot = arith.remui %k, %c2 : index
    %off = arith.muli %slot, %c128 : index
    %sv = memref.reinterpret_cast %s to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %ev = memref.reinterpret_cast %e to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    %rv = memref.reinterpret_cast %r to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %yv = memref.reinterpret_cast %y to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    // expected-note @+1 {{stage 0}}
    trn.matmul %w, %w into %sv start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    // expected-note @+1 {{stage 1}}
    trn.activation exp %sv into %ev : !ps into !sb
    // expected-note @+1 {{stage 2}}
    trn.matmul %ev, %w into %rv start stop : !sb, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    // expected-note @+1 {{stage 2}}
    trn.activation copy %rv into %yv : !ps into !sb
    %ov = memref.reinterpret_cast %o to offset: [%i], sizes: [128, 128], strides: [1024, 1] : memref<128x1024xbf16, #trn.space<hbm>> to memref<128x128xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
    // expected-note @+1 {{stage 2}}
    trn.dma_copy %yv to %ov : !sb to memref<128x128xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
  }
  return
}

// -----

// The same loop run twice: two stages at most, whatever `stages` allows,
// so that the prologue and epilogue start no iteration past the end.
// CHECK-LABEL: func.func @two_trips
// CHECK: trn.matmul
// CHECK-NOT: trn.matmul
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256 step %c128 {
// CHECK: trn.matmul
// CHECK: trn.activation exp
// CHECK: trn.matmul
// CHECK: trn.activation copy
// CHECK: trn.dma_copy
// CHECK: } {trn.pipelined = 2 : i64}
// CHECK: trn.activation exp
// CHECK: trn.matmul
// CHECK: trn.activation copy
// CHECK: trn.dma_copy
// CHECK-NOT: trn.matmul
// CHECK-NOT: trn.dma_copy
// CHECK: return
!ps = memref<128x128xf32, strided<[256, 1], offset: ?>, #trn.space<psum>>
!sb = memref<128x128xbf16, strided<[256, 1], offset: ?>, #trn.space<sbuf>>
func.func @two_trips(%a: memref<128x128xbf16, #trn.space<hbm>>, %o: memref<128x256xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %w = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  trn.dma_copy %a to %w : memref<128x128xbf16, #trn.space<hbm>> to memref<128x128xbf16, #trn.space<sbuf>>
  %s = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %e = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  %r = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %y = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  // expected-warning @+1 {{pipelined in 2 stages}}
  scf.for %i = %c0 to %c256 step %c128 {
    %k = arith.divui %i, %c128 : index
    %slot = arith.remui %k, %c2 : index
    %off = arith.muli %slot, %c128 : index
    %sv = memref.reinterpret_cast %s to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %ev = memref.reinterpret_cast %e to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    %rv = memref.reinterpret_cast %r to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %yv = memref.reinterpret_cast %y to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    // expected-note @+1 {{stage 0}}
    trn.matmul %w, %w into %sv start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    // expected-note @+1 {{stage 1}}
    trn.activation exp %sv into %ev : !ps into !sb
    // expected-note @+1 {{stage 1}}
    trn.matmul %ev, %w into %rv start stop : !sb, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    // expected-note @+1 {{stage 1}}
    trn.activation copy %rv into %yv : !ps into !sb
    %ov = memref.reinterpret_cast %o to offset: [%i], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<hbm>> to memref<128x128xbf16, strided<[256, 1], offset: ?>, #trn.space<hbm>>
    // expected-note @+1 {{stage 1}}
    trn.dma_copy %yv to %ov : !sb to memref<128x128xbf16, strided<[256, 1], offset: ?>, #trn.space<hbm>>
  }
  return
}

// -----

// The same loop with one slot per tile: iteration i + 1's scores would
// overwrite iteration i's before its exp reads them. Left alone.
// CHECK-LABEL: func.func @unrotated
// CHECK: scf.for
// CHECK-NOT: trn.pipelined
!ps = memref<128x128xf32, strided<[256, 1]>, #trn.space<psum>>
!sb = memref<128x128xbf16, strided<[256, 1]>, #trn.space<sbuf>>
func.func @unrotated(%a: memref<128x128xbf16, #trn.space<hbm>>, %o: memref<128x1024xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %w = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  trn.dma_copy %a to %w : memref<128x128xbf16, #trn.space<hbm>> to memref<128x128xbf16, #trn.space<sbuf>>
  %s = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %e = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  %r = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %y = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  // expected-warning @+1 {{not pipelined: every stage split would reorder dependent instructions of nearby iterations}}
  scf.for %i = %c0 to %c1024 step %c128 {
    %k = arith.divui %i, %c128 : index
    %slot = arith.remui %k, %c2 : index
    %off = arith.muli %slot, %c128 : index
    %sv = memref.reinterpret_cast %s to offset: [0], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %ev = memref.reinterpret_cast %e to offset: [0], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    %rv = memref.reinterpret_cast %r to offset: [0], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %yv = memref.reinterpret_cast %y to offset: [0], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    trn.matmul %w, %w into %sv start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    trn.activation exp %sv into %ev : !ps into !sb
    trn.matmul %ev, %w into %rv start stop : !sb, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    trn.activation copy %rv into %yv : !ps into !sb
    %ov = memref.reinterpret_cast %o to offset: [%i], sizes: [128, 128], strides: [1024, 1] : memref<128x1024xbf16, #trn.space<hbm>> to memref<128x128xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
    trn.dma_copy %yv to %ov : !sb to memref<128x128xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
  }
  return
}

// -----

// A trip count known only at run time (the causal kernel's q loop starts
// at the KV tile): the pipelined form runs when there are more than
// stages - 1 iterations, the original loop otherwise.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.for %[[J:.*]] = %c0 to %c1024 step %c512 {
// CHECK: %[[SPAN:.*]] = arith.subi %c1024, %[[J]]
// CHECK: %[[OK:.*]] = arith.cmpi sgt, %[[SPAN]]
// CHECK: scf.if %[[OK]] {
// CHECK: } {trn.pipelined = 3 : i64}
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %[[J]] to %c1024 step %c128 {
!ps = memref<128x128xf32, strided<[256, 1], offset: ?>, #trn.space<psum>>
!sb = memref<128x128xbf16, strided<[256, 1], offset: ?>, #trn.space<sbuf>>
func.func @dynamic(%a: memref<128x128xbf16, #trn.space<hbm>>, %o: memref<128x1024xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %c512 = arith.constant 512 : index
  %w = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  trn.dma_copy %a to %w : memref<128x128xbf16, #trn.space<hbm>> to memref<128x128xbf16, #trn.space<sbuf>>
  %s = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %e = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  %r = trn.alloc : memref<128x256xf32, #trn.space<psum>>
  %y = trn.alloc : memref<128x256xbf16, #trn.space<sbuf>>
  // expected-warning @+1 {{not pipelined: the body has one run of TensorE work; nothing to overlap}}
  scf.for %j = %c0 to %c1024 step %c512 {
  // expected-warning @+1 {{pipelined in 3 stages}}
  scf.for %i = %j to %c1024 step %c128 {
    %k = arith.divui %i, %c128 : index
    %slot = arith.remui %k, %c2 : index
    %off = arith.muli %slot, %c128 : index
    %sv = memref.reinterpret_cast %s to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %ev = memref.reinterpret_cast %e to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    %rv = memref.reinterpret_cast %r to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to !ps
    %yv = memref.reinterpret_cast %y to offset: [%off], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to !sb
    // expected-note @+1 {{stage 0}}
    trn.matmul %w, %w into %sv start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    // expected-note @+1 {{stage 1}}
    trn.activation exp %sv into %ev : !ps into !sb
    // expected-note @+1 {{stage 2}}
    trn.matmul %ev, %w into %rv start stop : !sb, memref<128x128xbf16, #trn.space<sbuf>> into !ps
    // expected-note @+1 {{stage 2}}
    trn.activation copy %rv into %yv : !ps into !sb
    %ov = memref.reinterpret_cast %o to offset: [%i], sizes: [128, 128], strides: [1024, 1] : memref<128x1024xbf16, #trn.space<hbm>> to memref<128x128xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
    // expected-note @+1 {{stage 2}}
    trn.dma_copy %yv to %ov : !sb to memref<128x128xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
  }
  }
  return
}

// -----

// A loop with results is left alone.
func.func @results(%a: memref<128x128xbf16, #trn.space<sbuf>>, %p: memref<128x128xf32, #trn.space<psum>>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-warning @+1 {{not pipelined: the loop has results}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %c0) -> index {
    trn.matmul %a, %a into %p start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<psum>>
    %y = arith.addi %x, %i : index
    scf.yield %y : index
  }
  return %r : index
}

// -----

// Bounds that are not constants cannot be checked: left alone.
func.func @unknown_bounds(%a: memref<128x128xbf16, #trn.space<sbuf>>, %p: memref<128x256xf32, #trn.space<psum>>, %e: memref<128x256xbf16, #trn.space<sbuf>>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-warning @+1 {{not pipelined: the loop's bounds are not known}}
  scf.for %i = %c0 to %n step %c1 {
    %pv = memref.reinterpret_cast %p to offset: [0], sizes: [128, 128], strides: [256, 1] : memref<128x256xf32, #trn.space<psum>> to memref<128x128xf32, strided<[256, 1]>, #trn.space<psum>>
    %ev = memref.reinterpret_cast %e to offset: [0], sizes: [128, 128], strides: [256, 1] : memref<128x256xbf16, #trn.space<sbuf>> to memref<128x128xbf16, strided<[256, 1]>, #trn.space<sbuf>>
    trn.matmul %a, %a into %pv start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into memref<128x128xf32, strided<[256, 1]>, #trn.space<psum>>
    trn.activation exp %pv into %ev : memref<128x128xf32, strided<[256, 1]>, #trn.space<psum>> into memref<128x128xbf16, strided<[256, 1]>, #trn.space<sbuf>>
    trn.matmul %ev, %a into %pv start stop : memref<128x128xbf16, strided<[256, 1]>, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into memref<128x128xf32, strided<[256, 1]>, #trn.space<psum>>
  }
  return
}

// -----

// One engine's work only: no queue would change order.
func.func @one_engine(%a: memref<128x128xbf16, #trn.space<sbuf>>, %p: memref<128x128xf32, #trn.space<psum>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-warning @+1 {{not pipelined: the body has one run of TensorE work; nothing to overlap}}
  scf.for %i = %c0 to %c4 step %c1 {
    trn.matmul %a, %a into %p start stop : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x128xbf16, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<psum>>
  }
  return
}
