// Reshardings of an 8x8 tensor over a 2x2 mesh on 4 processes, each step an
// axe.copy or axe.reduce at mesh scope that the collective planner turns
// into MPI calls: a local slice, all-to-alls, all-gathers, a reduce-scatter
// along columns (chunks the runtime packs) and an all-reduce (max). Every rank checks every element it ends with.
// REQUIRES: mpi
// RUN: axe-mpirun -n 4 --timeout 120 %s | FileCheck %s
// RUN: axe-mpirun -n 4 --timeout 120 --pipeline outline=false %s | FileCheck %s

// CHECK-DAG: [0] reshard mismatches: 0
// CHECK-DAG: [1] reshard mismatches: 0
// CHECK-DAG: [2] reshard mismatches: 0
// CHECK-DAG: [3] reshard mismatches: 0
// CHECK-DAG: [0] reduce mismatches: 0
// CHECK-DAG: [1] reduce mismatches: 0
// CHECK-DAG: [2] reduce mismatches: 0
// CHECK-DAG: [3] reduce mismatches: 0

// Every device holds the whole tensor.
#full = #axe.layout<S[(8, 8) : (8, 1)] + R[(2, 2) : (1@dx, 1@dy)]>
// Rows in blocks of 2 over (dx, dy): device (x, y) holds rows [2 (2x + y), +2).
#rows = #axe.layout<S[(2, 2, 2, 8) : (1@dx, 1@dy, 8, 1)]>
// Columns in blocks of 2 over (dx, dy).
#cols = #axe.layout<S[(8, 2, 2, 2) : (2, 1@dx, 1@dy, 1)]>
// Columns in blocks of 4 over dx, the same on both dy.
#cols_dx = #axe.layout<S[(8, 2, 4) : (4, 1@dx, 1)] + R[2 : 1@dy]>
// Rows in blocks of 4 over dx, the same on both dy.
#rows_dx = #axe.layout<S[(2, 4, 8) : (1@dx, 8, 1)] + R[2 : 1@dy]>
// One addend per device: dim 0 enumerates the devices.
#addends = #axe.layout<S[(2, 2, 8, 8) : (1@dx, 1@dy, 8, 1)]>

module {
  func.func @reshard(%in: memref<8x8xf32>, %r: memref<2x8xf32>,
                     %c: memref<8x2xf32>, %cx: memref<8x4xf32>,
                     %cy: memref<4x8xf32>, %out: memref<8x8xf32>) {
    axe.kernel {
      %a = axe.view %in[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #full, global>
      %b = axe.view %r[0, 0] : memref<2x8xf32> -> !axe.buffer<8x8xf32, #rows, global>
      %d = axe.view %c[0, 0] : memref<8x2xf32> -> !axe.buffer<8x8xf32, #cols, global>
      %e = axe.view %cx[0, 0] : memref<8x4xf32> -> !axe.buffer<8x8xf32, #cols_dx, global>
      %f = axe.view %cy[0, 0] : memref<4x8xf32> -> !axe.buffer<8x8xf32, #rows_dx, global>
      %g = axe.view %out[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #full, global>
      axe.copy %a to %b at mesh<dx = 2, dy = 2>
          : !axe.buffer<8x8xf32, #full, global> to !axe.buffer<8x8xf32, #rows, global>
      axe.copy %b to %d at mesh<dx = 2, dy = 2>
          : !axe.buffer<8x8xf32, #rows, global> to !axe.buffer<8x8xf32, #cols, global>
      axe.copy %d to %e at mesh<dx = 2, dy = 2>
          : !axe.buffer<8x8xf32, #cols, global> to !axe.buffer<8x8xf32, #cols_dx, global>
      axe.copy %e to %f at mesh<dx = 2, dy = 2>
          : !axe.buffer<8x8xf32, #cols_dx, global> to !axe.buffer<8x8xf32, #rows_dx, global>
      axe.copy %f to %g at mesh<dx = 2, dy = 2>
          : !axe.buffer<8x8xf32, #rows_dx, global> to !axe.buffer<8x8xf32, #full, global>
    }
    return
  }

  func.func @reduce(%p: memref<8x8xf32>, %c: memref<8x2xf32>,
                    %sum: memref<8x8xf32>, %max: memref<8x8xf32>) {
    axe.kernel {
      %a = axe.view %p[0, 0] : memref<8x8xf32> -> !axe.buffer<4x8x8xf32, #addends, global>
      %b = axe.view %c[0, 0] : memref<8x2xf32> -> !axe.buffer<8x8xf32, #cols, global>
      %s = axe.view %sum[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #full, global>
      %m = axe.view %max[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #full, global>
      // Reduce-scatter along dim 1, then all-gather: the sum everywhere.
      axe.reduce sum %a into %b dims [0] at mesh<dx = 2, dy = 2>
          : !axe.buffer<4x8x8xf32, #addends, global> into !axe.buffer<8x8xf32, #cols, global>
      axe.copy %b to %s at mesh<dx = 2, dy = 2>
          : !axe.buffer<8x8xf32, #cols, global> to !axe.buffer<8x8xf32, #full, global>
      // An all-reduce.
      axe.reduce max %a into %m dims [0] at mesh<dx = 2, dy = 2>
          : !axe.buffer<4x8x8xf32, #addends, global> into !axe.buffer<8x8xf32, #full, global>
    }
    return
  }

  // g(i, j) = 8 i + j.
  func.func @g(%i: index, %j: index) -> f32 {
    %c8 = arith.constant 8 : index
    %a = arith.muli %i, %c8 : index
    %s = arith.addi %a, %j : index
    %si = arith.index_cast %s : index to i64
    %v = arith.sitofp %si : i64 to f32
    return %v : f32
  }

  // Fills an 8x8 buffer with scale * g.
  func.func @fill(%m: memref<8x8xf32>, %scale: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %v = func.call @g(%i, %j) : (index, index) -> f32
        %w = arith.mulf %v, %scale : f32
        memref.store %w, %m[%i, %j] : memref<8x8xf32>
      }
    }
    return
  }

  // The elements of an 8x8 buffer that differ from scale * g.
  func.func @mismatches(%m: memref<8x8xf32>, %scale: f32) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %n = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %c0) -> index {
      %r = scf.for %j = %c0 to %c8 step %c1 iter_args(%b = %a) -> index {
        %v = func.call @g(%i, %j) : (index, index) -> f32
        %want = arith.mulf %v, %scale : f32
        %got = memref.load %m[%i, %j] : memref<8x8xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %b1 = arith.addi %b, %c1 : index
        %b2 = arith.select %ne, %b1, %b : index
        scf.yield %b2 : index
      }
      scf.yield %r : index
    }
    return %n : index
  }

  // The elements of rank r's 8x2 block of columns [2 r, 2 r + 2) that differ
  // from scale * g.
  func.func @mismatches_cols(%m: memref<8x2xf32>, %rank: index, %scale: f32) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %col0 = arith.muli %rank, %c2 : index
    %n = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %c0) -> index {
      %r = scf.for %j = %c0 to %c2 step %c1 iter_args(%b = %a) -> index {
        %col = arith.addi %col0, %j : index
        %v = func.call @g(%i, %col) : (index, index) -> f32
        %want = arith.mulf %v, %scale : f32
        %got = memref.load %m[%i, %j] : memref<8x2xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %b1 = arith.addi %b, %c1 : index
        %b2 = arith.select %ne, %b1, %b : index
        scf.yield %b2 : index
      }
      scf.yield %r : index
    }
    return %n : index
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %rank32 = mpi.comm_rank(%world) : i32
    %one = arith.constant 1.0 : f32
    %four = arith.constant 4.0 : f32
    %ten = arith.constant 10.0 : f32
    %nan = arith.constant 0x7FC00000 : f32

    %in = memref.alloc() : memref<8x8xf32>
    %r = memref.alloc() : memref<2x8xf32>
    %c = memref.alloc() : memref<8x2xf32>
    %cx = memref.alloc() : memref<8x4xf32>
    %cy = memref.alloc() : memref<4x8xf32>
    %out = memref.alloc() : memref<8x8xf32>
    func.call @fill(%in, %one) : (memref<8x8xf32>, f32) -> ()
    func.call @fill(%out, %nan) : (memref<8x8xf32>, f32) -> ()
    func.call @reshard(%in, %r, %c, %cx, %cy, %out)
        : (memref<8x8xf32>, memref<2x8xf32>, memref<8x2xf32>, memref<8x4xf32>,
           memref<4x8xf32>, memref<8x8xf32>) -> ()
    %bad = func.call @mismatches(%out, %one) : (memref<8x8xf32>, f32) -> index
    vector.print str "reshard mismatches: "
    vector.print %bad : index

    // Device r adds (r + 1) g: the sum is 10 g, the max 4 g.
    %rankf = arith.uitofp %rank32 : i32 to f32
    %scale = arith.addf %rankf, %one : f32
    %sum = memref.alloc() : memref<8x8xf32>
    %max = memref.alloc() : memref<8x8xf32>
    func.call @fill(%in, %scale) : (memref<8x8xf32>, f32) -> ()
    func.call @reduce(%in, %c, %sum, %max)
        : (memref<8x8xf32>, memref<8x2xf32>, memref<8x8xf32>, memref<8x8xf32>) -> ()
    %bad1 = func.call @mismatches(%sum, %ten) : (memref<8x8xf32>, f32) -> index
    %bad2 = func.call @mismatches(%max, %four) : (memref<8x8xf32>, f32) -> index
    %rank = arith.index_cast %rank32 : i32 to index
    %bad0 = func.call @mismatches_cols(%c, %rank, %ten) : (memref<8x2xf32>, index, f32) -> index
    %bad12 = arith.addi %bad1, %bad2 : index
    %bad3 = arith.addi %bad12, %bad0 : index
    vector.print str "reduce mismatches: "
    vector.print %bad3 : index
    return
  }
}
