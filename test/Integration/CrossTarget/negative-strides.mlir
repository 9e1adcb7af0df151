// Views of memrefs with negative strides: A is a 4x6 matrix stored bottom row
// first (strides [-20, 2], offset 60) in 80 floats, B a 4x6 matrix stored
// last column first (strides [1, -4], offset 20) in 24. The kernel copies A
// through shared memory into B, then a 2x3 tile of A at rows [1, 3) and
// columns [2, 5) (a view at a run-time offset) into B's tile at [2, 0).
// The flat view of a tile starts at its lowest address, below the tile's
// first element where a stride is negative. Every element of B printed.
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

!ga = !axe.buffer<4x6xf32, #axe.layout<S[(4, 6) : (-20, 2)]>, global>
!gb = !axe.buffer<4x6xf32, #axe.layout<S[(4, 6) : (1, -4)]>, global>
!s = !axe.buffer<4x6xf32, #axe.layout<S[(4, 6) : (6, 1)]>, shared>
!ta = !axe.buffer<2x3xf32, #axe.layout<S[(2, 3) : (-20, 2)]>, global>
!tb = !axe.buffer<2x3xf32, #axe.layout<S[(2, 3) : (1, -4)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<4x6xf32, strided<[-20, 2], offset: 60>>,
                    %B: memref<4x6xf32, strided<[1, -4], offset: 20>>,
                    %B2: memref<4x6xf32, strided<[1, -4], offset: 20>>, %r: index) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<4x6xf32, strided<[-20, 2], offset: 60>> -> !ga
      %s = axe.alloc : !s
      axe.copy %a to %s at cta : !ga to !s
      %b = axe.view %B[0, 0] : memref<4x6xf32, strided<[1, -4], offset: 20>> -> !gb
      axe.copy %s to %b at cta : !s to !gb
      %ta = axe.view %A[%r, 2] : memref<4x6xf32, strided<[-20, 2], offset: 60>> -> !ta
      %tb = axe.view %B2[2, 0] : memref<4x6xf32, strided<[1, -4], offset: 20>> -> !tb
      axe.copy %ta to %tb at cta {schedule = {cpu = "cpu.copy.elements"}} : !ta to !tb
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c24 = arith.constant 24 : index
    %c80 = arith.constant 80 : index
    %none = arith.constant -1.0 : f32
    %Af = memref.alloc() : memref<80xf32>
    %Bf = memref.alloc() : memref<24xf32>
    %B2f = memref.alloc() : memref<24xf32>
    // Cell x of A's memory holds x, so A[i][j] = 60 - 20 i + 2 j.
    scf.for %x = %c0 to %c80 step %c1 {
      %xi = arith.index_cast %x : index to i64
      %v = arith.sitofp %xi : i64 to f32
      memref.store %v, %Af[%x] : memref<80xf32>
    }
    scf.for %x = %c0 to %c24 step %c1 {
      memref.store %none, %Bf[%x] : memref<24xf32>
      memref.store %none, %B2f[%x] : memref<24xf32>
    }
    %A = memref.reinterpret_cast %Af to offset: [60], sizes: [4, 6], strides: [-20, 2]
        : memref<80xf32> to memref<4x6xf32, strided<[-20, 2], offset: 60>>
    %B = memref.reinterpret_cast %Bf to offset: [20], sizes: [4, 6], strides: [1, -4]
        : memref<24xf32> to memref<4x6xf32, strided<[1, -4], offset: 20>>
    %B2 = memref.reinterpret_cast %B2f to offset: [20], sizes: [4, 6], strides: [1, -4]
        : memref<24xf32> to memref<4x6xf32, strided<[1, -4], offset: 20>>
    call @kernel(%A, %B, %B2, %c1)
        : (memref<4x6xf32, strided<[-20, 2], offset: 60>>, memref<4x6xf32, strided<[1, -4], offset: 20>>,
           memref<4x6xf32, strided<[1, -4], offset: 20>>, index) -> ()
    // B = A, row by row.
    // CHECK: 60, 62, 64, 66, 68, 70,
    // CHECK-NEXT: 40, 42, 44, 46, 48, 50,
    // CHECK-NEXT: 20, 22, 24, 26, 28, 30,
    // CHECK-NEXT: 0, 2, 4, 6, 8, 10,
    // B2 rows 2 and 3, columns 0..2, hold A[1..2][2..4]; the rest untouched.
    // CHECK-NEXT: -1, -1, -1, -1, -1, -1,
    // CHECK-NEXT: -1, -1, -1, -1, -1, -1,
    // CHECK-NEXT: 44, 46, 48, -1, -1, -1,
    // CHECK-NEXT: 24, 26, 28, -1, -1, -1,
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c6 step %c1 {
        %v = memref.load %B[%i, %j] : memref<4x6xf32, strided<[1, -4], offset: 20>>
        vector.print %v : f32 punctuation <comma>
      }
      vector.print punctuation <newline>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c6 step %c1 {
        %v = memref.load %B2[%i, %j] : memref<4x6xf32, strided<[1, -4], offset: 20>>
        vector.print %v : f32 punctuation <comma>
      }
      vector.print punctuation <newline>
    }
    memref.dealloc %Af : memref<80xf32>
    memref.dealloc %Bf : memref<24xf32>
    memref.dealloc %B2f : memref<24xf32>
    return
  }
}
