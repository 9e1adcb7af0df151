// RUN: not axe-trn-sim %s -e main 2>&1 | FileCheck %s

// Host mode's trampolines take at most 8 memrefs.
// CHECK: host-too-many-args.mlir:[[@LINE+1]]:1: error: axe-trn-sim: host mode launches kernels of at most 8 arguments; @nine has 9
func.func @nine(%a0: memref<4xf32, #trn.space<hbm>>, %a1: memref<4xf32, #trn.space<hbm>>,
                %a2: memref<4xf32, #trn.space<hbm>>, %a3: memref<4xf32, #trn.space<hbm>>,
                %a4: memref<4xf32, #trn.space<hbm>>, %a5: memref<4xf32, #trn.space<hbm>>,
                %a6: memref<4xf32, #trn.space<hbm>>, %a7: memref<4xf32, #trn.space<hbm>>,
                %a8: memref<4xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  return
}

func.func @main() {
  return
}
