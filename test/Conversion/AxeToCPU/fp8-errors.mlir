// fp8 the CPU target does not convert is refused, rather than left for the
// LLVM lowering to leave unconverted: f64 to fp8 would round twice through
// f32, and f8E4M3 (IEEE-like e4m3) has no conversion here.
// RUN: axe-opt %s --axe-to-cpu -split-input-file -verify-diagnostics

!g64 = !axe.buffer<1x32xf64, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!g8 = !axe.buffer<1x32xf8E4M3FN, #axe.layout<S[(1, 32) : (32, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @narrow_f64(%X: memref<1x32xf64>, %Y: memref<1x32xf8E4M3FN>) {
    axe.kernel grid [1] threads 32 {
      %x = axe.view %X[0, 0] : memref<1x32xf64> -> !g64
      %y = axe.view %Y[0, 0] : memref<1x32xf8E4M3FN> -> !g8
      axe.elementwise ins(%x : !g64) outs(%y : !g8) at cta {
      ^bb0(%a: f64):
        // expected-error @+1 {{cpu: arith.truncf from 'f64' to 'f8E4M3FN' is not supported on the CPU target}}
        %n = arith.truncf %a : f64 to f8E4M3FN
        axe.yield %n : f8E4M3FN
      }
    }
    return
  }
}

// -----

!g8 = !axe.buffer<1x32xf8E4M3, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!g32 = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @widen_e4m3(%X: memref<1x32xf8E4M3>, %Y: memref<1x32xf32>) {
    axe.kernel grid [1] threads 32 {
      %x = axe.view %X[0, 0] : memref<1x32xf8E4M3> -> !g8
      %y = axe.view %Y[0, 0] : memref<1x32xf32> -> !g32
      axe.elementwise ins(%x : !g8) outs(%y : !g32) at cta {
      ^bb0(%a: f8E4M3):
        // expected-error @+1 {{cpu: arith.extf on 'f8E4M3' values is not supported on the CPU target}}
        %w = arith.extf %a : f8E4M3 to f32
        axe.yield %w : f32
      }
    }
    return
  }
}
