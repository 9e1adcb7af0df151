// Shared <-> register copies of f16 tiles whose register layouts are the
// 8x8 matrix fragments of ldmatrix / stmatrix: a 32x16 tile over two warps
// (each warp a 16x16 tile, its four registers the four 8x8 matrices, as
// mma.sync's A fragment), and the transposed fragment (lane t holding rows
// 2(t mod 4) + {0, 1} of column t / 4). On the CPU the copies are loops; on
// sm_80 the loads are ldmatrix.x4 (.trans) and the stores SIMT; on sm_90
// the stores are stmatrix.x4 (.trans). B = A and C = A, every element
// checked.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The schedules chosen, and their instructions.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | FileCheck %s --check-prefix=NVVM

// CHECK: copy mismatches: 0
// CHECK: transposed mismatches: 0

// NVVM-LABEL: gpu.func @copy_kernel
// NVVM: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// NVVM: nvvm.stmatrix {{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// NVVM-LABEL: gpu.func @transposed_kernel
// NVVM: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// NVVM: nvvm.stmatrix {{.*}} layout = #nvvm.mma_layout<col>

!g = !axe.buffer<32x16xf16, #axe.layout<S[(32, 16) : (16, 1)]>, global>
!s = !axe.buffer<32x16xf16, #axe.layout<S[(32, 16) : (16, 1)]>, shared>
// Warp w: rows 16w..16w+15; register q = rowHalf + 2 colHalf of lane t:
// row t/4 (+8), columns 2(t mod 4) + {0, 1} (+8).
!r = !axe.buffer<32x16xf16, #axe.layout<S[(2, 2, 8, 2, 4, 2) : (1@warpid, 2, 4@laneid, 4, 1@laneid, 1)]>, reg>
// Transposed: lane t: rows 2(t mod 4) + {0, 1} (+8), column t/4 (+8).
!rt = !axe.buffer<32x16xf16, #axe.layout<S[(2, 2, 4, 2, 2, 8) : (1@warpid, 2, 1@laneid, 1, 4, 4@laneid)]>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @copy(%A: memref<32x16xf16>, %B: memref<32x16xf16>) {
    axe.kernel grid [1] threads 64 {
      %a = axe.view %A[0, 0] : memref<32x16xf16> -> !g
      %s = axe.alloc : !s
      axe.copy %a to %s at cta : !g to !s
      axe.barrier at cta
      %r = axe.alloc : !r
      axe.copy %s to %r at cta : !s to !r
      %t = axe.alloc : !s
      axe.copy %r to %t at cta : !r to !s
      axe.barrier at cta
      %b = axe.view %B[0, 0] : memref<32x16xf16> -> !g
      axe.copy %t to %b at cta : !s to !g
    }
    return
  }

  func.func @transposed(%A: memref<32x16xf16>, %B: memref<32x16xf16>) {
    axe.kernel grid [1] threads 64 {
      %a = axe.view %A[0, 0] : memref<32x16xf16> -> !g
      %s = axe.alloc : !s
      axe.copy %a to %s at cta : !g to !s
      axe.barrier at cta
      %r = axe.alloc : !rt
      axe.copy %s to %r at cta : !s to !rt
      %t = axe.alloc : !s
      axe.copy %r to %t at cta : !rt to !s
      axe.barrier at cta
      %b = axe.view %B[0, 0] : memref<32x16xf16> -> !g
      axe.copy %t to %b at cta : !s to !g
    }
    return
  }

  func.func @check(%A: memref<32x16xf16>, %B: memref<32x16xf16>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c32 step %c1 iter_args(%n = %zero) -> (i64) {
      %row = scf.for %j = %c0 to %c16 step %c1 iter_args(%m = %n) -> (i64) {
        %x = memref.load %A[%i, %j] : memref<32x16xf16>
        %y = memref.load %B[%i, %j] : memref<32x16xf16>
        %ne = arith.cmpf une, %x, %y : f16
        %inc = arith.select %ne, %one, %zero : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %A = memref.alloc() : memref<32x16xf16>
    %B = memref.alloc() : memref<32x16xf16>
    %C = memref.alloc() : memref<32x16xf16>
    %nan = arith.constant 0xFE00 : f16
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.muli %i, %c16 : index
        %l = arith.addi %k, %j : index
        %li = arith.index_cast %l : index to i64
        %v = arith.sitofp %li : i64 to f16
        memref.store %v, %A[%i, %j] : memref<32x16xf16>
        memref.store %nan, %B[%i, %j] : memref<32x16xf16>
        memref.store %nan, %C[%i, %j] : memref<32x16xf16>
      }
    }
    call @copy(%A, %B) : (memref<32x16xf16>, memref<32x16xf16>) -> ()
    %n = call @check(%A, %B) : (memref<32x16xf16>, memref<32x16xf16>) -> i64
    vector.print str "copy mismatches: "
    vector.print %n : i64
    call @transposed(%A, %C) : (memref<32x16xf16>, memref<32x16xf16>) -> ()
    %m = call @check(%A, %C) : (memref<32x16xf16>, memref<32x16xf16>) -> i64
    vector.print str "transposed mismatches: "
    vector.print %m : i64
    return
  }
}
