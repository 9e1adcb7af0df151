// mma.sync reading A through axe.slice at a run-time K start of a swizzled
// shared tile. A run-time start is added to m before the swizzle; under
// SW(2, 3, 3) or SW(1, 3, 3) the swizzle moves units of 4 or 2 f16, narrower
// than an ldmatrix row of 8, so a row stays whole at some starts (k = 0, 16)
// and is split into swapped halves at others (k = 32, 48). The schedule
// proved the rows on the slice's static layout alone and used ldmatrix at
// every start: on sm_80 and sm_90 axe-gpu-run stopped with "ldmatrix row
// address (byte 72) is not 16-byte aligned" (byte 36 under SW(1, 3, 3)),
// and a GPU would fault. The rows are now checked at every start the
// offset's known divisor allows; where one fails, A is read by element
// loads. SW(3, 3, 3) moves whole rows, so its A keeps ldmatrix. Warp scope
// (16x16 C) and CTA scope (4 warps, 64x64 C); every product is checked
// against a reference computed in main.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=NVVM

// CHECK: warp SW(2, 3, 3) mismatches: 0
// CHECK: warp SW(1, 3, 3) mismatches: 0
// CHECK: warp SW(3, 3, 3) mismatches: 0
// CHECK: cta SW(2, 3, 3) mismatches: 0
// CHECK: cta SW(1, 3, 3) mismatches: 0

// A's x4 loads go where its rows split at some start; B's x2 stay.
// NVVM-LABEL: gpu.func @warp_sw233_kernel
// NVVM-NOT: numTiles = 4
// NVVM: nvgpu.ldmatrix {{.*}}numTiles = 2
// NVVM-NOT: numTiles = 4
// NVVM-LABEL: gpu.func @warp_sw133_kernel
// NVVM-NOT: numTiles = 4
// NVVM: nvgpu.ldmatrix {{.*}}numTiles = 2
// NVVM-NOT: numTiles = 4
// NVVM-LABEL: gpu.func @warp_sw333_kernel
// NVVM: nvgpu.ldmatrix {{.*}}numTiles = 4
// NVVM-LABEL: gpu.func @cta_sw233_kernel
// NVVM-NOT: numTiles = 4
// NVVM-LABEL: gpu.func @cta_sw133_kernel
// NVVM-NOT: numTiles = 4
// NVVM-LABEL: }

module attributes {axe.target = #axe.target<"cpu">} {

  func.func @warp_sw233(%A: memref<16x64xf16>, %B: memref<64x16xf16>, %C: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %cK = arith.constant 64 : index
    axe.kernel grid [1] threads 32 {
      %sa = axe.alloc : !axe.buffer<16x64xf16, #axe.layout<SW(2, 3, 3) o S[(16, 64) : (64, 1)]>, shared>
      %sb = axe.alloc : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
      %rc = axe.alloc : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      %ga = axe.view %A[0, 0] : memref<16x64xf16> -> !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global>
      %gb = axe.view %B[0, 0] : memref<64x16xf16> -> !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, global>
      axe.copy %ga to %sa at warp : !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global> to !axe.buffer<16x64xf16, #axe.layout<SW(2, 3, 3) o S[(16, 64) : (64, 1)]>, shared>
      axe.copy %gb to %sb at warp : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, global> to !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
      axe.barrier at warp
      %z = arith.constant 0.0 : f32
      axe.fill %rc, %z at warp : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      scf.for %k = %c0 to %cK step %c16 {
        %a = axe.slice %sa[0, %k] : !axe.buffer<16x64xf16, #axe.layout<SW(2, 3, 3) o S[(16, 64) : (64, 1)]>, shared> -> !axe.buffer<16x16xf16, #axe.layout<SW(2, 3, 3) o S[(16, 16) : (64, 1)]>, shared>
        %b = axe.slice %sb[%k, 0] : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared> -> !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared>
        axe.gemm %a, %b into %rc at warp : !axe.buffer<16x16xf16, #axe.layout<SW(2, 3, 3) o S[(16, 16) : (64, 1)]>, shared>, !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared> into !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      }
      %gc = axe.view %C[0, 0] : memref<16x16xf32> -> !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
      axe.copy %rc to %gc at warp : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg> to !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
    }
    return
  }


  func.func @warp_sw133(%A: memref<16x64xf16>, %B: memref<64x16xf16>, %C: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %cK = arith.constant 64 : index
    axe.kernel grid [1] threads 32 {
      %sa = axe.alloc : !axe.buffer<16x64xf16, #axe.layout<SW(1, 3, 3) o S[(16, 64) : (64, 1)]>, shared>
      %sb = axe.alloc : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
      %rc = axe.alloc : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      %ga = axe.view %A[0, 0] : memref<16x64xf16> -> !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global>
      %gb = axe.view %B[0, 0] : memref<64x16xf16> -> !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, global>
      axe.copy %ga to %sa at warp : !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global> to !axe.buffer<16x64xf16, #axe.layout<SW(1, 3, 3) o S[(16, 64) : (64, 1)]>, shared>
      axe.copy %gb to %sb at warp : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, global> to !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
      axe.barrier at warp
      %z = arith.constant 0.0 : f32
      axe.fill %rc, %z at warp : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      scf.for %k = %c0 to %cK step %c16 {
        %a = axe.slice %sa[0, %k] : !axe.buffer<16x64xf16, #axe.layout<SW(1, 3, 3) o S[(16, 64) : (64, 1)]>, shared> -> !axe.buffer<16x16xf16, #axe.layout<SW(1, 3, 3) o S[(16, 16) : (64, 1)]>, shared>
        %b = axe.slice %sb[%k, 0] : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared> -> !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared>
        axe.gemm %a, %b into %rc at warp : !axe.buffer<16x16xf16, #axe.layout<SW(1, 3, 3) o S[(16, 16) : (64, 1)]>, shared>, !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared> into !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      }
      %gc = axe.view %C[0, 0] : memref<16x16xf32> -> !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
      axe.copy %rc to %gc at warp : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg> to !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
    }
    return
  }


  func.func @warp_sw333(%A: memref<16x64xf16>, %B: memref<64x16xf16>, %C: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %cK = arith.constant 64 : index
    axe.kernel grid [1] threads 32 {
      %sa = axe.alloc : !axe.buffer<16x64xf16, #axe.layout<SW(3, 3, 3) o S[(16, 64) : (64, 1)]>, shared>
      %sb = axe.alloc : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
      %rc = axe.alloc : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      %ga = axe.view %A[0, 0] : memref<16x64xf16> -> !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global>
      %gb = axe.view %B[0, 0] : memref<64x16xf16> -> !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, global>
      axe.copy %ga to %sa at warp : !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global> to !axe.buffer<16x64xf16, #axe.layout<SW(3, 3, 3) o S[(16, 64) : (64, 1)]>, shared>
      axe.copy %gb to %sb at warp : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, global> to !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
      axe.barrier at warp
      %z = arith.constant 0.0 : f32
      axe.fill %rc, %z at warp : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      scf.for %k = %c0 to %cK step %c16 {
        %a = axe.slice %sa[0, %k] : !axe.buffer<16x64xf16, #axe.layout<SW(3, 3, 3) o S[(16, 64) : (64, 1)]>, shared> -> !axe.buffer<16x16xf16, #axe.layout<SW(3, 3, 3) o S[(16, 16) : (64, 1)]>, shared>
        %b = axe.slice %sb[%k, 0] : !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared> -> !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared>
        axe.gemm %a, %b into %rc at warp : !axe.buffer<16x16xf16, #axe.layout<SW(3, 3, 3) o S[(16, 16) : (64, 1)]>, shared>, !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared> into !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
      }
      %gc = axe.view %C[0, 0] : memref<16x16xf32> -> !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
      axe.copy %rc to %gc at warp : !axe.buffer<16x16xf32, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg> to !axe.buffer<16x16xf32, #axe.layout<S[(16, 16) : (16, 1)]>, global>
    }
    return
  }


  func.func @cta_sw233(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %cK = arith.constant 64 : index
    axe.kernel grid [1] threads 128 {
      %sa = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<SW(2, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      %sb = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
      %rc = axe.alloc : !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
      %ga = axe.view %A[0, 0] : memref<64x64xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      %gb = axe.view %B[0, 0] : memref<64x64xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      axe.copy %ga to %sa at cta : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global> to !axe.buffer<64x64xf16, #axe.layout<SW(2, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      axe.copy %gb to %sb at cta : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global> to !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
      axe.barrier at cta
      %z = arith.constant 0.0 : f32
      axe.fill %rc, %z at cta : !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
      scf.for %k = %c0 to %cK step %c16 {
        %a = axe.slice %sa[0, %k] : !axe.buffer<64x64xf16, #axe.layout<SW(2, 3, 3) o S[(64, 64) : (64, 1)]>, shared> -> !axe.buffer<64x16xf16, #axe.layout<SW(2, 3, 3) o S[(64, 16) : (64, 1)]>, shared>
        %b = axe.slice %sb[%k, 0] : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, shared> -> !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, shared>
        axe.gemm %a, %b into %rc at cta : !axe.buffer<64x16xf16, #axe.layout<SW(2, 3, 3) o S[(64, 16) : (64, 1)]>, shared>, !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, shared> into !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
      }
      %gc = axe.view %C[0, 0] : memref<64x64xf32> -> !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      axe.copy %rc to %gc at cta : !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg> to !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
    }
    return
  }


  func.func @cta_sw133(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %cK = arith.constant 64 : index
    axe.kernel grid [1] threads 128 {
      %sa = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<SW(1, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      %sb = axe.alloc : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
      %rc = axe.alloc : !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
      %ga = axe.view %A[0, 0] : memref<64x64xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      %gb = axe.view %B[0, 0] : memref<64x64xf16> -> !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      axe.copy %ga to %sa at cta : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global> to !axe.buffer<64x64xf16, #axe.layout<SW(1, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
      axe.copy %gb to %sb at cta : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global> to !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
      axe.barrier at cta
      %z = arith.constant 0.0 : f32
      axe.fill %rc, %z at cta : !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
      scf.for %k = %c0 to %cK step %c16 {
        %a = axe.slice %sa[0, %k] : !axe.buffer<64x64xf16, #axe.layout<SW(1, 3, 3) o S[(64, 64) : (64, 1)]>, shared> -> !axe.buffer<64x16xf16, #axe.layout<SW(1, 3, 3) o S[(64, 16) : (64, 1)]>, shared>
        %b = axe.slice %sb[%k, 0] : !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, shared> -> !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, shared>
        axe.gemm %a, %b into %rc at cta : !axe.buffer<64x16xf16, #axe.layout<SW(1, 3, 3) o S[(64, 16) : (64, 1)]>, shared>, !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, shared> into !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg>
      }
      %gc = axe.view %C[0, 0] : memref<64x64xf32> -> !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
      axe.copy %rc to %gc at cta : !axe.buffer<64x64xf32, #axe.layout<S[(2, 2, 2, 8, 2, 4, 4, 2) : (2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]>, reg> to !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, global>
    }
    return
  }


  // A[i][k] = (i + 2k) mod 5 - 2 and B[k][n] = (3n + k) mod 7 - 3, small
  // integers that f16 holds and f32 sums exactly.
  func.func @fill(%A: memref<?x?xf16>, %Am: memref<?x?xf32>, %B: memref<?x?xf16>, %Bm: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %twof = arith.constant 2.0 : f32
    %threef = arith.constant 3.0 : f32
    %M = memref.dim %A, %c0 : memref<?x?xf16>
    %K = memref.dim %A, %c1 : memref<?x?xf16>
    %N = memref.dim %B, %c1 : memref<?x?xf16>
    scf.for %i = %c0 to %M step %c1 {
      scf.for %k = %c0 to %K step %c1 {
        %t = arith.muli %k, %c2 : index
        %u = arith.addi %i, %t : index
        %r = arith.remui %u, %c5 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %v = arith.subf %rf, %twof : f32
        %vh = arith.truncf %v : f32 to f16
        memref.store %vh, %A[%i, %k] : memref<?x?xf16>
        memref.store %v, %Am[%i, %k] : memref<?x?xf32>
      }
    }
    scf.for %k = %c0 to %K step %c1 {
      scf.for %n = %c0 to %N step %c1 {
        %t = arith.muli %n, %c3 : index
        %u = arith.addi %t, %k : index
        %r = arith.remui %u, %c7 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %v = arith.subf %rf, %threef : f32
        %vh = arith.truncf %v : f32 to f16
        memref.store %vh, %B[%k, %n] : memref<?x?xf16>
        memref.store %v, %Bm[%k, %n] : memref<?x?xf32>
      }
    }
    return
  }

  // C starts as junk, so elements the kernel leaves unwritten mismatch.
  func.func @poison(%C: memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %junk = arith.constant -7.0 : f32
    %M = memref.dim %C, %c0 : memref<?x?xf32>
    %N = memref.dim %C, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %M step %c1 {
      scf.for %n = %c0 to %N step %c1 {
        memref.store %junk, %C[%i, %n] : memref<?x?xf32>
      }
    }
    return
  }

  // C's elements that differ from the f32 product of Am and Bm.
  func.func @mismatches(%Am: memref<?x?xf32>, %Bm: memref<?x?xf32>, %C: memref<?x?xf32>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %M = memref.dim %C, %c0 : memref<?x?xf32>
    %N = memref.dim %C, %c1 : memref<?x?xf32>
    %K = memref.dim %Am, %c1 : memref<?x?xf32>
    %bad = scf.for %i = %c0 to %M step %c1 iter_args(%nb = %zi) -> (i64) {
      %row = scf.for %n = %c0 to %N step %c1 iter_args(%m = %nb) -> (i64) {
        %dot = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zf) -> (f32) {
          %a = memref.load %Am[%i, %k] : memref<?x?xf32>
          %b = memref.load %Bm[%k, %n] : memref<?x?xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %got = memref.load %C[%i, %n] : memref<?x?xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    return %bad : i64
  }


  func.func @main() {
    %A_warp_sw233 = memref.alloc() : memref<16x64xf16>
    %B_warp_sw233 = memref.alloc() : memref<64x16xf16>
    %C_warp_sw233 = memref.alloc() : memref<16x16xf32>
    %Am_warp_sw233 = memref.alloc() : memref<16x64xf32>
    %Bm_warp_sw233 = memref.alloc() : memref<64x16xf32>
    %Ad_warp_sw233 = memref.cast %A_warp_sw233 : memref<16x64xf16> to memref<?x?xf16>
    %Bd_warp_sw233 = memref.cast %B_warp_sw233 : memref<64x16xf16> to memref<?x?xf16>
    %Cd_warp_sw233 = memref.cast %C_warp_sw233 : memref<16x16xf32> to memref<?x?xf32>
    %Amd_warp_sw233 = memref.cast %Am_warp_sw233 : memref<16x64xf32> to memref<?x?xf32>
    %Bmd_warp_sw233 = memref.cast %Bm_warp_sw233 : memref<64x16xf32> to memref<?x?xf32>
    func.call @fill(%Ad_warp_sw233, %Amd_warp_sw233, %Bd_warp_sw233, %Bmd_warp_sw233) : (memref<?x?xf16>, memref<?x?xf32>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.call @poison(%Cd_warp_sw233) : (memref<?x?xf32>) -> ()
    func.call @warp_sw233(%A_warp_sw233, %B_warp_sw233, %C_warp_sw233) : (memref<16x64xf16>, memref<64x16xf16>, memref<16x16xf32>) -> ()
    %bad_warp_sw233 = func.call @mismatches(%Amd_warp_sw233, %Bmd_warp_sw233, %Cd_warp_sw233) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> i64
    vector.print str "warp SW(2, 3, 3) mismatches: "
    vector.print %bad_warp_sw233 : i64
    %A_warp_sw133 = memref.alloc() : memref<16x64xf16>
    %B_warp_sw133 = memref.alloc() : memref<64x16xf16>
    %C_warp_sw133 = memref.alloc() : memref<16x16xf32>
    %Am_warp_sw133 = memref.alloc() : memref<16x64xf32>
    %Bm_warp_sw133 = memref.alloc() : memref<64x16xf32>
    %Ad_warp_sw133 = memref.cast %A_warp_sw133 : memref<16x64xf16> to memref<?x?xf16>
    %Bd_warp_sw133 = memref.cast %B_warp_sw133 : memref<64x16xf16> to memref<?x?xf16>
    %Cd_warp_sw133 = memref.cast %C_warp_sw133 : memref<16x16xf32> to memref<?x?xf32>
    %Amd_warp_sw133 = memref.cast %Am_warp_sw133 : memref<16x64xf32> to memref<?x?xf32>
    %Bmd_warp_sw133 = memref.cast %Bm_warp_sw133 : memref<64x16xf32> to memref<?x?xf32>
    func.call @fill(%Ad_warp_sw133, %Amd_warp_sw133, %Bd_warp_sw133, %Bmd_warp_sw133) : (memref<?x?xf16>, memref<?x?xf32>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.call @poison(%Cd_warp_sw133) : (memref<?x?xf32>) -> ()
    func.call @warp_sw133(%A_warp_sw133, %B_warp_sw133, %C_warp_sw133) : (memref<16x64xf16>, memref<64x16xf16>, memref<16x16xf32>) -> ()
    %bad_warp_sw133 = func.call @mismatches(%Amd_warp_sw133, %Bmd_warp_sw133, %Cd_warp_sw133) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> i64
    vector.print str "warp SW(1, 3, 3) mismatches: "
    vector.print %bad_warp_sw133 : i64
    %A_warp_sw333 = memref.alloc() : memref<16x64xf16>
    %B_warp_sw333 = memref.alloc() : memref<64x16xf16>
    %C_warp_sw333 = memref.alloc() : memref<16x16xf32>
    %Am_warp_sw333 = memref.alloc() : memref<16x64xf32>
    %Bm_warp_sw333 = memref.alloc() : memref<64x16xf32>
    %Ad_warp_sw333 = memref.cast %A_warp_sw333 : memref<16x64xf16> to memref<?x?xf16>
    %Bd_warp_sw333 = memref.cast %B_warp_sw333 : memref<64x16xf16> to memref<?x?xf16>
    %Cd_warp_sw333 = memref.cast %C_warp_sw333 : memref<16x16xf32> to memref<?x?xf32>
    %Amd_warp_sw333 = memref.cast %Am_warp_sw333 : memref<16x64xf32> to memref<?x?xf32>
    %Bmd_warp_sw333 = memref.cast %Bm_warp_sw333 : memref<64x16xf32> to memref<?x?xf32>
    func.call @fill(%Ad_warp_sw333, %Amd_warp_sw333, %Bd_warp_sw333, %Bmd_warp_sw333) : (memref<?x?xf16>, memref<?x?xf32>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.call @poison(%Cd_warp_sw333) : (memref<?x?xf32>) -> ()
    func.call @warp_sw333(%A_warp_sw333, %B_warp_sw333, %C_warp_sw333) : (memref<16x64xf16>, memref<64x16xf16>, memref<16x16xf32>) -> ()
    %bad_warp_sw333 = func.call @mismatches(%Amd_warp_sw333, %Bmd_warp_sw333, %Cd_warp_sw333) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> i64
    vector.print str "warp SW(3, 3, 3) mismatches: "
    vector.print %bad_warp_sw333 : i64
    %A_cta_sw233 = memref.alloc() : memref<64x64xf16>
    %B_cta_sw233 = memref.alloc() : memref<64x64xf16>
    %C_cta_sw233 = memref.alloc() : memref<64x64xf32>
    %Am_cta_sw233 = memref.alloc() : memref<64x64xf32>
    %Bm_cta_sw233 = memref.alloc() : memref<64x64xf32>
    %Ad_cta_sw233 = memref.cast %A_cta_sw233 : memref<64x64xf16> to memref<?x?xf16>
    %Bd_cta_sw233 = memref.cast %B_cta_sw233 : memref<64x64xf16> to memref<?x?xf16>
    %Cd_cta_sw233 = memref.cast %C_cta_sw233 : memref<64x64xf32> to memref<?x?xf32>
    %Amd_cta_sw233 = memref.cast %Am_cta_sw233 : memref<64x64xf32> to memref<?x?xf32>
    %Bmd_cta_sw233 = memref.cast %Bm_cta_sw233 : memref<64x64xf32> to memref<?x?xf32>
    func.call @fill(%Ad_cta_sw233, %Amd_cta_sw233, %Bd_cta_sw233, %Bmd_cta_sw233) : (memref<?x?xf16>, memref<?x?xf32>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.call @poison(%Cd_cta_sw233) : (memref<?x?xf32>) -> ()
    func.call @cta_sw233(%A_cta_sw233, %B_cta_sw233, %C_cta_sw233) : (memref<64x64xf16>, memref<64x64xf16>, memref<64x64xf32>) -> ()
    %bad_cta_sw233 = func.call @mismatches(%Amd_cta_sw233, %Bmd_cta_sw233, %Cd_cta_sw233) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> i64
    vector.print str "cta SW(2, 3, 3) mismatches: "
    vector.print %bad_cta_sw233 : i64
    %A_cta_sw133 = memref.alloc() : memref<64x64xf16>
    %B_cta_sw133 = memref.alloc() : memref<64x64xf16>
    %C_cta_sw133 = memref.alloc() : memref<64x64xf32>
    %Am_cta_sw133 = memref.alloc() : memref<64x64xf32>
    %Bm_cta_sw133 = memref.alloc() : memref<64x64xf32>
    %Ad_cta_sw133 = memref.cast %A_cta_sw133 : memref<64x64xf16> to memref<?x?xf16>
    %Bd_cta_sw133 = memref.cast %B_cta_sw133 : memref<64x64xf16> to memref<?x?xf16>
    %Cd_cta_sw133 = memref.cast %C_cta_sw133 : memref<64x64xf32> to memref<?x?xf32>
    %Amd_cta_sw133 = memref.cast %Am_cta_sw133 : memref<64x64xf32> to memref<?x?xf32>
    %Bmd_cta_sw133 = memref.cast %Bm_cta_sw133 : memref<64x64xf32> to memref<?x?xf32>
    func.call @fill(%Ad_cta_sw133, %Amd_cta_sw133, %Bd_cta_sw133, %Bmd_cta_sw133) : (memref<?x?xf16>, memref<?x?xf32>, memref<?x?xf16>, memref<?x?xf32>) -> ()
    func.call @poison(%Cd_cta_sw133) : (memref<?x?xf32>) -> ()
    func.call @cta_sw133(%A_cta_sw133, %B_cta_sw133, %C_cta_sw133) : (memref<64x64xf16>, memref<64x64xf16>, memref<64x64xf32>) -> ()
    %bad_cta_sw133 = func.call @mismatches(%Amd_cta_sw133, %Bmd_cta_sw133, %Cd_cta_sw133) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> i64
    vector.print str "cta SW(1, 3, 3) mismatches: "
    vector.print %bad_cta_sw133 : i64
    return
  }
}
