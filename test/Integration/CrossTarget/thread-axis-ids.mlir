// Thread-scope operators whose operands come from hierarchical thread axis
// ids (laneid, warpid, tid_in_wg, wgid), run on the CPU: the per-thread loop
// must derive each id from the thread it runs. In a 256-thread CTA, thread t
// writes 100 * warpid + laneid to A[t] and 1000 * wgid + tid_in_wg to B[t],
// addressing both through views at offsets computed from the same ids.
// main checks every element against t.
// RUN: axe-opt %s --axe-to-cpu | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s
// The same checks on sm_90, the kernel lowered with axe-to-nvvm and run lane
// by lane in axe-gpu-run (docs/GPURun.md); sm_80 has no warpgroups.
// RUN: axe-opt %s --axe-to-nvvm=chip=sm_90 | axe-gpu-run -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN: | FileCheck %s

!g1 = !axe.buffer<1xf32, #axe.layout<S[1 : 1]>, global>

module attributes {axe.target = #axe.target<"cpu">} {
  func.func @kernel(%A: memref<256xf32>, %B: memref<256xf32>) {
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c100 = arith.constant 100 : index
    %c1000 = arith.constant 1000 : index
    axe.kernel grid [1] threads 256 {
      %lane = axe.axis_id laneid
      %warp = axe.axis_id warpid
      %w32 = arith.muli %warp, %c32 : index
      %t = arith.addi %w32, %lane : index
      %w100 = arith.muli %warp, %c100 : index
      %va = arith.addi %w100, %lane : index
      %vai = arith.index_cast %va : index to i32
      %vaf = arith.sitofp %vai : i32 to f32
      %ga = axe.view %A[%t] : memref<256xf32> -> !g1
      axe.fill %ga, %vaf at thread : !g1

      %tid = axe.axis_id tid_in_wg
      %wg = axe.axis_id wgid
      %g128 = arith.muli %wg, %c128 : index
      %u = arith.addi %g128, %tid : index
      %g1000 = arith.muli %wg, %c1000 : index
      %vb = arith.addi %g1000, %tid : index
      %vbi = arith.index_cast %vb : index to i32
      %vbf = arith.sitofp %vbi : i32 to f32
      %gb = axe.view %B[%u] : memref<256xf32> -> !g1
      axe.fill %gb, %vbf at thread : !g1
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c100 = arith.constant 100 : index
    %c1000 = arith.constant 1000 : index
    %zi = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %minus = arith.constant -1.0 : f32
    %A = memref.alloc() : memref<256xf32>
    %B = memref.alloc() : memref<256xf32>
    scf.for %i = %c0 to %c256 step %c1 {
      memref.store %minus, %A[%i] : memref<256xf32>
      memref.store %minus, %B[%i] : memref<256xf32>
    }
    call @kernel(%A, %B) : (memref<256xf32>, memref<256xf32>) -> ()
    // A[t] = 100 (t / 32) + t mod 32; B[t] = 1000 (t / 128) + t mod 128.
    %bad = scf.for %t = %c0 to %c256 step %c1 iter_args(%n = %zi) -> (i64) {
      %w = arith.divui %t, %c32 : index
      %l = arith.remui %t, %c32 : index
      %w100 = arith.muli %w, %c100 : index
      %ea = arith.addi %w100, %l : index
      %g = arith.divui %t, %c128 : index
      %r = arith.remui %t, %c128 : index
      %g1000 = arith.muli %g, %c1000 : index
      %eb = arith.addi %g1000, %r : index
      %eai = arith.index_cast %ea : index to i64
      %eaf = arith.sitofp %eai : i64 to f32
      %ebi = arith.index_cast %eb : index to i64
      %ebf = arith.sitofp %ebi : i64 to f32
      %a = memref.load %A[%t] : memref<256xf32>
      %b = memref.load %B[%t] : memref<256xf32>
      %na = arith.cmpf une, %a, %eaf : f32
      %nb = arith.cmpf une, %b, %ebf : f32
      %ia = arith.select %na, %one, %zi : i64
      %ib = arith.select %nb, %one, %zi : i64
      %n1 = arith.addi %n, %ia : i64
      %n2 = arith.addi %n1, %ib : i64
      scf.yield %n2 : i64
    }
    // CHECK: mismatches: 0
    vector.print str "mismatches: "
    vector.print %bad : i64
    %c200 = arith.constant 200 : index
    %a200 = memref.load %A[%c200] : memref<256xf32>
    %b200 = memref.load %B[%c200] : memref<256xf32>
    // Thread 200: warp 6, lane 8; warpgroup 1, thread 72 in it.
    // CHECK-NEXT: 608
    vector.print %a200 : f32
    // CHECK-NEXT: 1072
    vector.print %b200 : f32
    memref.dealloc %A : memref<256xf32>
    memref.dealloc %B : memref<256xf32>
    return
  }
}
