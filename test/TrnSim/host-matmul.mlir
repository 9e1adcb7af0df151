// RUN: axe-trn-sim %s -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   --launch-summary --report=%t.json 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=SUMMARY < %t.err
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// Without numerics the kernels leave host memory alone, and the host's own
// check sees it: the checks below would catch a simulation that computes
// nothing.
// RUN: axe-trn-sim %s -e main --timing-only \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s --check-prefix=UNTOUCHED

// Host mode: main runs on the JIT as under mlir-runner, builds the inputs
// from loop indices, calls two trn kernels on memory_space_casts of its
// memrefs, and checks every element against a reference it computes in f32.
//
// @mm: K = 256, M = 128, N = 512 in bf16, fp32 accumulation in PSUM over
// two K tiles. The sums reach 273, past bf16's 8 significant bits, so the
// output is off by its rounding (at most 1 here) and within 1/128 relative.
// CHECK: Unranked Memref base@ = {{.*}} rank = 2 offset = 0 sizes = [2, 4] strides = [4, 1] data =
// CHECK-NEXT: {{\[}}[272,   254,   242,   251],
// CHECK-NEXT: [253,   243,   254,   251]]
// CHECK-NEXT: bf16 max error: 1
// CHECK-NEXT: bf16 elements off: 0
// @mm_f32 writes a 64x64 window (columns 8..71) of a 64x80 host array: a
// strided memref, whose other columns must keep their -7.
// CHECK-NEXT: f32 elements off: 0
// CHECK-NEXT: f32 border untouched: 1024
// CHECK-NOT: {{.}}

// SUMMARY: launch 0: kernel mm: {{[0-9]+}} instructions, total {{[0-9.]+}} ns, hfu {{[0-9.]+}}
// SUMMARY-NEXT: launch 1: kernel mm_f32: {{[0-9]+}} instructions, total {{[0-9.]+}} ns
// SUMMARY-NOT: launch 2

// The report is the last launch's (@mm_f32), in kernel mode's form.
// REPORT: "engines": {
// REPORT: "tensor": {
// REPORT: "total_ns":

// UNTOUCHED: bf16 elements off: 65536
// UNTOUCHED-NEXT: f32 elements off: 4096
// UNTOUCHED-NEXT: f32 border untouched: 1024

func.func private @printMemrefF32(memref<*xf32>)

func.func @mm(%lhsT: memref<256x128xbf16, #trn.space<hbm>>,
              %rhs: memref<256x512xbf16, #trn.space<hbm>>,
              %out: memref<128x512xbf16, #trn.space<hbm>>) attributes {trn.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %acc = trn.alloc : memref<128x512xf32, #trn.space<psum>>
  scf.for %k = %c0 to %c2 step %c1 {
    %k0 = arith.muli %k, %c128 : index
    %a = trn.alloc : memref<128x128xbf16, #trn.space<sbuf>>
    %b = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
    %va = memref.subview %lhsT[%k0, 0] [128, 128] [1, 1]
        : memref<256x128xbf16, #trn.space<hbm>> to memref<128x128xbf16, strided<[128, 1], offset: ?>, #trn.space<hbm>>
    %vb = memref.subview %rhs[%k0, 0] [128, 512] [1, 1]
        : memref<256x512xbf16, #trn.space<hbm>> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>>
    trn.dma_copy %va to %a
        : memref<128x128xbf16, strided<[128, 1], offset: ?>, #trn.space<hbm>> to memref<128x128xbf16, #trn.space<sbuf>>
    trn.dma_copy %vb to %b
        : memref<128x512xbf16, strided<[512, 1], offset: ?>, #trn.space<hbm>> to memref<128x512xbf16, #trn.space<sbuf>>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      trn.matmul %a, %b into %acc start
          : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
            into memref<128x512xf32, #trn.space<psum>>
    } else {
      trn.matmul %a, %b into %acc
          : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
            into memref<128x512xf32, #trn.space<psum>>
    }
  }
  %o = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
  trn.tensor_copy %acc into %o engine vector
      : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
  trn.dma_copy %o to %out
      : memref<128x512xbf16, #trn.space<sbuf>> to memref<128x512xbf16, #trn.space<hbm>>
  return
}

func.func @mm_f32(%lhsT: memref<64x64xf32, #trn.space<hbm>>,
                  %rhs: memref<64x64xf32, #trn.space<hbm>>,
                  %out: memref<64x64xf32, strided<[80, 1], offset: 8>, #trn.space<hbm>>) attributes {trn.kernel} {
  %a = trn.alloc : memref<64x64xf32, #trn.space<sbuf>>
  %b = trn.alloc : memref<64x64xf32, #trn.space<sbuf>>
  trn.dma_copy %lhsT to %a : memref<64x64xf32, #trn.space<hbm>> to memref<64x64xf32, #trn.space<sbuf>>
  trn.dma_copy %rhs to %b : memref<64x64xf32, #trn.space<hbm>> to memref<64x64xf32, #trn.space<sbuf>>
  %acc = trn.alloc : memref<64x64xf32, #trn.space<psum>>
  trn.matmul %a, %b into %acc start stop
      : memref<64x64xf32, #trn.space<sbuf>>, memref<64x64xf32, #trn.space<sbuf>>
        into memref<64x64xf32, #trn.space<psum>>
  %o = trn.alloc : memref<64x64xf32, #trn.space<sbuf>>
  trn.tensor_copy %acc into %o engine vector
      : memref<64x64xf32, #trn.space<psum>> into memref<64x64xf32, #trn.space<sbuf>>
  trn.dma_copy %o to %out
      : memref<64x64xf32, #trn.space<sbuf>> to memref<64x64xf32, strided<[80, 1], offset: 8>, #trn.space<hbm>>
  return
}

// ((i * p + j * q) mod r) + s as f32.
func.func @pattern(%i: index, %j: index, %p: index, %q: index, %r: index,
                   %s: index) -> f32 {
  %ip = arith.muli %i, %p : index
  %jq = arith.muli %j, %q : index
  %sum = arith.addi %ip, %jq : index
  %mod = arith.remui %sum, %r : index
  %v = arith.addi %mod, %s : index
  %v64 = arith.index_cast %v : index to i64
  %f = arith.sitofp %v64 : i64 to f32
  return %f : f32
}

// Fills m[i, j] with pattern(i, j, p, q, r, s), rounded to bf16.
func.func @fill_bf16(%m: memref<?x?xbf16>, %p: index, %q: index, %r: index,
                     %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xbf16>
  %cols = memref.dim %m, %c1 : memref<?x?xbf16>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %f = func.call @pattern(%i, %j, %p, %q, %r, %s)
          : (index, index, index, index, index, index) -> f32
      %h = arith.truncf %f : f32 to bf16
      memref.store %h, %m[%i, %j] : memref<?x?xbf16>
    }
  }
  return
}

func.func @fill_f32(%m: memref<?x?xf32>, %p: index, %q: index, %r: index,
                    %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %m, %c0 : memref<?x?xf32>
  %cols = memref.dim %m, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %f = func.call @pattern(%i, %j, %p, %q, %r, %s)
          : (index, index, index, index, index, index) -> f32
      memref.store %f, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// sum_k lhsT[k, m] * rhs[k, n] in f32, from bf16 inputs.
func.func @ref_bf16(%a: memref<256x128xbf16>, %b: memref<256x512xbf16>,
                    %m: index, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%k, %m] : memref<256x128xbf16>
    %y = memref.load %b[%k, %n] : memref<256x512xbf16>
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %next = arith.addf %acc, %p : f32
    scf.yield %next : f32
  }
  return %sum : f32
}

// Prints C[0:2, 0:4], the largest |C - ref| and how many elements are off
// by more than 1/128 of |ref|.
func.func @check_bf16(%a: memref<256x128xbf16>, %b: memref<256x512xbf16>,
                      %c: memref<128x512xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  %rtol = arith.constant 0.0078125 : f32
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %corner = memref.alloc() : memref<2x4xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %c[%i, %j] : memref<128x512xbf16>
      %vf = arith.extf %v : bf16 to f32
      memref.store %vf, %corner[%i, %j] : memref<2x4xf32>
    }
  }
  %u = memref.cast %corner : memref<2x4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %corner : memref<2x4xf32>
  %res:2 = scf.for %m = %c0 to %c128 step %c1 iter_args(%mx = %zero, %bad = %i0) -> (f32, i64) {
    %r:2 = scf.for %n = %c0 to %c512 step %c1 iter_args(%mx1 = %mx, %bad1 = %bad) -> (f32, i64) {
      %ref = func.call @ref_bf16(%a, %b, %m, %n)
          : (memref<256x128xbf16>, memref<256x512xbf16>, index, index) -> f32
      %v = memref.load %c[%m, %n] : memref<128x512xbf16>
      %vf = arith.extf %v : bf16 to f32
      %d = arith.subf %vf, %ref : f32
      %err = math.absf %d : f32
      %aref = math.absf %ref : f32
      %tol = arith.mulf %aref, %rtol : f32
      %off = arith.cmpf ugt, %err, %tol : f32
      %inc = arith.select %off, %i1, %i0 : i64
      %bad2 = arith.addi %bad1, %inc : i64
      %mx2 = arith.maximumf %mx1, %err : f32
      scf.yield %mx2, %bad2 : f32, i64
    }
    scf.yield %r#0, %r#1 : f32, i64
  }
  vector.print str "bf16 max error: "
  vector.print %res#0 : f32
  vector.print str "bf16 elements off: "
  vector.print %res#1 : i64
  return
}

// Counts the window's elements that differ from the f32 reference and the
// border's that still hold -7.
func.func @check_f32(%a: memref<64x64xf32>, %b: memref<64x64xf32>,
                     %c: memref<64x80xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c72 = arith.constant 72 : index
  %c80 = arith.constant 80 : index
  %zero = arith.constant 0.0 : f32
  %sentinel = arith.constant -7.0 : f32
  %i0 = arith.constant 0 : i64
  %i1 = arith.constant 1 : i64
  %res:2 = scf.for %m = %c0 to %c64 step %c1 iter_args(%bad = %i0, %kept = %i0) -> (i64, i64) {
    %r:2 = scf.for %col = %c0 to %c80 step %c1 iter_args(%bad1 = %bad, %kept1 = %kept) -> (i64, i64) {
      %v = memref.load %c[%m, %col] : memref<64x80xf32>
      %lo = arith.cmpi ult, %col, %c8 : index
      %hi = arith.cmpi uge, %col, %c72 : index
      %border = arith.ori %lo, %hi : i1
      %out:2 = scf.if %border -> (i64, i64) {
        %same = arith.cmpf oeq, %v, %sentinel : f32
        %inc = arith.select %same, %i1, %i0 : i64
        %k2 = arith.addi %kept1, %inc : i64
        scf.yield %bad1, %k2 : i64, i64
      } else {
        %n = arith.subi %col, %c8 : index
        %ref = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
          %x = memref.load %a[%k, %m] : memref<64x64xf32>
          %y = memref.load %b[%k, %n] : memref<64x64xf32>
          %p = arith.mulf %x, %y : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %diff = arith.cmpf une, %v, %ref : f32
        %inc = arith.select %diff, %i1, %i0 : i64
        %b2 = arith.addi %bad1, %inc : i64
        scf.yield %b2, %kept1 : i64, i64
      }
      scf.yield %out#0, %out#1 : i64, i64
    }
    scf.yield %r#0, %r#1 : i64, i64
  }
  vector.print str "f32 elements off: "
  vector.print %res#0 : i64
  vector.print str "f32 border untouched: "
  vector.print %res#1 : i64
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %cm1 = arith.constant -1 : index
  %cm2 = arith.constant -2 : index
  %cm4 = arith.constant -4 : index
  %cm7 = arith.constant -7 : index
  %c1000 = arith.constant 1000 : index

  // bf16: lhsT[k, m] = (k + 2m) mod 5 - 1, rhs[k, n] = (3k + n) mod 7 - 2.
  %a = memref.alloc() : memref<256x128xbf16>
  %b = memref.alloc() : memref<256x512xbf16>
  %c = memref.alloc() : memref<128x512xbf16>
  %ad = memref.cast %a : memref<256x128xbf16> to memref<?x?xbf16>
  %bd = memref.cast %b : memref<256x512xbf16> to memref<?x?xbf16>
  %cd = memref.cast %c : memref<128x512xbf16> to memref<?x?xbf16>
  func.call @fill_bf16(%ad, %c1, %c2, %c5, %cm1) : (memref<?x?xbf16>, index, index, index, index) -> ()
  func.call @fill_bf16(%bd, %c3, %c1, %c7, %cm2) : (memref<?x?xbf16>, index, index, index, index) -> ()
  // Anything the kernel fails to write stays off the reference.
  func.call @fill_bf16(%cd, %c0, %c0, %c1000, %cm7) : (memref<?x?xbf16>, index, index, index, index) -> ()
  %ha = memref.memory_space_cast %a : memref<256x128xbf16> to memref<256x128xbf16, #trn.space<hbm>>
  %hb = memref.memory_space_cast %b : memref<256x512xbf16> to memref<256x512xbf16, #trn.space<hbm>>
  %hc = memref.memory_space_cast %c : memref<128x512xbf16> to memref<128x512xbf16, #trn.space<hbm>>
  func.call @mm(%ha, %hb, %hc)
      : (memref<256x128xbf16, #trn.space<hbm>>, memref<256x512xbf16, #trn.space<hbm>>,
         memref<128x512xbf16, #trn.space<hbm>>) -> ()
  func.call @check_bf16(%a, %b, %c)
      : (memref<256x128xbf16>, memref<256x512xbf16>, memref<128x512xbf16>) -> ()

  // f32: lhsT[k, m] = (k + 3m) mod 4 - 2, rhs[k, n] = (2k + n) mod 5 - 2,
  // the output a window of a bigger array full of -7.
  %fa = memref.alloc() : memref<64x64xf32>
  %fb = memref.alloc() : memref<64x64xf32>
  %fc = memref.alloc() : memref<64x80xf32>
  %fad = memref.cast %fa : memref<64x64xf32> to memref<?x?xf32>
  %fbd = memref.cast %fb : memref<64x64xf32> to memref<?x?xf32>
  %fcd = memref.cast %fc : memref<64x80xf32> to memref<?x?xf32>
  func.call @fill_f32(%fad, %c1, %c3, %c4, %cm2) : (memref<?x?xf32>, index, index, index, index) -> ()
  func.call @fill_f32(%fbd, %c2, %c1, %c5, %cm2) : (memref<?x?xf32>, index, index, index, index) -> ()
  func.call @fill_f32(%fcd, %c0, %c0, %c1000, %cm7) : (memref<?x?xf32>, index, index, index, index) -> ()
  %window = memref.subview %fc[0, 8] [64, 64] [1, 1]
      : memref<64x80xf32> to memref<64x64xf32, strided<[80, 1], offset: 8>>
  %hfa = memref.memory_space_cast %fa : memref<64x64xf32> to memref<64x64xf32, #trn.space<hbm>>
  %hfb = memref.memory_space_cast %fb : memref<64x64xf32> to memref<64x64xf32, #trn.space<hbm>>
  %hfc = memref.memory_space_cast %window
      : memref<64x64xf32, strided<[80, 1], offset: 8>> to memref<64x64xf32, strided<[80, 1], offset: 8>, #trn.space<hbm>>
  func.call @mm_f32(%hfa, %hfb, %hfc)
      : (memref<64x64xf32, #trn.space<hbm>>, memref<64x64xf32, #trn.space<hbm>>,
         memref<64x64xf32, strided<[80, 1], offset: 8>, #trn.space<hbm>>) -> ()
  func.call @check_f32(%fa, %fb, %fc)
      : (memref<64x64xf32>, memref<64x64xf32>, memref<64x80xf32>) -> ()

  memref.dealloc %a : memref<256x128xbf16>
  memref.dealloc %b : memref<256x512xbf16>
  memref.dealloc %c : memref<128x512xbf16>
  memref.dealloc %fa : memref<64x64xf32>
  memref.dealloc %fb : memref<64x64xf32>
  memref.dealloc %fc : memref<64x80xf32>
  return
}
