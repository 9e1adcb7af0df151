// The fused GEMM + reduce-scatter of the Axe paper (section 4.2) on 2
// processes: K is split over the mesh, so each device computes a partial
// 64x32 product, tile by tile (16 rows); the reduce-scatter of one tile
// (axe.reduce_async) is in flight while the next tile is multiplied, and
// waited for before the following one starts. Every rank checks every
// element of its rows of the sum.
// REQUIRES: mpi
// RUN: axe-mpirun -n 2 --timeout 120 %s | FileCheck %s
// RUN: axe-opt %s --pass-pipeline='builtin.module(axe-dispatch{target=cpu})' \
// RUN:   | FileCheck %s --check-prefix=IR

// CHECK: [0] gemm + reduce-scatter mismatches: 0
// CHECK: [1] gemm + reduce-scatter mismatches: 0

// The tile's collective starts; the loop multiplies the next tile, then
// completes it before starting its own.
// IR-LABEL: func.func @gemm_reduce_scatter
// IR: func.call @axe_mpi_start
// IR: scf.for {{.*}} iter_args
// IR: vector.fma
// IR: func.call @axe_mpi_wait_all
// IR-NEXT: axe.wait
// IR: func.call @axe_mpi_start
// IR: scf.yield
// IR: func.call @axe_mpi_wait_all
// IR-NEXT: axe.wait

#a = #axe.layout<S[(16, 16) : (16, 1)]>
#b = #axe.layout<S[(16, 32) : (32, 1)]>
#c = #axe.layout<S[(16, 32) : (32, 1)]>
// The tile's partial products, one per device.
#partial = #axe.layout<S[(2, 16, 32) : (1@d, 32, 1)]>
// Rows [8 d, 8 d + 8) of the tile's sum on device d.
#rows = #axe.layout<S[(2, 8, 32) : (1@d, 32, 1)]>

!A = !axe.buffer<16x16xf32, #a, global>
!B = !axe.buffer<16x32xf32, #b, global>
!C = !axe.buffer<16x32xf32, #c, global>
!P = !axe.buffer<2x16x32xf32, #partial, global>
!Y = !axe.buffer<16x32xf32, #rows, global>

module {
  // A: this device's 16 columns of the 64x32 left operand; B: its 16 rows
  // of the 32x32 right one; C: its partial product; Y: its 32 rows of the
  // sum (8 rows of each tile).
  func.func @gemm_reduce_scatter(%A: memref<64x16xf32>, %B: memref<16x32xf32>,
                                 %C: memref<64x32xf32>, %Y: memref<32x32xf32>) {
    axe.kernel {
      %zero = arith.constant 0.0 : f32
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %b = axe.view %B[0, 0] : memref<16x32xf32> -> !B
      %a0 = axe.view %A[0, 0] : memref<64x16xf32> -> !A
      %c0 = axe.view %C[0, 0] : memref<64x32xf32> -> !C
      axe.fill %c0, %zero at cta : !C
      axe.gemm %a0, %b into %c0 at cta : !A, !B into !C
      %p0 = axe.view %C[0, 0] : memref<64x32xf32> -> !P
      %y0 = axe.view %Y[0, 0] : memref<32x32xf32> -> !Y
      %t0 = axe.reduce_async sum %p0 into %y0 dims [0] at mesh<d = 2> : !P into !Y
      %last = scf.for %t = %c1 to %c4 step %c1 iter_args(%prev = %t0) -> (!axe.token) {
        %row = arith.muli %t, %c16 : index
        %yrow = arith.muli %t, %c8 : index
        %a = axe.view %A[%row, 0] : memref<64x16xf32> -> !A
        %c = axe.view %C[%row, 0] : memref<64x32xf32> -> !C
        axe.fill %c, %zero at cta : !C
        // Overlaps the previous tile's reduce-scatter.
        axe.gemm %a, %b into %c at cta : !A, !B into !C
        axe.wait %prev at mesh<d = 2>
        %p = axe.view %C[%row, 0] : memref<64x32xf32> -> !P
        %y = axe.view %Y[%yrow, 0] : memref<32x32xf32> -> !Y
        %next = axe.reduce_async sum %p into %y dims [0] at mesh<d = 2> : !P into !Y
        scf.yield %next : !axe.token
      }
      axe.wait %last at mesh<d = 2>
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

  func.func @main() {
    %world = mpi.comm_world : !mpi.comm
    %rank32 = mpi.comm_rank(%world) : i32
    %d = arith.index_cast %rank32 : i32 to index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %A = memref.alloc() : memref<64x16xf32>
    %B = memref.alloc() : memref<16x32xf32>
    %C = memref.alloc() : memref<64x32xf32>
    %Y = memref.alloc() : memref<32x32xf32>
    // Device d holds columns [16 d, 16 d + 16) of a and those rows of b.
    %k0 = arith.muli %d, %c16 : index
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        %gk = arith.addi %k0, %k : index
        %v = func.call @a(%i, %gk) : (index, index) -> f32
        memref.store %v, %A[%i, %k] : memref<64x16xf32>
      }
    }
    scf.for %k = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %gk = arith.addi %k0, %k : index
        %v = func.call @b(%gk, %j) : (index, index) -> f32
        memref.store %v, %B[%k, %j] : memref<16x32xf32>
      }
    }
    func.call @gemm_reduce_scatter(%A, %B, %C, %Y)
        : (memref<64x16xf32>, memref<16x32xf32>, memref<64x32xf32>, memref<32x32xf32>) -> ()
    // Local row r = 8 t + s holds global row 16 t + 8 d + s.
    %d8 = arith.muli %d, %c8 : index
    %bad = scf.for %r = %c0 to %c32 step %c1 iter_args(%n = %c0) -> index {
      %t = arith.divui %r, %c8 : index
      %s = arith.remui %r, %c8 : index
      %t16 = arith.muli %t, %c16 : index
      %g0 = arith.addi %t16, %d8 : index
      %gi = arith.addi %g0, %s : index
      %m = scf.for %j = %c0 to %c32 step %c1 iter_args(%n1 = %n) -> index {
        %want = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> f32 {
          %x = func.call @a(%gi, %k) : (index, index) -> f32
          %y = func.call @b(%k, %j) : (index, index) -> f32
          %xy = arith.mulf %x, %y : f32
          %acc1 = arith.addf %acc, %xy : f32
          scf.yield %acc1 : f32
        }
        %got = memref.load %Y[%r, %j] : memref<32x32xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %n2 = arith.addi %n1, %c1 : index
        %n3 = arith.select %ne, %n2, %n1 : index
        scf.yield %n3 : index
      }
      scf.yield %m : index
    }
    vector.print str "gemm + reduce-scatter mismatches: "
    vector.print %bad : index
    return
  }
}
