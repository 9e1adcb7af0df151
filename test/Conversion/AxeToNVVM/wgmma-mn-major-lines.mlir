// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | FileCheck %s
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=LAYOUTS

// An MN-major B is read in whole lines of its atoms, so each wgmma's N must
// be whole lines: with N = 320 and 128B lines of 64 elements, the widest
// wgmma dividing 320 (n = 160) would start its second tile inside a line;
// the schedule takes n = 64 (five tiles per K step, K = 64: four steps),
// and inference proposes the matching accumulator.

// CHECK-LABEL: gpu.func @mn_major_b_n320
// CHECK-COUNT-20: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, {{.*}} B[<f16>, <one>, <row>]
// CHECK-NOT: nvvm.wgmma.mma_async
// LAYOUTS: axe.gemm {{.*}}schedule = {sm_90 = "wgmma"}

!a = !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
!b = !axe.buffer<64x320xf16, #axe.layout<SW(3, 3, 3) o S[(64, 5, 64) : (64, 4096, 1)]>, shared>
!c = !axe.buffer<64x320xf32, ?, reg>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mn_major_b_n320() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !b
      %c = axe.alloc : !c
      axe.gemm %a, %b into %c at warpgroup {zero_init} : !a, !b into !c
    }
    return
  }
}
