// RUN: axe-opt %s -split-input-file -axe-canonicalize-layouts | FileCheck %s
// RUN: axe-opt %s -split-input-file -axe-canonicalize-layouts=target=sm_90 | FileCheck %s --check-prefix=FUSED

// axe-canonicalize-layouts rewrites every layout attribute, wherever it
// sits, into the layout library's canonical form; the IR still verifies
// (the pass manager checks after the pass). With a target, thread axes are
// fused first.

// CHECK-LABEL: func.func @everywhere
// CHECK-SAME: (%{{.*}}: !axe.buffer<128xf32, #axe.layout<S[(4, 32) : (1@warpid, 1@laneid)]>, reg>)
// CHECK-SAME: attributes {l = #axe.layout<S[36 : 1]>}
// CHECK: axe.alloc : !axe.buffer<128xf32, #axe.layout<S[(2, 8, 2, 4) : (2@warpid, 4@laneid, 1@warpid, 1@laneid)]>, reg>
// CHECK: axe.alloc : !axe.buffer<8x64xf16, #axe.layout<SW(3, 3, 3) o S[512 : 1]>, shared>
// CHECK: axe.alloc : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>
// CHECK: axe.elementwise outs(%{{.*}} : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>) at cta

// FUSED-LABEL: func.func @everywhere
// FUSED-SAME: (%{{.*}}: !axe.buffer<128xf32, #axe.layout<S[128 : 1@tx]>, reg>)
// FUSED: axe.alloc : !axe.buffer<128xf32, #axe.layout<S[(2, 8, 2, 4) : (64@tx, 4@tx, 32@tx, 1@tx)]>, reg>
// FUSED: axe.alloc : !axe.buffer<8x64xf16, #axe.layout<SW(3, 3, 3) o S[512 : 1]>, shared>
func.func @everywhere(%a: !axe.buffer<128xf32, #axe.layout<S[(2, 2, 8, 4) : (2@warpid, 1@warpid, 4@laneid, 1@laneid)]>, reg>)
    attributes {l = #axe.layout<S[(2,3,6):(18,6,1)]>} {
  axe.kernel grid [1] threads 128 {
    %x = axe.alloc : !axe.buffer<128xf32, #axe.layout<S[(2, 8, 2, 4) : (2@warpid, 4@laneid, 1@warpid, 1@laneid)]>, reg>
    %y = axe.alloc : !axe.buffer<8x64xf16, #axe.layout<SW(3, 3, 3) o S[(8, 8, 8) : (64, 8, 1)]>, shared>
    // An identity swizzle disappears.
    %z = axe.alloc : !axe.buffer<8xf32, #axe.layout<SW(0, 0, 0) o S[(2, 4) : (4, 1)]>, shared>
    axe.elementwise outs(%z : !axe.buffer<8xf32, #axe.layout<SW(0, 0, 0) o S[(2, 4) : (4, 1)]>, shared>) at cta {
      %c = arith.constant 1.0 : f32
      axe.yield %c : f32
    }
  }
  return
}

// -----

// Replicas: unit and zero-stride ones vanish, negative strides move into the
// offset, the rest are sorted; the map does not change.
// CHECK-LABEL: func.func private @replicas
// CHECK-SAME: a = #axe.layout<S[8 : 1]>
// CHECK-SAME: b = #axe.layout<S[8 : 1] + R[2 : 4@warpid] + 1@warpid>
// CHECK-SAME: c = #axe.layout<S[32 : 1@laneid]>
// CHECK-SAME: d = #axe.layout<S[32 : 1@laneid]>
func.func private @replicas() attributes {
  a = #axe.layout<S[(1, 8, 1) : (5, 1, 7)] + R[(1, 3) : (9@warpid, 0@laneid)]>,
  b = #axe.layout<S[8 : 1] + R[2 : -4@warpid] + 5@warpid>,
  c = #axe.layout<S[(8, 4) : (4@laneid, 1@laneid)]>,
  d = #axe.layout<S[(4, 8) : (8@laneid, 1@laneid)]>
}

// -----

// A kernel that verifies before the pass verifies after it: slices and views
// compare maps, not spellings.
// CHECK-LABEL: func.func @kernel
// CHECK: axe.view %{{.*}} : memref<64x64xf16> -> !axe.buffer<8x64xf16, #axe.layout<S[512 : 1]>, global>
// CHECK: axe.slice %{{.*}} -> !axe.buffer<8x32xf16, #axe.layout<S[(8, 32) : (64, 1)] + 32>, shared>
func.func @kernel(%A: memref<64x64xf16>) {
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 32 {
    %g = axe.view %A[0, 0] : memref<64x64xf16> -> !axe.buffer<8x64xf16, #axe.layout<S[(8, 64) : (64, 1)]>, global>
    %s = axe.alloc : !axe.buffer<8x64xf16, #axe.layout<S[(8, 2, 32) : (64, 32, 1)]>, shared>
    axe.copy %g to %s at cta : !axe.buffer<8x64xf16, #axe.layout<S[(8, 64) : (64, 1)]>, global> to !axe.buffer<8x64xf16, #axe.layout<S[(8, 2, 32) : (64, 32, 1)]>, shared>
    %h = axe.slice %s[0, 32] : !axe.buffer<8x64xf16, #axe.layout<S[(8, 2, 32) : (64, 32, 1)]>, shared>
        -> !axe.buffer<8x32xf16, #axe.layout<S[(8, 1, 32) : (64, 7, 1)] + 32>, shared>
  }
  return
}
