// Distributed shared memory from an axe layout: a 2x64 shared buffer whose
// rows lie on cbx (row r in the shared memory of the cluster's CTA r). Each
// CTA of a 2-CTA cluster copies its row of X into its own row of the
// buffer, a cluster barrier orders the writes before the reads, and each
// CTA copies its peer's row to its row of Y. The SIMT copies reach the rows
// through mapa and shared::cluster loads and stores (one element each);
// the second barrier keeps a CTA's shared memory alive until its peer has
// read it. Run in the interpreter with races checked across the cluster.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | FileCheck %s --check-prefix=NVVM
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 \
// RUN:   | axe-gpu-run --extra-module=%S/Inputs/dsmem-swap-main.mlir -e main -entry-point-result=i32 \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   --check-races --stats=%t.stats.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats.json

// CHECK: swap mismatches: 0
// CHECK-NEXT: Y[0][1] = 65

// The CTA's place in its cluster comes from %cluster_ctaid; each element
// goes through mapa to the CTA its row names.
// NVVM: gpu.launch_func {{.*}} clusters in (%c2, %c1, %c1)
// NVVM: nvvm.read.ptx.sreg.cluster.ctaid.x
// NVVM: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// NVVM-NEXT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<7>
// NVVM: nvvm.cluster.arrive {aligned}
// NVVM-NEXT: nvvm.cluster.wait {aligned}
// NVVM: nvvm.mapa
// NVVM-NEXT: llvm.load %{{.*}} : !llvm.ptr<7> -> f32

// Per CTA, two warps store their row through mapa to their own CTA (local)
// and load the peer's row (remote): 8 warp requests, 4 remote, 1 KiB.
// STATS: "clusters": 1
// STATS: "dsmem_total": {
// STATS-NEXT: "requests": 8,
// STATS-NEXT: "remote_requests": 4,
// STATS-NEXT: "bytes": 1024

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
      axe.barrier at cluster
      %o = arith.subi %c1, %r : index
      %theirs = axe.slice %d[%o, 0] : !axe.buffer<2x64xf32, #dsm, shared> -> !axe.buffer<1x64xf32, #row, shared>
      %gy = axe.view %Y[%r, 0] : memref<2x64xf32> -> !axe.buffer<1x64xf32, #g, global>
      axe.copy %theirs to %gy at cta : !axe.buffer<1x64xf32, #row, shared> to !axe.buffer<1x64xf32, #g, global>
      axe.barrier at cluster
    }
    return
  }
}
