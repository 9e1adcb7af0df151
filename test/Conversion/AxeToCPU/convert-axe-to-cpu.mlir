// RUN: axe-opt %s --convert-axe-to-cpu -split-input-file | FileCheck %s
// RUN: axe-opt %s --convert-axe-to-cpu -split-input-file | FileCheck %s --check-prefix=NOAXE

// The structural half of the CPU lowering on its own. The inputs are what
// axe-dispatch{target=cpu} leaves: no collective operator, each buffer read
// through an unrealized cast to a flat memref (as the schedules address it),
// copy_async tokens replaced by placeholder casts. Every axe op, type and
// attribute is gone afterwards, so the output loads without the dialect
// (the messages of failed allocations name the project, "axe: ...", and
// their globals "__axe_...").
// NOAXE-NOT: {{axe\.|!axe|#axe}}

!g = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (64, 1)]>, global>
!s = !axe.buffer<8x8xf32, #axe.layout<SW(1, 1, 1) o S[(8, 8) : (8, 1)]>, shared>
!flat = memref<?xf32, strided<[1], offset: ?>>

// A kernel is an scf.parallel over its grid, static and dynamic extents
// alike; each CTA's body is an alloca scope, so the stack memory of its
// buffers is released when the CTA ends. Grid coordinates are the loop's
// values, and a grid dim the launch does not have is 0. The module's target
// attribute goes with the dialect.
// CHECK: module {
// CHECK-LABEL: func.func @grid
// CHECK-SAME: (%[[A:.*]]: memref<64x64xf32>, %[[N:.*]]: index, %[[O:.*]]: memref<4xindex>)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: scf.parallel (%[[BX:.*]], %[[BY:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C2]], %[[N]]) step (%{{.*}}, %{{.*}}) {
// CHECK-NEXT: memref.alloca_scope {
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: memref.store %[[BX]], %[[O]]
// CHECK: memref.store %[[BY]], %[[O]]
// CHECK: memref.store %[[Z]], %[[O]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @grid(%A: memref<64x64xf32>, %n: index, %out: memref<4xindex>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    axe.kernel grid [2, %n] threads 32 {
      %bx = axe.axis_id bx
      %by = axe.axis_id by
      %bz = axe.axis_id bz
      memref.store %bx, %out[%c0] : memref<4xindex>
      memref.store %by, %out[%c1] : memref<4xindex>
      memref.store %bz, %out[%c3] : memref<4xindex>
    }
    return
  }
}

// -----

!s = !axe.buffer<8x8xf32, #axe.layout<SW(1, 1, 1) o S[(8, 8) : (8, 1)]>, shared>
!r = !axe.buffer<4x32xf32, #axe.layout<S[(4, 32) : (1@warpid, 1@laneid)]>, reg>
!t = !axe.buffer<8xf32, #axe.layout<S[8 : 1]>, reg>
!mb = !axe.buffer<512x512xf32, #axe.layout<S[(512, 512) : (512, 1)]>, shared>
!h = !axe.buffer<16xf32, #axe.layout<S[16 : 1]>, shared>
!flat = memref<?xf32, strided<[1], offset: ?>>

// A buffer is flat memory holding every coordinate its layout reaches,
// allocated at the start of the CTA and cast to the flat memref the
// schedules addressed: 64 floats for the swizzled 8x8 tile; the registers
// of all 128 threads in one array (4 warps x 32 lanes, and 8 floats for
// each thread of a buffer without thread axes). Buffers go on the stack,
// in program order, while the CTA's stack buffers fit in 1 MiB: the 512x512
// tile (1 MiB by itself) no longer fits and goes on the heap, freed where
// the CTA ends, the program stopping with a message on stderr where malloc
// returns null; the small buffer after it still fits.
// CHECK-LABEL: func.func @allocs
// CHECK: memref.alloca_scope {
// CHECK-NEXT: %[[H:.*]] = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NEXT: %[[MB:.*]] = memref.alloc() {alignment = 64 : i64} : memref<262144xf32>
// CHECK-NEXT: %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024xf32>
// CHECK-NEXT: %[[R:.*]] = memref.alloca() {alignment = 64 : i64} : memref<128xf32>
// CHECK-NEXT: %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT: %[[SM:.*]] = memref.cast %[[S]] : memref<64xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: %[[RM:.*]] = memref.cast %[[R]] : memref<128xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: %[[TM:.*]] = memref.cast %[[T]] : memref<1024xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[MB]]
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[NULL:.*]] = arith.cmpi eq, %[[P]], %[[Z]] : index
// CHECK-NEXT: scf.if %[[NULL]] {
// CHECK:        llvm.call @write
// CHECK-NEXT:   llvm.call @abort
// CHECK-NEXT: }
// CHECK-NEXT: %[[MBM:.*]] = memref.cast %[[MB]] : memref<262144xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: %[[HM:.*]] = memref.cast %[[H]] : memref<16xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: memref.store %{{.*}}, %[[SM]]
// CHECK-NEXT: memref.store %{{.*}}, %[[RM]]
// CHECK-NEXT: memref.store %{{.*}}, %[[TM]]
// CHECK-NEXT: memref.store %{{.*}}, %[[MBM]]
// CHECK-NEXT: memref.store %{{.*}}, %[[HM]]
// CHECK-NEXT: memref.dealloc %[[MB]] : memref<262144xf32>
// CHECK-NEXT: }
func.func @allocs(%i: index, %v: f32) {
  axe.kernel grid [1] threads 128 {
    %s = axe.alloc : !s
    %r = axe.alloc : !r
    %t = axe.alloc : !t
    %mb = axe.alloc : !mb
    %h = axe.alloc : !h
    %sm = builtin.unrealized_conversion_cast %s : !s to !flat
    %rm = builtin.unrealized_conversion_cast %r : !r to !flat
    %tm = builtin.unrealized_conversion_cast %t : !t to !flat
    %mbm = builtin.unrealized_conversion_cast %mb : !mb to !flat
    %hm = builtin.unrealized_conversion_cast %h : !h to !flat
    memref.store %v, %sm[%i] : !flat
    memref.store %v, %rm[%i] : !flat
    memref.store %v, %tm[%i] : !flat
    memref.store %v, %mbm[%i] : !flat
    memref.store %v, %hm[%i] : !flat
  }
  return
}

// -----

!s = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, shared>
!flat = memref<?xf32, strided<[1], offset: ?>>

// Outside a kernel a buffer lives in the function's frame.
// CHECK-LABEL: func.func @function_frame
// CHECK-NEXT: %[[S:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT: memref.cast %[[S]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: return
func.func @function_frame(%i: index, %v: f32) {
  %s = axe.alloc : !s
  %m = builtin.unrealized_conversion_cast %s : !s to !flat
  memref.store %v, %m[%i] : !flat
  return
}

// -----

!s = !axe.buffer<8x8xf32, #axe.layout<S[(8, 8) : (8, 1)]>, shared>
!flat = memref<?xf32, strided<[1], offset: ?>>

// A function body of several blocks gets no stack buffers (the scope of an
// alloca would be its whole frame either way, but the lowering only plans
// single-block scopes): the buffer is on the heap, freed before each
// return.
// CHECK-LABEL: func.func @function_blocks
// CHECK-NEXT: %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
// CHECK: cf.cond_br
// CHECK: memref.dealloc %[[S]] : memref<64xf32>
// CHECK-NEXT: return
// CHECK: memref.dealloc %[[S]] : memref<64xf32>
// CHECK-NEXT: return
func.func @function_blocks(%i: index, %v: f32, %c: i1) {
  %s = axe.alloc : !s
  %m = builtin.unrealized_conversion_cast %s : !s to !flat
  memref.store %v, %m[%i] : !flat
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}

// -----

!t = !axe.buffer<2x3xf32, #axe.layout<S[(2, 3) : (-20, 2)]>, global>
!flat = memref<?xf32, strided<[1], offset: ?>>

// A view is a flat memref over the memory its tile reaches, from the
// lowest address: the 2x3 tile with strides (-20, 2) spans 25 floats,
// starting a row (20 floats) below its first element, which is at
// offset + r * -20 + 2 * 2 of the memref's base.
// CHECK-LABEL: func.func @view
// CHECK-SAME: (%[[A:.*]]: memref<4x6xf32, strided<[-20, 2], offset: 60>>, %[[R:.*]]: index, %[[I:.*]]: index)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[LO:.*]] = arith.constant -20 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.addi %[[OFF]], %[[LO]] : index
// CHECK-NEXT: %[[S0:.*]] = arith.constant -20 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[R]], %[[S0]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[FIRST]], %[[ROW]] : index
// CHECK-NEXT: %[[S1:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[J:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[J]], %[[S1]] : index
// CHECK-NEXT: %[[AT2:.*]] = arith.addi %[[AT]], %[[COL]] : index
// CHECK-NEXT: %[[V:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[AT2]]], sizes: [25], strides: [1] : memref<f32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT: memref.load %[[V]][%[[I]]]
func.func @view(%A: memref<4x6xf32, strided<[-20, 2], offset: 60>>, %r: index, %i: index) {
  axe.kernel grid [1] threads 32 {
    %t = axe.view %A[%r, 2] : memref<4x6xf32, strided<[-20, 2], offset: 60>> -> !t
    %m = builtin.unrealized_conversion_cast %t : !t to !flat
    %x = memref.load %m[%i] : !flat
    memref.store %x, %m[%r] : !flat
  }
  return
}

// -----

!s = !axe.buffer<4x4xf32, #axe.layout<S[(4, 4) : (4, 1)]>, shared>
!p = !axe.buffer<2x2xf32, #axe.layout<S[(2, 2) : (4, 1)] + 5>, shared>

// A copy on the CPU has completed when it returns, so tokens carry
// nothing: the placeholders, the waits and the loop-carried tokens and
// results of scf.for and scf.if go; other loop-carried values stay.
// Slices (their offsets are in the schedules' addresses) and barriers (a
// CTA is one thread) go too.
// CHECK-LABEL: func.func @tokens
// CHECK-SAME: (%[[N:.*]]: index, %[[C:.*]]: i1)
// CHECK: memref.alloca_scope {
// CHECK-NEXT: memref.alloca() {{.*}} : memref<16xf32>
// CHECK-NEXT: memref.cast
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[J:.*]] = %{{.*}}) -> (index) {
// CHECK-NEXT: scf.if %[[C]] {
// CHECK-NEXT: } else {
// CHECK-NEXT: }
// CHECK-NEXT: %[[J1:.*]] = arith.addi %[[J]], %[[K]] : index
// CHECK-NEXT: scf.yield %[[J1]] : index
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @tokens(%n: index, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  axe.kernel grid [1] threads 32 {
    %s = axe.alloc : !s
    %p = axe.slice %s[1, 1] : !s -> !p
    %t0 = builtin.unrealized_conversion_cast to !axe.token
    %r:2 = scf.for %k = %c0 to %n step %c1
        iter_args(%t = %t0, %j = %c0) -> (!axe.token, index) {
      axe.wait %t at cta
      axe.barrier at cta
      %u = scf.if %c -> (!axe.token) {
        %t1 = builtin.unrealized_conversion_cast to !axe.token
        scf.yield %t1 : !axe.token
      } else {
        scf.yield %t : !axe.token
      }
      %j1 = arith.addi %j, %k : index
      scf.yield %u, %j1 : !axe.token, index
    }
    axe.wait %r#0 at cta
    axe.wait at cta
  }
  return
}

// -----

// A kernel without a grid is one CTA: its body runs once, and every grid
// coordinate is 0.
// CHECK-LABEL: func.func @no_grid
// CHECK-NOT: scf.parallel
// CHECK: scf.execute_region {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[Z]]
// CHECK-NEXT: scf.yield
func.func @no_grid(%out: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  axe.kernel threads 32 {
    %bx = axe.axis_id bx
    memref.store %bx, %out[%c0] : memref<4xindex>
  }
  return
}
