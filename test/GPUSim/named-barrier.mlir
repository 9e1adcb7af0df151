// Named barriers (nvvm.barrier id = 1, 64 threads) between warps 0 and 1
// while warp 2 works alone and exits: the two warps exchange data through
// shared memory. With a count of 96 the third warp never arrives: deadlock.
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// RUN: sed 's/%c64i = arith.constant 64 : i32/%c64i = arith.constant 96 : i32/' %s > %t.mlir
// RUN: not axe-gpu-run %t.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=DEADLOCK

// Thread t of warps 0/1 reads what thread 63 - t wrote (10 * (63 - t)).
// CHECK: ( 630, 620, 610, 600 )
// CHECK-NEXT: ( 310, 300, 290, 280 )
// CHECK-NEXT: ( -1, -1, -1, -1 )

// DEADLOCK: error: axe-gpu-run: kernel @ws, block (0, 0, 0): deadlock: 2 warp(s) wait at a barrier, 0 on an mbarrier phase that cannot complete, 1 exited

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @ws(%out: memref<96xf32>)
        workgroup(%s : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c2 = arith.constant 2 : index
      %c32 = arith.constant 32 : index
      %c63 = arith.constant 63 : index
      %id = arith.constant 1 : i32
      %c64i = arith.constant 64 : i32
      %tid = gpu.thread_id x
      %warp = arith.divui %tid, %c32 : index
      %pair = arith.cmpi ult, %warp, %c2 : index
      scf.if %pair {
        %ti = arith.index_cast %tid : index to i32
        %tf = arith.sitofp %ti : i32 to f32
        %ten = arith.constant 10.0 : f32
        %v = arith.mulf %tf, %ten : f32
        memref.store %v, %s[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
        nvvm.barrier id = %id number_of_threads = %c64i
        %r = arith.subi %c63, %tid : index
        %w = memref.load %s[%r] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %w, %out[%tid] : memref<96xf32>
      } else {
        %m = arith.constant -1.0 : f32
        memref.store %m, %out[%tid] : memref<96xf32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c96 = arith.constant 96 : index
    %out = memref.alloc() : memref<96xf32>
    gpu.launch_func @kernels::@ws blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1)
        args(%out : memref<96xf32>)
    %a = vector.load %out[%c0] : memref<96xf32>, vector<4xf32>
    vector.print %a : vector<4xf32>
    %b = vector.load %out[%c32] : memref<96xf32>, vector<4xf32>
    vector.print %b : vector<4xf32>
    %c = vector.load %out[%c64] : memref<96xf32>, vector<4xf32>
    vector.print %c : vector<4xf32>
    return
  }
}
