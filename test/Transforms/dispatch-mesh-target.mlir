// RUN: axe-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(axe-dispatch{target=trn1})'
// RUN: axe-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(axe-dispatch{target=sm_90})'

// A mesh scope on a target whose backend runs no device meshes is refused
// before any schedule is tried, whatever the layouts.

!P = !axe.buffer<2x64xf32, #axe.layout<S[(2, 64) : (1@d, 1)]>, global>
!Y = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@d, 1)]>, global>
func.func @reduce_scatter(%a: memref<64xf32>, %b: memref<32xf32>) {
  axe.kernel threads 32 {
    %x = axe.view %a[0] : memref<64xf32> -> !P
    %y = axe.view %b[0] : memref<32xf32> -> !Y
    // expected-error @+1 {{axe.reduce runs at #axe.scope<mesh<d = 2>>, but target}}
    axe.reduce sum %x into %y dims [0] at mesh<d = 2> : !P into !Y
  }
  return
}

// -----

!X = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@d, 1)]>, global>
!Z = !axe.buffer<64xf32, #axe.layout<S[64 : 1] + R[2 : 1@d]>, global>
func.func @all_gather(%a: memref<32xf32>, %b: memref<64xf32>) {
  axe.kernel threads 32 {
    %x = axe.view %a[0] : memref<32xf32> -> !X
    %y = axe.view %b[0] : memref<64xf32> -> !Z
    // expected-error @+1 {{has no backend that runs device meshes; mesh scopes lower for the cpu target (one process per device, run with axe-mpirun)}}
    axe.copy %x to %y at mesh<d = 2> : !X to !Z
  }
  return
}
