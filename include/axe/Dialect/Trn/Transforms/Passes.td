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
    A `trn.buffers = N` attribute on the module overrides `buffers`, so a
    kernel can ask for the rotation depth its pipeline needs.
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
    Gives each instruction that more than one engine can run the engine
    on which the function's estimated schedule ends earliest:
    `tensor_copy` on VectorE, GpSimd or ScalarE (which copies with
    `activation copy`), `tensor_scalar` on any of the three,
    `tensor_tensor` and `memset` on VectorE or GpSimd. GpSimd is never
    given a PSUM operand. It starts from the lowest estimated busy time
    (weighted by loop trip counts) per instruction in program order, then
    moves single instructions while that shortens a list schedule: engine
    and SBUF/PSUM port free times, each buffer ready at its writer's end
    plus that engine's latency, a semaphore between compute engines, loop
    bodies run min(trips, 3) times and the rest extrapolated. The
    estimates are the simulator's cost formulas at its default clocks.
  }];
  let dependentDialects = ["axe::trn::TrnDialect"];
  let statistics = [
    Statistic<"numMoved", "moved-instructions",
              "Number of instructions given another engine">
  ];
}

def TrnSoftwarePipeline : Pass<"trn-software-pipeline", "mlir::func::FuncOp"> {
  let summary = "Software-pipeline loops of trn instructions across iterations";
  let description = [{
    The engines run their instructions in program order, so in a loop body
    that goes TensorE -> VectorE/ScalarE -> TensorE (scores, softmax,
    products), TensorE cannot start iteration i + 1's first matmuls until
    iteration i's softmax is done. This pass splits such a body into
    stages and emits stage s of iteration i - s in one kernel iteration,
    stage 0 first, after a prologue that starts the first iterations and
    before an epilogue that finishes the last ones:

    ```
    S0(0)                              // prologue
    scf.for %i = lb + step to ub {     // kernel
      S0(i) S1(i - step)
    }
    S1(last)                           // epilogue
    ```

    Each engine's queue then holds independent work of several
    iterations. A stage starts wherever the next instruction (or nested
    loop) of the body runs on other engines (`stages` caps how many, and
    a split must put TensorE work in two stages); index arithmetic and
    views are cloned into every stage that uses them, and a tile
    allocated in the body is allocated once before the prologue. A loop
    whose trip count is not constant runs the pipelined form under an
    `scf.if` that has enough iterations, the original loop otherwise.

    The reordering is checked, not assumed: the pass evaluates the index
    arithmetic of the loop nest for every iteration of the enclosing loops
    and of the loop itself, and computes each instruction's region in its
    tile or HBM tensor (a box over the tile's dims, as the simulator's
    dependency tracker does). Stage t of iteration i moves before stage
    s < t of iterations i + 1 .. i + (t - s); if any of those touch the
    same region with one write, the last cut between the two is dropped. Tiles that
    `trn-multi-buffer` rotates are what make the cuts legal. A loop whose
    index arithmetic cannot be evaluated, which has results, or whose body
    has other side effects is left alone (with a warning under
    `report`).
  }];
  let dependentDialects = ["axe::trn::TrnDialect", "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"5",
           "Most stages per loop (1 turns the pass off)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Warn at every loop left alone, with the reason, and at every "
           "loop pipelined, with a note giving each instruction's stage">,
    Option<"maxChecks", "max-checks", "int64_t", /*default=*/"4000000",
           "Most instruction instances the dependence check evaluates per loop">
  ];
  let statistics = [
    Statistic<"numPipelined", "pipelined-loops", "Number of loops pipelined">
  ];
}

#endif // AXE_DIALECT_TRN_TRANSFORMS_PASSES_TD
