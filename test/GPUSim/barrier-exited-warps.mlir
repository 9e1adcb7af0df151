// A barrier for all threads of the CTA that some warps never reach because
// they exited: the PTX ISA (`exit`) releases it once the exited threads are
// the only ones missing. Warp 1 skips to its end; warps 0 and 2 meet at
// bar.sync 0, then warp 0 reads what warp 2 wrote.
// RUN: axe-gpu-run %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s
// Warp 0 reads lane t of warp 2: 10 * (64 + t).
// CHECK: ( 640, 650, 660, 670 )
// CHECK: reached

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_80">] {
    gpu.func @k(%out: memref<32xf32>)
        workgroup(%s : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %lane = gpu.lane_id
      %w = arith.divui %tid, %c32 : index
      %busy = arith.cmpi ne, %w, %c1 : index
      scf.if %busy {
        %producer = arith.cmpi eq, %w, %c2 : index
        scf.if %producer {
          %ti = arith.index_cast %tid : index to i32
          %tf = arith.sitofp %ti : i32 to f32
          %ten = arith.constant 10.0 : f32
          %v = arith.mulf %tf, %ten : f32
          memref.store %v, %s[%lane] : memref<32xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        %consumer = arith.cmpi eq, %w, %c0 : index
        scf.if %consumer {
          %v = memref.load %s[%lane] : memref<32xf32, #gpu.address_space<workgroup>>
          memref.store %v, %out[%lane] : memref<32xf32>
        }
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %threads = arith.constant 96 : index
    %out = memref.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
        args(%out : memref<32xf32>)
    %a = vector.load %out[%c0] : memref<32xf32>, vector<4xf32>
    vector.print %a : vector<4xf32>
    vector.print str "reached\n"
    return
  }
}
