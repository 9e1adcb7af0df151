// Warp specialization on the CPU: in a 4-warp CTA, warps 0 and 1 (the
// producers) each stage 32 rows of X into swizzled shared memory; after a
// CTA barrier, warps 2 and 3 (the consumers) each reduce 32 of those rows
// into registers allocated inside their partition (one copy per warp), add
// their warp number, and store the result. The CPU runs the partitions round
// by round between the CTA barriers (docs/CPUExecutionModel.md). main checks
// every element.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The operators' code inline in the kernel, as without outlining:
// RUN: axe-opt %s --axe-to-cpu=outline=false | mlir-runner -e main -entry-point-result=void \
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

!gX = !axe.buffer<32x32xf32, #axe.layout<S[(32, 32) : (32, 1)]>, global>
!sAll = !axe.buffer<64x32xf32, #axe.layout<SW(2, 3, 3) o S[(64, 32) : (32, 1)]>, shared>
!sPart = !axe.buffer<32x32xf32, #axe.layout<SW(2, 3, 3) o S[(32, 32) : (32, 1)]>, shared>
!sums = !axe.buffer<32x1xf32, #axe.layout<S[32 : 1@laneid]>, reg>
!gR = !axe.buffer<32x1xf32, #axe.layout<S[32 : 1]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<128x32xf32>, %R: memref<128x1xf32>) {
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    axe.kernel grid [2] threads 128 {
      %bx = axe.axis_id bx
      %base = arith.muli %bx, %c64 : index
      %s = axe.alloc : !sAll
      axe.warp_specialize {
        axe.partition warps [0, 2) {
          %w = axe.axis_id warpid
          %r = arith.muli %w, %c32 : index
          %row = arith.addi %base, %r : index
          %gx = axe.view %X[%row, 0] : memref<128x32xf32> -> !gX
          %mine = axe.slice %s[%r, 0] : !sAll -> !sPart
          axe.copy %gx to %mine at warp : !gX to !sPart
          axe.barrier at cta
        }
        axe.partition warps [2, 4) {
          axe.barrier at cta
          %w = axe.axis_id warpid
          %k = arith.subi %w, %c2 : index
          %r = arith.muli %k, %c32 : index
          %rows = axe.slice %s[%r, 0] : !sAll -> !sPart
          %sum = axe.alloc : !sums
          axe.reduce sum %rows into %sum dims [1] at warp : !sPart into !sums
          %ki = arith.index_cast %w : index to i32
          %kf = arith.sitofp %ki : i32 to f32
          %row = arith.addi %base, %r : index
          %gr = axe.view %R[%row, 0] : memref<128x1xf32> -> !gR
          axe.elementwise ins(%sum : !sums) outs(%gr : !gR) at warp {
          ^bb0(%v: f32):
            %p = arith.addf %v, %kf : f32
            axe.yield %p : f32
          }
        }
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c97 = arith.constant 97 : index
    %c128 = arith.constant 128 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %zf = arith.constant 0.0 : f32
    %minus = arith.constant -1.0 : f32
    %two = arith.constant 2.0 : f32
    %X = memref.alloc() : memref<128x32xf32>
    %R = memref.alloc() : memref<128x1xf32>
    // X[i][j] = (5 i + j) mod 97: small integers, exact sums.
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %a = arith.muli %i, %c5 : index
        %b = arith.addi %a, %j : index
        %m = arith.remui %b, %c97 : index
        %mi = arith.index_cast %m : index to i64
        %v = arith.sitofp %mi : i64 to f32
        memref.store %v, %X[%i, %j] : memref<128x32xf32>
      }
      memref.store %minus, %R[%i, %c0] : memref<128x1xf32>
    }
    call @kernel(%X, %R) : (memref<128x32xf32>, memref<128x1xf32>) -> ()
    // R[i] = sum_j X[i][j] + (2 + (i mod 64) / 32): the consumer warp that
    // reduced row i.
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%n = %zi) -> (i64) {
      %s = scf.for %j = %c0 to %c32 step %c1 iter_args(%acc = %zf) -> (f32) {
        %x = memref.load %X[%i, %j] : memref<128x32xf32>
        %a2 = arith.addf %acc, %x : f32
        scf.yield %a2 : f32
      }
      %im = arith.remui %i, %c64 : index
      %h = arith.divui %im, %c32 : index
      %hi = arith.index_cast %h : index to i64
      %hf = arith.sitofp %hi : i64 to f32
      %wf = arith.addf %hf, %two : f32
      %want = arith.addf %s, %wf : f32
      %got = memref.load %R[%i, %c0] : memref<128x1xf32>
      %ne = arith.cmpf une, %got, %want : f32
      %inc = arith.select %ne, %one, %zi : i64
      %n2 = arith.addi %n, %inc : i64
      scf.yield %n2 : i64
    }
    // CHECK: mismatches: 0
    vector.print str "mismatches: "
    vector.print %bad : i64
    // R[100] = sum_j (500 + j) mod 97 + 3 = 32 * 15 + 496 + 3
    %c100 = arith.constant 100 : index
    %r = memref.load %R[%c100, %c0] : memref<128x1xf32>
    // CHECK-NEXT: 979
    vector.print %r : f32
    memref.dealloc %X : memref<128x32xf32>
    memref.dealloc %R : memref<128x1xf32>
    return
  }
}
