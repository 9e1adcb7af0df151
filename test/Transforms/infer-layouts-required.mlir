// Every pass after axe-infer-layouts refuses a buffer whose layout is still
// '?', and says which pass to run.
// RUN: axe-opt %s -verify-diagnostics -axe-dispatch
// RUN: axe-opt %s -verify-diagnostics -axe-insert-barriers
// RUN: axe-opt %s -verify-diagnostics -convert-axe-to-cpu
// RUN: axe-opt %s -verify-diagnostics -convert-axe-to-nvvm
// RUN: axe-opt %s -verify-diagnostics -convert-axe-to-trn

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @pending(%A: memref<64x32xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 32 {
      // expected-error @+1 {{needs concrete layouts, but this op's buffers have layout '?'; run axe-infer-layouts first (the axe-to-cpu, axe-to-nvvm, axe-to-ptx and axe-to-trn pipelines do)}}
      %s = axe.alloc : !axe.buffer<64x32xf32, ?, shared>
      axe.fill %s, %zero at cta : !axe.buffer<64x32xf32, ?, shared>
    }
    return
  }
}
