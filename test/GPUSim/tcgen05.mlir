// tcgen05.mma (kind::f16, cta_group::1, M = 128, N = 64, f32 D in tensor
// memory) on tiles a TMA load brought into shared memory with the 128-byte
// swizzle: A is 128x64 (M x K, K-major), B is 64x64 (N x K, K-major). Warp 0
// allocates 64 TMEM columns; thread 0 issues 4 tcgen05.mma (K = 64: both
// descriptors' start addresses advance by 32 bytes per step inside the
// swizzled 128-byte rows) and commits them to an mbarrier; every warp
// waits, reads its 32 TMEM lanes x 64 columns with tcgen05.ld .32x32b and
// stores its rows of D; warp 0 deallocates. The host checks all 128x64
// elements against its own product: once with enable-input-d false on the
// first step (D = A B), once after each warp stored C into its TMEM lanes
// with tcgen05.st and every step accumulates (D = C + A B).
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: tcgen05 D = A B: errors 0
// CHECK-NEXT: tcgen05 D = C + A B: errors 0

// Two launches of 4 tcgen05.mma (one thread each) reading (128 + 64) x 16
// f16 each, and 2 TMA loads (16384 + 8192 bytes) each.
// STATS: "name": "mma",
// STATS: "nvvm.tcgen05.mma": {
// STATS-NEXT: "issues": 8,
// STATS-NEXT: "lane_ops": 8
// STATS: "bulk_total": {
// STATS-NEXT: "ops": 12,
// STATS-NEXT: "shared_bytes": 98304,
// STATS-NEXT: "global_bytes": 49152
// STATS: "op": "nvvm.tcgen05.mma",
// STATS-NEXT: "loc":
// STATS-NEXT: "ops": 8,
// STATS-NEXT: "shared_bytes": 49152,
// STATS-NEXT: "global_bytes": 0

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">] {
    gpu.func @mma(%qa: !llvm.ptr, %qb: !llvm.ptr, %D: memref<128x64xf32>, %C: memref<128x64xf32>, %accumulate: index)
        workgroup(%sA: memref<8192xf16, 3> {llvm.align = 1024 : i64}, %sB: memref<4096xf16, 3> {llvm.align = 1024 : i64}, %slot: memref<1xi32, 3> {llvm.align = 16 : i64})
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c64i = arith.constant 64 : i32
      %false = arith.constant false
      %ticks = arith.constant 10000000 : index
      %da = builtin.unrealized_conversion_cast %qa : !llvm.ptr to !tmA
      %db = builtin.unrealized_conversion_cast %qb : !llvm.ptr to !tmB
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %bars = nvgpu.mbarrier.create -> !bars
      %is0 = arith.cmpi eq, %tid, %c0 : index
      %w0 = arith.cmpi eq, %warp, %c0 : index
      %acc = arith.cmpi ne, %accumulate, %c0 : index
      %slotidx = memref.extract_aligned_pointer_as_index %slot : memref<1xi32, 3> -> index
      %sloti = arith.index_cast %slotidx : index to i32
      %slotp = llvm.inttoptr %sloti : i32 to !llvm.ptr<3>
      scf.if %is0 {
        nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
        nvgpu.mbarrier.init %bars[%c1], %c1 : !bars
        nvvm.fence.mbarrier.init
      }
      scf.if %w0 {
        nvvm.tcgen05.alloc %slotp, %c64i : !llvm.ptr<3>, i32
        nvvm.tcgen05.relinquish_alloc_permit
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %tbase = memref.load %slot[%c0] : memref<1xi32, 3>
      %tmem = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
      // This warp's TMEM lanes: 32 (warp mod 4) in the lane field.
      %lane0 = arith.muli %warp, %c32 : index
      %lanei = arith.index_cast %lane0 : index to i32
      %c16i = arith.constant 16 : i32
      %laneoff = arith.shli %lanei, %c16i : i32
      %addr = arith.addi %tbase, %laneoff : i32
      %ap = llvm.inttoptr %addr : i32 to !llvm.ptr<6>
      // D = C + A B: C into TMEM first, row tid in TMEM lane tid.
      scf.if %acc {
        %cv = vector.load %C[%tid, %c0] : memref<128x64xf32>, vector<64xf32>
        %ci = arith.bitcast %cv : vector<64xf32> to vector<64xi32>
        nvvm.tcgen05.st %ap, %ci {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
        nvvm.tcgen05.wait #nvvm.tcgen05_wait<store>
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %vA = memref.reinterpret_cast %sA to offset: [0], sizes: [128, 64], strides: [64, 1] : memref<8192xf16, 3> to memref<128x64xf16, 3>
      %vB = memref.reinterpret_cast %sB to offset: [0], sizes: [64, 64], strides: [64, 1] : memref<4096xf16, 3> to memref<64x64xf16, 3>
      scf.if %is0 {
        %tx = arith.constant 24576 : index
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %tx : !bars
        nvgpu.tma.async.load %da[%c0, %c0], %bars[%c0] to %vA : !tmA, !bars -> memref<128x64xf16, 3>
        nvgpu.tma.async.load %db[%c0, %c0], %bars[%c0] to %vB : !tmB, !bars -> memref<64x64xf16, 3>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
      scf.if %is0 {
        // sm_100 descriptors: start >> 4, LBO 16 >> 4 (unused when
        // swizzled), SBO 1024 >> 4 (8 rows of 128 bytes), the fixed 0b001
        // at bit 46, swizzle field 2 (128B) at bit 61.
        %mask = arith.constant 262143 : i64
        %i4 = arith.constant 4 : i64
        %hi = arith.constant 4611756662049538048 : i64
        %pa = memref.extract_aligned_pointer_as_index %sA : memref<8192xf16, 3> -> index
        %pai = arith.index_cast %pa : index to i64
        %am = arith.andi %pai, %mask : i64
        %ash = arith.shrui %am, %i4 : i64
        %descA = arith.ori %ash, %hi : i64
        %pb = memref.extract_aligned_pointer_as_index %sB : memref<4096xf16, 3> -> index
        %pbi = arith.index_cast %pb : index to i64
        %bm = arith.andi %pbi, %mask : i64
        %bsh = arith.shrui %bm, %i4 : i64
        %descB = arith.ori %bsh, %hi : i64
        // D F32 (bit 4), A = B = F16, N = 64 (8 << 17), M = 128 (8 << 24).
        %idesc = arith.constant 135266320 : i32
        scf.for %ks = %c0 to %c4 step %c1 {
          %ks64 = arith.index_cast %ks : index to i64
          %two = arith.constant 2 : i64
          %step = arith.muli %ks64, %two : i64
          %dA = arith.addi %descA, %step : i64
          %dB = arith.addi %descB, %step : i64
          %later = arith.cmpi ugt, %ks, %c0 : index
          %en = arith.ori %later, %acc : i1
          nvvm.tcgen05.mma %tmem, %dA, %dB, %idesc, %en {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1)
        }
        %bpi = nvgpu.mbarrier.get %bars[%c1] : !bars -> i32
        %bp = llvm.inttoptr %bpi : i32 to !llvm.ptr<3>
        nvvm.tcgen05.commit %bp : !llvm.ptr<3>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %ticks : !bars
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %v = nvvm.tcgen05.ld %ap {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      scf.for %j = %c0 to %c64 step %c1 {
        %e = vector.extract %v[%j] : i32 from vector<64xi32>
        %f = arith.bitcast %e : i32 to f32
        memref.store %f, %D[%tid, %j] : memref<128x64xf32>
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      scf.if %w0 {
        nvvm.tcgen05.dealloc %tmem, %c64i : !llvm.ptr<6>, i32
      }
      gpu.return
    }
  }

  func.func @run(%A: memref<128x64xf16>, %B: memref<64x64xf16>, %D: memref<128x64xf32>, %C: memref<128x64xf32>, %accumulate: index) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %ua = memref.cast %A : memref<128x64xf16> to memref<*xf16>
    %ub = memref.cast %B : memref<64x64xf16> to memref<*xf16>
    %da = nvgpu.tma.create.descriptor %ua box[%c128, %c64] : memref<*xf16> -> !tmA
    %db = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xf16> -> !tmB
    %pa = builtin.unrealized_conversion_cast %da : !tmA to !llvm.ptr
    %pb = builtin.unrealized_conversion_cast %db : !tmB to !llvm.ptr
    gpu.launch_func @kernels::@mma blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%pa : !llvm.ptr, %pb : !llvm.ptr, %D : memref<128x64xf32>, %C : memref<128x64xf32>, %accumulate : index)
    return
  }

  // Runs the kernel and counts the elements of D that differ from
  // (accumulate ? C : 0) + sum_k A[m][k] B[n][k], computed here in f32
  // (exact for these operands).
  func.func @check(%A: memref<128x64xf16>, %B: memref<64x64xf16>, %C: memref<128x64xf32>, %accumulate: index) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %nan = arith.constant 0x7FC00000 : f32
    %D = memref.alloc() : memref<128x64xf32>
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        memref.store %nan, %D[%i, %j] : memref<128x64xf32>
      }
    }
    func.call @run(%A, %B, %D, %C, %accumulate) : (memref<128x64xf16>, memref<64x64xf16>, memref<128x64xf32>, memref<128x64xf32>, index) -> ()
    %acc = arith.cmpi ne, %accumulate, %c0 : index
    %z64 = arith.constant 0 : i64
    %one64 = arith.constant 1 : i64
    %errors = scf.for %m = %c0 to %c128 step %c1 iter_args(%e0 = %z64) -> (i64) {
      %e1 = scf.for %n = %c0 to %c64 step %c1 iter_args(%ea = %e0) -> (i64) {
        %cmn = memref.load %C[%m, %n] : memref<128x64xf32>
        %init = arith.select %acc, %cmn, %zero : f32
        %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%s = %init) -> (f32) {
          %a = memref.load %A[%m, %k] : memref<128x64xf16>
          %b = memref.load %B[%n, %k] : memref<64x64xf16>
          %af = arith.extf %a : f16 to f32
          %bf = arith.extf %b : f16 to f32
          %p = arith.mulf %af, %bf : f32
          %s2 = arith.addf %s, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %D[%m, %n] : memref<128x64xf32>
        %same = arith.cmpf oeq, %got, %sum : f32
        %inc = arith.select %same, %z64, %one64 : i64
        %eb = arith.addi %ea, %inc : i64
        scf.yield %eb : i64
      }
      scf.yield %e1 : i64
    }
    memref.dealloc %D : memref<128x64xf32>
    return %errors : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c9 = arith.constant 9 : index
    %c11 = arith.constant 11 : index
    %c13 = arith.constant 13 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %quarter = arith.constant 0.25 : f32
    %half = arith.constant 0.5 : f32
    %four = arith.constant 4.0 : f32
    %five = arith.constant 5.0 : f32
    %six = arith.constant 6.0 : f32
    %A = memref.alloc() : memref<128x64xf16>
    %B = memref.alloc() : memref<64x64xf16>
    %C = memref.alloc() : memref<128x64xf32>
    // A[m][k] = ((3m + 5k) % 9 - 4) / 4, B[n][k] = ((7n + 2k) % 11 - 5) / 2,
    // C[m][n] = ((m + 3n) % 13 - 6) / 2: the products and sums are exact
    // in f32, and every row and column of A and B differs.
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %a3 = arith.muli %i, %c3 : index
        %a5 = arith.muli %j, %c5 : index
        %as = arith.addi %a3, %a5 : index
        %am = arith.remui %as, %c9 : index
        %ai = arith.index_cast %am : index to i32
        %af = arith.sitofp %ai : i32 to f32
        %a4 = arith.subf %af, %four : f32
        %aq = arith.mulf %a4, %quarter : f32
        %ah = arith.truncf %aq : f32 to f16
        memref.store %ah, %A[%i, %j] : memref<128x64xf16>
        %j3 = arith.muli %j, %c3 : index
        %cs = arith.addi %i, %j3 : index
        %cm = arith.remui %cs, %c13 : index
        %ci = arith.index_cast %cm : index to i32
        %cf = arith.sitofp %ci : i32 to f32
        %c6 = arith.subf %cf, %six : f32
        %cq = arith.mulf %c6, %half : f32
        memref.store %cq, %C[%i, %j] : memref<128x64xf32>
      }
    }
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %b7 = arith.muli %i, %c7 : index
        %b2 = arith.muli %j, %c2 : index
        %bs = arith.addi %b7, %b2 : index
        %bm = arith.remui %bs, %c11 : index
        %bi = arith.index_cast %bm : index to i32
        %bf = arith.sitofp %bi : i32 to f32
        %b5 = arith.subf %bf, %five : f32
        %bq = arith.mulf %b5, %half : f32
        %bh = arith.truncf %bq : f32 to f16
        memref.store %bh, %B[%i, %j] : memref<64x64xf16>
      }
    }
    %e0 = func.call @check(%A, %B, %C, %c0) : (memref<128x64xf16>, memref<64x64xf16>, memref<128x64xf32>, index) -> i64
    vector.print str "tcgen05 D = A B: errors "
    vector.print %e0 : i64
    %e1 = func.call @check(%A, %B, %C, %c1) : (memref<128x64xf16>, memref<64x64xf16>, memref<128x64xf32>, index) -> i64
    vector.print str "tcgen05 D = C + A B: errors "
    vector.print %e1 : i64
    return
  }
}
