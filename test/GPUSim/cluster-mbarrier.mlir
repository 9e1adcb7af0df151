// A remote mbarrier arrive: in a 2x1 cluster each thread stores
// 10 * rank + 1000 * tid into its peer's buffer through mapa, then arrives
// on the peer's mbarrier (shared::cluster address); each CTA waits on its
// own mbarrier (count 32: its peer's 32 threads) and reads what its peer
// wrote. --check-races accepts it: the completed phase orders the remote
// stores before the reads. The host checks all 64 elements.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s

// CHECK: errors 0

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @k(%out: memref<64xi32>)
        workgroup(%s : memref<32xi32, #gpu.address_space<workgroup>>,
                  %bar : memref<1xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %one = arith.constant 1 : i32
      %peer = arith.xori %rank, %one : i32
      %ba = memref.extract_aligned_pointer_as_index %bar : memref<1xi64, #gpu.address_space<workgroup>> -> index
      %bai = arith.index_cast %ba : index to i64
      %bp = llvm.inttoptr %bai : i64 to !llvm.ptr<3>
      %is0 = arith.cmpi eq, %tid, %c0 : index
      %c32i = arith.constant 32 : i32
      scf.if %is0 {
        nvvm.mbarrier.init %bp, %c32i : !llvm.ptr<3>, i32
      }
      nvvm.cluster.arrive {aligned}
      nvvm.cluster.wait {aligned}
      %sa = memref.extract_aligned_pointer_as_index %s : memref<32xi32, #gpu.address_space<workgroup>> -> index
      %sai = arith.index_cast %sa : index to i64
      %sp = llvm.inttoptr %sai : i64 to !llvm.ptr<3>
      %rs = nvvm.mapa %sp, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      %t32 = arith.index_cast %tid : index to i32
      %q = llvm.getelementptr %rs[%t32] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i32
      %c10 = arith.constant 10 : i32
      %c1000 = arith.constant 1000 : i32
      %v0 = arith.muli %rank, %c10 : i32
      %v1 = arith.muli %t32, %c1000 : i32
      %v = arith.addi %v0, %v1 : i32
      llvm.store %v, %q : i32, !llvm.ptr<7>
      %rb = nvvm.mapa %bp, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      nvvm.mbarrier.arrive %rb : !llvm.ptr<7>
      %phase = arith.constant 0 : i32
      %ticks = arith.constant 1000 : i32
      nvvm.mbarrier.try_wait.parity %bp, %phase, %ticks : !llvm.ptr<3>, i32, i32
      %x = memref.load %s[%tid] : memref<32xi32, #gpu.address_space<workgroup>>
      %g0 = arith.muli %bid, %c32 : index
      %g = arith.addi %g0, %tid : index
      memref.store %x, %out[%g] : memref<64xi32>
      nvvm.cluster.arrive {aligned}
      nvvm.cluster.wait {aligned}
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c10 = arith.constant 10 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %out = memref.alloc() : memref<64xi32>
    gpu.launch_func @kernels::@k clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%out : memref<64xi32>)
    // out[32b + t] = what CTA b ^ 1 (rank b ^ 1) stored: 10 (b ^ 1) + 1000 t.
    %errs = scf.for %b = %c0 to %c2 step %c1 iter_args(%e0 = %c0) -> (index) {
      %e1 = scf.for %t = %c0 to %c32 step %c1 iter_args(%e = %e0) -> (index) {
        %pb = arith.xori %b, %c1 : index
        %w0 = arith.muli %pb, %c10 : index
        %w1 = arith.muli %t, %c1000 : index
        %want = arith.addi %w0, %w1 : index
        %g0 = arith.muli %b, %c32 : index
        %g = arith.addi %g0, %t : index
        %v = memref.load %out[%g] : memref<64xi32>
        %vi = arith.index_cast %v : i32 to index
        %ok = arith.cmpi eq, %vi, %want : index
        %e2 = arith.addi %e, %c1 : index
        %en = arith.select %ok, %e, %e2 : index
        scf.yield %en : index
      }
      scf.yield %e1 : index
    }
    vector.print str "errors "
    vector.print %errs : index
    return
  }
}
