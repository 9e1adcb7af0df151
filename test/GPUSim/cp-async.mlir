// cp.async in two commit groups: the first waited for with one group still
// in flight (numGroups = 1), the second (whose last lanes copy only 2 of 4
// floats, zero-filling the rest) waited for after. Each half is read back
// right after its wait.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json --check-races | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: cp.async errors 0
// CHECK-NEXT: ( 252, 253, 0, 0 )

// STATS:      "op": "nvgpu.device_async_copy",
// STATS-NEXT: "loc": "{{.*}}cp-async.mlir:{{[0-9]+}}:{{[0-9]+}}",
// STATS-NEXT: "requests": 1,
// STATS-NEXT: "wavefronts": 4,
// STATS-NEXT: "ideal_wavefronts": 4,

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @stage(%in: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%s : memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %c4 = arith.constant 4 : index
      %c28 = arith.constant 28 : index
      %c128 = arith.constant 128 : index
      %lane = gpu.lane_id
      %i = arith.muli %lane, %c4 : index
      %j = arith.addi %i, %c128 : index
      %t0 = nvgpu.device_async_copy %in[%i], %s[%i], 4 {bypassL1}
          : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      %g0 = nvgpu.device_async_create_group %t0
      // Lanes 28..31 read only 2 floats; the rest of their 16 bytes is 0.
      %tail = arith.cmpi uge, %lane, %c28 : index
      %two = arith.constant 2 : index
      %srcElems = arith.select %tail, %two, %c4 : index
      %t1 = nvgpu.device_async_copy %in[%j], %s[%j], 4, %srcElems
          : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      %g1 = nvgpu.device_async_create_group %t1
      nvgpu.device_async_wait %g0 {numGroups = 1 : i32}
      %v0 = vector.load %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      vector.store %v0, %out[%i] : memref<256xf32>, vector<4xf32>
      nvgpu.device_async_wait %g1
      %v1 = vector.load %s[%j] : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
      vector.store %v1, %out[%j] : memref<256xf32>, vector<4xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c248 = arith.constant 248 : index
    %c256 = arith.constant 256 : index
    %in = memref.alloc() : memref<256xf32>
    %out = memref.alloc() : memref<256xf32>
    scf.for %i = %c0 to %c256 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %in[%i] : memref<256xf32>
    }
    gpu.launch_func @kernels::@stage blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%in : memref<256xf32>, %out : memref<256xf32>)
    // Expected: out[i] = i, but for the zero-filled halves of the last four
    // 16-byte copies (i % 4 >= 2 from 240 on).
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c240 = arith.constant 240 : index
    %fz = arith.constant 0.0 : f32
    %errors = scf.for %i = %c0 to %c256 step %c1 iter_args(%e = %zero) -> (i64) {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %late = arith.cmpi uge, %i, %c240 : index
      %r = arith.remui %i, %c4 : index
      %hi = arith.cmpi uge, %r, %c2 : index
      %filled = arith.andi %late, %hi : i1
      %want = arith.select %filled, %fz, %f : f32
      %got = memref.load %out[%i] : memref<256xf32>
      %bad = arith.cmpf une, %got, %want : f32
      %n = arith.addi %e, %one : i64
      %s = arith.select %bad, %n, %e : i64
      scf.yield %s : i64
    }
    vector.print str "cp.async errors "
    vector.print %errors : i64
    %c252 = arith.constant 252 : index
    %tailv = vector.load %out[%c252] : memref<256xf32>, vector<4xf32>
    vector.print %tailv : vector<4xf32>
    return
  }
}
