// RUN: axe-opt %s -split-input-file -verify-diagnostics

// Views of memrefs have the layout their strides give: never '?'.
func.func @view_pending(%A: memref<64x32xf16>) {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{global buffers are views of memrefs, whose layout their strides give; '?' is for on-chip buffers}}
    %g = axe.view %A[0, 0] : memref<64x32xf16> -> !axe.buffer<64x32xf16, ?, global>
  }
  return
}

// -----

// A slice of a '?' buffer gets its layout with its source's.
func.func @slice_known_of_pending() {
  axe.kernel grid [1] threads 32 {
    %s = axe.alloc : !axe.buffer<64x32xf16, ?, shared>
    // expected-error @+1 {{a slice's layout is '?' exactly when its source's is (the source's is '?')}}
    %h = axe.slice %s[0, 0] : !axe.buffer<64x32xf16, ?, shared>
        -> !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (32, 1)]>, shared>
  }
  return
}

// -----

func.func @slice_pending_of_known() {
  axe.kernel grid [1] threads 32 {
    %s = axe.alloc : !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, shared>
    // expected-error @+1 {{a slice's layout is '?' exactly when its source's is (the source's is known)}}
    %h = axe.slice %s[0, 0] : !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, shared>
        -> !axe.buffer<64x16xf16, ?, shared>
  }
  return
}

// -----

func.func @not_a_layout() {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{expected a layout attribute (#axe.layout<...>) or '?', got 3 : i64}}
    %s = axe.alloc : !axe.buffer<64x32xf16, 3, shared>
  }
  return
}
