// The staged CPU GEMM of axe-cpu-bench (bench/CPUCodegenBench.cpp) with its
// on-chip layouts left to axe-infer-layouts (`?`): 128 x 128 tiles of C per
// CTA, K in 128-deep slices copied into shared tiles, the accumulator in
// shared memory. The epilogue goes through register tiles spread over the
// CTA's threads (also `?`): C = 2 A B, and each tile's row sums. A second
// kernel stages all of K at once and reads it in 128-deep slices, whose
// proposed panels are lifted to the whole tiles: D = A B. Run for the host's
// vector unit and for 256-bit vectors (other panels), every element checked
// against a reference computed here.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu=vector-bits=256 | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The layouts chosen are the gemm's (gemmPanelLayoutA/B: for 256-bit
// vectors A k-major, since no block height up to the registers' divides 128
// well, and B in 16-column panels), which the copies pack into:
// RUN: axe-opt %s --axe-infer-layouts="target=cpu vector-bits=256" | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (1, 128)]>, shared>
// LAYOUT: axe.alloc : !axe.buffer<128x128xf32, #axe.layout<S[(128, 8, 16) : (16, 2048, 1)]>, shared>
// LAYOUT: axe.gemm {{.*}} {schedule = {cpu = "cpu.gemm.panels"}}

// CHECK: C mismatches: 0
// CHECK-NEXT: row-sum mismatches: 0
// CHECK-NEXT: D mismatches: 0
// CHECK-NEXT: C[5][6] = 6120

!gA = !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (256, 1)]>, global>
!gR = !axe.buffer<128x1xf32, #axe.layout<S[(128, 1) : (2, 1)]>, global>
!s = !axe.buffer<128x128xf32, ?, shared>
!r = !axe.buffer<128x128xf32, ?, reg>
!rows = !axe.buffer<128x1xf32, ?, shared>
!gAk = !axe.buffer<128x256xf32, #axe.layout<S[(128, 256) : (256, 1)]>, global>
!gBk = !axe.buffer<256x128xf32, #axe.layout<S[(256, 128) : (256, 1)]>, global>
!sAk = !axe.buffer<128x256xf32, ?, shared>
!sBk = !axe.buffer<256x128xf32, ?, shared>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<256x256xf32>, %B: memref<256x256xf32>,
                    %C: memref<256x256xf32>, %R: memref<256x2xf32>) {
    %c0 = arith.constant 0 : index
    %ct = arith.constant 128 : index
    %cn = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [2, 2] threads 128 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %ct : index
      %n0 = arith.muli %by, %ct : index
      %sA = axe.alloc : !s
      %sB = axe.alloc : !s
      %acc = axe.alloc : !s
      axe.fill %acc, %zero at cta : !s
      scf.for %k = %c0 to %cn step %ct {
        %gA = axe.view %A[%m0, %k] : memref<256x256xf32> -> !gA
        %gB = axe.view %B[%k, %n0] : memref<256x256xf32> -> !gA
        axe.copy %gA to %sA at cta : !gA to !s
        axe.copy %gB to %sB at cta : !gA to !s
        axe.gemm %sA, %sB into %acc at cta : !s, !s into !s
      }
      %r = axe.alloc : !r
      axe.copy %acc to %r at cta : !s to !r
      %r2 = axe.alloc : !r
      axe.elementwise ins(%r : !r) outs(%r2 : !r) at cta {
      ^bb0(%v: f32):
        %d = arith.addf %v, %v : f32
        axe.yield %d : f32
      }
      %gC = axe.view %C[%m0, %n0] : memref<256x256xf32> -> !gA
      axe.copy %r2 to %gC at cta : !r to !gA
      %rows = axe.alloc : !rows
      axe.reduce sum %r2 into %rows dims [1] at cta : !r into !rows
      %gR = axe.view %R[%m0, %by] : memref<256x2xf32> -> !gR
      axe.copy %rows to %gR at cta : !rows to !gR
    }
    return
  }

  func.func @sliced(%A: memref<256x256xf32>, %B: memref<256x256xf32>,
                    %D: memref<256x256xf32>) {
    %c0 = arith.constant 0 : index
    %ct = arith.constant 128 : index
    %cn = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [2, 2] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %ct : index
      %n0 = arith.muli %by, %ct : index
      %gA = axe.view %A[%m0, 0] : memref<256x256xf32> -> !gAk
      %gB = axe.view %B[0, %n0] : memref<256x256xf32> -> !gBk
      %sA = axe.alloc : !sAk
      %sB = axe.alloc : !sBk
      axe.copy %gA to %sA at cta : !gAk to !sAk
      axe.copy %gB to %sB at cta : !gBk to !sBk
      %acc = axe.alloc : !s
      axe.fill %acc, %zero at cta : !s
      scf.for %k = %c0 to %cn step %ct {
        %a = axe.slice %sA[0, %k] : !sAk -> !s
        %b = axe.slice %sB[%k, 0] : !sBk -> !s
        axe.gemm %a, %b into %acc at cta : !s, !s into !s
      }
      %gD = axe.view %D[%m0, %n0] : memref<256x256xf32> -> !gA
      axe.copy %acc to %gD at cta : !s to !gA
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %A = memref.alloc() : memref<256x256xf32>
    %B = memref.alloc() : memref<256x256xf32>
    %C = memref.alloc() : memref<256x256xf32>
    %R = memref.alloc() : memref<256x2xf32>
    %D = memref.alloc() : memref<256x256xf32>
    // A[i][k] = (i + k) % 5, B[k][j] = (7k + j) % 7: small integers, so
    // every sum is exact in f32.
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %s = arith.addi %i, %j : index
        %a = arith.remui %s, %c5 : index
        %p = arith.muli %i, %c7 : index
        %q = arith.addi %p, %j : index
        %b = arith.remui %q, %c7 : index
        %ai = arith.index_cast %a : index to i64
        %bi = arith.index_cast %b : index to i64
        %af = arith.sitofp %ai : i64 to f32
        %bf = arith.sitofp %bi : i64 to f32
        memref.store %af, %A[%i, %j] : memref<256x256xf32>
        memref.store %bf, %B[%i, %j] : memref<256x256xf32>
      }
    }
    call @kernel(%A, %B, %C, %R) : (memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>, memref<256x2xf32>) -> ()
    call @sliced(%A, %B, %D) : (memref<256x256xf32>, memref<256x256xf32>, memref<256x256xf32>) -> ()
    // C against 2 A B, D against A B; each half row's sum against R.
    %bad:3 = scf.for %i = %c0 to %c256 step %c1 iter_args(%n = %zi, %nr = %zi, %nd = %zi) -> (i64, i64, i64) {
      %half:3 = scf.for %h = %c0 to %c2 step %c1 iter_args(%n1 = %n, %nr1 = %nr, %nd1 = %nd) -> (i64, i64, i64) {
        %j0 = arith.muli %h, %c128 : index
        %j1 = arith.addi %j0, %c128 : index
        %res:3 = scf.for %j = %j0 to %j1 step %c1 iter_args(%n2 = %n1, %rs = %zf, %nd2 = %nd1) -> (i64, f32, i64) {
          %dot = scf.for %k = %c0 to %c256 step %c1 iter_args(%s = %zf) -> (f32) {
            %a = memref.load %A[%i, %k] : memref<256x256xf32>
            %b = memref.load %B[%k, %j] : memref<256x256xf32>
            %p = arith.mulf %a, %b : f32
            %s2 = arith.addf %s, %p : f32
            scf.yield %s2 : f32
          }
          %want = arith.addf %dot, %dot : f32
          %got = memref.load %C[%i, %j] : memref<256x256xf32>
          %ne = arith.cmpf une, %got, %want : f32
          %inc = arith.select %ne, %one, %zi : i64
          %n3 = arith.addi %n2, %inc : i64
          %rs2 = arith.addf %rs, %want : f32
          %gotd = memref.load %D[%i, %j] : memref<256x256xf32>
          %ned = arith.cmpf une, %gotd, %dot : f32
          %incd = arith.select %ned, %one, %zi : i64
          %nd3 = arith.addi %nd2, %incd : i64
          scf.yield %n3, %rs2, %nd3 : i64, f32, i64
        }
        %gotr = memref.load %R[%i, %h] : memref<256x2xf32>
        %ner = arith.cmpf une, %gotr, %res#1 : f32
        %incr = arith.select %ner, %one, %zi : i64
        %nr2 = arith.addi %nr1, %incr : i64
        scf.yield %res#0, %nr2, %res#2 : i64, i64, i64
      }
      scf.yield %half#0, %half#1, %half#2 : i64, i64, i64
    }
    vector.print str "C mismatches: "
    vector.print %bad#0 : i64
    vector.print str "row-sum mismatches: "
    vector.print %bad#1 : i64
    vector.print str "D mismatches: "
    vector.print %bad#2 : i64
    %v = memref.load %C[%c5, %c6] : memref<256x256xf32>
    vector.print str "C[5][6] = "
    vector.print %v : f32
    memref.dealloc %A : memref<256x256xf32>
    memref.dealloc %B : memref<256x256xf32>
    memref.dealloc %C : memref<256x256xf32>
    memref.dealloc %R : memref<256x2xf32>
    memref.dealloc %D : memref<256x256xf32>
    return
  }
}
