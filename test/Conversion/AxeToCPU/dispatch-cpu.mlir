// RUN: axe-opt %s --axe-dispatch="target=cpu vector-bits=256" --split-input-file --verify-diagnostics | FileCheck %s
// (256-bit vectors, as on an AVX2 host, so the checks hold on any host.)

!g = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, global>
!t = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (1, 8)]>, shared>

// The default copy schedule transposes 8x8 tiles in registers, by rounds of
// two-input shuffles.
// CHECK-LABEL: func @copy_transpose
// CHECK: vector.load {{.*}} vector<8xf32>
// CHECK-COUNT-24: vector.shuffle
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
  axe.copy %a to %s at cta {schedule = "cpu.copy.elements"} : !g to !t
  return
}

// -----

!g = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, global>
!t = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (1, 8)]>, shared>

func.func @copy_unknown_schedule(%A: memref<8x8xf32>) {
  %a = axe.view %A[0, 0] : memref<8x8xf32> -> !g
  %s = axe.alloc : !t
  // expected-error @+1 {{no schedule named 'nope' for axe.copy on target cpu; known: 'cpu.mesh' 'cpu.copy' 'cpu.copy.elements'}}
  axe.copy %a to %s at cta {schedule = "nope"} : !g to !t
  return
}

// -----

!r = !axe.buffer<16x8xf32, #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>, reg>

// A warp-scope operator in a four-warp CTA runs once per warp: a loop over
// the warps, each filling its own copy of the register buffer (the storage
// has an outer warpid dim of 4 copies of 32 lanes x 4 slots).
// CHECK-LABEL: func @fill_per_warp
// CHECK: %[[ACC:.*]] = axe.alloc
// CHECK: scf.for %[[W:.*]] = %{{.*}} to %c4 step
// CHECK: %[[MEM:.*]] = builtin.unrealized_conversion_cast %[[ACC]]
// CHECK: arith.muli %[[W]], %c128
// CHECK: vector.store %{{.*}}, %[[MEM]]
func.func @fill_per_warp() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 128 {
    %acc = axe.alloc : !r
    axe.fill %acc, %z at warp : !r
  }
  return
}

// -----

!s = !axe.buffer<64x8xf32, #axe.layout<S[(64, 8) : (8, 1)]>, shared>
!s16 = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, shared>
!r = !axe.buffer<16x8xf32, #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>, reg>

// The slice each warp reads starts at 16 warpid: the loop over warps
// re-evaluates the start with warpid replaced by the loop variable, and the
// original axis_id and slice go away.
// CHECK-LABEL: func @copy_slice_per_warp
// CHECK-NOT: axe.axis_id
// CHECK: scf.for %[[W:.*]] = %{{.*}} to %c4 step
// CHECK: %[[ROW:.*]] = arith.muli %[[W]], %c16
// CHECK: axe.slice %{{.*}}[%[[ROW]], 0]
// CHECK-NOT: axe.copy
func.func @copy_slice_per_warp() {
  %c16 = arith.constant 16 : index
  axe.kernel grid [1] threads 128 {
    %w = axe.axis_id warpid
    %row = arith.muli %w, %c16 : index
    %s = axe.alloc : !s
    %part = axe.slice %s[%row, 0] : !s -> !s16
    %acc = axe.alloc : !r
    axe.copy %part to %acc at warp : !s16 to !r
  }
  return
}

// -----

!s = !axe.buffer<128xf32, #axe.layout<S[128 : 1]>, shared>
!one = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared>
!t = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, reg>

// A thread-scope operator runs once per thread; its thread's tx, laneid and
// warpid come from the loop variable (laneid = tx mod 32 here).
// CHECK-LABEL: func @copy_per_thread
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c128 step
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK: axe.slice %{{.*}}[%[[LANE]]]
func.func @copy_per_thread() {
  axe.kernel grid [1] threads 128 {
    %lane = axe.axis_id laneid
    %s = axe.alloc : !s
    %mine = axe.slice %s[%lane] : !s -> !one
    %t = axe.alloc : !t
    axe.copy %mine to %t at thread : !one to !t
  }
  return
}

// -----

!g = !axe.buffer<1x8xf32, #axe.layout<S[(1, 8) : (8, 1)]>, global>
!r = !axe.buffer<1x8xf32, #axe.layout<S[(1, 8) : (1, 1@laneid)]>, reg>

// Operands of a collective operator must be the same for its whole scope: a
// view at laneid differs between the lanes of the warp that copies it.
func.func @copy_lane_dependent(%A: memref<32x8xf32>) {
  axe.kernel grid [1] threads 64 {
    %lane = axe.axis_id laneid
    %g = axe.view %A[%lane, 0] : memref<32x8xf32> -> !g
    %r = axe.alloc : !r
    // expected-error @+4 {{no schedule for axe.copy on target cpu; every candidate declined}}
    // expected-note @+3 {{schedule 'cpu.mesh' (priority 20) declined: not at mesh scope}}
    // expected-note @+2 {{schedule 'cpu.copy' (priority 10) declined: an operand depends on 'laneid', which differs between the threads of one warp}}
    // expected-note @+1 {{schedule 'cpu.copy.elements' (priority 0) declined: an operand depends on 'laneid'}}
    axe.copy %g to %r at warp : !g to !r
  }
  return
}

// -----

!r = !axe.buffer<16x8xf32, #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>, reg>

// A loop whose bounds differ between warps is control flow the CPU (one
// thread per CTA, operators looping over warps) cannot run.
func.func @fill_in_warp_dependent_loop(%v: f32) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  axe.kernel grid [1] threads 128 {
    %w = axe.axis_id warpid
    %acc = axe.alloc : !r
    scf.for %i = %w to %c8 step %c1 {
      %x = arith.index_cast %i : index to i32
      %f = arith.sitofp %x : i32 to f32
      // expected-error @+3 {{no schedule for axe.fill on target cpu; every candidate declined}}
      // expected-note @+2 {{schedule 'cpu.fill' (priority 10) declined: an operand depends on the thread coordinates through a block argument of scf.for}}
      // expected-note @+1 {{schedule 'cpu.fill.elements' (priority 0) declined: an operand depends on the thread coordinates through a block argument of scf.for}}
      axe.fill %acc, %f at warp : !r
    }
  }
  return
}

// -----

!g = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, global>
!r = !axe.buffer<16x8xf32, #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>, reg>

// An asynchronous copy per warp: it has completed when the loop over warps
// is done, so its token's uses get a placeholder token, which
// convert-axe-to-cpu removes with the wait (cpu-tokens.mlir).
// CHECK-LABEL: func @copy_async_per_warp
// CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast to !axe.token
// CHECK: scf.for %[[W:.*]] = %{{.*}} to %c4 step
// CHECK: arith.muli %[[W]], %c16
// CHECK-NOT: axe.copy_async
// CHECK: axe.wait %[[T]] at warp
// CHECK: return
func.func @copy_async_per_warp(%A: memref<64x8xf32>) {
  %c16 = arith.constant 16 : index
  axe.kernel grid [1] threads 128 {
    %w = axe.axis_id warpid
    %row = arith.muli %w, %c16 : index
    %g = axe.view %A[%row, 0] : memref<64x8xf32> -> !g
    %acc = axe.alloc : !r
    %t = axe.copy_async %g to %acc at warp : !g to !r
    axe.wait %t at warp
  }
  return
}
