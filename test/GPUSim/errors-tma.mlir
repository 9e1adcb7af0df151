// TMA errors, on variants of tma-load.mlir.
// A destination 128 bytes into the buffer, not at the 1024 bytes the
// 128-byte swizzle needs:
// RUN: sed 's/offset: \[%c0\], sizes: \[64, 64\]/offset: [%c64], sizes: [64, 64]/' %S/tma-load.mlir > %t.align.mlir
// RUN: not axe-gpu-run %t.align.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: error: axe-gpu-run: kernel @tile, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): the TMA destination (shared address 128, byte 128 of workgroup attribution 0) is not 1024-byte aligned, as the 128-byte swizzle needs
// ALIGN-NOT: box (
//
// A descriptor pointer 8 bytes into the record the host built:
// RUN: sed 's/%%p = builtin.unrealized_conversion_cast %d : !tm to !llvm.ptr/%%p0 = builtin.unrealized_conversion_cast %d : !tm to !llvm.ptr\n    %%p = llvm.getelementptr %%p0[8] : (!llvm.ptr) -> !llvm.ptr, i8/' %S/tma-load.mlir > %t.desc.mlir
// RUN: not axe-gpu-run %t.desc.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=DESC
// DESC: error: axe-gpu-run: kernel @tile, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): the tensor map descriptor 0x{{[0-9a-f]+}} is not one the host built (nvgpu.tma.create.descriptor)
//
// Host-side checks, as cuTensorMapEncodeTiled makes them: an inner box of
// 256 bytes with the 128-byte swizzle, a box dim above 256.
// RUN: sed 's/box\[%c64, %c64\]/box[%c64, %c128]/' %S/tma-load.mlir > %t.span.mlir
// RUN: not axe-gpu-run %t.span.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=SPAN
// SPAN: error: axe-gpu-run: tensor map descriptor #0 (!nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>): the inner box dim spans 256 bytes, more than the 128-byte swizzle span
// RUN: sed 's/box\[%c64, %c64\]/box[%c1024, %c64]/' %S/tma-load.mlir > %t.box.mlir
// RUN: not axe-gpu-run %t.box.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=BOX
// BOX: error: axe-gpu-run: tensor map descriptor #0 ({{.*}}): box dim 1 (innermost first) is 1024 (1 to 256 are possible)
//
// Reading the tile before the mbarrier phase completes (the barrier expects
// two arrivals, only thread 0 arrives, and nobody waits):
// RUN: sed -e 's/nvgpu.mbarrier.init %bars\[%c0\], %c1/nvgpu.mbarrier.init %bars[%c0], %c2/' -e '/try_wait.parity/d' %S/tma-load.mlir > %t.early.mlir
// RUN: not axe-gpu-run %t.early.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: axe-gpu-run: kernel @tile, block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): reads byte 0 of workgroup attribution 0 (shared memory), which a TMA load has not completed (its mbarrier phase has not completed: missing nvgpu.mbarrier.try_wait.parity?)
//
// The phase completes, but no thread waits for it: the bytes are in shared
// memory, yet only a thread that observed the phase (or passed a CTA barrier
// with one that did) may read them, on a GPU as here.
// RUN: sed -e '/try_wait.parity/d' %S/tma-load.mlir > %t.unobserved.mlir
// RUN: not axe-gpu-run %t.unobserved.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=UNOBSERVED
// UNOBSERVED: error: axe-gpu-run: kernel @tile, block (0, 0, 0), warp {{[0-9]+}}, thread ({{[0-9]+}}, 0, 0) (lane {{[0-9]+}}): reads byte {{[0-9]+}} of workgroup attribution 0 (shared memory), which a TMA load wrote in phase 0 of an mbarrier this warp has not waited for (nor passed a CTA barrier with a warp that did): a missing nvgpu.mbarrier.try_wait.parity
