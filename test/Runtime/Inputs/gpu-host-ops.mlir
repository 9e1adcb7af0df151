// Host-side gpu and nvgpu ops whose upstream lowering calls the mgpu*
// entry points the axe kernels do not use yet (memory, events, host
// registration, clusters, TMA descriptors, the default device); lowered by
// cuda-runtime-symbols.test with mlir-opt's NVVM pipeline.
!tmap = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: f32) kernel {
      gpu.return
    }
  }
  func.func @host(%h: memref<16xf32>, %t: memref<128x128xf16>,
                  %event: !gpu.async.token) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %half = arith.constant 1.0 : f16
    %dev = arith.constant 0 : i32
    gpu.set_default_device %dev
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
    %t2 = gpu.memcpy async [%t1] %d, %h : memref<16xf32>, memref<16xf32>
    %t3 = gpu.memset async [%t2] %d, %one : memref<16xf32>, f32
    %t4 = gpu.launch_func async [%t3] @kernels::@k
        clusters in (%c1, %c1, %c1) blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%one : f32)
    %t5 = gpu.launch_func async [%t4] @kernels::@k
        blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%one : f32)
    %w = gpu.wait async [%t5, %t1]
    %t6 = gpu.dealloc async [%w] %d : memref<16xf32>
    %d16, %t7 = gpu.alloc async [%t6] () : memref<8xf16>
    %t8 = gpu.memset async [%t7] %d16, %half : memref<8xf16>, f16
    gpu.wait [%t8, %t2]
    // A token from elsewhere (here an argument) is an event.
    gpu.wait [%event]
    %u = memref.cast %h : memref<16xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    gpu.host_unregister %u : memref<*xf32>
    %shared = gpu.alloc host_shared () : memref<8xf32>
    %ut = memref.cast %t : memref<128x128xf16> to memref<*xf16>
    %map = nvgpu.tma.create.descriptor %ut box[%c64, %c64] : memref<*xf16> -> !tmap
    return
  }
}
