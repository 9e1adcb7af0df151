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
#include "axe/Target/ThreadFusion.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Verifier.h"

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
    const TargetDescription *desc = nullptr;
    if (!target.empty()) {
      Result<const TargetDescription *> found = lookupTarget(target);
      // Bad options are reported without printing the whole module.
      if (!found) {
        mlir::emitError(getOperation()->getLoc()) << found.message();
        return signalPassFailure();
      }
      desc = *found;
      if (!desc->hasWarps()) {
        mlir::emitError(getOperation()->getLoc())
            << "target " << target << " has no thread axes to fuse";
        return signalPassFailure();
      }
    }

    // The op whose elements are being replaced, for diagnostics.
    Operation *current = nullptr;
    bool failed = false;

    AttrTypeReplacer replacer;
    replacer.addReplacement(
        [&](LayoutAttrInterface attr)
            -> std::optional<std::pair<Attribute, WalkResult>> {
          Layout layout = canonicalize(attr.getLayout());
          if (desc) {
            Result<Layout> fused = fuseThreadAxesFor(layout, *desc);
            if (!fused) {
              current->emitError()
                  << "cannot fuse the thread axes of " << attr.str() << " for "
                  << target << ": " << fused.message();
              failed = true;
              return std::make_pair(Attribute(attr), WalkResult::skip());
            }
            layout = *fused;
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
      return signalPassFailure();
    // Fusing reads warpid/laneid as the target lays out its threads. A
    // kernel that names no target was verified without that reading, and
    // its fused layouts may not fit its launch (4 warps in 64 threads): say
    // so here rather than hand on IR that does not verify.
    if (desc && mlir::failed(mlir::verify(getOperation())))
      signalPassFailure();
  }
};
} // namespace
