// RUN: axe-opt %s -split-input-file -verify-diagnostics --axe-to-nvvm=chip=sm_90 | FileCheck %s

// The kernel verifier checks shared memory against the module's target; a
// module without one meets its chip first in the nvvm lowering, which
// refuses shared buffers past what the chip gives a CTA (232448 bytes on
// sm_90) at the buffer that passes it, instead of emitting a kernel whose
// launch fails.

// 200 KiB: past the 48 KiB of static shared memory, within the CTA's share.
// CHECK-LABEL: gpu.func @within_kernel
// CHECK: gpu.dynamic_shared_memory
!s = !axe.buffer<256x200xf32, #axe.layout<S[(256, 200) : (200, 1)]>, shared>
func.func @within() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 128 {
    %a = axe.alloc : !s
    axe.fill %a, %z at cta : !s
  }
  return
}

// -----

!s = !axe.buffer<256x256xf32, #axe.layout<S[(256, 256) : (256, 1)]>, shared>
func.func @one_buffer_too_many() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 128 {
    // expected-error @below {{nvvm: this shared buffer brings the kernel's shared memory to 262144 bytes (with each buffer's alignment); sm_90 gives a CTA at most 232448 bytes}}
    %a = axe.alloc : !s
    axe.fill %a, %z at cta : !s
  }
  return
}

// -----

// Each fits; the second brings the total past the limit.
!s = !axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (256, 1)]>, shared>
func.func @two_buffers() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 128 {
    %a = axe.alloc : !s
    // expected-error @below {{nvvm: this shared buffer brings the kernel's shared memory to 262144 bytes}}
    %b = axe.alloc : !s
    axe.fill %a, %z at cta : !s
    axe.fill %b, %z at cta : !s
  }
  return
}

// -----

// fuzz/regressions/opt/nvvm-shared-bytes-overflow, reduced: a replica of
// extent 2^62 on m makes a flat storage of 2^62 f32, whose bytes overflowed
// int64 (UBSan) and wrapped below the static limit, so the lowering emitted
// a workgroup attribution of 2^62 elements.
!r = !axe.buffer<f32, #axe.layout<S[() : ()] + R[4611686018427387904 : 1@m]>, shared>
func.func @bytes_beyond_int64() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 32 {
    // expected-error @below {{nvvm: this shared buffer takes more bytes than int64 counts; sm_90 gives a CTA at most 232448 bytes}}
    %acc = axe.alloc : !r
    axe.fill %acc, %z at cta : !r
  }
  return
}
