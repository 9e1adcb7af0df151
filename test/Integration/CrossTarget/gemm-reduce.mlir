// A 16x32 by 32x8 product accumulated 8 columns at a time from slices at
// run-time starts (a loop over k), into an mma.sync m16n8k8 accumulator
// fragment held by the kernel's one warp; then reductions of the result over rows (doubled by an elementwise op) and
// over columns. Every
// element is checked against a reference computed here.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// With the fill folded into the loop's first gemm (zero_init, first
// iteration peeled): the CPU's schedules read C, so axe-dispatch fills it
// with zeros right before that gemm.
// RUN: axe-opt %s --axe-zero-init-accumulators | FileCheck %s --check-prefix=FOLD
// RUN: axe-opt %s --axe-zero-init-accumulators --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// FOLD-NOT: axe.fill
// FOLD: axe.gemm {{.*}} {zero_init}
// FOLD: scf.for
// FOLD: axe.gemm
// FOLD-NOT: zero_init
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

!gA = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (32, 1)]>, global>
!gB = !axe.buffer<32x8xf32, #axe.layout<S[(32, 8) : (8, 1)]>, global>
!gC = !axe.buffer<16x8xf32, #axe.layout<S[(16, 8) : (8, 1)]>, global>
!sA = !axe.buffer<16x32xf32, #axe.layout<SW(2, 2, 3) o S[(16, 32) : (32, 1)]>, shared>
!sAk = !axe.buffer<16x8xf32, #axe.layout<SW(2, 2, 3) o S[(16, 8) : (32, 1)]>, shared>
// B kept column-major in shared memory (a transposed layout).
!sB = !axe.buffer<32x8xf32, #axe.layout<S[(32, 8) : (1, 32)]>, shared>
!sBk = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (1, 32)]>, shared>
// The m16n8k8 f32 accumulator: row = 8 h + lane / 4, col = 2 (lane % 4) + i.
!frag = !axe.buffer<16x8xf32, #axe.layout<S[(2, 8, 4, 2) : (2, 4@laneid, 1@laneid, 1)]>, reg>
!rows = !axe.buffer<16x1xf32, #axe.layout<S[16 : 1]>, shared>
!gRows = !axe.buffer<16x1xf32, #axe.layout<S[16 : 1]>, global>
!cols = !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<16x32xf32>, %B: memref<32x8xf32>, %C: memref<16x8xf32>,
                    %R: memref<16x1xf32>, %M: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<16x32xf32> -> !gA
      %b = axe.view %B[0, 0] : memref<32x8xf32> -> !gB
      %sa = axe.alloc : !sA
      %sb = axe.alloc : !sB
      axe.copy %a to %sa at cta : !gA to !sA
      axe.copy %b to %sb at cta : !gB to !sB
      %acc = axe.alloc : !frag
      axe.fill %acc, %zero at warp : !frag
      scf.for %k = %c0 to %c32 step %c8 {
        %ak = axe.slice %sa[0, %k] : !sA -> !sAk
        %bk = axe.slice %sb[%k, 0] : !sB -> !sBk
        axe.gemm %ak, %bk into %acc at warp : !sAk, !sBk into !frag
      }
      %c = axe.view %C[0, 0] : memref<16x8xf32> -> !gC
      axe.copy %acc to %c at warp : !frag to !gC
      %rows = axe.alloc : !rows
      axe.reduce sum %acc into %rows dims [1] at warp : !frag into !rows
      %r = axe.view %R[0, 0] : memref<16x1xf32> -> !gRows
      axe.elementwise ins(%rows : !rows) outs(%r : !gRows) at cta {
      ^bb0(%v: f32):
        %two = arith.constant 2.0 : f32
        %d = arith.mulf %v, %two : f32
        axe.yield %d : f32
      }
      %m = axe.view %M[0] : memref<8xf32> -> !cols
      axe.reduce max %acc into %m dims [0] at warp : !frag into !cols
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %ninf = arith.constant -1.0e30 : f32
    %A = memref.alloc() : memref<16x32xf32>
    %B = memref.alloc() : memref<32x8xf32>
    %C = memref.alloc() : memref<16x8xf32>
    %R = memref.alloc() : memref<16x1xf32>
    %M = memref.alloc() : memref<8xf32>
    // A[i][k] = (i + 3k) % 7 - 3, B[k][j] = (5k + j) % 8 - 4: small integers,
    // so every sum is exact in f32.
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %k = %c0 to %c32 step %c1 {
        %t = arith.muli %k, %c3 : index
        %u = arith.addi %i, %t : index
        %w = arith.remui %u, %c7 : index
        %x = arith.index_cast %w : index to i64
        %y = arith.sitofp %x : i64 to f32
        %f3 = arith.constant 3.0 : f32
        %v = arith.subf %y, %f3 : f32
        memref.store %v, %A[%i, %k] : memref<16x32xf32>
      }
    }
    scf.for %k = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %t = arith.muli %k, %c5 : index
        %u = arith.addi %t, %j : index
        %w = arith.remui %u, %c8 : index
        %x = arith.index_cast %w : index to i64
        %y = arith.sitofp %x : i64 to f32
        %f4 = arith.constant 4.0 : f32
        %v = arith.subf %y, %f4 : f32
        memref.store %v, %B[%k, %j] : memref<32x8xf32>
      }
    }
    call @kernel(%A, %B, %C, %R, %M) : (memref<16x32xf32>, memref<32x8xf32>, memref<16x8xf32>, memref<16x1xf32>, memref<8xf32>) -> ()
    // Reference product, row sums and column maxima.
    %bad:3 = scf.for %i = %c0 to %c16 step %c1 iter_args(%n = %zi, %nr = %zi, %nm = %zi) -> (i64, i64, i64) {
      %res:3 = scf.for %j = %c0 to %c8 step %c1 iter_args(%n1 = %n, %rs = %zf, %unused = %zi) -> (i64, f32, i64) {
        %dot = scf.for %k = %c0 to %c32 step %c1 iter_args(%s = %zf) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<16x32xf32>
          %b = memref.load %B[%k, %j] : memref<32x8xf32>
          %p = arith.mulf %a, %b : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %j] : memref<16x8xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %n2 = arith.addi %n1, %inc : i64
        %rs2 = arith.addf %rs, %dot : f32
        scf.yield %n2, %rs2, %zi : i64, f32, i64
      }
      %gr = memref.load %R[%i, %c0] : memref<16x1xf32>
      %f2 = arith.constant 2.0 : f32
      %want2 = arith.mulf %res#1, %f2 : f32
      %ner = arith.cmpf une, %gr, %want2 : f32
      %incr = arith.select %ner, %one, %zi : i64
      %nr2 = arith.addi %nr, %incr : i64
      scf.yield %res#0, %nr2, %nm : i64, i64, i64
    }
    %badm = scf.for %j = %c0 to %c8 step %c1 iter_args(%n = %zi) -> (i64) {
      %mx = scf.for %i = %c0 to %c16 step %c1 iter_args(%m = %ninf) -> (f32) {
        %v = memref.load %C[%i, %j] : memref<16x8xf32>
        %m2 = arith.maximumf %m, %v : f32
        scf.yield %m2 : f32
      }
      %g = memref.load %M[%j] : memref<8xf32>
      %ne = arith.cmpf une, %g, %mx : f32
      %inc = arith.select %ne, %one, %zi : i64
      %n2 = arith.addi %n, %inc : i64
      scf.yield %n2 : i64
    }
    // CHECK: gemm mismatches: 0
    vector.print str "gemm mismatches: "
    vector.print %bad#0 : i64
    // CHECK-NEXT: row-sum mismatches: 0
    vector.print str "row-sum mismatches: "
    vector.print %bad#1 : i64
    // CHECK-NEXT: col-max mismatches: 0
    vector.print str "col-max mismatches: "
    vector.print %badm : i64
    %v = memref.load %C[%c3, %c5] : memref<16x8xf32>
    // CHECK-NEXT: C[3][5] = -1
    vector.print str "C[3][5] = "
    vector.print %v : f32
    memref.dealloc %A : memref<16x32xf32>
    memref.dealloc %B : memref<32x8xf32>
    memref.dealloc %C : memref<16x8xf32>
    memref.dealloc %R : memref<16x1xf32>
    memref.dealloc %M : memref<8xf32>
    return
  }
}
