// Memref views and kernel-owned memory: subview (strided, rank-reducing),
// collapse_shape, expand_shape, reinterpret_cast with a dynamic offset,
// cast, dim, dynamic shared memory through memref.view, a memref.global in
// workgroup memory, and per-lane memref.alloca.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s

// CHECK:      ( 17, 0, 0, 1, 7, 4, 310, 1.5, 0, 8 )
// CHECK-NEXT: ( 27, 10, 5, 16, 42, 4, 260, 6.5, 30, 8 )
// CHECK-NEXT: ( 47, 62, 31, 46, 56, 4, 0, 0.5, 186, 8 )

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    memref.global "private" @g : memref<32xf32, #gpu.address_space<workgroup>>

    gpu.func @views(%A: memref<8x8xf32>, %out: memref<32x10xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c9 = arith.constant 9 : index
      %c16 = arith.constant 16 : index
      %c31 = arith.constant 31 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %l = gpu.lane_id
      %l16 = arith.remui %l, %c16 : index
      %l4 = arith.remui %l, %c4 : index
      %q4 = arith.divui %l16, %c4 : index
      %l8 = arith.remui %l, %c8 : index
      // [0] a strided subview: A[2 + l16/4][1 + 2 * (l % 4)]
      %sub = memref.subview %A[2, 1] [4, 4] [1, 2] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 2], offset: 17>>
      %v0 = memref.load %sub[%q4, %l4] : memref<4x4xf32, strided<[8, 2], offset: 17>>
      memref.store %v0, %out[%l, %c0] : memref<32x10xf32>
      // [1] collapsed: flat[2 l]
      %flat = memref.collapse_shape %A [[0, 1]] : memref<8x8xf32> into memref<64xf32>
      %l2 = arith.muli %l, %c2 : index
      %v1 = memref.load %flat[%l2] : memref<64xf32>
      memref.store %v1, %out[%l, %c1] : memref<32x10xf32>
      // [2] expanded to 4x4x4: flat[l]
      %cube = memref.expand_shape %flat [[0, 1, 2]] output_shape [4, 4, 4] : memref<64xf32> into memref<4x4x4xf32>
      %i0 = arith.divui %l, %c16 : index
      %i1 = arith.divui %l16, %c4 : index
      %v2 = memref.load %cube[%i0, %i1, %l4] : memref<4x4x4xf32>
      memref.store %v2, %out[%l, %c2] : memref<32x10xf32>
      // [3] reinterpreted at a dynamic offset: flat[1 + 3 (l % 16)]
      %re = memref.reinterpret_cast %A to offset: [%c1], sizes: [16], strides: [3] : memref<8x8xf32> to memref<16xf32, strided<[3], offset: ?>>
      %v3 = memref.load %re[%l16] : memref<16xf32, strided<[3], offset: ?>>
      memref.store %v3, %out[%l, %c3] : memref<32x10xf32>
      // [4] a rank-reducing subview of row l % 8, read backwards
      %row = memref.subview %A[%l8, 0] [1, 8] [1, 1] : memref<8x8xf32> to memref<8xf32, strided<[1], offset: ?>>
      %r8 = arith.subi %c7, %l8 : index
      %v4 = memref.load %row[%r8] : memref<8xf32, strided<[1], offset: ?>>
      memref.store %v4, %out[%l, %c4] : memref<32x10xf32>
      // [5] dim of the subview
      %d = memref.dim %sub, %c1 : memref<4x4xf32, strided<[8, 2], offset: 17>>
      %di = arith.index_cast %d : index to i32
      %df = arith.sitofp %di : i32 to f32
      memref.store %df, %out[%l, %c5] : memref<32x10xf32>
      // [6] dynamic shared memory viewed as 32 floats from byte 64
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sv = memref.view %dyn[%c64][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
      %li = arith.index_cast %l : index to i32
      %lf = arith.sitofp %li : i32 to f32
      %ten = arith.constant 10.0 : f32
      %l10 = arith.mulf %lf, %ten : f32
      memref.store %l10, %sv[%l] : memref<32xf32, #gpu.address_space<workgroup>>
      // [7] a workgroup memref.global
      %g = memref.get_global @g : memref<32xf32, #gpu.address_space<workgroup>>
      %half = arith.constant 0.5 : f32
      %lh = arith.addf %lf, %half : f32
      memref.store %lh, %g[%l] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %rl = arith.subi %c31, %l : index
      %v6 = memref.load %sv[%rl] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %v6, %out[%l, %c6] : memref<32x10xf32>
      %n1 = arith.addi %l, %c1 : index
      %n1m = arith.remui %n1, %c32 : index
      %v7 = memref.load %g[%n1m] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %v7, %out[%l, %c7] : memref<32x10xf32>
      // [8] per-lane alloca: sum of l * k for k < 4
      %p = memref.alloca() : memref<4xf32>
      scf.for %k = %c0 to %c4 step %c1 {
        %ki = arith.index_cast %k : index to i32
        %kf = arith.sitofp %ki : i32 to f32
        %x = arith.mulf %lf, %kf : f32
        memref.store %x, %p[%k] : memref<4xf32>
      }
      %zf = arith.constant 0.0 : f32
      %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zf) -> (f32) {
        %x = memref.load %p[%k] : memref<4xf32>
        %y = arith.addf %acc, %x : f32
        scf.yield %y : f32
      }
      memref.store %s, %out[%l, %c8] : memref<32x10xf32>
      // [9] dim 0 through a cast to dynamic sizes
      %dynA = memref.cast %A : memref<8x8xf32> to memref<?x?xf32>
      %d0 = memref.dim %dynA, %c0 : memref<?x?xf32>
      %d0i = arith.index_cast %d0 : index to i32
      %d0f = arith.sitofp %d0i : i32 to f32
      memref.store %d0f, %out[%l, %c9] : memref<32x10xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c31 = arith.constant 31 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %smem = arith.constant 192 : i32
    %A = memref.alloc() : memref<8x8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %k = arith.muli %i, %c8 : index
        %v = arith.addi %k, %j : index
        %vi = arith.index_cast %v : index to i32
        %f = arith.sitofp %vi : i32 to f32
        memref.store %f, %A[%i, %j] : memref<8x8xf32>
      }
    }
    %out = memref.alloc() : memref<32x10xf32>
    gpu.launch_func @kernels::@views blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%A : memref<8x8xf32>, %out : memref<32x10xf32>)
    %f0 = arith.constant 0.0 : f32
    %r0 = vector.transfer_read %out[%c0, %c0], %f0 : memref<32x10xf32>, vector<10xf32>
    vector.print %r0 : vector<10xf32>
    %r5 = vector.transfer_read %out[%c5, %c0], %f0 : memref<32x10xf32>, vector<10xf32>
    vector.print %r5 : vector<10xf32>
    %r31 = vector.transfer_read %out[%c31, %c0], %f0 : memref<32x10xf32>, vector<10xf32>
    vector.print %r31 : vector<10xf32>
    return
  }
}
