//===- ThreadFusion.cpp - Fusing thread axes as a target groups them ------===//

#include "axe/Target/ThreadFusion.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/TargetFusion.h"

using namespace axe;

/// Whether `axis` is one a target without warpgroups cannot have: the
/// warpgroup axes of any target (an axis name means one thing everywhere).
static bool isWarpgroupAxis(llvm::StringRef axis) {
  const TargetAxis *a = findAxisOnAnyTarget(axis);
  return a && (a->role == AxisRole::Warpgroup ||
               a->scope == ExecutionScope::Warpgroup);
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
  Result<TileLayout> fused =
      fuseThreadAxes(canonical.tile(), target.threadHierarchy());
  if (!fused)
    return fused.takeFailure();
  TileLayout tile = canonicalize(*fused);
  if (layout.isSwizzled())
    return Layout(*layout.swizzle(), tile);
  return Layout(tile);
}
