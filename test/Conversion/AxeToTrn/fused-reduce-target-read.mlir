// An activation fused with the row sum after it writes the sums while its
// elementwise body still runs: the sum's target must not be memory the body
// reads. Here the body reads the column %col that the sum then overwrites
// (exp(v - c) summed into c, and v * c as a second output), so the sum is
// not fused, and v * c sees the column as it was. Every element of the
// first rows checked against the CPU's numbers.
// RUN: axe-opt %s --axe-to-trn | axe-trn-sim -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s
// CHECK: sizes = [4, 8]
// CHECK-NEXT: {{\[\[}}0,{{ +}}0.0625,{{ +}}0.125,{{ +}}0.1875,{{ +}}0.25,{{ +}}0.3125,{{ +}}0.375,{{ +}}0.4375],
// CHECK-NEXT: {{ ?\[}}0.1875,{{ +}}0.375,{{ +}}0.5625,{{ +}}0.75,{{ +}}0.9375,{{ +}}1.125,{{ +}}1.3125,{{ +}}0],
// CHECK-NEXT: {{ ?\[}}0.625,{{ +}}0.9375,{{ +}}1.25,{{ +}}1.5625,{{ +}}1.875,{{ +}}2.1875,{{ +}}0,{{ +}}0.3125],
// CHECK-NEXT: {{ ?\[}}1.3125,{{ +}}1.75,{{ +}}2.1875,{{ +}}2.625,{{ +}}3.0625,{{ +}}0,{{ +}}0.4375,{{ +}}0.875]]
// The sums of exp(v - c) over each row, as Python gives them.
// CHECK: sizes = [4, 1]
// CHECK-NEXT: {{\[\[}}7.8272{{[0-9]*}}],
// CHECK-NEXT: [2.879{{[0-9]*}}],
// CHECK-NEXT: [1.0593{{[0-9]*}}],
// CHECK-NEXT: [0.38969{{[0-9]*}}]]

#h = #axe.layout<S[(128, 8) : (8, 1)]>
#hc = #axe.layout<S[(128, 1) : (1, 1)]>
#s = #axe.layout<S[(128, 8) : (1@P, 1@F)]>
#c = #axe.layout<S[(128, 1) : (1@P, 1@F)]>
!T = !axe.buffer<128x8xf32, #s, sbuf>
!C = !axe.buffer<128x1xf32, #c, sbuf>
!H = !axe.buffer<128x8xf32, #h, hbm>
!HC = !axe.buffer<128x1xf32, #hc, hbm>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k(%x: memref<128x8xf32>, %cm: memref<128x1xf32>, %y: memref<128x8xf32>, %z: memref<128x8xf32>, %co: memref<128x1xf32>) {
    axe.kernel {
      %t = axe.alloc : !T
      %u = axe.alloc : !T
      %e = axe.alloc : !T
      %col = axe.alloc : !C
      %hx = axe.view %x[0, 0] : memref<128x8xf32> -> !H
      %hc = axe.view %cm[0, 0] : memref<128x1xf32> -> !HC
      %hco = axe.view %co[0, 0] : memref<128x1xf32> -> !HC
      %hy = axe.view %y[0, 0] : memref<128x8xf32> -> !H
      %hz = axe.view %z[0, 0] : memref<128x8xf32> -> !H
      axe.copy %hx to %t at cta : !H to !T
      axe.copy %hc to %col at cta : !HC to !C
      axe.copy %hx to %u at cta : !H to !T
      axe.elementwise ins(%t, %col : !T, !C) outs(%e, %u : !T, !T) at cta {
      ^bb0(%v: f32, %cv: f32):
        %d = arith.subf %v, %cv : f32
        %ex = math.exp %d : f32
        %w = arith.mulf %v, %cv : f32
        axe.yield %ex, %w : f32, f32
      }
      axe.reduce sum %e into %col dims [1] at cta : !T into !C
      axe.copy %e to %hy at cta : !T to !H
      axe.copy %u to %hz at cta : !T to !H
      axe.copy %col to %hco at cta : !C to !HC
    }
    return
  }

  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %x = memref.alloc() : memref<128x8xf32>
    %cm = memref.alloc() : memref<128x1xf32>
    %y = memref.alloc() : memref<128x8xf32>
    %z = memref.alloc() : memref<128x8xf32>
    %co = memref.alloc() : memref<128x1xf32>
    %q = arith.constant 0.125 : f32
    %h = arith.constant 0.5 : f32
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %s = arith.addi %i, %j : index
        %r = arith.remui %s, %c8 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %v = arith.mulf %rf, %q : f32
        memref.store %v, %x[%i, %j] : memref<128x8xf32>
      }
      %r2 = arith.remui %i, %c8 : index
      %ri2 = arith.index_cast %r2 : index to i64
      %rf2 = arith.sitofp %ri2 : i64 to f32
      %v2 = arith.addf %rf2, %h : f32
      memref.store %v2, %cm[%i, %c0] : memref<128x1xf32>
    }
    call @k(%x, %cm, %y, %z, %co) : (memref<128x8xf32>, memref<128x1xf32>, memref<128x8xf32>, memref<128x8xf32>, memref<128x1xf32>) -> ()
    %zs = memref.subview %z[0, 0] [4, 8] [1, 1] : memref<128x8xf32> to memref<4x8xf32, strided<[8, 1]>>
    %zc = memref.cast %zs : memref<4x8xf32, strided<[8, 1]>> to memref<*xf32>
    call @printMemrefF32(%zc) : (memref<*xf32>) -> ()
    %cs = memref.subview %co[0, 0] [4, 1] [1, 1] : memref<128x1xf32> to memref<4x1xf32, strided<[1, 1]>>
    %cc = memref.cast %cs : memref<4x1xf32, strided<[1, 1]>> to memref<*xf32>
    call @printMemrefF32(%cc) : (memref<*xf32>) -> ()
    return
  }
}
