// The simulator's integer arithmetic on the values that steer a kernel
// (loop bounds, offsets): unsigned division reads the type's bits as
// unsigned, and a signed division that overflows is an error, not a trap
// of the simulator itself.
// RUN: axe-trn-sim %s --kernel=divui | FileCheck %s --check-prefix=DIVUI
// RUN: not axe-trn-sim %s --kernel=divsi_overflow 2>&1 | FileCheck %s --check-prefix=DIVSI
// RUN: not axe-trn-sim %s --kernel=remsi_overflow 2>&1 | FileCheck %s --check-prefix=REMSI

// 0xFFFFFFFF / 2^30 = 3 unsigned (0 signed): three copies.
// DIVUI: kernel divui: 3 instructions
func.func @divui(%h: memref<128x8xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : i32
  %c2 = arith.constant 1073741824 : i32
  %q = arith.divui %m1, %c2 : i32
  %qi = arith.index_cast %q : i32 to index
  %t = trn.alloc : memref<128x8xf32, #trn.space<sbuf>>
  scf.for %i = %c0 to %qi step %c1 {
    trn.dma_copy %h to %t : memref<128x8xf32, #trn.space<hbm>> to memref<128x8xf32, #trn.space<sbuf>>
  }
  return
}

// DIVSI: error: trn-sim: 'arith.divsi' of the type's minimum -9223372036854775808 by -1 overflows i64
func.func @divsi_overflow(%h: memref<128x8xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  %min = arith.constant -9223372036854775808 : i64
  %m1 = arith.constant -1 : i64
  %q = arith.divsi %min, %m1 : i64
  return
}

// REMSI: error: trn-sim: 'arith.remsi' of the type's minimum -2147483648 by -1 overflows i32
func.func @remsi_overflow(%h: memref<128x8xf32, #trn.space<hbm>>) attributes {trn.kernel} {
  %min = arith.constant -2147483648 : i32
  %m1 = arith.constant -1 : i32
  %q = arith.remsi %min, %m1 : i32
  return
}
