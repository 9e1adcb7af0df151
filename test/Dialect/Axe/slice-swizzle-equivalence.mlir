// RUN: axe-opt %s -split-input-file -verify-diagnostics

// A slice's result layout must have the map of the slice, not its text: a
// swizzle that moves none of the slice's addresses may be left out, one that
// moves some may not (layout library: equivalent()).

// SW(0, 0, 0) is the identity.
#id = #axe.layout<SW(0, 0, 0) o S[(4, 8) : (8, 1)]>
func.func @identity_swizzle(%s: !axe.buffer<4x8xf16, #id, shared>) {
  %r = axe.slice %s[0, 0] : !axe.buffer<4x8xf16, #id, shared> -> !axe.buffer<4x8xf16, #axe.layout<S[(4, 8) : (8, 1)]>, shared>
  return
}

// -----

// B = 0: nothing is XORed.
#id = #axe.layout<SW(3, 0, 3) o S[(8, 64) : (64, 1)]>
func.func @no_swizzle_bits(%s: !axe.buffer<8x64xf16, #id, shared>) {
  %r = axe.slice %s[2, 0] : !axe.buffer<8x64xf16, #id, shared> -> !axe.buffer<2x64xf16, #axe.layout<S[128 : 1] + 128>, shared>
  return
}

// -----

// The first row of a 128-byte swizzle atom: addresses below 2^(M + S) = 64
// have no bits to XOR in.
#sw = #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>
func.func @first_row(%s: !axe.buffer<8x64xf16, #sw, shared>) {
  %r = axe.slice %s[0, 0] : !axe.buffer<8x64xf16, #sw, shared> -> !axe.buffer<1x64xf16, #axe.layout<S[64 : 1]>, shared>
  return
}

// -----

// The second row is swizzled: the result must say so.
#sw = #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>
func.func @second_row(%s: !axe.buffer<8x64xf16, #sw, shared>) {
  // expected-error @+1 {{'axe.slice' op result layout S[64 : 1] + 64 does not match the slice layout SW(3, 3, 3) o S[64 : 1] + 64}}
  %r = axe.slice %s[1, 0] : !axe.buffer<8x64xf16, #sw, shared> -> !axe.buffer<1x64xf16, #axe.layout<S[64 : 1] + 64>, shared>
  return
}

// -----

#sw = #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>
func.func @second_row_swizzled(%s: !axe.buffer<8x64xf16, #sw, shared>) {
  %r = axe.slice %s[1, 0] : !axe.buffer<8x64xf16, #sw, shared> -> !axe.buffer<1x64xf16, #axe.layout<SW(3, 3, 3) o S[64 : 1] + 64>, shared>
  return
}

// -----

// Another swizzle with the same map on these addresses is fine too.
#sw = #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>
func.func @other_inert_swizzle(%s: !axe.buffer<8x64xf16, #sw, shared>) {
  %r = axe.slice %s[0, 0] : !axe.buffer<8x64xf16, #sw, shared> -> !axe.buffer<1x64xf16, #axe.layout<SW(2, 2, 4) o S[64 : 1]>, shared>
  return
}
