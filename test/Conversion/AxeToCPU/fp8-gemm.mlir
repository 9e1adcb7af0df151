// An fp8 (e4m3) gemm on the CPU target: the operands are widened to f32
// with integer code (LLVM has no fp8 types), every element of C checked.
// It used to leave arith.extf from f8E4M3FN and casts from i8 unlowered.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu | FileCheck %s --check-prefix=LOWERED
// CHECK-NOT: first mismatch
// CHECK: mismatches: 0
// LOWERED-NOT: unrealized_conversion_cast
// LOWERED-NOT: arith.


!gA = !axe.buffer<16x32xf8E4M3FN, #axe.layout<S[(16, 32) : (32, 1)]>, global>
!gB = !axe.buffer<16x32xf8E4M3FN, #axe.layout<S[(16, 32) : (32, 1)]>, global>
!gC = !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
!sA = !axe.buffer<16x32xf8E4M3FN, ?, shared>
!sB = !axe.buffer<16x32xf8E4M3FN, ?, shared>
!rC = !axe.buffer<16x16xf32, ?, reg>
!sC = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared>
!sC2 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, shared>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @k(%A: memref<16x32xf8E4M3FN>, %B: memref<16x32xf8E4M3FN>, %C: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %cBM = arith.constant 16 : index
    %cBN = arith.constant 16 : index
    %cBK = arith.constant 32 : index
    %cKT = arith.constant 32 : index
    axe.kernel grid [1, 1] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %cBM : index
      %n0 = arith.muli %by, %cBN : index
      %sa = axe.alloc : !sA
      %sb = axe.alloc : !sB
      %rc = axe.alloc : !rC
      %z = arith.constant 0.0 : f32
      axe.fill %rc, %z at warp : !rC
      scf.for %k = %c0 to %cKT step %cBK {
        %ga = axe.view %A[%m0, %k] : memref<16x32xf8E4M3FN> -> !gA
        %gb = axe.view %B[%n0, %k] : memref<16x32xf8E4M3FN> -> !gB
        axe.copy %ga to %sa at warp : !gA to !sA
        axe.copy %gb to %sb at warp : !gB to !sB
        axe.gemm %sa, %sb into %rc at warp {transpose_b} : !sA, !sB into !rC
      }
      %gc = axe.view %C[%m0, %n0] : memref<16x16xf32> -> !gC
      axe.copy %rc to %gc at warp : !rC to !gC
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
    %cM = arith.constant 16 : index
    %cN = arith.constant 16 : index
    %cK = arith.constant 32 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %twof = arith.constant 2.0 : f32
    %threef = arith.constant 3.0 : f32
    %onef = arith.constant 1.0 : f32
    %junk = arith.constant -7.0 : f32
    %cinitv = arith.constant false
    %biasf = arith.constant 0.0 : f32
    %A = memref.alloc() : memref<16x32xf8E4M3FN>
    %B = memref.alloc() : memref<16x32xf8E4M3FN>
    %C = memref.alloc() : memref<16x16xf32>
    %Am = memref.alloc() : memref<16x32xf32>
    %Bm = memref.alloc() : memref<16x32xf32>
    %lutA = memref.alloc() : memref<5xf8E4M3FN>
    %lA0 = arith.constant -2.0 : f8E4M3FN
    %lAi0 = arith.constant 0 : index
    memref.store %lA0, %lutA[%lAi0] : memref<5xf8E4M3FN>
    %lA1 = arith.constant -1.0 : f8E4M3FN
    %lAi1 = arith.constant 1 : index
    memref.store %lA1, %lutA[%lAi1] : memref<5xf8E4M3FN>
    %lA2 = arith.constant 0.0 : f8E4M3FN
    %lAi2 = arith.constant 2 : index
    memref.store %lA2, %lutA[%lAi2] : memref<5xf8E4M3FN>
    %lA3 = arith.constant 1.0 : f8E4M3FN
    %lAi3 = arith.constant 3 : index
    memref.store %lA3, %lutA[%lAi3] : memref<5xf8E4M3FN>
    %lA4 = arith.constant 2.0 : f8E4M3FN
    %lAi4 = arith.constant 4 : index
    memref.store %lA4, %lutA[%lAi4] : memref<5xf8E4M3FN>
    %lutB = memref.alloc() : memref<7xf8E4M3FN>
    %lB0 = arith.constant -3.0 : f8E4M3FN
    %lBi0 = arith.constant 0 : index
    memref.store %lB0, %lutB[%lBi0] : memref<7xf8E4M3FN>
    %lB1 = arith.constant -2.0 : f8E4M3FN
    %lBi1 = arith.constant 1 : index
    memref.store %lB1, %lutB[%lBi1] : memref<7xf8E4M3FN>
    %lB2 = arith.constant -1.0 : f8E4M3FN
    %lBi2 = arith.constant 2 : index
    memref.store %lB2, %lutB[%lBi2] : memref<7xf8E4M3FN>
    %lB3 = arith.constant 0.0 : f8E4M3FN
    %lBi3 = arith.constant 3 : index
    memref.store %lB3, %lutB[%lBi3] : memref<7xf8E4M3FN>
    %lB4 = arith.constant 1.0 : f8E4M3FN
    %lBi4 = arith.constant 4 : index
    memref.store %lB4, %lutB[%lBi4] : memref<7xf8E4M3FN>
    %lB5 = arith.constant 2.0 : f8E4M3FN
    %lBi5 = arith.constant 5 : index
    memref.store %lB5, %lutB[%lBi5] : memref<7xf8E4M3FN>
    %lB6 = arith.constant 3.0 : f8E4M3FN
    %lBi6 = arith.constant 6 : index
    memref.store %lB6, %lutB[%lBi6] : memref<7xf8E4M3FN>

    scf.for %kk = %c0 to %cK step %c1 {
      scf.for %i = %c0 to %cM step %c1 {
        %t = arith.muli %kk, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remui %u, %c5 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %v0 = arith.subf %rf, %twof : f32
        %ik = arith.addi %i, %kk : index
        %ik4 = arith.remui %ik, %c3 : index
        %ik4i = arith.index_cast %ik4 : index to i64
        %ik4f = arith.sitofp %ik4i : i64 to f32
        %epsv = arith.constant 0.0 : f32
        %ep = arith.mulf %ik4f, %epsv : f32
        %v = arith.addf %v0, %ep : f32
        %va = memref.load %lutA[%r] : memref<5xf8E4M3FN>
        memref.store %va, %A[%i, %kk] : memref<16x32xf8E4M3FN>
        memref.store %v, %Am[%i, %kk] : memref<16x32xf32>
      }
      scf.for %n = %c0 to %cN step %c1 {
        %t2 = arith.muli %n, %c3 : index
        %u2 = arith.addi %t2, %kk : index
        %r2 = arith.remui %u2, %c7 : index
        %ri2 = arith.index_cast %r2 : index to i64
        %rf2 = arith.sitofp %ri2 : i64 to f32
        %v2 = arith.subf %rf2, %threef : f32
        %vb = memref.load %lutB[%r2] : memref<7xf8E4M3FN>
        memref.store %vb, %B[%n, %kk] : memref<16x32xf8E4M3FN>
        memref.store %v2, %Bm[%n, %kk] : memref<16x32xf32>
      }
    }
    scf.for %i = %c0 to %cM step %c1 {
      scf.for %n = %c0 to %cN step %c1 {
        %s = arith.addi %i, %n : index
        %r = arith.remui %s, %c3 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %v = arith.subf %rf, %onef : f32
        %w = arith.select %cinitv, %v, %junk : f32
        %wc = arith.addf %w, %zf : f32
        memref.store %wc, %C[%i, %n] : memref<16x16xf32>
      }
    }
    func.call @k(%A, %B, %C) : (memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>, memref<16x16xf32>) -> ()
    %bad = scf.for %i = %c0 to %cM step %c1 iter_args(%nb = %zi) -> (i64) {
      %row = scf.for %n = %c0 to %cN step %c1 iter_args(%m = %nb) -> (i64) {
        %s = arith.addi %i, %n : index
        %r = arith.remui %s, %c3 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %v = arith.subf %rf, %onef : f32
        %c0v = arith.select %cinitv, %v, %zf : f32
        %init = arith.addf %c0v, %biasf : f32
        %dot = scf.for %kk = %c0 to %cK step %c1 iter_args(%acc = %init) -> (f32) {
          %a32 = memref.load %Am[%i, %kk] : memref<16x32xf32>
          %b32 = memref.load %Bm[%n, %kk] : memref<16x32xf32>
          %p = arith.mulf %a32, %b32 : f32
          %s2 = arith.addf %acc, %p : f32
          scf.yield %s2 : f32
        }
        %gotc = memref.load %C[%i, %n] : memref<16x16xf32>
        %got = arith.addf %gotc, %zf : f32
        %ne = arith.cmpf une, %got, %dot : f32
        scf.if %ne {
          %isfirst = arith.cmpi eq, %m, %zi : i64
          scf.if %isfirst {
            vector.print str "first mismatch at "
            vector.print %i : index
            vector.print %n : index
            vector.print %got : f32
            vector.print %dot : f32
          }
        }
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "mismatches: "
    vector.print %bad : i64
    return
  }
}
