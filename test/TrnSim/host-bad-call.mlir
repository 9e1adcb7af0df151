// RUN: not axe-trn-sim %s -e main 2>&1 | FileCheck %s

// A kernel is called on host memrefs cast to hbm where the call is: here
// it gets a memref the host function received already in hbm, which the
// simulator cannot trace back to host memory.
func.func @k(%h: memref<128x64xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  return
}

func.func @forward(%d: memref<128x64xf32, #trn.space<hbm>>) {
  // CHECK: host-bad-call.mlir:[[@LINE+1]]:3: error: axe-trn-sim: operand 0 of a kernel call must be a memref.memory_space_cast of a ranked host memref
  func.call @k(%d) : (memref<128x64xf32, #trn.space<hbm>>) -> ()
  return
}

func.func @main() {
  %h = memref.alloc() : memref<128x64xf32>
  %d = memref.memory_space_cast %h : memref<128x64xf32> to memref<128x64xf32, #trn.space<hbm>>
  func.call @forward(%d) : (memref<128x64xf32, #trn.space<hbm>>) -> ()
  memref.dealloc %h : memref<128x64xf32>
  return
}
