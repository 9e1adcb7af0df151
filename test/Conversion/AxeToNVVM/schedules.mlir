// RUN: axe-opt %s --axe-to-nvvm -split-input-file | FileCheck %s

// What each nvvm schedule emits, on small kernels (docs/NVIDIA.md).

// A CTA copies a 32x64 f16 tile from global to shared memory: 16-byte runs,
// one cp.async each, the threads taking them round robin.
// CHECK-LABEL: func.func @stage
// CHECK: gpu.launch_func @stage_kernels::@stage_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%[[T:.*]], %{{.*}}, %{{.*}})
// CHECK: gpu.module @stage_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">]
// CHECK: gpu.func @stage_kernel(%{{.*}}: memref<64x64xf16>) workgroup(%[[S:.*]] : memref<2048xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %{{.*}} = %[[TID]] to %c256 step %c128
// CHECK: nvgpu.device_async_copy {{.*}}, 8 :
// CHECK: nvvm.cp.async.commit.group
// CHECK: }
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @stage(%A: memref<64x64xf16>) {
    axe.kernel grid [1] threads 128 {
      %g = axe.view %A[0, 0] : memref<64x64xf16> -> !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, global>
      %s = axe.alloc : !axe.buffer<32x64xf16, #axe.layout<SW(3, 3, 3) o S[(32, 64) : (64, 1)]>, shared>
      axe.copy %g to %s at cta : !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, global> to !axe.buffer<32x64xf16, #axe.layout<SW(3, 3, 3) o S[(32, 64) : (64, 1)]>, shared>
      axe.barrier at cta
    }
    return
  }
}

// -----

// The warp-level row reduction: lanes 2r and 2r+1 hold the halves of row
// r, so one xor shuffle over lane bit 0 combines them.
// CHECK-LABEL: gpu.func @rows_kernel
// CHECK-COUNT-2: memref.alloca() : memref<{{.*}}xf32>
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
#rows = #axe.layout<S[(16, 2, 32) : (2@laneid, 1@laneid, 1)]>
#rowMax = #axe.layout<S[16 : 2@laneid] + R[2 : 1@laneid]>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @rows(%X: memref<16x64xf32>, %M: memref<16x1xf32>) {
    axe.kernel grid [1] threads 32 {
      %g = axe.view %X[0, 0] : memref<16x64xf32> -> !axe.buffer<16x64xf32, #axe.layout<S[(16, 64) : (64, 1)]>, global>
      %x = axe.alloc : !axe.buffer<16x64xf32, #rows, reg>
      axe.copy %g to %x at warp : !axe.buffer<16x64xf32, #axe.layout<S[(16, 64) : (64, 1)]>, global> to !axe.buffer<16x64xf32, #rows, reg>
      %m = axe.alloc : !axe.buffer<16x1xf32, #rowMax, reg>
      axe.reduce max %x into %m dims [1] at warp : !axe.buffer<16x64xf32, #rows, reg> into !axe.buffer<16x1xf32, #rowMax, reg>
      %gm = axe.view %M[0, 0] : memref<16x1xf32> -> !axe.buffer<16x1xf32, #axe.layout<S[16 : 1]>, global>
      axe.copy %m to %gm at warp : !axe.buffer<16x1xf32, #rowMax, reg> to !axe.buffer<16x1xf32, #axe.layout<S[16 : 1]>, global>
    }
    return
  }
}

// -----

// One warp, one 16x8 accumulator tile laid out as the mma.sync C fragment;
// A (16x16) and B (16x8) row-major in shared memory: ldmatrix.x4 for A,
// ldmatrix.x2.trans for B, one mma.sync.
// CHECK-LABEL: gpu.func @mma_kernel
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<?xf16, strided<[1], offset: ?>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = true} : memref<?xf16, strided<[1], offset: ?>, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
#cFrag = #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>
!sa = !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared>
!sb = !axe.buffer<16x8xf16, #axe.layout<S[(16, 8) : (8, 1)]>, shared>
!acc = !axe.buffer<16x8xf32, #cFrag, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @mma(%C: memref<16x8xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 32 {
      %a = axe.alloc : !sa
      %b = axe.alloc : !sb
      %c = axe.alloc : !acc
      axe.fill %c, %zero at warp : !acc
      axe.gemm %a, %b into %c at warp : !sa, !sb into !acc
      %g = axe.view %C[0, 0] : memref<16x8xf32> -> !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, global>
      axe.copy %c to %g at warp : !acc to !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, global>
    }
    return
  }
}

// -----

// Elementwise on a register tile each thread holds two elements of; a
// scalar FMA gemm where each thread holds its own 2x2 accumulator.
// CHECK-LABEL: gpu.func @simt_kernel
// CHECK: math.exp
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32, f32, f32)
// CHECK-COUNT-4: arith.mulf
!x = !axe.buffer<64xf32, #axe.layout<S[(32, 2) : (1@laneid, 1)]>, reg>
!pa = !axe.buffer<2x4xf32, #axe.layout<S[(2, 4) : (4, 1)]>, global>
!pb = !axe.buffer<4x2xf32, #axe.layout<S[(4, 2) : (2, 1)]>, global>
!pc = !axe.buffer<2x2xf32, #axe.layout<S[(2, 2) : (2, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @simt(%X: memref<64xf32>, %A: memref<2x4xf32>, %B: memref<4x2xf32>) {
    axe.kernel grid [1] threads 32 {
      %g = axe.view %X[0] : memref<64xf32> -> !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
      %x = axe.alloc : !x
      axe.copy %g to %x at warp : !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global> to !x
      axe.elementwise ins(%x : !x) outs(%x : !x) at warp {
      ^bb0(%v: f32):
        %e = math.exp %v : f32
        axe.yield %e : f32
      }
      axe.copy %x to %g at warp : !x to !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
      %a = axe.view %A[0, 0] : memref<2x4xf32> -> !pa
      %b = axe.view %B[0, 0] : memref<4x2xf32> -> !pb
      %c = axe.alloc : !pc
      axe.gemm %a, %b into %c at thread : !pa, !pb into !pc
    }
    return
  }
}

// -----

// Lane l holds element 2l and 2l + 1 of x but element l and l + 32 of y:
// the staged copy exchanges registers through a shared scratch, with a
// barrier after the holders write it and one after the readers are done.
// (Left to choose, the shuffle schedule of the next case takes it.)
// CHECK-LABEL: gpu.func @exchange_kernel
// CHECK-SAME: workgroup(%[[S:.*]] : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.bar.warp.sync
// CHECK: memref.load %[[S]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: nvvm.bar.warp.sync
!x = !axe.buffer<64xf32, #axe.layout<S[(32, 2) : (1@laneid, 1)]>, reg>
!y = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1, 1@laneid)]>, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @exchange(%X: memref<64xf32>, %Y: memref<64xf32>) {
    axe.kernel grid [1] threads 32 {
      %gx = axe.view %X[0] : memref<64xf32> -> !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
      %gy = axe.view %Y[0] : memref<64xf32> -> !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
      %x = axe.alloc : !x
      axe.copy %gx to %x at warp : !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global> to !x
      %y = axe.alloc : !y
      axe.copy %x to %y at warp {schedule = "nvvm.copy.staged"} : !x to !y
      axe.copy %y to %gy at warp : !y to !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
    }
    return
  }
}

// -----

// The same exchange by shuffles: y's register 0 of lane l is x's register
// l mod 2 of lane l / 2, so each destination register takes two shfl.idx
// (one per source register, from lane tables) and a select by the lane's
// register table. Both tables are XOR-linear in the lane's bits (l / 2 and
// l mod 2), so they are computed, not indexed (an indexed table would live
// on the stack).
// CHECK-LABEL: gpu.func @shuffled_kernel
// CHECK-NOT: workgroup(
// CHECK-NOT: vector<32xi32>
// CHECK: gpu.shuffle  idx
// CHECK: gpu.shuffle  idx
// CHECK: arith.select
!x = !axe.buffer<64xf32, #axe.layout<S[(32, 2) : (1@laneid, 1)]>, reg>
!y = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1, 1@laneid)]>, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @shuffled(%X: memref<64xf32>, %Y: memref<64xf32>) {
    axe.kernel grid [1] threads 32 {
      %gx = axe.view %X[0] : memref<64xf32> -> !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
      %gy = axe.view %Y[0] : memref<64xf32> -> !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
      %x = axe.alloc : !x
      axe.copy %gx to %x at warp : !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global> to !x
      %y = axe.alloc : !y
      axe.copy %x to %y at warp : !x to !y
      axe.copy %y to %gy at warp : !y to !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>
    }
    return
  }
}

// -----

// 64 KiB of shared buffers: more than CUDA's 48 KiB of static shared
// memory, so both are views of the dynamic shared memory the launch sizes:
// each a view of the window from byte 0 and a subview at the buffer's
// offset, so that the shift stays the memref's offset (not its base).
// CHECK-LABEL: func.func @big_shared
// CHECK: gpu.launch_func @big_shared_kernels::@big_shared_kernel {{.*}} dynamic_shared_memory_size %c65536_i32
// CHECK: gpu.module @big_shared_kernels
// CHECK-SAME: axe_dynamic_shared_align = 128
// CHECK: gpu.func @big_shared_kernel(
// CHECK-NOT: workgroup(
// CHECK: %[[D:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %[[D]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8192xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[W:.*]] = memref.view %[[D]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.subview %[[W]][8192] [8192] [1] : memref<16384xf32, #gpu.address_space<workgroup>> to memref<8192xf32, strided<[1], offset: 8192>, #gpu.address_space<workgroup>>
!big = !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, shared>
!gbig = !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @big_shared(%X: memref<128x64xf32>, %Y: memref<128x64xf32>) {
    axe.kernel grid [1] threads 128 {
      %gx = axe.view %X[0, 0] : memref<128x64xf32> -> !gbig
      %gy = axe.view %Y[0, 0] : memref<128x64xf32> -> !gbig
      %a = axe.alloc : !big
      %b = axe.alloc : !big
      axe.copy %gx to %a at cta : !gbig to !big
      axe.barrier at cta
      axe.copy %a to %b at cta : !big to !big
      axe.barrier at cta
      axe.copy %b to %gy at cta : !big to !gbig
    }
    return
  }
}
