// An epilogue chain with every on-chip layout `?` (INFERENCE cases 3 and
// 5): the mma.sync accumulator, a bias row broadcast over the rows, relu, a
// cast to f16 and the store. axe-infer-layouts carries the accumulator's
// fragment layout through the three elementwise operators to the f16 tile,
// and gives the bias row the fragment's columns, replicated over the lanes
// and warps that hold the rows, so every thread adds a bias it holds and
// nothing is converted; run in the interpreter with races checked, every
// element compared.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=LAYOUTS
// RUN: axe-opt %s -axe-infer-layouts=print-analysis-only 2>&1 \
// RUN:   | FileCheck %s --check-prefix=WHY

// CHECK: epilogue mismatches: 0

// LAYOUTS-LABEL: func.func @epilogue
// LAYOUTS: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<[[ACC:S\[\(4, 2, 2, 8, 2, 4, 4, 2\) : \(2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1\)\]]]>, reg>
// LAYOUTS: axe.alloc : !axe.buffer<1x64xf32, #axe.layout<S[(2, 4, 4, 2) : (1@warpid, 2, 1@laneid, 1)] + R[(8, 4) : (4@laneid, 2@warpid)]>, reg>
// LAYOUTS-COUNT-2: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<[[ACC]]>, reg>
// LAYOUTS: axe.alloc : !axe.buffer<128x64xf16, #axe.layout<[[ACC]]>, reg>
// LAYOUTS-NOT: axe.alloc
// LAYOUTS: axe.gemm {{.*}} {schedule = {sm_80 = "mma.sync"}, zero_init}
// LAYOUTS-COUNT-3: axe.elementwise
// LAYOUTS: axe.copy

// WHY: remark: axe-infer-layouts would infer 7 layout(s) and insert 0 conversion(s)

!gA = !axe.buffer<128x16xf16, #axe.layout<S[(128, 16) : (16, 1)]>, global>
!gB = !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global>
!gBias = !axe.buffer<1x64xf32, #axe.layout<S[(1, 64) : (64, 1)]>, global>
!row = !axe.buffer<1x64xf32, ?, reg>
!gD = !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (64, 1)]>, global>
!sA = !axe.buffer<128x16xf16, ?, shared>
!sB = !axe.buffer<16x64xf16, ?, shared>
!acc = !axe.buffer<128x64xf32, ?, reg>
!half = !axe.buffer<128x64xf16, ?, reg>

module attributes {axe.target = #axe.target<"sm_80">} {
  // D = f16(relu(A x B + bias)) over 8 warps, bias[n] added to every row.
  func.func @epilogue(%A: memref<128x16xf16>, %B: memref<16x64xf16>,
                      %Bias: memref<1x64xf32>, %D: memref<128x64xf16>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 256 {
      %sA = axe.alloc : !sA
      %sB = axe.alloc : !sB
      %acc = axe.alloc : !acc
      %bias = axe.alloc : !row
      %sum = axe.alloc : !acc
      %act = axe.alloc : !acc
      %out = axe.alloc : !half
      %gA = axe.view %A[0, 0] : memref<128x16xf16> -> !gA
      %gB = axe.view %B[0, 0] : memref<16x64xf16> -> !gB
      %gBias = axe.view %Bias[0, 0] : memref<1x64xf32> -> !gBias
      %gD = axe.view %D[0, 0] : memref<128x64xf16> -> !gD
      axe.copy %gA to %sA at cta : !gA to !sA
      axe.copy %gB to %sB at cta : !gB to !sB
      axe.barrier at cta
      axe.gemm %sA, %sB into %acc at cta {zero_init} : !sA, !sB into !acc
      axe.copy %gBias to %bias at cta : !gBias to !row
      axe.elementwise ins(%acc, %bias : !acc, !row) outs(%sum : !acc) at cta {
      ^bb0(%x: f32, %b: f32):
        %y = arith.addf %x, %b : f32
        axe.yield %y : f32
      }
      axe.elementwise ins(%sum : !acc) outs(%act : !acc) at cta {
      ^bb0(%x: f32):
        %z = arith.constant 0.0 : f32
        %y = arith.maximumf %x, %z : f32
        axe.yield %y : f32
      }
      axe.elementwise ins(%act : !acc) outs(%out : !half) at cta {
      ^bb0(%x: f32):
        %y = arith.truncf %x : f32 to f16
        axe.yield %y : f16
      }
      axe.copy %out to %gD at cta : !half to !gD
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %onef = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f16
    %three = arith.constant 3.0 : f16
    %A = memref.alloc() : memref<128x16xf16>
    %B = memref.alloc() : memref<16x64xf16>
    %Bias = memref.alloc() : memref<1x64xf32>
    %D = memref.alloc() : memref<128x64xf16>
    // A[i][k] = (i + 2k) mod 5 - 2, B[k][n] = (3n + k) mod 7 - 3,
    // bias[n] = n mod 3 - 1: every value exact in f16.
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remui %u, %c5 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f16
        %v = arith.subf %rf, %two : f16
        memref.store %v, %A[%i, %k] : memref<128x16xf16>
      }
    }
    scf.for %n = %c0 to %c64 step %c1 {
      %r = arith.remui %n, %c3 : index
      %ri = arith.index_cast %r : index to i64
      %rf = arith.sitofp %ri : i64 to f32
      %v = arith.subf %rf, %onef : f32
      memref.store %v, %Bias[%c0, %n] : memref<1x64xf32>
    }
    scf.for %k = %c0 to %c16 step %c1 {
      scf.for %n = %c0 to %c64 step %c1 {
        %t = arith.muli %n, %c3 : index
        %u = arith.addi %t, %k : index
        %r = arith.remui %u, %c7 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f16
        %v = arith.subf %rf, %three : f16
        memref.store %v, %B[%k, %n] : memref<16x64xf16>
      }
    }
    func.call @epilogue(%A, %B, %Bias, %D)
        : (memref<128x16xf16>, memref<16x64xf16>, memref<1x64xf32>, memref<128x64xf16>) -> ()
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%nb = %zi) -> (i64) {
      %row = scf.for %n = %c0 to %c64 step %c1 iter_args(%m = %nb) -> (i64) {
        %b0 = memref.load %Bias[%c0, %n] : memref<1x64xf32>
        %dot = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %b0) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<128x16xf16>
          %b = memref.load %B[%k, %n] : memref<16x64xf16>
          %a32 = arith.extf %a : f16 to f32
          %b32 = arith.extf %b : f16 to f32
          %p = arith.mulf %a32, %b32 : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %relu = arith.maximumf %dot, %zf : f32
        %got = memref.load %D[%i, %n] : memref<128x64xf16>
        %got32 = arith.extf %got : f16 to f32
        %ne = arith.cmpf une, %got32, %relu : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "epilogue mismatches: "
    vector.print %bad : i64
    memref.dealloc %A : memref<128x16xf16>
    memref.dealloc %B : memref<16x64xf16>
    memref.dealloc %Bias : memref<1x64xf32>
    memref.dealloc %D : memref<128x64xf16>
    return
  }
}
