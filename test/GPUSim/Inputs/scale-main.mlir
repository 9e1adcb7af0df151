module {
  func.func private @scale(memref<8xf32>, f32)
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = memref.alloc() : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %x[%i] : memref<8xf32>
    }
    %k = arith.constant 3.0 : f32
    func.call @scale(%x, %k) : (memref<8xf32>, f32) -> ()
    %v = vector.load %x[%c0] : memref<8xf32>, vector<8xf32>
    vector.print %v : vector<8xf32>
    %r = arith.constant 42 : i32
    return %r : i32
  }
}
