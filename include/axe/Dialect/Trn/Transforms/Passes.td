//===- Passes.td - Passes on the trn dialect ---------------*- tablegen -*-===//

#ifndef AXE_DIALECT_TRN_TRANSFORMS_PASSES_TD
#define AXE_DIALECT_TRN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TrnAssignAddresses : Pass<"trn-assign-addresses", "mlir::func::FuncOp"> {
  let summary = "Place every SBUF and PSUM tile, reusing the memory of dead tiles";
  let description = [{
    Gives each `trn.alloc` a byte offset within its partitions
    (`trn.offset`), so that the tiles that are live at the same time never
    overlap, and a tile whose last use has passed leaves its bytes to later
    ones. A tile is live from its allocation to the last use of it or of a
    view of it (`memref.subview` and other view ops); a use inside a loop or
    a branch keeps it live to the end of that loop or branch, since the
    next iteration may use it again. A tile allocated in a loop body gets
    the same place in every iteration.

    Tiles are placed first-fit in program order. SBUF offsets are aligned
    to `sbuf-alignment` bytes. A PSUM tile takes whole 2 KiB banks, since a
    matmul accumulates into one bank, so a tile of at most 2 KiB never
    straddles two. When the tiles live at an allocation do not leave room
    for it, the pass fails there and names each live tile with its size.

    The function gets `trn.sbuf_bytes` and `trn.psum_bytes`: the most bytes
    per partition in use at once.

    ```mlir
    %a = trn.alloc {trn.offset = 0 : i64} : memref<128x512xbf16, #trn.space<sbuf>>
    ```
  }];
  let dependentDialects = ["axe::trn::TrnDialect"];
  let options = [
    Option<"sbufAlignment", "sbuf-alignment", "int64_t", /*default=*/"64",
           "Alignment of SBUF offsets in bytes (a power of two)">
  ];
  let statistics = [
    Statistic<"numPlaced", "placed-tiles", "Number of tiles placed">,
    Statistic<"numReused", "reused-tiles",
              "Number of tiles placed over the bytes of a dead tile">
  ];
}

def TrnMultiBuffer : Pass<"trn-multi-buffer", "mlir::func::FuncOp"> {
  let summary = "Rotate loop tiles through several buffers so DMA overlaps compute";
  let description = [{
    A tile allocated outside an `scf.for` and used only inside it, whose
    first use in each iteration writes all of it (a DMA or an engine
    instruction with the tile as its destination only), carries nothing
    from one iteration to the next. Giving iteration i the buffer
    `i mod buffers` lets the engines start filling iteration i + 1's tile
    while iteration i still reads its own: the software pipelining the Axe
    paper credits, with NKI's `[par, block, free]` buffers, for overlapping
    DMA with compute.

    A tile allocated in a loop body (a new tile every iteration) is moved
    out of the loop first and then rotated the same way. The tile becomes
    `buffers` times wider along its free dim, and every
    `memref.reinterpret_cast` of it moves by the slot's offset. Tiles that
    any other op views, and tiles that would take more than a quarter of
    their memory per partition once widened, stay as they are. A PSUM tile
    small enough that `buffers` of it share one 2 KiB bank gets as many
    slots as fit in that bank, up to 8: PSUM is allocated in whole banks.
  }];
  let dependentDialects = ["axe::trn::TrnDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
  let options = [
    Option<"buffers", "buffers", "int64_t", /*default=*/"2",
           "Buffers per rotated tile (2 or more)">
  ];
  let statistics = [
    Statistic<"numRotated", "rotated-tiles", "Number of tiles multi-buffered">
  ];
}

def TrnBalanceEngines : Pass<"trn-balance-engines", "mlir::func::FuncOp"> {
  let summary = "Spread copies and scalar arithmetic over VectorE, ScalarE and GpSimd";
  let description = [{
    Walks the function in program order and gives each instruction that
    more than one engine can run the engine whose estimated busy time, with
    the instruction's cost added, is lowest: `tensor_copy` on VectorE,
    GpSimd or ScalarE (which copies with `activation copy`),
    `tensor_scalar` on any of the three, `tensor_tensor` and `memset` on
    VectorE or GpSimd. GpSimd is never given a PSUM operand. An
    instruction inside loops weighs its trip count; the estimates are the
    simulator's cost formulas at its default clocks. Instructions whose
    engine is fixed (matmul, activation, tensor_reduce) count toward the
    load the others are balanced against.
  }];
  let dependentDialects = ["axe::trn::TrnDialect"];
  let statistics = [
    Statistic<"numMoved", "moved-instructions",
              "Number of instructions given another engine">
  ];
}

#endif // AXE_DIALECT_TRN_TRANSFORMS_PASSES_TD
