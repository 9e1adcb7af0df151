//===- Passes.td - Passes on the axe dialect ---------------*- tablegen -*-===//

#ifndef AXE_DIALECT_AXE_TRANSFORMS_PASSES_TD
#define AXE_DIALECT_AXE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AxeCanonicalizeLayouts : Pass<"axe-canonicalize-layouts"> {
  let summary = "Rewrite every layout attribute into canonical form";
  let description = [{
    Replaces every layout attribute reachable from the operation (in
    attributes and inside types such as `!axe.buffer`) by its canonical form
    as the layout library computes it (`docs/LayoutSemantics.md` section 4):
    unit iters dropped, mergeable iters merged, replicas normalized and
    sorted, identity swizzles removed. The maps do not change, so the IR
    means the same and still verifies.

    With `target=<name>`, hierarchical thread axes are also fused into their
    parent axes as the target defines them (e.g. `warpid`/`laneid` into `tx`
    with 32 lanes per warp), then canonicalized again.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Fuse thread axes as this target defines them (sm_80, sm_90, "
           "sm_100a, cpu); empty: canonicalize only">
  ];
  let statistics = [
    Statistic<"numRewritten", "rewritten-layouts",
              "Number of distinct layout attributes that changed">
  ];
}

//===----------------------------------------------------------------------===//
// Accumulators that start from zero
//===----------------------------------------------------------------------===//

def AxeZeroInitAccumulators : Pass<"axe-zero-init-accumulators"> {
  let summary = "Start a loop's gemm accumulation from zero instead of a fill";
  let description = [{
    Finds `axe.fill %c, 0` followed by an `scf.for` (constant bounds, at
    least one iteration) whose body's first use of `%c` is an `axe.gemm`
    into `%c`. The loop's first iteration is peeled; its gemm gets
    `zero_init` and the fill is erased. wgmma then issues its first step
    with scale-d = 0 and tcgen05.mma its first without input D, so the
    accumulator is never written with zeros (`axe-dispatch` puts the fill
    back, before the gemm, for schedules that cannot).

    `%c` must be an `axe.alloc` result that nothing uses before the fill,
    so that no alias of it escapes the analysis. Part of `axe-to-nvvm`; not
    of `axe-to-cpu`, whose warp-specialized kernels run their partitions'
    loops fused and need them to have the same shape.
  }];
  // Peeling computes the remaining loop's bounds with affine.apply.
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numFolded", "folded-fills",
              "Number of zero fills replaced by a zero_init gemm">
  ];
}

#endif // AXE_DIALECT_AXE_TRANSFORMS_PASSES_TD
