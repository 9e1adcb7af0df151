// RUN: axe-opt %s | axe-opt | FileCheck %s --check-prefix=PARSE
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s

// flash_attention_trn1.mlir with only its HBM views written: every SBUF
// and PSUM layout is `?`, chosen by axe-infer-layouts from the trn
// schedules' proposals. The two TensorE products anchor the tiles they
// read (d, then kv, on the partitions) and their PSUM results (q rows on
// the partitions); the softmax's elementwise operators and reductions
// follow the scores (q rows on the partitions, the [P, 1] columns too), and
// p, written with q on the partitions, reaches the PV product's kv-on-
// partitions operand through a TensorE transpose, as in the hand-written
// kernel. test/Conversion/AxeToTrn/infer-kernels.test compares the two
// lowered and simulated.

#hQ = #axe.layout<S[(128, 128) : (4096, 1)]>
#hK = #axe.layout<S[(128, 512) : (4096, 1)]>
#hV = #axe.layout<S[(128, 128) : (128, 1)]>
#hO = #axe.layout<S[(128, 128) : (128, 1)]>

// PARSE: axe.alloc : !axe.buffer<128x128xbf16, ?, sbuf>
// CHECK-LABEL: func.func @flash_attention_trn1
// CHECK: %[[SQ:.*]] = axe.alloc : !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, sbuf>
// CHECK: %[[SK:.*]] = axe.alloc : !axe.buffer<128x512xbf16, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, sbuf>
// CHECK: %[[SV:.*]] = axe.alloc : !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, sbuf>
// CHECK: %[[S:.*]] = axe.alloc : !axe.buffer<128x512xf32, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, psum>
// CHECK: %[[P:.*]] = axe.alloc : !axe.buffer<128x512xbf16, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, sbuf>
// CHECK: %[[P32:.*]] = axe.alloc : !axe.buffer<128x512xf32, #axe.layout<S[(128, 512) : (1@P, 1@F)]>, sbuf>
// CHECK: %[[PT:.*]] = axe.alloc : !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@F, 1@P)]>, sbuf>
// CHECK: %[[PV:.*]] = axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, psum>
// CHECK-COUNT-6: axe.alloc : !axe.buffer<128x1xf32, #axe.layout<S[128 : 1@P]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, sbuf>
// CHECK: axe.alloc : !axe.buffer<128x128xbf16, #axe.layout<S[(128, 128) : (1@P, 1@F)]>, sbuf>
// CHECK-NOT: ?,
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
      %sq = axe.alloc : !axe.buffer<128x128xbf16, ?, sbuf>
      %sk = axe.alloc : !axe.buffer<128x512xbf16, ?, sbuf>
      %sv = axe.alloc : !axe.buffer<128x128xbf16, ?, sbuf>
      %s = axe.alloc : !axe.buffer<128x512xf32, ?, psum>
      %p = axe.alloc : !axe.buffer<128x512xbf16, ?, sbuf>
      %p32 = axe.alloc : !axe.buffer<128x512xf32, ?, sbuf>
      %pt = axe.alloc : !axe.buffer<128x128xbf16, ?, sbuf>
      %pv = axe.alloc : !axe.buffer<128x128xf32, ?, psum>
      %m = axe.alloc : !axe.buffer<128x1xf32, ?, sbuf>
      %mt = axe.alloc : !axe.buffer<128x1xf32, ?, sbuf>
      %mn = axe.alloc : !axe.buffer<128x1xf32, ?, sbuf>
      %a = axe.alloc : !axe.buffer<128x1xf32, ?, sbuf>
      %l = axe.alloc : !axe.buffer<128x1xf32, ?, sbuf>
      %ls = axe.alloc : !axe.buffer<128x1xf32, ?, sbuf>
      %acc = axe.alloc : !axe.buffer<128x128xf32, ?, sbuf>
      %out = axe.alloc : !axe.buffer<128x128xbf16, ?, sbuf>
      scf.for %qi = %c0 to %c4096 step %c128 {
        %hq = axe.view %q[0, %qi] : memref<128x4096xbf16> -> !axe.buffer<128x128xbf16, #hQ, hbm>
        axe.copy %hq to %sq at cta
            : !axe.buffer<128x128xbf16, #hQ, hbm> to !axe.buffer<128x128xbf16, ?, sbuf>
        axe.fill %m, %ninf at cta : !axe.buffer<128x1xf32, ?, sbuf>
        axe.fill %l, %zero at cta : !axe.buffer<128x1xf32, ?, sbuf>
        axe.fill %acc, %zero at cta : !axe.buffer<128x128xf32, ?, sbuf>
        scf.for %kv = %c0 to %c4096 step %c512 {
          %hk = axe.view %k[0, %kv] : memref<128x4096xbf16> -> !axe.buffer<128x512xbf16, #hK, hbm>
          axe.copy %hk to %sk at cta
              : !axe.buffer<128x512xbf16, #hK, hbm> to !axe.buffer<128x512xbf16, ?, sbuf>
          axe.fill %s, %zero at cta : !axe.buffer<128x512xf32, ?, psum>
          axe.gemm %sq, %sk into %s at cta {transpose_a}
              : !axe.buffer<128x128xbf16, ?, sbuf>, !axe.buffer<128x512xbf16, ?, sbuf>
                into !axe.buffer<128x512xf32, ?, psum>
          axe.reduce max %s into %mt dims [1] at cta
              : !axe.buffer<128x512xf32, ?, psum> into !axe.buffer<128x1xf32, ?, sbuf>
          // mn = max(m, scale * mt); a = exp(m - mn).
          axe.elementwise ins(%m, %mt : !axe.buffer<128x1xf32, ?, sbuf>, !axe.buffer<128x1xf32, ?, sbuf>)
                          outs(%mn, %a : !axe.buffer<128x1xf32, ?, sbuf>, !axe.buffer<128x1xf32, ?, sbuf>) at cta {
          ^bb0(%mo: f32, %tile_max: f32):
            %scaled = arith.mulf %tile_max, %scale : f32
            %new = arith.maximumf %mo, %scaled : f32
            %diff = arith.subf %mo, %new : f32
            %alpha = math.exp %diff : f32
            axe.yield %new, %alpha : f32, f32
          }
          // p = exp(scale * s - mn): bf16 for the product, f32 for the row
          // sum (ScalarE's exp with its fp32 row reduction, fused).
          axe.elementwise ins(%s, %mn : !axe.buffer<128x512xf32, ?, psum>, !axe.buffer<128x1xf32, ?, sbuf>)
                          outs(%p, %p32 : !axe.buffer<128x512xbf16, ?, sbuf>, !axe.buffer<128x512xf32, ?, sbuf>) at cta {
          ^bb0(%x: f32, %rowmax: f32):
            %sx = arith.mulf %x, %scale : f32
            %d = arith.subf %sx, %rowmax : f32
            %e = math.exp %d : f32
            %h = arith.truncf %e : f32 to bf16
            axe.yield %h, %e : bf16, f32
          }
          axe.reduce sum %p32 into %ls dims [1] at cta
              : !axe.buffer<128x512xf32, ?, sbuf> into !axe.buffer<128x1xf32, ?, sbuf>
          // l = a l + ls; m = mn.
          axe.elementwise ins(%l, %a, %ls, %mn : !axe.buffer<128x1xf32, ?, sbuf>, !axe.buffer<128x1xf32, ?, sbuf>,
                                                 !axe.buffer<128x1xf32, ?, sbuf>, !axe.buffer<128x1xf32, ?, sbuf>)
                          outs(%l, %m : !axe.buffer<128x1xf32, ?, sbuf>, !axe.buffer<128x1xf32, ?, sbuf>) at cta {
          ^bb0(%lo: f32, %alpha: f32, %sum: f32, %new: f32):
            %r = arith.mulf %lo, %alpha : f32
            %t = arith.addf %r, %sum : f32
            axe.yield %t, %new : f32, f32
          }
          // o = a o + p v, 128 kv rows at a time.
          axe.fill %pv, %zero at cta : !axe.buffer<128x128xf32, ?, psum>
          scf.for %j = %c0 to %c4 step %c1 {
            %col0 = arith.muli %j, %c128 : index
            %pj = axe.slice %p[0, %col0] : !axe.buffer<128x512xbf16, ?, sbuf>
                -> !axe.buffer<128x128xbf16, ?, sbuf>
            axe.copy %pj to %pt at cta
                : !axe.buffer<128x128xbf16, ?, sbuf>
                  to !axe.buffer<128x128xbf16, ?, sbuf>
            %row = arith.addi %kv, %col0 : index
            %hv = axe.view %v[%row, 0] : memref<4096x128xbf16> -> !axe.buffer<128x128xbf16, #hV, hbm>
            axe.copy %hv to %sv at cta
                : !axe.buffer<128x128xbf16, #hV, hbm> to !axe.buffer<128x128xbf16, ?, sbuf>
            axe.gemm %pt, %sv into %pv at cta
                : !axe.buffer<128x128xbf16, ?, sbuf>, !axe.buffer<128x128xbf16, ?, sbuf>
                  into !axe.buffer<128x128xf32, ?, psum>
          }
          axe.elementwise ins(%acc, %a, %pv : !axe.buffer<128x128xf32, ?, sbuf>, !axe.buffer<128x1xf32, ?, sbuf>,
                                              !axe.buffer<128x128xf32, ?, psum>)
                          outs(%acc : !axe.buffer<128x128xf32, ?, sbuf>) at cta {
          ^bb0(%oo: f32, %alpha: f32, %prod: f32):
            %r = arith.mulf %oo, %alpha : f32
            %t = arith.addf %r, %prod : f32
            axe.yield %t : f32
          }
        }
        // o = acc / l, in bf16.
        axe.elementwise ins(%acc, %l : !axe.buffer<128x128xf32, ?, sbuf>, !axe.buffer<128x1xf32, ?, sbuf>)
                        outs(%out : !axe.buffer<128x128xbf16, ?, sbuf>) at cta {
        ^bb0(%x: f32, %sum: f32):
          %y = arith.divf %x, %sum : f32
          %h = arith.truncf %y : f32 to bf16
          axe.yield %h : bf16
        }
        %ho = axe.view %o[%qi, 0] : memref<4096x128xbf16> -> !axe.buffer<128x128xbf16, #hO, hbm>
        axe.copy %out to %ho at cta
            : !axe.buffer<128x128xbf16, ?, sbuf> to !axe.buffer<128x128xbf16, #hO, hbm>
      }
    }
    return
  }
}
