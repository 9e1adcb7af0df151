// An axe.pipeline of 2 stages handing 8 rows per CTA from a producer warp to
// two consumer warps: the producer copies row i of X into slot i mod 2 and
// commits stage i; each consumer waits for it, adds its warp number to its
// 16 columns, stores them to R and releases the stage. 8 stages through 2
// slots make 4 rounds, so the parities of the mbarriers flip. The CPU runs
// the partitions round by round, the acquires and waits being the rounds'
// boundaries, and checks that each stage is ready when reached
// (docs/CPUExecutionModel.md); main checks every element.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// On NVIDIA targets (SIMT copies into the slots; a commit is one arrival per
// warp after a warp barrier), races checked:
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_80 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// Without the producer's acquire, the producer runs ahead: its commits
// complete phases of the full barriers the consumers have not waited for, so
// a consumer waits for a parity that has gone by (on a GPU as here):
// RUN: sed '/axe.pipeline_acquire/d' %s | axe-opt --axe-to-nvvm=chip=sm_80 \
// RUN:   | not axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=NOACQUIRE
// NOACQUIRE: error: axe-gpu-run: kernel @kernel_kernel, block ({{[0-9]}}, 0, 0): deadlock: 0 warp(s) wait at a barrier, 2 on an mbarrier phase that cannot complete, 1 exited
// Consumers that wait for stage i + 1 where they read stage i: the CPU's
// rounds reach the wait before the stage is committed, and the run stops
// there instead of reading a slot that may not hold the stage yet (the
// message is cf.assert's, on stdout, unbuffered here so that it precedes
// the abort).
// RUN: sed -e 's/^ *axe.pipeline_wait %%p\[%i\] : !pipe$/            %next = arith.addi %i, %c1 : index\n            axe.pipeline_wait %%p[%next] : !pipe/' %s \
// RUN:   | axe-opt --axe-to-cpu | not --crash stdbuf -o0 mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: axe.pipeline_wait at loc({{.*}}): the stage is not committed where the CPU's round-by-round order of the partitions reaches this wait

!gRow = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, global>
!sAll = !axe.buffer<2x32xf32, #axe.layout<S[(2, 32) : (32, 1)]>, shared>
!sSlot = !axe.buffer<1x32xf32, #axe.layout<S[(1, 32) : (32, 1)]>, shared>
!sHalf = !axe.buffer<1x16xf32, #axe.layout<S[(1, 16) : (32, 1)]>, shared>
!gHalf = !axe.buffer<1x16xf32, #axe.layout<S[(1, 16) : (32, 1)]>, global>
!pipe = !axe.pipeline<2>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%X: memref<16x32xf32>, %R: memref<16x32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    axe.kernel grid [2] threads 96 {
      %bx = axe.axis_id bx
      %base = arith.muli %bx, %c8 : index
      %s = axe.alloc : !sAll
      %p = axe.pipeline : !pipe
      axe.warp_specialize {
        axe.partition warps [0, 1) {
          scf.for %i = %c0 to %c8 step %c1 {
            axe.pipeline_acquire %p[%i] : !pipe
            %slot = arith.remui %i, %c2 : index
            %row = arith.addi %base, %i : index
            %gx = axe.view %X[%row, 0] : memref<16x32xf32> -> !gRow
            %d = axe.slice %s[%slot, 0] : !sAll -> !sSlot
            axe.copy %gx to %d at warp : !gRow to !sSlot
            axe.pipeline_commit %p[%i] : !pipe
          }
        }
        axe.partition warps [1, 3) {
          %w = axe.axis_id warpid
          %half = arith.subi %w, %c1 : index
          %col = arith.muli %half, %c16 : index
          %wi = arith.index_cast %w : index to i32
          %wf = arith.sitofp %wi : i32 to f32
          scf.for %i = %c0 to %c8 step %c1 {
            axe.pipeline_wait %p[%i] : !pipe
            %slot = arith.remui %i, %c2 : index
            %row = arith.addi %base, %i : index
            %src = axe.slice %s[%slot, %col] : !sAll -> !sHalf
            %gr = axe.view %R[%row, %col] : memref<16x32xf32> -> !gHalf
            axe.elementwise ins(%src : !sHalf) outs(%gr : !gHalf) at warp {
            ^bb0(%v: f32):
              %q = arith.addf %v, %wf : f32
              axe.yield %q : f32
            }
            axe.pipeline_release %p[%i] : !pipe
          }
        }
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c101 = arith.constant 101 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %onef = arith.constant 1.0 : f32
    %minus = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<16x32xf32>
    %R = memref.alloc() : memref<16x32xf32>
    // X[i][j] = (7 i + j) mod 101.
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %a = arith.muli %i, %c7 : index
        %b = arith.addi %a, %j : index
        %m = arith.remui %b, %c101 : index
        %mi = arith.index_cast %m : index to i64
        %v = arith.sitofp %mi : i64 to f32
        memref.store %v, %X[%i, %j] : memref<16x32xf32>
        memref.store %minus, %R[%i, %j] : memref<16x32xf32>
      }
    }
    call @kernel(%X, %R) : (memref<16x32xf32>, memref<16x32xf32>) -> ()
    // R[i][j] = X[i][j] + 1 + j / 16 (the consumer warp of column j).
    %bad = scf.for %i = %c0 to %c16 step %c1 iter_args(%n = %zi) -> (i64) {
      %row = scf.for %j = %c0 to %c32 step %c1 iter_args(%nj = %n) -> (i64) {
        %x = memref.load %X[%i, %j] : memref<16x32xf32>
        %h = arith.divui %j, %c16 : index
        %hi = arith.index_cast %h : index to i64
        %hf = arith.sitofp %hi : i64 to f32
        %w = arith.addf %hf, %onef : f32
        %want = arith.addf %x, %w : f32
        %got = memref.load %R[%i, %j] : memref<16x32xf32>
        %ne = arith.cmpf une, %got, %want : f32
        %inc = arith.select %ne, %one, %zi : i64
        %n2 = arith.addi %nj, %inc : i64
        scf.yield %n2 : i64
      }
      scf.yield %row : i64
    }
    // CHECK: mismatches: 0
    vector.print str "mismatches: "
    vector.print %bad : i64
    // R[13][20] = (91 + 20) mod 101 + 2 = 12
    %c13 = arith.constant 13 : index
    %c20 = arith.constant 20 : index
    %r = memref.load %R[%c13, %c20] : memref<16x32xf32>
    // CHECK-NEXT: 12
    vector.print %r : f32
    memref.dealloc %X : memref<16x32xf32>
    memref.dealloc %R : memref<16x32xf32>
    return
  }
}
