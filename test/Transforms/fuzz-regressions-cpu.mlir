// RUN: axe-opt %s --axe-dispatch=target=cpu | FileCheck %s

// fuzz/regressions/opt/storage-address-offset-near-2p62 (axe-opt-fuzz): the
// storage address of a layout whose offset is near 2^62 folded -lo * stride
// into an int64 constant that overflowed (UBSan: signed integer overflow),
// although every address fits the storage. The fuzz smoke run replays the
// input under UBSan; here the fill must still be lowered. (The input placed
// the shard on wgid as well as warpid, which the kernel verifier now refuses:
// no thread is both; the shard's first iter is on registers here.)

!r = !axe.buffer<16x1x8xf32, #axe.layout<S[(4, 32) : (2, 1@laneid)] + R[2 : 1@warpid] + 4611686018427387904@warpid + 5@laneid>, reg>

// CHECK-LABEL: func.func @fill_offset_near_2p62
// CHECK-NOT: axe.fill
func.func @fill_offset_near_2p62() {
  %z = arith.constant 0.0 : f32
  axe.kernel grid [2] threads 32 {
    %acc = axe.alloc : !r
    axe.fill %acc, %z at cta : !r
  }
  return
}
