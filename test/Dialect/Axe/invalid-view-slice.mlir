// RUN: axe-opt %s -split-input-file -verify-diagnostics

// Views and slices the verifiers reject; the layout reasons come from the
// layout library.

func.func @view_space(%A: memref<64x64xf16>) {
  // expected-error @+1 {{'axe.view' op produces a global or hbm buffer, not shared; on-chip buffers come from axe.alloc}}
  %v = axe.view %A[0, 0] : memref<64x64xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[4096 : 1]>, shared>
  return
}

// -----

func.func @view_type(%A: memref<64x64xf16>) {
  // expected-error @+1 {{'axe.view' op buffer elements of type 'f32' differ from the memref's 'f16'}}
  %v = axe.view %A[0, 0] : memref<64x64xf16> -> !axe.buffer<64x64xf32, #axe.layout<S[4096 : 1]>, global>
  return
}

// -----

func.func @view_offsets(%A: memref<64x64xf16>) {
  // expected-error @+1 {{'axe.view' op needs one offset per memref dim (2), got 1}}
  %v = axe.view %A[0] : memref<64x64xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[4096 : 1]>, global>
  return
}

// -----

func.func @view_memory_space(%A: memref<8x8xf32, 3>) {
  // expected-error @+1 {{'axe.view' op takes a memref in the default memory space, not 3 : i64: a view is a tile of global memory}}
  %v = axe.view %A[0, 0] : memref<8x8xf32, 3> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, global>
  return
}

// -----

// A start that a constant gives is checked as a written one.
func.func @view_constant_start_out_of_range(%A: memref<8x8xf32>) {
  %big = arith.constant 9223372036854775807 : index
  // expected-error @+1 {{'axe.view' op the tile spans [9223372036854775807, +8) of memref dim 0, beyond its extent 8}}
  %v = axe.view %A[%big, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, global>
  return
}

// -----

func.func @view_constant_start_negative(%A: memref<8x8xf32>) {
  %neg = arith.constant -1 : index
  // expected-error @+1 {{'axe.view' op offsets must be non-negative, got -1}}
  %v = axe.view %A[%neg, 0] : memref<8x8xf32> -> !axe.buffer<1x8xf32, #axe.layout<S[(1, 8) : (8, 1)]>, global>
  return
}

// -----

// Rows 1 to 3 of this memref lie below its base: its offset 0 leaves no
// room for the stride of -8.
func.func @view_below_base(%A: memref<4x8xf32, strided<[-8, 1]>>) {
  // expected-error @+1 {{'axe.view' op the tile reaches element -24 below the memref's base (offset 0, strides [-8, 1]): a negative stride needs an offset that makes room for it}}
  %v = axe.view %A[0, 0] : memref<4x8xf32, strided<[-8, 1]>> -> !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (-8, 1)]>, global>
  return
}

// -----

// With the offset at the last row, the same strides stay above the base.
func.func @view_negative_stride_with_room(%A: memref<4x8xf32, strided<[-8, 1], offset: 24>>) {
  %v = axe.view %A[0, 0] : memref<4x8xf32, strided<[-8, 1], offset: 24>> -> !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (-8, 1)]>, global>
  return
}

// -----

func.func @view_dynamic_stride(%A: memref<?x?xf16>) {
  // expected-error @+1 {{'axe.view' op cannot derive a layout: the memref's stride of dim 0 is dynamic; use a memref with static strides (e.g. memref<?x1024xf16>)}}
  %v = axe.view %A[0, 0] : memref<?x?xf16> -> !axe.buffer<8x8xf16, #axe.layout<S[(8, 8) : (64, 1)]>, global>
  return
}

// -----

func.func @view_not_strided(%A: memref<8x8xf16, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>>) {
  // expected-error @+1 {{'axe.view' op needs a memref with a strided layout}}
  %v = axe.view %A[0, 0] : memref<8x8xf16, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>> -> !axe.buffer<8x8xf16, #axe.layout<S[64 : 1]>, global>
  return
}

// -----

func.func @view_swizzled(%A: memref<8x64xf16>) {
  // expected-error @+1 {{'axe.view' op a view's layout comes from the memref's strides and cannot be swizzled}}
  %v = axe.view %A[0, 0] : memref<8x64xf16> -> !axe.buffer<8x64xf16, #axe.layout<SW(3, 3, 3) o S[512 : 1]>, global>
  return
}

// -----

func.func @view_mismatch(%A: memref<1024x512xf16>) {
  // expected-error @+1 {{'axe.view' op result layout S[(128, 32) : (32, 1)] does not match the layout S[(128, 32) : (512, 1)] that the memref's strides give the tile}}
  %v = axe.view %A[0, 0] : memref<1024x512xf16> -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (32, 1)]>, global>
  return
}

// -----

func.func @view_rank(%A: memref<64xf16>) {
  // expected-error @+1 {{'axe.view' op a view of a rank-1 memref has rank 1, got rank 2 (extra dims must be placed on device axes)}}
  %v = axe.view %A[0] : memref<64xf16> -> !axe.buffer<8x8xf16, #axe.layout<S[64 : 1]>, global>
  return
}

// -----

func.func @view_bounds(%A: memref<1024x512xf16>) {
  // expected-error @+1 {{'axe.view' op the tile spans [1000, +128) of memref dim 0, beyond its extent 1024}}
  %v = axe.view %A[1000, 0] : memref<1024x512xf16> -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (512, 1)]>, global>
  return
}

// -----

func.func @view_negative(%A: memref<1024x512xf16>) {
  // expected-error @+1 {{'axe.view' op offsets must be non-negative, got -1}}
  %v = axe.view %A[-1, 0] : memref<1024x512xf16> -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (512, 1)]>, global>
  return
}

// -----

// Rows dealt round-robin to the devices are not a grid of whole shards.
func.func @view_cyclic(%A: memref<16x128xf32>) {
  // expected-error @+1 {{'axe.view' op result layout S[(16, 4, 128) : (128, 1@gpuid, 1)] is not the memref's layout S[2048 : 1] (shape 16x128) distributed over device axes}}
  %v = axe.view %A[0, 0] : memref<16x128xf32> -> !axe.buffer<64x128xf32, #axe.layout<S[(16, 4, 128) : (128, 1@gpuid, 1)]>, global>
  return
}

// -----

func.func @view_distributed_rank(%A: memref<64x128xf32>) {
  // expected-error @+1 {{'axe.view' op dim 0 of the view spans 2 elements of one device's memory, but the memref has only 2 dims; place the leading dims on device axes}}
  %v = axe.view %A[0, 0] : memref<64x128xf32> -> !axe.buffer<4x32x128xf32, #axe.layout<S[(2, 2, 32, 128) : (1@gpuid, 4096, 128, 1)]>, global>
  return
}

// -----

func.func @view_distributed_low_rank(%A: memref<16x1xf32>) {
  // expected-error @+1 {{'axe.view' op a distributed view of a rank-2 memref needs rank >= 2, got 1}}
  %v = axe.view %A[0, 0] : memref<16x1xf32> -> !axe.buffer<64xf32, #axe.layout<S[(4, 16) : (1@gpuid, 1)]>, global>
  return
}

// -----

// The shape 3x2 cuts the iter of extent 2 (on gpuid) in a place it cannot.
func.func @view_unsplittable(%A: memref<2x3xf32>) {
  // expected-error @+1 {{'axe.view' op cannot split the layout S[(2, 3) : (1@gpuid, 1)] by the shape 3x2: cannot group S[(2, 3) : (1@gpuid, 1)] by shape 3x2: dim 0 (extent 3) still needs a factor 3 at iter (2 : 1@gpuid), and neither of 3 and 2 divides the other}}
  %v = axe.view %A[0, 0] : memref<2x3xf32> -> !axe.buffer<3x2xf32, #axe.layout<S[(2, 3) : (1@gpuid, 1)]>, global>
  return
}

// -----

// Strides this large put the tile's last element past the int64 range.
func.func @view_stride_overflow(%A: memref<2x2xf32, strided<[9223372036854775807, 1]>>) {
  // expected-error @+1 {{'axe.view' op the memref's strides give no layout: iter (2, 1@m) reaches past the int64 range on axis 'm'}}
  %v = axe.view %A[0, 0] : memref<2x2xf32, strided<[9223372036854775807, 1]>> -> !axe.buffer<2x2xf32, #axe.layout<S[(2, 2) : (2, 1)]>, global>
  return
}

// -----

// An offset on m moves every device's shard, which the memref cannot say.
func.func @view_distributed_offset(%A: memref<16xf32>) {
  // expected-error @+1 {{'axe.view' op result layout S[(2, 16) : (1@gpuid, 1)] + 5 distributes the memref's tile over 'm'; only device axes may distribute a view}}
  %v = axe.view %A[0] : memref<16xf32> -> !axe.buffer<32xf32, #axe.layout<S[(2, 16) : (1@gpuid, 1)] + 5>, global>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Slices
//===----------------------------------------------------------------------===//

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

func.func @slice_space(%s: !axe.buffer<128x64xf16, #sh, shared>) {
  // expected-error @+1 {{'axe.slice' op a slice stays in shared memory, got reg}}
  %r = axe.slice %s[0, 0] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<8x8xf16, #axe.layout<S[(8, 8) : (64, 1)]>, reg>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

func.func @slice_type(%s: !axe.buffer<128x64xf16, #sh, shared>) {
  // expected-error @+1 {{'axe.slice' op a slice keeps the element type 'f16', got 'f32'}}
  %r = axe.slice %s[0, 0] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (64, 1)]>, shared>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

func.func @slice_rank(%s: !axe.buffer<128x64xf16, #sh, shared>) {
  // expected-error @+1 {{'axe.slice' op a slice of a rank-2 buffer has rank 2, got 1}}
  %r = axe.slice %s[0, 0] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<64xf16, #axe.layout<S[64 : 1]>, shared>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

func.func @slice_starts(%s: !axe.buffer<128x64xf16, #sh, shared>) {
  // expected-error @+1 {{'axe.slice' op needs one start per dim (2), got 1}}
  %r = axe.slice %s[0] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<8x8xf16, #axe.layout<S[(8, 8) : (64, 1)]>, shared>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

func.func @slice_bounds(%s: !axe.buffer<128x64xf16, #sh, shared>) {
  // expected-error @+1 {{'axe.slice' op region [60, +8) of dim 1 is outside the source extent 64}}
  %r = axe.slice %s[0, 60] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<8x8xf16, #axe.layout<S[(8, 8) : (64, 1)] + 60>, shared>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

func.func @slice_too_long(%s: !axe.buffer<128x64xf16, #sh, shared>, %i: index) {
  // expected-error @+1 {{'axe.slice' op region [0, +256) of dim 0 is outside the source extent 128}}
  %r = axe.slice %s[%i, 0] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<256x8xf16, #axe.layout<S[(256, 8) : (64, 1)]>, shared>
  return
}

// -----

#split = #axe.layout<S[(2, 4) : (1, 2)]>

func.func @slice_wrap(%s: !axe.buffer<8xf32, #split, shared>) {
  // expected-error @+1 {{'axe.slice' op cannot slice S[(2, 4) : (1, 2)] (shape 8) to the region [3, 6): slice of dim 0 [3, 6) crosses a wrap of an iter of extent 4 (4 : 2) at an unaligned start (digit 3); align the start to 4, or use a length of at most 1}}
  %r = axe.slice %s[3] : !axe.buffer<8xf32, #split, shared> -> !axe.buffer<3xf32, #axe.layout<S[3 : 1]>, shared>
  return
}

// -----

#split = #axe.layout<S[(2, 4) : (1, 2)]>

// Nothing is known of %i, so the slice must work from every start.
func.func @slice_unknown_start(%s: !axe.buffer<8xf32, #split, shared>, %i: index) {
  // expected-error @+1 {{'axe.slice' op cannot slice S[(2, 4) : (1, 2)] (shape 8) to the region [a multiple of 1, +4)}}
  %r = axe.slice %s[%i] : !axe.buffer<8xf32, #split, shared> -> !axe.buffer<4xf32, #axe.layout<S[(2, 2) : (1, 2)]>, shared>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

func.func @slice_mismatch(%s: !axe.buffer<128x64xf16, #sh, shared>) {
  // expected-error @+1 {{'axe.slice' op result layout S[(8, 8) : (64, 1)] does not match the slice layout S[(8, 8) : (64, 1)] + 520}}
  %r = axe.slice %s[8, 8] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<8x8xf16, #axe.layout<S[(8, 8) : (64, 1)]>, shared>
  return
}

// -----

#sw = #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>

func.func @slice_drops_swizzle(%s: !axe.buffer<128x64xf16, #sw, shared>) {
  // expected-error @+1 {{'axe.slice' op result layout S[(64, 64) : (64, 1)] does not match the slice layout SW(3, 3, 3) o S[4096 : 1]}}
  %r = axe.slice %s[0, 0] : !axe.buffer<128x64xf16, #sw, shared> -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
  return
}

// -----

#sh = #axe.layout<S[(128, 64) : (64, 1)]>

// A start near the int64 limit is diagnosed, not wrapped around.
func.func @slice_huge_start(%s: !axe.buffer<128x64xf16, #sh, shared>) {
  // expected-error @+1 {{'axe.slice' op region [9223372036854775807, +8) of dim 1 is outside the source extent 64}}
  %r = axe.slice %s[0, 9223372036854775807] : !axe.buffer<128x64xf16, #sh, shared> -> !axe.buffer<8x8xf16, #axe.layout<S[(8, 8) : (64, 1)]>, shared>
  return
}

// -----

func.func @view_huge_offset(%A: memref<1024x512xf16>) {
  // expected-error @+1 {{'axe.view' op the tile spans [9223372036854775807, +128) of memref dim 0, beyond its extent 1024}}
  %v = axe.view %A[9223372036854775807, 0] : memref<1024x512xf16> -> !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (512, 1)]>, global>
  return
}

// -----

// A replica reaching down to the int64 limit cannot be canonicalized; the
// library then compares the two small maps point by point, and they differ
// (the offsets are one apart).
#neg = #axe.layout<S[8 : 1] + R[2 : -4611686018427387904] + -4611686018427387894>
#neg1 = #axe.layout<S[8 : 1] + R[2 : -4611686018427387904] + -4611686018427387893>

func.func @slice_near_int64_limits(%s: !axe.buffer<8xf32, #neg, shared>) {
  // expected-error @+1 {{'axe.slice' op result layout S[8 : 1] + R[2 : -4611686018427387904] + -4611686018427387893 does not match the slice layout S[8 : 1] + R[2 : -4611686018427387904] + -4611686018427387894}}
  %r = axe.slice %s[0] : !axe.buffer<8xf32, #neg, shared> -> !axe.buffer<8xf32, #neg1, shared>
  return
}
