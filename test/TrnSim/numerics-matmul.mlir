// RUN: axe-trn-sim %s --kernel=tiled --check-matmul --report=%t.json | FileCheck %s --check-prefix=TILED
// RUN: FileCheck %s --check-prefix=TIMING < %t.json
// RUN: axe-trn-sim %s --kernel=tiled --timing-only --trace=%t.trace.json
// RUN: FileCheck %s --check-prefix=TRACE < %t.trace.json
// RUN: axe-trn-sim %s --kernel=tiled --check-matmul --seed=7 | FileCheck %s --check-prefix=TILED
// RUN: not axe-trn-sim %s --kernel=restart --check-matmul | FileCheck %s --check-prefix=RESTART
// RUN: axe-trn-sim %s --kernel=f32 --check-matmul | FileCheck %s --check-prefix=F32
// RUN: not axe-trn-sim %s --kernel=f32 --check-matmul --check-lhs=mk | FileCheck %s --check-prefix=MK

// The NKI "tiled" matmul (examples/trn/nki/tiled.mlir) at a small shape:
// K = 512, M = 256, N = 1024, bf16 in and out, fp32 accumulation in PSUM.
// Every element is compared with a host reference computed in double from
// the same bf16 inputs; the bf16 output is off by its rounding at most.
// TILED: kernel tiled: 56 instructions
// TILED: check-matmul: 262144 elements, max_abs_err={{.*}}: PASS
// The Chrome trace: a named track per engine and DMA queue, one complete
// ("X") event per instruction, in microseconds. The first matmul starts
// when its two loads are visible. Under the calibrated defaults they take
// two queues (two dma_copy ops) and share the 16 DMA engines: the lhsT
// load (256 B rows, 8 per engine) holds each engine 8 x 73.85 + 2048 / 27.2
// = 666.094 ns (its queue takes 8 x 150.2 = 1201.6); the rhs load (1 KiB
// rows) then holds it 8 x 73.85 + 8192 / 27.2 = 891.976 ns, to 1558.071,
// after its queue's 1201.6; visible 1300 ns later, at 2858.071.
// TRACE: {"displayTimeUnit":"ns","traceEvents":[
// TRACE-SAME: {"args":{"name":"dma q0"},"name":"thread_name","ph":"M","pid":0,"tid":0}
// TRACE-SAME: {"args":{"name":"tensor"},"name":"thread_name","ph":"M","pid":0,"tid":2}
// TRACE-SAME: {"dur":0.18285714{{[0-9]*}},"name":"matmul start","ph":"X","pid":0,"tid":2,"ts":2.85807058{{[0-9]*}}}
// 16 matmuls of 512 cycles at 2.8 GHz.
// TIMING: "tensor": {
// TIMING-NEXT: "busy_ns": 2925.71428571
func.func @tiled(%lhsT: memref<512x256xbf16, #trn.space<hbm>>,
                 %rhs: memref<512x1024xbf16, #trn.space<hbm>>,
                 %result: memref<256x1024xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  scf.for %m = %c0 to %c2 step %c1 {
    %m0 = arith.muli %m, %c128 : index
    scf.for %n = %c0 to %c2 step %c1 {
      %n0 = arith.muli %n, %c512 : index
      %res_psum = trn.alloc {trn_sim.buffers = 2} : memref<128x512xf32, #trn.space<psum>>
      scf.for %k = %c0 to %c4 step %c1 {
        %k0 = arith.muli %k, %c128 : index
        %lhsT_tile = trn.alloc {trn_sim.buffers = 2} : memref<128x128xbf16, #trn.space<sbuf>>
        %rhs_tile = trn.alloc {trn_sim.buffers = 2} : memref<128x512xbf16, #trn.space<sbuf>>
        %a = memref.subview %lhsT[%k0, %m0] [128, 128] [1, 1]
            : memref<512x256xbf16, #trn.space<hbm>>
              to memref<128x128xbf16, strided<[256, 1], offset: ?>, #trn.space<hbm>>
        %b = memref.subview %rhs[%k0, %n0] [128, 512] [1, 1]
            : memref<512x1024xbf16, #trn.space<hbm>>
              to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
        trn.dma_copy %a to %lhsT_tile
            : memref<128x128xbf16, strided<[256, 1], offset: ?>, #trn.space<hbm>>
              to memref<128x128xbf16, #trn.space<sbuf>>
        trn.dma_copy %b to %rhs_tile
            : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
              to memref<128x512xbf16, #trn.space<sbuf>>
        %first = arith.cmpi eq, %k, %c0 : index
        scf.if %first {
          trn.matmul %lhsT_tile, %rhs_tile into %res_psum start
              : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
                into memref<128x512xf32, #trn.space<psum>>
        } else {
          trn.matmul %lhsT_tile, %rhs_tile into %res_psum
              : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
                into memref<128x512xf32, #trn.space<psum>>
        }
      }
      %res_sb = trn.alloc {trn_sim.buffers = 2} : memref<128x512xbf16, #trn.space<sbuf>>
      trn.tensor_copy %res_psum into %res_sb engine vector
          : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
      %c = memref.subview %result[%m0, %n0] [128, 512] [1, 1]
          : memref<256x1024xbf16, #trn.space<hbm>>
            to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
      trn.dma_copy %res_sb to %c
          : memref<128x512xbf16, #trn.space<sbuf>>
            to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #trn.space<hbm>>
    }
  }
  return
}

// `start` overwrites the accumulator: marking every K step as the start of
// a group keeps only the last product, and the check says so.
// RESTART: check-matmul: 65536 elements, {{.*}}: FAIL ({{[0-9]+}} elements off)
func.func @restart(%lhsT: memref<256x128xbf16, #trn.space<hbm>>,
                   %rhs: memref<256x512xbf16, #trn.space<hbm>>,
                   %result: memref<128x512xbf16, #trn.space<hbm>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %acc = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  scf.for %k = %c0 to %c2 step %c1 {
    %k0 = arith.muli %k, %c128 : index
    %a = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
    %b = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
    %va = memref.subview %lhsT[%k0, 0] [128, 128] [1, 1]
        : memref<256x128xbf16, #trn.space<hbm>> to memref<128x128xbf16, strided<[128, 1], offset: ?>, #trn.space<hbm>>
    %vb = memref.subview %rhs[%k0, 0] [128, 512] [1, 1]
        : memref<256x512xbf16, #trn.space<hbm>> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>>
    trn.dma_copy %va to %a
        : memref<128x128xbf16, strided<[128, 1], offset: ?>, #trn.space<hbm>> to memref<128x128xbf16, #trn.space<sbuf>>
    trn.dma_copy %vb to %b
        : memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>> to memref<128x512xbf16, #trn.space<sbuf>>
    trn.matmul %a, %b into %acc start
        : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
          into memref<128x512xf32, #trn.space<psum>>
  }
  %o = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  trn.tensor_copy %acc into %o engine vector
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
  trn.dma_copy %o to %result
      : memref<128x512xbf16, #trn.space<sbuf>> to memref<128x512xbf16, #trn.space<hbm>>
  return
}

// fp32 in and out: the output is checked to 1e-5 relative. Read as [M, K]
// (--check-lhs=mk) the same data is a different product and fails.
// F32: check-matmul: 4096 elements, {{.*}}: PASS
// MK: check-matmul: 4096 elements, {{.*}}: FAIL
func.func @f32(%lhsT: memref<64x64xf32, #trn.space<hbm>>,
               %rhs: memref<64x64xf32, #trn.space<hbm>>,
               %result: memref<64x64xf32, #trn.space<hbm>>) {
  %a = trn.alloc : memref<64x64xf32, #trn.space<sbuf>>
  %b = trn.alloc : memref<64x64xf32, #trn.space<sbuf>>
  trn.dma_copy %lhsT to %a : memref<64x64xf32, #trn.space<hbm>> to memref<64x64xf32, #trn.space<sbuf>>
  trn.dma_copy %rhs to %b : memref<64x64xf32, #trn.space<hbm>> to memref<64x64xf32, #trn.space<sbuf>>
  %acc = trn.alloc : memref<64x64xf32, #trn.space<psum>>
  trn.matmul %a, %b into %acc start stop
      : memref<64x64xf32, #trn.space<sbuf>>, memref<64x64xf32, #trn.space<sbuf>>
        into memref<64x64xf32, #trn.space<psum>>
  %o = trn.alloc : memref<64x64xf32, #trn.space<sbuf>>
  trn.tensor_copy %acc into %o engine vector
      : memref<64x64xf32, #trn.space<psum>> into memref<64x64xf32, #trn.space<sbuf>>
  trn.dma_copy %o to %result : memref<64x64xf32, #trn.space<sbuf>> to memref<64x64xf32, #trn.space<hbm>>
  return
}
