// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s

// Reduce-scatter over a 2x2 device mesh (axes dx, dy). Every device holds a
// 64x128 partial result; the sum over the 4 devices is scattered by rows:
// device (x, y) receives rows [16 (2x + y), 16 (2x + y) + 16). Each
// device's memref is its own shard; the buffers' layouts say how the shards
// form the distributed tensors (the view checks that the memory part is the
// memref's layout and the rest is on device axes).

// The 4 partial results: dim 0 enumerates the devices.
#partials = #axe.layout<S[(2, 2, 64, 128) : (1@dx, 1@dy, 128, 1)]>
// The result, sharded by rows over the devices.
#scattered = #axe.layout<S[(2, 2, 16, 128) : (1@dx, 1@dy, 128, 1)]>

// CHECK-LABEL: func.func @reduce_scatter
// CHECK: axe.view %{{.*}} [0, 0] : memref<64x128xf32> -> !axe.buffer<4x64x128xf32, #axe.layout<S[(2, 2, 64, 128) : (1@dx, 1@dy, 128, 1)]>, global>
// CHECK: axe.view %{{.*}} [0, 0] : memref<16x128xf32> -> !axe.buffer<64x128xf32, #axe.layout<S[(2, 2, 16, 128) : (1@dx, 1@dy, 128, 1)]>, global>
// CHECK: axe.reduce sum %{{.*}} into %{{.*}} dims [0] at mesh<dx = 2, dy = 2>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @reduce_scatter(%partial: memref<64x128xf32>, %out: memref<16x128xf32>) {
    axe.kernel grid [16] threads 128 {
      %p = axe.view %partial[0, 0] : memref<64x128xf32>
          -> !axe.buffer<4x64x128xf32, #partials, global>
      %y = axe.view %out[0, 0] : memref<16x128xf32>
          -> !axe.buffer<64x128xf32, #scattered, global>
      axe.reduce sum %p into %y dims [0] at mesh<dx = 2, dy = 2>
          : !axe.buffer<4x64x128xf32, #partials, global>
            into !axe.buffer<64x128xf32, #scattered, global>
    }
    return
  }
}
