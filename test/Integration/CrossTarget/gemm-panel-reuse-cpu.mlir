// The packed gemm keeps B's packed panels from one CTA to the next on a
// worker (reuse-packed-panels, on by default): CTAs of one column of the
// grid (x, which B does not depend on, runs fastest) pack each K slice of
// B once. A grid of 4 x 3 CTAs of 16 x 32 over K = 96 in three slices, f32
// and f16 (B widened as it is packed, the cached panel holding f32). Under
// OpenMP on two threads the two workers split the middle column, and each
// packs it. The kernel runs
// twice with B changed in between, at the same address: the second launch
// must not reuse the first's panels. Every element of C is compared with a
// scalar product computed here (small integers, exact in f16 and f32).
// RUN: axe-opt %s --axe-dispatch=target=cpu --convert-axe-to-cpu | FileCheck %s --check-prefix=IR
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu='openmp=true' -o %t.omp.mlir
// RUN: env OMP_NUM_THREADS=2 mlir-runner %t.omp.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libomp%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu='reuse-packed-panels=false' | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// Each kernel keeps three slots of 32 x 32 f32 panels and their tags.
// IR-LABEL: func.func @gemm_f32
// IR: memref.alloc() {alignment = 64 : i64, axe_cpu_per_worker, axe_cpu_per_worker_fill = -1 : i64} : memref<3xindex>
// IR: memref.alloc() {alignment = 64 : i64, axe_cpu_per_worker, axe_cpu_per_worker_fastest = 0 : i64} : memref<3072xf32>
// IR-LABEL: func.func @gemm_f16
// IR: axe_cpu_per_worker_fill = -1 : i64} : memref<3xindex>

// CHECK: f32 launch 1 mismatches: 0
// CHECK: f32 launch 2 mismatches: 0
// CHECK: f16 launch 1 mismatches: 0
// CHECK: f16 launch 2 mismatches: 0

!ga32 = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (96, 1)]>, global>
!gb32 = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (96, 1)]>, global>
!ga16 = !axe.buffer<16x32xf16, #axe.layout<S[(16, 32) : (96, 1)]>, global>
!gb16 = !axe.buffer<32x32xf16, #axe.layout<S[(32, 32) : (96, 1)]>, global>
!gc = !axe.buffer<16x32xf32, #axe.layout<S[(16, 32) : (96, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @gemm_f32(%A: memref<64x96xf32>, %B: memref<96x96xf32>, %C: memref<64x96xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c96 = arith.constant 96 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [4, 3] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c16 : index
      %n0 = arith.muli %by, %c32 : index
      %c = axe.view %C[%m0, %n0] : memref<64x96xf32> -> !gc
      axe.fill %c, %zero at cta : !gc
      scf.for %k = %c0 to %c96 step %c32 {
        %a = axe.view %A[%m0, %k] : memref<64x96xf32> -> !ga32
        %b = axe.view %B[%k, %n0] : memref<96x96xf32> -> !gb32
        axe.gemm %a, %b into %c at cta : !ga32, !gb32 into !gc
      }
    }
    return
  }

  func.func @gemm_f16(%A: memref<64x96xf16>, %B: memref<96x96xf16>, %C: memref<64x96xf32>) {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c96 = arith.constant 96 : index
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [4, 3] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %m0 = arith.muli %bx, %c16 : index
      %n0 = arith.muli %by, %c32 : index
      %c = axe.view %C[%m0, %n0] : memref<64x96xf32> -> !gc
      axe.fill %c, %zero at cta : !gc
      scf.for %k = %c0 to %c96 step %c32 {
        %a = axe.view %A[%m0, %k] : memref<64x96xf16> -> !ga16
        %b = axe.view %B[%k, %n0] : memref<96x96xf16> -> !gb16
        axe.gemm %a, %b into %c at cta : !ga16, !gb16 into !gc
      }
    }
    return
  }

  // (i * a + j * b + seed) mod m - m / 2, a small integer.
  func.func @value(%i: index, %j: index, %a: index, %b: index, %seed: index, %m: index) -> f32 {
    %ia = arith.muli %i, %a : index
    %jb = arith.muli %j, %b : index
    %s0 = arith.addi %ia, %jb : index
    %s = arith.addi %s0, %seed : index
    %r = arith.remui %s, %m : index
    %c2 = arith.constant 2 : index
    %h = arith.divui %m, %c2 : index
    %ri = arith.index_cast %r : index to i64
    %hi = arith.index_cast %h : index to i64
    %d = arith.subi %ri, %hi : i64
    %f = arith.sitofp %d : i64 to f32
    return %f : f32
  }

  // A[i][k] = value(i, k), B[k][j] = value(k, j) with `seed`, in f32 and f16.
  func.func @fill(%A: memref<64x96xf32>, %B: memref<96x96xf32>, %A16: memref<64x96xf16>, %B16: memref<96x96xf16>, %seed: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %c96 = arith.constant 96 : index
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c96 step %c1 {
        %v = func.call @value(%i, %k, %c7, %c3, %c0, %c5) : (index, index, index, index, index, index) -> f32
        memref.store %v, %A[%i, %k] : memref<64x96xf32>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %A16[%i, %k] : memref<64x96xf16>
      }
    }
    scf.for %k = %c0 to %c96 step %c1 {
      scf.for %j = %c0 to %c96 step %c1 {
        %v = func.call @value(%k, %j, %c5, %c1, %seed, %c7) : (index, index, index, index, index, index) -> f32
        memref.store %v, %B[%k, %j] : memref<96x96xf32>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %B16[%k, %j] : memref<96x96xf16>
      }
    }
    return
  }

  // The elements of C that differ from the scalar product of A and B.
  func.func @mismatches(%A: memref<64x96xf32>, %B: memref<96x96xf32>, %C: memref<64x96xf32>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c96 = arith.constant 96 : index
    %zero = arith.constant 0.0 : f32
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%n = %c0) -> (index) {
      %row = scf.for %j = %c0 to %c96 step %c1 iter_args(%m = %n) -> (index) {
        %want = scf.for %k = %c0 to %c96 step %c1 iter_args(%acc = %zero) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<64x96xf32>
          %b = memref.load %B[%k, %j] : memref<96x96xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %got = memref.load %C[%i, %j] : memref<64x96xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %m1 = arith.addi %m, %c1 : index
        %next = arith.select %ne, %m1, %m : index
        scf.yield %next : index
      }
      scf.yield %row : index
    }
    %r = arith.index_cast %bad : index to i64
    return %r : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %A = memref.alloc() : memref<64x96xf32>
    %B = memref.alloc() : memref<96x96xf32>
    %A16 = memref.alloc() : memref<64x96xf16>
    %B16 = memref.alloc() : memref<96x96xf16>
    %C = memref.alloc() : memref<64x96xf32>
    %C16 = memref.alloc() : memref<64x96xf32>
    call @fill(%A, %B, %A16, %B16, %c0) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf16>, memref<96x96xf16>, index) -> ()
    call @gemm_f32(%A, %B, %C) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf32>) -> ()
    call @gemm_f16(%A16, %B16, %C16) : (memref<64x96xf16>, memref<96x96xf16>, memref<64x96xf32>) -> ()
    %f1 = call @mismatches(%A, %B, %C) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf32>) -> i64
    %h1 = call @mismatches(%A, %B, %C16) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf32>) -> i64
    // New values of B at the same address for the second launch.
    call @fill(%A, %B, %A16, %B16, %c4) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf16>, memref<96x96xf16>, index) -> ()
    call @gemm_f32(%A, %B, %C) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf32>) -> ()
    call @gemm_f16(%A16, %B16, %C16) : (memref<64x96xf16>, memref<96x96xf16>, memref<64x96xf32>) -> ()
    %f2 = call @mismatches(%A, %B, %C) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf32>) -> i64
    %h2 = call @mismatches(%A, %B, %C16) : (memref<64x96xf32>, memref<96x96xf32>, memref<64x96xf32>) -> i64
    vector.print str "f32 launch 1 mismatches: "
    vector.print %f1 : i64
    vector.print str "f32 launch 2 mismatches: "
    vector.print %f2 : i64
    vector.print str "f16 launch 1 mismatches: "
    vector.print %h1 : i64
    vector.print str "f16 launch 2 mismatches: "
    vector.print %h2 : i64
    return
  }
}
