// tcgen05.cp and tcgen05.shift errors. The kernel as written runs: thread
// 0 copies 128 rows of 32 bytes (no swizzle, LBO 128, SBO 256) from a
// 4 KiB shared buffer into the 32 allocated TMEM columns, shifts lanes
// 0..31 and commits; each variant below breaks one rule.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s --check-prefix=OK
// OK: done
//
// Columns 28..35 of a 32-column allocation:
// RUN: sed 's/%col = arith.constant 0 : i32/%col = arith.constant 28 : i32/' %s > %t.dout.mlir
// RUN: not axe-gpu-run %t.dout.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=DOUT
// DOUT: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.cp.128x256b to TMEM address 0x0000001c writes columns 28 to 35, outside the CTA's allocated TMEM columns
//
// A descriptor without the fixed 0b001 at bit 46 (an sm_90 descriptor):
// RUN: sed 's/%hi = arith.constant 70437464178688 : i64/%hi = arith.constant 68720001024 : i64/' %s > %t.fixed.mlir
// RUN: not axe-gpu-run %t.fixed.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=FIXED
// FIXED: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.cp.128x256b shared-memory descriptor 0x00000010000800{{[0-9a-f]+}}: bits [46,49) are 0, not the fixed 0b001 of an sm_100 descriptor
//
// The start 3840 bytes later: rows 8.. run past the shared buffers (the
// 4-byte TMEM-address slot right after the source is a shared buffer too):
// RUN: sed 's/%bump = arith.constant 0 : i64/%bump = arith.constant 240 : i64/' %s > %t.oob.mlir
// RUN: not axe-gpu-run %t.oob.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=OOB
// OOB: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.cp.128x256b: bytes 4 to 7 of source row 8 are at shared address 4100, outside every shared buffer (descriptor 0x00004010000800f0: start 3840, leading offset 128, stride offset 256, swizzle 0)
//
// A 128-row copy to lane 32:
// RUN: sed 's/%lane = arith.constant 0 : i32/%lane = arith.constant 2097152 : i32/' %s > %t.lane.mlir
// RUN: not axe-gpu-run %t.lane.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=LANE
// LANE: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.cp.128x256b: TMEM address 0x00200000 has lane 32; a 128-row copy takes all 128 lanes from lane 0
//
// tcgen05.shift at lane 16:
// RUN: sed 's/%xlane = arith.constant 0 : i32/%xlane = arith.constant 1048576 : i32/' %s > %t.shift.mlir
// RUN: not axe-gpu-run %t.shift.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=SHIFT
// SHIFT: error: axe-gpu-run: kernel @k, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): tcgen05.shift: TMEM address 0x00100000 has lane 16, not a multiple of 32 below 128
//
// Multicast (.32x128b.warpx4) is not modelled:
// RUN: sed 's/shape_128x256b>}/shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}/' %s > %t.mcast.mlir
// RUN: not axe-gpu-run %t.mcast.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=MCAST
// MCAST: error: axe-gpu-run: tcgen05.cp with the multicast warpx4 (shapes 64x128b and 32x128b) is not modelled
//
// Decompression (.b8x16.b6x16_p32) is not modelled:
// RUN: sed 's/shape_128x256b>}/shape_128x256b>, srcFormat = #nvvm.tcgen05_cp_src_fmt<b6x16_p32>}/' %s > %t.fmt.mlir
// RUN: not axe-gpu-run %t.fmt.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=FMT
// FMT: error: axe-gpu-run: tcgen05.cp with decompression from the source format b6x16_p32 is not modelled

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @k()
        workgroup(%src: memref<1024xi32, 3> {llvm.align = 1024 : i64}, %slot: memref<1xi32, 3> {llvm.align = 16 : i64}, %bar: memref<1xi64, 3> {llvm.align = 8 : i64})
        kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32i = arith.constant 32 : i32
      %col = arith.constant 0 : i32
      %lane = arith.constant 0 : i32
      %xlane = arith.constant 0 : i32
      %hi = arith.constant 70437464178688 : i64
      %bump = arith.constant 0 : i64
      %tid = gpu.thread_id x
      %is0 = arith.cmpi eq, %tid, %c0 : index
      %slotidx = memref.extract_aligned_pointer_as_index %slot : memref<1xi32, 3> -> index
      %sloti = arith.index_cast %slotidx : index to i32
      %slotp = llvm.inttoptr %sloti : i32 to !llvm.ptr<3>
      %baridx = memref.extract_aligned_pointer_as_index %bar : memref<1xi64, 3> -> index
      %bari = arith.index_cast %baridx : index to i32
      %barp = llvm.inttoptr %bari : i32 to !llvm.ptr<3>
      nvvm.tcgen05.alloc %slotp, %c32i : !llvm.ptr<3>, i32
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>
      %tbase = memref.load %slot[%c0] : memref<1xi32, 3>
      scf.if %is0 {
        %one = arith.constant 1 : i32
        nvvm.mbarrier.init %barp, %one : !llvm.ptr<3>, i32
        %mask = arith.constant 262143 : i64
        %i4 = arith.constant 4 : i64
        %srcidx = memref.extract_aligned_pointer_as_index %src : memref<1024xi32, 3> -> index
        %srci = arith.index_cast %srcidx : index to i64
        %sa = arith.andi %srci, %mask : i64
        %ssa = arith.shrui %sa, %i4 : i64
        %ssb = arith.addi %ssa, %bump : i64
        %desc = arith.ori %ssb, %hi : i64
        %t0 = arith.addi %tbase, %col : i32
        %t1 = arith.addi %t0, %lane : i32
        %t = llvm.inttoptr %t1 : i32 to !llvm.ptr<6>
        nvvm.tcgen05.cp %t, %desc {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
        %s0 = arith.addi %tbase, %xlane : i32
        %s = llvm.inttoptr %s0 : i32 to !llvm.ptr<6>
        nvvm.tcgen05.shift %s : !llvm.ptr<6>
        nvvm.tcgen05.commit %barp : !llvm.ptr<3>
      }
      nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>
      gpu.barrier
      %tp = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>
      nvvm.tcgen05.dealloc %tp, %c32i : !llvm.ptr<6>, i32
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
    vector.print str "done\n"
    return
  }
}
