// RUN: axe-opt %s --axe-dispatch="target=cpu" --split-input-file --verify-diagnostics | FileCheck %s

!g = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, global>
!t = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (1, 8)]>, shared>

// The default copy schedule transposes 8x8 tiles in registers.
// CHECK-LABEL: func @copy_transpose
// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK: vector.transpose
// CHECK: vector.store
// CHECK-NOT: axe.copy
func.func @copy_transpose(%A: memref<8x8xf32>) {
  %a = axe.view %A[0, 0] : memref<8x8xf32> -> !g
  %s = axe.alloc : !t
  axe.copy %a to %s at cta : !g to !t
  return
}

// -----

!g = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, global>
!t = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (1, 8)]>, shared>

// A forced schedule wins over a higher-priority one.
// CHECK-LABEL: func @copy_forced_scalar
// CHECK-NOT: vector.
// CHECK: memref.load
// CHECK: memref.store
func.func @copy_forced_scalar(%A: memref<8x8xf32>) {
  %a = axe.view %A[0, 0] : memref<8x8xf32> -> !g
  %s = axe.alloc : !t
  axe.copy %a to %s at cta {schedule = "cpu.copy.scalar"} : !g to !t
  return
}

// -----

!g = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, global>
!t = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (1, 8)]>, shared>

func.func @copy_unknown_schedule(%A: memref<8x8xf32>) {
  %a = axe.view %A[0, 0] : memref<8x8xf32> -> !g
  %s = axe.alloc : !t
  // expected-error @+1 {{no schedule named 'nope' for axe.copy on target cpu; known: 'cpu.copy' 'cpu.copy.scalar'}}
  axe.copy %a to %s at cta {schedule = "nope"} : !g to !t
  return
}

// -----

!r = !axe.buffer<16x8xf32, #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>, reg>

// A warp-scope operator in a four-warp CTA: every candidate declines and
// says why.
func.func @fill_per_warp() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 128 {
    %acc = axe.alloc : !r
    // expected-error @+2 {{no schedule for axe.fill on target cpu; every candidate declined}}
    // expected-note @+1 {{schedule 'cpu.fill' (priority 10) declined: the operator runs at warp scope, once per warp of a 128-thread CTA}}
    axe.fill %acc, %z at warp : !r
  }
  return
}
