// RUN: axe-opt %s -split-input-file | FileCheck %s
// RUN: axe-opt %s -split-input-file | axe-opt -split-input-file | FileCheck %s

// Views of memrefs and slices of buffers whose layouts the verifiers accept:
// the view's layout must have the map the memref's strides give, the
// slice's the map of the layout library's slice; any equivalent form works.

// CHECK-LABEL: func.func @views
// CHECK: axe.view %{{.*}} [%{{.*}}, %{{.*}}] : memref<1024x512xf16> -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (512, 1)]>, global>
// CHECK: axe.view %{{.*}} [0, 0] : memref<1024x512xf16> -> !axe.buffer<4x512xf16, #axe.layout<S[2048 : 1]>, global>
// CHECK: axe.view %{{.*}} [%{{.*}}, 0] : memref<?x64xf32> -> !axe.buffer<16x64xf32, #axe.layout<S[1024 : 1]>, global>
// CHECK: axe.view %{{.*}} [0, 8] : memref<64x64xf32, strided<[1, 64], offset: 8>> -> !axe.buffer<8x16xf32, #axe.layout<S[(8, 16) : (1, 64)]>, global>
// CHECK: axe.view %{{.*}} [0, 0] : memref<64x64xf32, strided<[1, 64], offset: 8>> -> !axe.buffer<8x16xf32, #axe.layout<S[(8, 2, 8) : (1, 512, 64)]>, global>
func.func @views(%A: memref<1024x512xf16>, %X: memref<?x64xf32>,
                 %T: memref<64x64xf32, strided<[1, 64], offset: 8>>,
                 %i: index, %k: index) {
  %a = axe.view %A[%i, %k] : memref<1024x512xf16>
      -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (512, 1)]>, global>
  // Whole rows: the canonical form is accepted as well.
  %rows = axe.view %A[0, 0] : memref<1024x512xf16>
      -> !axe.buffer<4x512xf16, #axe.layout<S[2048 : 1]>, global>
  // Dynamic sizes are fine as long as the strides are static.
  %x = axe.view %X[%i, 0] : memref<?x64xf32>
      -> !axe.buffer<16x64xf32, #axe.layout<S[1024 : 1]>, global>
  // A column-major memref gives a transposed layout.
  %t = axe.view %T[0, 8] : memref<64x64xf32, strided<[1, 64], offset: 8>>
      -> !axe.buffer<8x16xf32, #axe.layout<S[(8, 16) : (1, 64)]>, global>
  // Structurally different but the same map (the layout library decides).
  %t2 = axe.view %T[0, 0] : memref<64x64xf32, strided<[1, 64], offset: 8>>
      -> !axe.buffer<8x16xf32, #axe.layout<S[(8, 2, 8) : (1, 512, 64)]>, global>
  return
}

// -----

// Distributed views: the memref is one device's shard.
// CHECK-LABEL: func.func @distributed_views
// CHECK: !axe.buffer<64x128xf32, #axe.layout<S[(4, 16, 128) : (1@gpuid, 128, 1)]>, global>
// CHECK: !axe.buffer<4x64x128xf32, #axe.layout<S[(2, 2, 64, 128) : (1@dx, 1@dy, 128, 1)]>, global>
// CHECK: !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (128, 1)] + R[4 : 1@gpuid]>, hbm>
// CHECK: !axe.buffer<16x256xf32, #axe.layout<S[(16, 2, 128) : (128, 1@gpuid, 1)]>, global>
func.func @distributed_views(%shard: memref<16x128xf32>, %full: memref<64x128xf32>) {
  // Rows sharded over 4 devices.
  %rows = axe.view %shard[0, 0] : memref<16x128xf32>
      -> !axe.buffer<64x128xf32, #axe.layout<S[(4, 16, 128) : (1@gpuid, 128, 1)]>, global>
  // One partial result per device of a 2x2 mesh, stacked along a new dim.
  %partials = axe.view %full[0, 0] : memref<64x128xf32>
      -> !axe.buffer<4x64x128xf32, #axe.layout<S[(2, 2, 64, 128) : (1@dx, 1@dy, 128, 1)]>, global>
  // Replicated on every device.
  %copies = axe.view %full[0, 0] : memref<64x128xf32>
      -> !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (128, 1)] + R[4 : 1@gpuid]>, hbm>
  // Columns sharded over 2 devices.
  %cols = axe.view %shard[0, 0] : memref<16x128xf32>
      -> !axe.buffer<16x256xf32, #axe.layout<S[(16, 2, 128) : (128, 1@gpuid, 1)]>, global>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>
#sw = #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>
#frag = #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)]>

// CHECK-LABEL: func.func @slices
// CHECK: axe.slice %{{.*}} [0, 32] : {{.*}} -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (64, 1)] + 32>, shared>
// CHECK: axe.slice %{{.*}} [%{{.*}}, 0] : {{.*}} -> !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, shared>
// CHECK: axe.slice %{{.*}} [%{{.*}}, 0] : {{.*}} -> !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
// CHECK: axe.slice %{{.*}} [0, 8] : {{.*}} -> !axe.buffer<8x8xf32, #axe.layout<S[(32, 2) : (1@laneid, 1)] + 1@warpid>, reg>
// CHECK: axe.slice %{{.*}} [0, %{{.*}}] : {{.*}} -> !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (256, 1)]>, global>
func.func @slices(%n: index, %G: memref<128x256xf16>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    %s = axe.alloc : !axe.buffer<128x64xf16, #sh, shared>
    %w = axe.alloc : !axe.buffer<128x64xf16, #sw, shared>
    %f = axe.alloc : !axe.buffer<8x16xf32, #frag, reg>
    // Constant starts: their contribution is in the offset.
    %cols = axe.slice %s[0, 32] : !axe.buffer<128x64xf16, #sh, shared>
        -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (64, 1)] + 32>, shared>
    scf.for %r = %c0 to %c128 step %c32 {
      // A loop variable: the offset is added at run time.
      %rows = axe.slice %s[%r, 0] : !axe.buffer<128x64xf16, #sh, shared>
          -> !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, shared>
    }
    // A swizzled buffer keeps its swizzle.
    %wid = axe.axis_id warpid
    %half = arith.muli %wid, %c32 : index
    %c2 = arith.constant 2 : index
    %h = arith.muli %half, %c2 : index
    %top = axe.slice %w[%h, 0] : !axe.buffer<128x64xf16, #sw, shared>
        -> !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
    // Slicing a fragment (the worked example: the right half of the 8x16
    // tile lives in warp 1).
    %right = axe.slice %f[0, 8] : !axe.buffer<8x16xf32, #frag, reg>
        -> !axe.buffer<8x8xf32, #axe.layout<S[(32, 2) : (1@laneid, 1)] + 1@warpid>, reg>
    // A global buffer can be sliced too.
    %g = axe.view %G[0, 0] : memref<128x256xf16>
        -> !axe.buffer<128x256xf16, #axe.layout<S[(128, 256) : (256, 1)]>, global>
    scf.for %c = %c0 to %c128 step %c128 {
      %gs = axe.slice %g[0, %c] : !axe.buffer<128x256xf16, #axe.layout<S[(128, 256) : (256, 1)]>, global>
          -> !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (256, 1)]>, global>
    }
  }
  return
}
