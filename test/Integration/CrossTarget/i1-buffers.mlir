// i1 buffers on the CPU: an i1 element is one byte in memory (0 or 1), as
// memref.load and memref.store of i1 read and write it, for every schedule.
// A vector of i1 packs its lanes bit by bit, so the vectorizing schedules
// (cpu.copy, cpu.fill, cpu.reduce, cpu.elementwise) move i1 element by element
// instead. Copies through shared memory (row-major and transposed), a
// register tile, fills of a tile and of a slice at a run-time row, every
// element printed.
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

!g = !axe.buffer<4x16xi1, #axe.layout<S[(4, 16) : (16, 1)]>, global>
!s = !axe.buffer<4x16xi1, #axe.layout<S[(4, 16) : (16, 1)]>, shared>
!st = !axe.buffer<4x16xi1, #axe.layout<S[(4, 16) : (1, 4)]>, shared>
!r = !axe.buffer<4x16xi1, #axe.layout<S[(4, 16) : (16, 1)] + R[32 : 1@laneid]>, reg>
!srow = !axe.buffer<1x16xi1, #axe.layout<S[(1, 16) : (16, 1)]>, shared>

module attributes {axe.target = #axe.target<"cpu">} {
  // B = A through a row-major shared tile (vector-contiguous on both
  // sides), a transposed one (an in-register transpose for 4-byte types)
  // and a per-thread register tile.
  func.func @copy(%A: memref<4x16xi1>, %B: memref<4x16xi1>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<4x16xi1> -> !g
      %s = axe.alloc : !s
      axe.copy %a to %s at cta : !g to !s
      %t = axe.alloc : !st
      axe.copy %s to %t at cta : !s to !st
      %u = axe.alloc : !s
      axe.copy %t to %u at cta : !st to !s
      %b = axe.view %B[0, 0] : memref<4x16xi1> -> !g
      axe.copy %u to %b at cta : !s to !g
    }
    return
  }

  // Every thread copies A into its own registers (a tile replicated over
  // the lanes); one holder of each element stores it to B (every thread
  // storing every element, as a copy at thread scope does, is a
  // write-write race on global memory, which axe-gpu-run reports).
  func.func @copy_reg(%A: memref<4x16xi1>, %B: memref<4x16xi1>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<4x16xi1> -> !g
      %r = axe.alloc : !r
      axe.copy %a to %r at warp : !g to !r
      %b = axe.view %B[0, 0] : memref<4x16xi1> -> !g
      axe.copy %r to %b at warp : !r to !g
    }
    return
  }

  // B = true everywhere, then false on rows 1 and 3 (slices at run-time
  // rows); the copy out is scalar so only the fills are under test.
  func.func @fill(%B: memref<4x16xi1>) {
    %true = arith.constant true
    %false = arith.constant false
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    axe.kernel grid [1] threads 32 {
      %s = axe.alloc : !s
      axe.fill %s, %true at cta : !s
      scf.for %i = %c1 to %c4 step %c2 {
        %row = axe.slice %s[%i, 0] : !s -> !srow
        axe.fill %row, %false at cta : !srow
      }
      %b = axe.view %B[0, 0] : memref<4x16xi1> -> !g
      axe.copy %s to %b at cta {schedule = {cpu = "cpu.copy.elements"}} : !s to !g
    }
    return
  }

  func.func @print(%B: memref<4x16xi1>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %v = memref.load %B[%i, %j] : memref<4x16xi1>
        %w = arith.extui %v : i1 to i32
        vector.print %w : i32 punctuation <no_punctuation>
      }
      vector.print punctuation <newline>
    }
    return
  }

  // Resets B to false everywhere.
  func.func @clear(%B: memref<4x16xi1>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %false = arith.constant false
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        memref.store %false, %B[%i, %j] : memref<4x16xi1>
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %A = memref.alloc() : memref<4x16xi1>
    %B = memref.alloc() : memref<4x16xi1>
    // A[i][j] = (j mod 3 == 0) xor (i == 2).
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %m = arith.remui %j, %c3 : index
        %z = arith.cmpi eq, %m, %c0 : index
        %r2 = arith.cmpi eq, %i, %c2 : index
        %v = arith.xori %z, %r2 : i1
        memref.store %v, %A[%i, %j] : memref<4x16xi1>
      }
    }
    call @clear(%B) : (memref<4x16xi1>) -> ()
    call @copy(%A, %B) : (memref<4x16xi1>, memref<4x16xi1>) -> ()
    // CHECK: 1001001001001001
    // CHECK-NEXT: 1001001001001001
    // CHECK-NEXT: 0110110110110110
    // CHECK-NEXT: 1001001001001001
    call @print(%B) : (memref<4x16xi1>) -> ()
    call @clear(%B) : (memref<4x16xi1>) -> ()
    call @copy_reg(%A, %B) : (memref<4x16xi1>, memref<4x16xi1>) -> ()
    // CHECK-NEXT: 1001001001001001
    // CHECK-NEXT: 1001001001001001
    // CHECK-NEXT: 0110110110110110
    // CHECK-NEXT: 1001001001001001
    call @print(%B) : (memref<4x16xi1>) -> ()
    call @clear(%B) : (memref<4x16xi1>) -> ()
    call @fill(%B) : (memref<4x16xi1>) -> ()
    // CHECK-NEXT: 1111111111111111
    // CHECK-NEXT: 0000000000000000
    // CHECK-NEXT: 1111111111111111
    // CHECK-NEXT: 0000000000000000
    call @print(%B) : (memref<4x16xi1>) -> ()
    memref.dealloc %A : memref<4x16xi1>
    memref.dealloc %B : memref<4x16xi1>
    return
  }
}
