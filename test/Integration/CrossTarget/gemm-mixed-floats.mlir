// Gemms whose inputs and accumulator are floats of one width but different
// formats (bf16 into f16, f16 into bf16), forced onto the naive schedule,
// which converts elements to the accumulator's type: through f32, since
// neither format extends or truncates to the other. Every element printed.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The same checks on NVIDIA targets: the kernel lowered with axe-to-nvvm
// and run lane by lane in axe-gpu-run (docs/GPURun.md).
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

!ga = !axe.buffer<4x6xbf16, #axe.layout<S[(4, 6) : (6, 1)]>, global>
!gb = !axe.buffer<6x5xbf16, #axe.layout<S[(6, 5) : (5, 1)]>, global>
!gc = !axe.buffer<4x5xf16, #axe.layout<S[(4, 5) : (5, 1)]>, global>
!ha = !axe.buffer<4x6xf16, #axe.layout<S[(4, 6) : (6, 1)]>, global>
!hb = !axe.buffer<6x5xf16, #axe.layout<S[(6, 5) : (5, 1)]>, global>
!hc = !axe.buffer<4x5xbf16, #axe.layout<S[(4, 5) : (5, 1)]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  // C += A x B, bf16 x bf16 into f16.
  func.func @bf16_into_f16(%A: memref<4x6xbf16>, %B: memref<6x5xbf16>, %C: memref<4x5xf16>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<4x6xbf16> -> !ga
      %b = axe.view %B[0, 0] : memref<6x5xbf16> -> !gb
      %c = axe.view %C[0, 0] : memref<4x5xf16> -> !gc
      axe.gemm %a, %b into %c at cta {schedule = {cpu = "cpu.gemm.naive"}} : !ga, !gb into !gc
    }
    return
  }

  // C += A x B, f16 x f16 into bf16.
  func.func @f16_into_bf16(%A: memref<4x6xf16>, %B: memref<6x5xf16>, %C: memref<4x5xbf16>) {
    axe.kernel grid [1] threads 32 {
      %a = axe.view %A[0, 0] : memref<4x6xf16> -> !ha
      %b = axe.view %B[0, 0] : memref<6x5xf16> -> !hb
      %c = axe.view %C[0, 0] : memref<4x5xbf16> -> !hc
      axe.gemm %a, %b into %c at cta {schedule = {cpu = "cpu.gemm.naive"}} : !ha, !hb into !hc
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %A = memref.alloc() : memref<4x6xbf16>
    %B = memref.alloc() : memref<6x5xbf16>
    %C = memref.alloc() : memref<4x5xf16>
    %HA = memref.alloc() : memref<4x6xf16>
    %HB = memref.alloc() : memref<6x5xf16>
    %HC = memref.alloc() : memref<4x5xbf16>
    // A[i][k] = i + k, B[k][j] = k - 2 j, C[i][j] = 1.
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c6 step %c1 {
        %s = arith.addi %i, %k : index
        %si = arith.index_cast %s : index to i64
        %f = arith.sitofp %si : i64 to f32
        %b = arith.truncf %f : f32 to bf16
        %h = arith.truncf %f : f32 to f16
        memref.store %b, %A[%i, %k] : memref<4x6xbf16>
        memref.store %h, %HA[%i, %k] : memref<4x6xf16>
      }
    }
    scf.for %k = %c0 to %c6 step %c1 {
      scf.for %j = %c0 to %c5 step %c1 {
        %j2 = arith.muli %j, %c2 : index
        %ki = arith.index_cast %k : index to i64
        %ji = arith.index_cast %j2 : index to i64
        %d = arith.subi %ki, %ji : i64
        %f = arith.sitofp %d : i64 to f32
        %b = arith.truncf %f : f32 to bf16
        %h = arith.truncf %f : f32 to f16
        memref.store %b, %B[%k, %j] : memref<6x5xbf16>
        memref.store %h, %HB[%k, %j] : memref<6x5xf16>
      }
    }
    %one = arith.constant 1.0 : f32
    %oneh = arith.truncf %one : f32 to f16
    %oneb = arith.truncf %one : f32 to bf16
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c5 step %c1 {
        memref.store %oneh, %C[%i, %j] : memref<4x5xf16>
        memref.store %oneb, %HC[%i, %j] : memref<4x5xbf16>
      }
    }
    call @bf16_into_f16(%A, %B, %C) : (memref<4x6xbf16>, memref<6x5xbf16>, memref<4x5xf16>) -> ()
    call @f16_into_bf16(%HA, %HB, %HC) : (memref<4x6xf16>, memref<6x5xf16>, memref<4x5xbf16>) -> ()
    // C[i][j] = 1 + sum_k (i + k)(k - 2 j) = 56 + 15 i - 30 j - 12 i j.
    // CHECK: 56, 26, -4, -34, -64,
    // CHECK-NEXT: 71, 29, -13, -55, -97,
    // CHECK-NEXT: 86, 32, -22, -76, -130,
    // CHECK-NEXT: 101, 35, -31, -97, -163,
    // CHECK-NEXT: 56, 26, -4, -34, -64,
    // CHECK-NEXT: 71, 29, -13, -55, -97,
    // CHECK-NEXT: 86, 32, -22, -76, -130,
    // CHECK-NEXT: 101, 35, -31, -97, -163,
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c5 step %c1 {
        %v = memref.load %C[%i, %j] : memref<4x5xf16>
        %f = arith.extf %v : f16 to f32
        vector.print %f : f32 punctuation <comma>
      }
      vector.print punctuation <newline>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c5 step %c1 {
        %v = memref.load %HC[%i, %j] : memref<4x5xbf16>
        %f = arith.extf %v : bf16 to f32
        vector.print %f : f32 punctuation <comma>
      }
      vector.print punctuation <newline>
    }
    return
  }
}
