// A 256x256x256 GEMM on the tensor cores as sm_80 code does it: 4x4 CTAs
// of 4 warps, each CTA a 64x64 tile of C, K steps of 16 staged into shared
// memory by cp.async, operands loaded by ldmatrix (A: x4, B: x2.trans) and
// multiplied by mma.sync m16n8k16 (each warp 32x32: 2x4 mma tiles). Every
// element is checked against the host's product (small integers: exact).
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   --stats=%t.json --check-races | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json

// CHECK: gemm errors 0

// STATS: "name": "gemm"
// STATS: "nvgpu.mma.sync": {
// STATS-NEXT: "issues": 8192,

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @gemm(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>)
        workgroup(%sA : memref<64x16xf16, #gpu.address_space<workgroup>>,
                  %sB : memref<16x64xf16, #gpu.address_space<workgroup>>)
        private(%acc : memref<8x4xf32, #gpu.address_space<private>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant dense<0.0> : vector<4xf32>
      %tid = gpu.thread_id x
      %lane = gpu.lane_id
      %warp = arith.divui %tid, %c32 : index
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row0 = arith.muli %by, %c64 : index
      %col0 = arith.muli %bx, %c64 : index
      %wmi = arith.divui %warp, %c2 : index
      %wni = arith.remui %warp, %c2 : index
      %wm = arith.muli %wmi, %c32 : index
      %wn = arith.muli %wni, %c32 : index
      scf.for %i = %c0 to %c8 step %c1 {
        vector.store %zero, %acc[%i, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
      }
      // cp.async staging: 16 bytes of A (row t/2, column (t%2)*8) and of B
      // (row t/8, column (t%8)*8) per thread.
      %ar = arith.divui %tid, %c2 : index
      %ah = arith.remui %tid, %c2 : index
      %ac = arith.muli %ah, %c8 : index
      %br = arith.divui %tid, %c8 : index
      %bh = arith.remui %tid, %c8 : index
      %bc = arith.muli %bh, %c8 : index
      %gar = arith.addi %row0, %ar : index
      %gbc = arith.addi %col0, %bc : index
      // ldmatrix addresses.
      %l8 = arith.remui %lane, %c8 : index
      %lm = arith.divui %lane, %c8 : index
      %lmo = arith.remui %lm, %c2 : index
      %lmo8 = arith.muli %lmo, %c8 : index
      %arow = arith.addi %l8, %lmo8 : index
      %lh = arith.divui %lane, %c16 : index
      %acol = arith.muli %lh, %c8 : index
      %brow = arith.remui %lane, %c16 : index
      scf.for %k0 = %c0 to %c256 step %c16 {
        %gac = arith.addi %k0, %ac : index
        %t0 = nvgpu.device_async_copy %A[%gar, %gac], %sA[%ar, %ac], 8 {bypassL1}
            : memref<256x256xf16> to memref<64x16xf16, #gpu.address_space<workgroup>>
        %gbr = arith.addi %k0, %br : index
        %t1 = nvgpu.device_async_copy %B[%gbr, %gbc], %sB[%br, %bc], 8 {bypassL1}
            : memref<256x256xf16> to memref<16x64xf16, #gpu.address_space<workgroup>>
        %g = nvgpu.device_async_create_group %t0, %t1
        nvgpu.device_async_wait %g {numGroups = 0 : i32}
        gpu.barrier
        scf.for %mi = %c0 to %c2 step %c1 {
          %m16 = arith.muli %mi, %c16 : index
          %r0 = arith.addi %wm, %m16 : index
          %r = arith.addi %r0, %arow : index
          %a = nvgpu.ldmatrix %sA[%r, %acol] {numTiles = 4 : i32, transpose = false}
              : memref<64x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
          scf.for %ni = %c0 to %c4 step %c1 {
            %n8 = arith.muli %ni, %c8 : index
            %bcol = arith.addi %wn, %n8 : index
            %b = nvgpu.ldmatrix %sB[%brow, %bcol] {numTiles = 2 : i32, transpose = true}
                : memref<16x64xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
            %mi4 = arith.muli %mi, %c4 : index
            %at = arith.addi %mi4, %ni : index
            %cv = vector.load %acc[%at, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
            %c = vector.shape_cast %cv : vector<4xf32> to vector<2x2xf32>
            %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]}
                : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
            %dv = vector.shape_cast %d : vector<2x2xf32> to vector<4xf32>
            vector.store %dv, %acc[%at, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
          }
        }
        gpu.barrier
      }
      %g4 = arith.divui %lane, %c4 : index
      %t4 = arith.remui %lane, %c4 : index
      %t2 = arith.muli %t4, %c2 : index
      scf.for %mi = %c0 to %c2 step %c1 {
        scf.for %ni = %c0 to %c4 step %c1 {
          %mi4 = arith.muli %mi, %c4 : index
          %at = arith.addi %mi4, %ni : index
          %cv = vector.load %acc[%at, %c0] : memref<8x4xf32, #gpu.address_space<private>>, vector<4xf32>
          %lo = vector.extract_strided_slice %cv {offsets = [0], sizes = [2], strides = [1]} : vector<4xf32> to vector<2xf32>
          %hi = vector.extract_strided_slice %cv {offsets = [2], sizes = [2], strides = [1]} : vector<4xf32> to vector<2xf32>
          %m16 = arith.muli %mi, %c16 : index
          %n8 = arith.muli %ni, %c8 : index
          %r1 = arith.addi %row0, %wm : index
          %r2 = arith.addi %r1, %m16 : index
          %r = arith.addi %r2, %g4 : index
          %r8 = arith.addi %r, %c8 : index
          %k1 = arith.addi %col0, %wn : index
          %k2 = arith.addi %k1, %n8 : index
          %k = arith.addi %k2, %t2 : index
          vector.store %lo, %C[%r, %k] : memref<256x256xf32>, vector<2xf32>
          vector.store %hi, %C[%r8, %k] : memref<256x256xf32>, vector<2xf32>
        }
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
    %Ah = memref.alloc() : memref<256x256xf16>
    %Bh = memref.alloc() : memref<256x256xf16>
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c256 step %c1 {
        %a = memref.load %A[%i, %j] : memref<256x256xf32>
        %ah = arith.truncf %a : f32 to f16
        memref.store %ah, %Ah[%i, %j] : memref<256x256xf16>
        %b = memref.load %B[%i, %j] : memref<256x256xf32>
        %bh = arith.truncf %b : f32 to f16
        memref.store %bh, %Bh[%i, %j] : memref<256x256xf16>
      }
    }
    gpu.launch_func @kernels::@gemm blocks in (%c4, %c4, %c1) threads in (%c128, %c1, %c1)
        args(%Ah : memref<256x256xf16>, %Bh : memref<256x256xf16>, %C : memref<256x256xf32>)
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
