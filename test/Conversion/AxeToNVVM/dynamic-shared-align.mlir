// Shared buffers past CUDA's 48 KiB of static shared memory live in the
// dynamic window, which upstream's NVVM lowering declares 16-byte aligned.
// A 128-byte swizzled buffer needs its 1024-byte pattern on a 1024-byte
// boundary (TMA and wgmma swizzle address bits), so convert-axe-to-nvvm
// records the alignment on the gpu.module and axe-to-ptx raises the
// window's declaration to it.
// RUN: axe-opt %s --axe-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: axe-opt %s --axe-to-ptx=format=isa -o %t.mlir
// RUN: %extract_ptx %t.mlir -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// NVVM: gpu.module @swizzled_kernels {{.*}} attributes {axe_dynamic_shared_align = 1024 : i64}
// NVVM: gpu.dynamic_shared_memory
// PTX: .shared .align 1024 .b8 __dynamic_shmem__0

!sw = !axe.buffer<128x64xf16, #axe.layout<SW(3, 3, 3) o S[(128, 64) : (64, 1)]>, shared>
!g = !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (64, 1)]>, global>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @swizzled(%X: memref<128x64xf16>, %Y: memref<128x64xf16>) {
    axe.kernel grid [1] threads 128 {
      %gx = axe.view %X[0, 0] : memref<128x64xf16> -> !g
      %gy = axe.view %Y[0, 0] : memref<128x64xf16> -> !g
      %a = axe.alloc : !sw
      %b = axe.alloc : !sw
      %c = axe.alloc : !sw
      %d = axe.alloc : !sw
      axe.copy %gx to %a at cta : !g to !sw
      axe.barrier at cta
      axe.copy %a to %b at cta : !sw to !sw
      axe.barrier at cta
      axe.copy %b to %c at cta : !sw to !sw
      axe.barrier at cta
      axe.copy %c to %d at cta : !sw to !sw
      axe.barrier at cta
      axe.copy %d to %gy at cta : !sw to !g
    }
    return
  }
}
