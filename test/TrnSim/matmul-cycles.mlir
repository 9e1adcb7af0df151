// RUN: axe-trn-sim %s --kernel=bf16 --report=%t.bf16.json | FileCheck %s --check-prefix=SUM
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.json
// RUN: axe-trn-sim %s --kernel=fp32 --timing-only --report=%t.fp32.json
// RUN: FileCheck %s --check-prefix=FP32 < %t.fp32.json
// RUN: axe-trn-sim %s --kernel=short --timing-only --report=%t.short.json
// RUN: FileCheck %s --check-prefix=SHORT < %t.short.json
// RUN: axe-trn-sim %s --kernel=group --timing-only --report=%t.group.json
// RUN: FileCheck %s --check-prefix=GROUP < %t.group.json

// TensorE's matmul cost, max(min(64, N_stationary), N_moving) cycles at
// 2.8 GHz (nki.isa cost formulas), and its result 64 cycles (tensor_latency) later.

// 128x128 stationary, 512 moving: 512 cycles = 182.857 ns, done at
// 182.857 + 22.857 = 205.714 ns. HFU: 2*128*128*512 FLOPs in 205.714 ns
// over 91750.4 FLOP/ns = 0.8889.
// SUM: kernel bf16: 1 instructions, total 205.7 ns, hfu 0.8889
// BF16: "tensor": {
// BF16-NEXT: "busy_ns": 182.857142857
// BF16-NEXT: "utilization": 0.888888
// BF16: "total_ns": 205.714285714
func.func @bf16() {
  %st = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  %mv = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %acc = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  trn.matmul %st, %mv into %acc start stop
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  return
}

// fp32 inputs take 4x: 2048 cycles = 731.429 ns.
// FP32: "tensor": {
// FP32-NEXT: "busy_ns": 731.428571428
func.func @fp32() {
  %st = trn.alloc : memref<128x128xf32, #trn.space<sbuf>>
  %mv = trn.alloc : memref<128x512xf32, #trn.space<sbuf>>
  %acc = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  trn.matmul %st, %mv into %acc start stop
      : memref<128x128xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<sbuf>>
        into memref<128x512xf32, #trn.space<psum>>
  return
}

// A 32-column stationary and a 48-column moving tile: max(min(64, 32), 48)
// = 48 cycles = 17.143 ns; a 16-column moving tile with a 128-column
// stationary: max(64, 16) = 64 cycles = 22.857 ns. Together 40 ns.
// SHORT: "tensor": {
// SHORT-NEXT: "busy_ns": 40,
func.func @short() {
  %st = trn.alloc : memref<128x32xbf16, #trn.space<sbuf>>
  %mv = trn.alloc : memref<128x48xbf16, #trn.space<sbuf>>
  %acc = trn.alloc : memref<32x48xf32, #trn.space<psum>>
  trn.matmul %st, %mv into %acc start stop
      : memref<128x32xbf16, #trn.space<sbuf>>, memref<128x48xbf16, #trn.space<sbuf>>
        into memref<32x48xf32, #trn.space<psum>>
  %st2 = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  %mv2 = trn.alloc : memref<128x16xbf16, #trn.space<sbuf>>
  %acc2 = trn.alloc : memref<128x16xf32, #trn.space<psum>>
  trn.matmul %st2, %mv2 into %acc2 start stop
      : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x16xbf16, #trn.space<sbuf>>
        into memref<128x16xf32, #trn.space<psum>>
  return
}

// An accumulation group of 4 runs back to back into one PSUM bank (PSUM
// accumulates near memory): 4 x 182.857 ns, plus the latency of the last.
// GROUP: "tensor": {
// GROUP-NEXT: "busy_ns": 731.428571428
// GROUP: "tensor": {}
// GROUP: "total_ns": 754.285714285
func.func @group() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %st = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
  %mv = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  %acc = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  scf.for %k = %c0 to %c4 step %c1 {
    trn.matmul %st, %mv into %acc
        : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
          into memref<128x512xf32, #trn.space<psum>>
  }
  return
}
