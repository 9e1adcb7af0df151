// nvvm ops on raw pointers (memref.extract_aligned_pointer_as_index ->
// llvm.inttoptr -> llvm.getelementptr): cp.async.shared.global with
// commit/wait groups, an mbarrier, ldmatrix.x4, stmatrix.x4, llvm.load and
// llvm.store. A 16x16 f16
// tile makes a round trip global -> shared -> registers -> shared ->
// global; lane 5's first register holds A[1][2] and A[1][3].
// RUN: axe-gpu-run %s -e main -entry-point-result=void --check-races \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils%shlibext,%mlir_lib_dir/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s

// CHECK-NOT: llvm.load read
// CHECK: round trip errors 0
// f16 18.0 = 0x4c80, 19.0 = 0x4cc0
// CHECK-NEXT: 1287670912

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @trip(%A: memref<256xf16>, %B: memref<256xf16>, %R: memref<32xi32>)
        workgroup(%s : memref<256xf16, #gpu.address_space<workgroup>>,
                  %t : memref<256xf16, #gpu.address_space<workgroup>>,
                  %bar : memref<1xi64, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %lane = gpu.lane_id
      %true = arith.constant true
      %ga = memref.extract_aligned_pointer_as_index %A : memref<256xf16> -> index
      %gai = arith.index_cast %ga : index to i64
      %gp = llvm.inttoptr %gai : i64 to !llvm.ptr<1>
      %sa = memref.extract_aligned_pointer_as_index %s : memref<256xf16, #gpu.address_space<workgroup>> -> index
      %sai = arith.index_cast %sa : index to i64
      %sp = llvm.inttoptr %sai : i64 to !llvm.ptr<3>
      %ta = memref.extract_aligned_pointer_as_index %t : memref<256xf16, #gpu.address_space<workgroup>> -> index
      %tai = arith.index_cast %ta : index to i64
      %tp = llvm.inttoptr %tai : i64 to !llvm.ptr<3>
      %ba = memref.extract_aligned_pointer_as_index %bar : memref<1xi64, #gpu.address_space<workgroup>> -> index
      %bai = arith.index_cast %ba : index to i64
      %bp = llvm.inttoptr %bai : i64 to !llvm.ptr<3>
      // Stage: lane l copies halves 8l..8l+7.
      %l32 = arith.index_cast %lane : index to i32
      %c8i = arith.constant 8 : i32
      %off = arith.muli %l32, %c8i : i32
      %src = llvm.getelementptr %gp[%off] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f16
      %dst = llvm.getelementptr %sp[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
      nvvm.cp.async.wait.group 0
      // Every lane arrives on the mbarrier lane 0 initialized; all wait for
      // phase 0.
      %is0 = arith.cmpi eq, %lane, %c0 : index
      %c32i = arith.constant 32 : i32
      scf.if %is0 {
        nvvm.mbarrier.init %bp, %c32i : !llvm.ptr<3>, i32
      }
      gpu.barrier
      %state = nvvm.mbarrier.arrive %bp : !llvm.ptr<3> -> i64
      %phase = arith.constant 0 : i32
      %ticks = arith.constant 1000 : i32
      nvvm.mbarrier.try_wait.parity %bp, %phase, %ticks : !llvm.ptr<3>, i32, i32
      // ldmatrix.x4: lane l gives row (l%8) + 8*((l/8)%2), column 8*(l/16)
      // of the 16x16 tile (32-byte rows).
      %r8 = arith.remui %lane, %c8 : index
      %m = arith.divui %lane, %c8 : index
      %mo = arith.remui %m, %c2 : index
      %mo8 = arith.muli %mo, %c8 : index
      %row = arith.addi %r8, %mo8 : index
      %mh = arith.divui %lane, %c16 : index
      %col = arith.muli %mh, %c8 : index
      %rowb = arith.muli %row, %c32 : index
      %colb = arith.muli %col, %c2 : index
      %b = arith.addi %rowb, %colb : index
      %bi = arith.index_cast %b : index to i32
      %ld = llvm.getelementptr %sp[%bi] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %regs = nvvm.ldmatrix %ld {num = 4 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      %r0 = llvm.extractvalue %regs[0] : !llvm.struct<(i32, i32, i32, i32)>
      %r1 = llvm.extractvalue %regs[1] : !llvm.struct<(i32, i32, i32, i32)>
      %r2 = llvm.extractvalue %regs[2] : !llvm.struct<(i32, i32, i32, i32)>
      %r3 = llvm.extractvalue %regs[3] : !llvm.struct<(i32, i32, i32, i32)>
      // r0 goes to R[lane] through llvm.store (and back through llvm.load).
      %ra = memref.extract_aligned_pointer_as_index %R : memref<32xi32> -> index
      %rai = arith.index_cast %ra : index to i64
      %rp = llvm.inttoptr %rai : i64 to !llvm.ptr<1>
      %rl = llvm.getelementptr %rp[%l32] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %r0, %rl : i32, !llvm.ptr<1>
      %back = llvm.load %rl : !llvm.ptr<1> -> i32
      %same = arith.cmpi eq, %back, %r0 : i32
      %bad = arith.xori %same, %true : i1
      scf.if %bad {
        gpu.printf "llvm.load read %d back, not %d\n", %back, %r0 : i32, i32
      }
      %st = llvm.getelementptr %tp[%bi] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      nvvm.stmatrix %st, %r0, %r1, %r2, %r3 {layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : !llvm.ptr<3>, i32, i32, i32, i32
      gpu.barrier
      %i0 = arith.muli %lane, %c8 : index
      %v = vector.load %t[%i0] : memref<256xf16, #gpu.address_space<workgroup>>, vector<8xf16>
      vector.store %v, %B[%i0] : memref<256xf16>, vector<8xf16>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %A = memref.alloc() {alignment = 64 : i64} : memref<256xf16>
    %B = memref.alloc() : memref<256xf16>
    %R = memref.alloc() : memref<32xi32>
    scf.for %i = %c0 to %c256 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f16
      memref.store %f, %A[%i] : memref<256xf16>
    }
    gpu.launch_func @kernels::@trip blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%A : memref<256xf16>, %B : memref<256xf16>, %R : memref<32xi32>)
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %errors = scf.for %i = %c0 to %c256 step %c1 iter_args(%e = %zero) -> (i64) {
      %a = memref.load %A[%i] : memref<256xf16>
      %b = memref.load %B[%i] : memref<256xf16>
      %bad = arith.cmpf une, %a, %b : f16
      %n = arith.addi %e, %one : i64
      %r = arith.select %bad, %n, %e : i64
      scf.yield %r : i64
    }
    vector.print str "round trip errors "
    vector.print %errors : i64
    %r5 = memref.load %R[%c5] : memref<32xi32>
    vector.print %r5 : i32
    return
  }
}
