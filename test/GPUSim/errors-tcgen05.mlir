// tcgen05 and tensor-memory errors. The kernel as written runs (shared
// memory starts as zeros, so D = A B = 0); each variant below breaks one
// rule. Operands are interleaved (no swizzle): 8x16-byte core matrices,
// LBO 128 along K, SBO 256 along M/N.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s --check-prefix=OK
// OK: ( 0, 0, 0, 0 )
//
// Warp 0 reads TMEM lanes 32..63 (the lane quarter of warp 1):
// RUN: sed 's/%q = arith.constant 0 : index/%q = arith.constant 1 : index/' %s > %t.quarter.mlir
// RUN: not axe-gpu-run %t.quarter.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=QUARTER
// QUARTER: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: tcgen05.ld.32x32b: TMEM address 0x00200000 has lane 32, but warp 0 may access TMEM lanes 0 to 31 only (warp mod 4 picks the lane quarter): its lane field must be 0
//
// Nobody deallocates:
// RUN: sed 's/%dw = arith.constant 0 : index/%dw = arith.constant 9 : index/' %s > %t.leak.mlir
// RUN: not axe-gpu-run %t.leak.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=LEAK
// LEAK: [[@LINE+99]]:9: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: the CTA exits with 32 TMEM column(s) still allocated: 32 at TMEM address 0x00000000 by this tcgen05.alloc, not freed by tcgen05.dealloc
//
// tcgen05.ld of columns 16..47 of a 32-column allocation:
// RUN: sed 's/%lcol = arith.constant 0 : i32/%lcol = arith.constant 16 : i32/' %s > %t.ldout.mlir
// RUN: not axe-gpu-run %t.ldout.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=LDOUT
// LDOUT: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: tcgen05.ld.32x32b of columns 16 to 47 at TMEM address 0x00000010: outside the CTA's allocated TMEM columns
//
// tcgen05.mma's D (32 columns) at column 16:
// RUN: sed 's/%dcol = arith.constant 0 : i32/%dcol = arith.constant 16 : i32/' %s > %t.dout.mlir
// RUN: not axe-gpu-run %t.dout.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=DOUT
// DOUT: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.mma D at TMEM address 0x00000010 takes columns 16 to 47, outside the CTA's allocated TMEM columns
//
// A descriptor without the fixed 0b001 at bit 46 (an sm_90 descriptor):
// RUN: sed 's/%hi = arith.constant 70437464178688 : i64/%hi = arith.constant 68720001024 : i64/' %s > %t.fixed.mlir
// RUN: not axe-gpu-run %t.fixed.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.mma shared-memory descriptor of A 0x00000010000800{{[0-9a-f]+}}: bits [46,49) are 0, not the fixed 0b001 of an sm_100 descriptor
//
// A's rows past the shared buffers (start + 64 KiB):
// RUN: sed 's/%bump = arith.constant 0 : i64/%bump = arith.constant 4096 : i64/' %s > %t.oob.mlir
// RUN: not axe-gpu-run %t.oob.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=OOB
// OOB: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): element (0, 0) of tcgen05.mma operand A is at shared address 65536, outside every shared buffer
//
// Transposed A in the instruction descriptor (bit 15):
// RUN: sed 's/%idesc = arith.constant 134742032 : i32/%idesc = arith.constant 134774800 : i32/' %s > %t.trans.mlir
// RUN: not axe-gpu-run %t.trans.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=TRANS
// TRANS: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.mma instruction descriptor 0x08088010: transposed (MN-major) A or B is not modelled; K-major is
//
// 48 columns:
// RUN: sed 's/%ncols = arith.constant 32 : i32/%ncols = arith.constant 48 : i32/' %s > %t.ncols.mlir
// RUN: not axe-gpu-run %t.ncols.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=NCOLS
// NCOLS: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: tcgen05.alloc of 48 columns (a power of two from 32 to 512 is possible)
//
// Half a warp allocates:
// RUN: sed 's/%aw = arith.cmpi eq, %warp, %c0 : index/%aw = arith.cmpi ult, %%tid, %c16 : index/' %s > %t.partial.mlir
// RUN: not axe-gpu-run %t.partial.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: 'nvvm.tcgen05.alloc' is a .sync.aligned warp collective: all 32 lanes must execute it together, but only lanes 0x0000ffff are active
//
// A second allocation after the CTA relinquished its permit:
// RUN: sed 's/%again = arith.constant false/%again = arith.constant true/' %s > %t.again.mlir
// RUN: not axe-gpu-run %t.again.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=AGAIN
// AGAIN: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: tcgen05.alloc after the CTA relinquished its permit to allocate (tcgen05.relinquish_alloc_permit)
//
// Two allocations of 512 columns (without relinquishing): no room left.
// RUN: sed -e 's/%again = arith.constant false/%again = arith.constant true/' \
// RUN:   -e 's/nvvm.tcgen05.relinquish_alloc_permit//' \
// RUN:   -e 's/%ncols = arith.constant 32 : i32/%ncols = arith.constant 512 : i32/' %s > %t.full.mlir
// RUN: not axe-gpu-run %t.full.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=FULL
// FULL: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0: tcgen05.alloc of 512 columns: 512 of the 512 TMEM columns are allocated and no 512-aligned range of 512 is free (it would wait forever)
//
// Other tcgen05.ld shapes are not modelled:
// RUN: sed 's/shape_32x32b>} : vector<32xi32>/shape_16x64b>} : vector<32xi32>/' %s > %t.shape.mlir
// RUN: not axe-gpu-run %t.shape.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: axe-gpu-run: tcgen05.ld of shape shape_16x64b is not modelled (shape_32x32b is)

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
    gpu.func @k(%out: memref<128xf32>)
        workgroup(%sA: memref<2048xf16, 3>, %sB: memref<512xf16, 3>, %slot: memref<1xi32, 3>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %ncols = arith.constant 32 : i32
      %false = arith.constant false
      %ticks = arith.constant 10000000 : index
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %bars = nvgpu.mbarrier.create -> !bars
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      }
      %slotidx = memref.extract_aligned_pointer_as_index %slot : memref<1xi32, 3> -> index
      %sloti = arith.index_cast %slotidx : index to i32
      %slotp = llvm.inttoptr %sloti : i32 to !llvm.ptr<3>
      %aw = arith.cmpi eq, %warp, %c0 : index
      scf.if %aw {
        nvvm.tcgen05.alloc %slotp, %ncols : !llvm.ptr<3>, i32
        nvvm.tcgen05.relinquish_alloc_permit
        %again = arith.constant false
        scf.if %again {
          nvvm.tcgen05.alloc %slotp, %ncols : !llvm.ptr<3>, i32
        }
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %tbase = memref.load %slot[%c0] : memref<1xi32, 3>
      scf.if %is0 {
        %mask = arith.constant 262143 : i64
        %i4 = arith.constant 4 : i64
        // LBO 128 >> 4 at bit 16, SBO 256 >> 4 at bit 32, 0b001 at bit 46.
        %hi = arith.constant 70437464178688 : i64
        %pa = memref.extract_aligned_pointer_as_index %sA : memref<2048xf16, 3> -> index
        %pai = arith.index_cast %pa : index to i64
        %am = arith.andi %pai, %mask : i64
        %as = arith.shrui %am, %i4 : i64
        %descA = arith.ori %as, %hi : i64
        %bump = arith.constant 0 : i64
        %dA = arith.addi %descA, %bump : i64
        %pb = memref.extract_aligned_pointer_as_index %sB : memref<512xf16, 3> -> index
        %pbi = arith.index_cast %pb : index to i64
        %bm = arith.andi %pbi, %mask : i64
        %bs = arith.shrui %bm, %i4 : i64
        %descB = arith.ori %bs, %hi : i64
        // D F32, A = B = F16, N = 32 (4 << 17), M = 128 (8 << 24).
        %idesc = arith.constant 134742032 : i32
        %dcol = arith.constant 0 : i32
        %dd = arith.addi %tbase, %dcol : i32
        %dp = llvm.inttoptr %dd : i32 to !llvm.ptr<6>
        nvvm.tcgen05.mma %dp, %dA, %descB, %idesc, %false {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1)
        %bpi = nvgpu.mbarrier.get %bars[%c0] : !bars -> i32
        %bp = llvm.inttoptr %bpi : i32 to !llvm.ptr<3>
        nvvm.tcgen05.commit %bp : !llvm.ptr<3>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %q = arith.constant 0 : index
      %qw = arith.addi %warp, %q : index
      %lane0 = arith.muli %qw, %c32 : index
      %lanei = arith.index_cast %lane0 : index to i32
      %c16i = arith.constant 16 : i32
      %laneoff = arith.shli %lanei, %c16i : i32
      %lcol = arith.constant 0 : i32
      %a1 = arith.addi %tbase, %laneoff : i32
      %addr = arith.addi %a1, %lcol : i32
      %ap = llvm.inttoptr %addr : i32 to !llvm.ptr<6>
      %v = nvvm.tcgen05.ld %ap {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      %e = vector.extract %v[0] : i32 from vector<32xi32>
      %f = arith.bitcast %e : i32 to f32
      memref.store %f, %out[%tid] : memref<128xf32>
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      %dw = arith.constant 0 : index
      %isdw = arith.cmpi eq, %warp, %dw : index
      scf.if %isdw {
        %tmem = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
        nvvm.tcgen05.dealloc %tmem, %ncols : !llvm.ptr<6>, i32
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %out = memref.alloc() : memref<128xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1) args(%out : memref<128xf32>)
    %nan = arith.constant 1.0 : f32
    %v = vector.transfer_read %out[%c0], %nan : memref<128xf32>, vector<4xf32>
    vector.print %v : vector<4xf32>
    return
  }
}
