// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s

// A warp-specialized GEMM for sm_100a: C (M x 1024 f32) = A (M x 512 f16) x
// B^T, B stored N x K (1024 x 512 f16, K-major). A CTA of 8 warps computes a
// 128x128 tile with its accumulator in tensor memory: warp 0 loads 128x64
// tiles of A and B into 128B-swizzled shared memory with TMA; warp 1 issues
// tcgen05.mma (one thread, four K steps of 16 per tile) into the TMEM
// accumulator, laid out as tcgen05's data path D (row i on TMEM lane i),
// the first without input D (zero_init) so that nothing zeroes it;
// warpgroup 1 (warps 4-7) at the end reads it with tcgen05.ld, each warp
// its 32-lane quarter, into registers (row t
// on thread t of the warpgroup) and writes C. CTA barriers hand each stage
// on; warps 2-3 only take part in them. CTAs launch in clusters of 2 along
// M; each keeps its own tiles and TMEM (no multicast or cta_group::2 yet).

#gA = #axe.layout<S[(128, 64) : (512, 1)]>
#gC = #axe.layout<S[(128, 128) : (1024, 1)]>
#sw = #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>
#tm = #axe.layout<S[(128, 128) : (1@TLane, 1@TCol)]>
#rows = #axe.layout<S[(128, 128) : (1@tid_in_wg, 1)]>

// CHECK-LABEL: func.func @gemm_sm100
// CHECK: axe.kernel grid [%{{.*}}, 8] threads 256 cluster [2, 1] {
// CHECK: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (1@TLane, 1@TCol)]>, tmem>
// CHECK: axe.copy_async %{{.*}} to %{{.*}} at warp {schedule = {sm_100a = "tma"}}
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at warp {schedule = {sm_100a = "tcgen05"}, transpose_b, zero_init}
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at warp {schedule = {sm_100a = "tcgen05"}, transpose_b}
// CHECK-NOT: axe.fill
// CHECK: axe.copy %{{.*}} to %{{.*}} at warpgroup
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @gemm_sm100(%A: memref<?x512xf16>, %B: memref<1024x512xf16>,
                        %C: memref<?x1024xf32>, %mTiles: index) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    axe.kernel grid [%mTiles, 8] threads 256 cluster [2, 1] {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c128 : index
      %n0 = arith.muli %by, %c128 : index
      %sA = axe.alloc : !axe.buffer<128x64xf16, #sw, shared>
      %sB = axe.alloc : !axe.buffer<128x64xf16, #sw, shared>
      %acc = axe.alloc : !axe.buffer<128x128xf32, #tm, tmem>
      axe.warp_specialize {
        // TMA producer.
        axe.partition warps [0, 1) {
          axe.barrier at cta
          scf.for %k = %c0 to %c512 step %c64 {
            %gA = axe.view %A[%m0, %k] : memref<?x512xf16>
                -> !axe.buffer<128x64xf16, #gA, global>
            %gB = axe.view %B[%n0, %k] : memref<1024x512xf16>
                -> !axe.buffer<128x64xf16, #gA, global>
            %tA = axe.copy_async %gA to %sA at warp {schedule = {sm_100a = "tma"}}
                : !axe.buffer<128x64xf16, #gA, global> to !axe.buffer<128x64xf16, #sw, shared>
            %tB = axe.copy_async %gB to %sB at warp {schedule = {sm_100a = "tma"}}
                : !axe.buffer<128x64xf16, #gA, global> to !axe.buffer<128x64xf16, #sw, shared>
            axe.wait %tA, %tB at warp
            axe.barrier at cta
            axe.barrier at cta
          }
        }
        // MMA issuer. The first K step starts the accumulator from zero
        // (zero_init: tcgen05.mma without input D), so tensor memory is
        // never filled with zeros.
        axe.partition warps [1, 2) {
          axe.barrier at cta
          axe.barrier at cta
          axe.gemm %sA, %sB into %acc at warp {schedule = {sm_100a = "tcgen05"}, transpose_b, zero_init}
              : !axe.buffer<128x64xf16, #sw, shared>, !axe.buffer<128x64xf16, #sw, shared>
                into !axe.buffer<128x128xf32, #tm, tmem>
          axe.barrier at cta
          scf.for %k = %c64 to %c512 step %c64 {
            axe.barrier at cta
            axe.gemm %sA, %sB into %acc at warp {schedule = {sm_100a = "tcgen05"}, transpose_b}
                : !axe.buffer<128x64xf16, #sw, shared>, !axe.buffer<128x64xf16, #sw, shared>
                  into !axe.buffer<128x128xf32, #tm, tmem>
            axe.barrier at cta
          }
        }
        axe.partition warps [2, 4) {
          axe.barrier at cta
          scf.for %k = %c0 to %c512 step %c64 {
            axe.barrier at cta
            axe.barrier at cta
          }
        }
        // Epilogue warpgroup.
        axe.partition warps [4, 8) {
          axe.barrier at cta
          scf.for %k = %c0 to %c512 step %c64 {
            axe.barrier at cta
            axe.barrier at cta
          }
          %r = axe.alloc : !axe.buffer<128x128xf32, #rows, reg>
          axe.copy %acc to %r at warpgroup
              : !axe.buffer<128x128xf32, #tm, tmem> to !axe.buffer<128x128xf32, #rows, reg>
          %gC = axe.view %C[%m0, %n0] : memref<?x1024xf32>
              -> !axe.buffer<128x128xf32, #gC, global>
          axe.copy %r to %gC at warpgroup
              : !axe.buffer<128x128xf32, #rows, reg> to !axe.buffer<128x128xf32, #gC, global>
        }
      }
    }
    return
  }
}
