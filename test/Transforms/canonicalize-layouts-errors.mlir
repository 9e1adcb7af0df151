// RUN: not axe-opt %s -axe-canonicalize-layouts=target=sm_75 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not axe-opt %s -axe-canonicalize-layouts=target=trn1 2>&1 | FileCheck %s --check-prefix=TRN
// RUN: axe-opt %s -split-input-file -verify-diagnostics -axe-canonicalize-layouts=target=sm_80

// UNKNOWN: error: unknown target 'sm_75'; known targets: sm_80, sm_90, sm_100a, cpu, trn1
// TRN: error: target trn1 has no thread axes to fuse

// A lane coordinate of 32 or more would name a thread of another warp, so
// fusing it into tx is refused with the library's reason.
// expected-error @+1 {{cannot fuse the thread axes of S[(2, 64) : (1@warpid, 1@laneid)] for sm_80}}
func.func private @f() attributes {l = #axe.layout<S[(2, 64) : (1@warpid, 1@laneid)]>}
