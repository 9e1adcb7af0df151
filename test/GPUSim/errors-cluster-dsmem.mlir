// Cluster errors, one entry point each (2x1 clusters, 2 CTAs).
// RUN: not axe-gpu-run %s -e main_rank -entry-point-result=void 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not axe-gpu-run %s -e main_oob -entry-point-result=void 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not axe-gpu-run %s -e main_race -entry-point-result=void --check-races 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: axe-gpu-run %s -e main_race -entry-point-result=void --no-check-races 2>&1 | FileCheck %s --check-prefix=NORACE --allow-empty
// RUN: not axe-gpu-run %s -e main_deadlock -entry-point-result=void 2>&1 | FileCheck %s --check-prefix=DEADLOCK

// RANK: error: axe-gpu-run: kernel @rank, block (1, 0, 0), warp 0, thread (0, 0, 0) (lane 0): mapa to CTA rank 2, outside the cluster of 2 CTA(s) (ranks 0..1)

// Element 64 of the peer's 64 x i32 buffer: past its shared window.
// OOB: error: axe-gpu-run: kernel @oob, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): out-of-bounds remote read of 4 bytes at shared::cluster address 0x41000100: byte 256 of the shared window of block (1, 0, 0) (rank 1), which no shared buffer of that CTA holds (its buffers end at byte 256)

// CTA 0 reads CTA 1's buffer through mapa before any cluster barrier; CTA
// 1's threads then write it.
// RACE: error: axe-gpu-run: kernel @race, block (1, 0, 0), warp 0, thread (0, 0, 0) (lane 0): data race (write after read) on byte 0 of workgroup attribution 0 (shared memory of block (1, 0, 0) (rank 1)) with thread 0 of block (0, 0, 0) (rank 0) since the last barrier
// NORACE-NOT: error

// CTA 1's warp 0 waits at a CTA barrier its warp 1 never reaches (warp 1
// waits at the cluster barrier), so CTA 1 never arrives.
// DEADLOCK: error: axe-gpu-run: kernel @deadlock, cluster (0, 0, 0) of 2 CTAs: deadlock: 1 warp(s) wait at a barrier, 0 on an mbarrier phase that cannot complete, 0 exited, 3 wait(s) at the cluster barrier for threads that have not arrived
// DEADLOCK: note: block (0, 0, 0) (rank 0) warp 0 waits at this cluster barrier (nvvm.cluster.wait)
// DEADLOCK: note: block (0, 0, 0) (rank 0) warp 1 waits at this cluster barrier (nvvm.cluster.wait)
// DEADLOCK: note: block (1, 0, 0) (rank 1) warp 0 waits at this barrier
// DEADLOCK: note: block (1, 0, 0) (rank 1) warp 1 waits at this cluster barrier (nvvm.cluster.wait)

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @rank(%out: memref<64xi32>)
        workgroup(%s : memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %sa = memref.extract_aligned_pointer_as_index %s : memref<64xi32, #gpu.address_space<workgroup>> -> index
      %sai = arith.index_cast %sa : index to i64
      %sp = llvm.inttoptr %sai : i64 to !llvm.ptr<3>
      // Rank + 1: CTA 1 maps to rank 2.
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %one = arith.constant 1 : i32
      %to = arith.addi %rank, %one : i32
      %remote = nvvm.mapa %sp, %to : !llvm.ptr<3> -> !llvm.ptr<7>
      gpu.return
    }
    gpu.func @oob(%out: memref<64xi32>)
        workgroup(%s : memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %sa = memref.extract_aligned_pointer_as_index %s : memref<64xi32, #gpu.address_space<workgroup>> -> index
      %sai = arith.index_cast %sa : index to i64
      %sp = llvm.inttoptr %sai : i64 to !llvm.ptr<3>
      nvvm.cluster.arrive {aligned}
      nvvm.cluster.wait {aligned}
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %one = arith.constant 1 : i32
      %peer = arith.xori %rank, %one : i32
      %remote = nvvm.mapa %sp, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      %c64 = arith.constant 64 : i32
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %i = arith.addi %t, %c64 : i32
      %p = llvm.getelementptr %remote[%i] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i32
      %v = llvm.load %p : !llvm.ptr<7> -> i32
      memref.store %v, %out[%tid] : memref<64xi32>
      gpu.return
    }
    gpu.func @race(%out: memref<64xi32>)
        workgroup(%s : memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      memref.store %t, %s[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
      %sa = memref.extract_aligned_pointer_as_index %s : memref<64xi32, #gpu.address_space<workgroup>> -> index
      %sai = arith.index_cast %sa : index to i64
      %sp = llvm.inttoptr %sai : i64 to !llvm.ptr<3>
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %one = arith.constant 1 : i32
      %peer = arith.xori %rank, %one : i32
      %remote = nvvm.mapa %sp, %peer : !llvm.ptr<3> -> !llvm.ptr<7>
      %p = llvm.getelementptr %remote[%t] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i32
      %v = llvm.load %p : !llvm.ptr<7> -> i32
      memref.store %v, %out[%tid] : memref<64xi32>
      nvvm.cluster.arrive
      nvvm.cluster.wait
      gpu.return
    }
    gpu.func @deadlock(%out: memref<64xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %w = arith.divui %tid, %c32 : index
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %one = arith.constant 1 : i32
      %r1 = arith.cmpi eq, %rank, %one : i32
      %w0 = arith.cmpi eq, %w, %c0 : index
      %stuck = arith.andi %r1, %w0 : i1
      scf.if %stuck {
        gpu.barrier
      } else {
        nvvm.cluster.arrive {aligned}
        nvvm.cluster.wait {aligned}
      }
      gpu.return
    }
  }

  func.func @main_rank() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %out = memref.alloc() : memref<64xi32>
    gpu.launch_func @kernels::@rank clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%out : memref<64xi32>)
    return
  }
  func.func @main_oob() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %out = memref.alloc() : memref<64xi32>
    gpu.launch_func @kernels::@oob clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%out : memref<64xi32>)
    return
  }
  func.func @main_race() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %out = memref.alloc() : memref<64xi32>
    gpu.launch_func @kernels::@race clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%out : memref<64xi32>)
    return
  }
  func.func @main_deadlock() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<64xi32>
    gpu.launch_func @kernels::@deadlock clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%out : memref<64xi32>)
    return
  }
}
