// gpu.printf: the active lanes print in lane order, on the host's stdout.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s

// CHECK:      before
// CHECK-NEXT: lane 0: x = 0.50, i8 -3
// CHECK-NEXT: lane 2: x = 2.50, i8 -1
// CHECK-NEXT: lane 4: x = 4.50, i8 1
// CHECK-NEXT: after

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @hello() kernel {
      %c2 = arith.constant 2 : index
      %c0 = arith.constant 0 : index
      %lane = gpu.lane_id
      %r = arith.remui %lane, %c2 : index
      %even = arith.cmpi eq, %r, %c0 : index
      scf.if %even {
        %li = arith.index_cast %lane : index to i32
        %f = arith.sitofp %li : i32 to f32
        %h = arith.constant 0.5 : f32
        %x = arith.addf %f, %h : f32
        %b = arith.trunci %li : i32 to i8
        %k = arith.constant 3 : i8
        %y = arith.subi %b, %k : i8
        gpu.printf "lane %d: x = %.2f, i8 %d\n", %lane, %x, %y : index, f32, i8
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    vector.print str "before\n"
    gpu.launch_func @kernels::@hello blocks in (%c1, %c1, %c1) threads in (%c6, %c1, %c1)
    vector.print str "after\n"
    return
  }
}
