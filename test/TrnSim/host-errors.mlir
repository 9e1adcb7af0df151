// RUN: not axe-trn-sim %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   >%t.out 2>%t.err
// RUN: FileCheck %s --check-prefix=BOUNDS < %t.err
// RUN: FileCheck %s --check-prefix=BEFORE < %t.out
// RUN: not axe-trn-sim %s -e main -entry-point-result=i32 2>&1 | FileCheck %s --check-prefix=RESULT
// RUN: not axe-trn-sim %s -e missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not axe-trn-sim %s -e takes_args 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: not axe-trn-sim %s -e main --check-matmul 2>&1 | FileCheck %s --check-prefix=KERNELMODE
// RUN: not axe-trn-sim %s --launch-summary 2>&1 | FileCheck %s --check-prefix=NEEDE
// RUN: not axe-trn-sim %s -e main -shared-libs=%t.nope.so 2>&1 | FileCheck %s --check-prefix=NOLIB

// A launch whose simulation fails prints the simulator's diagnostic at the
// kernel's operation, names the launch and exits with 1; what main printed
// before it is on stdout.
// BOUNDS: host-errors.mlir:[[@LINE+12]]:{{[0-9]+}}: error: trn-sim: subview dim 0 takes [192, 319] (stride 1) of a dim of size 256
// BOUNDS: axe-trn-sim: launch 0 (kernel @out_of_bounds) failed
// BEFORE: before the launch
// BEFORE-NOT: after the launch
func.func @out_of_bounds(%h: memref<256x64xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = trn.alloc : memref<128x64xf32, #trn.space<sbuf>>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = arith.muli %i, %c64 : index
    %v = memref.subview %h[%r, 0] [128, 64] [1, 1]
        : memref<256x64xf32, #trn.space<hbm>> to memref<128x64xf32, strided<[64, 1], offset: ?>, #trn.space<hbm>>
    trn.dma_copy %v to %s
        : memref<128x64xf32, strided<[64, 1], offset: ?>, #trn.space<hbm>> to memref<128x64xf32, #trn.space<sbuf>>
  }
  return
}

func.func @main() {
  vector.print str "before the launch\n"
  %h = memref.alloc() : memref<256x64xf32>
  %d = memref.memory_space_cast %h : memref<256x64xf32> to memref<256x64xf32, #trn.space<hbm>>
  func.call @out_of_bounds(%d) : (memref<256x64xf32, #trn.space<hbm>>) -> ()
  vector.print str "after the launch\n"
  memref.dealloc %h : memref<256x64xf32>
  return
}

// ARGS: axe-trn-sim: -entry-point-result=void runs a function of no arguments and no results; @takes_args is (i32) -> ()
func.func @takes_args(%x: i32) {
  return
}

// RESULT: axe-trn-sim: -entry-point-result=i32 is not supported: host mode runs an entry point that returns nothing (-entry-point-result=void)
// MISSING: axe-trn-sim: no host function 'missing' to run (-e)
// KERNELMODE: axe-trn-sim: --kernel, --check-matmul, --print-arg and --input are for kernel mode, not -e
// NEEDE: axe-trn-sim: -entry-point-result, -shared-libs and --launch-summary need -e (host mode)
// NOLIB: axe-trn-sim: cannot load {{.*}}.nope.so
