// Distributed shared memory with no barrier written: each CTA of a 2-CTA
// cluster copies its row of X into its own row of a shared buffer placed
// on cbx, then copies its peer's row (the peer CTA's shared memory) to Y.
// axe-insert-barriers orders the two copies with a cluster barrier (a CTA
// barrier does not order the peer's write) and closes the kernel with one,
// so that no CTA exits while its peer still reads its shared memory. The
// CPU and sm_80 have no distributed shared memory; on sm_90, with races
// checked, every element is compared with the reference.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-insert-barriers | FileCheck %s --check-prefix=BARRIERS
// BARRIERS: axe.copy %{{.*}} to %[[MINE:.*]] at cta
// BARRIERS-NEXT: arith.subi
// BARRIERS-NEXT: axe.slice
// BARRIERS-NEXT: axe.view
// BARRIERS-NEXT: axe.barrier at cluster
// BARRIERS-NEXT: axe.copy
// BARRIERS-NEXT: axe.barrier at cluster
// BARRIERS-NEXT: }
// CHECK: swap mismatches: 0

#dsm = #axe.layout<S[(2, 64) : (1@cbx, 1)]>
#row = #axe.layout<S[(1, 64) : (1@cbx, 1)]>
#g = #axe.layout<S[(1, 64) : (64, 1)]>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @swap(%X: memref<2x64xf32>, %Y: memref<2x64xf32>) {
    %c1 = arith.constant 1 : index
    axe.kernel grid [2] threads 64 cluster [2] {
      %r = axe.axis_id cbx
      %d = axe.alloc : !axe.buffer<2x64xf32, #dsm, shared>
      %mine = axe.slice %d[%r, 0] : !axe.buffer<2x64xf32, #dsm, shared> -> !axe.buffer<1x64xf32, #row, shared>
      %gx = axe.view %X[%r, 0] : memref<2x64xf32> -> !axe.buffer<1x64xf32, #g, global>
      axe.copy %gx to %mine at cta : !axe.buffer<1x64xf32, #g, global> to !axe.buffer<1x64xf32, #row, shared>
      %o = arith.subi %c1, %r : index
      %theirs = axe.slice %d[%o, 0] : !axe.buffer<2x64xf32, #dsm, shared> -> !axe.buffer<1x64xf32, #row, shared>
      %gy = axe.view %Y[%r, 0] : memref<2x64xf32> -> !axe.buffer<1x64xf32, #g, global>
      axe.copy %theirs to %gy at cta : !axe.buffer<1x64xf32, #row, shared> to !axe.buffer<1x64xf32, #g, global>
    }
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %X = memref.alloc() : memref<2x64xf32>
    %Y = memref.alloc() : memref<2x64xf32>
    scf.for %i = %c0 to %c2 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %a = arith.muli %i, %c64 : index
        %b = arith.addi %a, %j : index
        %bb = arith.index_cast %b : index to i64
        %f = arith.sitofp %bb : i64 to f32
        memref.store %f, %X[%i, %j] : memref<2x64xf32>
      }
    }
    call @swap(%X, %Y) : (memref<2x64xf32>, memref<2x64xf32>) -> ()
    %bad = scf.for %i = %c0 to %c2 step %c1 iter_args(%n = %c0) -> index {
      %peer = arith.subi %c1, %i : index
      %m = scf.for %j = %c0 to %c64 step %c1 iter_args(%q = %n) -> index {
        %want = memref.load %X[%peer, %j] : memref<2x64xf32>
        %got = memref.load %Y[%i, %j] : memref<2x64xf32>
        %ne = arith.cmpf une, %want, %got : f32
        %q1 = arith.addi %q, %c1 : index
        %q2 = arith.select %ne, %q1, %q : index
        scf.yield %q2 : index
      }
      scf.yield %m : index
    }
    vector.print str "swap mismatches: "
    vector.print %bad : index
    return
  }
}
