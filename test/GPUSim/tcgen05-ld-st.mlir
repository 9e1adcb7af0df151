// tcgen05.st then tcgen05.ld (.32x32b) round trips through tensor memory.
// 8 warps; warp 0 allocates 256 columns (the TMEM address it writes names
// column 0; a second allocation of 32 by warp 1 lands at column 256).
// Warp w may access TMEM lanes 32 (w mod 4) .. +31 only: warps w and w + 4
// share a lane quarter. Thread t = 32 w + l stores the 64 values
// 1000 t + r (r = 0..63) into columns 64 + 64 (w / 4) + r of its TMEM lane
// 32 (w mod 4) + l; after a barrier each warp loads the 64 columns the
// other warp of its lane quarter stored (x64) and one of them as a single
// i32 (x1), and a second warp's allocation holds 32 more stored columns.
// The host checks every element.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// CHECK: TMEM base addresses: 0 256
// CHECK-NEXT: round trip x64: errors 0
// CHECK-NEXT: round trip x1: errors 0
// CHECK-NEXT: round trip x32 (second allocation): errors 0

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
    gpu.func @rt(%out: memref<256x64xi32>, %one: memref<256xi32>, %second: memref<256x32xi32>, %bases: memref<2xi32>)
        workgroup(%slot: memref<2xi32, 3> {llvm.align = 16 : i64}) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c1000 = arith.constant 1000 : i32
      %c16i = arith.constant 16 : i32
      %c256i = arith.constant 256 : i32
      %c32i = arith.constant 32 : i32
      %c7i = arith.constant 7 : i32
      %c4i = arith.constant 4 : i32
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %quarter = arith.remui %warp, %c4 : index
      %half = arith.divui %warp, %c4 : index
      %slotidx = memref.extract_aligned_pointer_as_index %slot : memref<2xi32, 3> -> index
      %sloti = arith.index_cast %slotidx : index to i32
      %slotp = llvm.inttoptr %sloti : i32 to !llvm.ptr<3>
      %slot1i = arith.addi %sloti, %c4i : i32
      %slot1p = llvm.inttoptr %slot1i : i32 to !llvm.ptr<3>
      %w0 = arith.cmpi eq, %warp, %c0 : index
      %w1 = arith.cmpi eq, %warp, %c1 : index
      scf.if %w0 {
        nvvm.tcgen05.alloc %slotp, %c256i : !llvm.ptr<3>, i32
      }
      scf.if %w1 {
        nvvm.tcgen05.alloc %slot1p, %c32i : !llvm.ptr<3>, i32
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %tbase = memref.load %slot[%c0] : memref<2xi32, 3>
      %tbase1 = memref.load %slot[%c1] : memref<2xi32, 3>
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        memref.store %tbase, %bases[%c0] : memref<2xi32>
        memref.store %tbase1, %bases[%c1] : memref<2xi32>
      }
      // Lane field 32 (w mod 4); columns 64 + 64 (w / 4).
      %q32 = arith.muli %quarter, %c32 : index
      %qi = arith.index_cast %q32 : index to i32
      %laneoff = arith.shli %qi, %c16i : i32
      %h64 = arith.muli %half, %c64 : index
      %hc = arith.addi %h64, %c64 : index
      %hci = arith.index_cast %hc : index to i32
      %rowaddr = arith.addi %tbase, %laneoff : i32
      %staddr = arith.addi %rowaddr, %hci : i32
      %stp = llvm.inttoptr %staddr : i32 to !llvm.ptr<6>
      %tidi = arith.index_cast %tid : index to i32
      %t1000 = arith.muli %tidi, %c1000 : i32
      %iota64 = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]> : vector<64xi32>
      %b64 = vector.broadcast %t1000 : i32 to vector<64xi32>
      %vals = arith.addi %b64, %iota64 : vector<64xi32>
      nvvm.tcgen05.st %stp, %vals {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
      // The second allocation: 32 columns, value 7 t + r.
      %t7 = arith.muli %tidi, %c7i : i32
      %iota32 = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : vector<32xi32>
      %b32 = vector.broadcast %t7 : i32 to vector<32xi32>
      %vals2 = arith.addi %b32, %iota32 : vector<32xi32>
      %lo = arith.cmpi ult, %warp, %c4 : index
      scf.if %lo {
        %a1 = arith.addi %tbase1, %laneoff : i32
        %p1 = llvm.inttoptr %a1 : i32 to !llvm.ptr<6>
        nvvm.tcgen05.st %p1, %vals2 {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
      }
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<store>
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      // The other half's columns: 64 + 64 (1 - w / 4).
      %oh = arith.subi %c1, %half : index
      %oh64 = arith.muli %oh, %c64 : index
      %oc = arith.addi %oh64, %c64 : index
      %oci = arith.index_cast %oc : index to i32
      %ldaddr = arith.addi %rowaddr, %oci : i32
      %ldp = llvm.inttoptr %ldaddr : i32 to !llvm.ptr<6>
      %got = nvvm.tcgen05.ld %ldp {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<64xi32>
      // Column 5 of them alone.
      %c5i = arith.constant 5 : i32
      %a5 = arith.addi %ldaddr, %c5i : i32
      %p5 = llvm.inttoptr %a5 : i32 to !llvm.ptr<6>
      %g5 = nvvm.tcgen05.ld %p5 {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : i32
      %a2 = arith.addi %tbase1, %laneoff : i32
      %p2 = llvm.inttoptr %a2 : i32 to !llvm.ptr<6>
      %g2 = nvvm.tcgen05.ld %p2 {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
      nvvm.tcgen05.wait #nvvm.tcgen05_wait<load>
      scf.for %j = %c0 to %c64 step %c1 {
        %e = vector.extract %got[%j] : i32 from vector<64xi32>
        memref.store %e, %out[%tid, %j] : memref<256x64xi32>
      }
      memref.store %g5, %one[%tid] : memref<256xi32>
      scf.for %j = %c0 to %c32 step %c1 {
        %e = vector.extract %g2[%j] : i32 from vector<32xi32>
        memref.store %e, %second[%tid, %j] : memref<256x32xi32>
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      scf.if %w0 {
        %tp = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
        nvvm.tcgen05.dealloc %tp, %c256i : !llvm.ptr<6>, i32
      }
      scf.if %w1 {
        %tp1 = llvm.inttoptr %tbase1 : i32 to !llvm.ptr<6>
        nvvm.tcgen05.dealloc %tp1, %c32i : !llvm.ptr<6>, i32
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %out = memref.alloc() : memref<256x64xi32>
    %one = memref.alloc() : memref<256xi32>
    %second = memref.alloc() : memref<256x32xi32>
    %bases = memref.alloc() : memref<2xi32>
    gpu.launch_func @kernels::@rt blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%out : memref<256x64xi32>, %one : memref<256xi32>, %second : memref<256x32xi32>, %bases : memref<2xi32>)
    %b0 = memref.load %bases[%c0] : memref<2xi32>
    %b1 = memref.load %bases[%c1] : memref<2xi32>
    vector.print str "TMEM base addresses: "
    vector.print %b0 : i32 punctuation <no_punctuation>
    vector.print str " "
    vector.print %b1 : i32
    %z = arith.constant 0 : i64
    %u = arith.constant 1 : i64
    // Thread t reads what thread (t + 128) mod 256 stored: 1000 s + r.
    %e64, %e1 = scf.for %t = %c0 to %c256 step %c1 iter_args(%ea = %z, %eb = %z) -> (i64, i64) {
      %s0 = arith.addi %t, %c128 : index
      %s = arith.remui %s0, %c256 : index
      %s1000 = arith.muli %s, %c1000 : index
      %ea2 = scf.for %r = %c0 to %c64 step %c1 iter_args(%e = %ea) -> (i64) {
        %want = arith.addi %s1000, %r : index
        %wi = arith.index_cast %want : index to i32
        %g = memref.load %out[%t, %r] : memref<256x64xi32>
        %same = arith.cmpi eq, %g, %wi : i32
        %inc = arith.select %same, %z, %u : i64
        %e2 = arith.addi %e, %inc : i64
        scf.yield %e2 : i64
      }
      %w5 = arith.addi %s1000, %c5 : index
      %w5i = arith.index_cast %w5 : index to i32
      %g5 = memref.load %one[%t] : memref<256xi32>
      %same5 = arith.cmpi eq, %g5, %w5i : i32
      %inc5 = arith.select %same5, %z, %u : i64
      %eb2 = arith.addi %eb, %inc5 : i64
      scf.yield %ea2, %eb2 : i64, i64
    }
    vector.print str "round trip x64: errors "
    vector.print %e64 : i64
    vector.print str "round trip x1: errors "
    vector.print %e1 : i64
    // Second allocation: warps 0..3 stored 7 t + r; warp w reads what warp
    // w mod 4 stored: thread t gets 7 (t mod 128) + r.
    %e32 = scf.for %t = %c0 to %c256 step %c1 iter_args(%ea = %z) -> (i64) {
      %s = arith.remui %t, %c128 : index
      %s7 = arith.muli %s, %c7 : index
      %ea2 = scf.for %r = %c0 to %c32 step %c1 iter_args(%e = %ea) -> (i64) {
        %want = arith.addi %s7, %r : index
        %wi = arith.index_cast %want : index to i32
        %g = memref.load %second[%t, %r] : memref<256x32xi32>
        %same = arith.cmpi eq, %g, %wi : i32
        %inc = arith.select %same, %z, %u : i64
        %e2 = arith.addi %e, %inc : i64
        scf.yield %e2 : i64
      }
      scf.yield %ea2 : i64
    }
    vector.print str "round trip x32 (second allocation): errors "
    vector.print %e32 : i64
    return
  }
}
