//===- Passes.td - Passes on the axe dialect ---------------*- tablegen -*-===//

#ifndef AXE_DIALECT_AXE_TRANSFORMS_PASSES_TD
#define AXE_DIALECT_AXE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AxeCanonicalizeLayouts : Pass<"axe-canonicalize-layouts"> {
  let summary = "Rewrite every layout attribute into canonical form";
  let description = [{
    Replaces every layout attribute reachable from the operation (in
    attributes and inside types such as `!axe.buffer`) by its canonical form
    as the layout library computes it (`LAYOUT_SPEC.md` section 4): unit
    iters dropped, mergeable iters merged, replicas normalized and sorted,
    identity swizzles removed. The maps do not change, so the IR means the
    same and still verifies.

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

#endif // AXE_DIALECT_AXE_TRANSFORMS_PASSES_TD
