// RUN: axe-opt %s -split-input-file -axe-insert-barriers -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,ASYNC
// With a target without asynchronous shared-memory readers, no fence:
// RUN: axe-opt %s -split-input-file -axe-insert-barriers=target=sm_80 -verify-diagnostics | FileCheck %s --check-prefixes=CHECK,SYNC
// SYNC-NOT: axe.fence_async_proxy

// axe-insert-barriers orders operators that touch one shared or global
// buffer, one of them writing, with the narrowest barrier that covers the
// threads of both, unless a barrier on every path already does.

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!r = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@warpid, 1@laneid)]>, reg>

// A copy into shared memory, then one out of it: read after write.
// CHECK-LABEL: func.func @read_after_write
// CHECK: axe.copy %{{.*}} to %[[S:.*]] at cta
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy %[[S]] to
// Reading again needs nothing more; writing again after reading does.
// CHECK-NOT: axe.barrier
// CHECK: axe.barrier at cta
// CHECK-NEXT: axe.fill %[[S]]
func.func @read_after_write(%A: memref<64xf32>) {
  axe.kernel grid [1] threads 64 {
    %a = axe.view %A[0] : memref<64xf32> -> !g
    %s = axe.alloc : !s
    %r = axe.alloc : !r
    axe.copy %a to %s at cta : !g to !s
    axe.copy %s to %r at cta : !s to !r
    axe.copy %s to %r at cta : !s to !r
    %z = arith.constant 0.0 : f32
    axe.fill %s, %z at cta : !s
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!r = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@warpid, 1@laneid)]>, reg>

// A barrier the program has already ordered them with: none is added.
// Registers are private: a copy between register buffers needs none.
// CHECK-LABEL: func.func @already_ordered
// CHECK: axe.copy
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy
// CHECK-NOT: axe.barrier
// CHECK: axe.copy %{{.*}} to %{{.*}} at cta
// CHECK-NOT: axe.barrier
// CHECK: return
func.func @already_ordered(%A: memref<64xf32>) {
  axe.kernel grid [1] threads 64 {
    %a = axe.view %A[0] : memref<64xf32> -> !g
    %s = axe.alloc : !s
    %r = axe.alloc : !r
    %r2 = axe.alloc : !r
    axe.copy %a to %s at cta : !g to !s
    axe.barrier at cta
    axe.copy %s to %r at cta : !s to !r
    axe.copy %r to %r2 at cta : !r to !r
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!r = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@warpid, 1@laneid)]>, reg>

// A loop that stages through one buffer: the next iteration's copy in
// writes what this iteration's copy out read, so a barrier starts the body
// too (write after read across iterations).
// CHECK-LABEL: func.func @loop_carried
// CHECK: scf.for
// CHECK-NEXT: axe.view
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy
// CHECK-NEXT: }
func.func @loop_carried(%A: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  axe.kernel grid [1] threads 64 {
    %s = axe.alloc : !s
    %r = axe.alloc : !r
    scf.for %i = %c0 to %c256 step %c64 {
      %a = axe.view %A[%i] : memref<256xf32> -> !g
      axe.copy %a to %s at cta : !g to !s
      axe.copy %s to %r at cta : !s to !r
    }
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!r = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@warpid, 1@laneid)]>, reg>

// A barrier at the end of the body orders the loop-carried pair: none is
// added at the top.
// CHECK-LABEL: func.func @loop_ordered
// CHECK: scf.for
// CHECK-NEXT: axe.view
// CHECK-NEXT: axe.copy
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: }
func.func @loop_ordered(%A: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  axe.kernel grid [1] threads 64 {
    %s = axe.alloc : !s
    %r = axe.alloc : !r
    scf.for %i = %c0 to %c256 step %c64 {
      %a = axe.view %A[%i] : memref<256xf32> -> !g
      axe.copy %a to %s at cta : !g to !s
      axe.copy %s to %r at cta : !s to !r
      axe.barrier at cta
    }
  }
  return
}

// -----

!g = !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, global>
!s = !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, shared>
!w = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!r = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (1, 1@laneid)]>, reg>

// Each warp works on its own row through one slice value: a warp barrier
// orders the warp's own accesses. Through another value of the buffer the
// rows may differ, and the CTA's barrier is needed.
// CHECK-LABEL: func.func @per_warp
// CHECK: axe.copy %{{.*}} to %[[W:.*]] at warp
// CHECK-NEXT: axe.barrier at warp
// CHECK-NEXT: axe.copy %[[W]] to %{{.*}} at warp
// CHECK-NEXT: axe.view
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy %{{.*}} to %{{.*}} at cta
func.func @per_warp(%R: memref<2x32xf32>) {
  axe.kernel grid [1] threads 64 {
    %s = axe.alloc : !s
    %wid = axe.axis_id warpid
    %row = axe.slice %s[%wid, 0] : !s -> !w
    %x = axe.alloc : !r
    axe.copy %x to %row at warp : !r to !w
    axe.copy %row to %x at warp : !w to !r
    %o = axe.view %R[0, 0] : memref<2x32xf32> -> !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, global>
    axe.copy %s to %o at cta : !s to !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, global>
  }
  return
}

// -----

!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!t = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared>
!r = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, reg>

// A thread that writes then reads its own element through one value needs
// no barrier.
// CHECK-LABEL: func.func @per_thread
// CHECK: axe.fill
// CHECK-NOT: axe.barrier
// CHECK: axe.copy
// CHECK-NOT: axe.barrier
// CHECK: return
func.func @per_thread() {
  axe.kernel grid [1] threads 64 {
    %s = axe.alloc : !s
    %tid = axe.axis_id tx
    %mine = axe.slice %s[%tid] : !s -> !t
    %z = arith.constant 1.0 : f32
    axe.fill %mine, %z at thread : !t
    %x = axe.alloc : !r
    axe.copy %mine to %x at thread : !t to !r
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!r = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@warpid, 1@laneid)]>, reg>

// Both branches write; the read after the scf.if meets either.
// CHECK-LABEL: func.func @branches
// CHECK: scf.if
// CHECK: axe.fill
// CHECK: } else {
// CHECK: axe.copy
// CHECK: }
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy
func.func @branches(%A: memref<64xf32>, %p: i1) {
  axe.kernel grid [1] threads 64 {
    %a = axe.view %A[0] : memref<64xf32> -> !g
    %s = axe.alloc : !s
    %r = axe.alloc : !r
    scf.if %p {
      %z = arith.constant 0.0 : f32
      axe.fill %s, %z at cta : !s
    } else {
      axe.copy %a to %s at cta : !g to !s
    }
    axe.copy %s to %r at cta : !s to !r
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>

// Global memory too: a fill of C read back by another operator.
// CHECK-LABEL: func.func @global_memory
// CHECK: axe.fill
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.elementwise
func.func @global_memory(%C: memref<64xf32>) {
  axe.kernel grid [1] threads 64 {
    %c = axe.view %C[0] : memref<64xf32> -> !g
    %z = arith.constant 0.0 : f32
    axe.fill %c, %z at cta : !g
    axe.elementwise ins(%c : !g) outs(%c : !g) at cta {
    ^bb0(%x: f32):
      %one = arith.constant 1.0 : f32
      %y = arith.addf %x, %one : f32
      axe.yield %y : f32
    }
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>

// Control flow that differs between the threads of the barrier's scope:
// no barrier can go there.
func.func @divergent(%A: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  axe.kernel grid [1] threads 64 {
    %a = axe.view %A[0] : memref<64xf32> -> !g
    %s = axe.alloc : !s
    %x = axe.alloc : !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, reg>
    %lane = axe.axis_id laneid
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      axe.copy %a to %s at thread : !g to !s
      %t = axe.slice %s[0] : !s -> !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared>
      // expected-error @below {{axe-insert-barriers: this operator needs a cta barrier before it (an earlier operator touches the same memory, one of them writing), but it runs under control flow that differs between the threads of a cta}}
      axe.copy %t to %x at thread : !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared> to !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, reg>
    }
  }
  return
}

// -----

!a = !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
!b = !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
!g = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>

// Ordinary stores that an asynchronous unit reads next (wgmma, where the
// target has it; a copy that forces TMA): the writers fence them for the
// async proxy, then the barrier orders the reader.
// CHECK-LABEL: func.func @async_proxy
// CHECK: axe.fill %[[A:.*]], %{{.*}} at cta
// ASYNC-NEXT: axe.fence_async_proxy
// CHECK-NEXT: axe.fill
// ASYNC-NEXT: axe.fence_async_proxy
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.gemm
// CHECK: axe.barrier at cta
// CHECK-NEXT: axe.fill %[[C:.*]], %{{.*}} at cta
// ASYNC-NEXT: axe.fence_async_proxy
// CHECK-NEXT: axe.view
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy %[[C]] to %{{.*}} at cta {schedule = {sm_90 = "tma"}}
func.func @async_proxy(%G: memref<64x64xf32>) attributes {axe.target = #axe.target<"sm_90">} {
  axe.kernel grid [1] threads 128 {
    %a = axe.alloc : !a
    %b = axe.alloc : !b
    %c = axe.alloc : !c
    %zh = arith.constant 0.0 : f16
    axe.fill %a, %zh at cta : !a
    axe.fill %b, %zh at cta : !b
    axe.gemm %a, %b into %c at warpgroup : !a, !b into !c
    %z = arith.constant 1.0 : f32
    axe.fill %c, %z at cta : !c
    %g = axe.view %G[0, 0] : memref<64x64xf32> -> !g
    axe.copy %c to %g at cta {schedule = {sm_90 = "tma"}} : !c to !g
  }
  return
}

// -----

!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!t = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared>
!g1 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>

// A slice computed in a loop from its induction variable is one SSA value
// that names other memory in each iteration: thread t's write of
// s[(t + i + 1) mod 64] follows thread t + 1's read of it in iteration i.
// A cta barrier starts the body; within one iteration the thread's own
// element needs none.
// CHECK-LABEL: func.func @loop_variant_slice
// CHECK: scf.for
// CHECK: axe.barrier at cta
// CHECK-NEXT: axe.copy %{{.*}} to %[[E:.*]] at thread
// CHECK-NOT: axe.barrier
// CHECK: axe.copy %[[E]] to
// CHECK-NEXT: }
func.func @loop_variant_slice(%A: memref<64xf32>, %B: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  axe.kernel grid [1] threads 64 {
    %s = axe.alloc : !s
    %tid = axe.axis_id tx
    scf.for %i = %c0 to %c2 step %c1 {
      %u = arith.addi %tid, %i : index
      %k = arith.remui %u, %c64 : index
      %e = axe.slice %s[%k] : !s -> !t
      %ga = axe.view %A[%k] : memref<64xf32> -> !g1
      axe.copy %ga to %e at thread : !g1 to !t
      %gb = axe.view %B[%tid] : memref<64xf32> -> !g1
      axe.copy %e to %gb at thread : !t to !g1
    }
  }
  return
}

// -----

!s = !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, shared>
!row = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!g = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!r = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (1, 1@laneid)]>, reg>

// The same at warp scope: a warp barrier orders the warp's own row within
// an iteration, a cta barrier the next iteration's write. A view whose
// column the loop does not change and that differs per warp keeps each
// warp to its own columns in every iteration: its writes need only the
// warp's barrier, as through one value.
// CHECK-LABEL: func.func @loop_variant_row
// CHECK: scf.for
// CHECK: axe.barrier at cta
// CHECK-NEXT: axe.copy
// CHECK-NEXT: axe.barrier at warp
// CHECK-NEXT: axe.copy
// CHECK-NOT: axe.barrier
// CHECK: scf.for
// CHECK-NEXT: axe.view
// CHECK-NEXT: axe.barrier at warp
// CHECK-NEXT: axe.copy
// CHECK-NOT: axe.barrier
// CHECK: return
func.func @loop_variant_row(%X: memref<4x32xf32>, %Y: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  axe.kernel grid [1] threads 64 {
    %s = axe.alloc : !s
    %w = axe.axis_id warpid
    %r = axe.alloc : !r
    scf.for %i = %c0 to %c2 step %c1 {
      %u = arith.addi %w, %i : index
      %k = arith.remui %u, %c2 : index
      %row = axe.slice %s[%k, 0] : !s -> !row
      %gx = axe.view %X[%i, 0] : memref<4x32xf32> -> !g
      axe.copy %gx to %row at warp : !g to !row
      axe.copy %row to %r at warp : !row to !r
    }
    %col = arith.muli %w, %c32 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %gy = axe.view %Y[%i, %col] : memref<4x64xf32> -> !g
      axe.copy %r to %gy at warp : !r to !g
    }
  }
  return
}

// -----

!g = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!s = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!r = !axe.buffer<1x32xf32, #axe.layout<S[(1, 2, 16) : (32, 1, 2@laneid)] + R[2 : 1@laneid]>, reg>
!a = !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>

// Inside a warp specialization each partition orders its own warps: a
// one-warp partition with the warp's barrier, a one-warpgroup partition
// with the warpgroup's (what a cta barrier gives outside).
// CHECK-LABEL: func.func @partitions
// CHECK: axe.partition warps [0, 1)
// CHECK-NEXT: axe.view
// CHECK-NEXT: axe.copy %{{.*}} to %[[S:.*]] at warp
// CHECK-NEXT: axe.alloc
// CHECK-NEXT: axe.barrier at warp
// CHECK-NEXT: axe.copy %[[S]]
// (sm_80 has no warpgroups, and no warpgroup operators.)
// ASYNC: axe.partition warps [4, 8)
// ASYNC: axe.fill %[[A:.*]], %{{.*}} at warpgroup
// ASYNC-NEXT: axe.slice
// ASYNC-NEXT: axe.barrier at warpgroup
// ASYNC-NEXT: axe.fill
func.func @partitions(%X: memref<1x32xf32>, %Y: memref<1x32xf32>) {
  axe.kernel grid [1] threads 256 {
    %s = axe.alloc : !s
    %a = axe.alloc : !a
    axe.warp_specialize {
      axe.partition warps [0, 1) {
        %gx = axe.view %X[0, 0] : memref<1x32xf32> -> !g
        axe.copy %gx to %s at warp : !g to !s
        %r = axe.alloc : !r
        axe.copy %s to %r at warp : !s to !r
        %gy = axe.view %Y[0, 0] : memref<1x32xf32> -> !g
        axe.copy %r to %gy at warp : !r to !g
      }
      axe.partition warps [4, 8) {
        %z = arith.constant 0.0 : f16
        axe.fill %a, %z at warpgroup : !a
        %top = axe.slice %a[0, 0] : !a -> !axe.buffer<32x16xf16, #axe.layout<S[(32, 16) : (16, 1)]>, shared>
        axe.fill %top, %z at warpgroup : !axe.buffer<32x16xf16, #axe.layout<S[(32, 16) : (16, 1)]>, shared>
      }
    }
  }
  return
}

// -----

!a = !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
!b = !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, shared>

// Ordinary stores in the partitions of a warp specialization that an
// asynchronous unit reads after it: every thread fences after the region
// (the writers among them), then the barrier orders the reader.
// CHECK-LABEL: func.func @async_after_partitions
// CHECK: axe.partition warps [4, 8)
// CHECK-NEXT: arith.constant
// CHECK-NEXT: axe.fill
// CHECK-NEXT: }
// CHECK-NEXT: }
// ASYNC-NEXT: axe.fence_async_proxy
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.gemm
func.func @async_after_partitions() attributes {axe.target = #axe.target<"sm_90">} {
  axe.kernel grid [1] threads 256 {
    %a = axe.alloc : !a
    %b = axe.alloc : !b
    %c = axe.alloc : !c
    axe.warp_specialize {
      axe.partition warps [0, 4) {
        %z = arith.constant 0.0 : f16
        axe.fill %a, %z at warpgroup : !a
      }
      axe.partition warps [4, 8) {
        %z = arith.constant 1.0 : f16
        axe.fill %b, %z at warpgroup : !b
      }
    }
    axe.gemm %a, %b into %c at warpgroup : !a, !b into !c
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!t = !axe.buffer<1xf32, #axe.layout<S[1 : 1] + 5>, shared>
!g1 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>

// A thread coordinate read inside a region and yielded out of it differs
// between threads as much as the coordinate itself: the same refusal as
// @divergent.
func.func @divergent_through_if(%A: memref<64xf32>, %B: memref<1xf32>, %p: i1) {
  %c0 = arith.constant 0 : index
  axe.kernel grid [1] threads 64 {
    %a = axe.view %A[0] : memref<64xf32> -> !g
    %b = axe.view %B[0] : memref<1xf32> -> !g1
    %s = axe.alloc : !s
    %v = scf.if %p -> (index) {
      %t = axe.axis_id tx
      scf.yield %t : index
    } else {
      scf.yield %c0 : index
    }
    %first = arith.cmpi eq, %v, %c0 : index
    scf.if %first {
      axe.copy %a to %s at thread : !g to !s
      %e = axe.slice %s[5] : !s -> !t
      // expected-error @below {{axe-insert-barriers: this operator needs a cta barrier before it (an earlier operator touches the same memory, one of them writing), but it runs under control flow that differs between the threads of a cta}}
      axe.copy %e to %b at thread : !t to !g1
    }
  }
  return
}

// -----

!g = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
!s = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!t = !axe.buffer<1xf32, #axe.layout<S[1 : 1] + 5>, shared>
!g1 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>

// Through a value a loop carries: the same.
func.func @divergent_through_loop(%A: memref<64xf32>, %B: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  axe.kernel grid [1] threads 64 {
    %a = axe.view %A[0] : memref<64xf32> -> !g
    %b = axe.view %B[0] : memref<1xf32> -> !g1
    %s = axe.alloc : !s
    %v = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %c0) -> (index) {
      %t = axe.axis_id tx
      %n = arith.addi %acc, %t : index
      scf.yield %n : index
    }
    %first = arith.cmpi eq, %v, %c0 : index
    scf.if %first {
      axe.copy %a to %s at thread : !g to !s
      %e = axe.slice %s[5] : !s -> !t
      // expected-error @below {{axe-insert-barriers: this operator needs a cta barrier before it (an earlier operator touches the same memory, one of them writing), but it runs under control flow that differs between the threads of a cta}}
      axe.copy %e to %b at thread : !t to !g1
    }
  }
  return
}

// -----

#dsm = #axe.layout<S[(2, 64) : (1@cbx, 1)]>
#row = #axe.layout<S[(1, 64) : (1@cbx, 1)]>
#g = #axe.layout<S[(1, 64) : (64, 1)]>

// Shared memory distributed over a cluster's CTAs: the peer's row is
// written by the peer CTA, which only a cluster barrier orders; one more
// closes the kernel, so that no CTA exits while its peer still reads its
// shared memory. The CTA's own row through one value needs only a cta
// barrier.
// CHECK-LABEL: func.func @dsmem
// CHECK: axe.copy %{{.*}} to %[[MINE:.*]] at cta
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.copy %[[MINE]]
// CHECK: axe.barrier at cluster
// CHECK-NEXT: axe.copy
// CHECK-NEXT: axe.barrier at cluster
// CHECK-NEXT: }
func.func @dsmem(%X: memref<2x64xf32>, %Y: memref<2x64xf32>) {
  %c1 = arith.constant 1 : index
  axe.kernel grid [2] threads 64 cluster [2] {
    %r = axe.axis_id cbx
    %d = axe.alloc : !axe.buffer<2x64xf32, #dsm, shared>
    %mine = axe.slice %d[%r, 0] : !axe.buffer<2x64xf32, #dsm, shared> -> !axe.buffer<1x64xf32, #row, shared>
    %gx = axe.view %X[%r, 0] : memref<2x64xf32> -> !axe.buffer<1x64xf32, #g, global>
    axe.copy %gx to %mine at cta : !axe.buffer<1x64xf32, #g, global> to !axe.buffer<1x64xf32, #row, shared>
    axe.copy %mine to %gx at cta : !axe.buffer<1x64xf32, #row, shared> to !axe.buffer<1x64xf32, #g, global>
    %o = arith.subi %c1, %r : index
    %theirs = axe.slice %d[%o, 0] : !axe.buffer<2x64xf32, #dsm, shared> -> !axe.buffer<1x64xf32, #row, shared>
    %gy = axe.view %Y[%r, 0] : memref<2x64xf32> -> !axe.buffer<1x64xf32, #g, global>
    axe.copy %theirs to %gy at cta : !axe.buffer<1x64xf32, #row, shared> to !axe.buffer<1x64xf32, #g, global>
  }
  return
}

// -----

#dsm = #axe.layout<S[(2, 32) : (1@cbx, 1)]>
#row = #axe.layout<S[(1, 32) : (1@cbx, 1)]>
#g = #axe.layout<S[(1, 32) : (32, 1)]>

// Distributed shared memory handed between the CTAs of a cluster inside a
// partition: a cluster barrier there would wait for warps that never reach
// it, so the pass refuses (it used to place nothing).
func.func @cluster_in_partition(%X: memref<2x32xf32>, %Y: memref<2x32xf32>) attributes {axe.target = #axe.target<"sm_90">} {
  %c1 = arith.constant 1 : index
  axe.kernel grid [2] threads 64 cluster [2] {
    %r = axe.axis_id cbx
    %d = axe.alloc : !axe.buffer<2x32xf32, #dsm, shared>
    axe.warp_specialize {
      axe.partition warps [0, 1) {
        %mine = axe.slice %d[%r, 0] : !axe.buffer<2x32xf32, #dsm, shared> -> !axe.buffer<1x32xf32, #row, shared>
        %gx = axe.view %X[%r, 0] : memref<2x32xf32> -> !axe.buffer<1x32xf32, #g, global>
        axe.copy %gx to %mine at warp : !axe.buffer<1x32xf32, #g, global> to !axe.buffer<1x32xf32, #row, shared>
        %o = arith.subi %c1, %r : index
        %theirs = axe.slice %d[%o, 0] : !axe.buffer<2x32xf32, #dsm, shared> -> !axe.buffer<1x32xf32, #row, shared>
        %gy = axe.view %Y[%r, 0] : memref<2x32xf32> -> !axe.buffer<1x32xf32, #g, global>
        // expected-error @+1 {{needs a cluster barrier before it (an earlier operator touches the same distributed shared memory, one of them writing), but it runs in an axe.partition}}
        axe.copy %theirs to %gy at warp : !axe.buffer<1x32xf32, #row, shared> to !axe.buffer<1x32xf32, #g, global>
      }
    }
  }
  return
}
