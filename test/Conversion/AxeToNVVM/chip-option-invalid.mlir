// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 -split-input-file -verify-diagnostics

// A chip given to the pass lowers a kernel whose IR names another target
// (the cross-target tests lower CPU kernels this way). The kernel must then
// be valid for that chip: its verifier only saw the target the IR names.

// sm_80 has no warpgroups: lowered, the layout below put all four elements
// in one register.
!g = !axe.buffer<4xf32, #axe.layout<S[4 : 1]>, global>
!r = !axe.buffer<4xf32, #axe.layout<S[4 : 1@wid_in_wg] + R[2 : 1@wgid]>, reg>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @warpgroup_axes(%A: memref<4xf32>, %B: memref<4xf32>) {
    // expected-note @below {{axe-dispatch lowers this kernel for sm_80, so its buffers must be valid on sm_80}}
    axe.kernel grid [1] threads 256 {
      %a = axe.view %A[0] : memref<4xf32> -> !g
      %b = axe.view %B[0] : memref<4xf32> -> !g
      // expected-error @below {{places data on axis 'wgid', which sm_80 does not have}}
      %r = axe.alloc : !r
      axe.copy %a to %r at cta : !g to !r
      axe.copy %r to %b at cta : !r to !g
    }
    return
  }
}

// -----

// A kernel with no target in its IR: its verifier checked the launch only.
!g = !axe.buffer<4xf32, #axe.layout<S[4 : 1]>, global>
!r = !axe.buffer<4xf32, #axe.layout<S[4 : 1@wid_in_wg]>, reg>
func.func @no_target(%A: memref<4xf32>) {
  // expected-note @below {{lowers this kernel for sm_80}}
  axe.kernel grid [1] threads 128 {
    %a = axe.view %A[0] : memref<4xf32> -> !g
    // expected-error @below {{places data on axis 'wid_in_wg', which sm_80 does not have}}
    %r = axe.alloc : !r
    axe.copy %a to %r at warpgroup : !g to !r
    axe.copy %r to %a at warpgroup : !r to !g
  }
  return
}
