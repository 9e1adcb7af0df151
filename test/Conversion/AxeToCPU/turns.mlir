// RUN: axe-opt %s --axe-to-cpu | FileCheck %s

// On the CPU the turns go: a CTA's warpgroups run there one operator at a
// time.
// CHECK-LABEL: llvm.func @turns_cpu
// CHECK-NOT: axe.turn
module attributes {axe.target = #axe.target<"cpu">} {
  func.func @turns_cpu() {
    axe.kernel grid [1] threads 256 {
      axe.warp_specialize {
        axe.partition warps [0, 8) {
          axe.turn_begin
          axe.turn_end
        }
      }
    }
    return
  }
}
