// The race detector on global memory within a CTA: the same rules as for
// shared memory (a barrier, or bar.warp.sync between lanes of one warp,
// orders accesses; atomics take part in no race). One entry point per case.
//
// Several threads store to one global element:
// RUN: not axe-gpu-run %s -e main_ww -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=WW
// WW: error: axe-gpu-run: kernel @ww, block (0, 0, 0), warp 0, thread (1, 0, 0) (lane 1): data race (write after write) on byte 0 of argument 0 (global memory) with thread 0 of this CTA since the last barrier
// WW-NOT: not reached
//
// --no-check-races runs it (whatever the lockstep order gives):
// RUN: axe-gpu-run %s -e main_ww -entry-point-result=void --no-check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNCHECKED
// UNCHECKED-NOT: error
// UNCHECKED: not reached
//
// Warp 1 reads what warp 0 wrote, with no barrier between:
// RUN: not axe-gpu-run %s -e main_raw -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=RAW
// RAW: error: axe-gpu-run: kernel @exchange, block (0, 0, 0), warp 1, thread (32, 0, 0) (lane 0): data race (read after write) on byte 0 of argument 0 (global memory) with thread 0 of this CTA since the last barrier
// RAW-NOT: not reached
//
// Warp 1 overwrites what warp 0 read, with no barrier between:
// RUN: not axe-gpu-run %s -e main_war -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=WAR
// WAR: error: axe-gpu-run: kernel @overwrite, block (0, 0, 0), warp 1, thread (33, 0, 0) (lane 1): data race (write after read) on byte 4 of argument 0 (global memory) with thread 1 of this CTA since the last barrier
// WAR-NOT: not reached
//
// The same exchanges with a barrier between pass; every element checked:
// RUN: axe-gpu-run %s -e main_ordered -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=ORDERED
// ORDERED-NOT: error
// ORDERED: ordered mismatches: 0
//
// Lanes of one warp read each other's writes without bar.warp.sync:
// RUN: not axe-gpu-run %s -e main_lanes -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=LANES
// LANES: error: axe-gpu-run: kernel @lanes, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): data race (read after write) on byte 4 of argument 0 (global memory) with thread 1 of this CTA since the last barrier
// LANES-NOT: not reached
//
// ... and with it between they pass:
// RUN: axe-gpu-run %s -e main_lanes_synced -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=SYNCED
// SYNCED-NOT: error
// SYNCED: lanes mismatches: 0
//
// Atomic adds of every thread to one word take part in no race:
// RUN: axe-gpu-run %s -e main_atomics -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=ATOMICS
// ATOMICS-NOT: error
// ATOMICS: 64
//
// A cp.async reads its global source at its issue: the thread that wrote it
// must be ordered before:
// RUN: not axe-gpu-run %s -e main_cp_async -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=CPASYNC
// CPASYNC: error: axe-gpu-run: kernel @cp_async, block (0, 0, 0), warp 1, thread (32, 0, 0) (lane 0): data race (read after write) on byte 0 of argument 0 (global memory) with thread 0 of this CTA since the last barrier
// CPASYNC-NOT: not reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @ww(%g: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %f = arith.constant 3.0 : f32
      memref.store %f, %g[%c0] : memref<1xf32>
      gpu.return
    }

    // Warp 0 stores g[tid]; warp 1 loads g[tid - 32].
    gpu.func @exchange(%g: memref<32xf32>) kernel {
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %low = arith.cmpi ult, %tid, %c32 : index
      scf.if %low {
        %x = arith.index_cast %tid : index to i32
        %f = arith.sitofp %x : i32 to f32
        memref.store %f, %g[%tid] : memref<32xf32>
      } else {
        %j = arith.subi %tid, %c32 : index
        %v = memref.load %g[%j] : memref<32xf32>
      }
      gpu.return
    }

    // Warp 0 loads g[tid]; warp 1 stores g[tid - 32].
    gpu.func @overwrite(%g: memref<32xf32>) kernel {
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %low = arith.cmpi ult, %tid, %c32 : index
      %lane = gpu.lane_id
      %zero = arith.constant 0 : index
      %first = arith.cmpi eq, %tid, %zero : index
      // Lane 0 of warp 0 does not read: the race is reported at byte 4.
      %reads = arith.cmpi ne, %lane, %zero : index
      scf.if %low {
        scf.if %reads {
          %v = memref.load %g[%tid] : memref<32xf32>
        }
      } else {
        %j = arith.subi %tid, %c32 : index
        %f = arith.constant 1.0 : f32
        %writes = arith.cmpi ne, %j, %zero : index
        scf.if %writes {
          memref.store %f, %g[%j] : memref<32xf32>
        }
      }
      gpu.return
    }

    // Each thread writes g[tid]; after a barrier each reads g[63 - tid]
    // into out[tid]; after another each overwrites g[63 - tid] (write after
    // the other thread's read, ordered by the barrier).
    gpu.func @ordered(%g: memref<64xf32>, %out: memref<64xf32>) kernel {
      %c63 = arith.constant 63 : index
      %tid = gpu.thread_id x
      %x = arith.index_cast %tid : index to i32
      %f = arith.sitofp %x : i32 to f32
      memref.store %f, %g[%tid] : memref<64xf32>
      gpu.barrier
      %j = arith.subi %c63, %tid : index
      %v = memref.load %g[%j] : memref<64xf32>
      memref.store %v, %out[%tid] : memref<64xf32>
      gpu.barrier
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %g[%j] : memref<64xf32>
      gpu.return
    }

    // Each lane writes g[lane], then reads g[(lane + 1) % 32] into out.
    gpu.func @lanes(%g: memref<32xf32>, %out: memref<32xf32>) kernel {
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %lane = gpu.lane_id
      %x = arith.index_cast %lane : index to i32
      %f = arith.sitofp %x : i32 to f32
      memref.store %f, %g[%lane] : memref<32xf32>
      %n = arith.addi %lane, %c1 : index
      %j = arith.remui %n, %c32 : index
      %v = memref.load %g[%j] : memref<32xf32>
      memref.store %v, %out[%lane] : memref<32xf32>
      gpu.return
    }

    gpu.func @lanes_synced(%g: memref<32xf32>, %out: memref<32xf32>) kernel {
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %lane = gpu.lane_id
      %x = arith.index_cast %lane : index to i32
      %f = arith.sitofp %x : i32 to f32
      memref.store %f, %g[%lane] : memref<32xf32>
      %all = arith.constant -1 : i32
      nvvm.bar.warp.sync %all : i32
      %n = arith.addi %lane, %c1 : index
      %j = arith.remui %n, %c32 : index
      %v = memref.load %g[%j] : memref<32xf32>
      memref.store %v, %out[%lane] : memref<32xf32>
      gpu.return
    }

    gpu.func @atomics(%g: memref<1xi32>) kernel {
      %base = memref.extract_aligned_pointer_as_index %g : memref<1xi32> -> index
      %base64 = arith.index_cast %base : index to i64
      %p = llvm.inttoptr %base64 : i64 to !llvm.ptr<1>
      %one = arith.constant 1 : i32
      %old = llvm.atomicrmw add %p, %one syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32
      gpu.return
    }

    // Warp 0 writes g; warp 1 copies it to shared memory with cp.async.
    gpu.func @cp_async(%g: memref<32xf32>)
        workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %lane = gpu.lane_id
      %low = arith.cmpi ult, %tid, %c32 : index
      scf.if %low {
        %f = arith.constant 2.0 : f32
        memref.store %f, %g[%lane] : memref<32xf32>
      } else {
        %t = nvgpu.device_async_copy %g[%lane], %s[%lane], 1
            : memref<32xf32> to memref<32xf32, #gpu.address_space<workgroup>>
        %grp = nvgpu.device_async_create_group %t
        nvgpu.device_async_wait %grp {numGroups = 0 : i32}
      }
      gpu.return
    }
  }

  func.func @main_ww() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %g = memref.alloc() : memref<1xf32>
    gpu.launch_func @kernels::@ww blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%g : memref<1xf32>)
    vector.print str "not reached\n"
    memref.dealloc %g : memref<1xf32>
    return
  }

  func.func @main_raw() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %g = memref.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@exchange blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%g : memref<32xf32>)
    vector.print str "not reached\n"
    memref.dealloc %g : memref<32xf32>
    return
  }

  func.func @main_war() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %g = memref.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@overwrite blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%g : memref<32xf32>)
    vector.print str "not reached\n"
    memref.dealloc %g : memref<32xf32>
    return
  }

  // out[t] must be 63 - t, and g all zeros.
  func.func @main_ordered() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %g = memref.alloc() : memref<64xf32>
    %out = memref.alloc() : memref<64xf32>
    gpu.launch_func @kernels::@ordered blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%g : memref<64xf32>, %out : memref<64xf32>)
    %zero = arith.constant 0.0 : f32
    %bad = scf.for %t = %c0 to %c64 step %c1 iter_args(%n = %c0) -> (index) {
      %j = arith.subi %c63, %t : index
      %ji = arith.index_cast %j : index to i32
      %want = arith.sitofp %ji : i32 to f32
      %v = memref.load %out[%t] : memref<64xf32>
      %w = memref.load %g[%t] : memref<64xf32>
      %ok1 = arith.cmpf oeq, %v, %want : f32
      %ok2 = arith.cmpf oeq, %w, %zero : f32
      %ok = arith.andi %ok1, %ok2 : i1
      %inc = arith.select %ok, %c0, %c1 : index
      %m = arith.addi %n, %inc : index
      scf.yield %m : index
    }
    vector.print str "ordered mismatches: "
    vector.print %bad : index
    memref.dealloc %g : memref<64xf32>
    memref.dealloc %out : memref<64xf32>
    return
  }

  func.func @main_lanes() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %g = memref.alloc() : memref<32xf32>
    %out = memref.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@lanes blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%g : memref<32xf32>, %out : memref<32xf32>)
    vector.print str "not reached\n"
    memref.dealloc %g : memref<32xf32>
    memref.dealloc %out : memref<32xf32>
    return
  }

  // out[l] must be (l + 1) % 32.
  func.func @main_lanes_synced() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %g = memref.alloc() : memref<32xf32>
    %out = memref.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@lanes_synced blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%g : memref<32xf32>, %out : memref<32xf32>)
    %bad = scf.for %l = %c0 to %c32 step %c1 iter_args(%n = %c0) -> (index) {
      %a = arith.addi %l, %c1 : index
      %j = arith.remui %a, %c32 : index
      %ji = arith.index_cast %j : index to i32
      %want = arith.sitofp %ji : i32 to f32
      %v = memref.load %out[%l] : memref<32xf32>
      %ok = arith.cmpf oeq, %v, %want : f32
      %inc = arith.select %ok, %c0, %c1 : index
      %m = arith.addi %n, %inc : index
      scf.yield %m : index
    }
    vector.print str "lanes mismatches: "
    vector.print %bad : index
    memref.dealloc %g : memref<32xf32>
    memref.dealloc %out : memref<32xf32>
    return
  }

  func.func @main_atomics() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %g = memref.alloc() : memref<1xi32>
    %z = arith.constant 0 : i32
    memref.store %z, %g[%c0] : memref<1xi32>
    gpu.launch_func @kernels::@atomics blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%g : memref<1xi32>)
    %v = memref.load %g[%c0] : memref<1xi32>
    vector.print %v : i32
    memref.dealloc %g : memref<1xi32>
    return
  }

  func.func @main_cp_async() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %g = memref.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@cp_async blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%g : memref<32xf32>)
    vector.print str "not reached\n"
    memref.dealloc %g : memref<32xf32>
    return
  }
}
