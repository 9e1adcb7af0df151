// RUN: axe-opt %s --axe-to-nvvm -split-input-file | FileCheck %s

// Tensor memory and tcgen05 on sm_100a. The kernel's tmem buffer (64 f32
// columns) is allocated by warp 0 into a shared slot and freed at the end;
// the fill is tcgen05.st.32x32b per warp quarter, the gemm one thread's
// tcgen05.mma per K step (instruction descriptor: D f32 (1 << 4), A and B
// f16, N >> 3 = 8 at bit 17, M >> 4 = 8 at bit 24: 135266320) from sm_100
// descriptors (128B swizzle = 2 at bit 61, the version bit 46, SBO 1024 and
// LBO 16 bytes: 4611756662049538048) committed to an mbarrier, and the copy
// to registers tcgen05.ld.32x32b.
#sw = #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>
#swB = #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>
#tm = #axe.layout<S[(128, 64) : (1@TLane, 1@TCol)]>
#rows = #axe.layout<S[(128, 64) : (1@tid_in_wg, 1)]>
// CHECK-LABEL: gpu.func @tmem_kernel
// CHECK-SAME: workgroup({{.*}}%[[SLOT:.*]] : memref<1xi32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: scf.if
// CHECK-NEXT: nvvm.tcgen05.alloc %{{.*}}, %c64_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[BASE:.*]] = memref.load %[[SLOT]]
// CHECK: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <store>
// CHECK: arith.ori %{{.*}}, %c4611756662049538048_i64 : i64
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c135266320_i32, %true {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : (!llvm.ptr<6>, i64, i64, i32, i1)
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.mma
// CHECK-NOT: nvvm.tcgen05.mma
// CHECK: nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
// CHECK-NEXT: nvvm.tcgen05.wait <load>
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %c64_i32 : !llvm.ptr<6>, i32
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tmem() {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !axe.buffer<128x64xf16, #sw, shared>
      %b = axe.alloc : !axe.buffer<64x64xf16, #swB, shared>
      %t = axe.alloc : !axe.buffer<128x64xf32, #tm, tmem>
      %r = axe.alloc : !axe.buffer<128x64xf32, #rows, reg>
      axe.fill %t, %zero at warpgroup : !axe.buffer<128x64xf32, #tm, tmem>
      axe.barrier at cta
      axe.gemm %a, %b into %t at warpgroup {transpose_b}
          : !axe.buffer<128x64xf16, #sw, shared>, !axe.buffer<64x64xf16, #swB, shared>
            into !axe.buffer<128x64xf32, #tm, tmem>
      axe.barrier at cta
      axe.copy %t to %r at warpgroup
          : !axe.buffer<128x64xf32, #tm, tmem> to !axe.buffer<128x64xf32, #rows, reg>
    }
    return
  }
}

// -----

// zero_init: the first tcgen05.mma ignores the old D (enable-input-d
// false), the later K steps accumulate; nothing fills tensor memory.
#sw = #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>
#swB = #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>
#tm = #axe.layout<S[(128, 64) : (1@TLane, 1@TCol)]>
// CHECK-LABEL: gpu.func @tmem_zero_init_kernel
// CHECK-NOT: nvvm.tcgen05.st
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %false
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %true
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %true
// CHECK: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %true
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tmem_zero_init() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !axe.buffer<128x64xf16, #sw, shared>
      %b = axe.alloc : !axe.buffer<64x64xf16, #swB, shared>
      %t = axe.alloc : !axe.buffer<128x64xf32, #tm, tmem>
      axe.gemm %a, %b into %t at warpgroup {transpose_b, zero_init}
          : !axe.buffer<128x64xf16, #sw, shared>, !axe.buffer<64x64xf16, #swB, shared>
            into !axe.buffer<128x64xf32, #tm, tmem>
    }
    return
  }
}
