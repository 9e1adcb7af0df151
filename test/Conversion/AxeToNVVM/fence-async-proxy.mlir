// axe.fence_async_proxy is fence.proxy.async.shared::cta on NVIDIA targets
// and nothing on the CPU, whose copies are all ordinary stores.
// RUN: axe-opt %s --convert-axe-to-nvvm=chip=sm_90 | FileCheck %s
// RUN: axe-opt %s --axe-to-cpu | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: gpu.func @fence_kernel
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CPU-NOT: fence_async_proxy
// CPU-NOT: nvvm.fence

func.func @fence() {
  axe.kernel grid [1] threads 128 {
    axe.fence_async_proxy
    axe.barrier at cta
  }
  return
}
