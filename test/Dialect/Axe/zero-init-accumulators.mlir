// RUN: axe-opt %s --axe-zero-init-accumulators -split-input-file | FileCheck %s

// A zero fill that reaches the loop's first gemm: the first iteration is
// peeled (a loop of one iteration, which the canonicalizer inlines after
// dispatch), its gemm starts from zero and the fill goes.
// CHECK-LABEL: func.func @folded
// CHECK-NOT: axe.fill
// CHECK: scf.for %{{.*}} = %c0 to %c16{{.*}} step %c16
// CHECK-NEXT: axe.barrier at cta
// CHECK-NEXT: axe.gemm %{{.*}}, %{{.*}} into %[[ACC:.*]] at warpgroup {transpose_b, zero_init}
// CHECK: scf.for %{{.*}} = %c16{{.*}} to %c64 step %c16
// CHECK: axe.gemm %{{.*}}, %{{.*}} into %[[ACC]] at warpgroup {transpose_b} :
!s = !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
!acc = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
func.func @folded() {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  axe.kernel grid [1] threads 128 {
    %a = axe.alloc : !s
    %acc = axe.alloc : !acc
    axe.fill %acc, %zero at warpgroup : !acc
    scf.for %k = %c0 to %c64 step %c16 {
      axe.barrier at cta
      axe.gemm %a, %a into %acc at warpgroup {transpose_b} : !s, !s into !acc
    }
  }
  return
}

// -----

// Left alone: the fill is not of zeros; the accumulator is read in the loop
// before the gemm; the loop's trip count is not known.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: axe.fill
// CHECK-NOT: zero_init
!s = !axe.buffer<64x16xf16, #axe.layout<S[(64, 16) : (16, 1)]>, shared>
!acc = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
!out = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (1, 64)]>, shared>
func.func @kept(%n: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  axe.kernel grid [1] threads 128 {
    %a = axe.alloc : !s
    %o = axe.alloc : !out
    %acc1 = axe.alloc : !acc
    axe.fill %acc1, %one at warpgroup : !acc
    scf.for %k = %c0 to %c64 step %c16 {
      axe.gemm %a, %a into %acc1 at warpgroup {transpose_b} : !s, !s into !acc
    }
    %acc2 = axe.alloc : !acc
    axe.fill %acc2, %zero at warpgroup : !acc
    scf.for %k = %c0 to %c64 step %c16 {
      axe.copy %acc2 to %o at warpgroup : !acc to !out
      axe.gemm %a, %a into %acc2 at warpgroup {transpose_b} : !s, !s into !acc
    }
    %acc3 = axe.alloc : !acc
    axe.fill %acc3, %zero at warpgroup : !acc
    scf.for %k = %c0 to %n step %c16 {
      axe.gemm %a, %a into %acc3 at warpgroup {transpose_b} : !s, !s into !acc
    }
  }
  return
}
