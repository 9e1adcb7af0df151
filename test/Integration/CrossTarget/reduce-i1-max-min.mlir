// max and min over i1 order false below true, so max is "any" and min is
// "all" (other integers compare signed; an i1 true read as signed would be
// -1, which made max "all" and min "any" before). Rows of A: all false, all
// true, one true, one false; reduced along the row from global memory and
// from a shared tile, every result printed.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

!g = !axe.buffer<4x16xi1, #axe.layout<S[(4, 16) : (16, 1)]>, global>
!s = !axe.buffer<4x16xi1, #axe.layout<S[(4, 16) : (16, 1)]>, shared>
!gout = !axe.buffer<4x1xi1, #axe.layout<S[(4, 1) : (1, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  // Max and min of each row of A, straight from global memory.
  func.func @global_rows(%A: memref<4x16xi1>, %Max: memref<4x1xi1>,
                         %Min: memref<4x1xi1>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<4x16xi1> -> !g
      %mx = axe.view %Max[0, 0] : memref<4x1xi1> -> !gout
      %mn = axe.view %Min[0, 0] : memref<4x1xi1> -> !gout
      axe.reduce max %a into %mx dims [1] at cta : !g into !gout
      axe.reduce min %a into %mn dims [1] at cta : !g into !gout
    }
    return
  }

  // The same through a shared tile.
  func.func @shared_rows(%A: memref<4x16xi1>, %Max: memref<4x1xi1>,
                         %Min: memref<4x1xi1>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<4x16xi1> -> !g
      %s = axe.alloc : !s
      axe.copy %a to %s at cta : !g to !s
      %mx = axe.view %Max[0, 0] : memref<4x1xi1> -> !gout
      %mn = axe.view %Min[0, 0] : memref<4x1xi1> -> !gout
      axe.reduce max %s into %mx dims [1] at cta : !s into !gout
      axe.reduce min %s into %mn dims [1] at cta : !s into !gout
    }
    return
  }

  func.func @print(%V: memref<4x1xi1>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %V[%i, %c0] : memref<4x1xi1>
      %w = arith.extui %v : i1 to i32
      vector.print %w : i32 punctuation <no_punctuation>
    }
    vector.print punctuation <newline>
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c9 = arith.constant 9 : index
    %c16 = arith.constant 16 : index
    %A = memref.alloc() : memref<4x16xi1>
    %Max = memref.alloc() : memref<4x1xi1>
    %Min = memref.alloc() : memref<4x1xi1>
    // Row 0 false, row 1 true, row 2 true at column 5 only, row 3 false at
    // column 9 only.
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %r1 = arith.cmpi eq, %i, %c1 : index
        %r2 = arith.cmpi eq, %i, %c2 : index
        %r3 = arith.cmpi eq, %i, %c3 : index
        %j5 = arith.cmpi eq, %j, %c5 : index
        %j9 = arith.cmpi ne, %j, %c9 : index
        %t2 = arith.andi %r2, %j5 : i1
        %t3 = arith.andi %r3, %j9 : i1
        %t = arith.ori %r1, %t2 : i1
        %v = arith.ori %t, %t3 : i1
        memref.store %v, %A[%i, %j] : memref<4x16xi1>
      }
    }
    // CHECK: 0111
    // CHECK-NEXT: 0100
    call @global_rows(%A, %Max, %Min) : (memref<4x16xi1>, memref<4x1xi1>, memref<4x1xi1>) -> ()
    call @print(%Max) : (memref<4x1xi1>) -> ()
    call @print(%Min) : (memref<4x1xi1>) -> ()
    // CHECK-NEXT: 0111
    // CHECK-NEXT: 0100
    call @shared_rows(%A, %Max, %Min) : (memref<4x16xi1>, memref<4x1xi1>, memref<4x1xi1>) -> ()
    call @print(%Max) : (memref<4x1xi1>) -> ()
    call @print(%Min) : (memref<4x1xi1>) -> ()
    memref.dealloc %A : memref<4x16xi1>
    memref.dealloc %Max : memref<4x1xi1>
    memref.dealloc %Min : memref<4x1xi1>
    return
  }
}
