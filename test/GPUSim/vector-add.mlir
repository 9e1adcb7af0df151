// A vector add over 300 elements in CTAs of 128 threads (the last CTA is
// partly masked off by a bounds check), checked element by element by the
// host.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: errors 0
// CHECK-NEXT: c[299] = 897

// STATS: "name": "add"
// STATS: "launches": 1
// STATS: "ctas": 3
// STATS: "global"
// STATS: "op": "memref.load"
// STATS: "requests": 10,
// STATS-NEXT: "sectors": 38,

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @add(%a: memref<300xf32>, %b: memref<300xf32>, %c: memref<300xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<300xf32>
        %y = memref.load %b[%i] : memref<300xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<300xf32>
      }
      gpu.return
    }
  }


  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c128 = arith.constant 128 : index
    %n = arith.constant 300 : index
    %a = memref.alloc() {alignment = 128 : i64} : memref<300xf32>
    %b = memref.alloc() {alignment = 128 : i64} : memref<300xf32>
    %c = memref.alloc() {alignment = 128 : i64} : memref<300xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %g = arith.addf %f, %f : f32
      memref.store %f, %a[%i] : memref<300xf32>
      memref.store %g, %b[%i] : memref<300xf32>
    }
    gpu.launch_func @kernels::@add blocks in (%c3, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%a : memref<300xf32>, %b : memref<300xf32>, %c : memref<300xf32>, %n : index)
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %errors = scf.for %i = %c0 to %n step %c1 iter_args(%e = %zero) -> (i64) {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %three = arith.constant 3.0 : f32
      %want = arith.mulf %f, %three : f32
      %got = memref.load %c[%i] : memref<300xf32>
      %bad = arith.cmpf une, %got, %want : f32
      %e1 = arith.addi %e, %one : i64
      %e2 = arith.select %bad, %e1, %e : i64
      scf.yield %e2 : i64
    }
    vector.print str "errors "
    vector.print %errors : i64
    %last = arith.constant 299 : index
    %v = memref.load %c[%last] : memref<300xf32>
    vector.print str "c[299] = "
    vector.print %v : f32
    return
  }
}
