// RUN: axe-opt %s --pass-pipeline='builtin.module(func.func(trn-balance-engines))' | FileCheck %s

// VectorE already reduces 2048 columns per iteration; the copies and the
// scalar arithmetic go where the estimated load is lower. GpSimd never gets
// a PSUM operand, and ScalarE copies with an activation.
// CHECK-LABEL: func.func @spread
// CHECK: scf.for
// CHECK: trn.tensor_reduce max
// CHECK: trn.activation copy %{{.*}} into %{{.*}} : memref<128x512xf32, #trn.space<psum>>
// CHECK: trn.tensor_copy %{{.*}} into %{{.*}} engine gpsimd : memref<128x512xbf16, #trn.space<sbuf>>
// CHECK: trn.tensor_scalar %{{.*}}, multiply(2.000000e+00) into %{{.*}} engine {{scalar|gpsimd}}
// CHECK: trn.memset 0.000000e+00 : f32 into %{{.*}} engine vector : memref<128x512xf32, #trn.space<psum>>
func.func @spread() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s = trn.alloc : memref<128x2048xf32, #trn.space<sbuf>>
  %m = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  %p = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  %a = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %b = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %c = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  scf.for %i = %c0 to %c8 step %c1 {
    trn.tensor_reduce max %s into %m axes [1] : memref<128x2048xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
    trn.tensor_copy %p into %c engine vector : memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
    trn.tensor_copy %a into %b engine vector : memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xbf16, #trn.space<sbuf>>
    trn.tensor_scalar %c, multiply(2.0) into %c engine vector : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
    trn.memset 0.0 : f32 into %p engine vector : memref<128x512xf32, #trn.space<psum>>
  }
  return
}

// A dependent chain VectorE -> tensor_scalar -> VectorE. By busy time alone
// (the rule before latency balancing) the multiply went to GpSimd, VectorE
// having 2048 columns of reduction on it; there it waits for the
// reduction's result plus a semaphore, and the second reduction waits for
// it plus another. On VectorE the chain ends earlier.
// CHECK-LABEL: func.func @chain
// CHECK: trn.tensor_reduce max
// CHECK-NEXT: trn.tensor_scalar %{{.*}}, multiply(2.000000e+00) into %{{.*}} engine vector
// CHECK-NEXT: trn.tensor_reduce add
func.func @chain() {
  %s = trn.alloc : memref<128x2048xf32, #trn.space<sbuf>>
  %m = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  %n = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  %r = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  trn.tensor_reduce max %s into %m axes [1] : memref<128x2048xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  trn.tensor_scalar %m, multiply(2.0) into %n engine vector : memref<128x1xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  trn.tensor_reduce add %n into %r axes [1] : memref<128x1xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  return
}

// The same two instructions with nothing depending on each other: the
// multiply leaves the busy VectorE, as the busy-time rule had it.
// CHECK-LABEL: func.func @independent
// CHECK: trn.tensor_scalar %{{.*}}, multiply(2.000000e+00) into %{{.*}} engine {{scalar|gpsimd}}
func.func @independent() {
  %s = trn.alloc : memref<128x2048xf32, #trn.space<sbuf>>
  %m = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  %a = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  %n = trn.alloc : memref<128x1xf32, #trn.space<sbuf>>
  trn.tensor_reduce max %s into %m axes [1] : memref<128x2048xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  trn.tensor_scalar %a, multiply(2.0) into %n engine vector : memref<128x1xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  return
}
