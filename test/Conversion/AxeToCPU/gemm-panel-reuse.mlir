// RUN: axe-opt %s -split-input-file --axe-dispatch=target=cpu --convert-axe-to-cpu | FileCheck %s
// RUN: axe-opt %s -split-input-file --axe-dispatch=target=cpu --convert-axe-to-cpu=openmp=true | FileCheck %s --check-prefix=OMP
// RUN: axe-opt %s -split-input-file --axe-dispatch='target=cpu reuse-packed-panels=false' --convert-axe-to-cpu | FileCheck %s --check-prefix=OFF

// Where the packed gemm keeps B's packed panels from one CTA to the next.
// A grid of 2 x 2 CTAs, each over K in two slices: one slot per slice,
// tagged with the address of the slice of B it holds. The grid runs as
// workers (one, or one per OpenMP thread), each a contiguous run of CTAs
// with x (which B does not depend on) fastest, holding its slots from one
// CTA to the next and freeing them at its end. A slot is packed only when
// its tag is not the slice's address.

// CHECK-LABEL: func.func @reuse
// CHECK: scf.parallel (%[[W:.*]]) =
// CHECK: %[[TAGS:.*]] = memref.alloc() {alignment = 64 : i64, axe_cpu_per_worker, axe_cpu_per_worker_fill = -1 : i64} : memref<2xindex>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[TAGS]]
// CHECK: %[[PANELS:.*]] = memref.alloc() {alignment = 64 : i64, axe_cpu_per_worker, axe_cpu_per_worker_fastest = 0 : i64} : memref<2048xf32>
// CHECK: scf.for %[[CTA:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[BX:.*]] = arith.remui %[[CTA]], %[[C2:.*]] : index
// CHECK: %[[BY:.*]] = arith.divui %[[CTA]], %[[C2]] : index
// CHECK: memref.alloca_scope
// CHECK: %[[PANEL:.*]] = memref.subview %[[PANELS]]
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: %[[HELD:.*]] = memref.load %[[TAGS]][%[[SLOT:.*]]]
// CHECK: %[[MISS:.*]] = arith.cmpi ne, %[[HELD]], %[[ADDR:.*]] : index
// CHECK: scf.if %[[MISS]] {
// CHECK: vector.store %{{.*}}, %[[PANEL]]
// CHECK: memref.store %[[ADDR]], %[[TAGS]][%[[SLOT]]]
// CHECK: memref.dealloc %[[TAGS]]
// CHECK: memref.dealloc %[[PANELS]]
// CHECK-NEXT: scf.reduce

// Under OpenMP, as many workers as threads (at most one per CTA).
// OMP: func.func private @omp_get_max_threads() -> i32
// OMP-LABEL: func.func @reuse
// OMP: %[[T:.*]] = call @omp_get_max_threads() : () -> i32
// OMP: arith.index_cast %[[T]] : i32 to index
// OMP: scf.parallel

// OFF-LABEL: func.func @reuse
// OFF-NOT: axe_cpu_per_worker
// OFF: scf.parallel (%{{.*}}, %{{.*}}) =
// OFF-NOT: axe_cpu_per_worker
// OFF: return

!g = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (64, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @reuse(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [2, 2] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c32 : index
      %n0 = arith.muli %by, %c32 : index
      %gC = axe.view %C[%m0, %n0] : memref<64x64xf32> -> !g
      axe.fill %gC, %zero at cta : !g
      scf.for %k = %c0 to %c64 step %c32 {
        %gA = axe.view %A[%m0, %k] : memref<64x64xf32> -> !g
        %gB = axe.view %B[%k, %n0] : memref<64x64xf32> -> !g
        axe.gemm %gA, %gB into %gC at cta : !g, !g into !g
      }
    }
    return
  }
}

// -----

// The grid the other way round: bx numbers the columns of C (and of B), by
// its rows. B's slices do not depend on by, so the workers run by fastest:
// by is the remainder of a CTA's number, bx the quotient.
// CHECK-LABEL: func.func @columns_in_x
// CHECK: axe_cpu_per_worker_fastest = 1 : i64
// CHECK: scf.for %[[CTA:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[Y:.*]] = arith.remui %[[CTA]], %{{.*}} : index
// CHECK: %[[X:.*]] = arith.divui %[[CTA]], %{{.*}} : index
// CHECK: arith.muli %[[Y]], %{{.*}} : index
// CHECK: arith.muli %[[X]], %{{.*}} : index
!g = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (64, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @columns_in_x(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    axe.kernel grid [2, 2] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %by, %c32 : index
      %n0 = arith.muli %bx, %c32 : index
      %gC = axe.view %C[%m0, %n0] : memref<64x64xf32> -> !g
      scf.for %k = %c0 to %c64 step %c32 {
        %gA = axe.view %A[%m0, %k] : memref<64x64xf32> -> !g
        %gB = axe.view %B[%k, %n0] : memref<64x64xf32> -> !g
        axe.gemm %gA, %gB into %gC at cta : !g, !g into !g
      }
    }
    return
  }
}

// -----

// B's slice depends on both grid dims: no two CTAs share it, nothing is
// kept.
// CHECK-LABEL: func.func @no_sharing
// CHECK-NOT: axe_cpu_per_worker
// CHECK: return
!g = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (64, 1)]>, global>
!gw = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (128, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @no_sharing(%A: memref<64x64xf32>, %B: memref<64x128xf32>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    axe.kernel grid [2, 2] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c32 : index
      %n0 = arith.muli %by, %c32 : index
      %b0 = arith.addi %n0, %m0 : index
      %gC = axe.view %C[%m0, %n0] : memref<64x64xf32> -> !g
      scf.for %k = %c0 to %c64 step %c32 {
        %gA = axe.view %A[%m0, %k] : memref<64x64xf32> -> !g
        %gB = axe.view %B[%k, %b0] : memref<64x128xf32> -> !gw
        axe.gemm %gA, %gB into %gC at cta : !g, !gw into !g
      }
    }
    return
  }
}

// -----

// One CTA has nothing to share its panels with: B is packed into scratch
// as before, and the grid stays an scf.parallel.
// CHECK-LABEL: func.func @one_cta
// CHECK-NOT: axe_cpu_per_worker
// CHECK: return
!g = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (64, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @one_cta(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    axe.kernel grid [1] threads 32 {
      %gC = axe.view %C[%c0, %c0] : memref<64x64xf32> -> !g
      scf.for %k = %c0 to %c64 step %c32 {
        %gA = axe.view %A[%c0, %k] : memref<64x64xf32> -> !g
        %gB = axe.view %B[%k, %c0] : memref<64x64xf32> -> !g
        axe.gemm %gA, %gB into %gC at cta : !g, !g into !g
      }
    }
    return
  }
}

// -----

// B in shared memory holds other values in every CTA at the same address:
// its packing (two panels of 32 columns) is never reused.
// CHECK-LABEL: func.func @shared_b
// CHECK-NOT: axe_cpu_per_worker
// CHECK: scf.parallel
// CHECK-NOT: axe_cpu_per_worker
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<2048xf32>
// CHECK-NOT: axe_cpu_per_worker
// CHECK: return
!ga = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (64, 1)]>, global>
!gb = !axe.buffer<32x64xf32, #axe.layout<S[(32, 64) : (64, 1)]>, global>
!gc = !axe.buffer<32x64xf32, #axe.layout<S[(32, 64) : (64, 1)]>, global>
!s = !axe.buffer<32x64xf32, #axe.layout<S[(32, 64) : (64, 1)]>, shared>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @shared_b(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    axe.kernel grid [2] threads 32 {
      %bx = axe.axis_id bx
      %m0 = arith.muli %bx, %c32 : index
      %gC = axe.view %C[%m0, %c0] : memref<64x64xf32> -> !gc
      %sB = axe.alloc : !s
      scf.for %k = %c0 to %c64 step %c32 {
        %gA = axe.view %A[%m0, %k] : memref<64x64xf32> -> !ga
        %gB = axe.view %B[%k, %c0] : memref<64x64xf32> -> !gb
        axe.copy %gB to %sB at cta : !gb to !s
        axe.gemm %gA, %sB into %gC at cta : !ga, !s into !gc
      }
    }
    return
  }
}

// -----

// Three K slices of 1024 x 2048 f32 would need 24 MiB of panels per worker,
// over the 16 MiB a gemm may keep: B is packed into scratch in every CTA.
// CHECK-LABEL: func.func @over_budget
// CHECK-NOT: axe_cpu_per_worker
// CHECK: return
!ga = !axe.buffer<32x1024xf32, #axe.layout<S[(32, 1024) : (3072, 1)]>, global>
!gb = !axe.buffer<1024x2048xf32, #axe.layout<S[(1024, 2048) : (2048, 1)]>, global>
!gc = !axe.buffer<32x2048xf32, #axe.layout<S[(32, 2048) : (2048, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @over_budget(%A: memref<64x3072xf32>, %B: memref<3072x2048xf32>, %C: memref<64x2048xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c1024 = arith.constant 1024 : index
    %c3072 = arith.constant 3072 : index
    axe.kernel grid [2] threads 32 {
      %bx = axe.axis_id bx
      %m0 = arith.muli %bx, %c32 : index
      %gC = axe.view %C[%m0, %c0] : memref<64x2048xf32> -> !gc
      scf.for %k = %c0 to %c3072 step %c1024 {
        %gA = axe.view %A[%m0, %k] : memref<64x3072xf32> -> !ga
        %gB = axe.view %B[%k, %c0] : memref<3072x2048xf32> -> !gb
        axe.gemm %gA, %gB into %gC at cta : !ga, !gb into !gc
      }
    }
    return
  }
}

// -----

// Two slices fit (16 MiB): the same kernel over K = 2048 keeps them.
// CHECK-LABEL: func.func @within_budget
// CHECK: axe_cpu_per_worker, axe_cpu_per_worker_fastest = 0 : i64} : memref<4194304xf32>
!ga = !axe.buffer<32x1024xf32, #axe.layout<S[(32, 1024) : (2048, 1)]>, global>
!gb = !axe.buffer<1024x2048xf32, #axe.layout<S[(1024, 2048) : (2048, 1)]>, global>
!gc = !axe.buffer<32x2048xf32, #axe.layout<S[(32, 2048) : (2048, 1)]>, global>
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @within_budget(%A: memref<64x2048xf32>, %B: memref<2048x2048xf32>, %C: memref<64x2048xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c1024 = arith.constant 1024 : index
    %c2048 = arith.constant 2048 : index
    axe.kernel grid [2] threads 32 {
      %bx = axe.axis_id bx
      %m0 = arith.muli %bx, %c32 : index
      %gC = axe.view %C[%m0, %c0] : memref<64x2048xf32> -> !gc
      scf.for %k = %c0 to %c2048 step %c1024 {
        %gA = axe.view %A[%m0, %k] : memref<64x2048xf32> -> !ga
        %gB = axe.view %B[%k, %c0] : memref<2048x2048xf32> -> !gb
        axe.gemm %gA, %gB into %gC at cta : !ga, !gb into !gc
      }
    }
    return
  }
}
