// A host program that reaches every kind of mgpu* entry point, for
// cuda-runtime-fake-driver.test: it runs on the stand-in libcuda.so.1
// (FakeCUDA/), which backs device memory with host memory, so main can read
// back what the runtime's memset and memcpy did. The kernel never runs.
!tmap = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf16, 3>, swizzle = swizzle_64b, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: f32) kernel {
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %half = arith.constant 1.5 : f16
    // Device memory set to 1.0, copied to managed memory, read on the host.
    %s = gpu.alloc host_shared () : memref<16xf32>
    %t0 = gpu.wait async
    %d, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
    %t2 = gpu.memset async [%t1] %d, %one : memref<16xf32>, f32
    %t3 = gpu.memcpy async [%t2] %s, %d : memref<16xf32>, memref<16xf32>
    %t4 = gpu.launch_func async [%t3] @kernels::@k
        clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%one : f32)
    %t5 = gpu.launch_func async [%t4] @kernels::@k
        blocks in (%c3, %c2, %c1) threads in (%c64, %c1, %c1) args(%one : f32)
    %t6 = gpu.dealloc async [%t5] %d : memref<16xf32>
    gpu.wait [%t6]
    %v = memref.load %s[%c3] : memref<16xf32>
    vector.print %v : f32
    // A 16-bit memset: the value reaches the driver as its own 16 bits.
    %h = gpu.alloc host_shared () : memref<8xf16>
    %t7 = gpu.wait async
    %t8 = gpu.memset async [%t7] %h, %half : memref<8xf16>, f16
    gpu.wait [%t8]
    %hv = memref.load %h[%c3] : memref<8xf16>
    %hf = arith.extf %hv : f16 to f32
    vector.print %hf : f32
    // Host registration covers the memref's 4 x 8 x 4 bytes.
    %r = memref.alloc() : memref<4x8xf32>
    %ur = memref.cast %r : memref<4x8xf32> to memref<*xf32>
    gpu.host_register %ur : memref<*xf32>
    gpu.host_unregister %ur : memref<*xf32>
    // A TMA descriptor for a subview whose offset (6177 elements, 12354
    // bytes) is not a multiple of 16 bytes, so the address shows that the
    // offset was applied. Real TMA would refuse it; the stand-in does not.
    %g = memref.alloc() : memref<128x96xf16>
    %sub = memref.subview %g[64, 33] [64, 63] [1, 1]
        : memref<128x96xf16> to memref<64x63xf16, strided<[96, 1], offset: 6177>>
    %ug = memref.cast %sub
        : memref<64x63xf16, strided<[96, 1], offset: 6177>> to memref<*xf16>
    %map = nvgpu.tma.create.descriptor %ug box[%c64, %c32] : memref<*xf16> -> !tmap
    return
  }
}
