// RUN: axe-opt %s -split-input-file -verify-diagnostics --axe-to-trn

// Every refusal of the trn schedules and of convert-axe-to-trn names what
// did not fit. When no schedule takes an op, dispatch lists each
// candidate's reason.

#h = #axe.layout<S[(128, 128) : (128, 1)]>
#p = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @dma_into_psum(%A: memref<128x128xf32>) {
    axe.kernel {
      %p = axe.alloc : !axe.buffer<128x128xf32, #p, psum>
      %h = axe.view %A[0, 0] : memref<128x128xf32> -> !axe.buffer<128x128xf32, #h, hbm>
      // expected-error @+4 {{no schedule for axe.copy on target trn1}}
      // expected-note @+3 {{schedule 'dma' (priority 20) declined: DMA does not reach psum: copy through sbuf}}
      // expected-note @+2 {{schedule 'engine-copy' (priority 10) declined: VectorE copies within sbuf and psum}}
      // expected-note @+1 {{schedule 'tensore-transpose' (priority 5) declined: TensorE transposes from sbuf into psum (or on into sbuf)}}
      axe.copy %h to %p at cta : !axe.buffer<128x128xf32, #h, hbm> to !axe.buffer<128x128xf32, #p, psum>
    }
    return
  }
}

// -----

#s = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
#sT = #axe.layout<S[(128, 128) : (1@F, 1@P)]>
#p = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_k_on_free() {
    axe.kernel {
      %a = axe.alloc : !axe.buffer<128x128xbf16, #sT, sbuf>
      %b = axe.alloc : !axe.buffer<128x128xbf16, #sT, sbuf>
      %c = axe.alloc : !axe.buffer<128x128xf32, #p, psum>
      // expected-error @+2 {{no schedule for axe.gemm on target trn1}}
      // expected-note @+1 {{declined: K must be on the partitions of both A and B: A [128@F (dim 0), 128@P (dim 2)], B [128@P (dim 1), 128@F (dim 2)]}}
      axe.gemm %a, %b into %c at cta : !axe.buffer<128x128xbf16, #sT, sbuf>, !axe.buffer<128x128xbf16, #sT, sbuf> into !axe.buffer<128x128xf32, #p, psum>
    }
    return
  }
}

// -----

#s = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
#sT = #axe.layout<S[(128, 128) : (1@F, 1@P)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @gemm_into_sbuf() {
    axe.kernel {
      %a = axe.alloc : !axe.buffer<128x128xbf16, #sT, sbuf>
      %b = axe.alloc : !axe.buffer<128x128xbf16, #s, sbuf>
      %c = axe.alloc : !axe.buffer<128x128xf32, #s, sbuf>
      // expected-error @+2 {{no schedule for axe.gemm on target trn1}}
      // expected-note @+1 {{declined: TensorE reads A and B from sbuf and accumulates C in psum}}
      axe.gemm %a, %b into %c at cta : !axe.buffer<128x128xbf16, #sT, sbuf>, !axe.buffer<128x128xbf16, #s, sbuf> into !axe.buffer<128x128xf32, #s, sbuf>
    }
    return
  }
}

// -----

#s = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @no_instruction() {
    axe.kernel {
      %x = axe.alloc : !axe.buffer<128x512xf32, #s, sbuf>
      %y = axe.alloc : !axe.buffer<128x512xf32, #s, sbuf>
      // expected-error @+2 {{no schedule for axe.elementwise on target trn1}}
      // expected-note @+1 {{declined: 'math.sin' in the body has no VectorE or ScalarE instruction}}
      axe.elementwise ins(%x : !axe.buffer<128x512xf32, #s, sbuf>) outs(%y : !axe.buffer<128x512xf32, #s, sbuf>) at cta {
      ^bb0(%v: f32):
        %r = math.sin %v : f32
        axe.yield %r : f32
      }
    }
    return
  }
}

// -----

#s = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @runtime_scalar(%scale: f32) {
    axe.kernel {
      %x = axe.alloc : !axe.buffer<128x512xf32, #s, sbuf>
      %y = axe.alloc : !axe.buffer<128x512xf32, #s, sbuf>
      // expected-error @+2 {{no schedule for axe.elementwise on target trn1}}
      // expected-note @+1 {{declined: the body uses a value from outside that is not a float constant; engine scalars are immediates or tiles}}
      axe.elementwise ins(%x : !axe.buffer<128x512xf32, #s, sbuf>) outs(%y : !axe.buffer<128x512xf32, #s, sbuf>) at cta {
      ^bb0(%v: f32):
        %r = arith.mulf %v, %scale : f32
        axe.yield %r : f32
      }
    }
    return
  }
}

// -----

#s = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
#c = #axe.layout<S[(128, 1) : (1@P, 1@F)]>
#r = #axe.layout<S[(1, 512) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @reduce_partitions() {
    axe.kernel {
      %x = axe.alloc : !axe.buffer<128x512xf32, #s, sbuf>
      %y = axe.alloc : !axe.buffer<1x512xf32, #r, sbuf>
      // expected-error @+3 {{no schedule for axe.reduce on target trn1}}
      // expected-note @+2 {{schedule 'fused-into-activation' (priority 20) declined: no activation before it computed this sum}}
      // expected-note @+1 {{declined: the operands' partitions are different iters: [128@P (dim 0), 512@F (dim 1)] against [512@F (dim 1)]}}
      axe.reduce max %x into %y dims [0] at cta : !axe.buffer<128x512xf32, #s, sbuf> into !axe.buffer<1x512xf32, #r, sbuf>
    }
    return
  }
}

// -----

#h = #axe.layout<S[(128, 128) : (128, 1)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @fill_hbm(%A: memref<128x128xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel {
      %h = axe.view %A[0, 0] : memref<128x128xf32> -> !axe.buffer<128x128xf32, #h, hbm>
      // expected-error @+3 {{no schedule for axe.fill on target trn1}}
      // expected-note @+2 {{schedule 'matmul-start' (priority 20) declined: the next op is not a gemm into this buffer, or the value is not 0}}
      // expected-note @+1 {{schedule 'memset' (priority 10) declined: hbm is written by DMA: fill an sbuf tile and copy it}}
      axe.fill %h, %zero at cta : !axe.buffer<128x128xf32, #h, hbm>
    }
    return
  }
}

// -----

#s = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @fill_runtime(%v: f32) {
    axe.kernel {
      %t = axe.alloc : !axe.buffer<128x128xf32, #s, sbuf>
      // expected-error @+3 {{no schedule for axe.fill on target trn1}}
      // expected-note @+2 {{schedule 'matmul-start' (priority 20) declined: the next op is not a gemm into this buffer, or the value is not 0}}
      // expected-note @+1 {{schedule 'memset' (priority 10) declined: memset takes an immediate; the value is not a constant}}
      axe.fill %t, %v at cta : !axe.buffer<128x128xf32, #s, sbuf>
    }
    return
  }
}

// -----

#s = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
#sT = #axe.layout<S[(128, 128) : (1@F, 1@P)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @transpose_from_psum() {
    axe.kernel {
      %a = axe.alloc : !axe.buffer<128x128xf32, #s, psum>
      %b = axe.alloc : !axe.buffer<128x128xf32, #sT, sbuf>
      // expected-error @+4 {{no schedule for axe.copy on target trn1}}
      // expected-note @+3 {{schedule 'dma' (priority 20) declined: DMA moves between hbm and sbuf; this copy has neither in hbm}}
      // expected-note @+2 {{schedule 'engine-copy' (priority 10) declined: the operands' partitions are different iters: [128@P (dim 0), 128@F (dim 1)] against [128@F (dim 0), 128@P (dim 1)]; an engine keeps data in its partition}}
      // expected-note @+1 {{schedule 'tensore-transpose' (priority 5) declined: TensorE transposes from sbuf into psum (or on into sbuf)}}
      axe.copy %a to %b at cta : !axe.buffer<128x128xf32, #s, psum> to !axe.buffer<128x128xf32, #sT, sbuf>
    }
    return
  }
}

// -----

#h = #axe.layout<S[(128, 128) : (256, 1)]>
#s = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @runtime_index(%A: memref<128x256xf32>, %i: index) {
    // expected-error @+1 {{trn: the kernel uses a value of type 'index' from its function that is not a constant; a trn kernel takes memrefs (in hbm) and constants}}
    axe.kernel {
      %t = axe.alloc : !axe.buffer<128x128xf32, #s, sbuf>
      %h = axe.view %A[0, %i] : memref<128x256xf32> -> !axe.buffer<128x128xf32, #h, hbm>
      axe.copy %h to %t at cta : !axe.buffer<128x128xf32, #h, hbm> to !axe.buffer<128x128xf32, #s, sbuf>
    }
    return
  }
}

// -----

// A keeps K = 2 p + f, B keeps K = p + 128 f: no partition holds the same
// K indices in both.
#a = #axe.layout<S[(128, 2, 64) : (1@P, 64@F, 1@F)]>
#b = #axe.layout<S[(2, 128, 512) : (512@F, 1@P, 1@F)]>
#c = #axe.layout<S[(64, 512) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k_split_differently() {
    axe.kernel {
      %a = axe.alloc : !axe.buffer<256x64xf32, #a, sbuf>
      %b = axe.alloc : !axe.buffer<256x512xf32, #b, sbuf>
      %c = axe.alloc : !axe.buffer<64x512xf32, #c, psum>
      // expected-error @+2 {{no schedule for axe.gemm on target trn1}}
      // expected-note @+1 {{declined: A and B put K on the partitions differently}}
      axe.gemm %a, %b into %c at cta {transpose_a} : !axe.buffer<256x64xf32, #a, sbuf>, !axe.buffer<256x512xf32, #b, sbuf> into !axe.buffer<64x512xf32, #c, psum>
    }
    return
  }
}
