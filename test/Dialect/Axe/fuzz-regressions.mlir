// RUN: axe-opt %s -split-input-file -verify-diagnostics
// RUN: axe-opt %s -split-input-file -verify-diagnostics --axe-to-cpu

// Inputs axe-opt-fuzz found crashing (fuzz/regressions/opt/), reduced. Each
// must now fail with a diagnostic; the second RUN line makes sure the CPU
// pipeline never sees them.

// fuzz/regressions/opt/kernel-in-module: a kernel directly in the module
// was lowered to loops in the module body, which the upstream lowering to
// llvm then crashed on.
// expected-error @+1 {{'axe.kernel' op must be inside a function}}
axe.kernel on #axe.target<"sm_80"> grid [64] threads 64 {
  axe.barrier at warp
}
