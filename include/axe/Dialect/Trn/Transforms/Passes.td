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

#endif // AXE_DIALECT_TRN_TRANSFORMS_PASSES_TD
