// RUN: axe-opt %s --axe-to-nvvm -split-input-file | FileCheck %s

// An axe.pipeline is two rings of mbarriers, made and initialized at the
// kernel's start: a stage's full barrier expects one arrival per warp of the
// committing partition (1 here), its empty barrier one per warp of the
// releasing partitions (2). A TMA copy committed to stage i adds its bytes
// to the full barrier of slot i mod 3 (expect_tx, no arrival) and completes
// on it; the commit is one arrival per warp, from lane 0 after a warp
// barrier. The producer waits for the empty phase of the round before
// (parity ((i / 3) & 1) ^ 1), the consumer for the full phase of its round.

#g = #axe.layout<S[(64, 64) : (256, 1)]>
#s = #axe.layout<SW(3, 3, 3) o S[(192, 64) : (64, 1)]>
#s0 = #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>
// CHECK-LABEL: gpu.func @ring_kernel
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: %[[EMPTY:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
// CHECK: scf.if
// CHECK-NEXT: nvgpu.mbarrier.init %[[FULL]][%c0], %c1 :
// CHECK-NEXT: nvgpu.mbarrier.init %[[EMPTY]][%c0], %c2 :
// CHECK-COUNT-4: nvgpu.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// Producer:
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[SLOT:.*]] = arith.remui %[[I]], %[[C3]]
// CHECK: %[[ROUND:.*]] = arith.divui %[[I]], %[[C3]]
// CHECK: %[[BIT:.*]] = arith.index_castui %[[ROUND]] : index to i1
// CHECK: %[[PREV:.*]] = arith.xori %[[BIT]], %true
// CHECK: nvgpu.mbarrier.try_wait.parity %[[EMPTY]][%[[SLOT]]], %[[PREV]]
// CHECK: %[[AT:.*]] = nvgpu.mbarrier.get %[[FULL]][%[[SLOT2:.*]]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[AT]] : i32 to !llvm.ptr<3>
// CHECK: nvvm.mbarrier.expect_tx %[[PTR]], %c8192_i32
// CHECK: nvgpu.tma.async.load {{.*}}, %[[FULL]][%[[SLOT2]]] to
// CHECK-NOT: try_wait
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[FULL]][%{{.*}}]
// Consumer:
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[CSLOT:.*]] = arith.remui %[[J]], %[[C3]]
// CHECK: %[[CROUND:.*]] = arith.divui %[[J]], %[[C3]]
// CHECK: %[[CBIT:.*]] = arith.index_castui %[[CROUND]] : index to i1
// CHECK: nvgpu.mbarrier.try_wait.parity %[[FULL]][%[[CSLOT]]], %[[CBIT]]
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[EMPTY]][%{{.*}}]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @ring(%a: memref<128x256xf16>, %out: memref<64x64xf16>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    axe.kernel threads 96 {
      %s = axe.alloc : !axe.buffer<192x64xf16, #s, shared>
      %p = axe.pipeline : !axe.pipeline<3>
      axe.warp_specialize {
        axe.partition warps [0, 1) {
          scf.for %i = %c0 to %n step %c1 {
            axe.pipeline_acquire %p[%i] : !axe.pipeline<3>
            %g = axe.view %a[0, 0] : memref<128x256xf16> -> !axe.buffer<64x64xf16, #g, global>
            %d = axe.slice %s[0, 0] : !axe.buffer<192x64xf16, #s, shared> -> !axe.buffer<64x64xf16, #s0, shared>
            %t = axe.copy_async %g to %d at warp {schedule = "tma"} : !axe.buffer<64x64xf16, #g, global> to !axe.buffer<64x64xf16, #s0, shared>
            axe.pipeline_commit %p[%i], %t : !axe.pipeline<3>
          }
        }
        axe.partition warps [1, 3) {
          scf.for %i = %c0 to %n step %c1 {
            axe.pipeline_wait %p[%i] : !axe.pipeline<3>
            axe.pipeline_release %p[%i] : !axe.pipeline<3>
          }
        }
      }
    }
    return
  }
}
