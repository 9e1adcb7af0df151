// memref.subview in a kernel: its strided metadata expands into affine.apply,
// which must be lowered after the expansion (it was left behind before).
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// CHECK: 7

!g = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<8x8xf32>, %B: memref<4x4xf32>) {
    axe.kernel grid [1] threads 32 {
      %sv = memref.subview %A[2, 2] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 18>>
      %c1 = arith.constant 1 : index
      %x = memref.load %sv[%c1, %c1] : memref<4x4xf32, strided<[8, 1], offset: 18>>
      %b = axe.view %B[0, 0] : memref<4x4xf32> -> !g
      axe.fill %b, %x at cta : !g
    }
    return
  }
  func.func @main() {
    %A = memref.alloc() : memref<8x8xf32>
    %B = memref.alloc() : memref<4x4xf32>
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %v = arith.constant 7.0 : f32
    memref.store %v, %A[%c3, %c3] : memref<8x8xf32>
    call @kernel(%A, %B) : (memref<8x8xf32>, memref<4x4xf32>) -> ()
    %r = memref.load %B[%c0, %c0] : memref<4x4xf32>
    vector.print %r : f32
    return
  }
}
