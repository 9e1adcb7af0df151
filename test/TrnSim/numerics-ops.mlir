// RUN: axe-trn-sim %s --print-arg=0 --print-arg=1 --print-arg=2 --print-arg=3 --print-arg=4 --print-arg=5 | FileCheck %s

// Values of the Vector/Scalar/GpSimd instructions, computed in fp32 and
// rounded to each destination's type.

// iota: 8c + e; copy to f32; times 0.5 plus 1.
// CHECK: arg 0: 1 1.5 2 2.5 3 3.5 4 4.5 5 5.5 6 6.5 7 7.5 8 8.5 9 9.5 10 10.5 11 11.5 12 12.5 13 13.5 14 14.5 15 15.5 16 16.5{{$}}
// exp(g - rowmax) with the negated max as bias: exp(0.5e - 3.5) in each row.
// CHECK: arg 1: 0.0301973{{[0-9]*}} 0.0497870{{[0-9]*}} 0.0820849{{[0-9]*}} 0.135335{{[0-9]*}} 0.223130{{[0-9]*}} 0.367879{{[0-9]*}} 0.606530{{[0-9]*}} 1 0.0301973
// ... and the row sums of the activation's add-reduce.
// CHECK: arg 2: 2.494945{{[0-9]*}} 2.494945{{[0-9]*}} 2.494945{{[0-9]*}} 2.494945{{[0-9]*}}{{$}}
// affine_select keeps element e of row c where c - e >= 0, else -1.
// CHECK: arg 3: 1 -1 -1 -1 -1 -1 -1 -1 5 5.5 -1 -1 -1 -1 -1 -1 9 9.5 10 -1 -1 -1 -1 -1 13 13.5 14 14.5 -1 -1 -1 -1{{$}}
// bf16 rounds 1 + e/512 to nearest even: ties at e = 2 (down to 1) and
// e = 6 (up to 1 + 2/128).
// CHECK: arg 4: 1 1 1 1.0078125 1.0078125 1.0078125 1.015625 1.015625{{$}}
// VectorE transpose: [8, 4].
// CHECK: arg 5: 1 5 9 13 1.5 5.5 9.5 13.5 2 6 10 14
func.func @ops(%g_out: memref<4x8xf32, #trn.space<hbm>>,
               %e_out: memref<4x8xf32, #trn.space<hbm>>,
               %sum_out: memref<4x1xf32, #trn.space<hbm>>,
               %mask_out: memref<4x8xf32, #trn.space<hbm>>,
               %bf16_out: memref<1x8xf32, #trn.space<hbm>>,
               %t_out: memref<8x4xf32, #trn.space<hbm>>) {
  %i = trn.alloc : memref<4x8xi32, #trn.space<sbuf>>
  trn.iota [[1, 8]] offset 0 channel_multiplier 8 into %i : memref<4x8xi32, #trn.space<sbuf>>
  %f = trn.alloc : memref<4x8xf32, #trn.space<sbuf>>
  trn.tensor_copy %i into %f engine vector
      : memref<4x8xi32, #trn.space<sbuf>> into memref<4x8xf32, #trn.space<sbuf>>
  %g = trn.alloc : memref<4x8xf32, #trn.space<sbuf>>
  trn.tensor_scalar %f, multiply(0.5) then add(1.0) into %g engine vector
      : memref<4x8xf32, #trn.space<sbuf>> into memref<4x8xf32, #trn.space<sbuf>>
  trn.dma_copy %g to %g_out : memref<4x8xf32, #trn.space<sbuf>> to memref<4x8xf32, #trn.space<hbm>>

  %negmax = trn.alloc : memref<4x1xf32, #trn.space<sbuf>>
  trn.tensor_reduce max %g into %negmax axes [1] negate
      : memref<4x8xf32, #trn.space<sbuf>> into memref<4x1xf32, #trn.space<sbuf>>
  %e = trn.alloc : memref<4x8xf32, #trn.space<psum>>
  %sum = trn.alloc : memref<4x1xf32, #trn.space<sbuf>>
  trn.activation exp %g into %e bias %negmax : memref<4x1xf32, #trn.space<sbuf>>
      reduce add into %sum : memref<4x1xf32, #trn.space<sbuf>>
      : memref<4x8xf32, #trn.space<sbuf>> into memref<4x8xf32, #trn.space<psum>>
  %es = trn.alloc : memref<4x8xf32, #trn.space<sbuf>>
  trn.tensor_copy %e into %es engine vector
      : memref<4x8xf32, #trn.space<psum>> into memref<4x8xf32, #trn.space<sbuf>>
  trn.dma_copy %es to %e_out : memref<4x8xf32, #trn.space<sbuf>> to memref<4x8xf32, #trn.space<hbm>>
  trn.dma_copy %sum to %sum_out : memref<4x1xf32, #trn.space<sbuf>> to memref<4x1xf32, #trn.space<hbm>>

  %masked = trn.alloc : memref<4x8xf32, #trn.space<sbuf>>
  trn.affine_select is_ge [[-1, 8]] offset 0 channel_multiplier 1, %g else -1.0 into %masked
      : memref<4x8xf32, #trn.space<sbuf>> into memref<4x8xf32, #trn.space<sbuf>>
  trn.dma_copy %masked to %mask_out : memref<4x8xf32, #trn.space<sbuf>> to memref<4x8xf32, #trn.space<hbm>>

  %j = trn.alloc : memref<1x8xi32, #trn.space<sbuf>>
  trn.iota [[1, 8]] offset 0 channel_multiplier 0 into %j : memref<1x8xi32, #trn.space<sbuf>>
  %jf = trn.alloc : memref<1x8xf32, #trn.space<sbuf>>
  trn.tensor_copy %j into %jf engine vector
      : memref<1x8xi32, #trn.space<sbuf>> into memref<1x8xf32, #trn.space<sbuf>>
  trn.tensor_scalar %jf, multiply(0.001953125) then add(1.0) into %jf engine vector
      : memref<1x8xf32, #trn.space<sbuf>> into memref<1x8xf32, #trn.space<sbuf>>
  %jb = trn.alloc : memref<1x8xbf16, #trn.space<sbuf>>
  trn.tensor_copy %jf into %jb engine vector
      : memref<1x8xf32, #trn.space<sbuf>> into memref<1x8xbf16, #trn.space<sbuf>>
  trn.dma_copy %jb to %bf16_out : memref<1x8xbf16, #trn.space<sbuf>> to memref<1x8xf32, #trn.space<hbm>>

  %t = trn.alloc : memref<8x4xf32, #trn.space<sbuf>>
  trn.transpose %g into %t engine vector
      : memref<4x8xf32, #trn.space<sbuf>> into memref<8x4xf32, #trn.space<sbuf>>
  trn.dma_copy %t to %t_out : memref<8x4xf32, #trn.space<sbuf>> to memref<8x4xf32, #trn.space<hbm>>
  return
}
