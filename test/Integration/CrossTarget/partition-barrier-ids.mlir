// A partition barrier in a CTA of 1024 threads (8 warpgroups): sm_90 refused
// it, reserving named barriers for warpgroup barriers and turns the kernel
// does not use (id 18 of 16). Ids now go to what the kernel uses. On the
// CPU and, with races checked, in axe-gpu-run for sm_80 and sm_90.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// CHECK: mismatches: 0
// threads 1024 (32 warps). Partition [0,2): swap rows through shared (needs partition_barrier).
// Other warps in no partition.
!s2 = !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, shared>
!row = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!grow = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%Xf: memref<64xf32>, %Yf: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %X = memref.expand_shape %Xf [[0, 1]] output_shape [2, 32] : memref<64xf32> into memref<2x32xf32>
    %Y = memref.expand_shape %Yf [[0, 1]] output_shape [2, 32] : memref<64xf32> into memref<2x32xf32>
    axe.kernel grid [1] threads 1024 {
      %s = axe.alloc : !s2
      axe.warp_specialize {
        axe.partition warps [0, 2) {
          %w = axe.axis_id warpid
          %o = arith.subi %c1, %w : index
          %gx = axe.view %X[%w, 0] : memref<2x32xf32> -> !grow
          %mine = axe.slice %s[%w, 0] : !s2 -> !row
          axe.copy %gx to %mine at warp : !grow to !row
          %other = axe.slice %s[%o, 0] : !s2 -> !row
          %gy = axe.view %Y[%w, 0] : memref<2x32xf32> -> !grow
          axe.copy %other to %gy at warp : !row to !grow
        }
      }
    }
    return
  }
  func.func @ref(%Xf: memref<64xf32>, %Zf: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {
      %j = arith.addi %i, %c32 : index
      %k = arith.remui %j, %c64 : index
      %v = memref.load %Xf[%k] : memref<64xf32>
      memref.store %v, %Zf[%i] : memref<64xf32>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c101 = arith.constant 101 : index
    %nx = arith.constant 64 : index
    %ny = arith.constant 64 : index
    %m1 = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<64xf32>
    %Y = memref.alloc() : memref<64xf32>
    %Z = memref.alloc() : memref<64xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %a = arith.muli %i, %c7 : index
      %m = arith.remui %a, %c101 : index
      %mi = arith.index_cast %m : index to i64
      %v = arith.sitofp %mi : i64 to f32
      memref.store %v, %X[%i] : memref<64xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %m1, %Y[%i] : memref<64xf32>
      memref.store %m1, %Z[%i] : memref<64xf32>
    }
    call @kernel(%X, %Y) : (memref<64xf32>, memref<64xf32>) -> ()
    call @ref(%X, %Z) : (memref<64xf32>, memref<64xf32>) -> ()
    %bad = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %c0) -> index {
      %g = memref.load %Y[%i] : memref<64xf32>
      %w = memref.load %Z[%i] : memref<64xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %n1 = arith.addi %n, %c1 : index
      %r = arith.select %ne, %n1, %n : index
      scf.yield %r : index
    }
    vector.print str "mismatches: "
    vector.print %bad : index
    %first = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %ny) -> index {
      %g = memref.load %Y[%i] : memref<64xf32>
      %w = memref.load %Z[%i] : memref<64xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %lt = arith.cmpi ult, %i, %n : index
      %both = arith.andi %ne, %lt : i1
      %r = arith.select %both, %i, %n : index
      scf.yield %r : index
    }
    %has = arith.cmpi ult, %first, %ny : index
    scf.if %has {
      %g = memref.load %Y[%first] : memref<64xf32>
      %w = memref.load %Z[%first] : memref<64xf32>
      vector.print str "first bad index/got/want: "
      vector.print %first : index
      vector.print %g : f32
      vector.print %w : f32
    }
    return
  }
}
