// RUN: axe-opt %s -split-input-file -verify-diagnostics

// Operations the trn verifiers reject, one case per rule, each with the
// reason given. The limits are NeuronCore-v2's (TrnMachine.h).

//===----------------------------------------------------------------------===//
// Memory spaces and allocations
//===----------------------------------------------------------------------===//

func.func @no_space(%a: memref<128x512xf32>, %b: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_copy' op operand 'src' has no memory space; trn operands are memrefs in #trn.space<hbm>, #trn.space<sbuf> or #trn.space<psum>}}
  trn.tensor_copy %a into %b engine vector : memref<128x512xf32> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @foreign_space(%a: memref<128x512xf32, 3>, %b: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_copy' op operand 'src' has memory space 3 : i64; trn operands}}
  trn.tensor_copy %a into %b engine vector : memref<128x512xf32, 3> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @alloc_hbm() {
  // expected-error @+1 {{'trn.alloc' op allocates in hbm; hbm tensors are kernel arguments, and trn.alloc places tiles in sbuf or psum}}
  %a = trn.alloc : memref<128x512xf32, #trn.space<hbm>>
  return
}

// -----

func.func @alloc_layout() {
  // expected-error @+1 {{'trn.alloc' op has layout strided<[1024, 1]>; an allocation is row-major}}
  %a = trn.alloc : memref<128x512xf32, strided<[1024, 1]>, #trn.space<sbuf>>
  return
}

// -----

func.func @alloc_0d() {
  // expected-error @+1 {{'trn.alloc' op operand 'result' is a 0-d sbuf memref; dim 0 of an sbuf or psum tile is its partition dim}}
  %a = trn.alloc : memref<f32, #trn.space<sbuf>>
  return
}

// -----

func.func @alloc_partitions() {
  // expected-error @+1 {{'trn.alloc' op operand 'result' spans 256 partitions (dim 0); sbuf has 128}}
  %a = trn.alloc : memref<256x64xf32, #trn.space<sbuf>>
  return
}

// -----

// 49153 f32 = 196612 bytes per partition, 4 more than SBUF has.
func.func @alloc_sbuf_capacity() {
  // expected-error @+1 {{'trn.alloc' op needs 196612 bytes in each of 128 partitions (25166336 bytes in all); sbuf has 196608 bytes per partition (25165824 bytes in all)}}
  %a = trn.alloc : memref<128x49153xf32, #trn.space<sbuf>>
  return
}

// -----

// 16 KiB per partition of PSUM is 4096 f32; 2 x 2049 is two more.
func.func @alloc_psum_capacity() {
  // expected-error @+1 {{'trn.alloc' op needs 16392 bytes in each of 64 partitions (1049088 bytes in all); psum has 16384 bytes per partition (2097152 bytes in all)}}
  %a = trn.alloc : memref<64x2x2049xf32, #trn.space<psum>>
  return
}

//===----------------------------------------------------------------------===//
// Access patterns of SBUF/PSUM operands
//===----------------------------------------------------------------------===//

// -----

func.func @operand_partitions(%a: memref<256x64xf32, #trn.space<sbuf>>,
                              %b: memref<256x64xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.tensor_copy' op operand 'src' spans 256 partitions (dim 0); sbuf has 128}}
  trn.tensor_copy %a into %b engine vector
      : memref<256x64xf32, #trn.space<sbuf>> into memref<256x64xf32, #trn.space<psum>>
  return
}

// -----

func.func @free_dims(%a: memref<2x2x2x2x2x2xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op operand 'dst' has 5 free dims; an access pattern has at most 4}}
  trn.memset 0.0 : f32 into %a engine vector : memref<2x2x2x2x2x2xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @free_dim_size(%a: memref<128x65536xbf16, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op free dim 1 of operand 'dst' has 65536 elements; an access pattern dim has at most 65535}}
  trn.memset 0.0 : bf16 into %a engine vector : memref<128x65536xbf16, #trn.space<sbuf>>
  return
}

// -----

// 64 partitions from partition 96 run past the last one.
func.func @partition_range(%a: memref<64x512xf32, strided<[512, 1], offset: 49152>, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op operand 'dst' covers partitions [96, 160); sbuf has 128}}
  trn.memset 0.0 : f32 into %a engine vector
      : memref<64x512xf32, strided<[512, 1], offset: 49152>, #trn.space<sbuf>>
  return
}

// -----

func.func @partition_start_half(%a: memref<64x512xf32, strided<[512, 1], offset: 16384>, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op operand 'dst' starts at partition 32; a tile of 64 partitions starts at 0 or 64}}
  trn.memset 0.0 : f32 into %a engine vector
      : memref<64x512xf32, strided<[512, 1], offset: 16384>, #trn.space<sbuf>>
  return
}

// -----

func.func @partition_start_quadrant(%a: memref<32x512xf32, strided<[512, 1], offset: 8192>, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op operand 'dst' starts at partition 16; a tile of 32 partitions starts at 0, 32, 64 or 96}}
  trn.memset 0.0 : f32 into %a engine vector
      : memref<32x512xf32, strided<[512, 1], offset: 8192>, #trn.space<sbuf>>
  return
}

// -----

func.func @partition_start_full(%a: memref<96x512xf32, strided<[512, 1], offset: 16384>, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op operand 'dst' starts at partition 32; a tile of 96 partitions starts at 0}}
  trn.memset 0.0 : f32 into %a engine vector
      : memref<96x512xf32, strided<[512, 1], offset: 16384>, #trn.space<sbuf>>
  return
}

//===----------------------------------------------------------------------===//
// Which engine reads and writes which memory
//===----------------------------------------------------------------------===//

// -----

func.func @tensor_reads_psum(%st: memref<128x128xbf16, #trn.space<sbuf>>,
                             %mv: memref<128x512xbf16, #trn.space<psum>>, %acc: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'moving' is in psum, which the tensor engine cannot read; it reads only sbuf}}
  trn.matmul %st, %mv into %acc start stop
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<psum>> into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @tensor_writes_sbuf(%st: memref<128x128xbf16, #trn.space<sbuf>>,
                              %mv: memref<128x512xbf16, #trn.space<sbuf>>, %acc: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'dst' is in sbuf, which the tensor engine cannot write; it writes only psum}}
  trn.matmul %st, %mv into %acc start stop
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @gpsimd_reads_psum(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_copy' op operand 'src' is in psum, which the gpsimd engine cannot read; it reads only sbuf}}
  trn.tensor_copy %a into %b engine gpsimd : memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @gpsimd_writes_psum(%a: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.memset' op operand 'dst' is in psum, which the gpsimd engine cannot write; it writes only sbuf}}
  trn.memset 0.0 : f32 into %a engine gpsimd : memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @vector_reads_hbm(%h: memref<128x512xf32, #trn.space<hbm>>, %b: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_tensor' op operand 'rhs' is in hbm, which the vector engine cannot read; it reads only sbuf and psum}}
  trn.tensor_tensor add %b, %h into %b engine vector
      : memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<hbm>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @scalar_writes_hbm(%a: memref<128x512xf32, #trn.space<sbuf>>, %h: memref<128x512xf32, #trn.space<hbm>>) {
  // expected-error @+1 {{'trn.activation' op operand 'dst' is in hbm, which the scalar engine cannot write; it writes only sbuf and psum}}
  trn.activation exp %a into %h : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<hbm>>
  return
}

// -----

func.func @gpsimd_iota_psum(%a: memref<128x512xi32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.iota' op operand 'dst' is in psum, which the gpsimd engine cannot write; it writes only sbuf}}
  trn.iota [[1, 512]] offset 0 channel_multiplier 0 into %a : memref<128x512xi32, #trn.space<psum>>
  return
}

// -----

func.func @dma_psum(%h: memref<128x512xf32, #trn.space<hbm>>, %p: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.dma_copy' op operand 'dst' is in psum, which DMA cannot reach; it moves data between hbm and sbuf only}}
  trn.dma_copy %h to %p : memref<128x512xf32, #trn.space<hbm>> to memref<128x512xf32, #trn.space<psum>>
  return
}

//===----------------------------------------------------------------------===//
// Which engine may run which instruction
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_scalar(%a: memref<32x32xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.transpose' op cannot run on the scalar engine; it runs on tensor or vector}}
  trn.transpose %a into %a engine scalar
      : memref<32x32xf32, #trn.space<sbuf>> into memref<32x32xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_tensor_scalar(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_tensor' op cannot run on the scalar engine; it runs on vector or gpsimd}}
  trn.tensor_tensor add %a, %a into %a engine scalar : memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_scalar_tensor(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_scalar' op cannot run on the tensor engine; it runs on vector, scalar or gpsimd}}
  trn.tensor_scalar %a, add(1.0) into %a engine tensor : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_copy_scalar(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_copy' op cannot run on the scalar engine, which has no tensor_copy on NeuronCore-v2; copy with 'trn.activation copy'}}
  trn.tensor_copy %a into %a engine scalar : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_copy_tensor(%a: memref<128x512xf32, #trn.space<sbuf>>, %p: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.tensor_copy' op cannot run on the tensor engine; it runs on vector or gpsimd}}
  trn.tensor_copy %a into %p engine tensor : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @memset_scalar(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op cannot run on the scalar engine; it runs on vector or gpsimd}}
  trn.memset 0.0 : f32 into %a engine scalar : memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @bitwise_on_gpsimd(%a: memref<128x512xi32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_scalar' op runs bitwise 'bitwise_and' on the gpsimd engine; only vector has bitwise operations}}
  trn.tensor_scalar %a, bitwise_and(1.0) into %a engine gpsimd
      : memref<128x512xi32, #trn.space<sbuf>> into memref<128x512xi32, #trn.space<sbuf>>
  return
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank(%st: memref<128x2x64xbf16, #trn.space<sbuf>>,
                       %mv: memref<128x512xbf16, #trn.space<sbuf>>, %acc: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'stationary' is 128x2x64; matmul operands are 2-d [partition, free]}}
  trn.matmul %st, %mv into %acc
      : memref<128x2x64xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @matmul_k(%st: memref<128x128xbf16, #trn.space<sbuf>>,
                    %mv: memref<64x512xbf16, #trn.space<sbuf>>, %acc: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op contracts 128 partitions of 'stationary' with 64 of 'moving'; both hold K on their partitions}}
  trn.matmul %st, %mv into %acc
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<64x512xbf16, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @matmul_stationary_free(%st: memref<128x256xbf16, #trn.space<sbuf>>,
                                  %mv: memref<128x512xbf16, #trn.space<sbuf>>,
                                  %acc: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'stationary' has free size 256; TensorE takes at most 128 stationary columns (M)}}
  trn.matmul %st, %mv into %acc
      : memref<128x256xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @matmul_moving_free(%st: memref<128x128xbf16, #trn.space<sbuf>>,
                              %mv: memref<128x1024xbf16, #trn.space<sbuf>>,
                              %acc: memref<128x1024xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'moving' has free size 1024; TensorE takes at most 512 moving columns (N)}}
  trn.matmul %st, %mv into %acc
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x1024xbf16, #trn.space<sbuf>>
        into memref<128x1024xf32, #trn.space<psum>>
  return
}

// -----

func.func @matmul_dst_shape(%st: memref<128x64xbf16, #trn.space<sbuf>>,
                            %mv: memref<128x512xbf16, #trn.space<sbuf>>, %acc: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'dst' is 128x512; the product of 128x64 (stationary) and 128x512 (moving) is 64x512}}
  trn.matmul %st, %mv into %acc
      : memref<128x64xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @matmul_input_type(%st: memref<128x128xi8, #trn.space<sbuf>>,
                             %mv: memref<128x512xbf16, #trn.space<sbuf>>, %acc: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'stationary' has element type 'i8'; TensorE multiplies f8E4M3FN, f8E5M2, bf16, f16, tf32 or f32}}
  trn.matmul %st, %mv into %acc
      : memref<128x128xi8, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @matmul_f32_pairing(%st: memref<128x128xf32, #trn.space<sbuf>>,
                              %mv: memref<128x512xbf16, #trn.space<sbuf>>, %acc: memref<128x512xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op multiplies 'f32' (stationary) by 'bf16' (moving); an f32 or tf32 input needs the other to be f32 or tf32 too}}
  trn.matmul %st, %mv into %acc
      : memref<128x128xf32, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<psum>>
  return
}

// -----

func.func @matmul_accumulator_type(%st: memref<128x128xbf16, #trn.space<sbuf>>,
                                   %mv: memref<128x512xbf16, #trn.space<sbuf>>,
                                   %acc: memref<128x512xbf16, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'dst' has element type 'bf16'; TensorE accumulates in f32 in psum}}
  trn.matmul %st, %mv into %acc
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xbf16, #trn.space<psum>>
  return
}

// -----

// Every other f32 column: 511 * 2 + 1 = 1023 elements, 4092 bytes.
func.func @matmul_bank_size(%st: memref<128x128xbf16, #trn.space<sbuf>>,
                            %mv: memref<128x512xbf16, #trn.space<sbuf>>,
                            %acc: memref<128x512xf32, strided<[2048, 2]>, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.matmul' op operand 'dst' takes 4092 bytes of each partition; a matmul output fits one psum bank of 2048 bytes}}
  trn.matmul %st, %mv into %acc
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, strided<[2048, 2]>, #trn.space<psum>>
  return
}

// -----

// 512 f32 from column 256: bytes [1024, 3072), across banks 0 and 1.
func.func @matmul_bank_crossing(%st: memref<128x128xbf16, #trn.space<sbuf>>,
                                %mv: memref<128x512xbf16, #trn.space<sbuf>>,
                                %big: memref<128x2048xf32, #trn.space<psum>>) {
  %acc = memref.subview %big[0, 256] [128, 512] [1, 1]
      : memref<128x2048xf32, #trn.space<psum>>
        to memref<128x512xf32, strided<[2048, 1], offset: 256>, #trn.space<psum>>
  // expected-error @+1 {{'trn.matmul' op operand 'dst' spans bytes [1024, 3072) of each partition, across a psum bank boundary; a matmul output fits one bank of 2048 bytes}}
  trn.matmul %st, %mv into %acc
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, strided<[2048, 1], offset: 256>, #trn.space<psum>>
  return
}

//===----------------------------------------------------------------------===//
// Transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_tensor_size(%a: memref<128x256xbf16, #trn.space<sbuf>>,
                                 %b: memref<256x128xbf16, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.transpose' op transposes 128x256 on the tensor engine, which transposes at most 128x128}}
  trn.transpose %a into %b engine tensor
      : memref<128x256xbf16, #trn.space<sbuf>> into memref<256x128xbf16, #trn.space<psum>>
  return
}

// -----

func.func @transpose_vector_size(%a: memref<64x32xf32, #trn.space<psum>>,
                                 %b: memref<32x64xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.transpose' op transposes 64x32 on the vector engine, which transposes at most 32x32}}
  trn.transpose %a into %b engine vector
      : memref<64x32xf32, #trn.space<psum>> into memref<32x64xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @transpose_shape(%a: memref<128x64xbf16, #trn.space<sbuf>>,
                           %b: memref<128x64xbf16, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.transpose' op operand 'dst' is 128x64; the transpose of 128x64 is 64x128}}
  trn.transpose %a into %b engine tensor
      : memref<128x64xbf16, #trn.space<sbuf>> into memref<128x64xbf16, #trn.space<psum>>
  return
}

// -----

func.func @transpose_type(%a: memref<128x64xbf16, #trn.space<sbuf>>,
                          %b: memref<64x128xf32, #trn.space<psum>>) {
  // expected-error @+1 {{'trn.transpose' op transposes 'bf16' into 'f32'; a transpose keeps the element type}}
  trn.transpose %a into %b engine tensor
      : memref<128x64xbf16, #trn.space<sbuf>> into memref<64x128xf32, #trn.space<psum>>
  return
}

// -----

func.func @transpose_rank(%a: memref<32x2x16xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.transpose' op operand 'src' is 32x2x16; a transpose is of a 2-d [partition, free] tile}}
  trn.transpose %a into %a engine vector
      : memref<32x2x16xf32, #trn.space<sbuf>> into memref<32x2x16xf32, #trn.space<sbuf>>
  return
}

//===----------------------------------------------------------------------===//
// Activation
//===----------------------------------------------------------------------===//

// -----

func.func @activation_lanes(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<64x1024xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op operand 'dst' has 64 partitions x 1024 elements, but operand 'src' has 128 x 512; engines move data only within a partition}}
  trn.activation exp %a into %b : memref<128x512xf32, #trn.space<psum>> into memref<64x1024xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @activation_bias_shape(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>, %bias: memref<128x4xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op operand 'bias' is 128x4; it holds one value per partition, [128, 1]}}
  trn.activation exp %a into %b bias %bias : memref<128x4xf32, #trn.space<sbuf>> : memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @activation_two_scales(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>, %s: memref<128x1xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op has both an immediate scale and 'scale_tile'; the scale is one or the other}}
  trn.activation exp %a into %b scale 2.0 scale_tile %s : memref<128x1xf32, #trn.space<sbuf>>
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @activation_scale_type(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>, %s: memref<128x1xbf16, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op operand 'scale_tile' has element type 'bf16'; it must be f32}}
  trn.activation exp %a into %b scale_tile %s : memref<128x1xbf16, #trn.space<sbuf>>
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @activation_reduce_max(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>, %r: memref<128x1xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op reduces with 'max'; ScalarE reduces only with add}}
  trn.activation exp %a into %b reduce max into %r : memref<128x1xf32, #trn.space<sbuf>>
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @activation_reduce_shape(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>, %r: memref<128x2xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op operand 'reduce_res' is 128x2; it holds one value per partition, [128, 1]}}
  trn.activation exp %a into %b reduce add into %r : memref<128x2xf32, #trn.space<sbuf>>
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @activation_reduce_without_result(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op has a reduction without 'reduce_res'; write 'reduce add into %r'}}
  "trn.activation"(%a, %b) <{func = 1 : i32, reduce_op = 0 : i32,
                             operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}>
      : (memref<128x512xf32, #trn.space<psum>>, memref<128x512xf32, #trn.space<sbuf>>) -> ()
  return
}

// -----

func.func @activation_result_without_reduce(%a: memref<128x512xf32, #trn.space<psum>>,
                                            %b: memref<128x512xf32, #trn.space<sbuf>>,
                                            %r: memref<128x1xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.activation' op has a reduction without an operation; write 'reduce add into %r'}}
  "trn.activation"(%a, %b, %r) <{func = 1 : i32,
                                 operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>}>
      : (memref<128x512xf32, #trn.space<psum>>, memref<128x512xf32, #trn.space<sbuf>>,
         memref<128x1xf32, #trn.space<sbuf>>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// tensor_tensor and tensor_scalar
//===----------------------------------------------------------------------===//

// -----

func.func @tensor_tensor_two_psum(%a: memref<128x512xf32, #trn.space<psum>>, %b: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_tensor' op reads both 'lhs' and 'rhs' from psum; at most one input of tensor_tensor is in psum}}
  trn.tensor_tensor add %a, %a into %b engine vector : memref<128x512xf32, #trn.space<psum>>, memref<128x512xf32, #trn.space<psum>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_tensor_lanes(%a: memref<128x512xf32, #trn.space<sbuf>>, %b: memref<128x256xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_tensor' op operand 'rhs' has 128 partitions x 256 elements, but operand 'lhs' has 128 x 512; engines move data only within a partition}}
  trn.tensor_tensor add %a, %b into %a engine vector
      : memref<128x512xf32, #trn.space<sbuf>>, memref<128x256xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_tensor_bitwise_float(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_tensor' op 'bitwise_xor' needs integer tiles, but 'lhs' has element type 'f32'}}
  trn.tensor_tensor bitwise_xor %a, %a into %a engine vector : memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_scalar_tile_shape(%a: memref<128x512xf32, #trn.space<sbuf>>, %t: memref<128x2xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_scalar' op operand 'scalar0' is 128x2; it holds one value per partition, [128, 1]}}
  trn.tensor_scalar %a, subtract(%t : memref<128x2xf32, #trn.space<sbuf>>) into %a engine vector
      : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_scalar_mixed(%a: memref<128x512xi32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_scalar' op combines 'bitwise_and' with 'add'; both operations are arithmetic or both are bitwise}}
  trn.tensor_scalar %a, bitwise_and(1.0) then add(1.0) into %a engine vector
      : memref<128x512xi32, #trn.space<sbuf>> into memref<128x512xi32, #trn.space<sbuf>>
  return
}

// -----

func.func @tensor_scalar_two_scalars(%a: memref<128x512xf32, #trn.space<sbuf>>, %t: memref<128x1xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_scalar' op gives op0 both an immediate and a tile}}
  "trn.tensor_scalar"(%a, %t, %a) <{op0 = 0 : i32, scalar0 = 1.0 : f32, engine = 1 : i32,
                                    operandSegmentSizes = array<i32: 1, 1, 0, 1>}>
      : (memref<128x512xf32, #trn.space<sbuf>>, memref<128x1xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<sbuf>>) -> ()
  return
}

// -----

func.func @tensor_scalar_no_scalar(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_scalar' op gives op0 no scalar}}
  "trn.tensor_scalar"(%a, %a) <{op0 = 0 : i32, engine = 1 : i32,
                                operandSegmentSizes = array<i32: 1, 0, 0, 1>}>
      : (memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<sbuf>>) -> ()
  return
}

// -----

func.func @tensor_scalar_stray_scalar(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_scalar' op has a second scalar but no second operation}}
  "trn.tensor_scalar"(%a, %a) <{op0 = 0 : i32, scalar0 = 1.0 : f32, scalar1 = 2.0 : f32,
                                engine = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 1>}>
      : (memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<sbuf>>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// tensor_reduce
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_op(%a: memref<128x512xf32, #trn.space<sbuf>>, %r: memref<128x1xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_reduce' op 'subtract' is not a reduction; tensor_reduce takes add, multiply, max or min}}
  trn.tensor_reduce subtract %a into %r axes [1] : memref<128x512xf32, #trn.space<sbuf>> into memref<128x1xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @reduce_no_axes(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_reduce' op reduces no axes}}
  trn.tensor_reduce add %a into %a axes [] : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @reduce_partition(%a: memref<128x512xf32, #trn.space<sbuf>>, %r: memref<1x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_reduce' op reduces axis 0, the partition dim; tensor_reduce reduces free dims only}}
  trn.tensor_reduce add %a into %r axes [0] : memref<128x512xf32, #trn.space<sbuf>> into memref<1x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @reduce_not_trailing(%a: memref<128x4x128xf32, #trn.space<sbuf>>,
                               %r: memref<128x1x128xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_reduce' op reduces axes [1] of a 3-d tile; the axes are the trailing free dims in order, such as [2]}}
  trn.tensor_reduce add %a into %r axes [1]
      : memref<128x4x128xf32, #trn.space<sbuf>> into memref<128x1x128xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @reduce_dst_shape(%a: memref<128x512xf32, #trn.space<sbuf>>, %r: memref<128x2xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_reduce' op operand 'dst' is 128x2; reducing the trailing 1 dims of 128x512 gives 128x1 (or 128 without them)}}
  trn.tensor_reduce max %a into %r axes [1] : memref<128x512xf32, #trn.space<sbuf>> into memref<128x2xf32, #trn.space<sbuf>>
  return
}

//===----------------------------------------------------------------------===//
// memset, iota, affine_select, dma_copy
//===----------------------------------------------------------------------===//

// -----

func.func @memset_type(%a: memref<128x512xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.memset' op fills operand 'dst' of 'f32' with a value of type 'f16'}}
  trn.memset 0.0 : f16 into %a engine vector : memref<128x512xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @iota_dims(%a: memref<128x32xi32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.iota' op has a 5-d pattern; patterns have at most 4 dims}}
  trn.iota [[1, 2], [1, 2], [1, 2], [1, 2], [1, 2]] offset 0 channel_multiplier 0 into %a
      : memref<128x32xi32, #trn.space<sbuf>>
  return
}

// -----

func.func @iota_cover(%a: memref<128x512xi32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.iota' op has a pattern that covers 256 elements per partition, but operand 'dst' has 512}}
  trn.iota [[1, 256]] offset 0 channel_multiplier 0 into %a : memref<128x512xi32, #trn.space<sbuf>>
  return
}

// -----

func.func @iota_count(%a: memref<128x512xi32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.iota' op has a pattern dim of 0 elements; counts are positive}}
  trn.iota [[1, 0], [1, 512]] offset 0 channel_multiplier 0 into %a : memref<128x512xi32, #trn.space<sbuf>>
  return
}

// -----

func.func @iota_odd(%a: memref<128x512xi32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.iota' op has a pattern of 3 numbers; a pattern is a list of [step, count] pairs}}
  "trn.iota"(%a) <{pattern = array<i64: 1, 512, 4>, offset = 0 : i64, channel_multiplier = 0 : i64}>
      : (memref<128x512xi32, #trn.space<sbuf>>) -> ()
  return
}

// -----

func.func @affine_select_cmp(%a: memref<128x128xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.affine_select' op 'add' is not a comparison; affine_select compares with is_equal, not_equal, is_gt, is_ge, is_lt or is_le}}
  trn.affine_select add [[-1, 128]] offset 0 channel_multiplier 1, %a else 0.0 into %a
      : memref<128x128xf32, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @affine_select_psum(%a: memref<128x128xf32, #trn.space<psum>>,
                              %b: memref<128x128xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.affine_select' op operand 'on_true' is in psum, which the gpsimd engine cannot read; it reads only sbuf}}
  trn.affine_select is_ge [[-1, 128]] offset 0 channel_multiplier 1, %a else 0.0 into %b
      : memref<128x128xf32, #trn.space<psum>> into memref<128x128xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @affine_select_cover(%a: memref<128x128xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.affine_select' op has a pattern that covers 64 elements per partition, but operand 'dst' has 128}}
  trn.affine_select is_ge [[-1, 64]] offset 0 channel_multiplier 1, %a else 0.0 into %a
      : memref<128x128xf32, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @dma_count(%h: memref<128x1024xbf16, #trn.space<hbm>>, %s: memref<128x512xbf16, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.dma_copy' op copies 131072 elements of 'src' into 65536 elements of 'dst'; the counts must match}}
  trn.dma_copy %h to %s : memref<128x1024xbf16, #trn.space<hbm>> to memref<128x512xbf16, #trn.space<sbuf>>
  return
}

// -----

func.func @dma_partitions(%h: memref<256x512xbf16, #trn.space<hbm>>, %s: memref<256x512xbf16, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.dma_copy' op operand 'dst' spans 256 partitions (dim 0); sbuf has 128}}
  trn.dma_copy %h to %s : memref<256x512xbf16, #trn.space<hbm>> to memref<256x512xbf16, #trn.space<sbuf>>
  return
}

// -----

func.func @index_elements(%a: memref<128x4xindex, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_copy' op operand #0 must be statically shaped memref of integer or floating-point values}}
  trn.tensor_copy %a into %a engine vector
      : memref<128x4xindex, #trn.space<sbuf>> into memref<128x4xindex, #trn.space<sbuf>>
  return
}

// -----

// Sizes whose byte count does not fit in int64 saturate instead of wrapping.
func.func @alloc_huge() {
  // expected-error @+1 {{'trn.alloc' op needs 9223372036854775807 bytes in each of 128 partitions (9223372036854775807 bytes in all); sbuf has 196608 bytes per partition}}
  %a = trn.alloc : memref<128x4611686018427387904x4xf32, #trn.space<sbuf>>
  return
}

// -----

func.func @reduce_no_free_dims(%a: memref<128xf32, #trn.space<sbuf>>) {
  // expected-error @+1 {{'trn.tensor_reduce' op operand 'src' is 128, partitions only; it has no free dims to reduce}}
  trn.tensor_reduce add %a into %a axes [1]
      : memref<128xf32, #trn.space<sbuf>> into memref<128xf32, #trn.space<sbuf>>
  return
}
