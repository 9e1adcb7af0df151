// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s -mlir-print-op-generic | axe-opt | FileCheck %s
// RUN: axe-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Every operation of the trn dialect in its custom form, and the memory
// spaces on memrefs.

// CHECK-LABEL: func.func @storage_and_dma
// CHECK-SAME: memref<256x1024xbf16, #trn.space<hbm>>
// CHECK: %[[S:.*]] = trn.alloc : memref<128x4x512xbf16, #trn.space<sbuf>>
// CHECK: %[[P:.*]] = trn.alloc : memref<128x512xf32, #trn.space<psum>>
// CHECK: %[[V:.*]] = memref.subview
// CHECK: %[[T:.*]] = memref.subview %[[S]]
// CHECK: trn.dma_copy %[[V]] to %[[T]] : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>> to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #trn.space<sbuf>>
// CHECK: trn.dma_copy %[[T]] to %{{.*}} : {{.*}}#trn.space<sbuf>> to memref<64x1024xf32, #trn.space<sbuf>>
// GENERIC-LABEL: sym_name = "storage_and_dma"
// GENERIC: "trn.alloc"() : () -> memref<128x4x512xbf16, #trn.space<sbuf>>
// GENERIC: "trn.dma_copy"(%{{.*}}, %{{.*}})
func.func @storage_and_dma(%h: memref<256x1024xbf16, #trn.space<hbm>>,
                           %i: index, %k: index) {
  %s = trn.alloc : memref<128x4x512xbf16, #trn.space<sbuf>>
  %p = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  %v = memref.subview %h[%i, 0] [128, 512] [1, 1]
      : memref<256x1024xbf16, #trn.space<hbm>>
        to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
  %t = memref.subview %s[0, %k, 0] [128, 1, 512] [1, 1, 1]
      : memref<128x4x512xbf16, #trn.space<sbuf>>
        to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #trn.space<sbuf>>
  trn.dma_copy %v to %t
      : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
        to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #trn.space<sbuf>>
  // SBUF to SBUF with a cast and another shape: only the counts match.
  %w = trn.alloc : memref<64x1024xf32, #trn.space<sbuf>>
  trn.dma_copy %t to %w
      : memref<128x512xbf16, strided<[2048, 1], offset: ?>, #trn.space<sbuf>>
        to memref<64x1024xf32, #trn.space<sbuf>>
  return
}

// CHECK-LABEL: func.func @tensor_engine
// CHECK: trn.matmul %[[ST:.*]], %[[MV:.*]] into %[[ACC:.*]] start :
// CHECK: trn.matmul %[[ST]], %[[MV]] into %[[ACC]] :
// CHECK: trn.matmul %[[ST]], %[[MV]] into %[[ACC]] stop :
// CHECK: trn.matmul %{{.*}}, %{{.*}} into %{{.*}} start stop : memref<128x64xf8E4M3FN, #trn.space<sbuf>>, memref<128x256xf8E5M2, #trn.space<sbuf>> into memref<64x256xf32, strided<[2048, 1], offset: 512>, #trn.space<psum>>
// CHECK: trn.matmul {{.*}} : memref<32x128xf32, #trn.space<sbuf>>, memref<32x512xtf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<psum>>
// CHECK: trn.transpose %{{.*}} into %{{.*}} engine tensor : memref<128x64xbf16, #trn.space<sbuf>> into memref<64x128xbf16, #trn.space<psum>>
// CHECK: trn.transpose %{{.*}} into %{{.*}} engine vector : memref<32x16xf32, #trn.space<psum>> into memref<16x32xf32, #trn.space<sbuf>>
// GENERIC-LABEL: sym_name = "tensor_engine"
// GENERIC: "trn.matmul"(%{{.*}}, %{{.*}}, %{{.*}}) <{start}>
// GENERIC: "trn.matmul"(%{{.*}}, %{{.*}}, %{{.*}}) <{start, stop}>
// GENERIC: "trn.transpose"(%{{.*}}, %{{.*}}) <{engine = 0 : i32}>
func.func @tensor_engine() {
  %st = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  %mv = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %acc = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  // One accumulation group over three K tiles.
  trn.matmul %st, %mv into %acc start
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  trn.matmul %st, %mv into %acc
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  trn.matmul %st, %mv into %acc stop
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  // fp8 inputs, the output in the second bank of a 4-bank PSUM tile
  // (bytes [2048, 3072) of each partition).
  %a8 = trn.alloc : memref<128x64xf8E4M3FN, #trn.space<sbuf>>
  %b8 = trn.alloc : memref<128x256xf8E5M2, #trn.space<sbuf>>
  %big = trn.alloc : memref<128x2048xf32, #trn.space<psum>>
  %bank1 = memref.subview %big[0, 512] [64, 256] [1, 1]
      : memref<128x2048xf32, #trn.space<psum>>
        to memref<64x256xf32, strided<[2048, 1], offset: 512>, #trn.space<psum>>
  trn.matmul %a8, %b8 into %bank1 start stop
      : memref<128x64xf8E4M3FN, #trn.space<sbuf>>, memref<128x256xf8E5M2, #trn.space<sbuf>>
        into memref<64x256xf32, strided<[2048, 1], offset: 512>, #trn.space<psum>>
  // f32 pairs with tf32.
  %a32 = trn.alloc : memref<32x128xf32, #trn.space<sbuf>>
  %b32 = trn.alloc : memref<32x512xtf32, #trn.space<sbuf>>
  trn.matmul %a32, %b32 into %acc start stop
      : memref<32x128xf32, #trn.space<sbuf>>, memref<32x512xtf32, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  %x = trn.alloc : memref<128x64xbf16, #trn.space<sbuf>>
  %xt = trn.alloc : memref<64x128xbf16, #trn.space<psum>>
  trn.transpose %x into %xt engine tensor
      : memref<128x64xbf16, #trn.space<sbuf>> into memref<64x128xbf16, #trn.space<psum>>
  %y = trn.alloc : memref<32x16xf32, #trn.space<psum>>
  %yt = trn.alloc : memref<16x32xf32, #trn.space<sbuf>>
  trn.transpose %y into %yt engine vector
      : memref<32x16xf32, #trn.space<psum>> into memref<16x32xf32, #trn.space<sbuf>>
  return
}

// The engine ops of a softmax: row max, exp with the negated max as bias and
// the row sum as reduction, reciprocal, scale.
// CHECK-LABEL: func.func @softmax_ops
// CHECK: trn.tensor_reduce max %[[SC:.*]] into %[[MAX:.*]] axes [1] negate : memref<128x512xf32, #trn.space<psum>> into memref<128x1xf32, #trn.space<sbuf>>
// CHECK: trn.activation exp %[[SC]] into %[[E:.*]] bias %[[MAX]] : memref<128x1xf32, #trn.space<sbuf>> scale 5.000000e-01 reduce add into %[[SUM:.*]] : memref<128x1xf32, #trn.space<sbuf>> : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
// CHECK: trn.activation reciprocal %[[SUM]] into %[[R:.*]] : memref<128x1xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
// CHECK: trn.activation copy %[[E]] into %{{.*}} scale_tile %[[R]] : memref<128x1xf32, #trn.space<sbuf>> : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xbf16, #trn.space<psum>>
// CHECK: trn.tensor_scalar %[[E]], multiply(%[[R]] : memref<128x1xf32, #trn.space<sbuf>>) then add(1.000000e+00) into %{{.*}} engine vector : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xbf16, #trn.space<sbuf>>
// CHECK: trn.tensor_scalar %[[E]], max(0.000000e+00) into %{{.*}} engine scalar
// CHECK: trn.tensor_reduce add %{{.*}} into %{{.*}} axes [1, 2] : memref<128x4x128xf32, #trn.space<sbuf>> into memref<128xf32, #trn.space<sbuf>>
// GENERIC-LABEL: sym_name = "softmax_ops"
// GENERIC: "trn.activation"({{.*}}) <{func = 1 : i32, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, reduce_op = 0 : i32, scale = 5.000000e-01 : f32}>
func.func @softmax_ops() {
  %scores = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  %negmax = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  %e = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %sum = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  %r = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  trn.tensor_reduce max %scores into %negmax axes [1] negate
      : memref<128x512xf32, #trn.space<psum>> into memref<128x1xf32, #trn.space<sbuf>>
  trn.activation exp %scores into %e bias %negmax : memref<128x1xf32, #trn.space<sbuf>>
      scale 0.5 reduce add into %sum : memref<128x1xf32, #trn.space<sbuf>>
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
  trn.activation reciprocal %sum into %r
      : memref<128x1xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  %ep = trn.alloc : memref<128x512xbf16, #trn.space<psum>>
  trn.activation copy %e into %ep scale_tile %r : memref<128x1xf32, #trn.space<sbuf>>
      : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xbf16, #trn.space<psum>>
  %p = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  trn.tensor_scalar %e, multiply(%r : memref<128x1xf32, #trn.space<sbuf>>) then add(1.0)
      into %p engine vector
      : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xbf16, #trn.space<sbuf>>
  trn.tensor_scalar %e, max(0.0) into %p engine scalar
      : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xbf16, #trn.space<sbuf>>
  %blocks = trn.alloc : memref<128x4x128xf32, #trn.space<sbuf>>
  %rows = trn.alloc : memref<128xf32, #trn.space<sbuf>>
  trn.tensor_reduce add %blocks into %rows axes [1, 2]
      : memref<128x4x128xf32, #trn.space<sbuf>> into memref<128xf32, #trn.space<sbuf>>
  return
}

// CHECK-LABEL: func.func @vector_and_gpsimd
// CHECK: trn.tensor_tensor max %{{.*}}, %{{.*}} into %{{.*}} engine vector : memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
// CHECK: trn.tensor_tensor bitwise_and %{{.*}}, %{{.*}} into %{{.*}} engine gpsimd : memref<64x32xi32, #trn.space<sbuf>>
// CHECK: trn.tensor_scalar %{{.*}}, logical_shift_left(3.000000e+00) then bitwise_or(1.000000e+00) into %{{.*}} engine vector
// CHECK: trn.tensor_copy %{{.*}} into %{{.*}} engine vector : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
// CHECK: trn.tensor_copy %{{.*}} into %{{.*}} engine gpsimd : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x4x128xbf16, #trn.space<sbuf>>
// CHECK: trn.memset 0.000000e+00 : f32 into %{{.*}} engine vector : memref<128x512xf32, #trn.space<psum>>
// CHECK: trn.memset 7 : i32 into %{{.*}} engine gpsimd : memref<64x32xi32, #trn.space<sbuf>>
// CHECK: trn.iota {{\[}}[1, 512]] offset 0 channel_multiplier 0 into %{{.*}} : memref<128x512xi32, #trn.space<sbuf>>
// CHECK: trn.iota {{\[}}[128, 4], [1, 128]] offset -5 channel_multiplier 512 into %{{.*}} : memref<128x4x128xf32, #trn.space<sbuf>>
// CHECK: trn.affine_select is_ge {{\[}}[-1, 128]] offset 0 channel_multiplier 1, %{{.*}} else -3.000000e+38 into %{{.*}} : memref<128x128xf32, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<sbuf>>
// GENERIC-LABEL: sym_name = "vector_and_gpsimd"
// GENERIC: "trn.iota"(%{{.*}}) <{channel_multiplier = 512 : i64, offset = -5 : i64, pattern = array<i64: 128, 4, 1, 128>}>
func.func @vector_and_gpsimd() {
  %a = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %b = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  %c = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  trn.tensor_tensor max %a, %b into %c engine vector
      : memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<psum>>
        into memref<128x512xf32, #trn.space<sbuf>>
  %i = trn.alloc : memref<64x32xi32, #trn.space<sbuf>>
  trn.tensor_tensor bitwise_and %i, %i into %i engine gpsimd
      : memref<64x32xi32, #trn.space<sbuf>>, memref<64x32xi32, #trn.space<sbuf>>
        into memref<64x32xi32, #trn.space<sbuf>>
  trn.tensor_scalar %i, logical_shift_left(3.0) then bitwise_or(1.0) into %i engine vector
      : memref<64x32xi32, #trn.space<sbuf>> into memref<64x32xi32, #trn.space<sbuf>>
  %h = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  trn.tensor_copy %b into %h engine vector
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
  %blocks = trn.alloc : memref<128x4x128xbf16, #trn.space<sbuf>>
  trn.tensor_copy %h into %blocks engine gpsimd
      : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x4x128xbf16, #trn.space<sbuf>>
  trn.memset 0.0 : f32 into %b engine vector : memref<128x512xf32, #trn.space<psum>>
  trn.memset 7 : i32 into %i engine gpsimd : memref<64x32xi32, #trn.space<sbuf>>
  %idx = trn.alloc : memref<128x512xi32, #trn.space<sbuf>>
  trn.iota [[1, 512]] offset 0 channel_multiplier 0 into %idx
      : memref<128x512xi32, #trn.space<sbuf>>
  %f = trn.alloc : memref<128x4x128xf32, #trn.space<sbuf>>
  trn.iota [[128, 4], [1, 128]] offset -5 channel_multiplier 512 into %f
      : memref<128x4x128xf32, #trn.space<sbuf>>
  // Causal mask: keep column j of row c where c - j >= 0.
  %s = trn.alloc : memref<128x128xf32, #trn.space<sbuf>>
  %masked = trn.alloc : memref<128x128xf32, #trn.space<sbuf>>
  trn.affine_select is_ge [[-1, 128]] offset 0 channel_multiplier 1, %s
      else -3.0e+38 into %masked
      : memref<128x128xf32, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<sbuf>>
  return
}

// Views that start on an allowed partition: a 64-partition tile at 64, a
// 32-partition tile at 96.
// CHECK-LABEL: func.func @partition_starts
// CHECK-COUNT-2: trn.tensor_copy
func.func @partition_starts(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  %hi = memref.subview %a[64, 0] [64, 512] [1, 1]
      : memref<128x512xf32, #trn.space<sbuf>>
        to memref<64x512xf32, strided<[512, 1], offset: 32768>, #trn.space<sbuf>>
  %q = memref.subview %a[96, 0] [32, 512] [1, 1]
      : memref<128x512xf32, #trn.space<sbuf>>
        to memref<32x512xf32, strided<[512, 1], offset: 49152>, #trn.space<sbuf>>
  %lo = trn.alloc : memref<64x512xf32, #trn.space<sbuf>>
  trn.tensor_copy %hi into %lo engine vector
      : memref<64x512xf32, strided<[512, 1], offset: 32768>, #trn.space<sbuf>>
        into memref<64x512xf32, #trn.space<sbuf>>
  %l32 = trn.alloc : memref<32x512xf32, #trn.space<sbuf>>
  trn.tensor_copy %q into %l32 engine vector
      : memref<32x512xf32, strided<[512, 1], offset: 49152>, #trn.space<sbuf>>
        into memref<32x512xf32, #trn.space<sbuf>>
  return
}

// The largest single allocations: all of SBUF and all of PSUM.
// CHECK-LABEL: func.func @capacity
// CHECK: trn.alloc : memref<128x98304xbf16, #trn.space<sbuf>>
// CHECK: trn.alloc : memref<128x8x512xf32, #trn.space<psum>>
func.func @capacity() {
  %s = trn.alloc : memref<128x98304xbf16, #trn.space<sbuf>>
  %p = trn.alloc : memref<128x8x512xf32, #trn.space<psum>>
  return
}
