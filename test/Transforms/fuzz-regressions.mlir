// RUN: axe-opt %s -split-input-file -verify-diagnostics --axe-canonicalize-layouts='target=sm_80'

// Inputs axe-opt-fuzz found (fuzz/regressions/opt/) where a pass succeeded
// but left IR the verifier rejects. Each must now fail with a diagnostic.

// fuzz/regressions/opt/fused-threads-exceed-launch: without a target the
// kernel verifies (warpid and laneid are not tied to its 64 threads); fused
// for sm_80 the layout spans 128 threads.
func.func @fused_threads_exceed_launch() {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{places data on tx 0..127, but the kernel has 64 threads per CTA}}
    %r = axe.alloc : !axe.buffer<64x2xf32, #axe.layout<SW(1, 2, 3) o S[(4, 32) : (1@warpid, 1@laneid)]>, reg>
  }
  return
}
