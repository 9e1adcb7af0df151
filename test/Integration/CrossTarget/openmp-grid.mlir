// The grid of a kernel on every core through OpenMP, and CTA buffers on the
// stack. 4096 CTAs each fill a 64 KiB shared tile with their index and copy
// one row of it out: the tiles must be released at the end of each CTA (4096
// of them would take 256 MiB of stack), and CTAs running at once on
// different threads must not share one.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu='openmp=true' -o %t.omp.mlir
// RUN: FileCheck %s --check-prefix=OMP < %t.omp.mlir
// RUN: env OMP_NUM_THREADS=2 mlir-runner %t.omp.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libomp%shlibext \
// RUN: | FileCheck %s
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// OMP: omp.parallel
// OMP: omp.wsloop
// OMP: llvm.intr.stacksave

!t = !axe.buffer<128x128xf32, #axe.layout<S[(128, 128) : (128, 1)]>, shared>
!row = !axe.buffer<1x128xf32, #axe.layout<S[(1, 128) : (128, 1)] + 640>, shared>
!g = !axe.buffer<1x128xf32, #axe.layout<S[(1, 128) : (128, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%out: memref<4096x128xf32>) {
    axe.kernel grid [4096] threads 32 {
      %bx = axe.axis_id bx
      %i = arith.index_cast %bx : index to i32
      %v = arith.sitofp %i : i32 to f32
      %tile = axe.alloc : !t
      axe.fill %tile, %v at cta : !t
      %r = axe.slice %tile[5, 0] : !t -> !row
      %o = axe.view %out[%bx, 0] : memref<4096x128xf32> -> !g
      axe.copy %r to %o at cta : !row to !g
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c4096 = arith.constant 4096 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %out = memref.alloc() : memref<4096x128xf32>
    call @kernel(%out) : (memref<4096x128xf32>) -> ()
    // Count the elements that differ from their CTA's index.
    %bad = scf.for %b = %c0 to %c4096 step %c1 iter_args(%n = %zero) -> i64 {
      %bi = arith.index_cast %b : index to i32
      %want = arith.sitofp %bi : i32 to f32
      %m = scf.for %j = %c0 to %c128 step %c1 iter_args(%k = %n) -> i64 {
        %x = memref.load %out[%b, %j] : memref<4096x128xf32>
        %ne = arith.cmpf une, %x, %want : f32
        %add = arith.select %ne, %one, %zero : i64
        %k2 = arith.addi %k, %add : i64
        scf.yield %k2 : i64
      }
      scf.yield %m : i64
    }
    vector.print str "mismatches: "
    vector.print %bad : i64
    memref.dealloc %out : memref<4096x128xf32>
    return
  }
}
// CHECK: mismatches: 0
