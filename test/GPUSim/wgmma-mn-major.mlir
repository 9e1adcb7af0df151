// wgmma with MN-major operands (the PTX ISA's .trans-a / .trans-b, 16-bit
// inputs): C (64 x 128) = A x B with B stored K x N, N contiguous (a
// row-major B, or V of attention, read where it lies), and A stored K x M
// (transpose_a). K = 128 and N = 128, so that both descriptor offsets
// matter: with swizzles, SBO steps between groups of 8 k and LBO between
// the lines of 64 (128B) or 32 (64B) columns; unswizzled, core matrices of
// 8 k by 8 columns, SBO apart along N and LBO apart along K. Run in the
// interpreter with races checked, every element of C compared with the
// host's product (small integers: exact).
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | FileCheck %s --check-prefix=NVVM
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=LAYOUTS
// The check has teeth: read as K-major, B gives wrong products.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 \
// RUN:   | sed 's/B\[<f16>, <one>, <row>\]/B[<f16>, <one>, <col>]/' \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s --check-prefix=WRONG

// CHECK: inferred, B MN-major mismatches: 0
// CHECK: 128B swizzle, A and B MN-major mismatches: 0
// CHECK: 64B swizzle, B MN-major mismatches: 0
// CHECK: core matrices, B MN-major mismatches: 0
// WRONG: inferred, B MN-major mismatches: {{[1-9][0-9]+}}
// WRONG: core matrices, B MN-major mismatches: {{[1-9][0-9]+}}

// B MN-major: wgmma's B layout is <row>; A K-major <row>, MN-major <col>.
// NVVM-LABEL: gpu.func @nn_inferred
// NVVM: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// NVVM-LABEL: gpu.func @tn_sw128
// NVVM: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <col>], B[<f16>, <one>, <row>]

// LAYOUTS-LABEL: func.func @nn_inferred
// LAYOUTS: axe.alloc : !axe.buffer<64x128xf16, #axe.layout<SW(3, 3, 3) o S[(64, 2, 64) : (64, 4096, 1)]>, shared>
// LAYOUTS: axe.alloc : !axe.buffer<128x128xf16, #axe.layout<SW(3, 3, 3) o S[(128, 2, 64) : (64, 8192, 1)]>, shared>

!gAmk = !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, global>
!gAkm = !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (64, 1)]>, global>
!gB = !axe.buffer<128x128xf16, #axe.layout<S[(128, 128) : (128, 1)]>, global>
!gC = !axe.buffer<64x128xf32, #axe.layout<S[(64, 128) : (128, 1)]>, global>
!sAmk = !axe.buffer<64x128xf16, ?, shared>
!sAkm = !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared>
!sB = !axe.buffer<128x128xf16, ?, shared>
!sB128 = !axe.buffer<128x128xf16, #axe.layout<SW(3, 3, 3) o S[(128, 2, 64) : (64, 8192, 1)]>, shared>
!sB64 = !axe.buffer<128x128xf16, #axe.layout<SW(3, 2, 3) o S[(128, 4, 32) : (32, 4096, 1)]>, shared>
!sBcore = !axe.buffer<128x128xf16, #axe.layout<S[(16, 8, 16, 8) : (1024, 8, 64, 1)]>, shared>
!acc = !axe.buffer<64x128xf32, ?, reg>

module attributes {axe.target = #axe.target<"sm_90">} {
  // Every on-chip layout inferred: B's tile becomes two columns of 128B
  // atoms whose lines run along N.
  func.func @nn_inferred(%A: memref<64x128xf16>, %Akm: memref<128x64xf16>, %B: memref<128x128xf16>, %C: memref<64x128xf32>) {
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sAmk
      %sB = axe.alloc : !sB
      %acc = axe.alloc : !acc
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gAmk
      %gB = axe.view %B[0, 0] : memref<128x128xf16> -> !gB
      axe.copy %gA to %sA at warpgroup : !gAmk to !sAmk
      axe.copy %gB to %sB at warpgroup : !gB to !sB
      axe.barrier at cta
      axe.gemm %sA, %sB into %acc at warpgroup {zero_init} : !sAmk, !sB into !acc
      %gC = axe.view %C[0, 0] : memref<64x128xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }
  // A stored K x M (transpose_a) and B K x N, both in 128B atoms.
  func.func @tn_sw128(%A: memref<64x128xf16>, %Akm: memref<128x64xf16>, %B: memref<128x128xf16>, %C: memref<64x128xf32>) {
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sAkm
      %sB = axe.alloc : !sB128
      %acc = axe.alloc : !acc
      %gA = axe.view %Akm[0, 0] : memref<128x64xf16> -> !gAkm
      %gB = axe.view %B[0, 0] : memref<128x128xf16> -> !gB
      axe.copy %gA to %sA at warpgroup : !gAkm to !sAkm
      axe.copy %gB to %sB at warpgroup : !gB to !sB128
      axe.barrier at cta
      axe.gemm %sA, %sB into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_a, zero_init} : !sAkm, !sB128 into !acc
      %gC = axe.view %C[0, 0] : memref<64x128xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }
  // B in 64B atoms: lines of 32 columns, four columns of atoms.
  func.func @nn_sw64(%A: memref<64x128xf16>, %Akm: memref<128x64xf16>, %B: memref<128x128xf16>, %C: memref<64x128xf32>) {
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sAmk
      %sB = axe.alloc : !sB64
      %acc = axe.alloc : !acc
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gAmk
      %gB = axe.view %B[0, 0] : memref<128x128xf16> -> !gB
      axe.copy %gA to %sA at warpgroup : !gAmk to !sAmk
      axe.copy %gB to %sB at warpgroup : !gB to !sB64
      axe.barrier at cta
      axe.gemm %sA, %sB into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, zero_init} : !sAmk, !sB64 into !acc
      %gC = axe.view %C[0, 0] : memref<64x128xf32> -> !gC
      axe.copy %acc to %gC at warpgroup : !acc to !gC
    }
    return
  }
  // B unswizzled: core matrices of 8 k by 8 columns, 16 along N per 8 k.
  func.func @nn_core(%A: memref<64x128xf16>, %Akm: memref<128x64xf16>, %B: memref<128x128xf16>, %C: memref<64x128xf32>) {
    axe.kernel grid [1] threads 128 {
      %sA = axe.alloc : !sAmk
      %sB = axe.alloc : !sBcore
      %acc = axe.alloc : !acc
      %gA = axe.view %A[0, 0] : memref<64x128xf16> -> !gAmk
      %gB = axe.view %B[0, 0] : memref<128x128xf16> -> !gB
      axe.copy %gA to %sA at warpgroup : !gAmk to !sAmk
      axe.copy %gB to %sB at warpgroup : !gB to !sBcore
      axe.barrier at cta
      axe.gemm %sA, %sB into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, zero_init} : !sAmk, !sBcore into !acc
      %gC = axe.view %C[0, 0] : memref<64x128xf32> -> !gC
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
    %Akm = memref.alloc() : memref<128x64xf16>
    %B = memref.alloc() : memref<128x128xf16>
    %C = memref.alloc() : memref<64x128xf32>
    // A[i][k] = (i + 2k) mod 5 - 2 (stored M x K and K x M),
    // B[k][n] = (3n + k) mod 7 - 3: exact.
    scf.for %k = %c0 to %c128 step %c1 {
      scf.for %i = %c0 to %c64 step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remui %u, %c5 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f16
        %v = arith.subf %rf, %two : f16
        memref.store %v, %A[%i, %k] : memref<64x128xf16>
        memref.store %v, %Akm[%k, %i] : memref<128x64xf16>
      }
      scf.for %n = %c0 to %c128 step %c1 {
        %t2 = arith.muli %n, %c3 : index
        %u2 = arith.addi %t2, %k : index
        %r2 = arith.remui %u2, %c7 : index
        %ri2 = arith.index_cast %r2 : index to i64
        %rf2 = arith.sitofp %ri2 : i64 to f16
        %v2 = arith.subf %rf2, %three : f16
        memref.store %v2, %B[%k, %n] : memref<128x128xf16>
      }
    }
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %n = %c0 to %c128 step %c1 {
        memref.store %minus, %C[%i, %n] : memref<64x128xf32>
      }
    }
    scf.index_switch %which
    case 0 {
      func.call @nn_inferred(%A, %Akm, %B, %C) : (memref<64x128xf16>, memref<128x64xf16>, memref<128x128xf16>, memref<64x128xf32>) -> ()
      scf.yield
    }
    case 1 {
      func.call @tn_sw128(%A, %Akm, %B, %C) : (memref<64x128xf16>, memref<128x64xf16>, memref<128x128xf16>, memref<64x128xf32>) -> ()
      scf.yield
    }
    case 2 {
      func.call @nn_sw64(%A, %Akm, %B, %C) : (memref<64x128xf16>, memref<128x64xf16>, memref<128x128xf16>, memref<64x128xf32>) -> ()
      scf.yield
    }
    default {
      func.call @nn_core(%A, %Akm, %B, %C) : (memref<64x128xf16>, memref<128x64xf16>, memref<128x128xf16>, memref<64x128xf32>) -> ()
    }
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%nb = %zi) -> (i64) {
      %row = scf.for %n = %c0 to %c128 step %c1 iter_args(%m = %nb) -> (i64) {
        %dot = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %zf) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<64x128xf16>
          %b = memref.load %B[%k, %n] : memref<128x128xf16>
          %a32 = arith.extf %a : f16 to f32
          %b32 = arith.extf %b : f16 to f32
          %p = arith.mulf %a32, %b32 : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %n] : memref<64x128xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    memref.dealloc %A : memref<64x128xf16>
    memref.dealloc %Akm : memref<128x64xf16>
    memref.dealloc %B : memref<128x128xf16>
    memref.dealloc %C : memref<64x128xf32>
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %m0 = call @check(%c0) : (index) -> i64
    vector.print str "inferred, B MN-major mismatches: "
    vector.print %m0 : i64
    %m1 = call @check(%c1) : (index) -> i64
    vector.print str "128B swizzle, A and B MN-major mismatches: "
    vector.print %m1 : i64
    %m2 = call @check(%c2) : (index) -> i64
    vector.print str "64B swizzle, B MN-major mismatches: "
    vector.print %m2 : i64
    %m3 = call @check(%c3) : (index) -> i64
    vector.print str "core matrices, B MN-major mismatches: "
    vector.print %m3 : i64
    return
  }
}
