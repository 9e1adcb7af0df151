// axe.gemm at mesh scope on a 2x2 mesh (4 processes): each process
// multiplies its shards, and the collective plan takes the local products
// to C's layout (cpu.mesh.gemm). Every rank checks every element it holds.
//   @k_split_rows: K split over dx, rows over dy; C's rows over (dy, dx):
//                  a reduce-scatter over dx.
//   @k_split_all:  K split over both axes; C on every device: an
//                  all-reduce over (dx, dy).
//   @rows_cols:    rows of A over dx, columns of B over dy, C split the
//                  same way: no communication, and the gemm accumulates
//                  onto C (no zero_init).
// REQUIRES: mpi
// RUN: axe-mpirun -n 4 --timeout 120 %s | FileCheck %s
// The first kernel inside a 2x2 grid: the CTA at the origin runs both the
// local gemm and the collective, once per process.
// RUN: sed '0,/^    axe.kernel {/s//    axe.kernel grid [2, 2] threads 64 {/' %s > %t.grid.mlir
// RUN: axe-mpirun -n 4 --timeout 120 %t.grid.mlir | FileCheck %s
// RUN: axe-opt %s --pass-pipeline='builtin.module(axe-dispatch{target=cpu})' \
// RUN:   | FileCheck %s --check-prefix=IR

// CHECK-DAG: [0] k_split_rows mismatches: 0
// CHECK-DAG: [1] k_split_rows mismatches: 0
// CHECK-DAG: [2] k_split_rows mismatches: 0
// CHECK-DAG: [3] k_split_rows mismatches: 0
// CHECK-DAG: [0] k_split_all mismatches: 0
// CHECK-DAG: [1] k_split_all mismatches: 0
// CHECK-DAG: [2] k_split_all mismatches: 0
// CHECK-DAG: [3] k_split_all mismatches: 0
// CHECK-DAG: [0] rows_cols mismatches: 0
// CHECK-DAG: [1] rows_cols mismatches: 0
// CHECK-DAG: [2] rows_cols mismatches: 0
// CHECK-DAG: [3] rows_cols mismatches: 0

// Step descriptors: version, kind (2 reduce-scatter, 0 all-reduce),
// element kind, bytes, reduction (1 sum); mesh extents; communicator axes.
// IR-DAG: memref.global "private" constant @[[RS:.*]] : memref<{{[0-9]+}}xi64> = dense<[2, 2, 1, 4, 1, 2, 2, 2, 1, 0,
// IR-DAG: memref.global "private" constant @[[AR:.*]] : memref<{{[0-9]+}}xi64> = dense<[2, 0, 1, 4, 1, 2, 2, 2, 2, 0, 1,

// The local gemm into a scratch product, then one step into C's shard.
// IR-LABEL: func.func @k_split_rows
// IR: %[[P:.*]] = memref.alloc() : memref<16x16xf32>
// IR: vector.fma
// IR: memref.get_global @[[RS]]
// IR: func.call @axe_mpi_step
// IR: memref.dealloc %[[P]]
// IR-NOT: axe.gemm
// IR-LABEL: func.func @k_split_all
// IR: memref.alloc() : memref<16x16xf32>
// IR: memref.get_global @[[AR]]
// IR: func.call @axe_mpi_step
// The product is C's own shard: no scratch, no call.
// IR-LABEL: func.func @rows_cols
// IR-NOT: memref.alloc
// IR-NOT: axe_mpi_step
// IR: vector.fma
// IR-NOT: axe_mpi_step
// IR: return

// Device (x, y) holds rows [16 y, +16) and K [16 x, +16) of A.
#a1 = #axe.layout<S[(2, 16, 2, 16) : (1@dy, 16, 1@dx, 1)]>
#b1 = #axe.layout<S[(2, 16, 16) : (1@dx, 16, 1)] + R[(2) : (1@dy)]>
// Rows [16 y + 8 x, +8) of C.
#c1 = #axe.layout<S[(2, 2, 8, 16) : (1@dy, 1@dx, 16, 1)]>
// K [16 x + 8 y, +8) of A and B.
#a2 = #axe.layout<S[(16, 2, 2, 8) : (8, 1@dx, 1@dy, 1)]>
#b2 = #axe.layout<S[(2, 2, 8, 16) : (1@dx, 1@dy, 16, 1)]>
#c2 = #axe.layout<S[(16, 16) : (16, 1)] + R[(2, 2) : (1@dx, 1@dy)]>
// Rows [16 x, +16) of A, columns [16 y, +16) of B, that block of C.
#a3 = #axe.layout<S[(2, 16, 16) : (1@dx, 16, 1)] + R[(2) : (1@dy)]>
#b3 = #axe.layout<S[(16, 2, 16) : (16, 1@dy, 1)] + R[(2) : (1@dx)]>
#c3 = #axe.layout<S[(2, 16, 2, 16) : (1@dx, 16, 1@dy, 1)]>

module {
  func.func @k_split_rows(%A: memref<16x16xf32>, %B: memref<16x16xf32>,
                          %C: memref<8x16xf32>) {
    axe.kernel {
      %a = axe.view %A[0, 0] : memref<16x16xf32> -> !axe.buffer<32x32xf32, #a1, global>
      %b = axe.view %B[0, 0] : memref<16x16xf32> -> !axe.buffer<32x16xf32, #b1, global>
      %c = axe.view %C[0, 0] : memref<8x16xf32> -> !axe.buffer<32x16xf32, #c1, global>
      axe.gemm %a, %b into %c at mesh<dx = 2, dy = 2> {zero_init}
          : !axe.buffer<32x32xf32, #a1, global>, !axe.buffer<32x16xf32, #b1, global>
            into !axe.buffer<32x16xf32, #c1, global>
    }
    return
  }

  func.func @k_split_all(%A: memref<16x8xf32>, %B: memref<8x16xf32>,
                         %C: memref<16x16xf32>) {
    axe.kernel {
      %a = axe.view %A[0, 0] : memref<16x8xf32> -> !axe.buffer<16x32xf32, #a2, global>
      %b = axe.view %B[0, 0] : memref<8x16xf32> -> !axe.buffer<32x16xf32, #b2, global>
      %c = axe.view %C[0, 0] : memref<16x16xf32> -> !axe.buffer<16x16xf32, #c2, global>
      axe.gemm %a, %b into %c at mesh<dx = 2, dy = 2> {zero_init}
          : !axe.buffer<16x32xf32, #a2, global>, !axe.buffer<32x16xf32, #b2, global>
            into !axe.buffer<16x16xf32, #c2, global>
    }
    return
  }

  func.func @rows_cols(%A: memref<16x16xf32>, %B: memref<16x16xf32>,
                       %C: memref<16x16xf32>) {
    axe.kernel {
      %a = axe.view %A[0, 0] : memref<16x16xf32> -> !axe.buffer<32x16xf32, #a3, global>
      %b = axe.view %B[0, 0] : memref<16x16xf32> -> !axe.buffer<16x32xf32, #b3, global>
      %c = axe.view %C[0, 0] : memref<16x16xf32> -> !axe.buffer<32x32xf32, #c3, global>
      axe.gemm %a, %b into %c at mesh<dx = 2, dy = 2>
          : !axe.buffer<32x16xf32, #a3, global>, !axe.buffer<16x32xf32, #b3, global>
            into !axe.buffer<32x32xf32, #c3, global>
    }
    return
  }

  // The global operands: a(i, k) = (i + 2 k) mod 5, b(k, j) = (3 k + j) mod 4.
  func.func @a(%i: index, %k: index) -> f32 {
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %t = arith.muli %k, %c2 : index
    %s = arith.addi %i, %t : index
    %m = arith.remui %s, %c5 : index
    %mi = arith.index_cast %m : index to i64
    %v = arith.sitofp %mi : i64 to f32
    return %v : f32
  }
  func.func @b(%k: index, %j: index) -> f32 {
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %t = arith.muli %k, %c3 : index
    %s = arith.addi %t, %j : index
    %m = arith.remui %s, %c4 : index
    %mi = arith.index_cast %m : index to i64
    %v = arith.sitofp %mi : i64 to f32
    return %v : f32
  }
  // sum over k < K of a(i, k) b(k, j).
  func.func @want(%i: index, %j: index, %K: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %r = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> f32 {
      %x = func.call @a(%i, %k) : (index, index) -> f32
      %y = func.call @b(%k, %j) : (index, index) -> f32
      %xy = arith.mulf %x, %y : f32
      %acc1 = arith.addf %acc, %xy : f32
      scf.yield %acc1 : f32
    }
    return %r : f32
  }
  // A[i, k] = a(i0 + i, k0 + k).
  func.func @fill_a(%A: memref<?x?xf32>, %i0: index, %k0: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %A, %c0 : memref<?x?xf32>
    %n = memref.dim %A, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %m step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        %gi = arith.addi %i0, %i : index
        %gk = arith.addi %k0, %k : index
        %v = func.call @a(%gi, %gk) : (index, index) -> f32
        memref.store %v, %A[%i, %k] : memref<?x?xf32>
      }
    }
    return
  }
  // B[k, j] = b(k0 + k, j0 + j).
  func.func @fill_b(%B: memref<?x?xf32>, %k0: index, %j0: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %B, %c0 : memref<?x?xf32>
    %n = memref.dim %B, %c1 : memref<?x?xf32>
    scf.for %k = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %gk = arith.addi %k0, %k : index
        %gj = arith.addi %j0, %j : index
        %v = func.call @b(%gk, %gj) : (index, index) -> f32
        memref.store %v, %B[%k, %j] : memref<?x?xf32>
      }
    }
    return
  }
  func.func @fill_value(%C: memref<?x?xf32>, %v: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %C, %c0 : memref<?x?xf32>
    %n = memref.dim %C, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %m step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        memref.store %v, %C[%i, %j] : memref<?x?xf32>
      }
    }
    return
  }
  // The elements of C that differ from base + want(i0 + i, j0 + j, K).
  func.func @mismatches(%C: memref<?x?xf32>, %i0: index, %j0: index,
                        %K: index, %base: f32) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %C, %c0 : memref<?x?xf32>
    %n = memref.dim %C, %c1 : memref<?x?xf32>
    %bad = scf.for %i = %c0 to %m step %c1 iter_args(%n0 = %c0) -> index {
      %row = scf.for %j = %c0 to %n step %c1 iter_args(%n1 = %n0) -> index {
        %gi = arith.addi %i0, %i : index
        %gj = arith.addi %j0, %j : index
        %w = func.call @want(%gi, %gj, %K) : (index, index, index) -> f32
        %want = arith.addf %w, %base : f32
        %got = memref.load %C[%i, %j] : memref<?x?xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %n2 = arith.addi %n1, %c1 : index
        %n3 = arith.select %ne, %n2, %n1 : index
        scf.yield %n3 : index
      }
      scf.yield %row : index
    }
    return %bad : index
  }

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %rank32 = mpi.comm_rank(%world) : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    // rank = 2 x + y (row-major mesh coordinates).
    %x = arith.divui %rank, %c2 : index
    %y = arith.remui %rank, %c2 : index
    %x8 = arith.muli %x, %c8 : index
    %x16 = arith.muli %x, %c16 : index
    %y8 = arith.muli %y, %c8 : index
    %y16 = arith.muli %y, %c16 : index

    %A1 = memref.alloc() : memref<16x16xf32>
    %B1 = memref.alloc() : memref<16x16xf32>
    %C1 = memref.alloc() : memref<8x16xf32>
    %A1d = memref.cast %A1 : memref<16x16xf32> to memref<?x?xf32>
    %B1d = memref.cast %B1 : memref<16x16xf32> to memref<?x?xf32>
    %C1d = memref.cast %C1 : memref<8x16xf32> to memref<?x?xf32>
    func.call @fill_a(%A1d, %y16, %x16) : (memref<?x?xf32>, index, index) -> ()
    func.call @fill_b(%B1d, %x16, %c0) : (memref<?x?xf32>, index, index) -> ()
    func.call @k_split_rows(%A1, %B1, %C1)
        : (memref<16x16xf32>, memref<16x16xf32>, memref<8x16xf32>) -> ()
    %r1 = arith.addi %y16, %x8 : index
    %bad1 = func.call @mismatches(%C1d, %r1, %c0, %c32, %zero)
        : (memref<?x?xf32>, index, index, index, f32) -> index
    vector.print str "k_split_rows mismatches: "
    vector.print %bad1 : index

    %A2 = memref.alloc() : memref<16x8xf32>
    %B2 = memref.alloc() : memref<8x16xf32>
    %C2 = memref.alloc() : memref<16x16xf32>
    %A2d = memref.cast %A2 : memref<16x8xf32> to memref<?x?xf32>
    %B2d = memref.cast %B2 : memref<8x16xf32> to memref<?x?xf32>
    %C2d = memref.cast %C2 : memref<16x16xf32> to memref<?x?xf32>
    %k2 = arith.addi %x16, %y8 : index
    func.call @fill_a(%A2d, %c0, %k2) : (memref<?x?xf32>, index, index) -> ()
    func.call @fill_b(%B2d, %k2, %c0) : (memref<?x?xf32>, index, index) -> ()
    func.call @k_split_all(%A2, %B2, %C2)
        : (memref<16x8xf32>, memref<8x16xf32>, memref<16x16xf32>) -> ()
    %bad2 = func.call @mismatches(%C2d, %c0, %c0, %c32, %zero)
        : (memref<?x?xf32>, index, index, index, f32) -> index
    vector.print str "k_split_all mismatches: "
    vector.print %bad2 : index

    %A3 = memref.alloc() : memref<16x16xf32>
    %B3 = memref.alloc() : memref<16x16xf32>
    %C3 = memref.alloc() : memref<16x16xf32>
    %A3d = memref.cast %A3 : memref<16x16xf32> to memref<?x?xf32>
    %B3d = memref.cast %B3 : memref<16x16xf32> to memref<?x?xf32>
    %C3d = memref.cast %C3 : memref<16x16xf32> to memref<?x?xf32>
    func.call @fill_a(%A3d, %x16, %c0) : (memref<?x?xf32>, index, index) -> ()
    func.call @fill_b(%B3d, %c0, %y16) : (memref<?x?xf32>, index, index) -> ()
    func.call @fill_value(%C3d, %one) : (memref<?x?xf32>, f32) -> ()
    func.call @rows_cols(%A3, %B3, %C3)
        : (memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>) -> ()
    %bad3 = func.call @mismatches(%C3d, %x16, %y16, %c16, %one)
        : (memref<?x?xf32>, index, index, index, f32) -> index
    vector.print str "rows_cols mismatches: "
    vector.print %bad3 : index
    return
  }
}
