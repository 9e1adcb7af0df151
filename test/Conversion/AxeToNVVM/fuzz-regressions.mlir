// RUN: axe-opt %s -split-input-file -verify-diagnostics --axe-to-nvvm | FileCheck %s

// Inputs axe-opt-fuzz found (fuzz/regressions/opt/), reduced, through the
// nvvm lowering. The fuzz smoke run replays the inputs under ASan and UBSan;
// here each must be lowered to IR that verifies, or refused with its reason.

// fuzz/regressions/opt/nvvm-address-negation: the swizzle rounds this
// shared buffer's storage down to whole blocks, to m = -2^63, and the
// address m - lo negated lo in int64 (UBSan: the negation of -2^63). Every
// address m - lo fits; -lo is taken modulo 2^64 like the index arithmetic it
// joins. The element at m = -2^63 + 3 is cell 3 of the block.
!s = !axe.buffer<1xf32, #axe.layout<SW(1, 2, 3) o S[1 : 1] + -9223372036854775805>, shared>
!g = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>
// CHECK-LABEL: gpu.func @storage_from_int64_min_kernel
// CHECK-SAME: workgroup(%[[S:.*]] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: memref.store %{{.*}}, %[[S]][%[[C3]]]
// CHECK: memref.load %[[S]][%[[C3]]]
// CHECK: gpu.return
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @storage_from_int64_min(%out: memref<1xf32>) {
    %z = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 32 {
      %s = axe.alloc : !s
      axe.fill %s, %z at cta : !s
      axe.barrier at cta
      %g = axe.view %out[0] : memref<1xf32> -> !g
      axe.copy %s to %g at cta : !s to !g
    }
    return
  }
}

// -----

// fuzz/regressions/opt/nvvm-cluster-replica-negative-offset: a replica over
// cbx of stride 0 places nothing on other CTAs (the verifier counts no
// placement on cbx), but the lowering took the buffer for distributed shared
// memory and reached it through nvvm.mapa, which sm_80 does not have: the
// output did not verify. The buffer is each CTA's own; its offset below 0
// only moves where its storage starts.
!s = !axe.buffer<f32, #axe.layout<S[() : ()] + R[4 : 0@cbx] + -2>, shared>
// CHECK-LABEL: gpu.func @replica_on_cbx_kernel
// CHECK-NOT: nvvm.mapa
// CHECK: memref.store
// CHECK-NOT: nvvm.mapa
// CHECK: gpu.return
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @replica_on_cbx() {
    %z = arith.constant 1.0 : f32
    axe.kernel grid [4] threads 32 {
      %s = axe.alloc : !s
      axe.fill %s, %z at cta : !s
    }
    return
  }
}

// -----

// fuzz/regressions/opt/tcgen05-rank0-message: the tcgen05 schedules worded
// their refusal of a tmem buffer that is not a 128-row tile with its row
// count, read from a rank-0 buffer's empty shape.
!t = !axe.buffer<f32, #axe.layout<S[() : ()]>, tmem>
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tmem_scalar() {
    %z = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 128 {
      %t = axe.alloc : !t
      // expected-error @below {{forced schedule 'tcgen05.st' declined axe.fill on target sm_100a: tcgen05 here keeps 128-row tiles in tmem (data path D); the buffer is of rank 0, not 2}}
      axe.fill %t, %z at warpgroup {schedule = "tcgen05.st"} : !t
    }
    return
  }
}
