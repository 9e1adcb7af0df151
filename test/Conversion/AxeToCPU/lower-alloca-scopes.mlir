// RUN: axe-opt %s --axe-lower-alloca-scopes --split-input-file | FileCheck %s

// A one-block scope is inlined between a stack save and a restore, so its
// allocations are released at its end even inside a loop.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: memref.alloca() : memref<16384xf32>
// CHECK: memref.store
// CHECK-NEXT: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NOT: memref.alloca_scope
func.func @in_loop(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.alloca_scope {
      %buf = memref.alloca() : memref<16384xf32>
      memref.store %v, %buf[%i] : memref<16384xf32>
    }
  }
  return
}

// -----

// Results of the scope are forwarded; nested scopes are lowered too.
// CHECK-LABEL: func.func @results
// CHECK-COUNT-2: llvm.intr.stacksave
// CHECK: %[[X:.*]] = memref.load
// CHECK: return %[[X]] : f32
func.func @results(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %r = memref.alloca_scope -> f32 {
    %s = memref.alloca_scope -> f32 {
      %buf = memref.alloca() : memref<4xf32>
      memref.store %v, %buf[%c0] : memref<4xf32>
      %x = memref.load %buf[%c0] : memref<4xf32>
      memref.alloca_scope.return %x : f32
    }
    memref.alloca_scope.return %s : f32
  }
  return %r : f32
}
