// Warp specialization with a warp in no partition: warp 0 produces a 6x8
// tile per step into shared memory, warp 1 has no work and runs to its end,
// warps 2..4 each sum two rows of the tile, over three steps. The
// partitions hand the tile over with cta barriers. On NVIDIA targets these
// meet at one instruction per partition, so they are the non-aligned
// barrier.sync (id 3: the first above the two warpgroups' 1 and 2) with the count of the partitions' threads (128 here: the
// idle warp never arrives), not bar.sync 0, which the PTX ISA leaves
// undefined when warps reach it at different instructions. Y holds the six
// row sums; every element checked on the CPU and, with races checked, in
// axe-gpu-run for sm_80 and sm_90.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | FileCheck %s --check-prefix=NVVM
// NVVM-LABEL: gpu.func @kernel_kernel
// NVVM-NOT: nvvm.barrier
// NVVM: nvvm.inline_ptx "barrier.sync 3, 128;"

// X[i][c] = (i + c) mod 5 - 2; Y[r] = sum over steps k and columns c of
// X[6 k + r][c].
// CHECK: ( 0, 4, 3, -3, -4, 0 )

!g = !axe.buffer<6x8xf32, #axe.layout<S[(6, 8) : (8, 1)]>, global>
!s = !axe.buffer<6x8xf32, #axe.layout<S[(6, 8) : (8, 1)]>, shared>
!rows = !axe.buffer<2x8xf32, #axe.layout<S[(2, 8) : (8, 1)]>, shared>
!acc = !axe.buffer<2x1xf32, #axe.layout<S[(2, 1) : (1@laneid, 1)]>, reg>
!y = !axe.buffer<2x1xf32, #axe.layout<S[(2, 1) : (1, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<18x8xf32>, %Y: memref<6x1xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    axe.kernel grid [1] threads 160 {
      %tile = axe.alloc : !s
      axe.warp_specialize {
        axe.partition warps [0, 1) {
          scf.for %k = %c0 to %c3 step %c1 {
            %row = arith.muli %k, %c6 : index
            %x = axe.view %X[%row, 0] : memref<18x8xf32> -> !g
            axe.copy %x to %tile at warp : !g to !s
            axe.barrier at cta
            axe.barrier at cta
          }
        }
        axe.partition warps [2, 5) {
          %w = axe.axis_id warpid
          %mine = arith.subi %w, %c2 : index
          %first = arith.muli %mine, %c2 : index
          %acc = axe.alloc : !acc
          %zero = arith.constant 0.0 : f32
          axe.fill %acc, %zero at warp : !acc
          scf.for %k = %c0 to %c3 step %c1 {
            axe.barrier at cta
            %rows = axe.slice %tile[%first, 0] : !s -> !rows
            axe.reduce sum %rows into %acc dims [1] at warp {accumulate} : !rows into !acc
            axe.barrier at cta
          }
          %y = axe.view %Y[%first, 0] : memref<6x1xf32> -> !y
          axe.copy %acc to %y at warp : !acc to !y
        }
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %c18 = arith.constant 18 : index
    %X = memref.alloc() : memref<18x8xf32>
    %Y = memref.alloc() : memref<6x1xf32>
    scf.for %i = %c0 to %c18 step %c1 {
      scf.for %c = %c0 to %c8 step %c1 {
        %u = arith.addi %i, %c : index
        %w = arith.remui %u, %c5 : index
        %x = arith.index_cast %w : index to i64
        %xf = arith.sitofp %x : i64 to f32
        %two = arith.constant 2.0 : f32
        %v = arith.subf %xf, %two : f32
        memref.store %v, %X[%i, %c] : memref<18x8xf32>
      }
    }
    %junk = arith.constant -1000.0 : f32
    scf.for %i = %c0 to %c6 step %c1 {
      memref.store %junk, %Y[%i, %c0] : memref<6x1xf32>
    }
    call @kernel(%X, %Y) : (memref<18x8xf32>, memref<6x1xf32>) -> ()
    %flat = memref.collapse_shape %Y [[0, 1]] : memref<6x1xf32> into memref<6xf32>
    %v = vector.transfer_read %flat[%c0], %junk : memref<6xf32>, vector<6xf32>
    vector.print %v : vector<6xf32>
    return
  }
}
