// The paper's Figure 8 reduce-scatter over a 2x2 mesh
// (test/Dialect/Axe/kernels/reduce_scatter_mesh.mlir, the same source, an
// sm_90 kernel) on 4 processes; every rank checks its 16 rows of the sum.
// The kernel file and the host program are compiled separately.
// REQUIRES: mpi
// RUN: axe-mpirun -n 4 --timeout 120 \
// RUN:   %axe_src_root/test/Dialect/Axe/kernels/reduce_scatter_mesh.mlir \
// RUN:   %S/Inputs/reduce-scatter-main.mlir | FileCheck %s

// Rank r holds rows [16 r, 16 r + 16): y[1][5] = 10 * ((131 (16 r + 1) + 35) mod 97).
// CHECK-DAG: [0] reduce_scatter mismatches: 0
// CHECK-DAG: [1] reduce_scatter mismatches: 0
// CHECK-DAG: [2] reduce_scatter mismatches: 0
// CHECK-DAG: [3] reduce_scatter mismatches: 0
// CHECK-DAG: [0] y[1][5] = 690
// CHECK-DAG: [3] y[1][5] = 520
