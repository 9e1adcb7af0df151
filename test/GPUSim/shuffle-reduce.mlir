// Warp reductions: a gpu.shuffle xor butterfly, an nvvm.shfl.sync down
// tree, a ballot and a redux.sync, in two warps.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s

// Warp 0 holds 0..31 (sum 496), warp 1 holds 32..63 (sum 1520); the
// ballot of odd lanes is 0xaaaaaaaa; redux adds the lane ids (496); the
// shuffle up by 1 with valid flags leaves lane 0 alone.
// CHECK:      ( 496, 496, -1431655766, 496, 1, 30 )
// CHECK-NEXT: ( 1520, 1520, -1431655766, 496, 1, 62 )

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @reduce(%x: memref<64xf32>, %out: memref<2x6xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c32 = arith.constant 32 : index
      %w32 = arith.constant 32 : i32
      %full = arith.constant -1 : i32
      %clamp = arith.constant 31 : i32
      %one = arith.constant 1 : i32
      %tid = gpu.thread_id x
      %lane = gpu.lane_id
      %warp = arith.divui %tid, %c32 : index
      %v = memref.load %x[%tid] : memref<64xf32>
      // Butterfly: every lane ends with the sum.
      %sum = scf.for %s = %c0 to %c5 step %c1 iter_args(%acc = %v) -> (f32) {
        %sh = arith.index_cast %s : index to i32
        %sixteen = arith.constant 16 : i32
        %off = arith.shrui %sixteen, %sh : i32
        %o, %ok = gpu.shuffle xor %acc, %off, %w32 : f32
        %n = arith.addf %acc, %o : f32
        scf.yield %n : f32
      }
      // Down tree: lane 0 ends with the sum.
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %d16 = nvvm.shfl.sync down %full, %v, %o16, %clamp : f32 -> f32
      %a16 = arith.addf %v, %d16 : f32
      %d8 = nvvm.shfl.sync down %full, %a16, %o8, %clamp : f32 -> f32
      %a8 = arith.addf %a16, %d8 : f32
      %d4 = nvvm.shfl.sync down %full, %a8, %o4, %clamp : f32 -> f32
      %a4 = arith.addf %a8, %d4 : f32
      %d2 = nvvm.shfl.sync down %full, %a4, %o2, %clamp : f32 -> f32
      %a2 = arith.addf %a4, %d2 : f32
      %d1 = nvvm.shfl.sync down %full, %a2, %one, %clamp : f32 -> f32
      %a1 = arith.addf %a2, %d1 : f32
      %lane32 = arith.index_cast %lane : index to i32
      %bit = arith.andi %lane32, %one : i32
      %odd = arith.cmpi eq, %bit, %one : i32
      %ballot = nvvm.vote.sync ballot %full, %odd -> i32
      %redux = nvvm.redux.sync add %lane32, %full : i32 -> i32
      // Shuffle up by one: lane 0 has no source and keeps its value.
      %upv, %upok = gpu.shuffle up %v, %one, %w32 : f32
      %upok32 = arith.extui %upok : i1 to i32
      %upi = arith.fptosi %upv : f32 to i32
      %is0 = arith.cmpi eq, %lane, %c0 : index
      scf.if %is0 {
        %s32 = arith.fptosi %sum : f32 to i32
        %t32 = arith.fptosi %a1 : f32 to i32
        memref.store %s32, %out[%warp, %c0] : memref<2x6xi32>
        memref.store %t32, %out[%warp, %c1] : memref<2x6xi32>
        memref.store %ballot, %out[%warp, %c2] : memref<2x6xi32>
        memref.store %redux, %out[%warp, %c3] : memref<2x6xi32>
      }
      %l31 = arith.constant 31 : index
      %is_last = arith.cmpi eq, %lane, %l31 : index
      scf.if %is_last {
        memref.store %upok32, %out[%warp, %c4] : memref<2x6xi32>
        memref.store %upi, %out[%warp, %c5] : memref<2x6xi32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %x = memref.alloc() : memref<64xf32>
    %out = memref.alloc() : memref<2x6xi32>
    scf.for %i = %c0 to %c64 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %x[%i] : memref<64xf32>
    }
    gpu.launch_func @kernels::@reduce blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%x : memref<64xf32>, %out : memref<2x6xi32>)
    scf.for %w = %c0 to %c2 step %c1 {
      %c0i = arith.constant 0 : i32
      %row = vector.transfer_read %out[%w, %c0], %c0i : memref<2x6xi32>, vector<6xi32>
      vector.print %row : vector<6xi32>
    }
    return
  }
}
