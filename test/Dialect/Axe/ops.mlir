// RUN: axe-opt %s -split-input-file | FileCheck %s
// RUN: axe-opt %s -split-input-file | axe-opt -split-input-file | FileCheck %s
// RUN: axe-opt %s -split-input-file -mlir-print-op-generic | axe-opt -split-input-file | FileCheck %s

// Every operation of the dialect in its custom form.

#row = #axe.layout<S[(16, 64) : (64, 1)]>
#frag = #axe.layout<S[(16, 2, 32) : (2@laneid, 1@laneid, 1)]>
#col = #axe.layout<S[16 : 2@laneid] + R[2 : 1@laneid]>

// CHECK-LABEL: func.func @kernel_and_axes
// CHECK: axe.kernel on #axe.target<"sm_90"> grid [%{{.*}}, 2, %{{.*}}] threads 256 cluster [2, 1, 1] {
// CHECK:   %bx = axe.axis_id bx
// CHECK:   %cbx = axe.axis_id cbx
// CHECK:   %tx = axe.axis_id tx
// CHECK:   %warpid = axe.axis_id warpid
// CHECK:   %laneid = axe.axis_id laneid
// CHECK:   %wgid = axe.axis_id wgid
// CHECK:   %wid_in_wg = axe.axis_id wid_in_wg
// CHECK:   %tid_in_wg = axe.axis_id tid_in_wg
// CHECK:   %gpuid = axe.axis_id gpuid
// CHECK:   axe.barrier at cta
// CHECK:   axe.barrier at cluster
// CHECK:   axe.barrier at warp
// CHECK:   axe.barrier at warpgroup
// CHECK:   axe.barrier at kernel
// CHECK:   axe.barrier at mesh<gpuid = 4>
// CHECK: }
func.func @kernel_and_axes(%n: index) {
  axe.kernel on #axe.target<"sm_90"> grid [%n, 2, %n] threads 256 cluster [2, 1, 1] {
    %bx = axe.axis_id bx
    %cbx = axe.axis_id cbx
    %tx = axe.axis_id tx
    %w = axe.axis_id warpid
    %l = axe.axis_id laneid
    %wg = axe.axis_id wgid
    %wiw = axe.axis_id wid_in_wg
    %tiw = axe.axis_id tid_in_wg
    %g = axe.axis_id gpuid
    axe.barrier at cta
    axe.barrier at cluster
    axe.barrier at warp
    axe.barrier at warpgroup
    axe.barrier at kernel
    axe.barrier at mesh<gpuid = 4>
  }
  return
}

// -----

// CHECK-LABEL: func.func @warp_specialize
// CHECK: axe.kernel grid [1] threads 256 {
// CHECK:   axe.warp_specialize {
// CHECK:     axe.partition warps [0, 1) {
// CHECK:       axe.barrier at warp
// CHECK:     }
// CHECK:     axe.partition warps [4, 8) attributes {role = "consumer"} {
// CHECK:       axe.barrier at warpgroup
// CHECK:       axe.barrier at cta
// CHECK:       axe.partition_barrier
// CHECK:     }
// CHECK:   }
func.func @warp_specialize() {
  axe.kernel grid [1] threads 256 {
    axe.warp_specialize {
      axe.partition warps [0, 1) {
        axe.barrier at warp
      }
      axe.partition warps [4, 8) attributes {role = "consumer"} {
        axe.barrier at warpgroup
        axe.barrier at cta
        axe.partition_barrier
      }
    }
  }
  return
}

// -----

#row = #axe.layout<S[(16, 64) : (64, 1)]>
#frag = #axe.layout<S[(16, 2, 32) : (2@laneid, 1@laneid, 1)]>
#col = #axe.layout<S[16 : 2@laneid] + R[2 : 1@laneid]>

// CHECK-LABEL: func.func @buffers_and_operators
// CHECK: %[[G:.*]] = axe.view %{{.*}} [%{{.*}}, 0] : memref<?x64xf32> -> !axe.buffer<16x64xf32, #axe.layout<S[(16, 64) : (64, 1)]>, global>
// CHECK: %[[S:.*]] = axe.alloc : !axe.buffer<16x64xf32, #axe.layout<S[(16, 64) : (64, 1)]>, shared>
// CHECK: %[[R:.*]] = axe.alloc : !axe.buffer<16x64xf32, #axe.layout<S[(16, 2, 32) : (2@laneid, 1@laneid, 1)]>, reg>
// CHECK: axe.fill %[[S]], %{{.*}} at cta : !axe.buffer<16x64xf32
// CHECK: axe.copy %[[G]] to %[[S]] at cta {schedule = "vectorized"} : !axe.buffer<16x64xf32, {{.*}}, global> to !axe.buffer<16x64xf32, {{.*}}, shared>
// CHECK: %[[T:.*]] = axe.copy_async %[[S]] to %[[R]] at warp : !axe.buffer
// CHECK: axe.wait %[[T]] at warp
// CHECK: axe.wait at cta
// CHECK: axe.slice %[[S]] [8, %{{.*}}] : !axe.buffer<16x64xf32, #axe.layout<S[(16, 64) : (64, 1)]>, shared> -> !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (64, 1)] + 544>, shared>
// CHECK: axe.reduce sum %[[R]] into %{{.*}} dims [1] at warp
// CHECK: axe.reduce max %[[R]] into %{{.*}} dims [1] at warp {accumulate}
// CHECK: axe.reduce min %[[S]] into %{{.*}} dims [0, 1] at cta
// CHECK: axe.reduce prod %[[S]] into %{{.*}} dims [0] at cta
// CHECK: axe.elementwise ins(%[[R]], %{{.*}} : {{.*}}) outs(%{{.*}}, %{{.*}} : {{.*}}) at warp attributes {schedule = "simd"} {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK:   axe.yield %{{.*}}, %{{.*}} : f32, f16
// CHECK: }
// CHECK: axe.elementwise outs(%[[S]] : {{.*}}) at cta {
// CHECK:   axe.yield %{{.*}} : f32
func.func @buffers_and_operators(%X: memref<?x64xf32>, %i: index, %scale: f32) {
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  axe.kernel on #axe.target<"sm_80"> grid [4] threads 128 {
    %g = axe.view %X[%i, 0] : memref<?x64xf32> -> !axe.buffer<16x64xf32, #row, global>
    %s = axe.alloc : !axe.buffer<16x64xf32, #row, shared>
    %r = axe.alloc : !axe.buffer<16x64xf32, #frag, reg>
    axe.fill %s, %zero at cta : !axe.buffer<16x64xf32, #row, shared>
    axe.copy %g to %s at cta {schedule = "vectorized"}
        : !axe.buffer<16x64xf32, #row, global> to !axe.buffer<16x64xf32, #row, shared>
    %t = axe.copy_async %s to %r at warp
        : !axe.buffer<16x64xf32, #row, shared> to !axe.buffer<16x64xf32, #frag, reg>
    axe.wait %t at warp
    axe.wait at cta
    %part = axe.slice %s[8, %c32] : !axe.buffer<16x64xf32, #row, shared>
        -> !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (64, 1)] + 544>, shared>
    %sum = axe.alloc : !axe.buffer<16x1xf32, #col, reg>
    axe.reduce sum %r into %sum dims [1] at warp
        : !axe.buffer<16x64xf32, #frag, reg> into !axe.buffer<16x1xf32, #col, reg>
    %max = axe.alloc : !axe.buffer<16xf32, #axe.layout<S[16 : 2@laneid] + R[2 : 1@laneid]>, reg>
    axe.reduce max %r into %max dims [1] at warp {accumulate}
        : !axe.buffer<16x64xf32, #frag, reg> into !axe.buffer<16xf32, #axe.layout<S[16 : 2@laneid] + R[2 : 1@laneid]>, reg>
    %all = axe.alloc : !axe.buffer<f32, #axe.layout<S[1 : 1]>, shared>
    axe.reduce min %s into %all dims [0, 1] at cta
        : !axe.buffer<16x64xf32, #row, shared> into !axe.buffer<f32, #axe.layout<S[1 : 1]>, shared>
    %cols = axe.alloc : !axe.buffer<1x64xf32, #axe.layout<S[64 : 1]>, shared>
    axe.reduce prod %s into %cols dims [0] at cta
        : !axe.buffer<16x64xf32, #row, shared> into !axe.buffer<1x64xf32, #axe.layout<S[64 : 1]>, shared>
    %o32 = axe.alloc : !axe.buffer<16x64xf32, #frag, reg>
    %o16 = axe.alloc : !axe.buffer<16x64xf16, #frag, reg>
    axe.elementwise ins(%r, %sum : !axe.buffer<16x64xf32, #frag, reg>, !axe.buffer<16x1xf32, #col, reg>)
                    outs(%o32, %o16 : !axe.buffer<16x64xf32, #frag, reg>, !axe.buffer<16x64xf16, #frag, reg>)
                    at warp attributes {schedule = "simd"} {
    ^bb0(%x: f32, %total: f32):
      %q = arith.divf %x, %total : f32
      %y = arith.mulf %q, %scale : f32
      %e = math.exp %y : f32
      %h = arith.truncf %e : f32 to f16
      axe.yield %e, %h : f32, f16
    }
    axe.elementwise outs(%s : !axe.buffer<16x64xf32, #row, shared>) at cta {
      axe.yield %scale : f32
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @gemm_forms
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at cta : !axe.buffer<64x32xf16
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at cta {transpose_a, transpose_b} : !axe.buffer<32x64xf16
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at thread {schedule = "fma"} : !axe.buffer<2x4xi8
func.func @gemm_forms() {
  axe.kernel on #axe.target<"sm_100a"> grid [1] threads 128 {
    %a = axe.alloc : !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, shared>
    %at = axe.alloc : !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, shared>
    %b = axe.alloc : !axe.buffer<32x128xf16, #axe.layout<S[(32, 128) : (128, 1)]>, shared>
    %bt = axe.alloc : !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (32, 1)]>, shared>
    %c = axe.alloc : !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (1@TLane, 1@TCol)]>, tmem>
    axe.gemm %a, %b into %c at cta
        : !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, shared>,
          !axe.buffer<32x128xf16, #axe.layout<S[(32, 128) : (128, 1)]>, shared>
          into !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (1@TLane, 1@TCol)]>, tmem>
    axe.gemm %at, %bt into %c at cta {transpose_a, transpose_b}
        : !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, shared>,
          !axe.buffer<128x32xf16, #axe.layout<S[(128, 32) : (32, 1)]>, shared>
          into !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (1@TLane, 1@TCol)]>, tmem>
    %ia = axe.alloc : !axe.buffer<2x4xi8, #axe.layout<S[(2, 4) : (4, 1)]>, reg>
    %ib = axe.alloc : !axe.buffer<4x2xi8, #axe.layout<S[(4, 2) : (2, 1)]>, reg>
    %ic = axe.alloc : !axe.buffer<2x2xi32, #axe.layout<S[(2, 2) : (2, 1)]>, reg>
    axe.gemm %ia, %ib into %ic at thread {schedule = "fma"}
        : !axe.buffer<2x4xi8, #axe.layout<S[(2, 4) : (4, 1)]>, reg>,
          !axe.buffer<4x2xi8, #axe.layout<S[(4, 2) : (2, 1)]>, reg>
          into !axe.buffer<2x2xi32, #axe.layout<S[(2, 2) : (2, 1)]>, reg>
  }
  return
}

// -----

// Operators outside a kernel are allowed (helpers a kernel inlines); only
// thread-axis ids need one.
// CHECK-LABEL: func.func @outside_kernel
// CHECK: axe.copy %{{.*}} to %{{.*}} at cta
// CHECK: axe.axis_id gpuid
func.func @outside_kernel(%a: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>,
                          %b: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>) -> index {
  axe.copy %a to %b at cta
      : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared> to !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>
  %d = axe.axis_id gpuid
  return %d : index
}

// -----

// Buffers right at the targets' limits verify: 16-bit elements pack two to a
// 32-bit tensor-memory column, so 1024 of them fill TMEM's 512 columns; 8
// full PSUM banks; 192 KiB of each SBUF partition; the largest CUDA grid.
// CHECK-LABEL: func.func @at_the_limits
// CHECK: axe.alloc : !axe.buffer<128x1024xf16, #axe.layout<S[(128, 1024) : (1@TLane, 1@TCol)]>, tmem>
// A core of an accelerator has no threads: no launch is written or printed.
// CHECK: axe.kernel on #axe.target<"trn1"> {
// CHECK: axe.alloc : !axe.buffer<128x4096xf32, #axe.layout<S[(128, 8, 512) : (1@P, 1@Bank, 1@F)]>, psum>
// CHECK: axe.alloc : !axe.buffer<128x49152xf32, #axe.layout<S[(128, 49152) : (1@P, 1@F)]>, sbuf>
// CHECK: axe.kernel on #axe.target<"sm_90"> grid [2147483647, 65535, 65535] threads 32
func.func @at_the_limits() {
  axe.kernel on #axe.target<"sm_100a"> grid [1] threads 128 {
    %t = axe.alloc : !axe.buffer<128x1024xf16, #axe.layout<S[(128, 1024) : (1@TLane, 1@TCol)]>, tmem>
  }
  axe.kernel on #axe.target<"trn1"> {
    %p = axe.alloc : !axe.buffer<128x4096xf32, #axe.layout<S[(128, 8, 512) : (1@P, 1@Bank, 1@F)]>, psum>
    %s = axe.alloc : !axe.buffer<128x49152xf32, #axe.layout<S[(128, 49152) : (1@P, 1@F)]>, sbuf>
  }
  axe.kernel on #axe.target<"sm_90"> grid [2147483647, 65535, 65535] threads 32 {
  }
  return
}

// -----

// An accumulator and inputs in disjoint regions of one buffer.
// CHECK-LABEL: func.func @gemm_disjoint_slices
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at thread
!tile = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, reg>
func.func @gemm_disjoint_slices(%s: !axe.buffer<12x4xf32, #axe.layout<S[(12, 4) : (4, 1)]>, reg>) {
  %a = axe.slice %s[0, 0] : !axe.buffer<12x4xf32, #axe.layout<S[(12, 4) : (4, 1)]>, reg> -> !tile
  %b = axe.slice %s[4, 0] : !axe.buffer<12x4xf32, #axe.layout<S[(12, 4) : (4, 1)]>, reg>
      -> !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)] + 16>, reg>
  %c = axe.slice %s[8, 0] : !axe.buffer<12x4xf32, #axe.layout<S[(12, 4) : (4, 1)]>, reg>
      -> !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)] + 32>, reg>
  axe.gemm %a, %b into %c at thread
      : !tile, !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)] + 16>, reg>
        into !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)] + 32>, reg>
  return
}

// -----

// A reduction across a mesh that the devices do not wait for.
// CHECK-LABEL: func.func @reduce_async
// CHECK: %[[T:.*]] = axe.reduce_async sum %{{.*}} into %{{.*}} dims [0] at mesh<d = 2>
// CHECK: axe.wait %[[T]] at mesh<d = 2>
!parts = !axe.buffer<2x8xf32, #axe.layout<S[(2, 8) : (1@d, 1)]>, global>
!sum = !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
func.func @reduce_async(%s: !parts, %d: !sum) {
  %t = axe.reduce_async sum %s into %d dims [0] at mesh<d = 2> : !parts into !sum
  axe.wait %t at mesh<d = 2>
  return
}

// -----

// Flags between the CTAs of a launch: a ticket, a count, a wait.
// CHECK-LABEL: func.func @flags
// CHECK: %{{.*}} = axe.flag_add %{{.*}}[%{{.*}}], %{{.*}} at cta : memref<1xi32>
// CHECK: axe.flag_wait %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} at warpgroup : memref<4x8xi32>
// CHECK: %{{.*}} = axe.flag_add %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} at warp : memref<4x8xi32>
func.func @flags(%ticket: memref<1xi32>, %done: memref<4x8xi32>, %i: index) {
  %one = arith.constant 1 : i32
  axe.kernel grid [8] threads 128 {
    %t = axe.flag_add %ticket[%i], %one at cta : memref<1xi32>
    axe.flag_wait %done[%i, %i], %t at warpgroup : memref<4x8xi32>
    %o = axe.flag_add %done[%i, %i], %one at warp : memref<4x8xi32>
  }
  return
}
