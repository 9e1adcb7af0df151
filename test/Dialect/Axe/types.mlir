// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s -mlir-print-op-generic | axe-opt | FileCheck %s

// Buffers in every memory space, each with axes that space allows, and the
// token type.

// CHECK-LABEL: func.func private @global(!axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (1024, 1)]>, global>)
func.func private @global(!axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (1024, 1)]>, global>)

// CHECK-LABEL: func.func private @distributed(!axe.buffer<64x128xf32, #axe.layout<S[(4, 16, 128) : (1@gpuid, 128, 1)]>, global>)
func.func private @distributed(!axe.buffer<64x128xf32, #axe.layout<S[(4, 16, 128) : (1@gpuid, 128, 1)]>, global>)

// CHECK-LABEL: func.func private @replicated(!axe.buffer<64xf32, #axe.layout<S[64 : 1] + R[(2, 2) : (1@dx, 1@dy)]>, hbm>)
func.func private @replicated(!axe.buffer<64xf32, #axe.layout<S[64 : 1] + R[(2, 2) : (1@dx, 1@dy)]>, hbm>)

// CHECK-LABEL: func.func private @shared(!axe.buffer<8x64xf16, #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>, shared>)
func.func private @shared(!axe.buffer<8x64xf16, #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>, shared>)

// A tile split over the shared memory of the 2 CTAs of a cluster.
// CHECK-LABEL: func.func private @cluster_shared(!axe.buffer<256x64xbf16, #axe.layout<S[(2, 128, 64) : (1@cbx, 64, 1)]>, shared>)
func.func private @cluster_shared(!axe.buffer<256x64xbf16, #axe.layout<S[(2, 128, 64) : (1@cbx, 64, 1)]>, shared>)

// CHECK-LABEL: func.func private @reg(!axe.buffer<8x16xf32, #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid>, reg>)
func.func private @reg(!axe.buffer<8x16xf32, #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid>, reg>)

// CHECK-LABEL: func.func private @tmem(!axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (1@TLane, 1@TCol)]>, tmem>)
func.func private @tmem(!axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (1@TLane, 1@TCol)]>, tmem>)

// CHECK-LABEL: func.func private @sbuf(!axe.buffer<128x512xf16, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, sbuf>)
func.func private @sbuf(!axe.buffer<128x512xf16, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, sbuf>)

// CHECK-LABEL: func.func private @psum(!axe.buffer<128x1024xf32, #axe.layout<S[(128, 2, 512) : (1@P, 1@Bank, 1@F)]>, psum>)
func.func private @psum(!axe.buffer<128x1024xf32, #axe.layout<S[(128, 2, 512) : (1@P, 1@Bank, 1@F)]>, psum>)

// Integer elements (i1 too), a rank-0 buffer, a rank-3 buffer.
// CHECK-LABEL: func.func private @elements
// CHECK-SAME: !axe.buffer<16xi8, #axe.layout<S[16 : 1]>, shared>
// CHECK-SAME: !axe.buffer<4xi1, #axe.layout<S[4 : 1]>, reg>
// CHECK-SAME: !axe.buffer<f32, #axe.layout<S[1 : 1]>, reg>
// CHECK-SAME: !axe.buffer<2x3x4xf64, #axe.layout<S[(2, 3, 4) : (12, 4, 1)]>, global>
func.func private @elements(!axe.buffer<16xi8, #axe.layout<S[16 : 1]>, shared>,
                            !axe.buffer<4xi1, #axe.layout<S[4 : 1]>, reg>,
                            !axe.buffer<f32, #axe.layout<S[1 : 1]>, reg>,
                            !axe.buffer<2x3x4xf64, #axe.layout<S[(2, 3, 4) : (12, 4, 1)]>, global>)

// Stride-0 iters place nothing, so their axis does not have to exist in the
// memory space (a broadcast dim of an SBUF tile).
// CHECK-LABEL: func.func private @broadcast(!axe.buffer<4x128xf32, #axe.layout<S[(4, 128) : (0, 1@P)]>, sbuf>)
func.func private @broadcast(!axe.buffer<4x128xf32, #axe.layout<S[(4, 128) : (0, 1@P)]>, sbuf>)

// CHECK-LABEL: func.func private @token(!axe.token)
func.func private @token(!axe.token)
