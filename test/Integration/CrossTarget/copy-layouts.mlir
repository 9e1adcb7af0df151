// Copies between row-major, swizzled, tiled and transposed layouts, run on
// the CPU: every CTA moves a 32x32 tile of A through a swizzled shared tile
// and a tiled register tile into the transposed position of B.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The operators' code inline in the kernel, as without outlining:
// RUN: axe-opt %s --axe-to-cpu=outline=false | mlir-runner -e main -entry-point-result=void \
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

!gA = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (64, 1)]>, global>
!gB = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (1, 64)]>, global>
!sw = !axe.buffer<32x32xf32, #axe.layout<SW(2, 3, 3) o S[(32, 32) : (32, 1)]>, shared>
!tiled = !axe.buffer<32x32xf32, #axe.layout<S[(4, 8, 4, 8) : (256, 8, 64, 1)]>, shared>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @transpose(%A: memref<64x64xf32>, %B: memref<64x64xf32, strided<[1, 64]>>) {
    %c32 = arith.constant 32 : index
    axe.kernel grid [2, 2] threads 128 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %i = arith.muli %bx, %c32 : index
      %j = arith.muli %by, %c32 : index
      %a = axe.view %A[%i, %j] : memref<64x64xf32> -> !gA
      %s = axe.alloc : !sw
      %t = axe.alloc : !tiled
      axe.copy %a to %s at cta : !gA to !sw
      // The threads of the CTA read what others wrote: a barrier between
      // the copies (on the CPU, where a CTA is one thread, it is dropped).
      axe.barrier at cta
      axe.copy %s to %t at cta : !sw to !tiled
      axe.barrier at cta
      // B is column-major: element (r, c) of this tile is B[j + r][i + c],
      // stored at Bm[i + c][j + r] -- the tile lands transposed in memory.
      %b = axe.view %B[%j, %i] : memref<64x64xf32, strided<[1, 64]>> -> !gB
      axe.copy %t to %b at cta : !tiled to !gB
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %A = memref.alloc() : memref<64x64xf32>
    %Bm = memref.alloc() : memref<64x64xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %ij = arith.muli %i, %c64 : index
        %f = arith.addi %ij, %j : index
        %fi = arith.index_cast %f : index to i64
        %v = arith.sitofp %fi : i64 to f32
        memref.store %v, %A[%i, %j] : memref<64x64xf32>
      }
    }
    // The column-major view of Bm: B[r][c] lives at Bm[c][r].
    %B = memref.reinterpret_cast %Bm to offset: [0], sizes: [64, 64], strides: [1, 64]
        : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
    call @transpose(%A, %B) : (memref<64x64xf32>, memref<64x64xf32, strided<[1, 64]>>) -> ()
    // B[32 by + r][32 bx + c] = A[32 bx + r][32 by + c] for every element,
    // so B[x][y] = A[32 (y / 32) + x % 32][32 (x / 32) + y % 32].
    %bad = scf.for %x = %c0 to %c64 step %c1 iter_args(%n = %zero) -> (i64) {
      %row = scf.for %y = %c0 to %c64 step %c1 iter_args(%m = %n) -> (i64) {
        %got = memref.load %B[%x, %y] : memref<64x64xf32, strided<[1, 64]>>
        %xq = arith.divui %x, %c32 : index
        %xr = arith.remui %x, %c32 : index
        %yq = arith.divui %y, %c32 : index
        %yr = arith.remui %y, %c32 : index
        %wr0 = arith.muli %yq, %c32 : index
        %wr = arith.addi %wr0, %xr : index
        %wc0 = arith.muli %xq, %c32 : index
        %wc = arith.addi %wc0, %yr : index
        %want = memref.load %A[%wr, %wc] : memref<64x64xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %inc = arith.select %ne, %one, %zero : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    // CHECK: mismatches: 0
    vector.print str "mismatches: "
    vector.print %bad : i64
    %c5 = arith.constant 5 : index
    %c40 = arith.constant 40 : index
    %v0 = memref.load %B[%c5, %c40] : memref<64x64xf32, strided<[1, 64]>>
    // B[5][40] = A[37][8]
    // CHECK-NEXT: 2376
    vector.print %v0 : f32
    memref.dealloc %A : memref<64x64xf32>
    memref.dealloc %Bm : memref<64x64xf32>
    return
  }
}
