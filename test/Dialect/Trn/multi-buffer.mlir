// RUN: axe-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(trn-multi-buffer))' | FileCheck %s
// RUN: axe-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(trn-multi-buffer{buffers=3}))' | FileCheck %s --check-prefix=THREE

// A tile refilled by DMA at the top of every iteration gets two slots:
// iteration i uses slot i mod 2, and its partition stride doubles.
// CHECK-LABEL: func.func @refilled
// CHECK: %[[T:.*]] = trn.alloc : memref<128x1024xbf16, #trn.space<sbuf>>
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[STEP:.*]] = arith.divui
// CHECK: %[[SLOT:.*]] = arith.remui %[[STEP]], %c2
// CHECK: %[[SHIFT:.*]] = arith.muli %[[SLOT]], %c512
// CHECK: memref.reinterpret_cast %[[T]] to offset: [%{{.*}}], sizes: [128, 512], strides: [1024, 1]
// CHECK: trn.dma_copy
// CHECK: trn.tensor_copy
// THREE-LABEL: func.func @refilled
// THREE: trn.alloc : memref<128x1536xbf16, #trn.space<sbuf>>
func.func @refilled(%a: memref<1024x512xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %t = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %u = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  scf.for %i = %c0 to %c1024 step %c128 {
    %src = memref.subview %a[%i, 0] [128, 512] [1, 1]
        : memref<1024x512xbf16, #trn.space<hbm>> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>>
    %v = memref.reinterpret_cast %t to offset: [0], sizes: [128, 512], strides: [512, 1]
        : memref<128x512xbf16, #trn.space<sbuf>> to memref<128x512xbf16, strided<[512, 1]>, #trn.space<sbuf>>
    trn.dma_copy %src to %v : memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>> to memref<128x512xbf16, strided<[512, 1]>, #trn.space<sbuf>>
    %w = memref.reinterpret_cast %u to offset: [0], sizes: [128, 512], strides: [512, 1]
        : memref<128x512xf32, #trn.space<sbuf>> to memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>
    trn.tensor_copy %v into %w engine vector : memref<128x512xbf16, strided<[512, 1]>, #trn.space<sbuf>> into memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>
  }
  return
}

// -----

// A tile the loop reads before it writes carries a value from one
// iteration to the next: one buffer. So does a tile used after the loop.
// CHECK-LABEL: func.func @carried
// CHECK: trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
// CHECK: trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
// CHECK-NOT: arith.remui
func.func @carried() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %acc = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %x = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.reinterpret_cast %acc to offset: [0], sizes: [128, 512], strides: [512, 1]
        : memref<128x512xf32, #trn.space<sbuf>> to memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>
    %v = memref.reinterpret_cast %x to offset: [0], sizes: [128, 512], strides: [512, 1]
        : memref<128x512xf32, #trn.space<sbuf>> to memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>
    trn.tensor_tensor add %a, %v into %a engine vector : memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>, memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>> into memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>
  }
  %after = memref.reinterpret_cast %x to offset: [0], sizes: [128, 512], strides: [512, 1]
      : memref<128x512xf32, #trn.space<sbuf>> to memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>
  trn.memset 0.0 : f32 into %after engine vector : memref<128x512xf32, strided<[512, 1]>, #trn.space<sbuf>>
  return
}

// -----

// A temporary allocated in the loop body moves out of the loop and
// rotates; its direct uses become views of its slot.
// CHECK-LABEL: func.func @temporary
// CHECK: %[[T:.*]] = trn.alloc : memref<128x2xf32, #trn.space<sbuf>>
// CHECK-NEXT: scf.for
// CHECK: memref.reinterpret_cast %[[T]] to offset: [%{{.*}}], sizes: [128, 1], strides: [2, 1]
// CHECK: trn.memset
func.func @temporary() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
    trn.memset 1.0 : f32 into %t engine vector : memref<128x1xf32, #trn.space<sbuf>>
    trn.activation exp %t into %t : memref<128x1xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  }
  return
}

// -----

// PSUM comes in 2 KiB banks: a 256-byte transpose destination gets the 8
// slots that share one bank, whatever `buffers` says.
// CHECK-LABEL: func.func @small_psum
// CHECK: trn.alloc : memref<128x1024xbf16, #trn.space<psum>>
// CHECK: arith.remui %{{.*}}, %c8
// THREE-LABEL: func.func @small_psum
// THREE: trn.alloc : memref<128x1024xbf16, #trn.space<psum>>
func.func @small_psum(%s: memref<128x128xbf16, #trn.space<sbuf>>,
                      %d: memref<128x128xbf16, #trn.space<sbuf>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %t = trn.alloc : memref<128x128xbf16, #trn.space<psum>>
    trn.transpose %s into %t engine tensor : memref<128x128xbf16, #trn.space<sbuf>> into memref<128x128xbf16, #trn.space<psum>>
    trn.tensor_copy %t into %d engine vector : memref<128x128xbf16, #trn.space<psum>> into memref<128x128xbf16, #trn.space<sbuf>>
  }
  return
}
