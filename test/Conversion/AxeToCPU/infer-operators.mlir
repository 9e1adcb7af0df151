// axe-infer-layouts on CPU copies, elementwise operators, reductions and
// register tiles. A `?` operand is laid out dense on m in the order of the
// known side, so the vectorized schedule moves whole vectors along the same
// loop on both sides. A register tile used at a scope wider than a thread
// must place data on that scope's thread axis (else each thread would own
// a copy): its slowest dims are spread over the threads (tx in a CTA,
// laneid in a warp), each thread's part dense on m and, where the extents
// allow, at least one vector long; the storage is then dense as a whole.
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=512" | FileCheck %s
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=512" | axe-opt --axe-infer-layouts="target=cpu vector-bits=512" | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu=vector-bits=512 | FileCheck %s --check-prefix=LOWERED
// LOWERED-NOT: axe.

!g = !axe.buffer<64x32xf32, #axe.layout<S[(64, 32) : (32, 1)]>, global>
!gt = !axe.buffer<64x32xf32, #axe.layout<S[(64, 32) : (1, 64)]>, global>
!g16 = !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, global>
!s = !axe.buffer<64x32xf32, ?, shared>
!s16 = !axe.buffer<64x32xf16, ?, shared>
!r = !axe.buffer<64x32xf32, ?, reg>
!rows = !axe.buffer<64xf32, ?, shared>
!grows = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
// Rows from a row-major view, columns from a column-major one; the
// elementwise output follows its known operands.
// CHECK-LABEL: func.func @copies
// CHECK: axe.alloc : !axe.buffer<64x32xf32, #axe.layout<S[(64, 32) : (32, 1)]>, shared>
// CHECK: axe.copy {{.*}} {schedule = {cpu = "cpu.copy"}}
// CHECK: axe.alloc : !axe.buffer<64x32xf32, #axe.layout<S[(64, 32) : (1, 64)]>, shared>
// CHECK: axe.alloc : !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, shared>
// CHECK: axe.elementwise {{.*}} {schedule = {cpu = "cpu.elementwise"}}
func.func @copies(%X: memref<64x32xf32>, %Y: memref<64x32xf32, strided<[1, 64]>>, %Z: memref<64x32xf16>) {
  axe.kernel grid [1] threads 128 {
    %g = axe.view %X[0, 0] : memref<64x32xf32> -> !g
    %gt = axe.view %Y[0, 0] : memref<64x32xf32, strided<[1, 64]>> -> !gt
    %s = axe.alloc : !s
    axe.copy %g to %s at cta : !g to !s
    %t = axe.alloc : !s
    axe.copy %gt to %t at cta : !gt to !s
    %h = axe.alloc : !s16
    axe.elementwise ins(%s, %t : !s, !s) outs(%h : !s16) at cta {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      %d = arith.truncf %c : f32 to f16
      axe.yield %d : f16
    }
    %z = axe.view %Z[0, 0] : memref<64x32xf16> -> !g16
    axe.copy %h to %z at cta : !s16 to !g16
  }
  return
}

// A CTA's tile over its 128 threads: 64 rows on 64 of them, each row split
// once more so that every thread holds one 16-lane vector; a warp's over
// its 32 lanes; a thread's on m alone. The row sums follow the source.
// CHECK-LABEL: func.func @registers
// CHECK: axe.alloc : !axe.buffer<64x32xf32, #axe.layout<S[(64, 2, 16) : (2@tx, 1@tx, 1)]>, reg>
// CHECK: axe.alloc : !axe.buffer<64x32xf32, #axe.layout<S[(32, 2, 32) : (1@laneid, 32, 1)]>, reg>
// CHECK: axe.alloc : !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, reg>
// CHECK: axe.alloc : !axe.buffer<4x64xf32, #axe.layout<S[(4, 4, 16) : (4@tx, 1@tx, 1)]>, reg>
// CHECK: axe.alloc : !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
// CHECK: axe.reduce {{.*}} {schedule = {cpu = "cpu.reduce"}}
func.func @registers(%X: memref<64x32xf32>, %R: memref<64xf32>, %W: memref<4x64xf32>) {
  %one = arith.constant 1.0 : f32
  axe.kernel grid [1] threads 128 {
    %g = axe.view %X[0, 0] : memref<64x32xf32> -> !g
    %r = axe.alloc : !r
    axe.copy %g to %r at cta : !g to !r
    %w = axe.alloc : !axe.buffer<64x32xf32, ?, reg>
    axe.copy %g to %w at warp : !g to !axe.buffer<64x32xf32, ?, reg>
    %t = axe.alloc : !axe.buffer<8x32xf32, ?, reg>
    %gs = axe.view %X[0, 0] : memref<64x32xf32> -> !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, global>
    axe.copy %gs to %t at thread : !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, global> to !axe.buffer<8x32xf32, ?, reg>
    %v = axe.alloc : !axe.buffer<4x64xf32, ?, reg>
    axe.fill %v, %one at cta : !axe.buffer<4x64xf32, ?, reg>
    %gw = axe.view %W[0, 0] : memref<4x64xf32> -> !axe.buffer<4x64xf32, #axe.layout<S[(4, 64) : (64, 1)]>, global>
    axe.copy %v to %gw at cta : !axe.buffer<4x64xf32, ?, reg> to !axe.buffer<4x64xf32, #axe.layout<S[(4, 64) : (64, 1)]>, global>
    %rows = axe.alloc : !rows
    axe.reduce sum %r into %rows dims [1] at cta : !r into !rows
    %gr = axe.view %R[0] : memref<64xf32> -> !grows
    axe.copy %rows to %gr at cta : !rows to !grows
  }
  return
}

// Column sums of a column-major tile: the target is dense, the source read
// along its contiguous kept dim.
// CHECK-LABEL: func.func @column_sums
// CHECK: axe.alloc : !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (0, 1)]>, shared>
func.func @column_sums(%Y: memref<64x32xf32, strided<[1, 64]>>, %S: memref<1x32xf32>) {
  axe.kernel grid [1] threads 32 {
    %gt = axe.view %Y[0, 0] : memref<64x32xf32, strided<[1, 64]>> -> !gt
    %sums = axe.alloc : !axe.buffer<1x32xf32, ?, shared>
    axe.reduce sum %gt into %sums dims [0] at cta : !gt into !axe.buffer<1x32xf32, ?, shared>
    %gs = axe.view %S[0, 0] : memref<1x32xf32> -> !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (0, 1)]>, global>
    axe.copy %sums to %gs at cta : !axe.buffer<1x32xf32, ?, shared> to !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (0, 1)]>, global>
  }
  return
}
}
