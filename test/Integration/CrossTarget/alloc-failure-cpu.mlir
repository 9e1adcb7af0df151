// A buffer whose storage malloc cannot give (a stride of 2^45 makes a 2x2
// shared tile span 128 TiB, past what a process addresses) stops the program
// with a message naming the buffer, on stderr, instead of a segfault at its
// first access.
// RUN: axe-opt %s --axe-to-cpu | not --crash mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: axe: the CPU could not allocate 140737488355336 bytes of storage for loc({{.*}}alloc-failure-cpu.mlir":[[@LINE+10]]:12)

!g = !axe.buffer<2x2xf32, #axe.layout<S[(2, 2) : (2, 1)]>, global>
!s = !axe.buffer<2x2xf32, #axe.layout<S[(2, 2) : (35184372088832, 1)]>, shared>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @main() {
    %A = memref.alloc() : memref<2x2xf32>
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<2x2xf32> -> !g
      %s = axe.alloc : !s
      axe.copy %a to %s at cta : !g to !s
      axe.copy %s to %a at cta : !s to !g
    }
    memref.dealloc %A : memref<2x2xf32>
    return
  }
}
