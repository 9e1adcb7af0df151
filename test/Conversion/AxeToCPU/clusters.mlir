// RUN: axe-opt %s --convert-axe-to-cpu -split-input-file -verify-diagnostics | FileCheck %s

// Clusters only group CTAs: each CTA runs as its own CPU thread and knows its
// place in its cluster (its grid coordinate modulo the cluster's extent).

// CHECK-LABEL: func.func @cluster_coordinates
// CHECK: scf.parallel (%[[BX:.*]], %[[BY:.*]]) =
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: arith.remui %[[BX]], %[[C2]] : index
// CHECK-NOT: axe.axis_id
func.func @cluster_coordinates(%out: memref<8x4xindex>) {
  axe.kernel grid [8, 4] threads 32 cluster [2, 1] {
    %bx = axe.axis_id bx
    %by = axe.axis_id by
    %cbx = axe.axis_id cbx
    memref.store %cbx, %out[%bx, %by] : memref<8x4xindex>
  }
  return
}

// -----

// Distributed shared memory needs the CTAs of a cluster to run together.
!dsm = !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (1@cbx, 1)]>, shared>
func.func @distributed_shared_memory() {
  axe.kernel grid [2] threads 32 cluster [2] {
    // expected-error @+1 {{places data on cluster axis 'cbx' (distributed shared memory), which the CPU target cannot do}}
    %s = axe.alloc : !dsm
  }
  return
}

// -----

func.func @cluster_barrier() {
  axe.kernel grid [2] threads 32 cluster [2] {
    // expected-error @+1 {{runs at cluster scope, which the CPU target cannot do}}
    axe.barrier at cluster
  }
  return
}
