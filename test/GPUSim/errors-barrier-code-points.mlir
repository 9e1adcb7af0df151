// Warps that meet at an aligned barrier (bar.sync 0) from two different
// instructions: the PTX ISA leaves it undefined (compute-sanitizer's
// synccheck: "divergent threads in block"). The non-aligned barrier.sync
// with a count is how warps that run different code meet.
// RUN: not axe-gpu-run %s -e main_aligned -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=ALIGNED
// RUN: axe-gpu-run %s -e main_unaligned -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNALIGNED
// ALIGNED: error: axe-gpu-run: kernel @aligned, block (0, 0, 0), warp 0: divergent barrier: warp 0 waits at this aligned barrier 0, warp 1 at line 26 for it
// ALIGNED-NOT: reached
// UNALIGNED: reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @aligned() kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %w = arith.divui %tid, %c32 : index
      %w0 = arith.cmpi eq, %w, %c0 : index
      scf.if %w0 {
        gpu.barrier
      } else {
        gpu.barrier
      }
      gpu.return
    }
    gpu.func @unaligned() kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %id = arith.constant 15 : i32
      %all = arith.constant 64 : i32
      %tid = gpu.thread_id x
      %w = arith.divui %tid, %c32 : index
      %w0 = arith.cmpi eq, %w, %c0 : index
      scf.if %w0 {
        nvvm.inline_ptx "barrier.sync $0, $1;" ro(%id, %all : i32, i32)
      } else {
        nvvm.inline_ptx "barrier.sync 15, 64;"
      }
      gpu.return
    }
  }

  func.func @main_aligned() {
    %c1 = arith.constant 1 : index
    %threads = arith.constant 64 : index
    gpu.launch_func @kernels::@aligned blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
    vector.print str "reached\n"
    return
  }
  func.func @main_unaligned() {
    %c1 = arith.constant 1 : index
    %threads = arith.constant 64 : index
    gpu.launch_func @kernels::@unaligned blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
    vector.print str "reached\n"
    return
  }
}
