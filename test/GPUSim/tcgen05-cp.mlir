// tcgen05.cp (cta_group::1) from shared memory into tensor memory, then
// tcgen05.shift. 128 threads fill a 1024-aligned shared buffer word by
// word with pat(j) = 65537 j + 12345 (j the word index); warp 0 allocates
// 64 TMEM columns; thread 0 issues five copies, each with its own sm_100
// descriptor, then one shift, and commits them to an mbarrier:
//   A .128x256b, no swizzle, LBO 128, SBO 256, bytes 0..4095 -> columns 0..7
//   B .128x256b, 32-byte swizzle, SBO 256, bytes 4096..8191 -> columns 8..15
//   C .128x128b, 64-byte swizzle, SBO 512, bytes 8192..16383 -> columns 16..19
//   D .4x256b, no swizzle, LBO 64, bytes 16384..16511 -> lanes 64..67,
//     columns 20..27
//   E .128x256b as A -> columns 32..39, then tcgen05.shift at lane 32,
//     column 32: lanes 33..63 get what lanes 32..62 held, lane 32 keeps its
//     row.
// Every warp waits on the mbarrier, reads its 32 TMEM lanes x 64 columns
// with tcgen05.ld .32x32b and stores them. The host computes, in scf loops
// of its own, the shared byte address that each (lane, column) comes from
// (the K-major canonical layout: 8x16-byte core matrices LBO apart along
// the row and SBO apart per 8 rows, or swizzled rows of the span, XOR of
// address bits [4,7) with bits [7,10)) and checks all 128 x 64 cells; the
// columns no copy writes (and the lanes outside D's four) must be 0.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json
// CHECK: tcgen05.cp: errors 0

// 5 copies (one thread each) of 4096, 4096, 2048, 128 and 4096 bytes.
// STATS: "nvvm.tcgen05.cp": {
// STATS-NEXT: "issues": 5,
// STATS-NEXT: "lane_ops": 5
// STATS: "op": "nvvm.tcgen05.cp",
// STATS-NEXT: "loc":
// STATS-NEXT: "ops": 1,
// STATS-NEXT: "shared_bytes": 4096,
// STATS: "op": "nvvm.tcgen05.cp",
// STATS-NEXT: "loc":
// STATS-NEXT: "ops": 1,
// STATS-NEXT: "shared_bytes": 4096,
// STATS: "op": "nvvm.tcgen05.cp",
// STATS-NEXT: "loc":
// STATS-NEXT: "ops": 1,
// STATS-NEXT: "shared_bytes": 2048,
// STATS: "op": "nvvm.tcgen05.cp",
// STATS-NEXT: "loc":
// STATS-NEXT: "ops": 1,
// STATS-NEXT: "shared_bytes": 128,
// STATS: "op": "nvvm.tcgen05.cp",
// STATS-NEXT: "loc":
// STATS-NEXT: "ops": 1,
// STATS-NEXT: "shared_bytes": 4096,

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">] {
    gpu.func @cp(%out: memref<128x64xi32>)
        workgroup(%src: memref<4128xi32, 3> {llvm.align = 1024 : i64}, %slot: memref<1xi32, 3> {llvm.align = 16 : i64})
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c4128 = arith.constant 4128 : index
      %c64i = arith.constant 64 : i32
      %false = arith.constant false
      %ticks = arith.constant 10000000 : index
      %pmul = arith.constant 65537 : i32
      %padd = arith.constant 12345 : i32
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %is0 = arith.cmpi eq, %tid, %c0 : index
      %w0 = arith.cmpi eq, %warp, %c0 : index
      // The source pattern.
      scf.for %j = %tid to %c4128 step %c128 {
        %ji = arith.index_cast %j : index to i32
        %m = arith.muli %ji, %pmul : i32
        %v = arith.addi %m, %padd : i32
        memref.store %v, %src[%j] : memref<4128xi32, 3>
      }
      %slotidx = memref.extract_aligned_pointer_as_index %slot : memref<1xi32, 3> -> index
      %sloti = arith.index_cast %slotidx : index to i32
      %slotp = llvm.inttoptr %sloti : i32 to !llvm.ptr<3>
      %bars = nvgpu.mbarrier.create -> !bars
      scf.if %is0 {
        nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
        nvvm.fence.mbarrier.init
      }
      scf.if %w0 {
        nvvm.tcgen05.alloc %slotp, %c64i : !llvm.ptr<3>, i32
        nvvm.tcgen05.relinquish_alloc_permit
      }
      // The generic-proxy stores become visible to tcgen05.cp (async proxy).
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %tbase = memref.load %slot[%c0] : memref<1xi32, 3>
      scf.if %is0 {
        // start: (address & 0x3ffff) >> 4; the high fields per copy:
        // LBO >> 4 at 16, SBO >> 4 at 32, 0b001 at 46, swizzle at 61.
        %mask = arith.constant 262143 : i64
        %i4 = arith.constant 4 : i64
        %srcidx = memref.extract_aligned_pointer_as_index %src : memref<4128xi32, 3> -> index
        %srci = arith.index_cast %srcidx : index to i64
        %o4096 = arith.constant 4096 : i64
        %o8192 = arith.constant 8192 : i64
        %o16384 = arith.constant 16384 : i64
        %sa = arith.andi %srci, %mask : i64
        %ssa = arith.shrui %sa, %i4 : i64
        %sbp = arith.addi %srci, %o4096 : i64
        %sb = arith.andi %sbp, %mask : i64
        %ssb = arith.shrui %sb, %i4 : i64
        %scp = arith.addi %srci, %o8192 : i64
        %sc = arith.andi %scp, %mask : i64
        %ssc = arith.shrui %sc, %i4 : i64
        %sdp = arith.addi %srci, %o16384 : i64
        %sd = arith.andi %sdp, %mask : i64
        %ssd = arith.shrui %sd, %i4 : i64
        // A, E: LBO 128, SBO 256, no swizzle.
        %hiA = arith.constant 70437464178688 : i64
        // B: SBO 256, 32-byte swizzle (6).
        %hiB = arith.constant -4611615580963667968 : i64
        // C: SBO 512, 64-byte swizzle (4).
        %hiC = arith.constant -9223301530671579136 : i64
        // D: LBO 64, SBO 256, no swizzle.
        %hiD = arith.constant 70437463916544 : i64
        %descA = arith.ori %ssa, %hiA : i64
        %descB = arith.ori %ssb, %hiB : i64
        %descC = arith.ori %ssc, %hiC : i64
        %descD = arith.ori %ssd, %hiD : i64
        %ta = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
        %c8i = arith.constant 8 : i32
        %tb0 = arith.addi %tbase, %c8i : i32
        %tb = llvm.inttoptr %tb0 : i32 to !llvm.ptr<6>
        %c16i = arith.constant 16 : i32
        %tc0 = arith.addi %tbase, %c16i : i32
        %tc = llvm.inttoptr %tc0 : i32 to !llvm.ptr<6>
        // Lane 64 (64 << 16), column 20.
        %dl = arith.constant 4194324 : i32
        %td0 = arith.addi %tbase, %dl : i32
        %td = llvm.inttoptr %td0 : i32 to !llvm.ptr<6>
        %c32i = arith.constant 32 : i32
        %te0 = arith.addi %tbase, %c32i : i32
        %te = llvm.inttoptr %te0 : i32 to !llvm.ptr<6>
        // Lane 32 (32 << 16), column 32.
        %sl = arith.constant 2097184 : i32
        %ts0 = arith.addi %tbase, %sl : i32
        %ts = llvm.inttoptr %ts0 : i32 to !llvm.ptr<6>
        nvvm.tcgen05.cp %ta, %descA {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
        nvvm.tcgen05.cp %tb, %descB {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
        nvvm.tcgen05.cp %tc, %descC {shape = #nvvm.tcgen05_cp_shape<shape_128x128b>}
        nvvm.tcgen05.cp %td, %descD {shape = #nvvm.tcgen05_cp_shape<shape_4x256b>}
        nvvm.tcgen05.cp %te, %descA {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
        nvvm.tcgen05.shift %ts : !llvm.ptr<6>
        %bpi = nvgpu.mbarrier.get %bars[%c0] : !bars -> i32
        %bp = llvm.inttoptr %bpi : i32 to !llvm.ptr<3>
        nvvm.tcgen05.commit %bp : !llvm.ptr<3>
      }
      // Phase 0 of the mbarrier completes with the commit's arrival.
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %lane0 = arith.muli %warp, %c32 : index
      %lanei = arith.index_cast %lane0 : index to i32
      %c16 = arith.constant 16 : i32
      %laneoff = arith.shli %lanei, %c16 : i32
      %addr = arith.addi %tbase, %laneoff : i32
      %ap = llvm.inttoptr %addr : i32 to !llvm.ptr<6>
      %v = nvvm.tcgen05.ld %ap {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      scf.for %j = %c0 to %c64 step %c1 {
        %e = vector.extract %v[%j] : i32 from vector<64xi32>
        memref.store %e, %out[%tid, %j] : memref<128x64xi32>
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      scf.if %w0 {
        %tp = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
        nvvm.tcgen05.dealloc %tp, %c64i : !llvm.ptr<6>, i32
      }
      gpu.return
    }
  }

  // pat of the word at byte offset a.
  func.func @pat(%a: index) -> i32 {
    %c4 = arith.constant 4 : index
    %j = arith.divui %a, %c4 : index
    %ji = arith.index_cast %j : index to i32
    %pmul = arith.constant 65537 : i32
    %padd = arith.constant 12345 : i32
    %m = arith.muli %ji, %pmul : i32
    %v = arith.addi %m, %padd : i32
    return %v : i32
  }

  // No swizzle: word w of row r at (r / 8) 256 + (r mod 8) 16
  // + (4w / 16) lbo + 4w mod 16.
  func.func @inter(%r: index, %w: index, %lbo: index) -> index {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %k = arith.muli %w, %c4 : index
    %g = arith.divui %r, %c8 : index
    %gr = arith.remui %r, %c8 : index
    %kc = arith.divui %k, %c16 : index
    %kb = arith.remui %k, %c16 : index
    %a0 = arith.muli %g, %c256 : index
    %a1 = arith.muli %gr, %c16 : index
    %a2 = arith.muli %kc, %lbo : index
    %s0 = arith.addi %a0, %a1 : index
    %s1 = arith.addi %s0, %a2 : index
    %s2 = arith.addi %s1, %kb : index
    return %s2 : index
  }

  // Swizzled: a = base + (r / 8) sbo + (r mod 8) span + 4w, then bits
  // [4,7) ^= (a >> 7) & m (m = 1 for 32 bytes, 3 for 64).
  func.func @swz(%base: index, %r: index, %w: index, %span: index, %sbo: index, %m: index) -> index {
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %k = arith.muli %w, %c4 : index
    %g = arith.divui %r, %c8 : index
    %gr = arith.remui %r, %c8 : index
    %a0 = arith.muli %g, %sbo : index
    %a1 = arith.muli %gr, %span : index
    %s0 = arith.addi %base, %a0 : index
    %s1 = arith.addi %s0, %a1 : index
    %a = arith.addi %s1, %k : index
    %hi = arith.shrui %a, %c7 : index
    %hm = arith.andi %hi, %m : index
    %x = arith.shli %hm, %c4 : index
    %sw = arith.xori %a, %x : index
    return %sw : index
  }

  // What TMEM lane l, column c holds after the copies and the shift.
  func.func @expected(%l: index, %c: index) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c20 = arith.constant 20 : index
    %c28 = arith.constant 28 : index
    %c32 = arith.constant 32 : index
    %c33 = arith.constant 33 : index
    %c40 = arith.constant 40 : index
    %c64 = arith.constant 64 : index
    %c68 = arith.constant 68 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %c4096 = arith.constant 4096 : index
    %c8192 = arith.constant 8192 : index
    %c16384 = arith.constant 16384 : index
    %zero = arith.constant 0 : i32
    %inA = arith.cmpi ult, %c, %c8 : index
    %r = scf.if %inA -> i32 {
      %a = func.call @inter(%l, %c, %c128) : (index, index, index) -> index
      %p = func.call @pat(%a) : (index) -> i32
      scf.yield %p : i32
    } else {
      %inB = arith.cmpi ult, %c, %c16 : index
      %rb = scf.if %inB -> i32 {
        %w = arith.subi %c, %c8 : index
        %a = func.call @swz(%c4096, %l, %w, %c32, %c256, %c1) : (index, index, index, index, index, index) -> index
        %p = func.call @pat(%a) : (index) -> i32
        scf.yield %p : i32
      } else {
        %inC = arith.cmpi ult, %c, %c20 : index
        %rc = scf.if %inC -> i32 {
          %w = arith.subi %c, %c16 : index
          %a = func.call @swz(%c8192, %l, %w, %c64, %c512, %c3) : (index, index, index, index, index, index) -> index
          %p = func.call @pat(%a) : (index) -> i32
          scf.yield %p : i32
        } else {
          %inD = arith.cmpi ult, %c, %c28 : index
          %rd = scf.if %inD -> i32 {
            %ge = arith.cmpi uge, %l, %c64 : index
            %lt = arith.cmpi ult, %l, %c68 : index
            %lanes = arith.andi %ge, %lt : i1
            %rl = scf.if %lanes -> i32 {
              %row = arith.subi %l, %c64 : index
              %w = arith.subi %c, %c20 : index
              %a0 = func.call @inter(%row, %w, %c64) : (index, index, index) -> index
              %a = arith.addi %a0, %c16384 : index
              %p = func.call @pat(%a) : (index) -> i32
              scf.yield %p : i32
            } else {
              scf.yield %zero : i32
            }
            scf.yield %rl : i32
          } else {
            %ge32 = arith.cmpi uge, %c, %c32 : index
            %lt40 = arith.cmpi ult, %c, %c40 : index
            %inE = arith.andi %ge32, %lt40 : i1
            %re = scf.if %inE -> i32 {
              // The shift: lanes 33..63 hold the rows of lanes 32..62.
              %s1 = arith.cmpi uge, %l, %c33 : index
              %s2 = arith.cmpi ult, %l, %c64 : index
              %shifted = arith.andi %s1, %s2 : i1
              %lm1 = arith.subi %l, %c1 : index
              %row = arith.select %shifted, %lm1, %l : index
              %w = arith.subi %c, %c32 : index
              %a = func.call @inter(%row, %w, %c128) : (index, index, index) -> index
              %p = func.call @pat(%a) : (index) -> i32
              scf.yield %p : i32
            } else {
              scf.yield %zero : i32
            }
            scf.yield %re : i32
          }
          scf.yield %rd : i32
        }
        scf.yield %rc : i32
      }
      scf.yield %rb : i32
    }
    return %r : i32
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %out = memref.alloc() : memref<128x64xi32>
    gpu.launch_func @kernels::@cp blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%out : memref<128x64xi32>)
    %z = arith.constant 0 : i64
    %u = arith.constant 1 : i64
    %errs = scf.for %l = %c0 to %c128 step %c1 iter_args(%ea = %z) -> (i64) {
      %ea2 = scf.for %c = %c0 to %c64 step %c1 iter_args(%e = %ea) -> (i64) {
        %want = func.call @expected(%l, %c) : (index, index) -> i32
        %g = memref.load %out[%l, %c] : memref<128x64xi32>
        %same = arith.cmpi eq, %g, %want : i32
        %inc = arith.select %same, %z, %u : i64
        %e2 = arith.addi %e, %inc : i64
        scf.yield %e2 : i64
      }
      scf.yield %ea2 : i64
    }
    vector.print str "tcgen05.cp: errors "
    vector.print %errs : i64
    return
  }
}
