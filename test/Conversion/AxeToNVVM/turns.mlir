// RUN: axe-opt %s --axe-to-nvvm | FileCheck %s

// Turns among a partition's two warpgroups (warps [4, 12): warpgroups 1 and
// 2 of three). The partitions' named barrier is 4 (after the CTA's 0 and
// the warpgroups' 1 + wgid), so the turns take 5 and 6, each counting both
// warpgroups (256 threads). On entry the last warpgroup (k = 1) arrives at
// the first one's barrier; a turn begins with a wait at the warpgroup's own
// barrier (5 + k) and ends with an arrival, without waiting, at the next
// one's (5 + (k + 1) mod 2).
// CHECK-LABEL: gpu.func @turns_kernel
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i32
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: scf.if
// CHECK: %[[WG:.*]] = arith.divui %thread_id_x, %c128 : index
// CHECK: %[[K:.*]] = arith.subi %[[WG]], %c1 : index
// CHECK: %[[MINE:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: arith.remui %[[WG]], %c2 : index
// CHECK: %[[NEXT:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[K]], %c1 : index
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: nvvm.barrier.arrive id = %[[C5]] number_of_threads = %[[C256]]
// CHECK: nvvm.barrier id = %[[MINE]] number_of_threads = %[[C256]]
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: nvvm.barrier.arrive id = %[[NEXT]] number_of_threads = %[[C256]]
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @turns() {
    axe.kernel grid [1] threads 384 {
      axe.warp_specialize {
        axe.partition warps [0, 4) {
        }
        axe.partition warps [4, 12) {
          axe.turn_begin
          axe.fence_async_proxy
          axe.turn_end
        }
      }
    }
    return
  }
}
