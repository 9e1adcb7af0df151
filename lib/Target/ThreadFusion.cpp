//===- ThreadFusion.cpp - Fusing thread axes as a target groups them ------===//

#include "axe/Target/ThreadFusion.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/TargetFusion.h"

using namespace axe;

static bool isWarpgroupAxis(llvm::StringRef axis) {
  return axis == "wgid" || axis == "wid_in_wg" || axis == "tid_in_wg";
}

Result<Layout> axe::fuseThreadAxesFor(const Layout &layout,
                                      const TargetDescription &target) {
  if (!target.hasWarps())
    return fail("target " + target.name.str() + " has no thread axes to fuse");
  // Canonical first, so that iters which place nothing (extent 1, stride 0)
  // do not stand in the way of fusion.
  Layout canonical = canonicalize(layout);
  if (!target.hasWarpgroups())
    for (const std::string &axis : canonical.tile().axes())
      if (isWarpgroupAxis(axis))
        return fail(target.name.str() +
                    " has no warpgroups, but the layout uses axis '" + axis +
                    "'");
  // Without warpgroups no warpgroup axis remains, so the warpgroup size is
  // never consulted; the default keeps the hierarchy well formed.
  ThreadHierarchy hierarchy{target.warpSize,
                            target.hasWarpgroups()
                                ? target.warpsPerWarpgroup
                                : ThreadHierarchy{}.warpsPerWarpgroup};
  Result<TileLayout> fused = fuseThreadAxes(canonical.tile(), hierarchy);
  if (!fused)
    return fused.takeFailure();
  TileLayout tile = canonicalize(*fused);
  if (layout.isSwizzled())
    return Layout(*layout.swizzle(), tile);
  return Layout(tile);
}
