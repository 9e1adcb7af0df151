// RUN: axe-opt %s -split-input-file -verify-diagnostics

// Kernels, thread structure and scopes the verifiers reject: launches the
// target cannot run, buffers that do not fit the launch or the target, and
// operators at scopes that cannot own their buffers.

func.func @grid_rank() {
  // expected-error @+1 {{'axe.kernel' op grid has at most 3 dims, got 4}}
  axe.kernel grid [1, 1, 1, 1] threads 32 {
  }
  return
}

// -----

func.func @grid_dim() {
  // expected-error @+1 {{'axe.kernel' op grid dims must be positive, got 0}}
  axe.kernel grid [0] threads 32 {
  }
  return
}

// -----

func.func @threads() {
  // expected-error @+1 {{'axe.kernel' op attribute 'threads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  axe.kernel grid [1] threads 0 {
  }
  return
}

// -----

func.func @cluster_dim() {
  // expected-error @+1 {{'axe.kernel' op cluster dims must be positive, got 0}}
  axe.kernel grid [1] threads 32 cluster [0] {
  }
  return
}

// -----

func.func @cluster_rank() {
  // expected-error @+1 {{'axe.kernel' op cluster needs 1 to 3 dims, got 4}}
  axe.kernel grid [1] threads 32 cluster [1, 1, 1, 1] {
  }
  return
}

// -----

func.func @cluster_rank_empty() {
  // expected-error @+1 {{'axe.kernel' op cluster needs 1 to 3 dims, got 0}}
  axe.kernel grid [1] threads 32 cluster [] {
  }
  return
}

// -----

// 2^32 x 2^32 CTAs would wrap to 0 in int64 and pass as a small cluster.
func.func @cluster_overflow() {
  // expected-error @+1 {{'axe.kernel' op cluster [4294967296, 4294967296, 1] has more CTAs than int64 can count}}
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 128 cluster [4294967296, 4294967296, 1] {
  }
  return
}

// -----

func.func @grid_overflow(%n: index) {
  // expected-error @+1 {{'axe.kernel' op grid [4294967296, ?, 4294967296] has more CTAs than int64 can count}}
  axe.kernel grid [4294967296, %n, 4294967296] threads 32 {
  }
  return
}

// -----

// CUDA grids reach 2^31 - 1 CTAs along x and 65535 along y and z.
func.func @grid_x_limit() {
  // expected-error @+1 {{'axe.kernel' op grid dim 0 (bx) is 9223372036854775807, but sm_80 allows at most 2147483647 CTAs along it}}
  axe.kernel on #axe.target<"sm_80"> grid [9223372036854775807, 1] threads 128 {
  }
  return
}

// -----

func.func @grid_y_limit() {
  // expected-error @+1 {{'axe.kernel' op grid dim 1 (by) is 65536, but sm_90 allows at most 65535 CTAs along it}}
  axe.kernel on #axe.target<"sm_90"> grid [2147483647, 65536] threads 128 {
  }
  return
}

// -----

func.func @grid_z_limit() {
  // expected-error @+1 {{'axe.kernel' op grid dim 2 (bz) is 70000, but sm_100a allows at most 65535 CTAs along it}}
  axe.kernel on #axe.target<"sm_100a"> grid [1, 1, 70000] threads 128 {
  }
  return
}

// -----

func.func @nested() {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{'axe.kernel' op cannot be nested in another axe.kernel}}
    axe.kernel grid [1] threads 32 {
    }
  }
  return
}

// -----

func.func @too_many_threads() {
  // expected-error @+1 {{'axe.kernel' op has 2048 threads per CTA; sm_80 allows at most 1024}}
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 2048 {
  }
  return
}

// -----

func.func @partial_warp() {
  // expected-error @+1 {{'axe.kernel' op has 100 threads per CTA, not a multiple of the warp size 32 of sm_90}}
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 100 {
  }
  return
}

// -----

func.func @no_clusters() {
  // expected-error @+1 {{'axe.kernel' op has a cluster, but sm_80 has no thread-block clusters}}
  axe.kernel on #axe.target<"sm_80"> grid [2] threads 128 cluster [2] {
  }
  return
}

// -----

func.func @big_cluster() {
  // expected-error @+1 {{'axe.kernel' op has clusters of 32 CTAs; sm_90 allows at most 16}}
  axe.kernel on #axe.target<"sm_90"> grid [32] threads 128 cluster [4, 8] {
  }
  return
}

// -----

// The module's target applies to kernels without one.
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @trn_threads() {
    // expected-error @+1 {{'axe.kernel' op has 128 threads per CTA, but trn1 has no threads: a kernel runs on one core (write no `threads`)}}
    axe.kernel grid [1] threads 128 {
    }
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @trn_grid() {
    // expected-error @+1 {{'axe.kernel' op has a grid dim 0 of 4, but trn1 has no grid: a kernel runs once on it (write no `grid`)}}
    axe.kernel grid [4] {
    }
    return
  }
}

// -----

//===----------------------------------------------------------------------===//
// Buffers against the target and the launch
//===----------------------------------------------------------------------===//

func.func @warps_beyond_launch() {
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.alloc' op places data on warpid 0..7, but the kernel has 4 warps (128 threads per CTA)}}
    %r = axe.alloc : !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (1@warpid, 1@laneid)]>, reg>
  }
  return
}

// -----

func.func @lanes_beyond_warp() {
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.alloc' op places data on laneid 0..63, but a warp has 32 lanes}}
    %r = axe.alloc : !axe.buffer<64xf32, #axe.layout<S[64 : 1@laneid]>, reg>
  }
  return
}

// -----

func.func @warpgroups_beyond_launch() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 256 {
    // expected-error @+1 {{'axe.alloc' op places data on wgid 0..3, but the kernel has 2 warpgroups (256 threads per CTA)}}
    %r = axe.alloc : !axe.buffer<4xf32, #axe.layout<S[4 : 1@wgid]>, reg>
  }
  return
}

// -----

func.func @warps_beyond_warpgroup() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 256 {
    // expected-error @+1 {{'axe.alloc' op places data on wid_in_wg 0..7, but a warpgroup has 4 warps}}
    %r = axe.alloc : !axe.buffer<8xf32, #axe.layout<S[8 : 1@wid_in_wg]>, reg>
  }
  return
}

// -----

func.func @threads_beyond_warpgroup() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 256 {
    // expected-error @+1 {{'axe.alloc' op places data on tid_in_wg 0..255, but a warpgroup has 128 threads}}
    %r = axe.alloc : !axe.buffer<256xf32, #axe.layout<S[256 : 1@tid_in_wg]>, reg>
  }
  return
}

// -----

func.func @negative_coordinate() {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{'axe.alloc' op places data on tx -63..0, but the kernel has 64 threads per CTA}}
    %r = axe.alloc : !axe.buffer<64xf32, #axe.layout<S[64 : -1@tx]>, reg>
  }
  return
}

// -----

func.func @cluster_axis_beyond_cluster() {
  axe.kernel on #axe.target<"sm_90"> grid [4] threads 128 cluster [2] {
    // expected-error @+1 {{'axe.alloc' op places data on cbx 0..3, but the cluster has extent 2 on cbx}}
    %s = axe.alloc : !axe.buffer<4x64xf16, #axe.layout<S[(4, 64) : (1@cbx, 1)]>, shared>
  }
  return
}

// -----

func.func @no_warpgroups_on_sm80() {
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.alloc' op places data on axis 'wid_in_wg', which sm_80 does not have (its axes: bx, by, bz, tx, warpid, laneid, m, gpuid)}}
    %r = axe.alloc : !axe.buffer<4xf32, #axe.layout<S[4 : 1@wid_in_wg]>, reg>
  }
  return
}

// -----

func.func @no_tmem_on_sm90() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.alloc' op uses tmem memory, which sm_90 does not have (it has global, shared, reg)}}
    %t = axe.alloc : !axe.buffer<128x8xf32, #axe.layout<S[(128, 8) : (1@TLane, 1@TCol)]>, tmem>
  }
  return
}

// -----

// Memory axes stay inside the target's extents.
func.func @sbuf_partitions() {
  axe.kernel on #axe.target<"trn1"> {
    // expected-error @+1 {{'axe.alloc' op places data on P 0..255, but trn1's P axis (scratchpad partition) has extent 128}}
    %s = axe.alloc : !axe.buffer<256x16xf32, #axe.layout<S[(256, 16) : (1@P, 1@F)]>, sbuf>
  }
  return
}

// -----

func.func @tmem_lanes() {
  axe.kernel on #axe.target<"sm_100a"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.alloc' op places data on TLane 0..255, but sm_100a's TLane axis (tensor-memory lane) has extent 128}}
    %t = axe.alloc : !axe.buffer<256x16xf32, #axe.layout<S[(256, 16) : (1@TLane, 1@TCol)]>, tmem>
  }
  return
}

// -----

// TCol counts elements; tensor memory has 512 columns of 32 bits.
func.func @tmem_columns() {
  axe.kernel on #axe.target<"sm_100a"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.alloc' op places 32-bit elements on TCol 0..512, which takes 513 32-bit cells, but sm_100a's TCol axis (tensor-memory column) has 512}}
    %t = axe.alloc : !axe.buffer<128x513xf32, #axe.layout<S[(128, 513) : (1@TLane, 1@TCol)]>, tmem>
  }
  return
}

// -----

// Wider elements take more than one column each.
func.func @tmem_columns_wide() {
  axe.kernel on #axe.target<"sm_100a"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.alloc' op places 64-bit elements on TCol 0..299, which takes 600 32-bit cells, but sm_100a's TCol axis (tensor-memory column) has 512}}
    %t = axe.alloc : !axe.buffer<128x300xi64, #axe.layout<S[(128, 300) : (1@TLane, 1@TCol)]>, tmem>
  }
  return
}

// -----

func.func @psum_banks() {
  axe.kernel on #axe.target<"trn1"> {
    // expected-error @+1 {{'axe.alloc' op places data on Bank 0..15, but trn1's Bank axis (PSUM bank) has extent 8}}
    %p = axe.alloc : !axe.buffer<128x16x512xf32, #axe.layout<S[(128, 16, 512) : (1@P, 1@Bank, 1@F)]>, psum>
  }
  return
}

// -----

// A layout on Bank addresses each bank with F: 1024 f32 overflow a 2 KiB bank.
func.func @psum_bank_overflow() {
  axe.kernel on #axe.target<"trn1"> {
    // expected-error @+1 {{'axe.alloc' op places 4096 bytes on F in each psum bank, but a bank of trn1 holds 2048 bytes per partition}}
    %p = axe.alloc : !axe.buffer<128x2x1024xf32, #axe.layout<S[(128, 2, 1024) : (1@P, 1@Bank, 1@F)]>, psum>
  }
  return
}

// -----

// Buffers from outside the kernel are held to the target's axes too.
func.func @argument_beyond_partitions(%s: !axe.buffer<256xf32, #axe.layout<S[256 : 1@P]>, sbuf>) {
  %zero = arith.constant 0.0 : f32
  axe.kernel on #axe.target<"trn1"> {
    // expected-error @+1 {{'axe.fill' op places data on P 0..255, but trn1's P axis (scratchpad partition) has extent 128}}
    axe.fill %s, %zero at cta : !axe.buffer<256xf32, #axe.layout<S[256 : 1@P]>, sbuf>
  }
  return
}

// -----

// Allocations of each memory space fit its capacity.
func.func @psum_capacity() {
  // expected-error @+1 {{'axe.kernel' op allocates 4194304 bytes of psum memory in each of its 128 partitions (P); trn1 allows 16384 per partition}}
  axe.kernel on #axe.target<"trn1"> {
    %p = axe.alloc : !axe.buffer<128x1048576xf32, #axe.layout<S[(128, 1048576) : (1@P, 1@F)]>, psum>
  }
  return
}

// -----

// Banked buffers take whole 2 KiB banks: 6 + 3 banks of the 8.
func.func @psum_capacity_banks() {
  // expected-error @+1 {{'axe.kernel' op allocates 18432 bytes of psum memory in each of its 128 partitions (P); trn1 allows 16384 per partition}}
  axe.kernel on #axe.target<"trn1"> {
    %a = axe.alloc : !axe.buffer<128x6x512xf32, #axe.layout<S[(128, 6, 512) : (1@P, 1@Bank, 1@F)]>, psum>
    %b = axe.alloc : !axe.buffer<128x3x512xf32, #axe.layout<S[(128, 3, 512) : (1@P, 1@Bank, 1@F)]>, psum>
  }
  return
}

// -----

// 192 KiB of SBUF per partition: 128 KiB + 64 KiB + 2 bytes.
func.func @sbuf_capacity() {
  // expected-error @+1 {{'axe.kernel' op allocates 196610 bytes of sbuf memory in each of its 128 partitions (P); trn1 allows 196608 per partition}}
  axe.kernel on #axe.target<"trn1"> {
    %a = axe.alloc : !axe.buffer<128x32768xf32, #axe.layout<S[(128, 32768) : (1@P, 1@F)]>, sbuf>
    %b = axe.alloc : !axe.buffer<128x32769xf16, #axe.layout<S[(128, 32769) : (1@P, 1@F)]>, sbuf>
  }
  return
}

// -----

// Tensor memory is allocated by columns across its 128 lanes: 256 + 384
// columns of 4 bytes.
func.func @tmem_capacity() {
  // expected-error @+1 {{'axe.kernel' op allocates 2560 bytes of tmem memory in each of its 128 partitions (TLane); sm_100a allows 2048 per partition}}
  axe.kernel on #axe.target<"sm_100a"> grid [1] threads 128 {
    %a = axe.alloc : !axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (1@TLane, 1@TCol)]>, tmem>
    %b = axe.alloc : !axe.buffer<64x384xf32, #axe.layout<S[(64, 384) : (1@TLane, 1@TCol)]>, tmem>
  }
  return
}

// -----

// 255 32-bit registers per thread.
func.func @reg_capacity() {
  // expected-error @+1 {{'axe.kernel' op allocates 1024 bytes of reg memory; sm_80 allows 1020 per thread}}
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 32 {
    %r = axe.alloc : !axe.buffer<32x256xf32, #axe.layout<S[(32, 256) : (1@laneid, 1)]>, reg>
  }
  return
}

// -----

func.func @shared_capacity() {
  // expected-error @+1 {{'axe.kernel' op allocates 196608 bytes of shared memory; sm_80 allows 166912 per CTA}}
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    %a = axe.alloc : !axe.buffer<256x256xf16, #axe.layout<S[65536 : 1]>, shared>
    %b = axe.alloc : !axe.buffer<128x256xf16, #axe.layout<S[32768 : 1]>, shared>
  }
  return
}

// -----

// A buffer below m = 0 takes its cells from there up (the lowerings store it
// from its lowest address): it counts, rather than taking its offset off the
// total.
func.func @shared_capacity_below_0() {
  // expected-error @+1 {{'axe.kernel' op allocates 200004 bytes of shared memory; sm_80 allows 166912 per CTA}}
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    %a = axe.alloc : !axe.buffer<50000xf32, #axe.layout<S[50000 : 1]>, shared>
    %b = axe.alloc : !axe.buffer<1xf32, #axe.layout<S[1 : 1] + -50000>, shared>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Axis ids
//===----------------------------------------------------------------------===//

func.func @memory_axis_id() {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{'axe.axis_id' op 'm' is a memory axis; axe.axis_id reads the coordinate of a running thread or device}}
    %m = axe.axis_id m
  }
  return
}

// -----

func.func @thread_axis_outside_kernel() -> index {
  // expected-error @+1 {{'axe.axis_id' op thread axis 'laneid' has a value only inside an axe.kernel}}
  %l = axe.axis_id laneid
  return %l : index
}

// -----

func.func @axis_not_on_target() {
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.axis_id' op sm_80 has no axis 'wgid' (its axes: bx, by, bz, tx, warpid, laneid, m, gpuid)}}
    %w = axe.axis_id wgid
  }
  return
}

// -----

func.func @bad_axis_name() {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{'axe.axis_id' op '1x' is not a valid axis name}}
    %w = axe.axis_id "1x"
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

func.func @ws_outside_kernel() {
  // expected-error @+1 {{'axe.warp_specialize' op must be inside an axe.kernel}}
  axe.warp_specialize {
    axe.partition warps [0, 1) {
    }
  }
  return
}

// -----

func.func @ws_other_op() {
  axe.kernel grid [1] threads 128 {
    // expected-error @+1 {{'axe.warp_specialize' op holds only axe.partition ops, found 'axe.barrier'}}
    axe.warp_specialize {
      axe.barrier at cta
    }
  }
  return
}

// -----

func.func @ws_empty() {
  axe.kernel grid [1] threads 128 {
    // expected-error @+1 {{'axe.warp_specialize' op needs at least one axe.partition}}
    axe.warp_specialize {
    }
  }
  return
}

// -----

func.func @ws_overlap() {
  axe.kernel grid [1] threads 256 {
    axe.warp_specialize {
      axe.partition warps [0, 4) {
      }
      // expected-error @+1 {{'axe.partition' op warps [2, 6) overlap the partition warps [0, 4)}}
      axe.partition warps [2, 6) {
      }
    }
  }
  return
}

// -----

func.func @ws_beyond() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 256 {
    axe.warp_specialize {
      // expected-error @+1 {{'axe.partition' op warps [4, 12) reach beyond the 8 warps of the kernel's 256-thread CTA}}
      axe.partition warps [4, 12) {
      }
    }
  }
  return
}

// -----

func.func @ws_empty_range() {
  axe.kernel grid [1] threads 256 {
    axe.warp_specialize {
      // expected-error @+1 {{'axe.partition' op warp range [4, 4) is empty}}
      axe.partition warps [4, 4) {
      }
    }
  }
  return
}

// -----

func.func @ws_no_warps() {
  axe.kernel on #axe.target<"trn1"> {
    // expected-error @+1 {{'axe.warp_specialize' op trn1 has no warps to specialize}}
    axe.warp_specialize {
      axe.partition warps [0, 1) {
      }
    }
  }
  return
}

// -----

func.func @partition_parent() {
  axe.kernel grid [1] threads 256 {
    // expected-error @+1 {{'axe.partition' op expects parent op 'axe.warp_specialize'}}
    axe.partition warps [0, 4) {
    }
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Scopes in context
//===----------------------------------------------------------------------===//

func.func @cta_op_in_partition(%s: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>) {
  %zero = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 256 {
    axe.warp_specialize {
      axe.partition warps [0, 4) {
        // expected-error @+1 {{'axe.fill' op runs at cta scope inside axe.partition warps [0, 4): only the 4 warps of the partition run it; use warp or warpgroup scope}}
        axe.fill %s, %zero at cta : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>
      }
    }
  }
  return
}

// -----

func.func @warpgroup_in_unaligned_partition() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 256 {
    axe.warp_specialize {
      axe.partition warps [2, 6) {
        // expected-error @+1 {{'axe.barrier' op runs at warpgroup scope inside axe.partition warps [2, 6), which is not made of whole warpgroups of 4 warps}}
        axe.barrier at warpgroup
      }
    }
  }
  return
}

// -----

func.func @warpgroup_on_sm80() {
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.barrier' op runs at warpgroup scope, but sm_80 has no warpgroups (sm_90 and later do)}}
    axe.barrier at warpgroup
  }
  return
}

// -----

func.func @cluster_without_cluster() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.barrier' op runs at cluster scope, but the enclosing axe.kernel has no cluster; launch it with one, e.g. cluster [2]}}
    axe.barrier at cluster
  }
  return
}

// -----

func.func @cluster_on_sm80() {
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.barrier' op runs at cluster scope, but sm_80 has no thread-block clusters}}
    axe.barrier at cluster
  }
  return
}

// -----

func.func @warp_on_trn1(%t: !axe.token) {
  axe.kernel on #axe.target<"trn1"> {
    // expected-error @+1 {{'axe.wait' op runs at warp scope, but trn1 has no warps}}
    axe.wait %t at warp
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Which scope owns a buffer
//===----------------------------------------------------------------------===//

#cta = #axe.layout<S[(4, 32) : (1@warpid, 1@laneid)]>

func.func @reg_too_wide(%r: !axe.buffer<4x32xf32, #cta, reg>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 is a register buffer distributed over 'warpid', which spans a cta; an operator at warp scope cannot own it}}
  axe.fill %r, %zero at warp : !axe.buffer<4x32xf32, #cta, reg>
  return
}

// -----

func.func @reg_thread_local_at_cta(%r: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, reg>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 is a register buffer held by a thread (its layout uses no thread axis); an operator at cta scope cannot own it; run it at thread scope}}
  axe.fill %r, %zero at cta : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, reg>
  return
}

// -----

func.func @reg_warp_at_cta(%r: !axe.buffer<32xf32, #axe.layout<S[32 : 1@laneid]>, reg>,
                           %s: !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, shared>) {
  // expected-error @+1 {{'axe.copy' op operand #0 is a register buffer held by a warp (its widest thread axis is 'laneid'); an operator at cta scope cannot own it; run it at warp scope}}
  axe.copy %r to %s at cta
      : !axe.buffer<32xf32, #axe.layout<S[32 : 1@laneid]>, reg> to !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, shared>
  return
}

// -----

// A row of a warp's tile at a run-time row: the start moves along laneid,
// which the slice's layout leaves out, so the row belongs to some lane of the
// warp and only the warp may own it.
!wtile = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (1@laneid, 1)]>, reg>
!wrow = !axe.buffer<1x8xf32, #axe.layout<S[(1, 8) : (1, 1)]>, reg>

func.func @reg_runtime_slice_of_warp_at_thread(%t: !wtile, %i: index) {
  %r = axe.slice %t[%i, 0] : !wtile -> !wrow
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 is a slice of a register buffer at a run-time start that moves along 'laneid', which spans a warp: which of its threads holds the slice depends on the start, so an operator at thread scope cannot own it; run it at warp scope}}
  axe.fill %r, %zero at thread : !wrow
  return
}

// -----

// The same for a CTA's tile sliced at a run-time row that moves along warpid:
// the slice keeps laneid only, but which warp holds it depends on the start.
!ctile = !axe.buffer<4x32xf32, #axe.layout<S[(4, 32) : (1@warpid, 1@laneid)]>, reg>
!crow = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (1, 1@laneid)]>, reg>

func.func @reg_runtime_slice_of_cta_at_warp(%t: !ctile, %i: index) {
  %r = axe.slice %t[%i, 0] : !ctile -> !crow
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 is a slice of a register buffer at a run-time start that moves along 'warpid', which spans a cta: which of its threads holds the slice depends on the start, so an operator at warp scope cannot own it; run it at cta scope}}
  axe.fill %r, %zero at warp : !crow
  return
}

// -----

func.func @shared_at_kernel(%s: !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, shared>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 is in shared memory, which belongs to a cta; an operator at kernel scope cannot own it}}
  axe.fill %s, %zero at kernel : !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, shared>
  return
}

// -----

#dist = #axe.layout<S[(4, 16) : (1@gpuid, 1)]>

func.func @distributed_at_cta(%g: !axe.buffer<64xf32, #dist, global>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 is distributed over device axis 'gpuid'; only an operator at mesh scope can own it}}
  axe.fill %g, %zero at cta : !axe.buffer<64xf32, #dist, global>
  return
}

// -----

#dist = #axe.layout<S[(4, 16) : (1@gpuid, 1)]>

func.func @mesh_lacks_axis(%g: !axe.buffer<64xf32, #dist, global>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 is placed on device axis 'gpuid', which mesh<dx = 2, dy = 2> does not have}}
  axe.fill %g, %zero at mesh<dx = 2, dy = 2> : !axe.buffer<64xf32, #dist, global>
  return
}

// -----

#dist = #axe.layout<S[(4, 16) : (1@gpuid, 1)]>

func.func @mesh_too_small(%g: !axe.buffer<64xf32, #dist, global>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'axe.fill' op operand #0 places data on gpuid 0..3, but the mesh has extent 2 on gpuid}}
  axe.fill %g, %zero at mesh<gpuid = 2> : !axe.buffer<64xf32, #dist, global>
  return
}

// -----

// Buffers from outside the kernel are checked where the kernel uses them.
func.func @argument_beyond_launch(%r: !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (1@warpid, 1@laneid)]>, reg>) {
  %zero = arith.constant 0.0 : f32
  axe.kernel on #axe.target<"sm_80"> grid [1] threads 128 {
    // expected-error @+1 {{'axe.fill' op places data on warpid 0..7, but the kernel has 4 warps (128 threads per CTA)}}
    axe.fill %r, %zero at cta : !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (1@warpid, 1@laneid)]>, reg>
  }
  return
}

// -----

func.func @ws_registers_range() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 256 {
    axe.warp_specialize {
      // expected-error @+1 {{'axe.partition' op registers 300: setmaxnreg takes a multiple of 8 from 24 to 256}}
      axe.partition warps [0, 4) registers 300 {
      }
    }
  }
  return
}

// -----

func.func @ws_registers_not_warpgroups() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 256 {
    axe.warp_specialize {
      // expected-error @+1 {{'axe.partition' op registers are set per warpgroup; warps [0, 2) are not whole aligned warpgroups}}
      axe.partition warps [0, 2) registers 40 {
      }
    }
  }
  return
}

// -----

func.func @ws_registers_too_many() {
  axe.kernel on #axe.target<"sm_90"> grid [1] threads 384 {
    // expected-error @+1 {{'axe.warp_specialize' op partitions claim 98304 registers; an SM has 65536}}
    axe.warp_specialize {
      axe.partition warps [0, 4) registers 256 {
      }
      axe.partition warps [4, 12) registers 256 {
      }
    }
  }
  return
}

// -----

func.func @turn_outside_partition() {
  axe.kernel grid [1] threads 256 {
    // expected-error @+1 {{'axe.turn_begin' op takes turns among the warpgroups of an axe.partition; it is not inside one}}
    axe.turn_begin
    axe.turn_end
  }
  return
}

// -----

func.func @turn_without_end() {
  axe.kernel grid [1] threads 256 {
    axe.warp_specialize {
      axe.partition warps [0, 8) {
        // expected-error @+1 {{'axe.turn_begin' op has no axe.turn_end after it in its block}}
        axe.turn_begin
        axe.barrier at warpgroup
      }
    }
  }
  return
}

// -----

func.func @turn_end_without_begin() {
  axe.kernel grid [1] threads 256 {
    axe.warp_specialize {
      axe.partition warps [0, 8) {
        axe.turn_begin
        axe.turn_end
        // expected-error @+1 {{'axe.turn_end' op has no axe.turn_begin before it in its block}}
        axe.turn_end
      }
    }
  }
  return
}

// -----

// tx numbers every thread of the CTA, warpid and laneid name parts of it:
// a register layout on tx and warpid asks for a thread both on tx 0..7 and
// in warp 1, which no thread is.
func.func @register_layout_tx_and_warpid() {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{'axe.alloc' op layout places data on both 'tx' and 'warpid', which name overlapping parts of one thread: no thread is both}}
    %r = axe.alloc : !axe.buffer<8x2xf32, #axe.layout<S[(8, 2) : (1@tx, 1@warpid)]>, reg>
  }
  return
}

// -----

func.func @register_layout_warpid_and_wid_in_wg() {
  axe.kernel grid [1] threads 256 {
    // expected-error @+1 {{'axe.alloc' op layout places data on both 'warpid' and 'wid_in_wg'}}
    %r = axe.alloc : !axe.buffer<4x2xf32, #axe.layout<S[(4, 2) : (1@wid_in_wg, 4@warpid)]>, reg>
  }
  return
}

// -----

// Several elements per thread and per replica are fine when no two share a
// place: tx = 2 d + 3 r reaches 0, 2, 3 and 5 once each.
func.func @register_replicas_interleaved() {
  axe.kernel grid [1] threads 32 {
    %r = axe.alloc : !axe.buffer<2x4xf32, #axe.layout<S[(2, 4) : (2@tx, 1)] + R[2 : 3@tx]>, reg>
  }
  return
}
