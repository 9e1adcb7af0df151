// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s --axe-to-trn | axe-trn-sim --timing-only | FileCheck %s --check-prefix=SIM
// SIM: kernel flash_attention_trn1_trn: {{[0-9]+}} instructions

// Flash attention forward on trn1, written in axe: one head,
// o = softmax(q^T k / sqrt(d)) v for seq 4096 and d 128, q and k stored
// [d, seq] and v and o [seq, d] in HBM (the layouts of NKI's flash_fwd in
// nki-samples reference/attention.py).
// Per 128-row q tile, over 512-column KV tiles, with the online softmax:
//
//   s  = (q tile) x (k tile)               TensorE: d on the partitions (P)
//   mt = rowmax(s); mn = max(m, mt)         VectorE
//   p  = exp(s - mn) (bf16); ls = rowsum(p) ScalarE, VectorE
//   a  = exp(m - mn); l = a l + ls          ScalarE, VectorE
//   pt = p with kv on P                     a layout change: TensorE transposes
//   o  = a o + pt x (v tile)                VectorE, TensorE: kv on P
//
// and o / l at the end. Every step is an axe operator on layouts over P, F
// and Bank; nothing says which instruction runs it: axe-to-trn chooses.
// examples/trn/flash_attention.py writes the same algorithm at any size and
// in NKI flash_fwd's loop order; test/Conversion/AxeToTrn/attention.test
// checks it element by element.

// HBM views. q tile as [d, 128 q] (the product takes it transposed); k
// tile as [d, 512 kv]; v tile as [128 kv, d] (4 per KV tile); o tile as
// [128 q, d].
#hQ = #axe.layout<S[(128, 128) : (4096, 1)]>
#hK = #axe.layout<S[(128, 512) : (4096, 1)]>
#hV = #axe.layout<S[(128, 128) : (128, 1)]>
#hO = #axe.layout<S[(128, 128) : (128, 1)]>
// SBUF: the q tile with d on the partitions (the stationary operand, q rows
// on the free dim); the k tile with d on the partitions.
#sQ = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
#sK = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
// Scores, probabilities, rescaled output: q rows on the partitions.
#pS = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
#rowP = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
#col = #axe.layout<S[(128, 1) : (1@P, 1@F)]>
#acc = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
// p transposed for the PV product, 128 kv rows at a time: kv on the
// partitions, q on the free dim; the v tile with kv on the partitions.
#pT = #axe.layout<S[(128, 128) : (1@F, 1@P)]>
#sV = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
#pO = #axe.layout<S[(128, 128) : (1@P, 1@F)]>

// CHECK-LABEL: func.func @flash_attention_trn1
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %{{.*}} at cta {transpose_a}
// CHECK: axe.reduce max %{{.*}} into %{{.*}} dims [1] at cta
// CHECK: axe.elementwise ins(
// CHECK: math.exp
// CHECK: axe.copy %{{.*}} to %{{.*}} at cta : !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, sbuf> to !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@F, 1@P)]>, sbuf>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @flash_attention_trn1(%q: memref<128x4096xbf16>, %k: memref<128x4096xbf16>,
                                  %v: memref<4096x128xbf16>, %o: memref<4096x128xbf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant -3.0e+38 : f32
    // 1 / sqrt(128).
    %scale = arith.constant 0.0883883461 : f32
    axe.kernel {
      %sq = axe.alloc : !axe.buffer<128x128xbf16, #sQ, sbuf>
      %sk = axe.alloc : !axe.buffer<128x512xbf16, #sK, sbuf>
      %sv = axe.alloc : !axe.buffer<128x128xbf16, #sV, sbuf>
      %s = axe.alloc : !axe.buffer<128x512xf32, #pS, psum>
      %p = axe.alloc : !axe.buffer<128x512xbf16, #rowP, sbuf>
      %p32 = axe.alloc : !axe.buffer<128x512xf32, #rowP, sbuf>
      %pt = axe.alloc : !axe.buffer<128x128xbf16, #pT, sbuf>
      %pv = axe.alloc : !axe.buffer<128x128xf32, #pO, psum>
      %m = axe.alloc : !axe.buffer<128x1xf32, #col, sbuf>
      %mt = axe.alloc : !axe.buffer<128x1xf32, #col, sbuf>
      %mn = axe.alloc : !axe.buffer<128x1xf32, #col, sbuf>
      %a = axe.alloc : !axe.buffer<128x1xf32, #col, sbuf>
      %l = axe.alloc : !axe.buffer<128x1xf32, #col, sbuf>
      %ls = axe.alloc : !axe.buffer<128x1xf32, #col, sbuf>
      %acc = axe.alloc : !axe.buffer<128x128xf32, #acc, sbuf>
      %out = axe.alloc : !axe.buffer<128x128xbf16, #acc, sbuf>
      scf.for %qi = %c0 to %c4096 step %c128 {
        %hq = axe.view %q[0, %qi] : memref<128x4096xbf16> -> !axe.buffer<128x128xbf16, #hQ, hbm>
        axe.copy %hq to %sq at cta
            : !axe.buffer<128x128xbf16, #hQ, hbm> to !axe.buffer<128x128xbf16, #sQ, sbuf>
        axe.fill %m, %ninf at cta : !axe.buffer<128x1xf32, #col, sbuf>
        axe.fill %l, %zero at cta : !axe.buffer<128x1xf32, #col, sbuf>
        axe.fill %acc, %zero at cta : !axe.buffer<128x128xf32, #acc, sbuf>
        scf.for %kv = %c0 to %c4096 step %c512 {
          %hk = axe.view %k[0, %kv] : memref<128x4096xbf16> -> !axe.buffer<128x512xbf16, #hK, hbm>
          axe.copy %hk to %sk at cta
              : !axe.buffer<128x512xbf16, #hK, hbm> to !axe.buffer<128x512xbf16, #sK, sbuf>
          axe.fill %s, %zero at cta : !axe.buffer<128x512xf32, #pS, psum>
          axe.gemm %sq, %sk into %s at cta {transpose_a}
              : !axe.buffer<128x128xbf16, #sQ, sbuf>, !axe.buffer<128x512xbf16, #sK, sbuf>
                into !axe.buffer<128x512xf32, #pS, psum>
          axe.reduce max %s into %mt dims [1] at cta
              : !axe.buffer<128x512xf32, #pS, psum> into !axe.buffer<128x1xf32, #col, sbuf>
          // mn = max(m, scale * mt); a = exp(m - mn).
          axe.elementwise ins(%m, %mt : !axe.buffer<128x1xf32, #col, sbuf>, !axe.buffer<128x1xf32, #col, sbuf>)
                          outs(%mn, %a : !axe.buffer<128x1xf32, #col, sbuf>, !axe.buffer<128x1xf32, #col, sbuf>) at cta {
          ^bb0(%mo: f32, %tile_max: f32):
            %scaled = arith.mulf %tile_max, %scale : f32
            %new = arith.maximumf %mo, %scaled : f32
            %diff = arith.subf %mo, %new : f32
            %alpha = math.exp %diff : f32
            axe.yield %new, %alpha : f32, f32
          }
          // p = exp(scale * s - mn): bf16 for the product, f32 for the row
          // sum (ScalarE's exp with its fp32 row reduction, fused).
          axe.elementwise ins(%s, %mn : !axe.buffer<128x512xf32, #pS, psum>, !axe.buffer<128x1xf32, #col, sbuf>)
                          outs(%p, %p32 : !axe.buffer<128x512xbf16, #rowP, sbuf>, !axe.buffer<128x512xf32, #rowP, sbuf>) at cta {
          ^bb0(%x: f32, %rowmax: f32):
            %sx = arith.mulf %x, %scale : f32
            %d = arith.subf %sx, %rowmax : f32
            %e = math.exp %d : f32
            %h = arith.truncf %e : f32 to bf16
            axe.yield %h, %e : bf16, f32
          }
          axe.reduce sum %p32 into %ls dims [1] at cta
              : !axe.buffer<128x512xf32, #rowP, sbuf> into !axe.buffer<128x1xf32, #col, sbuf>
          // l = a l + ls; m = mn.
          axe.elementwise ins(%l, %a, %ls, %mn : !axe.buffer<128x1xf32, #col, sbuf>, !axe.buffer<128x1xf32, #col, sbuf>,
                                                 !axe.buffer<128x1xf32, #col, sbuf>, !axe.buffer<128x1xf32, #col, sbuf>)
                          outs(%l, %m : !axe.buffer<128x1xf32, #col, sbuf>, !axe.buffer<128x1xf32, #col, sbuf>) at cta {
          ^bb0(%lo: f32, %alpha: f32, %sum: f32, %new: f32):
            %r = arith.mulf %lo, %alpha : f32
            %t = arith.addf %r, %sum : f32
            axe.yield %t, %new : f32, f32
          }
          // o = a o + p v, 128 kv rows at a time.
          axe.fill %pv, %zero at cta : !axe.buffer<128x128xf32, #pO, psum>
          scf.for %j = %c0 to %c4 step %c1 {
            %col0 = arith.muli %j, %c128 : index
            %pj = axe.slice %p[0, %col0] : !axe.buffer<128x512xbf16, #rowP, sbuf>
                -> !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, sbuf>
            axe.copy %pj to %pt at cta
                : !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, sbuf>
                  to !axe.buffer<128x128xbf16, #pT, sbuf>
            %row = arith.addi %kv, %col0 : index
            %hv = axe.view %v[%row, 0] : memref<4096x128xbf16> -> !axe.buffer<128x128xbf16, #hV, hbm>
            axe.copy %hv to %sv at cta
                : !axe.buffer<128x128xbf16, #hV, hbm> to !axe.buffer<128x128xbf16, #sV, sbuf>
            axe.gemm %pt, %sv into %pv at cta
                : !axe.buffer<128x128xbf16, #pT, sbuf>, !axe.buffer<128x128xbf16, #sV, sbuf>
                  into !axe.buffer<128x128xf32, #pO, psum>
          }
          axe.elementwise ins(%acc, %a, %pv : !axe.buffer<128x128xf32, #acc, sbuf>, !axe.buffer<128x1xf32, #col, sbuf>,
                                              !axe.buffer<128x128xf32, #pO, psum>)
                          outs(%acc : !axe.buffer<128x128xf32, #acc, sbuf>) at cta {
          ^bb0(%oo: f32, %alpha: f32, %prod: f32):
            %r = arith.mulf %oo, %alpha : f32
            %t = arith.addf %r, %prod : f32
            axe.yield %t : f32
          }
        }
        // o = acc / l, in bf16.
        axe.elementwise ins(%acc, %l : !axe.buffer<128x128xf32, #acc, sbuf>, !axe.buffer<128x1xf32, #col, sbuf>)
                        outs(%out : !axe.buffer<128x128xbf16, #acc, sbuf>) at cta {
        ^bb0(%x: f32, %sum: f32):
          %y = arith.divf %x, %sum : f32
          %h = arith.truncf %y : f32 to bf16
          axe.yield %h : bf16
        }
        %ho = axe.view %o[%qi, 0] : memref<4096x128xbf16> -> !axe.buffer<128x128xbf16, #hO, hbm>
        axe.copy %out to %ho at cta
            : !axe.buffer<128x128xbf16, #acc, sbuf> to !axe.buffer<128x128xbf16, #hO, hbm>
      }
    }
    return
  }
}
