// tcgen05.ld / st move x1..x128 registers per thread, powers of 2 only: a
// tmem tile whose rows are 48 or 80 columns wide moves in pieces (48 =
// 32 + 16, 80 = 64 + 16), each at its column offset in the TMEM address.
// Three tiles share the allocation (columns 0, 48 and 128): a 128x48 and a
// 128x80 tile filled by tcgen05.cp from distinct values, a 128x80 tile
// filled by tcgen05.st between them; all three are loaded to registers and
// stored to global memory, every element checked (a piece at a wrong
// offset would read or clobber a neighbouring tile). The CPU target has no
// tensor memory; the reference is the copied source.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_100a | FileCheck %s --check-prefix=NVVM
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_100a \
// RUN:   | axe-gpu-run -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

// CHECK: 48 columns mismatches: 0
// CHECK-NEXT: filled 80 columns mismatches: 0
// CHECK-NEXT: 80 columns mismatches: 0

// NVVM-LABEL: gpu.func @k_kernel
// The fill of the 80-column tile (base + 48), then the loads.
// NVVM-DAG: nvvm.tcgen05.st {{.*}} : vector<64xi32>
// NVVM-DAG: nvvm.tcgen05.st {{.*}} : vector<16xi32>
// NVVM: nvvm.tcgen05.ld {{.*}} : vector<32xi32>
// NVVM: nvvm.tcgen05.ld {{.*}} : vector<16xi32>
// NVVM: nvvm.tcgen05.ld {{.*}} : vector<64xi32>
// NVVM: nvvm.tcgen05.ld {{.*}} : vector<16xi32>
// NVVM: nvvm.tcgen05.ld {{.*}} : vector<64xi32>
// NVVM: nvvm.tcgen05.ld {{.*}} : vector<16xi32>
// NVVM-NOT: vector<48xi32>
// NVVM-NOT: vector<80xi32>

!g48 = !axe.buffer<128x48xf32, #axe.layout<S[(128, 48) : (48, 1)]>, global>
!g80 = !axe.buffer<128x80xf32, #axe.layout<S[(128, 80) : (80, 1)]>, global>
// K-major 8x4 core matrices, as tcgen05.cp reads them.
!s48 = !axe.buffer<128x48xf32, #axe.layout<S[(16, 8, 12, 4) : (384, 4, 32, 1)]>, shared>
!s80 = !axe.buffer<128x80xf32, #axe.layout<S[(16, 8, 20, 4) : (640, 4, 32, 1)]>, shared>
!t48 = !axe.buffer<128x48xf32, #axe.layout<S[(128, 48) : (1@TLane, 1@TCol)]>, tmem>
!t80 = !axe.buffer<128x80xf32, #axe.layout<S[(128, 80) : (1@TLane, 1@TCol)]>, tmem>
!r48 = !axe.buffer<128x48xf32, #axe.layout<S[(128, 48) : (1@tid_in_wg, 1)]>, reg>
!r80 = !axe.buffer<128x80xf32, #axe.layout<S[(128, 80) : (1@tid_in_wg, 1)]>, reg>

module attributes {axe.target = #axe.target<"sm_100a">} {
  func.func @k(%A48: memref<128x48xf32>, %A80: memref<128x80xf32>,
               %B48: memref<128x48xf32>, %F80: memref<128x80xf32>,
               %B80: memref<128x80xf32>) {
    axe.kernel grid [1] threads 128 {
      %t48 = axe.alloc : !t48
      %tf = axe.alloc : !t80
      %t80 = axe.alloc : !t80
      %a48 = axe.view %A48[0, 0] : memref<128x48xf32> -> !g48
      %a80 = axe.view %A80[0, 0] : memref<128x80xf32> -> !g80
      %s48 = axe.alloc : !s48
      %s80 = axe.alloc : !s80
      axe.copy %a48 to %s48 at cta : !g48 to !s48
      axe.copy %a80 to %s80 at cta : !g80 to !s80
      axe.barrier at cta
      axe.copy %s48 to %t48 at warpgroup : !s48 to !t48
      axe.copy %s80 to %t80 at warpgroup : !s80 to !t80
      %five = arith.constant 5.0 : f32
      axe.fill %tf, %five at warpgroup : !t80
      %r48 = axe.alloc : !r48
      %rf = axe.alloc : !r80
      %r80 = axe.alloc : !r80
      axe.copy %t48 to %r48 at warpgroup : !t48 to !r48
      axe.copy %tf to %rf at warpgroup : !t80 to !r80
      axe.copy %t80 to %r80 at warpgroup : !t80 to !r80
      %b48 = axe.view %B48[0, 0] : memref<128x48xf32> -> !g48
      %f80 = axe.view %F80[0, 0] : memref<128x80xf32> -> !g80
      %b80 = axe.view %B80[0, 0] : memref<128x80xf32> -> !g80
      axe.copy %r48 to %b48 at warpgroup : !r48 to !g48
      axe.copy %rf to %f80 at warpgroup : !r80 to !g80
      axe.copy %r80 to %b80 at warpgroup : !r80 to !g80
    }
    return
  }

  // Fills `a` with `base` + 1000 i + j (and `b` with -1) when `base` is
  // nonnegative, else counts the elements of `b` that differ from `a`.
  func.func @pattern(%a: memref<128x?xf32>, %b: memref<128x?xf32>, %base: i64) -> i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %minus = arith.constant -1.0 : f32
    %n = memref.dim %a, %c1 : memref<128x?xf32>
    %fill = arith.cmpi sge, %base, %zero : i64
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (i64) {
      %row = scf.for %j = %c0 to %n step %c1 iter_args(%m = %acc) -> (i64) {
        %r = scf.if %fill -> (i64) {
          %k = arith.muli %i, %c1000 : index
          %l = arith.addi %k, %j : index
          %li = arith.index_cast %l : index to i64
          %lb = arith.addi %li, %base : i64
          %v = arith.sitofp %lb : i64 to f32
          memref.store %v, %a[%i, %j] : memref<128x?xf32>
          memref.store %minus, %b[%i, %j] : memref<128x?xf32>
          scf.yield %m : i64
        } else {
          %x = memref.load %a[%i, %j] : memref<128x?xf32>
          %y = memref.load %b[%i, %j] : memref<128x?xf32>
          %ne = arith.cmpf une, %x, %y : f32
          %inc = arith.select %ne, %one, %zero : i64
          %m2 = arith.addi %m, %inc : i64
          scf.yield %m2 : i64
        }
        scf.yield %r : i64
      }
      scf.yield %row : i64
    }
    return %bad : i64
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c80 = arith.constant 80 : index
    %check = arith.constant -1 : i64
    %base48 = arith.constant 0 : i64
    %base80 = arith.constant 500000 : i64
    %five = arith.constant 5.0 : f32
    %A48 = memref.alloc() : memref<128x48xf32>
    %A80 = memref.alloc() : memref<128x80xf32>
    %B48 = memref.alloc() : memref<128x48xf32>
    %F80 = memref.alloc() : memref<128x80xf32>
    %B80 = memref.alloc() : memref<128x80xf32>
    %R80 = memref.alloc() : memref<128x80xf32>
    %a48 = memref.cast %A48 : memref<128x48xf32> to memref<128x?xf32>
    %a80 = memref.cast %A80 : memref<128x80xf32> to memref<128x?xf32>
    %b48 = memref.cast %B48 : memref<128x48xf32> to memref<128x?xf32>
    %f80 = memref.cast %F80 : memref<128x80xf32> to memref<128x?xf32>
    %b80 = memref.cast %B80 : memref<128x80xf32> to memref<128x?xf32>
    %r80 = memref.cast %R80 : memref<128x80xf32> to memref<128x?xf32>
    %u0 = call @pattern(%a48, %b48, %base48) : (memref<128x?xf32>, memref<128x?xf32>, i64) -> i64
    %u1 = call @pattern(%a80, %b80, %base80) : (memref<128x?xf32>, memref<128x?xf32>, i64) -> i64
    %u2 = call @pattern(%r80, %f80, %base48) : (memref<128x?xf32>, memref<128x?xf32>, i64) -> i64
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c80 step %c1 {
        memref.store %five, %R80[%i, %j] : memref<128x80xf32>
      }
    }
    func.call @k(%A48, %A80, %B48, %F80, %B80)
        : (memref<128x48xf32>, memref<128x80xf32>, memref<128x48xf32>,
           memref<128x80xf32>, memref<128x80xf32>) -> ()
    %e48 = call @pattern(%a48, %b48, %check) : (memref<128x?xf32>, memref<128x?xf32>, i64) -> i64
    %ef = call @pattern(%r80, %f80, %check) : (memref<128x?xf32>, memref<128x?xf32>, i64) -> i64
    %e80 = call @pattern(%a80, %b80, %check) : (memref<128x?xf32>, memref<128x?xf32>, i64) -> i64
    vector.print str "48 columns mismatches: "
    vector.print %e48 : i64
    vector.print str "filled 80 columns mismatches: "
    vector.print %ef : i64
    vector.print str "80 columns mismatches: "
    vector.print %e80 : i64
    return
  }
}
