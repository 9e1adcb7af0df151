// A TMA ring whose slot is a slice of a swizzled shared buffer at a run-time
// start (slot x 64 rows): a producer warpgroup loads A and B slices into
// the two slots of a pipeline<2>, a consumer warpgroup multiplies them with
// wgmma. The starts are run-time multiples of whole 64-byte swizzle atoms,
// so TMA's alignment holds for every start the slice allows, and the copy is
// not refused. C = A x B^T checked element by element against a product
// computed on the host, in axe-gpu-run with races checked, and on the CPU.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// CHECK: mismatches: 0

!ga = !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (128, 1)]>, global>
!sa2 = !axe.buffer<128x32xf16, #axe.layout<SW(3, 2, 3) o S[(128, 32) : (32, 1)]>, shared>
!sa = !axe.buffer<64x32xf16, #axe.layout<SW(3, 2, 3) o S[(64, 32) : (32, 1)]>, shared>
!gb = !axe.buffer<16x32xf16, #axe.layout<S[(16, 32) : (128, 1)]>, global>
!sb2 = !axe.buffer<32x32xf16, #axe.layout<SW(3, 2, 3) o S[(32, 32) : (32, 1)]>, shared>
!sb = !axe.buffer<16x32xf16, #axe.layout<SW(3, 2, 3) o S[(16, 32) : (32, 1)]>, shared>
!acc = !axe.buffer<64x16xf32, #axe.layout<S[(4, 2, 8, 2, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>, reg>
!gc = !axe.buffer<64x16xf32, #axe.layout<S[(64, 16) : (16, 1)]>, global>
!pipe = !axe.pipeline<2>

module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @kernel(%A: memref<64x128xf16>, %B: memref<16x128xf16>, %C: memref<64x16xf32>) {

    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    axe.kernel grid [1] threads 256 {
      %sa2 = axe.alloc : !sa2
      %sb2 = axe.alloc : !sb2
      %p = axe.pipeline : !pipe
      axe.warp_specialize {
        axe.partition warps [0, 4) {
          scf.for %i = %c0 to %c4 step %c1 {
            axe.pipeline_acquire %p[%i] : !pipe
            %slot = arith.remui %i, %c2 : index
            %k = arith.muli %i, %c32 : index
            %ra = arith.muli %slot, %c64 : index
            %rb = arith.muli %slot, %c16 : index
            %ga = axe.view %A[0, %k] : memref<64x128xf16> -> !ga
            %gb = axe.view %B[0, %k] : memref<16x128xf16> -> !gb
            %sa = axe.slice %sa2[%ra, 0] : !sa2 -> !sa
            %sb = axe.slice %sb2[%rb, 0] : !sb2 -> !sb
            %ta = axe.copy_async %ga to %sa at warpgroup {schedule = {sm_90 = "tma"}} : !ga to !sa
            %tb = axe.copy_async %gb to %sb at warpgroup {schedule = {sm_90 = "tma"}} : !gb to !sb
            axe.pipeline_commit %p[%i], %ta, %tb : !pipe
          }
        }
        axe.partition warps [4, 8) {
          %acc = axe.alloc : !acc
          %z = arith.constant 0.0 : f32
          axe.fill %acc, %z at warpgroup : !acc
          scf.for %i = %c0 to %c4 step %c1 {
            axe.pipeline_wait %p[%i] : !pipe
            %slot = arith.remui %i, %c2 : index
            %ra = arith.muli %slot, %c64 : index
            %rb = arith.muli %slot, %c16 : index
            %sa = axe.slice %sa2[%ra, 0] : !sa2 -> !sa
            %sb = axe.slice %sb2[%rb, 0] : !sb2 -> !sb
            axe.gemm %sa, %sb into %acc at warpgroup {schedule = {sm_90 = "wgmma"}, transpose_b} : !sa, !sb into !acc
            axe.pipeline_release %p[%i] : !pipe
          }
          %gc = axe.view %C[0, 0] : memref<64x16xf32> -> !gc
          axe.copy %acc to %gc at warpgroup : !acc to !gc
        }
      }
    }

    return
  }

  // A[i][k] = (7 (128 i + k) + 3) mod 9 - 4, B[j][k] = (5 (128 j + k) + 1)
  // mod 7 - 3: small integers, exact in f16 and in the f32 sums.
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c9 = arith.constant 9 : index
    %A = memref.alloc() : memref<64x128xf16>
    %B = memref.alloc() : memref<16x128xf16>
    %C = memref.alloc() : memref<64x16xf32>
    %m4 = arith.constant -4 : i64
    %m3 = arith.constant -3 : i64
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c128 step %c1 {
        %r = arith.muli %i, %c128 : index
        %f = arith.addi %r, %k : index
        %t = arith.muli %f, %c7 : index
        %u = arith.addi %t, %c3 : index
        %w = arith.remui %u, %c9 : index
        %x = arith.index_cast %w : index to i64
        %y = arith.addi %x, %m4 : i64
        %v = arith.sitofp %y : i64 to f16
        memref.store %v, %A[%i, %k] : memref<64x128xf16>
      }
    }
    scf.for %j = %c0 to %c16 step %c1 {
      scf.for %k = %c0 to %c128 step %c1 {
        %r = arith.muli %j, %c128 : index
        %f = arith.addi %r, %k : index
        %t = arith.muli %f, %c5 : index
        %u = arith.addi %t, %c1 : index
        %w = arith.remui %u, %c7 : index
        %x = arith.index_cast %w : index to i64
        %y = arith.addi %x, %m3 : i64
        %v = arith.sitofp %y : i64 to f16
        memref.store %v, %B[%j, %k] : memref<16x128xf16>
      }
    }
    call @kernel(%A, %B, %C) : (memref<64x128xf16>, memref<16x128xf16>, memref<64x16xf32>) -> ()
    %zero = arith.constant 0.0 : f32
    %n0 = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%b0 = %n0) -> (i64) {
      %bi = scf.for %j = %c0 to %c16 step %c1 iter_args(%b1 = %b0) -> (i64) {
        %sum = scf.for %k = %c0 to %c128 step %c1 iter_args(%s = %zero) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<64x128xf16>
          %b = memref.load %B[%j, %k] : memref<16x128xf16>
          %af = arith.extf %a : f16 to f32
          %bf = arith.extf %b : f16 to f32
          %p = arith.mulf %af, %bf : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %j] : memref<64x16xf32>
        %ne = arith.cmpf une, %got, %sum : f32
        %inc = arith.select %ne, %one, %n0 : i64
        %b2 = arith.addi %b1, %inc : i64
        scf.yield %b2 : i64
      }
      scf.yield %bi : i64
    }
    vector.print str "mismatches: "
    vector.print %bad : i64
    memref.dealloc %A : memref<64x128xf16>
    memref.dealloc %B : memref<16x128xf16>
    memref.dealloc %C : memref<64x16xf32>
    return
  }
}
