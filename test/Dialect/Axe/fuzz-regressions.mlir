// RUN: axe-opt %s -split-input-file -verify-diagnostics
// RUN: axe-opt %s -split-input-file -verify-diagnostics --axe-to-cpu
// RUN: axe-opt %s -split-input-file -verify-diagnostics --axe-to-trn

// Inputs axe-opt-fuzz found crashing (fuzz/regressions/opt/), reduced. Each
// must now fail with a diagnostic; the other RUN lines make sure the CPU and
// trn pipelines never see them.

// fuzz/regressions/opt/kernel-in-module: a kernel directly in the module
// was lowered to loops in the module body, which the upstream lowering to
// llvm then crashed on.
// expected-error @+1 {{'axe.kernel' op must be inside a function}}
axe.kernel on #axe.target<"sm_80"> grid [64] threads 64 {
  axe.barrier at warp
}

// -----

// fuzz/regressions/opt/trn-psum-negative-offset: a PSUM buffer at F = -8
// lies before the start of its partitions' space; axe-to-trn sized it 0..hi
// (-7 elements) and emitted memrefs the verifier rejects. The buffer type
// refuses it.
// expected-error @+1 {{layout places data at F = -8, below 0; psum buffers are placed from 0 on P, F and Bank}}
!r = !axe.buffer<f32, #axe.layout<S[1 : 1@F] + -8@F>, psum>
func.func @psum_below_0() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 1 {
    %acc = axe.alloc : !r
    axe.fill %acc, %z at cta : !r
  }
  return
}
