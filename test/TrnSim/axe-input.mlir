// RUN: not axe-trn-sim %s 2>&1 | FileCheck %s

// axe-trn-sim lowers a file of axe kernels with axe-to-trn itself; a kernel
// the trn schedules refuse stops it with dispatch's reasons.
// CHECK: error: no schedule for axe.copy on target trn1
// CHECK: note: schedule 'dma' (priority 20) declined: DMA does not reach psum: copy through sbuf

#h = #axe.layout<S[(128, 128) : (128, 1)]>
#p = #axe.layout<S[(128, 128) : (1@P, 1@F)]>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @dma_into_psum(%A: memref<128x128xf32>) {
    axe.kernel {
      %p = axe.alloc : !axe.buffer<128x128xf32, #p, psum>
      %h = axe.view %A[0, 0] : memref<128x128xf32> -> !axe.buffer<128x128xf32, #h, hbm>
      axe.copy %h to %p at cta : !axe.buffer<128x128xf32, #h, hbm> to !axe.buffer<128x128xf32, #p, psum>
    }
    return
  }
}
