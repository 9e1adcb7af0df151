// Warpgroup- and thread-scope operators in a 256-thread CTA, run on the CPU:
// each of the 2 warpgroups copies its own 8 rows of X into registers held by
// the warpgroup (a layout on tid_in_wg), scales them by wgid + 1 and stores
// them into Y; then each of the 256 threads adds its tx to its own element
// of Y through a one-element register buffer. main checks every element.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The same checks on sm_90, the kernel lowered with axe-to-nvvm and run lane
// by lane in axe-gpu-run (docs/GPURun.md); sm_80 has no warpgroups.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

!g8 = !axe.buffer<8x16xf32, #axe.layout<S[(8, 16) : (16, 1)]>, global>
!wg = !axe.buffer<8x16xf32, #axe.layout<S[(8, 16) : (1@tid_in_wg, 8@tid_in_wg)]>, reg>
!g1 = !axe.buffer<1x1xf32, #axe.layout<S[(1, 1) : (16, 1)]>, global>
!t1 = !axe.buffer<1x1xf32, #axe.layout<S[(1, 1) : (1, 1)]>, reg>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<16x16xf32>, %Y: memref<16x16xf32>) {
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1.0 : f32
    axe.kernel grid [1] threads 256 {
      %wgid = axe.axis_id wgid
      %row = arith.muli %wgid, %c8 : index
      %gx = axe.view %X[%row, 0] : memref<16x16xf32> -> !g8
      %r = axe.alloc : !wg
      axe.copy %gx to %r at warpgroup : !g8 to !wg
      %wi = arith.index_cast %wgid : index to i32
      %wf = arith.sitofp %wi : i32 to f32
      %scale = arith.addf %wf, %one : f32
      %s = axe.alloc : !wg
      axe.elementwise ins(%r : !wg) outs(%s : !wg) at warpgroup {
      ^bb0(%v: f32):
        %p = arith.mulf %v, %scale : f32
        axe.yield %p : f32
      }
      %gy = axe.view %Y[%row, 0] : memref<16x16xf32> -> !g8
      axe.copy %s to %gy at warpgroup : !wg to !g8
      axe.barrier at cta
      // Thread tx owns element (tx / 16, tx mod 16) of Y.
      %tx = axe.axis_id tx
      %i = arith.divui %tx, %c16 : index
      %j = arith.remui %tx, %c16 : index
      %ge = axe.view %Y[%i, %j] : memref<16x16xf32> -> !g1
      %t = axe.alloc : !t1
      axe.copy %ge to %t at thread : !g1 to !t1
      %ti = arith.index_cast %tx : index to i32
      %tf = arith.sitofp %ti : i32 to f32
      axe.elementwise ins(%t : !t1) outs(%ge : !g1) at thread {
      ^bb0(%v: f32):
        %q = arith.addf %v, %tf : f32
        axe.yield %q : f32
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %minus = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<16x16xf32>
    %Y = memref.alloc() : memref<16x16xf32>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %a = arith.muli %i, %c16 : index
        %f = arith.addi %a, %j : index
        %fi = arith.index_cast %f : index to i64
        %v = arith.sitofp %fi : i64 to f32
        memref.store %v, %X[%i, %j] : memref<16x16xf32>
        memref.store %minus, %Y[%i, %j] : memref<16x16xf32>
      }
    }
    call @kernel(%X, %Y) : (memref<16x16xf32>, memref<16x16xf32>) -> ()
    // Y[i][j] = X[i][j] * (i / 8 + 1) + 16 i + j.
    %bad = scf.for %i = %c0 to %c16 step %c1 iter_args(%n = %zi) -> (i64) {
      %row = scf.for %j = %c0 to %c16 step %c1 iter_args(%m = %n) -> (i64) {
        %x = memref.load %X[%i, %j] : memref<16x16xf32>
        %w = arith.divui %i, %c8 : index
        %w1 = arith.addi %w, %c1 : index
        %wi = arith.index_cast %w1 : index to i64
        %wf = arith.sitofp %wi : i64 to f32
        %p = arith.mulf %x, %wf : f32
        %t = arith.addf %p, %x : f32
        %got = memref.load %Y[%i, %j] : memref<16x16xf32>
        %ne = arith.cmpf une, %got, %t : f32
        %inc = arith.select %ne, %one, %zi : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    // CHECK: mismatches: 0
    vector.print str "mismatches: "
    vector.print %bad : i64
    %c12 = arith.constant 12 : index
    %c5 = arith.constant 5 : index
    %y = memref.load %Y[%c12, %c5] : memref<16x16xf32>
    // Y[12][5] = 197 * 2 + 197
    // CHECK-NEXT: 591
    vector.print %y : f32
    memref.dealloc %X : memref<16x16xf32>
    memref.dealloc %Y : memref<16x16xf32>
    return
  }
}
