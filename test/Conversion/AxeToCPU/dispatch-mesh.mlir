// RUN: axe-opt %s --pass-pipeline='builtin.module(axe-dispatch{target=cpu})' | FileCheck %s

// Operators at mesh scope on the CPU (cpu.mesh): one call to the MPI
// runtime per step of the collective plan, with a constant descriptor
// (include/axe/Runtime/MPIRuntime.h), on the addresses of the two shards.

#partials = #axe.layout<S[(2, 2, 8, 4) : (1@dx, 1@dy, 4, 1)]>
#scattered = #axe.layout<S[(2, 2, 2, 4) : (1@dx, 1@dy, 4, 1)]>
#rows = #axe.layout<S[(2, 2, 2, 8) : (1@dx, 1@dy, 8, 1)]>
#cols = #axe.layout<S[(8, 2, 2, 2) : (2, 1@dx, 1@dy, 1)]>

// Descriptors: version, kind, element kind, bytes, reduction; mesh extents;
// communicator axes; root; local counts before and after; send pack
// (outer, n, inner, digits as (stride, extent)); receive pack; transfers.

// The copy to the same distribution: a local copy of the 16 elements.
// CHECK-DAG: memref.global "private" constant @[[SAME:.*]] : memref<22xi64> = dense<[2, 5, 0, 4, 0, 2, 2, 2, 0, 0, 16, 16, 1, 16, 1, 0, 1, 1, 1, 0, 0, 0]>
// Rows to columns: an all-to-all over dx, then one over dy.
// CHECK-DAG: memref.global "private" constant @[[A2A0:.*]] : memref<27xi64> = dense<[2, 4, 1, 4, 0, 2, 2, 2, 1, 0, 0, 16, 16, 2, 8, 1, 1, 4, 2, 1, 4, 4, 1, 2, 2, 0, 0]>
// CHECK-DAG: memref.global "private" constant @[[A2A1:.*]] : memref<27xi64> = dense<[2, 4, 1, 4, 0, 2, 2, 2, 1, 1, 0, 16, 16, 4, 4, 1, 1, 2, 2, 1, 8, 2, 1, 2, 2, 0, 0]>
// The reduce-scatter: f32 sums over (dx, dy), 32 elements in, 8 out; the
// rows are the most significant digits, so the chunks are contiguous.
// CHECK-DAG: memref.global "private" constant @[[RS:.*]] : memref<28xi64> = dense<[2, 2, 1, 4, 1, 2, 2, 2, 2, 0, 1, 0, 32, 8, 1, 8, 4, 2, 4, 2, 2, 2, 1, 1, 1, 0, 0, 0]>
// CHECK-DAG: func.func private @axe_mpi_step(i64, i64, i64)

// Inside a grid, the CTA at the origin runs the collective, once per process.
// CHECK-LABEL: func.func @reduce_scatter
// CHECK: %[[BX:.*]] = axe.axis_id bx
// CHECK: arith.cmpi eq, %[[BX]]
// CHECK: %[[BY:.*]] = axe.axis_id by
// CHECK: arith.cmpi eq, %[[BY]]
// CHECK: scf.if
// CHECK: %[[P:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[Y:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: memref.get_global @[[RS]]
// CHECK: func.call @axe_mpi_step
// CHECK-NOT: axe.reduce
func.func @reduce_scatter(%p: memref<8x4xf32>, %y: memref<2x4xf32>) {
  axe.kernel grid [4, 2] threads 32 {
    %a = axe.view %p[0, 0] : memref<8x4xf32> -> !axe.buffer<4x8x4xf32, #partials, global>
    %b = axe.view %y[0, 0] : memref<2x4xf32> -> !axe.buffer<8x4xf32, #scattered, global>
    axe.reduce sum %a into %b dims [0] at mesh<dx = 2, dy = 2>
        : !axe.buffer<4x8x4xf32, #partials, global> into !axe.buffer<8x4xf32, #scattered, global>
  }
  return
}

// Two steps: the first writes a scratch shard that the second reads.
// CHECK-LABEL: func.func @rows_to_cols
// CHECK-NOT: scf.if
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[T:.*]] = memref.extract_aligned_pointer_as_index %[[TMP]]
// CHECK: %[[TI:.*]] = arith.index_cast %[[T]]
// CHECK: memref.get_global @[[A2A0]]
// CHECK: func.call @axe_mpi_step(%{{.*}}, %[[TI]], %{{.*}})
// CHECK: memref.get_global @[[A2A1]]
// CHECK: func.call @axe_mpi_step(%[[TI]], %{{.*}}, %{{.*}})
// CHECK: memref.dealloc %[[TMP]]
func.func @rows_to_cols(%r: memref<2x8xf32>, %c: memref<8x2xf32>) {
  axe.kernel {
    %a = axe.view %r[0, 0] : memref<2x8xf32> -> !axe.buffer<8x8xf32, #rows, global>
    %b = axe.view %c[0, 0] : memref<8x2xf32> -> !axe.buffer<8x8xf32, #cols, global>
    axe.copy %a to %b at mesh<dx = 2, dy = 2>
        : !axe.buffer<8x8xf32, #rows, global> to !axe.buffer<8x8xf32, #cols, global>
  }
  return
}

// CHECK-LABEL: func.func @same
// CHECK: memref.get_global @[[SAME]]
// CHECK: func.call @axe_mpi_step
func.func @same(%r: memref<2x8xf32>, %s: memref<2x8xf32>) {
  axe.kernel {
    %a = axe.view %r[0, 0] : memref<2x8xf32> -> !axe.buffer<8x8xf32, #rows, global>
    %b = axe.view %s[0, 0] : memref<2x8xf32> -> !axe.buffer<8x8xf32, #rows, global>
    axe.copy %a to %b at mesh<dx = 2, dy = 2>
        : !axe.buffer<8x8xf32, #rows, global> to !axe.buffer<8x8xf32, #rows, global>
  }
  return
}
