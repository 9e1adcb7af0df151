// RUN: axe-opt %s -split-input-file -verify-diagnostics

// Operations the verifiers reject, each with the reason they give.

#l8 = #axe.layout<S[8 : 1]>

//===----------------------------------------------------------------------===//
// Copies and fills
//===----------------------------------------------------------------------===//

func.func @copy_shapes(%a: !axe.buffer<8x4xf32, #axe.layout<S[32 : 1]>, shared>,
                       %b: !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared>) {
  // expected-error @+1 {{'axe.copy' op copies between different shapes 8x4 and 4x8}}
  axe.copy %a to %b at cta
      : !axe.buffer<8x4xf32, #axe.layout<S[32 : 1]>, shared> to !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared>
  return
}

// -----

func.func @copy_types(%a: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>,
                      %b: !axe.buffer<8xf16, #axe.layout<S[8 : 1]>, shared>) {
  // expected-error @+1 {{'axe.copy_async' op cannot convert 'f32' to 'f16'; convert with axe.elementwise}}
  %t = axe.copy_async %a to %b at cta
      : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared> to !axe.buffer<8xf16, #axe.layout<S[8 : 1]>, shared>
  return
}

// -----

func.func @empty_schedule(%a: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>) {
  // expected-error @+1 {{'axe.copy' op has an empty schedule name}}
  axe.copy %a to %a at cta {schedule = ""}
      : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared> to !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>
  return
}

// -----

func.func @fill_type(%a: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>) {
  // expected-note @+1 {{prior use here}}
  %v = arith.constant 1.0 : f16
  // expected-error @+1 {{use of value '%v' expects different type than prior uses: 'f32' vs 'f16'}}
  axe.fill %a, %v at cta : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Gemm
//===----------------------------------------------------------------------===//

func.func @gemm_rank(%a: !axe.buffer<2x8x8xf16, #axe.layout<S[128 : 1]>, shared>,
                     %b: !axe.buffer<8x8xf16, #axe.layout<S[64 : 1]>, shared>,
                     %c: !axe.buffer<8x8xf32, #axe.layout<S[64 : 1]>, shared>) {
  // expected-error @+1 {{'axe.gemm' op A must be a rank-2 buffer, got shape 2x8x8}}
  axe.gemm %a, %b into %c at cta
      : !axe.buffer<2x8x8xf16, #axe.layout<S[128 : 1]>, shared>, !axe.buffer<8x8xf16, #axe.layout<S[64 : 1]>, shared>
        into !axe.buffer<8x8xf32, #axe.layout<S[64 : 1]>, shared>
  return
}

// -----

func.func @gemm_k(%a: !axe.buffer<64x32xf16, #axe.layout<S[2048 : 1]>, shared>,
                  %b: !axe.buffer<16x128xf16, #axe.layout<S[2048 : 1]>, shared>,
                  %c: !axe.buffer<64x128xf32, #axe.layout<S[8192 : 1]>, shared>) {
  // expected-error @+1 {{'axe.gemm' op A is 64x32 but B is 16x128: the K dims differ}}
  axe.gemm %a, %b into %c at cta
      : !axe.buffer<64x32xf16, #axe.layout<S[2048 : 1]>, shared>, !axe.buffer<16x128xf16, #axe.layout<S[2048 : 1]>, shared>
        into !axe.buffer<64x128xf32, #axe.layout<S[8192 : 1]>, shared>
  return
}

// -----

func.func @gemm_k_transposed(%a: !axe.buffer<64x32xf16, #axe.layout<S[2048 : 1]>, shared>,
                             %b: !axe.buffer<128x16xf16, #axe.layout<S[2048 : 1]>, shared>,
                             %c: !axe.buffer<32x128xf32, #axe.layout<S[4096 : 1]>, shared>) {
  // expected-error @+1 {{'axe.gemm' op A^T is 32x64 but B^T is 16x128: the K dims differ}}
  axe.gemm %a, %b into %c at cta {transpose_a, transpose_b}
      : !axe.buffer<64x32xf16, #axe.layout<S[2048 : 1]>, shared>, !axe.buffer<128x16xf16, #axe.layout<S[2048 : 1]>, shared>
        into !axe.buffer<32x128xf32, #axe.layout<S[4096 : 1]>, shared>
  return
}

// -----

func.func @gemm_c(%a: !axe.buffer<64x32xf16, #axe.layout<S[2048 : 1]>, shared>,
                  %b: !axe.buffer<32x128xf16, #axe.layout<S[4096 : 1]>, shared>,
                  %c: !axe.buffer<64x64xf32, #axe.layout<S[4096 : 1]>, shared>) {
  // expected-error @+1 {{'axe.gemm' op C is 64x64 but A x B is 64x128}}
  axe.gemm %a, %b into %c at cta
      : !axe.buffer<64x32xf16, #axe.layout<S[2048 : 1]>, shared>, !axe.buffer<32x128xf16, #axe.layout<S[4096 : 1]>, shared>
        into !axe.buffer<64x64xf32, #axe.layout<S[4096 : 1]>, shared>
  return
}

// -----

func.func @gemm_mixed(%a: !axe.buffer<4x4xf16, #axe.layout<S[16 : 1]>, shared>,
                      %b: !axe.buffer<4x4xi8, #axe.layout<S[16 : 1]>, shared>,
                      %c: !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{'axe.gemm' op mixes float and integer elements ('f16', 'i8' into 'f32')}}
  axe.gemm %a, %b into %c at cta
      : !axe.buffer<4x4xf16, #axe.layout<S[16 : 1]>, shared>, !axe.buffer<4x4xi8, #axe.layout<S[16 : 1]>, shared>
        into !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

func.func @reduce_no_dims(%a: !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared>) {
  // expected-error @+1 {{'axe.reduce' op needs at least one dim to reduce}}
  axe.reduce sum %a into %a dims [] at cta
      : !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared> into !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared>
  return
}

// -----

func.func @reduce_range(%a: !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared>,
                        %b: !axe.buffer<4xf32, #axe.layout<S[4 : 1]>, shared>) {
  // expected-error @+1 {{'axe.reduce' op dim 2 is out of range for a rank-2 source}}
  axe.reduce sum %a into %b dims [2] at cta
      : !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared> into !axe.buffer<4xf32, #axe.layout<S[4 : 1]>, shared>
  return
}

// -----

func.func @reduce_order(%a: !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared>,
                        %b: !axe.buffer<f32, #axe.layout<S[1 : 1]>, shared>) {
  // expected-error @+1 {{'axe.reduce' op dims must be strictly increasing}}
  axe.reduce max %a into %b dims [1, 0] at cta
      : !axe.buffer<4x8xf32, #axe.layout<S[32 : 1]>, shared> into !axe.buffer<f32, #axe.layout<S[1 : 1]>, shared>
  return
}

// -----

func.func @reduce_shape(%a: !axe.buffer<16x64xf32, #axe.layout<S[1024 : 1]>, shared>,
                        %b: !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>) {
  // expected-error @+1 {{'axe.reduce' op target shape 64 is neither 16x1 (reduced dims kept as 1) nor 16 (reduced dims dropped)}}
  axe.reduce sum %a into %b dims [1] at cta
      : !axe.buffer<16x64xf32, #axe.layout<S[1024 : 1]>, shared> into !axe.buffer<64xf32, #axe.layout<S[64 : 1]>, shared>
  return
}

// -----

func.func @reduce_type(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>,
                       %b: !axe.buffer<f16, #axe.layout<S[1 : 1]>, shared>) {
  // expected-error @+1 {{'axe.reduce' op reduces 'f32' elements into 'f16' ones; the element types must agree}}
  axe.reduce sum %a into %b dims [0] at cta
      : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared> into !axe.buffer<f16, #axe.layout<S[1 : 1]>, shared>
  return
}

// -----

func.func @reduce_kind(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{unknown reduction 'mean'; expected sum, max, min or prod}}
  axe.reduce mean %a into %a dims [0] at cta
      : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared> into !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

func.func @ew_broadcast(%a: !axe.buffer<16x2xf32, #axe.layout<S[32 : 1]>, shared>,
                        %b: !axe.buffer<16x64xf32, #axe.layout<S[1024 : 1]>, shared>) {
  // expected-error @+1 {{'axe.elementwise' op input #0 has shape 16x2, which does not broadcast to the outputs' shape 16x64 (same rank, each dim equal or 1)}}
  axe.elementwise ins(%a : !axe.buffer<16x2xf32, #axe.layout<S[32 : 1]>, shared>)
                  outs(%b : !axe.buffer<16x64xf32, #axe.layout<S[1024 : 1]>, shared>) at cta {
  ^bb0(%x: f32):
    axe.yield %x : f32
  }
  return
}

// -----

func.func @ew_outputs(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>,
                      %b: !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>) {
  // expected-error @+1 {{'axe.elementwise' op output #1 has shape 8, but output #0 has shape 16}}
  axe.elementwise outs(%a, %b : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>, !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, shared>) at cta {
    %c = arith.constant 1.0 : f32
    axe.yield %c, %c : f32, f32
  }
  return
}

// -----

func.func @ew_args(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{'axe.elementwise' op body has 0 arguments; it needs one per input (1)}}
  axe.elementwise ins(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>)
                  outs(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) at cta {
    %c = arith.constant 1.0 : f32
    axe.yield %c : f32
  }
  return
}

// -----

func.func @ew_arg_type(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{'axe.elementwise' op body argument #0 has type 'f16', but input #0 has elements of type 'f32'}}
  axe.elementwise ins(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>)
                  outs(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) at cta {
  ^bb0(%x: f16):
    %e = arith.extf %x : f16 to f32
    axe.yield %e : f32
  }
  return
}

// -----

func.func @ew_yield_count(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) {
  axe.elementwise ins(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>)
                  outs(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) at cta {
  ^bb0(%x: f32):
    // expected-error @+1 {{'axe.yield' op yields 2 values; the axe.elementwise has 1 outputs}}
    axe.yield %x, %x : f32, f32
  }
  return
}

// -----

func.func @ew_yield_type(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>,
                         %b: !axe.buffer<16xf16, #axe.layout<S[16 : 1]>, shared>) {
  axe.elementwise ins(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>)
                  outs(%b : !axe.buffer<16xf16, #axe.layout<S[16 : 1]>, shared>) at cta {
  ^bb0(%x: f32):
    // expected-error @+1 {{'axe.yield' op value #0 has type 'f32', but output #0 has elements of type 'f16'}}
    axe.yield %x : f32
  }
  return
}

// -----

func.func @ew_side_effects(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>,
                           %m: memref<16xf32>, %i: index) {
  axe.elementwise ins(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>)
                  outs(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) at cta {
  ^bb0(%x: f32):
    // expected-error @+1 {{'memref.store' op has side effects; the body of axe.elementwise must be pure scalar code}}
    memref.store %x, %m[%i] : memref<16xf32>
    axe.yield %x : f32
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Barriers, allocation
//===----------------------------------------------------------------------===//

// The generic form can leave out the outputs the custom form requires.
func.func @ew_no_outputs(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{'axe.elementwise' op needs at least one output}}
  "axe.elementwise"(%a) <{operandSegmentSizes = array<i32: 1, 0>, scope = #axe.scope<cta>}> ({
  ^bb0(%v: f32):
    axe.yield
  }) : (!axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) -> ()
  return
}

// -----

// A terminator that may sit anywhere, but is not axe.yield.
func.func @ew_terminator(%a: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>,
                         %b: !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{'axe.elementwise' op body must end with axe.yield}}
  axe.elementwise ins(%a : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>)
      outs(%b : !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>) at cta {
  ^bb0(%v: f32):
    llvm.unreachable
  }
  return
}

// -----

// The accumulator is written while the inputs are read.
func.func @gemm_alias(%a: !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{'axe.gemm' op accumulator C is also input A; C += A x B must not write an input it reads}}
  axe.gemm %a, %a into %a at cta
      : !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>, !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>
        into !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>
  return
}

// -----

func.func @gemm_alias_b(%a: !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>,
                        %b: !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>) {
  // expected-error @+1 {{'axe.gemm' op accumulator C is also input B; C += A x B must not write an input it reads}}
  axe.gemm %a, %b into %b at cta
      : !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>, !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>
        into !axe.buffer<4x4xf32, #axe.layout<S[16 : 1]>, shared>
  return
}

// -----

// Rows [0, 4) and [2, 6) of one buffer share rows 2 and 3, through a chain
// of slices.
!big = !axe.buffer<8x4xf32, #axe.layout<S[(8, 4) : (4, 1)]>, shared>
func.func @gemm_overlap(%s: !big) {
  %a = axe.slice %s[0, 0] : !big -> !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>
  %h = axe.slice %s[1, 0] : !big -> !axe.buffer<6x4xf32, #axe.layout<S[(6, 4) : (4, 1)] + 4>, shared>
  %c = axe.slice %h[1, 0] : !axe.buffer<6x4xf32, #axe.layout<S[(6, 4) : (4, 1)] + 4>, shared>
      -> !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)] + 8>, shared>
  // expected-error @+1 {{'axe.gemm' op accumulator C overlaps input A (both are slices of one buffer, or views of one memref, that share elements); C += A x B must not write an input it reads}}
  axe.gemm %a, %a into %c at cta
      : !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>, !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>
        into !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)] + 8>, shared>
  return
}

// -----

// Two views of one memref share elements as two slices of one buffer do:
// rows [2, 6) and [0, 4) of M.
!v4 = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, global>
func.func @gemm_overlapping_views(%M: memref<8x4xf32>) {
  %c2 = arith.constant 2 : index
  axe.kernel grid [1] threads 32 {
    %a = axe.view %M[0, 0] : memref<8x4xf32> -> !v4
    %c = axe.view %M[%c2, 0] : memref<8x4xf32> -> !v4
    // expected-error @+1 {{'axe.gemm' op accumulator C overlaps input A (both are slices of one buffer, or views of one memref, that share elements)}}
    axe.gemm %a, %a into %c at cta : !v4, !v4 into !v4
  }
  return
}

// -----

// Rows [4, 8) and [0, 4) of one memref share nothing.
!v4d = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, global>
func.func @gemm_disjoint_views(%M: memref<8x4xf32>) {
  axe.kernel grid [1] threads 32 {
    %a = axe.view %M[0, 0] : memref<8x4xf32> -> !v4d
    %c = axe.view %M[4, 0] : memref<8x4xf32> -> !v4d
    axe.gemm %a, %a into %c at cta : !v4d, !v4d into !v4d
  }
  return
}

// -----

func.func @barrier_thread() {
  // expected-error @+1 {{'axe.barrier' op at thread scope synchronizes nothing}}
  axe.barrier at thread
  return
}

// -----

func.func @partition_barrier_outside() {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{'axe.partition_barrier' op synchronizes the warps of an axe.partition and is not inside one}}
    axe.partition_barrier
  }
  return
}

// -----

func.func @alloc_global() {
  // expected-error @+1 {{'axe.alloc' op cannot allocate global memory; take a tile of a memref with axe.view}}
  %g = axe.alloc : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, global>
  return
}

// -----

func.func @alloc_hbm() {
  // expected-error @+1 {{'axe.alloc' op cannot allocate hbm memory}}
  %g = axe.alloc : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, hbm>
  return
}

// -----

// Storage holds one element per place. Two elements of this register
// column land on one thread: (i, 1) and (i + 1, 0) both on tx = i + 1.
func.func @alloc_two_elements_one_register() {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{'axe.alloc' op lays out elements (0, 1) and (1, 0) at one place, {tx: 1}, where storage holds one of them}}
    %r = axe.alloc : !axe.buffer<8x2xf32, #axe.layout<S[(8, 2) : (1@tx, 1@tx)]>, reg>
  }
  return
}

// -----

// A stride of 0 puts a whole row of shared memory at one address.
func.func @alloc_stride_zero() {
  // expected-error @+1 {{'axe.alloc' op lays out elements (0, 0) and (0, 1) at one place, the origin}}
  %s = axe.alloc : !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (1, 0)]>, shared>
  return
}

// -----

// A replica of element 0 lands where element 1 lies.
func.func @alloc_replica_on_another_element() {
  // expected-error @+1 {{'axe.alloc' op lays out elements (0) and (1) at one place, {m: 1}}}
  %s = axe.alloc : !axe.buffer<2xf32, #axe.layout<S[2 : 1] + R[2 : 1]>, shared>
  return
}

// -----

func.func @bad_scope() {
  // expected-error @+1 {{unknown scope 'block'}}
  axe.barrier at block
  return
}

// -----

// Op verifiers run before dominance: the overlap check must not follow a
// cycle of slices forever.
!t = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>
func.func @gemm_slice_cycle(%b: !t) {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %a = axe.slice %c[0, 0] : !t -> !t
  // expected-note @+1 {{operand defined here}}
  %c = axe.slice %a[0, 0] : !t -> !t
  axe.gemm %b, %b into %a at cta : !t, !t into !t
  return
}

// -----

// Within a device axe.reduce already completes before the next operator.
!src = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)]>, shared>
!dst = !axe.buffer<4xf32, #axe.layout<S[4 : 1]>, shared>
func.func @reduce_async_in_a_cta(%s: !src, %d: !dst) {
  // expected-error @+1 {{runs at mesh scope only; within a device axe.reduce completes before the next operator}}
  %t = axe.reduce_async sum %s into %d dims [1] at cta : !src into !dst
  return
}

// -----

!parts = !axe.buffer<2x8xf32, #axe.layout<S[(2, 8) : (1@d, 1)]>, global>
!sum = !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
func.func @reduce_async_types(%s: !parts, %d: !axe.buffer<8xf16, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>) {
  // expected-error @+1 {{reduces 'f32' elements into 'f16' ones; the element types must agree}}
  %t = axe.reduce_async sum %s into %d dims [0] at mesh<d = 2> : !parts into !axe.buffer<8xf16, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
  return
}

//===----------------------------------------------------------------------===//
// Flags between CTAs
//===----------------------------------------------------------------------===//

// -----

func.func @flag_outside_kernel(%f: memref<4xi32>, %i: index, %one: i32) {
  // expected-error @+1 {{'axe.flag_add' op synchronizes the CTAs of a launch and must be inside an axe.kernel}}
  %t = axe.flag_add %f[%i], %one at cta : memref<4xi32>
  return
}

// -----

func.func @flag_indices(%f: memref<4x4xi32>, %i: index, %one: i32) {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{'axe.flag_wait' op indexes a memref of rank 2 with 1 indices}}
    axe.flag_wait %f[%i], %one at cta : memref<4x4xi32>
  }
  return
}

// -----

func.func @flag_in_shared(%f: memref<4xi32, 3>, %i: index, %one: i32) {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{'axe.flag_add' op takes a flag in global memory (a memref without a memory space), not in 3}}
    %t = axe.flag_add %f[%i], %one at cta : memref<4xi32, 3>
  }
  return
}

// -----

func.func @flag_cluster_scope(%f: memref<4xi32>, %i: index, %one: i32) {
  axe.kernel grid [2] threads 32 cluster [2] {
    // expected-error @+1 {{'axe.flag_add' op runs at cluster scope; flags take thread, warp, warpgroup or cta scope}}
    %t = axe.flag_add %f[%i], %one at cluster : memref<4xi32>
  }
  return
}

// -----

func.func @flag_cta_in_partition(%f: memref<4xi32>, %i: index, %one: i32) {
  axe.kernel grid [1] threads 256 {
    axe.warp_specialize {
      axe.partition warps [0, 4) {
        // expected-error @+1 {{'axe.flag_wait' op runs at cta scope inside axe.partition warps [0, 4): only the 4 warps of the partition run it; use warp or warpgroup scope}}
        axe.flag_wait %f[%i], %one at cta : memref<4xi32>
      }
      axe.partition warps [4, 8) {
      }
    }
  }
  return
}

// -----

func.func @flag_type(%f: memref<4xi64>, %i: index, %one: i32) {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{operand #0 must be memref of 32-bit signless integer values}}
    %t = axe.flag_add %f[%i], %one at cta : memref<4xi64>
  }
  return
}
