// RUN: axe-opt %s -split-input-file | FileCheck %s
// RUN: axe-opt %s -split-input-file | axe-opt -split-input-file | FileCheck %s

// Layout '?': an on-chip buffer whose layout axe-infer-layouts chooses. It
// round-trips, slices of it are '?' too, and region arguments carry it.

// CHECK-LABEL: func.func @pending
// CHECK: axe.alloc : !axe.buffer<64x32xf16, ?, shared>
// CHECK: axe.slice %{{.*}}[0, %{{.*}}] : !axe.buffer<64x32xf16, ?, shared> -> !axe.buffer<64x16xf16, ?, shared>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (!axe.buffer<64x32xf16, ?, shared>)
func.func @pending(%A: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  axe.kernel grid [1] threads 128 {
    %s = axe.alloc : !axe.buffer<64x32xf16, ?, shared>
    %g = axe.view %A[0, 0] : memref<64x32xf16>
        -> !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, global>
    axe.copy %g to %s at cta
        : !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, global> to !axe.buffer<64x32xf16, ?, shared>
    %h = axe.slice %s[0, %c16] : !axe.buffer<64x32xf16, ?, shared> -> !axe.buffer<64x16xf16, ?, shared>
    %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%b = %s) -> (!axe.buffer<64x32xf16, ?, shared>) {
      scf.yield %b : !axe.buffer<64x32xf16, ?, shared>
    }
  }
  return
}
