// Cluster special registers for (2, 2, 1) clusters over a (4, 2, 1) grid:
// thread 0 of each CTA writes the 14 nvvm cluster registers and 6 gpu
// cluster ops into its row of 20; the host computes every value from the
// CTA's position (rank = x + 2y in the cluster).
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s

// CHECK: errors 0
// CHECK-NEXT: checked 160

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @regs(%out: memref<8x20xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %b0 = arith.muli %by, %c4 : index
      %b = arith.addi %b0, %bx : index
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        %r0 = nvvm.read.ptx.sreg.cluster.ctaid.x : i32
        %r1 = nvvm.read.ptx.sreg.cluster.ctaid.y : i32
        %r2 = nvvm.read.ptx.sreg.cluster.ctaid.z : i32
        %r3 = nvvm.read.ptx.sreg.cluster.nctaid.x : i32
        %r4 = nvvm.read.ptx.sreg.cluster.nctaid.y : i32
        %r5 = nvvm.read.ptx.sreg.cluster.nctaid.z : i32
        %r6 = nvvm.read.ptx.sreg.cluster.ctarank : i32
        %r7 = nvvm.read.ptx.sreg.cluster.nctarank : i32
        %r8 = nvvm.read.ptx.sreg.clusterid.x : i32
        %r9 = nvvm.read.ptx.sreg.clusterid.y : i32
        %r10 = nvvm.read.ptx.sreg.clusterid.z : i32
        %r11 = nvvm.read.ptx.sreg.nclusterid.x : i32
        %r12 = nvvm.read.ptx.sreg.nclusterid.y : i32
        %r13 = nvvm.read.ptx.sreg.nclusterid.z : i32
        %g14 = gpu.cluster_id x
        %g15 = gpu.cluster_id y
        %g16 = gpu.cluster_block_id x
        %g17 = gpu.cluster_block_id y
        %g18 = gpu.cluster_dim x
        %g19 = gpu.cluster_dim_blocks y
        %regs = vector.from_elements %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13 : vector<14xi32>
        vector.store %regs, %out[%b, %c0] : memref<8x20xi32>, vector<14xi32>
        %i14 = arith.index_cast %g14 : index to i32
        %i15 = arith.index_cast %g15 : index to i32
        %i16 = arith.index_cast %g16 : index to i32
        %i17 = arith.index_cast %g17 : index to i32
        %i18 = arith.index_cast %g18 : index to i32
        %i19 = arith.index_cast %g19 : index to i32
        %gs = vector.from_elements %i14, %i15, %i16, %i17, %i18, %i19 : vector<6xi32>
        %c14 = arith.constant 14 : index
        vector.store %gs, %out[%b, %c14] : memref<8x20xi32>, vector<6xi32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c20 = arith.constant 20 : index
    %c32 = arith.constant 32 : index
    %m1 = arith.constant -1 : i32
    %out = memref.alloc() : memref<8x20xi32>
    scf.for %b = %c0 to %c8 step %c1 {
      scf.for %k = %c0 to %c20 step %c1 {
        memref.store %m1, %out[%b, %k] : memref<8x20xi32>
      }
    }
    gpu.launch_func @kernels::@regs clusters in (%c2, %c2, %c1) blocks in (%c4, %c2, %c1) threads in (%c32, %c1, %c1)
        args(%out : memref<8x20xi32>)
    %ref = memref.alloc() : memref<20xindex>
    %res:2 = scf.for %b = %c0 to %c8 step %c1 iter_args(%e0 = %c0, %n0 = %c0) -> (index, index) {
      %bx = arith.remui %b, %c4 : index
      %by = arith.divui %b, %c4 : index
      %cx = arith.remui %bx, %c2 : index
      %cy = arith.remui %by, %c2 : index
      %cy2 = arith.muli %cy, %c2 : index
      %rank = arith.addi %cx, %cy2 : index
      %clx = arith.divui %bx, %c2 : index
      %cly = arith.divui %by, %c2 : index
      // cluster.ctaid, cluster.nctaid, ctarank, nctarank, clusterid,
      // nclusterid (grid 4x2 in 2x2 clusters: 2x1x1), then the gpu ops.
      %vals = vector.from_elements %cx, %cy, %c0, %c2, %c2, %c1, %rank, %c4, %clx, %cly, %c0, %c2, %c1, %c1, %clx, %cly, %cx, %cy, %c2, %c2 : vector<20xindex>
      vector.store %vals, %ref[%c0] : memref<20xindex>, vector<20xindex>
      %e1:2 = scf.for %k = %c0 to %c20 step %c1 iter_args(%e = %e0, %n = %n0) -> (index, index) {
        %want = memref.load %ref[%k] : memref<20xindex>
        %got = memref.load %out[%b, %k] : memref<8x20xi32>
        %goti = arith.index_cast %got : i32 to index
        %ok = arith.cmpi eq, %goti, %want : index
        %e2 = arith.addi %e, %c1 : index
        %en = arith.select %ok, %e, %e2 : index
        %n1 = arith.addi %n, %c1 : index
        scf.yield %en, %n1 : index, index
      }
      scf.yield %e1#0, %e1#1 : index, index
    }
    vector.print str "errors "
    vector.print %res#0 : index
    vector.print str "checked "
    vector.print %res#1 : index
    return
  }
}
