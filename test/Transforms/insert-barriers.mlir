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
