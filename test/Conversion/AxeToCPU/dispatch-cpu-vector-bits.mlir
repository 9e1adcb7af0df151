// The CPU schedules take their vector width from the target's vector unit
// (the host's), or from axe-dispatch's vector-bits option.
// RUN: axe-opt %s --axe-dispatch='target=cpu vector-bits=128' | FileCheck %s --check-prefix=SSE
// RUN: axe-opt %s --axe-dispatch='target=cpu vector-bits=256' | FileCheck %s --check-prefix=AVX2
// RUN: axe-opt %s --axe-dispatch='target=cpu vector-bits=100' -verify-diagnostics -split-input-file

!g = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
!s = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, shared>

// SSE-LABEL: func.func @copy
// SSE: vector.load {{.*}} vector<4xf32>
// SSE-NOT: vector<8xf32>
// AVX2-LABEL: func.func @copy
// AVX2: vector.load {{.*}} vector<8xf32>
func.func @copy(%A: memref<64x64xf32>) {
  axe.kernel grid [1] threads 32 {
    %a = axe.view %A[0, 0] : memref<64x64xf32> -> !g
    %s = axe.alloc : !s
    // expected-error @+1 {{axe-dispatch vector-bits: vector width 100 bits: expected 0 (the host's), 128, 256 or 512}}
    axe.copy %a to %s at cta : !g to !s
  }
  return
}
