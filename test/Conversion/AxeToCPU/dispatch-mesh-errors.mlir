// RUN: axe-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(axe-dispatch{target=cpu})'

// Operators at mesh scope that the CPU's MPI lowering (cpu.mesh) refuses,
// each with the reason. The schedule is forced so that the error is its own.

// Blocks of 4 on devices 0 and 2 only: no named collective, and no dense shard per process.
func.func @exchange(%a: memref<2xf32>, %b: memref<4xf32>) {
  axe.kernel {
    %x = axe.view %a[0] : memref<2xf32> -> !axe.buffer<8xf32, #axe.layout<S[(4, 2) : (1@d, 1)]>, global>
    %y = axe.view %b[0] : memref<4xf32> -> !axe.buffer<8xf32, #axe.layout<S[(2, 4) : (2@d, 1)]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh' declined axe.copy on target cpu: the target is not a balanced distribution over the mesh (d: irregular (iter (2 : 2@d) and offset 0 do not put one copy on each of the 4 devices))}}
    axe.copy %x to %y at mesh<d = 4> {schedule = "cpu.mesh"} : !axe.buffer<8xf32, #axe.layout<S[(4, 2) : (1@d, 1)]>, global> to !axe.buffer<8xf32, #axe.layout<S[(2, 4) : (2@d, 1)]>, global>
  }
  return
}

// -----

// Each process's shard must be one dense row-major array: MPI sends it as it is.
func.func @gaps(%a: memref<2x8xf32, strided<[16, 1]>>, %b: memref<8x8xf32>) {
  axe.kernel {
    %x = axe.view %a[0, 0] : memref<2x8xf32, strided<[16, 1]>> -> !axe.buffer<4x8xf32, #axe.layout<S[(2, 2, 8) : (1@d, 16, 1)]>, global>
    %y = axe.view %b[0, 0] : memref<8x8xf32> -> !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)] + R[2 : 1@d]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh' declined axe.copy on target cpu: the source must be stored densely and row-major as its local shape 2x8 on every process; along dim 0 the iter 2:16@m should have stride 8@m}}
    axe.copy %x to %y at mesh<d = 2> {schedule = "cpu.mesh"} : !axe.buffer<4x8xf32, #axe.layout<S[(2, 2, 8) : (1@d, 16, 1)]>, global> to !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)] + R[2 : 1@d]>, global>
  }
  return
}

// -----

// A mesh reduce sums what the devices hold; a dim in memory is a local reduction.
func.func @memory_dim(%a: memref<4x8xf32>, %b: memref<4xf32>) {
  axe.kernel {
    %x = axe.view %a[0, 0] : memref<4x8xf32> -> !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)] + R[2 : 1@d]>, global>
    %y = axe.view %b[0] : memref<4xf32> -> !axe.buffer<4xf32, #axe.layout<S[4 : 1] + R[2 : 1@d]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh' declined axe.reduce on target cpu: reduced dim 1 of the source has an iter on 'm'; a reduce at mesh scope sums across devices only, so reduce the local part first at cta scope}}
    axe.reduce sum %x into %y dims [1] at mesh<d = 2> {schedule = "cpu.mesh"} : !axe.buffer<4x8xf32, #axe.layout<S[(4, 8) : (8, 1)] + R[2 : 1@d]>, global> into !axe.buffer<4xf32, #axe.layout<S[4 : 1] + R[2 : 1@d]>, global>
  }
  return
}

// -----

// MPI has no f16 sum.
func.func @half(%a: memref<8xf16>, %b: memref<8xf16>) {
  axe.kernel {
    %x = axe.view %a[0] : memref<8xf16> -> !axe.buffer<2x8xf16, #axe.layout<S[(2, 8) : (1@d, 1)]>, global>
    %y = axe.view %b[0] : memref<8xf16> -> !axe.buffer<8xf16, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh' declined axe.reduce on target cpu: MPI cannot reduce f16 across processes; reduce in f32 or f64}}
    axe.reduce sum %x into %y dims [0] at mesh<d = 2> {schedule = "cpu.mesh"} : !axe.buffer<2x8xf16, #axe.layout<S[(2, 8) : (1@d, 1)]>, global> into !axe.buffer<8xf16, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
  }
  return
}

// -----

func.func @accumulate(%a: memref<8xf32>, %b: memref<8xf32>) {
  axe.kernel {
    %x = axe.view %a[0] : memref<8xf32> -> !axe.buffer<2x8xf32, #axe.layout<S[(2, 8) : (1@d, 1)]>, global>
    %y = axe.view %b[0] : memref<8xf32> -> !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh' declined axe.reduce on target cpu: a mesh reduce that accumulates into its target is not implemented; reduce into a fresh buffer and add}}
    axe.reduce sum %x into %y dims [0] at mesh<d = 2> {accumulate, schedule = "cpu.mesh"} : !axe.buffer<2x8xf32, #axe.layout<S[(2, 8) : (1@d, 1)]>, global> into !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
  }
  return
}

// -----

func.func @slice(%a: memref<8xf32>, %b: memref<4xf32>) {
  axe.kernel {
    %x = axe.view %a[0] : memref<8xf32> -> !axe.buffer<16xf32, #axe.layout<S[(2, 8) : (1@d, 1)]>, global>
    %s = axe.slice %x[0] : !axe.buffer<16xf32, #axe.layout<S[(2, 8) : (1@d, 1)]>, global> -> !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, global>
    %y = axe.view %b[0] : memref<4xf32> -> !axe.buffer<8xf32, #axe.layout<S[(2, 4) : (1@d, 1)]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh' declined axe.copy on target cpu: an operand of a mesh operator must be an axe.view of this process's memref (a slice or an axe.alloc has no memory the other processes can address)}}
    axe.copy %s to %y at mesh<d = 2> {schedule = "cpu.mesh"} : !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, global> to !axe.buffer<8xf32, #axe.layout<S[(2, 4) : (1@d, 1)]>, global>
  }
  return
}

// -----

// A device axis the mesh does not have is an error of the op itself.
func.func @outside_mesh(%a: memref<8xf32>, %b: memref<8xf32>) {
  axe.kernel {
    %x = axe.view %a[0] : memref<8xf32> -> !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@dz]>, global>
    %y = axe.view %b[0] : memref<8xf32> -> !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
    // expected-error @+1 {{operand #0 is placed on device axis 'dz', which mesh<d = 2> does not have}}
    axe.copy %x to %y at mesh<d = 2> : !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@dz]>, global> to !axe.buffer<8xf32, #axe.layout<S[8 : 1] + R[2 : 1@d]>, global>
  }
  return
}

// -----

// cpu.mesh.gemm: A splits K over d, B holds all of K on every device.
func.func @gemm_k_mismatch(%a: memref<8x4xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  axe.kernel {
    %x = axe.view %a[0, 0] : memref<8x4xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global>
    %y = axe.view %b[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)] + R[2 : 1@d]>, global>
    %z = axe.view %c[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)] + R[2 : 1@d]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh.gemm' declined axe.gemm on target cpu: A splits K over 'd' S(1, stride 4) but B does not split K the same way ('d' R): each process must multiply matching parts of K}}
    axe.gemm %x, %y into %z at mesh<d = 2> {schedule = "cpu.mesh.gemm", zero_init} : !axe.buffer<8x8xf32, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global>, !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)] + R[2 : 1@d]>, global> into !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)] + R[2 : 1@d]>, global>
  }
  return
}

// -----

// Rows of A and columns of B both split over d: each device would hold
// only a diagonal block of the product.
func.func @gemm_diagonal(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x8xf32>) {
  axe.kernel {
    %x = axe.view %a[0, 0] : memref<4x8xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
    %y = axe.view %b[0, 0] : memref<8x4xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global>
    %z = axe.view %c[0, 0] : memref<4x8xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh.gemm' declined axe.gemm on target cpu: on mesh axis 'd' S(0, stride 4) for A and S(1, stride 4) for B: a mesh gemm needs, per axis, K split the same way in both, rows of A or columns of B split with the other replicated, or both replicated}}
    axe.gemm %x, %y into %z at mesh<d = 2> {schedule = "cpu.mesh.gemm"} : !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>, !axe.buffer<8x8xf32, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global> into !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
  }
  return
}

// -----

// K split: the products are addends, so C cannot be accumulated onto.
func.func @gemm_accumulate_partial(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  axe.kernel {
    %x = axe.view %a[0, 0] : memref<8x4xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global>
    %y = axe.view %b[0, 0] : memref<4x8xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
    %z = axe.view %c[0, 0] : memref<4x8xf32> -> !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh.gemm' declined axe.gemm on target cpu: C is not laid out as the local products are (they reach it by reduce-scatter over (d): 8x8 -> 4x8), so the gemm cannot accumulate onto it; write zero_init and add the old C afterwards}}
    axe.gemm %x, %y into %z at mesh<d = 2> {schedule = "cpu.mesh.gemm"} : !axe.buffer<8x8xf32, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global>, !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global> into !axe.buffer<8x8xf32, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
  }
  return
}

// -----

// Addends in f16 cannot be summed by MPI.
func.func @gemm_f16_partial(%a: memref<8x4xf16>, %b: memref<4x8xf16>, %c: memref<4x8xf16>) {
  axe.kernel {
    %x = axe.view %a[0, 0] : memref<8x4xf16> -> !axe.buffer<8x8xf16, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global>
    %y = axe.view %b[0, 0] : memref<4x8xf16> -> !axe.buffer<8x8xf16, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
    %z = axe.view %c[0, 0] : memref<4x8xf16> -> !axe.buffer<8x8xf16, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh.gemm' declined axe.gemm on target cpu: MPI cannot reduce f16 across processes; reduce in f32 or f64}}
    axe.gemm %x, %y into %z at mesh<d = 2> {schedule = "cpu.mesh.gemm", zero_init} : !axe.buffer<8x8xf16, #axe.layout<S[(8, 2, 4) : (4, 1@d, 1)]>, global>, !axe.buffer<8x8xf16, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global> into !axe.buffer<8x8xf16, #axe.layout<S[(2, 4, 8) : (1@d, 8, 1)]>, global>
  }
  return
}

// -----

// 2-D blocks (rows over dx, columns over dy) gathered onto every device: the
// planner merges the two all-gathers into one step over (dx, dy), which one
// MPI call cannot run (docs/Collectives.md, "What is not built").
#blk = #axe.layout<S[(2, 4, 2, 4) : (1@dx, 4, 1@dy, 1)]>
#all = #axe.layout<S[(8, 8) : (8, 1)] + R[(2, 2) : (1@dx, 1@dy)]>
func.func @two_dim_all_gather(%x: memref<4x4xf32>, %y: memref<8x8xf32>) {
  axe.kernel {
    %a = axe.view %x[0, 0] : memref<4x4xf32> -> !axe.buffer<8x8xf32, #blk, global>
    %b = axe.view %y[0, 0] : memref<8x8xf32> -> !axe.buffer<8x8xf32, #all, global>
    // expected-error @+1 {{forced schedule 'cpu.mesh' declined axe.copy on target cpu: step 'all-gather over (dx, dy): 4x4 -> 8x8': the step shards dims 0 and 1 at once}}
    axe.copy %a to %b at mesh<dx = 2, dy = 2> {schedule = "cpu.mesh"} : !axe.buffer<8x8xf32, #blk, global> to !axe.buffer<8x8xf32, #all, global>
  }
  return
}
