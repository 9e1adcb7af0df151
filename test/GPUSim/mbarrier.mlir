// An mbarrier between a producer warp and a consumer warp: warp 0 waits
// for phase 0 (parity 0) while warp 1 fills shared memory and its 32
// threads arrive; test.wait sees the phase complete through the producers'
// tokens. --check-races: the completed phase orders the accesses.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// Waiting on the second barrier, which nobody arrives at, deadlocks:
// RUN: sed 's/%bars\[%c0\], %false/%bars[%c1], %false/' %s > %t.mlir
// RUN: not axe-gpu-run %t.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=DEADLOCK

// CHECK: ( 62, 60, 58, 56 )
// CHECK-NEXT: ( 1, 1, 1, 1 )

// DEADLOCK: error: axe-gpu-run: kernel @pc, block (0, 0, 0): deadlock: 0 warp(s) wait at a barrier, 1 on an mbarrier phase that cannot complete, 1 exited
// DEADLOCK: note: warp 0 waits on this mbarrier
// DEADLOCK: note: warp 1 exited here

!group = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @pc(%out: memref<32xf32>, %done: memref<32xi32>)
        workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c31 = arith.constant 31 : index
      %c32 = arith.constant 32 : index
      %false = arith.constant false
      %ticks = arith.constant 1000000 : index
      %bars = nvgpu.mbarrier.create -> !group
      %tid = gpu.thread_id x
      %lane = gpu.lane_id
      %warp = arith.divui %tid, %c32 : index
      %is0 = arith.cmpi eq, %tid, %c0 : index
      nvgpu.mbarrier.init %bars[%c0], %c32, predicate = %is0 : !group
      nvgpu.mbarrier.init %bars[%c1], %c32, predicate = %is0 : !group
      gpu.barrier
      %producer = arith.cmpi eq, %warp, %c1 : index
      scf.if %producer {
        %li = arith.index_cast %lane : index to i32
        %lf = arith.sitofp %li : i32 to f32
        %v = arith.addf %lf, %lf : f32
        memref.store %v, %s[%lane] : memref<32xf32, #gpu.address_space<workgroup>>
        %tok = nvgpu.mbarrier.arrive %bars[%c0] : !group -> !nvgpu.mbarrier.token
        %ok = nvgpu.mbarrier.test.wait %bars[%c0], %tok : !group, !nvgpu.mbarrier.token
        %oki = arith.extui %ok : i1 to i32
        memref.store %oki, %done[%lane] : memref<32xi32>
      } else {
        nvgpu.mbarrier.try_wait.parity %bars[%c0], %false, %ticks : !group
        %r = arith.subi %c31, %lane : index
        %v = memref.load %s[%r] : memref<32xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%lane] : memref<32xf32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %out = memref.alloc() : memref<32xf32>
    %done = memref.alloc() : memref<32xi32>
    gpu.launch_func @kernels::@pc blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%out : memref<32xf32>, %done : memref<32xi32>)
    %v = vector.load %out[%c0] : memref<32xf32>, vector<4xf32>
    vector.print %v : vector<4xf32>
    %d = vector.load %done[%c0] : memref<32xi32>, vector<4xi32>
    vector.print %d : vector<4xi32>
    return
  }
}
