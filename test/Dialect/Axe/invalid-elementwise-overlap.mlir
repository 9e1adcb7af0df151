// RUN: axe-opt %s -split-input-file -verify-diagnostics

// An elementwise op computes its elements in no fixed order (in parallel on
// a GPU). An output may update an input in place, element for element; it
// may not write elements that the computation of other elements reads.

// s[0..63] = s[1..64] + 1: the CPU would shift in order, a GPU races.
!s = !axe.buffer<65xf32, #axe.layout<S[65 : 1]>, shared>
!lo = !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
!hi = !axe.buffer<64xf32, #axe.layout<S[64 : 1] + 1>, shared>
func.func @shifted_slices(%s: !s) {
  %lo = axe.slice %s[0] : !s -> !lo
  %hi = axe.slice %s[1] : !s -> !hi
  // expected-error @+1 {{'axe.elementwise' op output #0 overlaps input #0 at other elements}}
  axe.elementwise ins(%hi : !hi) outs(%lo : !lo) at cta {
  ^bb0(%b: f32):
    axe.yield %b : f32
  }
  return
}

// -----

// Rows [2, 6) and [0, 4) of one memref, through two views.
!v4 = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, global>
func.func @overlapping_views(%M: memref<8x4xf32>) {
  %c2 = arith.constant 2 : index
  axe.kernel grid [1] threads 32 {
    %a = axe.view %M[0, 0] : memref<8x4xf32> -> !v4
    %c = axe.view %M[%c2, 0] : memref<8x4xf32> -> !v4
    // expected-error @+1 {{output #0 overlaps input #1 at other elements}}
    axe.elementwise ins(%c, %a : !v4, !v4) outs(%c : !v4) at cta {
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      axe.yield %z : f32
    }
  }
  return
}

// -----

// Two outputs that share elements.
!s = !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>
!h = !axe.buffer<4xf32, #axe.layout<S[4 : 1] + 2>, shared>
!l = !axe.buffer<4xf32, #axe.layout<S[4 : 1]>, shared>
func.func @overlapping_outputs(%s: !s, %x: !l) {
  %a = axe.slice %s[0] : !s -> !l
  %b = axe.slice %s[2] : !s -> !h
  // expected-error @+1 {{outputs #0 and #1 share elements}}
  axe.elementwise ins(%x : !l) outs(%a, %b : !l, !h) at cta {
  ^bb0(%v: f32):
    axe.yield %v, %v : f32, f32
  }
  return
}

// -----

// In place, element for element: the same buffer, or equal slices of one
// buffer, as input and output.
!s = !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>
!l = !axe.buffer<4xf32, #axe.layout<S[4 : 1] + 4>, shared>
func.func @in_place(%s: !s) {
  axe.elementwise ins(%s : !s) outs(%s : !s) at cta {
  ^bb0(%v: f32):
    %w = arith.addf %v, %v : f32
    axe.yield %w : f32
  }
  %a = axe.slice %s[4] : !s -> !l
  %b = axe.slice %s[4] : !s -> !l
  axe.elementwise ins(%a : !l) outs(%b : !l) at cta {
  ^bb0(%v: f32):
    axe.yield %v : f32
  }
  return
}
