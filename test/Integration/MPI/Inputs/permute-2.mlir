// A copy from device 0 to device 1 of mesh<d = 2>: one permute step. Used
// by run-errors.mlir with process counts other than 2.
#on0 = #axe.layout<S[4 : 1]>
#on1 = #axe.layout<S[4 : 1] + 1@d>
module {
  func.func @k(%x: memref<4xf32>, %y: memref<4xf32>) {
    axe.kernel {
      %a = axe.view %x[0] : memref<4xf32> -> !axe.buffer<4xf32, #on0, global>
      %b = axe.view %y[0] : memref<4xf32> -> !axe.buffer<4xf32, #on1, global>
      axe.copy %a to %b at mesh<d = 2>
          : !axe.buffer<4xf32, #on0, global> to !axe.buffer<4xf32, #on1, global>
    }
    return
  }
  func.func @main() {
    %x = memref.alloc() : memref<4xf32>
    %y = memref.alloc() : memref<4xf32>
    func.call @k(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
    vector.print str "done\n"
    return
  }
}
