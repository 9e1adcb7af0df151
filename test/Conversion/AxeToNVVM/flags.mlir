// Flags between CTAs on NVIDIA targets: axe.flag_add is a proxy fence and a
// barrier over its scope, then, on the scope's first thread, a relaxed
// atom.add between two fence.acq_rel.gpu (LLVM's NVPTX drops the ordering
// of an atomicrmw), and the old value handed to the scope through a shared
// slot; axe.flag_wait spins with ld.acquire.gpu on the first thread, then a
// barrier and a proxy fence on every thread. (The CPU target refuses them:
// convert-axe-to-cpu-errors.mlir.)
// RUN: axe-opt %s -split-input-file --convert-axe-to-nvvm=chip=sm_90 | FileCheck %s

// CHECK-LABEL: gpu.func @ticket_kernel
// CHECK-SAME: workgroup(%[[SLOT:.*]] : memref<1xi32, #gpu.address_space<workgroup>>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK-NEXT: gpu.barrier
// CHECK: %[[OLD:.*]] = scf.if
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: %[[V:.*]] = llvm.atomicrmw add %{{.*}}, %{{.*}} syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.fence syncscope("device") acquire
// CHECK-NEXT: scf.yield %[[V]] : i32
// CHECK: memref.store %[[OLD]], %[[SLOT]]
// CHECK: gpu.barrier
// CHECK: %[[GOT:.*]] = memref.load %[[SLOT]]
// CHECK: memref.store %[[GOT]]
func.func @ticket(%ticket: memref<1xi32>, %out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  axe.kernel grid [4] threads 128 {
    %t = axe.flag_add %ticket[%c0], %one at cta : memref<1xi32>
    %bx = axe.axis_id bx
    memref.store %t, %out[%bx] : memref<4xi32>
  }
  return
}

// -----

// A count nobody reads needs no slot and no second barrier; a wait at
// warpgroup scope is a named barrier over the warpgroup.
// CHECK-LABEL: gpu.func @signal_wait_kernel
// CHECK-NOT: workgroup(
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: scf.if
// CHECK: llvm.atomicrmw add
// CHECK-NOT: memref.store
// CHECK: scf.if
// CHECK: scf.while
// CHECK: llvm.load %{{.*}} atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK: arith.cmpi slt
// CHECK: nvvm.barrier id
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
func.func @signal_wait(%done: memref<?xi32>, %row: index) {
  %one = arith.constant 1 : i32
  %need = arith.constant 8 : i32
  axe.kernel grid [4] threads 256 {
    %_ = axe.flag_add %done[%row], %one at warpgroup : memref<?xi32>
    axe.flag_wait %done[%row], %need at warpgroup : memref<?xi32>
  }
  return
}
