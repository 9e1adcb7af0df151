// TMA loads of 64x64 f16 boxes with the 128-byte swizzle from a 128x192
// global matrix: the host builds the tensor map (nvgpu.tma.create.descriptor),
// thread 0 issues the load on an mbarrier (arrive.expect_tx), every thread
// waits for the phase and reads the tile back through the swizzled address
// (16-byte chunk c of row r at chunk c ^ (r % 8)). The host checks every
// element against G[y + r][x + c], zero outside the matrix: one box inside,
// one past the bottom-right corner, one at negative coordinates.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: box (64, 32): errors 0, out of bounds 0
// CHECK-NEXT: box (160, 100): errors 0, out of bounds 3200
// CHECK-NEXT: box (-8, -3): errors 0, out of bounds 680

// 3 boxes of 8192 bytes; global bytes read: 8192 + 32*28*2 + 56*61*2.
// STATS: "bulk_total": {
// STATS-NEXT: "ops": 3,
// STATS-NEXT: "shared_bytes": 24576,
// STATS-NEXT: "global_bytes": 16816

!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @tile(%q: !llvm.ptr, %x: index, %y: index, %out: memref<64x64xf16>)
        workgroup(%s: memref<4096xf16, 3> {llvm.align = 1024}) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c7 = arith.constant 7 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %c8192 = arith.constant 8192 : index
      %false = arith.constant false
      %ticks = arith.constant 1000000 : index
      %d = builtin.unrealized_conversion_cast %q : !llvm.ptr to !tm
      %tid = gpu.thread_id x
      %bars = nvgpu.mbarrier.create -> !bars
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        nvgpu.mbarrier.init %bars[%c0], %c1 : !bars
        nvvm.fence.mbarrier.init
      }
      gpu.barrier
      %v = memref.reinterpret_cast %s to offset: [%c0], sizes: [64, 64], strides: [64, 1] : memref<4096xf16, 3> to memref<64x64xf16, strided<[64, 1], offset: ?>, 3>
      scf.if %is0 {
        nvgpu.tma.prefetch.descriptor %d : !tm
        nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %c8192 : !bars
        nvgpu.tma.async.load %d[%x, %y], %bars[%c0] to %v : !tm, !bars -> memref<64x64xf16, strided<[64, 1], offset: ?>, 3>
      }
      nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !bars
      scf.for %e = %tid to %c4096 step %c128 {
        %r = arith.divui %e, %c64 : index
        %c = arith.remui %e, %c64 : index
        %rb = arith.muli %r, %c128 : index
        %cb = arith.muli %c, %c2 : index
        %byte = arith.addi %rb, %cb : index
        %hi = arith.divui %byte, %c128 : index
        %h7 = arith.andi %hi, %c7 : index
        %x16 = arith.muli %h7, %c16 : index
        %sw = arith.xori %byte, %x16 : index
        %idx = arith.divui %sw, %c2 : index
        %val = memref.load %s[%idx] : memref<4096xf16, 3>
        memref.store %val, %out[%r, %c] : memref<64x64xf16>
      }
      gpu.return
    }
  }

  // Loads the box at (x, y) (innermost first) and prints the mismatches
  // and the out-of-bound elements.
  func.func @check(%p: !llvm.ptr, %G: memref<128x192xf16>, %x: index, %y: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c192 = arith.constant 192 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %f0 = arith.constant 0.0 : f16
    %out = memref.alloc() : memref<64x64xf16>
    gpu.launch_func @kernels::@tile blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%p : !llvm.ptr, %x : index, %y : index, %out : memref<64x64xf16>)
    %res:2 = scf.for %r = %c0 to %c64 step %c1 iter_args(%e = %zero, %o = %zero) -> (i64, i64) {
      %res2:2 = scf.for %c = %c0 to %c64 step %c1 iter_args(%ej = %e, %oj = %o) -> (i64, i64) {
        %gr = arith.addi %y, %r : index
        %gc = arith.addi %x, %c : index
        %r0 = arith.cmpi sge, %gr, %c0 : index
        %r1 = arith.cmpi slt, %gr, %c128 : index
        %q0 = arith.cmpi sge, %gc, %c0 : index
        %q1 = arith.cmpi slt, %gc, %c192 : index
        %a = arith.andi %r0, %r1 : i1
        %b = arith.andi %q0, %q1 : i1
        %in = arith.andi %a, %b : i1
        %want = scf.if %in -> (f16) {
          %g = memref.load %G[%gr, %gc] : memref<128x192xf16>
          scf.yield %g : f16
        } else {
          scf.yield %f0 : f16
        }
        %got = memref.load %out[%r, %c] : memref<64x64xf16>
        %gi = arith.bitcast %got : f16 to i16
        %wi = arith.bitcast %want : f16 to i16
        %bad = arith.cmpi ne, %gi, %wi : i16
        %n = arith.addi %ej, %one : i64
        %e2 = arith.select %bad, %n, %ej : i64
        %m = arith.addi %oj, %one : i64
        %o2 = arith.select %in, %oj, %m : i64
        scf.yield %e2, %o2 : i64, i64
      }
      scf.yield %res2#0, %res2#1 : i64, i64
    }
    %xi = arith.index_cast %x : index to i64
    %yi = arith.index_cast %y : index to i64
    vector.print str "box ("
    vector.print %xi : i64 punctuation <no_punctuation>
    vector.print str ", "
    vector.print %yi : i64 punctuation <no_punctuation>
    vector.print str "): errors "
    vector.print %res#0 : i64 punctuation <no_punctuation>
    vector.print str ", out of bounds "
    vector.print %res#1 : i64
    memref.dealloc %out : memref<64x64xf16>
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c192 = arith.constant 192 : index
    %c1024 = arith.constant 1024 : index
    %G = memref.alloc() : memref<128x192xf16>
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c192 step %c1 {
        %a = arith.muli %i, %c7 : index
        %b = arith.addi %a, %j : index
        %m = arith.remui %b, %c1024 : index
        %mi = arith.index_cast %m : index to i32
        %f = arith.sitofp %mi : i32 to f16
        memref.store %f, %G[%i, %j] : memref<128x192xf16>
      }
    }
    %u = memref.cast %G : memref<128x192xf16> to memref<*xf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !tm
    %p = builtin.unrealized_conversion_cast %d : !tm to !llvm.ptr
    %c32 = arith.constant 32 : index
    %c160 = arith.constant 160 : index
    %c100 = arith.constant 100 : index
    %m8 = arith.constant -8 : index
    %m3 = arith.constant -3 : index
    func.call @check(%p, %G, %c64, %c32) : (!llvm.ptr, memref<128x192xf16>, index, index) -> ()
    func.call @check(%p, %G, %c160, %c100) : (!llvm.ptr, memref<128x192xf16>, index, index) -> ()
    func.call @check(%p, %G, %m8, %m3) : (!llvm.ptr, memref<128x192xf16>, index, index) -> ()
    return
  }
}
