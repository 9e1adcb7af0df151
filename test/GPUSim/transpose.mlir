// A 32x32 transpose through shared memory with a barrier, in a naive tile
// (the column reads hit one bank: 32-way conflicts) and a padded one (33
// floats a row: none). Both results are checked by the host.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json --check-races | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: naive errors 0
// CHECK: padded errors 0

// STATS:      "name": "naive"
// STATS:      "shared_total":
// STATS-NEXT:   "requests": 64,
// STATS-NEXT:   "wavefronts": 1056,
// STATS-NEXT:   "ideal_wavefronts": 64,
// STATS-NEXT:   "bank_conflicts": 992
// STATS:      "op": "memref.store",
// STATS-NEXT: "loc": "{{.*}}transpose.mlir:{{[0-9]+}}:{{[0-9]+}}",
// STATS-NEXT: "requests": 32,
// STATS-NEXT: "wavefronts": 32,
// STATS-NEXT: "ideal_wavefronts": 32,
// STATS-NEXT: "bank_conflicts": 0
// STATS:      "op": "memref.load",
// STATS-NEXT: "loc": "{{.*}}transpose.mlir:{{[0-9]+}}:{{[0-9]+}}",
// STATS-NEXT: "requests": 32,
// STATS-NEXT: "wavefronts": 1024,
// STATS-NEXT: "ideal_wavefronts": 32,
// STATS-NEXT: "bank_conflicts": 992
// STATS:      "name": "padded"
// STATS:      "shared_total":
// STATS-NEXT:   "requests": 64,
// STATS-NEXT:   "wavefronts": 64,
// STATS-NEXT:   "ideal_wavefronts": 64,
// STATS-NEXT:   "bank_conflicts": 0

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @naive(%in: memref<32x32xf32>, %out: memref<32x32xf32>)
        workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      scf.for %j = %c0 to %c4 step %c1 {
        %j8 = arith.muli %j, %c8 : index
        %r = arith.addi %ty, %j8 : index
        %v = memref.load %in[%r, %tx] : memref<32x32xf32>
        memref.store %v, %tile[%r, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %j = %c0 to %c4 step %c1 {
        %j8 = arith.muli %j, %c8 : index
        %r = arith.addi %ty, %j8 : index
        %v = memref.load %tile[%tx, %r] : memref<32x32xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%r, %tx] : memref<32x32xf32>
      }
      gpu.return
    }

    gpu.func @padded(%in: memref<32x32xf32>, %out: memref<32x32xf32>)
        workgroup(%tile : memref<32x33xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      scf.for %j = %c0 to %c4 step %c1 {
        %j8 = arith.muli %j, %c8 : index
        %r = arith.addi %ty, %j8 : index
        %v = memref.load %in[%r, %tx] : memref<32x32xf32>
        memref.store %v, %tile[%r, %tx] : memref<32x33xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %j = %c0 to %c4 step %c1 {
        %j8 = arith.muli %j, %c8 : index
        %r = arith.addi %ty, %j8 : index
        %v = memref.load %tile[%tx, %r] : memref<32x33xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%r, %tx] : memref<32x32xf32>
      }
      gpu.return
    }
  }

  func.func @check(%in: memref<32x32xf32>, %out: memref<32x32xf32>) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %e = scf.for %i = %c0 to %c32 step %c1 iter_args(%ei = %zero) -> (i64) {
      %e2 = scf.for %j = %c0 to %c32 step %c1 iter_args(%ej = %ei) -> (i64) {
        %a = memref.load %in[%i, %j] : memref<32x32xf32>
        %b = memref.load %out[%j, %i] : memref<32x32xf32>
        %bad = arith.cmpf une, %a, %b : f32
        %n = arith.addi %ej, %one : i64
        %r = arith.select %bad, %n, %ej : i64
        scf.yield %r : i64
      }
      scf.yield %e2 : i64
    }
    return %e : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %in = memref.alloc() : memref<32x32xf32>
    %out = memref.alloc() : memref<32x32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %k = arith.muli %i, %c32 : index
        %l = arith.addi %k, %j : index
        %li = arith.index_cast %l : index to i32
        %f = arith.sitofp %li : i32 to f32
        memref.store %f, %in[%i, %j] : memref<32x32xf32>
      }
    }
    gpu.launch_func @kernels::@naive blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)
        args(%in : memref<32x32xf32>, %out : memref<32x32xf32>)
    %e1 = func.call @check(%in, %out) : (memref<32x32xf32>, memref<32x32xf32>) -> i64
    vector.print str "naive errors "
    vector.print %e1 : i64
    gpu.launch_func @kernels::@padded blocks in (%c1, %c1, %c1) threads in (%c32, %c8, %c1)
        args(%in : memref<32x32xf32>, %out : memref<32x32xf32>)
    %e2 = func.call @check(%in, %out) : (memref<32x32xf32>, memref<32x32xf32>) -> i64
    vector.print str "padded errors "
    vector.print %e2 : i64
    return
  }
}
