// CTA 0 stores 32 floats and releases a flag; CTA 1 waits for the flag
// with an acquire load and reads them. The interpreter runs CTA 0 first
// either way, so the numbers are right even without the flag: what it
// checks (races checked by default) is the order between the CTAs.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// CHECK: sum = 32

// Without the release fence, the relaxed add publishes nothing:
// RUN: sed '/RELEASE/d' %s | not axe-gpu-run - -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=RACE
// A relaxed load in place of the acquire one acquires nothing:
// RUN: sed 's/atomic syncscope("device") acquire/atomic syncscope("device") monotonic/' %s \
// RUN:   | not axe-gpu-run - -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=RACE
// ... unless an acquire fence follows it:
// RUN: sed 's/atomic syncscope("device") acquire/atomic syncscope("device") monotonic/; s|// ACQUIRE-FENCE|llvm.fence syncscope("device") acquire|' %s \
// RUN:   | axe-gpu-run - -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s
// A fence at CTA scope orders nothing between CTAs:
// RUN: sed 's/llvm.fence syncscope("device") release/llvm.fence syncscope("block") release/' %s \
// RUN:   | not axe-gpu-run - -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=RACE
// No flag at all:
// RUN: sed '/FLAG/d' %s | not axe-gpu-run - -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=RACE
// RACE: block (1, 0, 0), warp 0, thread (0, 0, 0) (lane 0): data race between CTAs (read after write) on byte 0 of argument 0 (global memory): CTA (0, 0, 0) wrote it, and this CTA has not acquired a flag released after that write
// RACE-NOT: sum =
// Waiting for a flag that only a later CTA sets spins forever; reported:
// RUN: sed 's/%c0_i32 = arith.constant 0 : i32/%c0_i32 = arith.constant 1 : i32/' %s \
// RUN:   | not axe-gpu-run - -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=SPIN
// SPIN: block (0, 0, 0), warp 0, thread (0, 0, 0) (lane 0): spins on byte 0 of argument 1, which holds 0 and which no running thread can change

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @k(%a: memref<32xf32>, %flag: memref<1xi32>, %out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      %base = memref.extract_aligned_pointer_as_index %flag : memref<1xi32> -> index
      %base64 = arith.index_cast %base : index to i64
      %p = llvm.inttoptr %base64 : i64 to !llvm.ptr<1>
      %bid32 = arith.index_cast %bid : index to i32
      %writer = arith.cmpi eq, %bid32, %c0_i32 : i32
      scf.if %writer {
        %f = arith.constant 1.0 : f32
        memref.store %f, %a[%tid] : memref<32xf32>
        gpu.barrier
        scf.if %first {
          llvm.fence syncscope("device") release // RELEASE
          %old = llvm.atomicrmw add %p, %c1_i32 syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, i32 // FLAG
        }
      } else {
        scf.if %first {
          scf.while : () -> () { // FLAG
            %v = llvm.load %p atomic syncscope("device") acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32 // FLAG
            %wait = arith.cmpi slt, %v, %c1_i32 : i32 // FLAG
            scf.condition(%wait) // FLAG
          } do { // FLAG
            scf.yield // FLAG
          } // FLAG
          // ACQUIRE-FENCE
        }
        gpu.barrier
        %x = memref.load %a[%tid] : memref<32xf32>
        scf.if %first {
          memref.store %x, %out[%c0] : memref<1xf32>
        }
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %z = arith.constant 0 : i32
    %a = memref.alloc() : memref<32xf32>
    %flag = memref.alloc() : memref<1xi32>
    %out = memref.alloc() : memref<1xf32>
    memref.store %z, %flag[%c0] : memref<1xi32>
    gpu.launch_func @kernels::@k blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%a : memref<32xf32>, %flag : memref<1xi32>, %out : memref<1xf32>)
    %r = memref.load %out[%c0] : memref<1xf32>
    %n = arith.constant 32.0 : f32
    %s = arith.mulf %r, %n : f32
    vector.print str "sum = "
    vector.print %s : f32
    return
  }
}
