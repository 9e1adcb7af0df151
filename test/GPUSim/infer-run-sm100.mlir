// Tensor memory with every on-chip layout inferred: a 128x64 f32 tile goes
// global -> shared (two columns of 128B swizzle atoms, as tcgen05.cp's
// descriptors read them) -> TMEM (data path D) -> registers (tcgen05.ld's
// row per thread) -> global, races checked and every element compared.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_100a \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races --stats=%t.json \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: tmem moves mismatches: 0

// Eight tcgen05.cp.128x256b (8 columns each), one tcgen05.ld per warp.
// STATS: "nvvm.tcgen05.cp": {
// STATS-NEXT: "issues": 8,
// STATS: "nvvm.tcgen05.ld": {
// STATS-NEXT: "issues": 4,
// STATS: "bank_conflicts": 0

!g = !axe.buffer<128x64xf32, #axe.layout<S[(128, 64) : (64, 1)]>, global>

module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @tmem_moves(%X: memref<128x64xf32>, %Y: memref<128x64xf32>) {
    axe.kernel grid [1] threads 128 {
      %s = axe.alloc : !axe.buffer<128x64xf32, ?, shared>
      %t = axe.alloc : !axe.buffer<128x64xf32, ?, tmem>
      %r = axe.alloc : !axe.buffer<128x64xf32, ?, reg>
      %gx = axe.view %X[0, 0] : memref<128x64xf32> -> !g
      %gy = axe.view %Y[0, 0] : memref<128x64xf32> -> !g
      axe.copy %gx to %s at warpgroup : !g to !axe.buffer<128x64xf32, ?, shared>
      axe.barrier at cta
      axe.copy %s to %t at warpgroup
          : !axe.buffer<128x64xf32, ?, shared> to !axe.buffer<128x64xf32, ?, tmem>
      axe.copy %t to %r at warpgroup
          : !axe.buffer<128x64xf32, ?, tmem> to !axe.buffer<128x64xf32, ?, reg>
      axe.copy %r to %gy at warpgroup : !axe.buffer<128x64xf32, ?, reg> to !g
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %minus = arith.constant -1.0 : f32
    %X = memref.alloc() : memref<128x64xf32>
    %Y = memref.alloc() : memref<128x64xf32>
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %k = arith.muli %i, %c64 : index
        %l = arith.addi %k, %j : index
        %li = arith.index_cast %l : index to i64
        %v = arith.sitofp %li : i64 to f32
        memref.store %v, %X[%i, %j] : memref<128x64xf32>
        memref.store %minus, %Y[%i, %j] : memref<128x64xf32>
      }
    }
    func.call @tmem_moves(%X, %Y) : (memref<128x64xf32>, memref<128x64xf32>) -> ()
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%n = %zero) -> (i64) {
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%m = %n) -> (i64) {
        %x = memref.load %X[%i, %j] : memref<128x64xf32>
        %y = memref.load %Y[%i, %j] : memref<128x64xf32>
        %ne = arith.cmpf une, %x, %y : f32
        %inc = arith.select %ne, %one, %zero : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    vector.print str "tmem moves mismatches: "
    vector.print %bad : i64
    memref.dealloc %X : memref<128x64xf32>
    memref.dealloc %Y : memref<128x64xf32>
    return
  }
}
