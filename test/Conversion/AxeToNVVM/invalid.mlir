// RUN: axe-opt %s --axe-to-nvvm -split-input-file -verify-diagnostics

// Refusals of the nvvm schedules and of convert-axe-to-nvvm: each names what
// does not fit.

!x = !axe.buffer<64xf32, #axe.layout<S[(32, 2) : (1@laneid, 1)]>, reg>
!y = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1, 1@laneid)]>, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @exchange() {
    axe.kernel grid [1] threads 32 {
      %x = axe.alloc : !x
      %y = axe.alloc : !y
      // expected-error @below {{forced schedule 'nvvm.copy.simt' declined axe.copy on target sm_80: thread 1 handles element (1) but does not hold it in the source; the staged schedule exchanges registers through shared memory}}
      axe.copy %x to %y at warp {schedule = "nvvm.copy.simt"} : !x to !y
    }
    return
  }
}

// -----

!s = !axe.buffer<4x32xf32, #axe.layout<S[(4, 32) : (1@warpid, 1@laneid)]>, reg>
!t = !axe.buffer<32xf32, #axe.layout<S[32 : 1@laneid] + R[4 : 1@warpid]>, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @across_warps() {
    axe.kernel grid [1] threads 128 {
      %s = axe.alloc : !s
      %t = axe.alloc : !t
      // expected-error @below {{forced schedule 'nvvm.reduce.shuffle' declined axe.reduce on target sm_80: the reduced dim 0 is spread over 'warpid'; only lanes of a warp exchange partials (shuffles), a reduction across warps needs shared memory}}
      axe.reduce sum %s into %t dims [0] at cta {schedule = "nvvm.reduce.shuffle"} : !s into !t
    }
    return
  }
}

// -----

!a = !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (16, 1)]>, shared>
!b = !axe.buffer<16x8xf16, #axe.layout<S[(16, 8) : (8, 1)]>, shared>
!c = !axe.buffer<16x8xf32, #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 2, 1@laneid, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @not_the_fragment() {
    axe.kernel grid [1] threads 32 {
      %a = axe.alloc : !a
      %b = axe.alloc : !b
      %c = axe.alloc : !c
      // expected-error @below {{forced schedule 'mma.sync' declined axe.gemm on target sm_80: the accumulator's 16x8 tile at (0, 0) of a warp is not mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32's C fragment: the atom puts its element (8, 0) on lane 0, the layout on lane 16}}
      axe.gemm %a, %b into %c at warp {schedule = "mma.sync"} : !a, !b into !c
    }
    return
  }
}

// -----

// Tensor memory is moved by warpgroups (tcgen05.st.32x32b, each warp on its
// quarter of the lanes); the SIMT fill does not address it.
!tm = !axe.buffer<128x32xf32, #axe.layout<S[(128, 32) : (1@TLane, 1@TCol)]>, tmem>
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tensor_memory() {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 128 {
      %t = axe.alloc : !tm
      // expected-error @below {{no schedule for axe.fill on target sm_100a}}
      // expected-note @below {{schedule 'tcgen05.st' (priority 30) declined: tcgen05.ld/st move a warpgroup's 128 lanes; the scope is cta}}
      // expected-note @below {{tensor memory is read and written by the tcgen05 schedules only (tcgen05, tcgen05.ld, tcgen05.st)}}
      axe.fill %t, %zero at cta : !tm
    }
    return
  }
}

// -----

// sm_80 has no warpgroups: the verifier says so before any schedule runs.
!w = !axe.buffer<128xf32, #axe.layout<S[128 : 1]>, global>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @warpgroup(%X: memref<128xf32>) {
    %zero = arith.constant 0.0 : f32
    axe.kernel grid [1] threads 128 {
      %g = axe.view %X[0] : memref<128xf32> -> !w
      // expected-error @below {{runs at warpgroup scope, but sm_80 has no warpgroups (sm_90 and later do)}}
      axe.fill %g, %zero at warpgroup : !w
    }
    return
  }
}
// -----

// TMA reads a box of the memref a view takes, not a slice of a view.
!v = !axe.buffer<64x64xf16, #axe.layout<S[(64, 64) : (64, 1)]>, global>
!g = !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, global>
!s = !axe.buffer<32x64xf16, #axe.layout<S[(32, 64) : (64, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_slice_source(%A: memref<64x64xf16>, %r: index) {
    axe.kernel grid [1] threads 128 {
      %c0 = arith.constant 0 : index
      %s = axe.alloc : !s
      %v = axe.view %A[%c0, %c0] : memref<64x64xf16> -> !v
      %g = axe.slice %v[%r, 0] : !v -> !g
      // expected-error @below {{forced schedule 'tma' declined axe.copy on target sm_90: TMA reads a box of a memref: the source must be an axe.view itself, not a slice of one}}
      axe.copy %g to %s at warpgroup {schedule = "tma"} : !g to !s
    }
    return
  }
}

// -----

// A 64-byte box row under the 128-byte swizzle is not what TMA writes.
!g = !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (64, 1)]>, global>
!s = !axe.buffer<64x32xf16, #axe.layout<SW(3, 3, 3) o S[(64, 32) : (64, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_half_line(%A: memref<64x64xf16>) {
    axe.kernel grid [1] threads 128 {
      %c0 = arith.constant 0 : index
      %s = axe.alloc : !s
      %g = axe.view %A[%c0, %c0] : memref<64x64xf16> -> !g
      // expected-error @below {{forced schedule 'tma' declined axe.copy on target sm_90: TMA writes its box row-major}}
      axe.copy %g to %s at warpgroup {schedule = "tma"} : !g to !s
    }
    return
  }
}

// -----

!g = !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, global>
!s = !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @tma_on_sm80(%A: memref<8x32xf32>) {
    axe.kernel grid [1] threads 32 {
      %c0 = arith.constant 0 : index
      %s = axe.alloc : !s
      %g = axe.view %A[%c0, %c0] : memref<8x32xf32> -> !g
      // expected-error @below {{no schedule named 'tma' for axe.copy on target sm_80}}
      axe.copy %g to %s at warp {schedule = "tma"} : !g to !s
    }
    return
  }
}

// -----

// The token of a TMA copy must be waited on directly.
!g = !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, global>
!s = !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_token_escapes(%A: memref<8x32xf32>) {
    axe.kernel grid [1] threads 32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %s = axe.alloc : !s
      %g = axe.view %A[%c0, %c0] : memref<8x32xf32> -> !g
      // expected-error @below {{forced schedule 'tma' declined axe.copy_async on target sm_90: the copy's token goes to scf.for; a TMA copy's token must be waited on by axe.wait directly or be the only token use, an axe.pipeline_commit}}
      %t = axe.copy_async %g to %s at warp {schedule = "tma"} : !g to !s
      %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %t) -> (!axe.token) {
        scf.yield %x : !axe.token
      }
      axe.wait %r at warp
    }
    return
  }
}

// -----

// A TMA copy committed to a pipeline stage completes on the stage's barrier,
// so the stage index must be known where the copy is issued.
!g = !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, global>
!s = !axe.buffer<8x32xf32, #axe.layout<S[(8, 32) : (32, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_commit_index_after_copy(%A: memref<8x32xf32>, %i: index) {
    axe.kernel grid [1] threads 32 {
      %c0 = arith.constant 0 : index
      %s = axe.alloc : !s
      %p = axe.pipeline : !axe.pipeline<2>
      %g = axe.view %A[%c0, %c0] : memref<8x32xf32> -> !g
      // expected-error @below {{forced schedule 'tma' declined axe.copy_async on target sm_90: the pipeline stage the copy is committed to is computed after the copy; TMA completes on the stage's barrier, so the index must be known where the copy is issued}}
      %t = axe.copy_async %g to %s at warp {schedule = "tma"} : !g to !s
      %j = arith.muli %i, %i : index
      axe.pipeline_commit %p[%j], %t : !axe.pipeline<2>
      axe.pipeline_wait %p[%j] : !axe.pipeline<2>
    }
    return
  }
}

// -----

// A pipeline that nothing commits to: every wait on it would hang.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pipeline_without_commit(%i: index) {
    axe.kernel grid [1] threads 64 {
      // expected-error @below {{nvvm: no axe.pipeline_commit fills this pipeline, so a wait on it would never return}}
      %p = axe.pipeline : !axe.pipeline<2>
      axe.warp_specialize {
        axe.partition warps [1, 2) {
          axe.pipeline_wait %p[%i] : !axe.pipeline<2>
          axe.pipeline_release %p[%i] : !axe.pipeline<2>
        }
      }
    }
    return
  }
}

// -----

// A producer that acquires stages nothing releases.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pipeline_without_release(%i: index) {
    axe.kernel grid [1] threads 64 {
      // expected-error @below {{nvvm: no axe.pipeline_release gives this pipeline's stages back, so an acquire past its first round would never return}}
      %p = axe.pipeline : !axe.pipeline<2>
      axe.warp_specialize {
        axe.partition warps [0, 1) {
          axe.pipeline_acquire %p[%i] : !axe.pipeline<2>
          axe.pipeline_commit %p[%i] : !axe.pipeline<2>
        }
        axe.partition warps [1, 2) {
          axe.pipeline_wait %p[%i] : !axe.pipeline<2>
        }
      }
    }
    return
  }
}

// -----

// The stage ops find the pipeline's barriers from axe.pipeline itself.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @pipeline_through_loop(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    axe.kernel grid [1] threads 64 {
      %p = axe.pipeline : !axe.pipeline<2>
      // expected-error @below {{nvvm: a pipeline's stage ops must take it from axe.pipeline itself, not through scf.for}}
      %q = scf.for %i = %c0 to %n step %c1 iter_args(%r = %p) -> !axe.pipeline<2> {
        scf.yield %r : !axe.pipeline<2>
      }
      axe.pipeline_commit %p[%c0] : !axe.pipeline<2>
      axe.pipeline_wait %q[%c0] : !axe.pipeline<2>
    }
    return
  }
}

// -----

// An MN-major (K x N) f32 B: wgmma transposes 16-bit operands only.
!a = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(4, 2, 8, 8, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_f32_n_major_b() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !a
      %c = axe.alloc : !c
      // expected-error @below {{forced schedule 'wgmma' declined axe.gemm on target sm_90: wgmma reads 32-bit A and B K-major only (A M x K, B N x K with transpose_b): the instruction transposes 16-bit operands only}}
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma"} : !a, !a into !c
    }
    return
  }
}

// -----

// 8-bit floats step K by 32: K = 48 is not whole steps.
!a = !axe.buffer<64x48xf8E4M3FN, #axe.layout<S[(64, 48) : (48, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(4, 2, 8, 8, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_fp8_k() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !a
      %c = axe.alloc : !c
      // expected-error @below {{forced schedule 'wgmma' declined axe.gemm on target sm_90: K = 48; wgmma of f8E4M3FN steps K by 32, up to 2048 here}}
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma", transpose_b} : !a, !a into !c
    }
    return
  }
}

// -----

// An MN-major (K x N) fp8 B: wgmma has no such form.
!a = !axe.buffer<64x128xf8E4M3FN, #axe.layout<SW(4, 3, 3) o S[(64, 128) : (128, 1)]>, shared>
!b = !axe.buffer<128x64xf8E4M3FN, #axe.layout<S[(128, 64) : (64, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(4, 2, 8, 8, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_fp8_mn_major_b() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !b
      %c = axe.alloc : !c
      // expected-error @below {{forced schedule 'wgmma' declined axe.gemm on target sm_90: wgmma reads 8-bit A and B K-major only (A M x K, B N x K with transpose_b): the instruction transposes 16-bit operands only}}
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma"} : !a, !b into !c
    }
    return
  }
}

// -----

// e4m3 A against e5m2 B: PTX has the instruction, the schedule takes one
// type.
!a = !axe.buffer<64x128xf8E4M3FN, #axe.layout<SW(4, 3, 3) o S[(64, 128) : (128, 1)]>, shared>
!b = !axe.buffer<64x128xf8E5M2, #axe.layout<SW(4, 3, 3) o S[(64, 128) : (128, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(4, 2, 8, 8, 4, 2) : (1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_fp8_mixed() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !b
      %c = axe.alloc : !c
      // expected-error @below {{forced schedule 'wgmma' declined axe.gemm on target sm_90: A and B have different element types}}
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma", transpose_b} : !a, !b into !c
    }
    return
  }
}

// -----

// Rows 8 apart swapped with columns: not wgmma's D fragment.
!a = !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(4, 8, 2, 8, 4, 2) : (1@wid_in_wg, 4@laneid, 2, 4, 1@laneid, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_not_the_fragment() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !a
      %c = axe.alloc : !c
      // expected-error @below {{forced schedule 'wgmma' declined axe.gemm on target sm_90: the accumulator's 64x64 tile at (0, 0) of a warpgroup is not wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16's D fragment}}
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma", transpose_b} : !a, !a into !c
    }
    return
  }
}

// -----

!a = !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
!c = !axe.buffer<64x64xf32, #axe.layout<S[(64, 64) : (64, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @wgmma_c_in_memory() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !a
      %c = axe.alloc : !c
      // expected-error @below {{forced schedule 'wgmma' declined axe.gemm on target sm_90: wgmma accumulates in registers; C is in memory}}
      axe.gemm %a, %b into %c at warpgroup {schedule = "wgmma", transpose_b} : !a, !a into !c
    }
    return
  }
}

// -----

// tcgen05.mma writes its accumulator as data path D: row i on lane i, one
// column per element.
!a = !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared>
!b = !axe.buffer<64x64xf16, #axe.layout<SW(3, 3, 3) o S[(64, 64) : (64, 1)]>, shared>
!t = !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (1@TLane, 2@TCol)]>, tmem>
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tcgen05_not_datapath_d() {
    axe.kernel grid [1] threads 128 {
      %a = axe.alloc : !a
      %b = axe.alloc : !b
      %t = axe.alloc : !t
      // expected-error @below {{forced schedule 'tcgen05' declined axe.gemm on target sm_100a: tcgen05 data path D places row i on lane i, S[(128, 64) : (1@TLane, 1@TCol)]; the tmem buffer's layout is S[(128, 64) : (1@TLane, 2@TCol)]}}
      axe.gemm %a, %b into %t at warpgroup {schedule = "tcgen05", transpose_b} : !a, !b into !t
    }
    return
  }
}

// -----

// tcgen05.ld.32x32b gives each thread one row; a layout with a warp's rows
// in registers and its columns over lanes is declined.
!t = !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (1@TLane, 1@TCol)]>, tmem>
!q = !axe.buffer<128x64xf32, #axe.layout<S[(4, 32, 2, 32) : (1@wid_in_wg, 2, 1, 1@laneid)]>, reg>
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tcgen05_ld_not_rows() {
    axe.kernel grid [1] threads 128 {
      %t = axe.alloc : !t
      %q = axe.alloc : !q
      // expected-error @below {{forced schedule 'tcgen05.ld' declined axe.copy on target sm_100a: tcgen05.ld.32x32b gives thread t of the warpgroup row t, one column per register}}
      axe.copy %t to %q at warpgroup {schedule = "tcgen05.ld"} : !t to !q
    }
    return
  }
}

// -----

// stmatrix moves 8x8 matrices whose rows are 16 aligned bytes of shared
// memory; a column-major shared tile has none.
!s = !axe.buffer<16x16xf16, #axe.layout<S[(16, 16) : (1, 16)]>, shared>
!r = !axe.buffer<16x16xf16, #axe.layout<S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)]>, reg>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @stmatrix_columns() {
    axe.kernel grid [1] threads 32 {
      %s = axe.alloc : !s
      %r = axe.alloc : !r
      // expected-error @below {{forced schedule 'stmatrix' declined axe.copy on target sm_90: the register layout does not tile the 8x8 matrix fragment (lane t: row t/4, columns 2(t mod 4) + {0, 1}, or its transpose) in 32-bit registers whose rows are 16 aligned bytes of the shared operand}}
      axe.copy %r to %s at warp {schedule = "stmatrix"} : !r to !s
    }
    return
  }
}

// -----

// tcgen05.cp reads rows of 32 bytes through a descriptor: a column-major
// shared tile is no K-major atom tiling.
!s = !axe.buffer<128x32xf32, #axe.layout<S[(128, 32) : (1, 128)]>, shared>
!t = !axe.buffer<128x32xf32, #axe.layout<S[(128, 32) : (1@TLane, 1@TCol)]>, tmem>
module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tcgen05_cp_columns() {
    axe.kernel grid [1] threads 128 {
      %s = axe.alloc : !s
      %t = axe.alloc : !t
      // expected-error-re @below {{forced schedule 'tcgen05.cp' declined axe.copy on target sm_100a: tcgen05.cp reads the source through a shared-memory descriptor: the layout S[(128, 32) : (1, 128)] is no tile of a shared-memory atom {{.*}}}}
      axe.copy %s to %t at warpgroup {schedule = "tcgen05.cp"} : !s to !t
    }
    return
  }
}

// -----

// Shuffles exchange registers within a warp: y's lane 16 of warp 0 holds
// element 32, which x keeps in warp 1.
!x = !axe.buffer<64xf32, #axe.layout<S[(2, 32) : (1@warpid, 1@laneid)]>, reg>
!y = !axe.buffer<64xf32, #axe.layout<S[(32, 2) : (1@laneid, 1@warpid)]>, reg>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @shuffle_across_warps() {
    axe.kernel grid [1] threads 64 {
      %x = axe.alloc : !x
      %y = axe.alloc : !y
      // expected-error @below {{forced schedule 'nvvm.copy.shuffle' declined axe.copy on target sm_80: thread 16's register of element 32 is held by no lane of its warp in the source; shuffles exchange within a warp}}
      axe.copy %x to %y at cta {schedule = "nvvm.copy.shuffle"} : !x to !y
    }
    return
  }
}

// -----

// Turns among the warpgroups of a partition of one warpgroup.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @turns_in_one_warpgroup() {
    axe.kernel grid [1] threads 256 {
      axe.warp_specialize {
        axe.partition warps [4, 8) {
          // expected-error @below {{'axe.turn_begin' op takes turns among warpgroups, and its partition (warps [4, 8)) is not two or more whole warpgroups of sm_90}}
          axe.turn_begin
          axe.turn_end
        }
      }
    }
    return
  }
}

// -----

// A slice at a run-time start moves TMA's shared box by what each start
// moves it: any row here, 64 bytes, where an unswizzled box needs 128.
// (Starts in whole swizzle atoms are taken:
// Integration/CrossTarget/tma-ring-runtime-slot.mlir.)
!g = !axe.buffer<16x32xf16, #axe.layout<S[(16, 32) : (32, 1)]>, global>
!s2 = !axe.buffer<64x32xf16, #axe.layout<S[(64, 32) : (32, 1)]>, shared>
!s = !axe.buffer<16x32xf16, #axe.layout<S[(16, 32) : (32, 1)]>, shared>
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @tma_runtime_start_misaligned(%A: memref<16x32xf16>, %r: index) {
    axe.kernel grid [1] threads 128 {
      %c0 = arith.constant 0 : index
      %s2 = axe.alloc : !s2
      %g = axe.view %A[%c0, %c0] : memref<16x32xf16> -> !g
      %s = axe.slice %s2[%r, 0] : !s2 -> !s
      // expected-error @below {{forced schedule 'tma' declined axe.copy on target sm_90: the shared box starts at a run-time multiple of 1 along dim 0, and a start of 1 moves it 64 bytes; TMA with}}
      axe.copy %g to %s at warpgroup {schedule = "tma"} : !g to !s
    }
    return
  }
}
