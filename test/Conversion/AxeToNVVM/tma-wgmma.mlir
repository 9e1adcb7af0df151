// RUN: axe-opt %s --axe-to-nvvm -split-input-file | FileCheck %s

// The 'tma' copy: the host makes a tensor-map descriptor of the view's memref
// (box = the view's shape, swizzle from the shared layout's atom) and passes
// it as a pointer; the kernel inits one mbarrier per copy site, one thread of
// the scope arms it with the box's bytes and issues the load at the view's
// indices (innermost first), and the scope's threads wait on its parity.

#g = #axe.layout<S[(64, 64) : (256, 1)]>
#s = #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>
// CHECK-LABEL: func.func @tma_load
// CHECK: %[[U:.*]] = memref.cast %arg0 : memref<128x256xf16> to memref<*xf16>
// CHECK: %[[D:.*]] = nvgpu.tma.create.descriptor %[[U]] box[%c64, %c64] : memref<*xf16> -> <tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK: %[[P:.*]] = builtin.unrealized_conversion_cast %[[D]] {{.*}} to !llvm.ptr
// CHECK: gpu.launch_func @tma_load_kernels::@tma_load_kernel {{.*}} args({{.*}}%[[P]] : !llvm.ptr
// CHECK: gpu.func @tma_load_kernel({{.*}}%[[Q:.*]]: !llvm.ptr{{.*}}) workgroup(%[[S:.*]] : memref<4096xf16, #gpu.address_space<workgroup>> {llvm.align = 1024 : i64})
// CHECK: %[[B:.*]] = nvgpu.mbarrier.create
// CHECK: memref.alloca() : memref<1xi32>
// CHECK: scf.if
// CHECK-NEXT: nvgpu.mbarrier.init %[[B]][%{{.*}}], %{{.*}}
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast %[[Q]] : !llvm.ptr to
// CHECK: memref.reinterpret_cast {{.*}} to offset: [0], sizes: [64, 64], strides: [64, 1]
// CHECK: scf.if
// CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx %[[B]][%{{.*}}], %c8192
// CHECK-NEXT: nvgpu.tma.async.load %[[T]][%arg2, %arg1], %[[B]][%{{.*}}] to %{{.*}} : {{.*}} -> memref<64x64xf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.try_wait.parity %[[B]]
// CHECK: arith.xori
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_load(%A: memref<128x256xf16>, %m: index, %k: index) {
    axe.kernel grid [1] threads 128 {
      %s = axe.alloc : !axe.buffer<64x64xf16, #s, shared>
      %g = axe.view %A[%m, %k] : memref<128x256xf16> -> !axe.buffer<64x64xf16, #g, global>
      %t = axe.copy_async %g to %s at warpgroup {schedule = "tma"}
          : !axe.buffer<64x64xf16, #g, global> to !axe.buffer<64x64xf16, #s, shared>
      axe.wait %t at warpgroup
    }
    return
  }
}

// -----

// An unswizzled box and a synchronous axe.copy: the wait follows the load.
#g = #axe.layout<S[(8, 32) : (32, 1)]>
#s = #axe.layout<S[(8, 32) : (32, 1)]>
// CHECK-LABEL: func.func @tma_plain
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c8, %c32] : memref<*xf32> -> <tensor = memref<8x32xf32, 3>, swizzle = none
// CHECK: gpu.func @tma_plain_kernel
// CHECK-SAME: {llvm.align = 128 : i64}
// CHECK: nvgpu.tma.async.load
// CHECK-NEXT: }
// CHECK-NEXT: memref.load
// CHECK: nvgpu.mbarrier.try_wait.parity
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_plain(%A: memref<8x32xf32>) {
    axe.kernel grid [1] threads 32 {
      %s = axe.alloc : !axe.buffer<8x32xf32, #s, shared>
      %c0 = arith.constant 0 : index
      %g = axe.view %A[%c0, %c0] : memref<8x32xf32> -> !axe.buffer<8x32xf32, #g, global>
      axe.copy %g to %s at warp {schedule = "tma"}
          : !axe.buffer<8x32xf32, #g, global> to !axe.buffer<8x32xf32, #s, shared>
    }
    return
  }
}

// -----

// The 'wgmma' gemm: m64n64k16 over K = 64, A and B K-major 128B-swizzled
// tiles. Descriptors: start address / 16 in bits [0, 14), LBO 16 B (unused
// by swizzled K-major) and SBO 1024 B (8 lines of 128 B) over 16, layout 1
// (128B) at bit 62: 0x4000004000010000. Each K step starts 32 bytes (2 in
// the address field) further into each line.
#sA = #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>
#acc = #axe.layout<S[(4, 2, 8, 8, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>
// CHECK-LABEL: gpu.func @wgmma_kernel
// CHECK-DAG: %[[FIXED:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: arith.ori %{{.*}}, %[[FIXED]] : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async {{.*}}, %[[D0]], <m = 64, n = 64, k = 16>
// CHECK: %[[D2:.*]] = nvvm.wgmma.mma_async {{.*}}, %[[D1]], <m = 64, n = 64, k = 16>
// CHECK: nvvm.wgmma.mma_async {{.*}}, %[[D2]], <m = 64, n = 64, k = 16>
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      %b = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      %c = axe.alloc : !axe.buffer<64x64xf32, #acc, reg>
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma", transpose_b}
          : !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>,
            !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
            into !axe.buffer<64x64xf32, #acc, reg>
    }
    return
  }
}

// -----

// zero_init (set by axe-zero-init-accumulators on a loop's first gemm, part
// of axe-to-nvvm): the first K step ignores D (scale-d = 0), the later ones
// accumulate, and C is not read into the first wgmma's operand.
#acc = #axe.layout<S[(4, 2, 8, 8, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>
// CHECK-LABEL: gpu.func @wgmma_zero_init_kernel
// CHECK-NOT: memref.load
// CHECK: %[[Z0:.*]] = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <zero>]
// CHECK: nvvm.wgmma.mma_async {{.*}}, %[[Z0]], <m = 64, n = 64, k = 16>, D[<f32>, <one>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_zero_init() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      %b = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      %c = axe.alloc : !axe.buffer<64x64xf32, #acc, reg>
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma", transpose_b, zero_init}
          : !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>,
            !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
            into !axe.buffer<64x64xf32, #acc, reg>
    }
    return
  }
}

// -----

// 8-bit floats: m64n64k32 over K = 128, the same 128-byte swizzled lines
// (128 elements each: SW(4, 3, 3)), so the same descriptor bits, each K
// step 32 elements (32 bytes) further into each line.
#sA = #axe.layout<SW(4, 3, 3) o S[(64, 128) : (128, 1)]>
#acc = #axe.layout<S[(4, 2, 8, 8, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>
// CHECK-LABEL: gpu.func @wgmma_fp8_kernel
// CHECK-DAG: %[[FIXED:.*]] = arith.constant 4611686293305360384 : i64
// CHECK: arith.ori %{{.*}}, %[[FIXED]] : i64
// CHECK: %[[F0:.*]] = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK: %[[F1:.*]] = nvvm.wgmma.mma_async {{.*}}, %[[F0]], <m = 64, n = 64, k = 32>
// CHECK: %[[F2:.*]] = nvvm.wgmma.mma_async {{.*}}, %[[F1]], <m = 64, n = 64, k = 32>
// CHECK: nvvm.wgmma.mma_async {{.*}}, %[[F2]], <m = 64, n = 64, k = 32>
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_fp8() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !axe.buffer<64x128xf8E4M3FN, #sA, shared>
      %b = axe.alloc : !axe.buffer<64x128xf8E4M3FN, #sA, shared>
      %c = axe.alloc : !axe.buffer<64x64xf32, #acc, reg>
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma", transpose_b}
          : !axe.buffer<64x128xf8E4M3FN, #sA, shared>,
            !axe.buffer<64x128xf8E4M3FN, #sA, shared>
            into !axe.buffer<64x64xf32, #acc, reg>
    }
    return
  }
}
