// RUN: axe-opt %s --axe-dispatch="target=cpu" --convert-axe-to-cpu --split-input-file --verify-diagnostics | FileCheck %s

// Partitions run round by round between CTA barriers: the producer's copy,
// then (after the barrier) the consumer's; each operator loops over the
// warps of its own partition only.
!g = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, global>
!s = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, shared>

// CHECK-LABEL: func @rounds
// CHECK-NOT: axe.
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2 step
// CHECK: memref.store
// CHECK: scf.for %{{.*}} = %c2{{.*}} to %c4 step
// CHECK: memref.store
// CHECK: return
func.func @rounds(%A: memref<16x8xf32>, %B: memref<16x8xf32>) {
  axe.kernel grid [1] threads 128 {
    %s = axe.alloc : !s
    axe.warp_specialize {
      axe.partition warps [0, 2) {
        %a = axe.view %A[0, 0] : memref<16x8xf32> -> !g
        axe.copy %a to %s at warp {schedule = "cpu.copy.elements"} : !g to !s
        axe.barrier at cta
      }
      axe.partition warps [2, 4) {
        axe.barrier at cta
        %b = axe.view %B[0, 0] : memref<16x8xf32> -> !g
        axe.copy %s to %b at warp {schedule = "cpu.copy.elements"} : !s to !g
      }
    }
  }
  return
}

// -----

// Loops with CTA barriers run in lockstep: one loop, whose body holds the
// producer's round and then the consumer's.
!g = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, global>
!s = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, shared>

// CHECK-LABEL: func @lockstep
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c16
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2 step
// CHECK: memref.store
// CHECK: scf.for %{{.*}} = %c2{{.*}} to %c4 step
// CHECK: memref.store
// CHECK-NOT: scf.for %{{.*}} = %c0 to %c64
// CHECK: return
func.func @lockstep(%A: memref<64x8xf32>, %B: memref<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  axe.kernel grid [1] threads 128 {
    %s = axe.alloc : !s
    axe.warp_specialize {
      axe.partition warps [0, 2) {
        scf.for %k = %c0 to %c64 step %c16 {
          %a = axe.view %A[%k, 0] : memref<64x8xf32> -> !g
          axe.copy %a to %s at warp {schedule = "cpu.copy.elements"} : !g to !s
          axe.barrier at cta
          axe.barrier at cta
        }
      }
      axe.partition warps [2, 4) {
        scf.for %k = %c0 to %c64 step %c16 {
          axe.barrier at cta
          %b = axe.view %B[%k, 0] : memref<64x8xf32> -> !g
          axe.copy %s to %b at warp {schedule = "cpu.copy.elements"} : !s to !g
          axe.barrier at cta
        }
      }
    }
  }
  return
}

// -----

!g = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, global>
!s = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, shared>

func.func @loops_differ(%A: memref<64x8xf32>, %B: memref<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  axe.kernel grid [1] threads 128 {
    %s = axe.alloc : !s
    axe.warp_specialize {
      axe.partition warps [0, 2) {
        scf.for %k = %c0 to %c64 step %c16 {
          %a = axe.view %A[%k, 0] : memref<64x8xf32> -> !g
          axe.copy %a to %s at warp : !g to !s
          axe.barrier at cta
        }
      }
      axe.partition warps [2, 4) {
        // expected-error @+1 {{this loop with CTA barriers or pipeline waits must run in lockstep with the other partitions' loop, but their bounds differ}}
        scf.for %k = %c0 to %c32 step %c16 {
          axe.barrier at cta
          %b = axe.view %B[%k, 0] : memref<64x8xf32> -> !g
          axe.copy %s to %b at warp : !s to !g
        }
      }
    }
  }
  return
}

// -----

func.func @barrier_in_if(%p: i1) {
  axe.kernel grid [1] threads 128 {
    axe.warp_specialize {
      axe.partition warps [0, 2) {
        // expected-error @+1 {{a CTA barrier or pipeline wait inside this op of an axe.partition needs the partitions to run concurrently}}
        scf.if %p {
          axe.barrier at cta
        }
      }
      axe.partition warps [2, 4) {
        axe.barrier at cta
      }
    }
  }
  return
}
