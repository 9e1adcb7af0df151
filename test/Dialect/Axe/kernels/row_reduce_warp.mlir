// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s

// A warp-level row reduction and the softmax numerator built on it. Each of
// the 4 warps of a CTA takes 16 rows of a 64x64 f32 tile: lanes 2r and
// 2r + 1 hold the two 32-element halves of row r. The warp reduces each row
// to its maximum (replicated on both lanes of the row), then computes
// exp(x - max) with the maximum broadcast along the row, and stores both.

#gX = #axe.layout<S[(16, 64) : (64, 1)]>
#gMax = #axe.layout<S[16 : 1]>
#rows = #axe.layout<S[(16, 2, 32) : (2@laneid, 1@laneid, 1)]>
#rowMax = #axe.layout<S[16 : 2@laneid] + R[2 : 1@laneid]>

// CHECK-LABEL: func.func @row_softmax_numerator
// CHECK: %warpid = axe.axis_id warpid
// CHECK: axe.copy %{{.*}} to %{{.*}} at warp
// CHECK: axe.reduce max %[[X:.*]] into %[[M:.*]] dims [1] at warp : !axe.buffer<16x64xf32, #axe.layout<S[(16, 2, 32) : (2@laneid, 1@laneid, 1)]>, reg> into !axe.buffer<16x1xf32, #axe.layout<S[16 : 2@laneid] + R[2 : 1@laneid]>, reg>
// CHECK: axe.elementwise ins(%[[X]], %[[M]] : {{.*}}) outs(%{{.*}} : {{.*}}) at warp {
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK:   %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK:   %[[E:.*]] = math.exp %[[D]] : f32
// CHECK:   axe.yield %[[E]] : f32
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @row_softmax_numerator(%X: memref<64x64xf32>, %Y: memref<64x64xf32>,
                                   %Max: memref<64x1xf32>) {
    %c16 = arith.constant 16 : index
    axe.kernel grid [1] threads 128 {
      %warpid = axe.axis_id warpid
      %r0 = arith.muli %warpid, %c16 : index
      %gX = axe.view %X[%r0, 0] : memref<64x64xf32>
          -> !axe.buffer<16x64xf32, #gX, global>
      %x = axe.alloc : !axe.buffer<16x64xf32, #rows, reg>
      axe.copy %gX to %x at warp
          : !axe.buffer<16x64xf32, #gX, global> to !axe.buffer<16x64xf32, #rows, reg>
      %m = axe.alloc : !axe.buffer<16x1xf32, #rowMax, reg>
      axe.reduce max %x into %m dims [1] at warp
          : !axe.buffer<16x64xf32, #rows, reg> into !axe.buffer<16x1xf32, #rowMax, reg>
      %e = axe.alloc : !axe.buffer<16x64xf32, #rows, reg>
      axe.elementwise ins(%x, %m : !axe.buffer<16x64xf32, #rows, reg>, !axe.buffer<16x1xf32, #rowMax, reg>)
                      outs(%e : !axe.buffer<16x64xf32, #rows, reg>) at warp {
      ^bb0(%v: f32, %mx: f32):
        %d = arith.subf %v, %mx : f32
        %ex = math.exp %d : f32
        axe.yield %ex : f32
      }
      %gY = axe.view %Y[%r0, 0] : memref<64x64xf32>
          -> !axe.buffer<16x64xf32, #gX, global>
      axe.copy %e to %gY at warp
          : !axe.buffer<16x64xf32, #rows, reg> to !axe.buffer<16x64xf32, #gX, global>
      %gMax = axe.view %Max[%r0, 0] : memref<64x1xf32>
          -> !axe.buffer<16x1xf32, #gMax, global>
      axe.copy %m to %gMax at warp
          : !axe.buffer<16x1xf32, #rowMax, reg> to !axe.buffer<16x1xf32, #gMax, global>
    }
    return
  }
}
