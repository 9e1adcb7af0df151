//===- CanonicalizeLayouts.cpp - Layout attributes into canonical form ----===//
//
// Every layout attribute, wherever it sits (op attributes, buffer types in
// results, block arguments and function signatures), is replaced by the
// layout library's canonical form, optionally after fusing thread axes for a
// target. The library does the rewriting; the pass only finds the
// attributes.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Dialect/Axe/Transforms/Passes.h"
#include "axe/Layout/TargetFusion.h"

#include "mlir/IR/AttrTypeSubElements.h"

namespace axe {
#define GEN_PASS_DEF_AXECANONICALIZELAYOUTS
#include "axe/Dialect/Axe/Transforms/Passes.h.inc"
} // namespace axe

using namespace mlir;
using namespace axe;

namespace {
struct CanonicalizeLayoutsPass
    : axe::impl::AxeCanonicalizeLayoutsBase<CanonicalizeLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<ThreadHierarchy> hierarchy;
    bool hasWarpgroups = false;
    if (!target.empty()) {
      Result<const TargetDescription *> desc = lookupTarget(target);
      // Bad options are reported without printing the whole module.
      if (!desc) {
        mlir::emitError(getOperation()->getLoc()) << desc.message();
        return signalPassFailure();
      }
      if (!(*desc)->hasWarps()) {
        mlir::emitError(getOperation()->getLoc())
            << "target " << target << " has no thread axes to fuse";
        return signalPassFailure();
      }
      hasWarpgroups = (*desc)->hasWarpgroups();
      hierarchy = ThreadHierarchy{
          (*desc)->warpSize, hasWarpgroups ? (*desc)->warpsPerWarpgroup : 4};
    }

    // The op whose elements are being replaced, for diagnostics.
    Operation *current = nullptr;
    bool failed = false;

    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](LayoutAttrInterface attr)
            -> std::optional<std::pair<Attribute, WalkResult>> {
          // Canonical first, so that iters which place nothing (extent 1,
          // stride 0) do not stand in the way of fusion; canonical again
          // afterwards, since fused iters may merge.
          Layout layout = canonicalize(attr.getLayout());
          if (hierarchy) {
            auto refuse = [&](const std::string &why) {
              current->emitError()
                  << "cannot fuse the thread axes of " << attr.str() << " for "
                  << target << ": " << why;
              failed = true;
              return std::make_pair(Attribute(attr), WalkResult::skip());
            };
            if (!hasWarpgroups)
              for (const std::string &axis : layout.tile().axes())
                if (getAxisScope(axis) == ScopeKind::Warpgroup ||
                    axis == "wgid")
                  return refuse(target +
                                " has no warpgroups, but the layout "
                                "uses axis '" +
                                axis + "'");
            Result<TileLayout> fused =
                fuseThreadAxes(layout.tile(), *hierarchy);
            if (!fused)
              return refuse(fused.message());
            layout = layout.swizzle() ? Layout(*layout.swizzle(), *fused)
                                      : Layout(*fused);
          }
          LayoutAttrInterface canonical =
              getLayoutAttr(attr.getContext(), canonicalize(layout));
          if (canonical != attr)
            ++numRewritten;
          // The replacement is complete: its sub-elements are canonical too.
          return std::make_pair(Attribute(canonical), WalkResult::skip());
        });

    getOperation()->walk([&](Operation *op) {
      current = op;
      replacer.replaceElementsIn(op, /*replaceAttrs=*/true,
                                 /*replaceLocs=*/false, /*replaceTypes=*/true);
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
