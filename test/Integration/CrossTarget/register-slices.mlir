// Slices of register tiles at run-time starts that move along thread axes.
// The slice's layout leaves the start's contribution out, so its own axes
// say less than who holds it: a row of a warp's tile (rows on laneid) at a
// loop-variable row belongs to some lane of the warp, so the warp owns it
// and operators on it run at warp scope; a row of a CTA's tile (rows on
// warpid) belongs to some warp, so the CTA owns it. (At a narrower scope the
// verifier rejects them: test/Dialect/Axe/invalid-kernel.mlir.)
// Every element of the results printed.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

!wtile = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (1@laneid, 1)]>, reg>
!wrow = !axe.buffer<1x8xf32, #axe.layout<S[(1, 8) : (1, 1)]>, reg>
!g4x8 = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)]>, global>
!g1x8 = !axe.buffer<1x8xf32, #axe.layout<S[(1, 8) : (8, 1)]>, global>
!ctile = !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (1@warpid, 1@laneid)]>, reg>
!crow = !axe.buffer<1x8xf32, #axe.layout<S[(1, 8) : (1, 1@laneid)]>, reg>
!cpart = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (1@warpid, 1@laneid)]>, reg>
!g4x4 = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (8, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  // Two warps, each with the 4x8 tile of A at rows [4 warpid, +4) in its
  // lanes; row by row, each warp doubles its row in place and stores it to B.
  func.func @per_warp(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    axe.kernel grid [1] threads 64 {
      %w = axe.axis_id warpid
      %r0 = arith.muli %w, %c4 : index
      %a = axe.view %A[%r0, 0] : memref<8x8xf32> -> !g4x8
      %t = axe.alloc : !wtile
      axe.copy %a to %t at warp : !g4x8 to !wtile
      scf.for %i = %c0 to %c4 step %c1 {
        %row = axe.slice %t[%i, 0] : !wtile -> !wrow
        axe.elementwise ins(%row : !wrow) outs(%row : !wrow) at warp {
        ^bb0(%x: f32):
          %y = arith.addf %x, %x : f32
          axe.yield %y : f32
        }
        %ri = arith.addi %r0, %i : index
        %b = axe.view %B[%ri, 0] : memref<8x8xf32> -> !g1x8
        axe.copy %row to %b at warp : !wrow to !g1x8
      }
    }
    return
  }

  // A CTA of 4 warps holds A (warp w row w); row by row the CTA stores it to
  // B, then stores columns [4, 8) through a slice at a run-time column (a
  // start on laneid, within each warp) into C.
  func.func @per_cta(%A: memref<4x8xf32>, %B: memref<4x8xf32>, %C: memref<4x8xf32>, %col: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    axe.kernel grid [1] threads 128 {
      %a = axe.view %A[0, 0] : memref<4x8xf32> -> !g4x8
      %t = axe.alloc : !ctile
      axe.copy %a to %t at cta : !g4x8 to !ctile
      scf.for %i = %c0 to %c4 step %c1 {
        %row = axe.slice %t[%i, 0] : !ctile -> !crow
        %b = axe.view %B[%i, 0] : memref<4x8xf32> -> !g1x8
        axe.copy %row to %b at cta : !crow to !g1x8
      }
      %p = axe.slice %t[0, %col] : !ctile -> !cpart
      %c = axe.view %C[0, 4] : memref<4x8xf32> -> !g4x4
      axe.copy %p to %c at cta : !cpart to !g4x4
    }
    return
  }

  func.func @print(%B: memref<?x8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %n = memref.dim %B, %c0 : memref<?x8xf32>
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %v = memref.load %B[%i, %j] : memref<?x8xf32>
        vector.print %v : f32 punctuation <comma>
      }
      vector.print punctuation <newline>
    }
    return
  }

  // M[i][j] = 8 i + j.
  func.func @init(%M: memref<?x8xf32>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %n = memref.dim %M, %c0 : memref<?x8xf32>
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %r = arith.muli %i, %c8 : index
        %f = arith.addi %r, %j : index
        %fi = arith.index_cast %f : index to i64
        %v = arith.sitofp %fi : i64 to f32
        %s = arith.mulf %v, %scale : f32
        memref.store %s, %M[%i, %j] : memref<?x8xf32>
      }
    }
    return
  }

  func.func @main() {
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %c4 = arith.constant 4 : index
    %A = memref.alloc() : memref<8x8xf32>
    %B = memref.alloc() : memref<8x8xf32>
    %Ad = memref.cast %A : memref<8x8xf32> to memref<?x8xf32>
    %Bd = memref.cast %B : memref<8x8xf32> to memref<?x8xf32>
    call @init(%Ad, %one) : (memref<?x8xf32>, f32) -> ()
    call @init(%Bd, %zero) : (memref<?x8xf32>, f32) -> ()
    call @per_warp(%A, %B) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    // B = 2 A.
    // CHECK: 0, 2, 4, 6, 8, 10, 12, 14,
    // CHECK-NEXT: 16, 18, 20, 22, 24, 26, 28, 30,
    // CHECK-NEXT: 32, 34, 36, 38, 40, 42, 44, 46,
    // CHECK-NEXT: 48, 50, 52, 54, 56, 58, 60, 62,
    // CHECK-NEXT: 64, 66, 68, 70, 72, 74, 76, 78,
    // CHECK-NEXT: 80, 82, 84, 86, 88, 90, 92, 94,
    // CHECK-NEXT: 96, 98, 100, 102, 104, 106, 108, 110,
    // CHECK-NEXT: 112, 114, 116, 118, 120, 122, 124, 126,
    call @print(%Bd) : (memref<?x8xf32>) -> ()

    %A4 = memref.alloc() : memref<4x8xf32>
    %B4 = memref.alloc() : memref<4x8xf32>
    %C4 = memref.alloc() : memref<4x8xf32>
    %A4d = memref.cast %A4 : memref<4x8xf32> to memref<?x8xf32>
    %B4d = memref.cast %B4 : memref<4x8xf32> to memref<?x8xf32>
    %C4d = memref.cast %C4 : memref<4x8xf32> to memref<?x8xf32>
    call @init(%A4d, %one) : (memref<?x8xf32>, f32) -> ()
    call @init(%B4d, %zero) : (memref<?x8xf32>, f32) -> ()
    call @init(%C4d, %zero) : (memref<?x8xf32>, f32) -> ()
    call @per_cta(%A4, %B4, %C4, %c4) : (memref<4x8xf32>, memref<4x8xf32>, memref<4x8xf32>, index) -> ()
    // B = A.
    // CHECK-NEXT: 0, 1, 2, 3, 4, 5, 6, 7,
    // CHECK-NEXT: 8, 9, 10, 11, 12, 13, 14, 15,
    // CHECK-NEXT: 16, 17, 18, 19, 20, 21, 22, 23,
    // CHECK-NEXT: 24, 25, 26, 27, 28, 29, 30, 31,
    call @print(%B4d) : (memref<?x8xf32>) -> ()
    // C: columns [4, 8) of A, the rest 0.
    // CHECK-NEXT: 0, 0, 0, 0, 4, 5, 6, 7,
    // CHECK-NEXT: 0, 0, 0, 0, 12, 13, 14, 15,
    // CHECK-NEXT: 0, 0, 0, 0, 20, 21, 22, 23,
    // CHECK-NEXT: 0, 0, 0, 0, 28, 29, 30, 31,
    call @print(%C4d) : (memref<?x8xf32>) -> ()
    return
  }
}
