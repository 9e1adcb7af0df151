// tcgen05.mma with M = 64 (data path layout F), N = 32, K = 16, bf16
// operands, A negated, on interleaved (unswizzled) operands that the
// threads store themselves: element (r, k) at byte (r / 8) SBO + (k / 8) LBO
// + (r % 8) 16 + (k % 8) 2 with LBO = 128 and SBO = 256. Before the MMA every
// thread stores a sentinel into its TMEM lane's 32 columns with tcgen05.st;
// after it, lanes 0..15 of warp w hold D's rows 16w..16w+15 and lanes
// 16..31 must still hold their sentinels. The host checks every element
// of every lane.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// CHECK: M = 64 rows: errors 0
// CHECK-NEXT: untouched lanes: errors 0

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
    gpu.func @m64(%A: memref<64x16xbf16>, %B: memref<32x16xbf16>, %out: memref<128x32xi32>)
        workgroup(%sA: memref<1024xbf16, 3>, %sB: memref<512xbf16, 3>, %slot: memref<1xi32, 3>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c512 = arith.constant 512 : index
      %c1024 = arith.constant 1024 : index
      %c32i = arith.constant 32 : i32
      %false = arith.constant false
      %ticks = arith.constant 10000000 : index
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %bars = nvgpu.mbarrier.create -> !bars
      %is0 = arith.cmpi eq, %tid, %c0 : index
      %w0 = arith.cmpi eq, %warp, %c0 : index
      scf.if %is0 {
        nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
      }
      // Core-matrix layout: element index (r / 8) 128 + (k / 8) 64 +
      // (r % 8) 8 + k % 8.
      scf.for %e = %tid to %c1024 step %c128 {
        %r = arith.divui %e, %c16 : index
        %k = arith.remui %e, %c16 : index
        %x = memref.load %A[%r, %k] : memref<64x16xbf16>
        %r8 = arith.divui %r, %c8 : index
        %rm = arith.remui %r, %c8 : index
        %k8 = arith.divui %k, %c8 : index
        %km = arith.remui %k, %c8 : index
        %i0 = arith.muli %r8, %c128 : index
        %i1 = arith.muli %k8, %c64 : index
        %i2 = arith.muli %rm, %c8 : index
        %i01 = arith.addi %i0, %i1 : index
        %i012 = arith.addi %i01, %i2 : index
        %idx = arith.addi %i012, %km : index
        memref.store %x, %sA[%idx] : memref<1024xbf16, 3>
      }
      scf.for %e = %tid to %c512 step %c128 {
        %r = arith.divui %e, %c16 : index
        %k = arith.remui %e, %c16 : index
        %x = memref.load %B[%r, %k] : memref<32x16xbf16>
        %r8 = arith.divui %r, %c8 : index
        %rm = arith.remui %r, %c8 : index
        %k8 = arith.divui %k, %c8 : index
        %km = arith.remui %k, %c8 : index
        %i0 = arith.muli %r8, %c128 : index
        %i1 = arith.muli %k8, %c64 : index
        %i2 = arith.muli %rm, %c8 : index
        %i01 = arith.addi %i0, %i1 : index
        %i012 = arith.addi %i01, %i2 : index
        %idx = arith.addi %i012, %km : index
        memref.store %x, %sB[%idx] : memref<512xbf16, 3>
      }
      %slotidx = memref.extract_aligned_pointer_as_index %slot : memref<1xi32, 3> -> index
      %sloti = arith.index_cast %slotidx : index to i32
      %slotp = llvm.inttoptr %sloti : i32 to !llvm.ptr<3>
      scf.if %w0 {
        nvvm.tcgen05.alloc %slotp, %c32i : !llvm.ptr<3>, i32
        nvvm.tcgen05.relinquish_alloc_permit
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %tbase = memref.load %slot[%c0] : memref<1xi32, 3>
      %tmem = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
      %lane0 = arith.muli %warp, %c32 : index
      %lanei = arith.index_cast %lane0 : index to i32
      %c16i = arith.constant 16 : i32
      %laneoff = arith.shli %lanei, %c16i : i32
      %addr = arith.addi %tbase, %laneoff : i32
      %ap = llvm.inttoptr %addr : i32 to !llvm.ptr<6>
      // Sentinels: 32 t + j in column j of thread t's TMEM lane.
      %tidi = arith.index_cast %tid : index to i32
      %t32 = arith.muli %tidi, %c32i : i32
      %iota = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : vector<32xi32>
      %tb = vector.broadcast %t32 : i32 to vector<32xi32>
      %sent = arith.addi %tb, %iota : vector<32xi32>
      nvvm.tcgen05.st %ap, %sent {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<store>
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      scf.if %is0 {
        %mask = arith.constant 262143 : i64
        %i4 = arith.constant 4 : i64
        // LBO 128 >> 4 at bit 16, SBO 256 >> 4 at bit 32, 0b001 at bit 46,
        // no swizzle.
        %hi = arith.constant 70437464178688 : i64
        %pa = memref.extract_aligned_pointer_as_index %sA : memref<1024xbf16, 3> -> index
        %pai = arith.index_cast %pa : index to i64
        %am = arith.andi %pai, %mask : i64
        %as = arith.shrui %am, %i4 : i64
        %descA = arith.ori %as, %hi : i64
        %pb = memref.extract_aligned_pointer_as_index %sB : memref<512xbf16, 3> -> index
        %pbi = arith.index_cast %pb : index to i64
        %bm = arith.andi %pbi, %mask : i64
        %bs = arith.shrui %bm, %i4 : i64
        %descB = arith.ori %bs, %hi : i64
        // D F32 (bit 4), A = B = BF16 (bits 7, 10), negate A (bit 13),
        // N = 32 (4 << 17), M = 64 (4 << 24).
        %idesc = arith.constant 67642512 : i32
        nvvm.tcgen05.mma %tmem, %descA, %descB, %idesc, %false {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1)
        %bpi = nvgpu.mbarrier.get %bars[%c0] : !bars -> i32
        %bp = llvm.inttoptr %bpi : i32 to !llvm.ptr<3>
        nvvm.tcgen05.commit %bp : !llvm.ptr<3>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %v = nvvm.tcgen05.ld %ap {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      scf.for %j = %c0 to %c32 step %c1 {
        %e = vector.extract %v[%j] : i32 from vector<32xi32>
        memref.store %e, %out[%tid, %j] : memref<128x32xi32>
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      scf.if %w0 {
        nvvm.tcgen05.dealloc %tmem, %c32i : !llvm.ptr<6>, i32
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %half = arith.constant 0.5 : f32
    %quarter = arith.constant 0.25 : f32
    %three = arith.constant 3.0 : f32
    %two = arith.constant 2.0 : f32
    %zero = arith.constant 0.0 : f32
    %A = memref.alloc() : memref<64x16xbf16>
    %B = memref.alloc() : memref<32x16xbf16>
    %out = memref.alloc() : memref<128x32xi32>
    // A[r][k] = ((5r + 3k) % 7 - 3) / 2, B[n][k] = ((2n + 7k) % 5 - 2) / 4:
    // exact in bf16, products and sums exact in f32.
    scf.for %r = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        %r5 = arith.muli %r, %c5 : index
        %k3 = arith.muli %k, %c3 : index
        %s = arith.addi %r5, %k3 : index
        %m = arith.remui %s, %c7 : index
        %mi = arith.index_cast %m : index to i32
        %mf = arith.sitofp %mi : i32 to f32
        %d = arith.subf %mf, %three : f32
        %x = arith.mulf %d, %half : f32
        %xb = arith.truncf %x : f32 to bf16
        memref.store %xb, %A[%r, %k] : memref<64x16xbf16>
      }
    }
    scf.for %n = %c0 to %c32 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        %n2 = arith.muli %n, %c2 : index
        %k7 = arith.muli %k, %c7 : index
        %s = arith.addi %n2, %k7 : index
        %m = arith.remui %s, %c5 : index
        %mi = arith.index_cast %m : index to i32
        %mf = arith.sitofp %mi : i32 to f32
        %d = arith.subf %mf, %two : f32
        %x = arith.mulf %d, %quarter : f32
        %xb = arith.truncf %x : f32 to bf16
        memref.store %xb, %B[%n, %k] : memref<32x16xbf16>
      }
    }
    gpu.launch_func @kernels::@m64 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%A : memref<64x16xbf16>, %B : memref<32x16xbf16>, %out : memref<128x32xi32>)
    %z = arith.constant 0 : i64
    %u = arith.constant 1 : i64
    // Thread t = 32 w + l: l < 16 holds row 16 w + l of D = -A B, the
    // others their sentinels 32 t + j.
    %ed, %es = scf.for %t = %c0 to %c128 step %c1 iter_args(%ea = %z, %eb = %z) -> (i64, i64) {
      %w = arith.divui %t, %c32 : index
      %l = arith.remui %t, %c32 : index
      %inD = arith.cmpi ult, %l, %c16 : index
      %w16 = arith.muli %w, %c16 : index
      %row = arith.addi %w16, %l : index
      %r1, %r2 = scf.for %j = %c0 to %c32 step %c1 iter_args(%xa = %ea, %xb = %eb) -> (i64, i64) {
        %g = memref.load %out[%t, %j] : memref<128x32xi32>
        %res:2 = scf.if %inD -> (i64, i64) {
          %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
            %a = memref.load %A[%row, %k] : memref<64x16xbf16>
            %b = memref.load %B[%j, %k] : memref<32x16xbf16>
            %af = arith.extf %a : bf16 to f32
            %bf = arith.extf %b : bf16 to f32
            %p = arith.mulf %af, %bf : f32
            %acc2 = arith.subf %acc, %p : f32
            scf.yield %acc2 : f32
          }
          %gf = arith.bitcast %g : i32 to f32
          %same = arith.cmpf oeq, %gf, %sum : f32
          %inc = arith.select %same, %z, %u : i64
          %xa2 = arith.addi %xa, %inc : i64
          scf.yield %xa2, %xb : i64, i64
        } else {
          %t32 = arith.muli %t, %c32 : index
          %want = arith.addi %t32, %j : index
          %wi = arith.index_cast %want : index to i32
          %same = arith.cmpi eq, %g, %wi : i32
          %inc = arith.select %same, %z, %u : i64
          %xb2 = arith.addi %xb, %inc : i64
          scf.yield %xa, %xb2 : i64, i64
        }
        scf.yield %res#0, %res#1 : i64, i64
      }
      scf.yield %r1, %r2 : i64, i64
    }
    vector.print str "M = 64 rows: errors "
    vector.print %ed : i64
    vector.print str "untouched lanes: errors "
    vector.print %es : i64
    return
  }
}
