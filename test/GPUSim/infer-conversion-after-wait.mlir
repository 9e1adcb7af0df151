// One TMA tile (256-byte rows, so row-major) read by wgmma as both A and
// B: axe-infer-layouts converts it once into the 128B swizzle atoms wgmma
// reads. The conversion reads the tile, so it must come after the axe.wait
// on the TMA copy's token (the interpreter reports a read of bytes a TMA
// load has not completed), whatever side of the buffer the pass converts.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=LAYOUTS

// CHECK: one tile mismatches: 0

// LAYOUTS: axe.copy_async
// LAYOUTS: axe.wait
// LAYOUTS: axe.copy %{{.*}} to %{{.*}} at warpgroup : !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, shared> to !axe.buffer<64x128xf16, #axe.layout<SW(3, 3, 3) o S[(64, 2, 64) : (64, 4096, 1)]>, shared>
// LAYOUTS: axe.gemm

!gA = !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, global>
!gB = !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, global>
!gC = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
!sT = !axe.buffer<64x128xf16, ?, shared>
!acc = !axe.buffer<64x64xf32, ?, reg>

module attributes {axe.target = #axe.target<"sm_90">} {
  // One TMA tile read as both operands (C = A x A^T).
  func.func @one_tile(%A: memref<64x128xf16>, %B: memref<64x128xf16>, %C: memref<64x64xf32>) {
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sT
      %acc = axe.alloc : !acc
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gA
      %tA = axe.copy_async %gA to %sA at warpgroup {schedule = {sm_90 = "tma"}} : !gA to !sT
      axe.wait %tA at warpgroup
      axe.gemm %sA, %sA into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b, zero_init} : !sT, !sT into !acc
      %gC = axe.view %C[0, 0] : memref<64x64xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }

  func.func @check(%which: index) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %minus = arith.constant -1.0 : f32
    %two = arith.constant 2.0 : f16
    %three = arith.constant 3.0 : f16
    %A = memref.alloc() : memref<64x128xf16>
    %B = memref.alloc() : memref<64x128xf16>
    %C = memref.alloc() : memref<64x64xf32>
    // A[i][k] = (i + 2k) mod 5 - 2, B[n][k] = (3n + k) mod 7 - 3: exact.
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c128 step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remui %u, %c5 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f16
        %v = arith.subf %rf, %two : f16
        memref.store %v, %A[%i, %k] : memref<64x128xf16>
        %t2 = arith.muli %i, %c3 : index
        %u2 = arith.addi %t2, %k : index
        %r2 = arith.remui %u2, %c7 : index
        %ri2 = arith.index_cast %r2 : index to i64
        %rf2 = arith.sitofp %ri2 : i64 to f16
        %v2 = arith.subf %rf2, %three : f16
        memref.store %v2, %B[%i, %k] : memref<64x128xf16>
      }
      scf.for %n = %c0 to %c64 step %c1 {
        memref.store %minus, %C[%i, %n] : memref<64x64xf32>
      }
    }
    // B = A: the reference is A x A^T.
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c128 step %c1 {
        %a = memref.load %A[%i, %k] : memref<64x128xf16>
        memref.store %a, %B[%i, %k] : memref<64x128xf16>
      }
    }
    func.call @one_tile(%A, %B, %C) : (memref<64x128xf16>, memref<64x128xf16>, memref<64x64xf32>) -> ()
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%nb = %zi) -> (i64) {
      %row = scf.for %n = %c0 to %c64 step %c1 iter_args(%m = %nb) -> (i64) {
        %dot = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %zf) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<64x128xf16>
          %b = memref.load %B[%n, %k] : memref<64x128xf16>
          %a32 = arith.extf %a : f16 to f32
          %b32 = arith.extf %b : f16 to f32
          %p = arith.mulf %a32, %b32 : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %n] : memref<64x64xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    memref.dealloc %A : memref<64x128xf16>
    memref.dealloc %B : memref<64x128xf16>
    memref.dealloc %C : memref<64x64xf32>
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %o = call @check(%c0) : (index) -> i64
    vector.print str "one tile mismatches: "
    vector.print %o : i64
    return
  }
}
