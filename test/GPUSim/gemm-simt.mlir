// A 256x256x256 f32 GEMM in the SIMT style: 4x4 CTAs of 128 threads, each
// CTA a 64x64 tile of C staged through shared memory in K steps of 16 with
// barriers, each thread 8x4 outputs accumulated in private memory. Every
// element is checked against the host's product (small integers: exact).
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: gemm errors 0

// STATS: "name": "gemm"
// STATS: "ctas": 16,
// STATS: "warps": 64,

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @gemm(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>)
        workgroup(%sA : memref<64x16xf32, #gpu.address_space<workgroup>>,
                  %sB : memref<16x64xf32, #gpu.address_space<workgroup>>)
        private(%acc : memref<8x4xf32, #gpu.address_space<private>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row0 = arith.muli %by, %c64 : index
      %col0 = arith.muli %bx, %c64 : index
      %tx = arith.remui %tid, %c16 : index
      %ty = arith.divui %tid, %c16 : index
      %tc = arith.muli %tx, %c4 : index
      %tr = arith.muli %ty, %c8 : index
      scf.for %i = %c0 to %c8 step %c1 {
        vector.store %zero, %acc[%i, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
      }
      // Staging: thread t copies row t/2, 8 columns from (t%2)*8 of the A
      // tile, and row t/8, 8 columns from (t%8)*8 of the B tile.
      %c2 = arith.constant 2 : index
      %ar = arith.divui %tid, %c2 : index
      %ah = arith.remui %tid, %c2 : index
      %ac = arith.muli %ah, %c8 : index
      %br = arith.divui %tid, %c8 : index
      %bh = arith.remui %tid, %c8 : index
      %bc = arith.muli %bh, %c8 : index
      %gar = arith.addi %row0, %ar : index
      %gbc = arith.addi %col0, %bc : index
      scf.for %k0 = %c0 to %c256 step %c16 {
        %gac = arith.addi %k0, %ac : index
        %va = vector.load %A[%gar, %gac] : memref<256x256xf32>, vector<8xf32>
        vector.store %va, %sA[%ar, %ac] : memref<64x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        %gbr = arith.addi %k0, %br : index
        %vb = vector.load %B[%gbr, %gbc] : memref<256x256xf32>, vector<8xf32>
        vector.store %vb, %sB[%br, %bc] : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        gpu.barrier
        scf.for %kk = %c0 to %c16 step %c1 {
          %b = vector.load %sB[%kk, %tc] : memref<16x64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
          scf.for %i = %c0 to %c8 step %c1 {
            %r = arith.addi %tr, %i : index
            %a = memref.load %sA[%r, %kk] : memref<64x16xf32, #gpu.address_space<workgroup>>
            %av = vector.broadcast %a : f32 to vector<4xf32>
            %old = vector.load %acc[%i, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
            %new = vector.fma %av, %b, %old : vector<4xf32>
            vector.store %new, %acc[%i, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
          }
        }
        gpu.barrier
      }
      %gc = arith.addi %col0, %tc : index
      scf.for %i = %c0 to %c8 step %c1 {
        %r = arith.addi %tr, %i : index
        %gr = arith.addi %row0, %r : index
        %v = vector.load %acc[%i, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
        vector.store %v, %C[%gr, %gc] : memref<256x256xf32>, vector<4xf32>
      }
      gpu.return
    }
  }

  // m[i][j] = (i * p + j * q) mod 7 - 3
  func.func @fill(%m: memref<256x256xf32>, %p: index, %q: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c256 = arith.constant 256 : index
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %x = arith.muli %i, %p : index
        %y = arith.muli %j, %q : index
        %s = arith.addi %x, %y : index
        %m7 = arith.remui %s, %c7 : index
        %v = arith.subi %m7, %c3 : index
        %vi = arith.index_cast %v : index to i32
        %f = arith.sitofp %vi : i32 to f32
        memref.store %f, %m[%i, %j] : memref<256x256xf32>
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %A = memref.alloc() : memref<256x256xf32>
    %B = memref.alloc() : memref<256x256xf32>
    %C = memref.alloc() : memref<256x256xf32>
    func.call @fill(%A, %c2, %c3) : (memref<256x256xf32>, index, index) -> ()
    func.call @fill(%B, %c5, %c1) : (memref<256x256xf32>, index, index) -> ()
    gpu.launch_func @kernels::@gemm blocks in (%c4, %c4, %c1) threads in (%c128, %c1, %c1)
        args(%A : memref<256x256xf32>, %B : memref<256x256xf32>, %C : memref<256x256xf32>)
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %f0 = arith.constant 0.0 : f32
    %errors = scf.for %i = %c0 to %c256 step %c1 iter_args(%e = %zero) -> (i64) {
      %e2 = scf.for %j = %c0 to %c256 step %c1 iter_args(%ej = %e) -> (i64) {
        %want = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %f0) -> (f32) {
          %a = memref.load %A[%i, %k] : memref<256x256xf32>
          %b = memref.load %B[%k, %j] : memref<256x256xf32>
          %p = arith.mulf %a, %b : f32
          %s2 = arith.addf %acc, %p : f32
          scf.yield %s2 : f32
        }
        %got = memref.load %C[%i, %j] : memref<256x256xf32>
        %bad = arith.cmpf une, %got, %want : f32
        %n = arith.addi %ej, %one : i64
        %r = arith.select %bad, %n, %ej : i64
        scf.yield %r : i64
      }
      scf.yield %e2 : i64
    }
    vector.print str "gemm errors "
    vector.print %errors : i64
    return
  }
}
