// Thread-block clusters and distributed shared memory: two clusters of
// 2x1 CTAs (grid 4x1), 64 threads each. Each thread writes its CTA's
// pattern 1000 * rank + 100 * ctaid.x + tid into its own shared buffer,
// the cluster barrier orders the writes before the reads, and each thread
// reads element tid of its peer's (rank ^ 1) buffer through nvvm.mapa and
// llvm.load on !llvm.ptr<7> (out) and its own through llvm.addrspacecast
// 3 -> 7 (own). A remote llvm.store then writes 7 * tid into the peer's
// second buffer, a second cluster barrier orders it, and each thread reads
// it back from its own (back). A final barrier keeps every CTA's shared
// memory alive until its peer is done. The host checks all 3 x 256
// elements against its own computation.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   --stats=%t.json \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: errors 0
// CHECK-NEXT: out[130] = 1302
// STATS: "ctas": 4,
// STATS-NEXT: "clusters": 2,
// STATS: "dsmem_total": {
// STATS-NEXT: "requests": 24,
// STATS-NEXT: "remote_requests": 16,
// STATS-NEXT: "bytes": 3072

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @peer(%out: memref<256xi32>, %own: memref<256xi32>, %back: memref<256xi32>)
        workgroup(%s : memref<64xi32, #gpu.address_space<workgroup>>,
                  %r : memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %c64 = arith.constant 64 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %ranki = arith.index_cast %rank : i32 to index
      %c1000 = arith.constant 1000 : index
      %c100 = arith.constant 100 : index
      %p0 = arith.muli %ranki, %c1000 : index
      %p1 = arith.muli %bid, %c100 : index
      %p2 = arith.addi %p0, %p1 : index
      %p3 = arith.addi %p2, %tid : index
      %pat = arith.index_cast %p3 : index to i32
      memref.store %pat, %s[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
      nvvm.cluster.arrive {aligned}
      nvvm.cluster.wait {aligned}
      %sa = memref.extract_aligned_pointer_as_index %s : memref<64xi32, #gpu.address_space<workgroup>> -> index
      %sai = arith.index_cast %sa : index to i64
      %sp = llvm.inttoptr %sai : i64 to !llvm.ptr<3>
      %one = arith.constant 1 : i32
      %peer = arith.xori %rank, %one : i32
      %remote = nvvm.mapa %sp, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      %t32 = arith.index_cast %tid : index to i32
      %ep = llvm.getelementptr %remote[%t32] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i32
      %v = llvm.load %ep : !llvm.ptr<7> -> i32
      %g = arith.muli %bid, %c64 : index
      %gi = arith.addi %g, %tid : index
      memref.store %v, %out[%gi] : memref<256xi32>
      %mine = llvm.addrspacecast %sp : !llvm.ptr<3> to !llvm.ptr<7>
      %mp = llvm.getelementptr %mine[%t32] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i32
      %w = llvm.load %mp : !llvm.ptr<7> -> i32
      memref.store %w, %own[%gi] : memref<256xi32>
      // Remote store into the peer's %r.
      %ra = memref.extract_aligned_pointer_as_index %r : memref<64xi32, #gpu.address_space<workgroup>> -> index
      %rai = arith.index_cast %ra : index to i64
      %rp = llvm.inttoptr %rai : i64 to !llvm.ptr<3>
      %rr = nvvm.mapa %rp, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      %rq = llvm.getelementptr %rr[%t32] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i32
      %c7 = arith.constant 7 : i32
      %x = arith.muli %t32, %c7 : i32
      llvm.store %x, %rq : i32, !llvm.ptr<7>
      nvvm.cluster.arrive.relaxed
      nvvm.cluster.wait
      %y = memref.load %r[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %y, %back[%gi] : memref<256xi32>
      nvvm.cluster.arrive
      nvvm.cluster.wait
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c100 = arith.constant 100 : index
    %c1000 = arith.constant 1000 : index
    %c7 = arith.constant 7 : index
    %z = arith.constant 0 : i32
    %out = memref.alloc() : memref<256xi32>
    %own = memref.alloc() : memref<256xi32>
    %back = memref.alloc() : memref<256xi32>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %b = %c0 to %c4 step %c1 {
        %g0 = arith.muli %b, %c64 : index
        %g = arith.addi %g0, %i : index
        memref.store %z, %out[%g] : memref<256xi32>
        memref.store %z, %own[%g] : memref<256xi32>
        memref.store %z, %back[%g] : memref<256xi32>
      }
    }
    gpu.launch_func @kernels::@peer clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%out : memref<256xi32>, %own : memref<256xi32>, %back : memref<256xi32>)
    // Expected: out[64b + t] = pattern of CTA b ^ 1 (rank (b % 2) ^ 1),
    // own[64b + t] = pattern of CTA b, back[64b + t] = 7t.
    %errs = scf.for %b = %c0 to %c4 step %c1 iter_args(%e0 = %c0) -> (index) {
      %e1 = scf.for %t = %c0 to %c64 step %c1 iter_args(%e = %e0) -> (index) {
        %g0 = arith.muli %b, %c64 : index
        %g = arith.addi %g0, %t : index
        %pb = arith.xori %b, %c1 : index
        %rk = arith.remui %b, %c2 : index
        %prk = arith.xori %rk, %c1 : index
        %x0 = arith.muli %prk, %c1000 : index
        %x1 = arith.muli %pb, %c100 : index
        %x2 = arith.addi %x0, %x1 : index
        %want = arith.addi %x2, %t : index
        %y0 = arith.muli %rk, %c1000 : index
        %y1 = arith.muli %b, %c100 : index
        %y2 = arith.addi %y0, %y1 : index
        %wown = arith.addi %y2, %t : index
        %wback = arith.muli %t, %c7 : index
        %v = memref.load %out[%g] : memref<256xi32>
        %vi = arith.index_cast %v : i32 to index
        %w = memref.load %own[%g] : memref<256xi32>
        %wi = arith.index_cast %w : i32 to index
        %u = memref.load %back[%g] : memref<256xi32>
        %ui = arith.index_cast %u : i32 to index
        %ok1 = arith.cmpi eq, %vi, %want : index
        %ok2 = arith.cmpi eq, %wi, %wown : index
        %ok3 = arith.cmpi eq, %ui, %wback : index
        %ok12 = arith.andi %ok1, %ok2 : i1
        %ok = arith.andi %ok12, %ok3 : i1
        %e2 = arith.addi %e, %c1 : index
        %en = arith.select %ok, %e, %e2 : index
        scf.yield %en : index
      }
      scf.yield %e1 : index
    }
    vector.print str "errors "
    vector.print %errs : index
    %c130 = arith.constant 130 : index
    %s = memref.load %out[%c130] : memref<256xi32>
    vector.print str "out[130] = "
    vector.print %s : i32
    return
  }
}
