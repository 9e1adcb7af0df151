// Software pipelining with axe.copy_async on the CPU: the copy of the next
// 4x4 tile of A into a swizzled shared buffer starts before the current one
// is stored, its token carried to the next iteration through scf.for
// iter_args (double buffering over two stages, chosen by scf.if), and waited
// on at the top of the iteration. Tokens carry nothing on the CPU (a copy has
// completed when it returns); convert-axe-to-cpu removes them with the
// control flow that passes them on. B must equal A: every element printed.
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

!g = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (16, 1)]>, global>
!s2 = !axe.buffer<8x4xf32, #axe.layout<SW(0, 1, 1) o S[(8, 4) : (1, 8)]>, shared>
!s = !axe.buffer<4x4xf32, #axe.layout<SW(0, 1, 1) o S[(4, 4) : (1, 8)]>, shared>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<4x16xf32>, %B: memref<4x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    axe.kernel grid [1] threads 64 {
      // Two stages: rows [0, 4) and [4, 8) of the shared buffer.
      %stages = axe.alloc : !s2
      %s0 = axe.slice %stages[0, 0] : !s2 -> !s
      %a0 = axe.view %A[0, 0] : memref<4x16xf32> -> !g
      %t0 = axe.copy_async %a0 to %s0 at cta : !g to !s
      %tf = scf.for %k = %c0 to %c4 step %c1 iter_args(%t = %t0) -> (!axe.token) {
        axe.wait %t at cta
        // Start the copy of tile k + 1 into the other stage.
        %kn = arith.addi %k, %c1 : index
        %more = arith.cmpi ult, %kn, %c4 : index
        %tn = scf.if %more -> (!axe.token) {
          %stage = arith.remui %kn, %c2 : index
          %row = arith.muli %stage, %c4 : index
          %sn = axe.slice %stages[%row, 0] : !s2 -> !s
          %cn = arith.muli %kn, %c4 : index
          %an = axe.view %A[0, %cn] : memref<4x16xf32> -> !g
          %t2 = axe.copy_async %an to %sn at cta : !g to !s
          scf.yield %t2 : !axe.token
        } else {
          scf.yield %t : !axe.token
        }
        // Store tile k from its stage.
        %stage = arith.remui %k, %c2 : index
        %row = arith.muli %stage, %c4 : index
        %sk = axe.slice %stages[%row, 0] : !s2 -> !s
        %col = arith.muli %k, %c4 : index
        %b = axe.view %B[0, %col] : memref<4x16xf32> -> !g
        axe.copy %sk to %b at cta : !s to !g
        scf.yield %tn : !axe.token
      }
      axe.wait %tf at cta
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %n = arith.constant 64 : index
    %A = memref.alloc() : memref<4x16xf32>
    %B = memref.alloc() : memref<4x16xf32>
    %none = arith.constant -1.0 : f32
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %r = arith.muli %i, %c16 : index
        %f = arith.addi %r, %j : index
        %fi = arith.index_cast %f : index to i64
        %v = arith.sitofp %fi : i64 to f32
        memref.store %v, %A[%i, %j] : memref<4x16xf32>
        memref.store %none, %B[%i, %j] : memref<4x16xf32>
      }
    }
    call @kernel(%A, %B) : (memref<4x16xf32>, memref<4x16xf32>) -> ()
    // CHECK: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    // CHECK-NEXT: 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    // CHECK-NEXT: 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
    // CHECK-NEXT: 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %v = memref.load %B[%i, %j] : memref<4x16xf32>
        vector.print %v : f32 punctuation <comma>
      }
      vector.print punctuation <newline>
    }
    memref.dealloc %A : memref<4x16xf32>
    memref.dealloc %B : memref<4x16xf32>
    return
  }
}
