// RUN: axe-opt %s --axe-to-trn | axe-trn-sim -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s
// RUN: axe-opt %s --axe-to-trn | FileCheck %s --check-prefix=IR
// Without numerics the kernel leaves y as allocated, and the check says so.
// RUN: axe-opt %s --axe-to-trn | axe-trn-sim -e main -entry-point-result=void --timing-only \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils%shlibext,%mlir_lib_dir/libmlir_c_runner_utils%shlibext \
// RUN:   | FileCheck %s --check-prefix=UNTOUCHED
// UNTOUCHED: softmax elements off: {{[1-9][0-9]*}}

// Row softmax of a 128x512 f32 tile written in axe, lowered by axe-to-trn
// and run by axe-trn-sim's host mode: main (on the JIT) builds the input
// from indices, calls the kernel (simulated with numerics), computes the
// reference in f32 on the host and counts the elements off by more than
// 1e-6 + 1e-4 relative.
// CHECK: softmax elements off: 0
// CHECK-NEXT: row sums off: 0

// exp(x - max) is one ScalarE activation with the negated maximum as its
// bias, and the row sum after it is that activation's reduction.
// IR-LABEL: func.func @softmax_trn(
// IR: trn.tensor_reduce max
// IR: trn.tensor_scalar %{{.*}}, multiply(-1.000000e+00) into %[[NEG:.*]] engine
// IR: trn.activation exp %{{.*}} into %{{.*}} bias %[[NEG]] : memref<128x1xf32, #trn.space<sbuf>> reduce add into
// IR-NOT: trn.tensor_reduce add
// IR: trn.tensor_scalar {{.*}} divide(%{{.*}} : memref<128x1xf32

#h = #axe.layout<S[(128, 512) : (512, 1)]>
#s = #axe.layout<S[(128, 512) : (1@P, 1@F)]>
#c = #axe.layout<S[(128, 1) : (1@P, 1@F)]>
!T = !axe.buffer<128x512xf32, #s, sbuf>
!C = !axe.buffer<128x1xf32, #c, sbuf>
!H = !axe.buffer<128x512xf32, #h, hbm>
module attributes {axe.target = #axe.target<"trn1">} {
  func.func @softmax(%x: memref<128x512xf32>, %y: memref<128x512xf32>) {
    axe.kernel {
      %t = axe.alloc : !T
      %e = axe.alloc : !T
      %m = axe.alloc : !C
      %l = axe.alloc : !C
      %hx = axe.view %x[0, 0] : memref<128x512xf32> -> !H
      %hy = axe.view %y[0, 0] : memref<128x512xf32> -> !H
      axe.copy %hx to %t at cta : !H to !T
      axe.reduce max %t into %m dims [1] at cta : !T into !C
      axe.elementwise ins(%t, %m : !T, !C) outs(%e : !T) at cta {
      ^bb0(%v: f32, %mx: f32):
        %d = arith.subf %v, %mx : f32
        %ex = math.exp %d : f32
        axe.yield %ex : f32
      }
      axe.reduce sum %e into %l dims [1] at cta : !T into !C
      axe.elementwise ins(%e, %l : !T, !C) outs(%t : !T) at cta {
      ^bb0(%v: f32, %sum: f32):
        %q = arith.divf %v, %sum : f32
        axe.yield %q : f32
      }
      axe.copy %t to %hy at cta : !T to !H
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %c0i = arith.constant 0 : i64
    %c1i = arith.constant 1 : i64
    %c37 = arith.constant 37 : index
    %quarter = arith.constant 0.25 : f32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %atol = arith.constant 1.0e-6 : f32
    %rtol = arith.constant 1.0e-4 : f32
    %x = memref.alloc() : memref<128x512xf32>
    %y = memref.alloc() : memref<128x512xf32>
    // x[i][j] = ((7 i + 13 j) mod 37) / 4: rows with different maxima.
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c512 step %c1 {
        %a = arith.muli %i, %c1 : index
        %i7 = arith.addi %a, %a : index
        %s0 = arith.addi %i7, %i7 : index
        %s1 = arith.addi %s0, %s0 : index
        %seven = arith.subi %s1, %a : index
        %j13 = arith.muli %j, %c37 : index
        %sum = arith.addi %seven, %j13 : index
        %r = arith.remui %sum, %c37 : index
        %ri = arith.index_cast %r : index to i64
        %rf = arith.sitofp %ri : i64 to f32
        %v = arith.mulf %rf, %quarter : f32
        memref.store %v, %x[%i, %j] : memref<128x512xf32>
      }
    }
    call @softmax(%x, %y) : (memref<128x512xf32>, memref<128x512xf32>) -> ()
    %bad, %rows = scf.for %i = %c0 to %c128 step %c1 iter_args(%b = %c0i, %rb = %c0i) -> (i64, i64) {
      %mx = scf.for %j = %c0 to %c512 step %c1 iter_args(%m = %zero) -> f32 {
        %v = memref.load %x[%i, %j] : memref<128x512xf32>
        %n = arith.maximumf %m, %v : f32
        scf.yield %n : f32
      }
      %tot = scf.for %j = %c0 to %c512 step %c1 iter_args(%t = %zero) -> f32 {
        %v = memref.load %x[%i, %j] : memref<128x512xf32>
        %d = arith.subf %v, %mx : f32
        %e = math.exp %d : f32
        %n = arith.addf %t, %e : f32
        scf.yield %n : f32
      }
      %nb, %ysum = scf.for %j = %c0 to %c512 step %c1 iter_args(%acc = %b, %ys = %zero) -> (i64, f32) {
        %v = memref.load %x[%i, %j] : memref<128x512xf32>
        %d = arith.subf %v, %mx : f32
        %e = math.exp %d : f32
        %ref = arith.divf %e, %tot : f32
        %got = memref.load %y[%i, %j] : memref<128x512xf32>
        %diff = arith.subf %got, %ref : f32
        %err = math.absf %diff : f32
        %scaled = arith.mulf %ref, %rtol : f32
        %bound = arith.addf %atol, %scaled : f32
        %off = arith.cmpf ogt, %err, %bound : f32
        %inc = arith.select %off, %c1i, %c0i : i64
        %n = arith.addi %acc, %inc : i64
        %ys2 = arith.addf %ys, %got : f32
        scf.yield %n, %ys2 : i64, f32
      }
      %dev = arith.subf %ysum, %one : f32
      %adev = math.absf %dev : f32
      %tol = arith.constant 1.0e-4 : f32
      %roff = arith.cmpf ogt, %adev, %tol : f32
      %rinc = arith.select %roff, %c1i, %c0i : i64
      %nr = arith.addi %rb, %rinc : i64
      scf.yield %nb, %nr : i64, i64
    }
    vector.print str "softmax elements off: "
    vector.print %bad : i64
    vector.print str "row sums off: "
    vector.print %rows : i64
    memref.dealloc %x : memref<128x512xf32>
    memref.dealloc %y : memref<128x512xf32>
    return
  }
}
