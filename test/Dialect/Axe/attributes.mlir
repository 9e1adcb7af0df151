// RUN: axe-opt %s | FileCheck %s
// RUN: axe-opt %s | axe-opt | FileCheck %s
// RUN: axe-opt %s -mlir-print-op-generic | axe-opt | FileCheck %s
// RUN: axe-opt %s -emit-bytecode | axe-opt | FileCheck %s

// Every attribute of the dialect prints back as written (layouts exactly as
// the library prints them; the attribute keeps the form it was given).

// CHECK-LABEL: func.func private @layouts()
// CHECK-SAME: explicit_m = #axe.layout<S[(8, 8) : (8, 1)]>
// CHECK-SAME: mixed = #axe.layout<S[(4, 4) : (-1, 0)] + R[(2, 3) : (-4@gpuid, 1@dx)] + 2@gpuid + 3>
// CHECK-SAME: paper = #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid>
// CHECK-SAME: single = #axe.layout<S[4096 : 1]>
// CHECK-SAME: spaced = #axe.layout<S[(2, 3, 6) : (18, 6, 1)]>
// CHECK-SAME: tmem = #axe.layout<S[(128, 64) : (1@TLane, 1@TCol)]>
// CHECK-SAME: trn = #axe.layout<S[(8, 8, 8) : (64@F, 1@P, 1@F)]>
func.func private @layouts() attributes {
  paper = #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid>,
  single = #axe.layout<S[4096 : 1]>,
  spaced = #axe.layout<S[(2,3,6):(18,6,1)]>,
  mixed = #axe.layout<S[(4, 4) : (-1, 0)] + R[(2, 3) : (-4@gpuid, 1@dx)] + 3 + 2@gpuid>,
  explicit_m = #axe.layout<S[(8, 8) : (8@m, 1@m)]>,
  trn = #axe.layout<S[(8, 8, 8) : (64@F, 1@P, 1@F)]>,
  tmem = #axe.layout<S[(128, 64) : (1@TLane, 1@TCol)]>
}

// CHECK-LABEL: func.func private @swizzled()
// CHECK-SAME: identity = #axe.layout<SW(0, 0, 0) o S[8 : 1]>
// CHECK-SAME: sw128 = #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>
// CHECK-SAME: sw64 = #axe.layout<SW(3, 2, 3) o S[(64, 32) : (32, 1)]>
func.func private @swizzled() attributes {
  sw128 = #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>,
  sw64 = #axe.layout<SW(3,2,3) o S[(64, 32) : (32, 1)]>,
  identity = #axe.layout<SW(0, 0, 0) o S[8 : 1]>
}

// CHECK-LABEL: func.func private @scopes()
// CHECK-SAME: a = #axe.scope<thread>
// CHECK-SAME: b = #axe.scope<warp>
// CHECK-SAME: c = #axe.scope<warpgroup>
// CHECK-SAME: d = #axe.scope<cta>
// CHECK-SAME: e = #axe.scope<cluster>
// CHECK-SAME: f = #axe.scope<kernel>
// CHECK-SAME: g = #axe.scope<mesh<gpuid = 8>>
// CHECK-SAME: h = #axe.scope<mesh<dx = 2, dy = 2>>
func.func private @scopes() attributes {
  a = #axe.scope<thread>, b = #axe.scope<warp>, c = #axe.scope<warpgroup>,
  d = #axe.scope<cta>, e = #axe.scope<cluster>, f = #axe.scope<kernel>,
  g = #axe.scope<mesh<gpuid = 8>>, h = #axe.scope<mesh<dx = 2, dy = 2>>
}

// CHECK-LABEL: func.func private @targets_and_enums()
// CHECK-SAME: k = #axe.reduce_kind<prod>
// CHECK-SAME: m0 = #axe.memory_space<global>
// CHECK-SAME: m1 = #axe.memory_space<shared>
// CHECK-SAME: m2 = #axe.memory_space<reg>
// CHECK-SAME: m3 = #axe.memory_space<tmem>
// CHECK-SAME: m4 = #axe.memory_space<sbuf>
// CHECK-SAME: m5 = #axe.memory_space<psum>
// CHECK-SAME: m6 = #axe.memory_space<hbm>
// CHECK-SAME: t0 = #axe.target<"sm_80">
// CHECK-SAME: t1 = #axe.target<"sm_90">
// CHECK-SAME: t2 = #axe.target<"sm_100a">
// CHECK-SAME: t3 = #axe.target<"cpu">
// CHECK-SAME: t4 = #axe.target<"trn1">
func.func private @targets_and_enums() attributes {
  t0 = #axe.target<"sm_80">, t1 = #axe.target<"sm_90">,
  t2 = #axe.target<"sm_100a">, t3 = #axe.target<"cpu">,
  t4 = #axe.target<"trn1">,
  m0 = #axe.memory_space<global>, m1 = #axe.memory_space<shared>,
  m2 = #axe.memory_space<reg>, m3 = #axe.memory_space<tmem>,
  m4 = #axe.memory_space<sbuf>, m5 = #axe.memory_space<psum>,
  m6 = #axe.memory_space<hbm>, k = #axe.reduce_kind<prod>
}

// CHECK: module attributes {axe.target = #axe.target<"sm_100a">}
module attributes {axe.target = #axe.target<"sm_100a">} {
}
