// RUN: axe-opt %s --axe-dispatch="target=cpu vector-bits=256 outline" --split-input-file | FileCheck %s
// RUN: axe-opt %s --axe-dispatch="target=cpu vector-bits=256" --split-input-file | FileCheck %s --check-prefix=INLINE

!g = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (16, 1)]>, global>
!s = !axe.buffer<8x8xf32, #axe.layout<SW(1, 2, 2) o S[(8, 8) : (8, 1)]>, shared>

// Copies that emit the same code share one function; the buffers' memory
// and their run-time offsets are its arguments. The function comes before
// the one that calls it, and the kernel holds calls only.
// CHECK-LABEL: func.func private @__axe_cpu_copy_0(
// CHECK-SAME: %{{.*}}: memref<?xf32, strided<[1], offset: ?>>, %{{.*}}: memref<?xf32, strided<[1], offset: ?>>
// CHECK: vector.load
// CHECK: return
// CHECK-LABEL: func.func private @__axe_cpu_copy_1(
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @copies
// CHECK: axe.kernel
// CHECK: call @__axe_cpu_copy_0(
// CHECK-NEXT: unrealized_conversion_cast
// CHECK-NEXT: unrealized_conversion_cast
// CHECK-NEXT: call @__axe_cpu_copy_1(
// CHECK: call @__axe_cpu_copy_0(
// CHECK: call @__axe_cpu_copy_1(
// CHECK-NOT: scf.for
// CHECK-NOT: vector.
// CHECK: return

// Without the option the loops stay in the kernel.
// INLINE-LABEL: func.func @copies
// INLINE-NOT: call
// INLINE: vector.load
// INLINE-NOT: call
func.func @copies(%A: memref<16x16xf32>) {
  axe.kernel grid [2] threads 32 {
    %bx = axe.axis_id bx
    %c8 = arith.constant 8 : index
    %i = arith.muli %bx, %c8 : index
    %a = axe.view %A[%i, 0] : memref<16x16xf32> -> !g
    %s = axe.alloc : !s
    axe.copy %a to %s at cta : !g to !s
    axe.copy %s to %a at cta : !s to !g
    axe.copy %a to %s at cta : !g to !s
    axe.copy %s to %a at cta : !s to !g
  }
  return
}

// -----

!r = !axe.buffer<16x8xf32, #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>, reg>

// A warp-scope operator runs in a loop over the warps; the loop moves into
// the function with it, and each warp's copy of the buffer is found from
// the loop's variable inside.
// CHECK-LABEL: func.func private @__axe_cpu_fill_0(
// CHECK: scf.for
// CHECK: vector.store
// CHECK-LABEL: func.func @fill_per_warp
// CHECK: axe.alloc
// CHECK: call @__axe_cpu_fill_0(
func.func @fill_per_warp() {
  %zero = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 128 {
    %acc = axe.alloc : !r
    axe.fill %acc, %zero at warp : !r
  }
  return
}

// -----

!g = !axe.buffer<8xf32, #axe.layout<S[(8) : (1)]>, global>
!s = !axe.buffer<8xf32, #axe.layout<S[(8) : (1)]>, shared>

// An async copy completes on the CPU before it returns: its users get a
// placeholder token from outside, so its code moves into a function too.
// CHECK-LABEL: func.func private @__axe_cpu_copy_0(
// CHECK: vector.load
// CHECK-LABEL: func.func @copy_async
// CHECK: %[[TOKEN:.*]] = builtin.unrealized_conversion_cast to !axe.token
// CHECK: call @__axe_cpu_copy_0(
// CHECK: axe.wait %[[TOKEN]] at cta
func.func @copy_async(%A: memref<8xf32>) {
  %a = axe.view %A[0] : memref<8xf32> -> !g
  %s = axe.alloc : !s
  %t = axe.copy_async %a to %s at cta : !g to !s
  axe.wait %t at cta
  return
}

// -----

!g = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)]>, global>
!top = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)]>, shared>
!bottom = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)] + 32>, shared>
!whole = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, shared>

// The two halves of a shared tile differ only in their offsets, which are
// known while compiling: part of the layout, folded into the code. Each copy
// has a function of its own; the third copy repeats the first and shares it.
// CHECK-LABEL: func.func private @__axe_cpu_copy_0(
// CHECK-LABEL: func.func private @__axe_cpu_copy_1(
// CHECK: arith.addi %{{.*}}, %c32
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @static_offsets
// CHECK: call @__axe_cpu_copy_0(
// CHECK: call @__axe_cpu_copy_1(
// CHECK: call @__axe_cpu_copy_0(
func.func @static_offsets(%A: memref<4x8xf32>) {
  %a = axe.view %A[0, 0] : memref<4x8xf32> -> !g
  %w = axe.alloc : !whole
  %top = axe.slice %w[0, 0] : !whole -> !top
  %bottom = axe.slice %w[4, 0] : !whole -> !bottom
  axe.copy %a to %top at cta : !g to !top
  axe.copy %a to %bottom at cta : !g to !bottom
  axe.copy %a to %top at cta : !g to !top
  return
}

// -----

!g1 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>

// Each thread fills the element of a view that depends on its lane: the
// view is re-evaluated per thread inside the loop over threads, so the code
// refers to an axe buffer that differs per iteration and stays in the
// kernel.
// CHECK-LABEL: func.func @per_thread_view
// CHECK-NOT: call
// CHECK: scf.for
// CHECK: axe.view
// CHECK: memref.store
func.func @per_thread_view(%A: memref<32xf32>) {
  %one = arith.constant 1.0 : f32
  axe.kernel grid [1] threads 32 {
    %lane = axe.axis_id laneid
    %a = axe.view %A[%lane] : memref<32xf32> -> !g1
    axe.fill %a, %one at thread : !g1
  }
  return
}

// -----

!g = !axe.buffer<8xf32, #axe.layout<S[(8) : (1)]>, global>
!s = !axe.buffer<8xf32, #axe.layout<S[(8) : (1)]>, shared>

// A function goes into the symbol table of the code that calls it, so two
// modules emitting the same code each get their own.
// CHECK: module @first
// CHECK: func.func private @__axe_cpu_copy_0(
// CHECK: call @__axe_cpu_copy_0(
// CHECK: module @second
// CHECK: func.func private @__axe_cpu_copy_1(
// CHECK: call @__axe_cpu_copy_1(
module @first {
  func.func @copy(%A: memref<8xf32>) {
    %a = axe.view %A[0] : memref<8xf32> -> !g
    %s = axe.alloc : !s
    axe.copy %a to %s at cta : !g to !s
    return
  }
}
module @second {
  func.func @copy(%A: memref<8xf32>) {
    %a = axe.view %A[0] : memref<8xf32> -> !g
    %s = axe.alloc : !s
    axe.copy %a to %s at cta : !g to !s
    return
  }
}
