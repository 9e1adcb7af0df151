// The 'tcgen05.cp' copy schedule (shared -> tmem) and 'tcgen05.ld' (tmem ->
// registers) for sm_100a: a 128x32 f32 tile goes global -> shared (128B
// swizzled, and unswizzled) -> TMEM -> registers -> global, every element
// checked. tcgen05.cp moves 128 rows of 32 bytes (8 columns) per
// instruction from a descriptor of the shared atoms.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_100a \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_100a | FileCheck %s --check-prefix=NVVM
// RUN: axe-opt %s --axe-to-ptx=chip=sm_100a -o %t.mlir
// RUN: %if ptxas %{ %check_ptxas %t.mlir --arch sm_100a %}

// CHECK: swizzled mismatches: 0
// CHECK: plain mismatches: 0

// NVVM-LABEL: gpu.func @swizzled_kernel
// NVVM-COUNT-4: nvvm.tcgen05.cp
// NVVM: nvvm.tcgen05.commit
// NVVM: nvvm.tcgen05.ld

!g = !axe.buffer<128x32xf32, #axe.layout<S[(128, 32) : (32, 1)]>, global>
!sw = !axe.buffer<128x32xf32, #axe.layout<SW(2, 3, 3) o S[(128, 32) : (32, 1)]>, shared>
// 8x4 core matrices (16-byte rows): K-major, the matrices along K 32
// elements apart, the 8-row groups 256 apart.
!core = !axe.buffer<128x32xf32, #axe.layout<S[(16, 8, 8, 4) : (256, 4, 32, 1)]>, shared>
!t = !axe.buffer<128x32xf32, #axe.layout<S[(128, 32) : (1@TLane, 1@TCol)]>, tmem>
!r = !axe.buffer<128x32xf32, #axe.layout<S[(128, 32) : (1@tid_in_wg, 1)]>, reg>

module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @swizzled(%A: memref<128x32xf32>, %B: memref<128x32xf32>) {
    axe.kernel grid [1] threads 128 {
      %a = axe.view %A[0, 0] : memref<128x32xf32> -> !g
      %s = axe.alloc : !sw
      axe.copy %a to %s at cta : !g to !sw
      axe.barrier at cta
      %t = axe.alloc : !t
      axe.copy %s to %t at warpgroup : !sw to !t
      %r = axe.alloc : !r
      axe.copy %t to %r at warpgroup : !t to !r
      %b = axe.view %B[0, 0] : memref<128x32xf32> -> !g
      axe.copy %r to %b at warpgroup : !r to !g
    }
    return
  }

  func.func @plain(%A: memref<128x32xf32>, %B: memref<128x32xf32>) {
    axe.kernel grid [1] threads 128 {
      %a = axe.view %A[0, 0] : memref<128x32xf32> -> !g
      %s = axe.alloc : !core
      axe.copy %a to %s at cta : !g to !core
      axe.barrier at cta
      %t = axe.alloc : !t
      axe.copy %s to %t at warpgroup : !core to !t
      %r = axe.alloc : !r
      axe.copy %t to %r at warpgroup : !t to !r
      %b = axe.view %B[0, 0] : memref<128x32xf32> -> !g
      axe.copy %r to %b at warpgroup : !r to !g
    }
    return
  }

  func.func @run(%name: index) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %minus = arith.constant -1.0 : f32
    %A = memref.alloc() : memref<128x32xf32>
    %B = memref.alloc() : memref<128x32xf32>
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %k = arith.muli %i, %c32 : index
        %l = arith.addi %k, %j : index
        %li = arith.index_cast %l : index to i64
        %v = arith.sitofp %li : i64 to f32
        memref.store %v, %A[%i, %j] : memref<128x32xf32>
        memref.store %minus, %B[%i, %j] : memref<128x32xf32>
      }
    }
    %sw = arith.cmpi eq, %name, %c0 : index
    scf.if %sw {
      func.call @swizzled(%A, %B) : (memref<128x32xf32>, memref<128x32xf32>) -> ()
    } else {
      func.call @plain(%A, %B) : (memref<128x32xf32>, memref<128x32xf32>) -> ()
    }
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%n = %zero) -> (i64) {
      %row = scf.for %j = %c0 to %c32 step %c1 iter_args(%m = %n) -> (i64) {
        %x = memref.load %A[%i, %j] : memref<128x32xf32>
        %y = memref.load %B[%i, %j] : memref<128x32xf32>
        %ne = arith.cmpf une, %x, %y : f32
        %inc = arith.select %ne, %one, %zero : i64
        %m2 = arith.addi %m, %inc : i64
        scf.yield %m2 : i64
      }
      scf.yield %row : i64
    }
    memref.dealloc %A : memref<128x32xf32>
    memref.dealloc %B : memref<128x32xf32>
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = call @run(%c0) : (index) -> i64
    vector.print str "swizzled mismatches: "
    vector.print %s : i64
    %p = call @run(%c1) : (index) -> i64
    vector.print str "plain mismatches: "
    vector.print %p : i64
    return
  }
}
