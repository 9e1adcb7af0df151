// A CTA's gemm over 256 K slices of f16 operands, each slice packed (A
// widened, B into panels) into scratch: 64 KiB per slice. The scratch must
// be allocated once for the CTA, not once per iteration of the loop over
// the slices, or the stack grows by 16 MiB before the CTA ends and the
// kernel overflows it. Every element of C is checked.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// (Without it, mlir-runner dies of a stack overflow here.)
// CHECK: mismatches: 0

!ga = !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (16384, 1)]>, global>
!gb = !axe.buffer<64x128xf16, #axe.layout<S[(64, 128) : (128, 1)]>, global>
!gc = !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @deep_k(%A: memref<128x16384xf16>, %B: memref<16384x128xf16>, %C: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %cK = arith.constant 16384 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 32 {
      %c = axe.view %C[%c0, %c0] : memref<128x128xf32> -> !gc
      axe.fill %c, %zero at cta : !gc
      scf.for %k = %c0 to %cK step %c64 {
        %a = axe.view %A[%c0, %k] : memref<128x16384xf16> -> !ga
        %b = axe.view %B[%k, %c0] : memref<16384x128xf16> -> !gb
        axe.gemm %a, %b into %c at cta : !ga, !gb into !gc
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c128 = arith.constant 128 : index
    %cK = arith.constant 16384 : index
    %A = memref.alloc() : memref<128x16384xf16>
    %B = memref.alloc() : memref<16384x128xf16>
    %C = memref.alloc() : memref<128x128xf32>
    // A[i][k] = (i + k) mod 3 - 1, B[k][j] = 1 when k = j mod 64 (mod 64),
    // else 0: C[i][j] = sum over the 256 k = j (mod 64) of A[i][k], which
    // cycles through -1, 0, 1 as k steps by 64 (64 = 1 mod 3), so it is
    // the sum of 85 full cycles and one more term: (i + j mod 64) mod 3 - 1.
    %one = arith.constant 1.0 : f16
    %zh = arith.constant 0.0 : f16
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %k = %c0 to %cK step %c1 {
        %s = arith.addi %i, %k : index
        %r = arith.remui %s, %c3 : index
        %ri = arith.index_cast %r : index to i64
        %f = arith.sitofp %ri : i64 to f16
        %v = arith.subf %f, %one : f16
        memref.store %v, %A[%i, %k] : memref<128x16384xf16>
      }
    }
    %c64 = arith.constant 64 : index
    scf.for %k = %c0 to %cK step %c1 {
      %km = arith.remui %k, %c64 : index
      scf.for %j = %c0 to %c128 step %c1 {
        %jm = arith.remui %j, %c64 : index
        %eq = arith.cmpi eq, %km, %jm : index
        %v = arith.select %eq, %one, %zh : f16
        memref.store %v, %B[%k, %j] : memref<16384x128xf16>
      }
    }
    call @deep_k(%A, %B, %C) : (memref<128x16384xf16>, memref<16384x128xf16>, memref<128x128xf32>) -> ()
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%n = %c0) -> (index) {
      %row = scf.for %j = %c0 to %c128 step %c1 iter_args(%m = %n) -> (index) {
        %jm = arith.remui %j, %c64 : index
        %s = arith.addi %i, %jm : index
        %r = arith.remui %s, %c3 : index
        %ri = arith.index_cast %r : index to i64
        %f = arith.sitofp %ri : i64 to f32
        %onef = arith.constant 1.0 : f32
        %want = arith.subf %f, %onef : f32
        %got = memref.load %C[%i, %j] : memref<128x128xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %m1 = arith.addi %m, %c1 : index
        %next = arith.select %ne, %m1, %m : index
        scf.yield %next : index
      }
      scf.yield %row : index
    }
    %badi = arith.index_cast %bad : index to i64
    vector.print str "mismatches: "
    vector.print %badi : i64
    return
  }
}
