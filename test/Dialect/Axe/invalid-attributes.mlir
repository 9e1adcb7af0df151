// RUN: axe-opt %s -split-input-file -verify-diagnostics

// Attributes and types the parser or the verifier rejects, each with the
// reason it gives.

// expected-error @+1 {{invalid layout: at column 11 of 'S[(8, 2) : (4@laneid)]': 2 extents but 1 strides}}
func.func private @f() attributes {l = #axe.layout<S[(8, 2) : (4@laneid)]>}

// -----

// expected-error @+1 {{invalid layout: at column 1 of 'Q[8 : 1]': expected a shard 'S[...]'}}
func.func private @f() attributes {l = #axe.layout<Q[8 : 1]>}

// -----

// expected-error @+1 {{extents must be >= 1}}
func.func private @f() attributes {l = #axe.layout<S[0 : 1]>}

// -----

// expected-error @+1 {{does not fit in int64}}
func.func private @f() attributes {l = #axe.layout<S[99999999999999999999 : 1]>}

// -----

// expected-error @+1 {{swizzle needs S >= B}}
func.func private @f() attributes {l = #axe.layout<SW(1, 2, 1) o S[8 : 1]>}

// -----

// expected-error @+1 {{unexpected token in layout}}
func.func private @f() attributes {l = #axe.layout<S[8 : 1] + "m">}

// -----

// expected-error @+1 {{unknown scope 'block'; expected thread, warp, warpgroup, cta, cluster, kernel or mesh<axis = extent, ...>}}
func.func private @f() attributes {s = #axe.scope<block>}

// -----

// expected-error @+1 {{a mesh scope needs at least one device axis, e.g. mesh<gpuid = 4>}}
func.func private @f() attributes {s = #axe.scope<mesh<>>}

// -----

// expected-error @+1 {{mesh axis 'laneid' is a thread axis; a mesh is spanned by device axes (gpuid or a name of your own)}}
func.func private @f() attributes {s = #axe.scope<mesh<laneid = 2>>}

// -----

// expected-error @+1 {{mesh axis 'dx' appears twice}}
func.func private @f() attributes {s = #axe.scope<mesh<dx = 2, dx = 2>>}

// -----

// expected-error @+1 {{mesh axis 'dx' must have a positive extent, got 0}}
func.func private @f() attributes {s = #axe.scope<mesh<dx = 0>>}

// -----

// A quoted mesh axis parses as any string; the verifier wants an identifier.
// expected-error @+1 {{invalid mesh axis name '1x'}}
func.func private @f() attributes {s = #axe.scope<mesh<"1x" = 2>>}

// -----

// expected-error @+1 {{unknown target 'sm_75'; known targets: sm_80, sm_90, sm_100a, cpu, trn1}}
func.func private @f() attributes {t = #axe.target<"sm_75">}

// -----

// expected-error @+1 {{unknown axe attribute 'tile'; expected layout, scope, memory_space, reduce_kind or target}}
func.func private @f() attributes {t = #axe.tile<1>}

// -----

// expected-error @+1 {{'axe.target' must be a #axe.target<"name">, got "sm_80"}}
module attributes {axe.target = "sm_80"} {}

// -----

// expected-error @+1 {{unknown axe attribute 'axe.layout' (the dialect defines 'axe.target')}}
module attributes {axe.layout = #axe.layout<S[8 : 1]>} {}

// -----

//===----------------------------------------------------------------------===//
// Buffer types
//===----------------------------------------------------------------------===//

// expected-error @+1 {{layout S[(8, 8) : (8, 1)] places 64 elements and does not admit the shape 128x64 (8192 elements)}}
func.func private @f(!axe.buffer<128x64xf16, #axe.layout<S[(8, 8) : (8, 1)]>, shared>)

// -----

// expected-error @+1 {{layout axis 'laneid' (a thread axis) cannot place data in shared memory; shared buffers are placed on m, and cbx/cby/cbz across the CTAs of a cluster}}
func.func private @f(!axe.buffer<32xf16, #axe.layout<S[32 : 1@laneid]>, shared>)

// -----

// expected-error @+1 {{layout axis 'm' (a memory axis) cannot place data in tmem memory; tmem buffers are placed on TLane and TCol}}
func.func private @f(!axe.buffer<128x4xf32, #axe.layout<S[(128, 4) : (1@TLane, 1)]>, tmem>)

// -----

// expected-error @+1 {{layout axis 'TCol' (a memory axis) cannot place data in reg memory; reg buffers are placed on m and the thread axes within a CTA}}
func.func private @f(!axe.buffer<4xf32, #axe.layout<S[4 : 1@TCol]>, reg>)

// -----

// expected-error @+1 {{layout axis 'P' (a memory axis) cannot place data in shared memory}}
func.func private @f(!axe.buffer<128xf16, #axe.layout<S[128 : 1@P]>, shared>)

// -----

// expected-error @+1 {{layout axis 'Bank' (a memory axis) cannot place data in sbuf memory; sbuf buffers are placed on P and F}}
func.func private @f(!axe.buffer<2x128xf32, #axe.layout<S[(2, 128) : (1@Bank, 1@P)]>, sbuf>)

// -----

// Partitioned buffers start at 0 on each axis: a negative stride or offset
// reaches out of them.
// expected-error @+1 {{layout places data at P = -3, below 0; sbuf buffers are placed from 0 on P and F}}
func.func private @f(!axe.buffer<4xf32, #axe.layout<S[4 : -1@P]>, sbuf>)

// -----

// expected-error @+1 {{layout places data at TCol = -1, below 0; tmem buffers are placed from 0 on TLane and TCol}}
func.func private @f(!axe.buffer<128x4xf32, #axe.layout<S[(128, 4) : (1@TLane, 1@TCol)] + -1@TCol>, tmem>)

// -----

// expected-error @+1 {{layout axis 'gpuid' (a device axis) cannot place data in reg memory; reg buffers are placed on m and the thread axes within a CTA}}
func.func private @f(!axe.buffer<4xf32, #axe.layout<S[4 : 1@gpuid]>, reg>)

// -----

// expected-error @+1 {{layout axis 'warpid' (a thread axis) cannot place data in global memory; global buffers are placed on m and device axes}}
func.func private @f(!axe.buffer<4xf32, #axe.layout<S[4 : 1@warpid]>, global>)

// -----

// expected-error @+1 {{layout axis 'dx' (a user axis) cannot place data in shared memory}}
func.func private @f(!axe.buffer<4xf32, #axe.layout<S[4 : 1@dx]>, shared>)

// -----

// expected-error @+1 {{a swizzle permutes m addresses, but sbuf memory is not addressed by m}}
func.func private @f(!axe.buffer<128xf16, #axe.layout<SW(1, 1, 1) o S[128 : 0]>, sbuf>)

// -----

// expected-error @+1 {{expected a layout attribute (#axe.layout<...>) or '?', got #axe.scope<cta>}}
func.func private @f(!axe.buffer<8xf32, #axe.scope<cta>, reg>)

// -----

// expected-error @+1 {{unknown memory space 'smem'; expected global, shared, reg, tmem, sbuf, psum or hbm}}
func.func private @f(!axe.buffer<8xf32, #axe.layout<S[8 : 1]>, smem>)

// -----

// expected-error @+1 {{expected static shape}}
func.func private @f(!axe.buffer<?x8xf32, #axe.layout<S[8 : 1]>, reg>)

// -----

// expected-error @+1 {{buffer element type must be an integer or float type, got 'vector<4xf32>'}}
func.func private @f(!axe.buffer<8xvector<4xf32>, #axe.layout<S[8 : 1]>, reg>)

// -----

// No backend fixes how wide an index is in memory.
// expected-error @+1 {{buffer element type cannot be 'index', whose width in memory the backends do not fix; use i32 or i64}}
func.func private @f(!axe.buffer<8xindex, #axe.layout<S[8 : 1]>, reg>)

// -----

// expected-error @+1 {{buffer element type 'i0' has no bits to store}}
func.func private @f(!axe.buffer<8xi0, #axe.layout<S[8 : 1]>, shared>)

// -----

// expected-error @+1 {{buffer dims must be static and positive, got 0x8}}
func.func private @f(!axe.buffer<0x8xf32, #axe.layout<S[8 : 1]>, reg>)

// -----

// expected-error @+1 {{invalid buffer shape: the size of shape 4294967296x4294967296x4 overflows int64}}
func.func private @f(!axe.buffer<4294967296x4294967296x4xf32, #axe.layout<S[8 : 1]>, reg>)

// -----

// Registers belong to the threads of one CTA: a register buffer cannot be
// spread over the CTAs of a grid or a cluster.
// expected-error @+1 {{layout axis 'bx' (a thread axis across the CTAs of a kernel) cannot place data in reg memory; reg buffers are placed on m and the thread axes within a CTA}}
func.func private @f(!axe.buffer<8xf32, #axe.layout<S[8 : 1@bx]>, reg>)

// -----

// expected-error @+1 {{layout axis 'cby' (a thread axis across the CTAs of a cluster) cannot place data in reg memory}}
func.func private @f(!axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (1@cby, 1@laneid)]>, reg>)
