// Kernels whose layouts axe-infer-layouts chooses beyond the example GEMMs,
// run in the interpreter with races checked and every element compared:
// mma.sync over 8 warps (the 4x2 split of the fragments, A's 32-byte rows
// under the 32B swizzle), the accumulator's layout carried through an
// elementwise. The shared tiles' swizzles leave ldmatrix and cp.async
// without a bank conflict.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races --stats=%t.json \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json
// RUN: axe-opt %s -axe-infer-layouts | FileCheck %s --check-prefix=LAYOUTS

// CHECK: mma over eight warps mismatches: 0

// STATS: "nvgpu.ldmatrix": {
// STATS: "nvgpu.mma.sync": {
// STATS-NEXT: "issues": 64,
// STATS: "shared_total": {
// STATS: "bank_conflicts": 0

// LAYOUTS: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<[[ACC:S\[\(4, 2, 2, 8, 2, 4, 4, 2\) : \(2@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1\)\]]]>, reg>
// LAYOUTS: axe.alloc : !axe.buffer<128x64xf32, #axe.layout<[[ACC]]>, reg>

!gA = !axe.buffer<128x16xf16, #axe.layout<S[(128, 16) : (16, 1)]>, global>
!gB = !axe.buffer<16x64xf16, #axe.layout<S[(16, 64) : (64, 1)]>, global>
!gC = !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>
!sA = !axe.buffer<128x16xf16, ?, shared>
!sB = !axe.buffer<16x64xf16, ?, shared>
!acc = !axe.buffer<128x64xf32, ?, reg>

module attributes {axe.target = #axe.target<"sm_80">} {
  // C = A x B + 1 over 8 warps: mma.sync fragments split 4x2 over the warps,
  // then the accumulator's layout carried through an elementwise.
  func.func @mma_eight_warps(%A: memref<128x16xf16>, %B: memref<16x64xf16>,
                             %C: memref<128x64xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 256 {
      %sA = axe.alloc : !sA
      %sB = axe.alloc : !sB
      %acc = axe.alloc : !acc
      %out = axe.alloc : !acc
      %gA = axe.view %A[0, 0] : memref<128x16xf16> -> !gA
      %gB = axe.view %B[0, 0] : memref<16x64xf16> -> !gB
      %gC = axe.view %C[0, 0] : memref<128x64xf32> -> !gC
      axe.fill %acc, %zero at cta : !acc
      axe.copy %gA to %sA at cta : !gA to !sA
      axe.copy %gB to %sB at cta : !gB to !sB
      axe.barrier at cta
      axe.gemm %sA, %sB into %acc at cta : !sA, !sB into !acc
      axe.elementwise ins(%acc : !acc) outs(%out : !acc) at cta {
      ^bb0(%x: f32):
        %c1f = arith.constant 1.0 : f32
        %y = arith.addf %x, %c1f : f32
        axe.yield %y : f32
      }
      axe.copy %out to %gC at cta : !acc to !gC
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
    %onef = arith.constant 1.0 : f32
    %zf = arith.constant 0.0 : f32
    %minus = arith.constant -1.0 : f32
    %two = arith.constant 2.0 : f16
    %three = arith.constant 3.0 : f16
    %A = memref.alloc() : memref<128x16xf16>
    %B = memref.alloc() : memref<16x64xf16>
    %C = memref.alloc() : memref<128x64xf32>
    // A[i][k] = (i + 2k) mod 5 - 2, B[k][n] = (3n + k) mod 7 - 3: exact.
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
      scf.for %n = %c0 to %c64 step %c1 {
        memref.store %minus, %C[%i, %n] : memref<128x64xf32>
      }
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
    func.call @mma_eight_warps(%A, %B, %C)
        : (memref<128x16xf16>, memref<16x64xf16>, memref<128x64xf32>) -> ()
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%nb = %zi) -> (i64) {
      %row = scf.for %n = %c0 to %c64 step %c1 iter_args(%m = %nb) -> (i64) {
        %dot = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %onef) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<128x16xf16>
          %b = memref.load %B[%k, %n] : memref<16x64xf16>
          %a32 = arith.extf %a : f16 to f32
          %b32 = arith.extf %b : f16 to f32
          %p = arith.mulf %a32, %b32 : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %n] : memref<128x64xf32>
        %ne = arith.cmpf une, %got, %dot : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "mma over eight warps mismatches: "
    vector.print %bad : i64
    memref.dealloc %A : memref<128x16xf16>
    memref.dealloc %B : memref<16x64xf16>
    memref.dealloc %C : memref<128x64xf32>
    return
  }
}
