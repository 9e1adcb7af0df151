// Thread 0 alone (under scf.if tx == 0) writes a shared buffer at thread
// scope, then every thread reads all of it at thread scope. One buffer value
// that every thread sees is one memory they all touch, but the analysis
// took "the same value at the same scope" as each thread's own memory and
// placed no barrier (a race in axe-gpu-run). It now places a CTA barrier.
// The CPU refuses control flow on a thread axis, so only the GPU runs.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-insert-barriers | FileCheck %s --check-prefix=BARRIERS
// BARRIERS: scf.if
// BARRIERS: axe.barrier at cta
// CHECK: mismatches: 0
// threads 32 (no ws). Thread 0 fills s (32 elems) with X at thread scope (scf.if tx == 0);
// then every thread t sums all of s at thread scope into its register and stores it to Y[t].
!s32 = !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, shared>
!g32 = !axe.buffer<32xf32, #axe.layout<S[32 : 1]>, global>
!acc = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, reg>
!g0 = !axe.buffer<f32, #axe.layout<S[1 : 1]>, global>
!g1 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<32xf32>, %Y: memref<32xf32>) {
    %c0 = arith.constant 0 : index
    axe.kernel grid [1] threads 32 {
      %s = axe.alloc : !s32
      %tx = axe.axis_id tx
      %is0 = arith.cmpi eq, %tx, %c0 : index
      scf.if %is0 {
        %gx = axe.view %X[0] : memref<32xf32> -> !g32
        axe.copy %gx to %s at thread : !g32 to !s32
      }
      %a = axe.alloc : !acc
      axe.reduce sum %s into %a dims [0] at thread : !s32 into !acc
      %gy = axe.view %Y[%tx] : memref<32xf32> -> !g1
      axe.copy %a to %gy at thread : !acc to !g1
    }
    return
  }
  func.func @ref(%X: memref<32xf32>, %Z: memref<32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zf = arith.constant 0.0 : f32
    %s = scf.for %i = %c0 to %c32 step %c1 iter_args(%a = %zf) -> f32 {
      %v = memref.load %X[%i] : memref<32xf32>
      %n = arith.addf %a, %v : f32
      scf.yield %n : f32
    }
    scf.for %i = %c0 to %c32 step %c1 {
      memref.store %s, %Z[%i] : memref<32xf32>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c101 = arith.constant 101 : index
    %nx = arith.constant 32 : index
    %ny = arith.constant 32 : index
    %m1 = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<32xf32>
    %Y = memref.alloc() : memref<32xf32>
    %Z = memref.alloc() : memref<32xf32>
    scf.for %i = %c0 to %nx step %c1 {
      %a = arith.muli %i, %c7 : index
      %m = arith.remui %a, %c101 : index
      %mi = arith.index_cast %m : index to i64
      %v = arith.sitofp %mi : i64 to f32
      memref.store %v, %X[%i] : memref<32xf32>
    }
    scf.for %i = %c0 to %ny step %c1 {
      memref.store %m1, %Y[%i] : memref<32xf32>
      memref.store %m1, %Z[%i] : memref<32xf32>
    }
    call @kernel(%X, %Y) : (memref<32xf32>, memref<32xf32>) -> ()
    call @ref(%X, %Z) : (memref<32xf32>, memref<32xf32>) -> ()
    %bad = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %c0) -> index {
      %g = memref.load %Y[%i] : memref<32xf32>
      %w = memref.load %Z[%i] : memref<32xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %n1 = arith.addi %n, %c1 : index
      %r = arith.select %ne, %n1, %n : index
      scf.yield %r : index
    }
    vector.print str "mismatches: "
    vector.print %bad : index
    %first = scf.for %i = %c0 to %ny step %c1 iter_args(%n = %ny) -> index {
      %g = memref.load %Y[%i] : memref<32xf32>
      %w = memref.load %Z[%i] : memref<32xf32>
      %ne = arith.cmpf une, %g, %w : f32
      %lt = arith.cmpi ult, %i, %n : index
      %both = arith.andi %ne, %lt : i1
      %r = arith.select %both, %i, %n : index
      scf.yield %r : index
    }
    %has = arith.cmpi ult, %first, %ny : index
    scf.if %has {
      %g = memref.load %Y[%first] : memref<32xf32>
      %w = memref.load %Z[%first] : memref<32xf32>
      vector.print str "first bad index/got/want: "
      vector.print %first : index
      vector.print %g : f32
      vector.print %w : f32
    }
    return
  }
}
