// RUN: axe-opt %s --axe-to-nvvm -split-input-file | FileCheck %s

// Copies between registers and memory move the consecutive elements a
// thread holds as one vector access (up to 16 bytes) where the memory
// layout is plain strided and the run's start is proven aligned to it: the
// view's start, the other dims' strides, the thread's base (2 (lane mod 4)
// here) and the run's offset from it.

#g = #axe.layout<S[(8, 8) : (8, 1)]>
#r = #axe.layout<S[(8, 4, 2) : (4@laneid, 1@laneid, 1)]>
// CHECK-LABEL: gpu.func @store_pairs_kernel
// CHECK: vector.store %{{.*}}, %reinterpret_cast[%{{.*}}] {alignment = 8 : i64} : memref<64xf32, strided<[1]>>, vector<2xf32>
// CHECK-NOT: %reinterpret_cast[
// CHECK: gpu.return
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @store_pairs(%C: memref<8x8xf32>) {
    %one = arith.constant 1.0 : f32
    axe.kernel grid [1] threads 32 {
      %acc = axe.alloc : !axe.buffer<8x8xf32, #r, reg>
      axe.fill %acc, %one at warp : !axe.buffer<8x8xf32, #r, reg>
      %v = axe.view %C[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #g, global>
      axe.copy %acc to %v at warp : !axe.buffer<8x8xf32, #r, reg> to !axe.buffer<8x8xf32, #g, global>
    }
    return
  }
}

// -----

// A view that starts at a run-time column may start anywhere: element by
// element.
#g = #axe.layout<S[(8, 8) : (16, 1)]>
#r = #axe.layout<S[(8, 4, 2) : (4@laneid, 1@laneid, 1)]>
// CHECK-LABEL: gpu.func @store_unaligned_kernel
// CHECK-NOT: vector.store
// CHECK-COUNT-2: memref.store %{{.*}}, %reinterpret_cast[%{{.*}}] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NOT: vector.store
// CHECK: gpu.return
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @store_unaligned(%C: memref<8x16xf32>, %col: index) {
    %one = arith.constant 1.0 : f32
    axe.kernel grid [1] threads 32 {
      %acc = axe.alloc : !axe.buffer<8x8xf32, #r, reg>
      axe.fill %acc, %one at warp : !axe.buffer<8x8xf32, #r, reg>
      %v = axe.view %C[0, %col] : memref<8x16xf32> -> !axe.buffer<8x8xf32, #g, global>
      axe.copy %acc to %v at warp : !axe.buffer<8x8xf32, #r, reg> to !axe.buffer<8x8xf32, #g, global>
    }
    return
  }
}

// -----

// Four consecutive f32 per lane come in as one 16-byte load.
#g = #axe.layout<S[(32, 4) : (4, 1)]>
#r = #axe.layout<S[(32, 4) : (1@laneid, 1)]>
// CHECK-LABEL: gpu.func @load_quads_kernel
// CHECK: vector.load %reinterpret_cast[%{{.*}}] {alignment = 16 : i64} : memref<128xf32, strided<[1]>>, vector<4xf32>
// CHECK-NOT: %reinterpret_cast[
// CHECK: vector.store %{{.*}}, %reinterpret_cast_0[%{{.*}}] {alignment = 16 : i64} : memref<128xf32, strided<[1]>>, vector<4xf32>
// CHECK-NOT: %reinterpret_cast_0[
// CHECK: gpu.return
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @load_quads(%X: memref<32x4xf32>, %Y: memref<32x4xf32>) {
    axe.kernel grid [1] threads 32 {
      %r = axe.alloc : !axe.buffer<32x4xf32, #r, reg>
      %x = axe.view %X[0, 0] : memref<32x4xf32> -> !axe.buffer<32x4xf32, #g, global>
      axe.copy %x to %r at warp : !axe.buffer<32x4xf32, #g, global> to !axe.buffer<32x4xf32, #r, reg>
      %y = axe.view %Y[0, 0] : memref<32x4xf32> -> !axe.buffer<32x4xf32, #g, global>
      axe.copy %r to %y at warp : !axe.buffer<32x4xf32, #r, reg> to !axe.buffer<32x4xf32, #g, global>
    }
    return
  }
}
