// RUN: axe-opt %s --convert-axe-to-cpu -split-input-file -verify-diagnostics

// What convert-axe-to-cpu refuses: IR that axe-dispatch{target=cpu} has not
// finished with, and kernels whose structure a CTA running as one CPU thread
// cannot reproduce. (Outside a function: alloc-outside-function.mlir; warp
// specializations whose partitions cannot run round by round:
// dispatch-cpu-warp-specialize.mlir.)

!g = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, global>
!s = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>

func.func @not_dispatched(%A: memref<4x4xf32>) {
  axe.kernel grid [1] threads 32 {
    %s = axe.alloc : !s
    %a = axe.view %A[0, 0] : memref<4x4xf32> -> !g
    // expected-error @+1 {{collective operator left for convert-axe-to-cpu; run axe-dispatch{target=cpu} first}}
    axe.copy %a to %s at cta : !g to !s
  }
  return
}


// -----

!s = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>
!flat = memref<?xf32, strided<[1], offset: ?>>

// A thread coordinate outside an operator: the CTA's one CPU thread has none.
func.func @lane_outside_operator(%v: f32) {
  axe.kernel grid [1] threads 32 {
    %s = axe.alloc : !s
    %m = builtin.unrealized_conversion_cast %s : !s to !flat
    // expected-error @+1 {{axis 'laneid' has no value on the CPU target: a CTA runs as one CPU thread, so only grid coordinates exist outside operators}}
    %l = axe.axis_id laneid
    memref.store %v, %m[%l] : !flat
  }
  return
}

// -----

!s = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>

// A buffer used by something other than the schedules' casts: its memory
// cannot be given to that use.
func.func private @sink(!s)
func.func @buffer_escapes() {
  axe.kernel grid [1] threads 32 {
    // expected-error @+1 {{buffer still used after dispatch: "func.call"}}
    %s = axe.alloc : !s
    func.call @sink(%s) : (!s) -> ()
  }
  return
}

// -----

func.func @partitions_disagree() {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{the partitions reach different numbers of CTA barriers and pipeline waits (1 and 2 synchronization points), so they cannot run round by round}}
    axe.warp_specialize {
      axe.partition warps [0, 1) {
        axe.barrier at cta
      }
      axe.partition warps [1, 2) {
        axe.barrier at cta
        axe.barrier at cta
      }
    }
  }
  return
}

// -----

func.func @loop_against_barrier(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  axe.kernel grid [1] threads 64 {
    axe.warp_specialize {
      axe.partition warps [0, 1) {
        axe.barrier at cta
      }
      axe.partition warps [1, 2) {
        // expected-error @+1 {{the partitions reach this loop where another reaches a barrier with CTA barriers or pipeline waits; they cannot run round by round}}
        scf.for %k = %c0 to %n step %c1 {
          axe.barrier at cta
        }
      }
    }
  }
  return
}

// -----

// fuzz/regressions/opt/storage-reach-spans-int64 (axe-opt-fuzz): the replica
// reaches 2^63 - 2 cells below 0 on m, and the storage extent hi - lo + 1
// overflowed int64 (UBSan: signed integer overflow) instead of being refused.
// (The fuzz input placed it on tx and warpid, which the kernel verifier now
// refuses first; laneid and warpid keep the case.)
func.func @storage_reach_spans_int64() {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{storage for layout SW(3, 3, 4) o S[() : ()] + R[9223372036854775806 : -1] + 2@laneid + 1@warpid spans more cells than int64 counts}}
    %x = axe.alloc : !axe.buffer<f64, #axe.layout<SW(3, 3, 4) o S[() : ()] + R[9223372036854775806 : -1] + 2@laneid + 1@warpid>, reg>
  }
  return
}

// -----

// Pipelines nothing fills or nothing gives back: their waits (acquires)
// would never return, on a GPU as here.
func.func @pipeline_without_commit(%i: index) {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{cpu: no axe.pipeline_commit fills this pipeline, so a wait on it would never return}}
    %p = axe.pipeline : !axe.pipeline<2>
    axe.pipeline_wait %p[%i] : !axe.pipeline<2>
  }
  return
}

// -----

func.func @pipeline_without_release(%i: index) {
  axe.kernel grid [1] threads 64 {
    // expected-error @+1 {{cpu: no axe.pipeline_release gives this pipeline's stages back, so an acquire past its first round would never return}}
    %p = axe.pipeline : !axe.pipeline<2>
    axe.pipeline_acquire %p[%i] : !axe.pipeline<2>
    axe.pipeline_commit %p[%i] : !axe.pipeline<2>
  }
  return
}

// -----

func.func @pipeline_through_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  axe.kernel grid [1] threads 64 {
    %p = axe.pipeline : !axe.pipeline<2>
    // expected-error @+1 {{cpu: scf.for takes a pipeline; only the axe.pipeline_* ops may}}
    %q = scf.for %i = %c0 to %n step %c1 iter_args(%r = %p) -> !axe.pipeline<2> {
      scf.yield %r : !axe.pipeline<2>
    }
    axe.pipeline_commit %p[%c0] : !axe.pipeline<2>
    axe.pipeline_wait %q[%c0] : !axe.pipeline<2>
  }
  return
}

// -----

// Flags order CTAs that run concurrently on a GPU; the CPU target has no
// lowering for them.
func.func @flags(%done: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  axe.kernel grid [4] threads 32 {
    // expected-error @+1 {{'axe.flag_add' op has no CPU lowering: flags between CTAs run on NVIDIA targets (axe-to-nvvm) only}}
    %t = axe.flag_add %done[%c0], %one at cta : memref<4xi32>
    axe.flag_wait %done[%c0], %one at cta : memref<4xi32>
  }
  return
}
