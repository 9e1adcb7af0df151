// A warp sums 32 i32 values, one per lane: every lane takes part, so the
// five xor shuffles are one redux.sync on sm_80. The kernel runs in the GPU
// interpreter with a host main that checks the sum and the maximum.
// RUN: axe-opt %s --axe-to-nvvm | FileCheck %s --check-prefix=IR
// RUN: axe-opt %s --axe-to-nvvm | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// IR-LABEL: gpu.func @warp_sum_kernel
// IR: nvvm.redux.sync add %{{.*}}, %{{.*}} : i32 -> i32
// IR: nvvm.redux.sync max %{{.*}}, %{{.*}} : i32 -> i32
// IR-NOT: gpu.shuffle

// CHECK: 496
// CHECK-NEXT: 31

!lanes = !axe.buffer<32xi32, #axe.layout<S[32 : 1@laneid]>, reg>
!all = !axe.buffer<1xi32, #axe.layout<S[1 : 1] + R[32 : 1@laneid]>, reg>
!g32 = !axe.buffer<32xi32, #axe.layout<S[32 : 1]>, global>
!g1 = !axe.buffer<1xi32, #axe.layout<S[1 : 1]>, global>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @warp_sum(%X: memref<32xi32>, %S: memref<2xi32>) {
    axe.kernel grid [1] threads 32 {
      %gx = axe.view %X[0] : memref<32xi32> -> !g32
      %x = axe.alloc : !lanes
      axe.copy %gx to %x at warp : !g32 to !lanes
      %s = axe.alloc : !all
      axe.reduce sum %x into %s dims [0] at warp : !lanes into !all
      %gs = axe.view %S[0] : memref<2xi32> -> !g1
      axe.copy %s to %gs at warp : !all to !g1
      %m = axe.alloc : !all
      axe.reduce max %x into %m dims [0] at warp : !lanes into !all
      %gm = axe.view %S[1] : memref<2xi32> -> !g1
      axe.copy %m to %gm at warp : !all to !g1
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %X = memref.alloc() : memref<32xi32>
    %S = memref.alloc() : memref<2xi32>
    scf.for %i = %c0 to %c32 step %c1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %X[%i] : memref<32xi32>
    }
    call @warp_sum(%X, %S) : (memref<32xi32>, memref<2xi32>) -> ()
    %sum = memref.load %S[%c0] : memref<2xi32>
    %max = memref.load %S[%c1] : memref<2xi32>
    vector.print %sum : i32
    vector.print %max : i32
    memref.dealloc %X : memref<32xi32>
    memref.dealloc %S : memref<2xi32>
    return
  }
}

// RUN: axe-opt %s --axe-to-ptx -o %t.ptx.mlir
// RUN: %extract_ptx %t.ptx.mlir | FileCheck %s --check-prefix=PTX
// PTX: redux.sync.add.s32
// PTX: redux.sync.max.s32
