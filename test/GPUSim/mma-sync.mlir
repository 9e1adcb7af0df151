// One nvgpu.mma.sync m16n8k16 (f16 x f16 + f32) by one warp, its operands
// gathered per lane from the PTX ISA's fragment figures and the result
// checked against the host's product (small integers: every sum is exact).
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: mma errors 0
// CHECK-NEXT: d[15][7] = [[D:-?[0-9]+]]

// STATS: "nvgpu.mma.sync": {
// STATS-NEXT: "issues": 1,
// STATS-NEXT: "lane_ops": 32

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @mma(%A: memref<16x16xf16>, %B: memref<16x8xf16>,
                  %C: memref<16x8xf32>, %D: memref<16x8xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %lane = gpu.lane_id
      %g = arith.divui %lane, %c4 : index
      %t = arith.remui %lane, %c4 : index
      %g8 = arith.addi %g, %c8 : index
      %t2 = arith.muli %t, %c2 : index
      %t21 = arith.addi %t2, %c1 : index
      %t28 = arith.addi %t2, %c8 : index
      %t29 = arith.addi %t21, %c8 : index
      // A: a0,a1 (g, 2t..2t+1), a2,a3 (g+8, ..), a4,a5 (g, 2t+8..), a6,a7 (g+8, 2t+8..)
      %a0 = memref.load %A[%g, %t2] : memref<16x16xf16>
      %a1 = memref.load %A[%g, %t21] : memref<16x16xf16>
      %a2 = memref.load %A[%g8, %t2] : memref<16x16xf16>
      %a3 = memref.load %A[%g8, %t21] : memref<16x16xf16>
      %a4 = memref.load %A[%g, %t28] : memref<16x16xf16>
      %a5 = memref.load %A[%g, %t29] : memref<16x16xf16>
      %a6 = memref.load %A[%g8, %t28] : memref<16x16xf16>
      %a7 = memref.load %A[%g8, %t29] : memref<16x16xf16>
      %a = vector.from_elements %a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7 : vector<4x2xf16>
      // B: b0,b1 (k = 2t..2t+1, n = g), b2,b3 (k = 2t+8.., n = g)
      %b0 = memref.load %B[%t2, %g] : memref<16x8xf16>
      %b1 = memref.load %B[%t21, %g] : memref<16x8xf16>
      %b2 = memref.load %B[%t28, %g] : memref<16x8xf16>
      %b3 = memref.load %B[%t29, %g] : memref<16x8xf16>
      %b = vector.from_elements %b0, %b1, %b2, %b3 : vector<2x2xf16>
      // C/D: c0,c1 (g, 2t..), c2,c3 (g+8, 2t..)
      %c0v = memref.load %C[%g, %t2] : memref<16x8xf32>
      %c1v = memref.load %C[%g, %t21] : memref<16x8xf32>
      %c2v = memref.load %C[%g8, %t2] : memref<16x8xf32>
      %c3v = memref.load %C[%g8, %t21] : memref<16x8xf32>
      %c = vector.from_elements %c0v, %c1v, %c2v, %c3v : vector<2x2xf32>
      %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
          : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
      %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
      %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
      %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
      memref.store %d0, %D[%g, %t2] : memref<16x8xf32>
      memref.store %d1, %D[%g, %t21] : memref<16x8xf32>
      memref.store %d2, %D[%g8, %t2] : memref<16x8xf32>
      memref.store %d3, %D[%g8, %t21] : memref<16x8xf32>
      gpu.return
    }
  }

  // Small integers from a seed: (i * p + j * q) mod 7 - 3.
  func.func @fill(%m: memref<?x?xf32>, %p: index, %q: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %r = memref.dim %m, %c0 : memref<?x?xf32>
    %cols = memref.dim %m, %c1 : memref<?x?xf32>
    scf.for %i = %c0 to %r step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %x = arith.muli %i, %p : index
        %y = arith.muli %j, %q : index
        %s = arith.addi %x, %y : index
        %m7 = arith.remui %s, %c7 : index
        %v = arith.subi %m7, %c3 : index
        %vi = arith.index_cast %v : index to i32
        %f = arith.sitofp %vi : i32 to f32
        memref.store %f, %m[%i, %j] : memref<?x?xf32>
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %Af = memref.alloc() : memref<16x16xf32>
    %Bf = memref.alloc() : memref<16x8xf32>
    %C = memref.alloc() : memref<16x8xf32>
    %D = memref.alloc() : memref<16x8xf32>
    %Afd = memref.cast %Af : memref<16x16xf32> to memref<?x?xf32>
    %Bfd = memref.cast %Bf : memref<16x8xf32> to memref<?x?xf32>
    %Cd = memref.cast %C : memref<16x8xf32> to memref<?x?xf32>
    func.call @fill(%Afd, %c2, %c3) : (memref<?x?xf32>, index, index) -> ()
    func.call @fill(%Bfd, %c5, %c1) : (memref<?x?xf32>, index, index) -> ()
    func.call @fill(%Cd, %c3, %c2) : (memref<?x?xf32>, index, index) -> ()
    %A = memref.alloc() : memref<16x16xf16>
    %B = memref.alloc() : memref<16x8xf16>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %v = memref.load %Af[%i, %j] : memref<16x16xf32>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %A[%i, %j] : memref<16x16xf16>
      }
      scf.for %j = %c0 to %c8 step %c1 {
        %v = memref.load %Bf[%i, %j] : memref<16x8xf32>
        %h = arith.truncf %v : f32 to f16
        memref.store %h, %B[%i, %j] : memref<16x8xf16>
      }
    }
    gpu.launch_func @kernels::@mma blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%A : memref<16x16xf16>, %B : memref<16x8xf16>, %C : memref<16x8xf32>, %D : memref<16x8xf32>)
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %errors = scf.for %i = %c0 to %c16 step %c1 iter_args(%e = %zero) -> (i64) {
      %e2 = scf.for %j = %c0 to %c8 step %c1 iter_args(%ej = %e) -> (i64) {
        %c = memref.load %C[%i, %j] : memref<16x8xf32>
        %want = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %c) -> (f32) {
          %a = memref.load %Af[%i, %k] : memref<16x16xf32>
          %b = memref.load %Bf[%k, %j] : memref<16x8xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %got = memref.load %D[%i, %j] : memref<16x8xf32>
        %bad = arith.cmpf une, %got, %want : f32
        %n = arith.addi %ej, %one : i64
        %r = arith.select %bad, %n, %ej : i64
        scf.yield %r : i64
      }
      scf.yield %e2 : i64
    }
    vector.print str "mma errors "
    vector.print %errors : i64
    %c15 = arith.constant 15 : index
    %c7 = arith.constant 7 : index
    %last = memref.load %D[%c15, %c7] : memref<16x8xf32>
    vector.print str "d[15][7] = "
    vector.print %last : f32
    return
  }
}
