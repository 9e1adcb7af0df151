// Kernels with branches between blocks are refused before anything runs
// (only structured control flow is modelled), as are ops the interpreter
// does not know.
// RUN: not axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// RUN: sed 's/^      cf.br ^bb1$/      %z = nvvm.read.ptx.sreg.clock : i32/; /^    ^bb1:$/d' %s > %t.mlir
// RUN: not axe-gpu-run %t.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=OP

// CHECK: error: axe-gpu-run: kernel @k has branches (several blocks); only structured control flow (scf) is modelled
// CHECK-NOT: not reached
// OP: error: axe-gpu-run: unsupported op 'nvvm.read.ptx.sreg.clock' in kernel @k
// OP-NOT: not reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k() kernel {
      cf.br ^bb1
    ^bb1:
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    vector.print str "not reached"
    return
  }
}
