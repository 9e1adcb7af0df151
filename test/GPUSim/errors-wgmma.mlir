// wgmma errors. The kernel as written runs (shared memory starts as zeros,
// so D = C = 1):
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s --check-prefix=OK
// OK: ( 1, 1, 1, 1 )
//
// Warp 3 skips the wgmma: warps 0..2 wait for it forever.
// RUN: sed 's/arith.cmpi ugt, %warp, %c3/arith.cmpi uge, %warp, %c3/' %s > %t.partial.mlir
// RUN: not axe-gpu-run %t.partial.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: axe-gpu-run: kernel @k, block (0, 0, 0): deadlock: 0 warp(s) wait at a barrier, 0 on an mbarrier phase that cannot complete, 1 exited, 3 wait(s) for the rest of their warpgroup at a wgmma
// PARTIAL: note: warp 0 waits here for the other warps of its warpgroup (wgmma is a warpgroup collective)
// PARTIAL: note: warp 1 waits here
// PARTIAL: note: warp 2 waits here
// PARTIAL: note: warp 3 exited here
//
// Half of warp 0 skips it: not the whole warp.
// RUN: sed 's/arith.cmpi ugt, %warp, %c3/arith.cmpi ugt, %%tid, %c15/' %s > %t.lanes.mlir
// RUN: not axe-gpu-run %t.lanes.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=LANES
// LANES: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: wgmma is a .sync.aligned warpgroup collective: all 32 lanes of each of the 4 warps must execute it, but only lanes 0x0000ffff are active
//
// A descriptor whose start address lies past the shared buffers:
// RUN: sed 's/%bump = arith.constant 0 : i64/%bump = arith.constant 4096 : i64/' %s > %t.desc.mlir
// RUN: not axe-gpu-run %t.desc.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=DESC
// DESC: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 3: element (0, 0) of wgmma operand A is at shared address 65536, outside every shared buffer (descriptor 0x4000004000001000: start 65536, leading offset 0, stride offset 1024, swizzle 128)
//
// Threads giving different descriptors:
// RUN: sed 's/%dA = arith.addi %descA, %bump : i64/%dA = arith.addi %descA, %%tid64 : i64/' %s > %t.differ.mlir
// RUN: not axe-gpu-run %t.differ.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=DIFFER
// DIFFER: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (1, 0, 0) (lane 1): the threads of warpgroup 0 give different wgmma descriptors
//
// An MN-major A (<col>) of 16-bit elements is read as the ISA lays it out
// (test/GPUSim/wgmma-mn-major.mlir checks the values), here the zeros:
// RUN: sed 's/<f16>, #nvvm.wgmma_scale_in<one>, <row>\]/<f16>, #nvvm.wgmma_scale_in<one>, <col>]/' %s > %t.mn.mlir
// RUN: axe-gpu-run %t.mn.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=OK

!acc = !llvm.struct<(f32, f32, f32, f32)>

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @k(%out: memref<128x4xf32>)
        workgroup(%sA: memref<4096xf16, 3> {llvm.align = 1024}, %sB: memref<1024xf16, 3> {llvm.align = 1024}) kernel {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %c15 = arith.constant 15 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %tid64 = arith.index_cast %tid : index to i64
      %warp = arith.divui %tid, %c32 : index
      %mask = arith.constant 262143 : i64
      %i4 = arith.constant 4 : i64
      %hi = arith.constant 4611686293305294848 : i64
      %pa = memref.extract_aligned_pointer_as_index %sA : memref<4096xf16, 3> -> index
      %pai = arith.index_cast %pa : index to i64
      %am = arith.andi %pai, %mask : i64
      %as = arith.shrui %am, %i4 : i64
      %descA = arith.ori %as, %hi : i64
      %bump = arith.constant 0 : i64
      %dA = arith.addi %descA, %bump : i64
      %pb = memref.extract_aligned_pointer_as_index %sB : memref<1024xf16, 3> -> index
      %pbi = arith.index_cast %pb : index to i64
      %bm = arith.andi %pbi, %mask : i64
      %bs = arith.shrui %bm, %i4 : i64
      %descB = arith.ori %bs, %hi : i64
      %one = arith.constant 1.0 : f32
      %u = llvm.mlir.undef : !acc
      %a0 = llvm.insertvalue %one, %u[0] : !acc
      %a1 = llvm.insertvalue %one, %a0[1] : !acc
      %a2 = llvm.insertvalue %one, %a1[2] : !acc
      %a3 = llvm.insertvalue %one, %a2[3] : !acc
      %skip = arith.cmpi ugt, %warp, %c3 : index
      %r = scf.if %skip -> (!acc) {
        scf.yield %a3 : !acc
      } else {
        nvvm.wgmma.fence.aligned
        %w = nvvm.wgmma.mma_async %dA, %descB, %a3, #nvvm.shape<m = 64, n = 8, k = 16>, D [<f32>, #nvvm.wgmma_scale_out<one>], A [<f16>, #nvvm.wgmma_scale_in<one>, <row>], B [<f16>, #nvvm.wgmma_scale_in<one>, <col>] : !acc -> !acc
        nvvm.wgmma.commit.group.sync.aligned
        nvvm.wgmma.wait.group.sync.aligned 0
        scf.yield %w : !acc
      }
      %e0 = llvm.extractvalue %r[0] : !acc
      %e1 = llvm.extractvalue %r[1] : !acc
      %e2 = llvm.extractvalue %r[2] : !acc
      %e3 = llvm.extractvalue %r[3] : !acc
      %v = vector.from_elements %e0, %e1, %e2, %e3 : vector<4xf32>
      vector.store %v, %out[%tid, %c0] : memref<128x4xf32>, vector<4xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %out = memref.alloc() : memref<128x4xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%out : memref<128x4xf32>)
    %p = vector.load %out[%c127, %c0] : memref<128x4xf32>, vector<4xf32>
    vector.print %p : vector<4xf32>
    return
  }
}
