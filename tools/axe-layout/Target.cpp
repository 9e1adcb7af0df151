//===- Target.cpp - Thread-axis fusion for axe-layout canon --target -----===//

#include "Driver.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/TargetFusion.h"

using namespace axe;
using namespace axe::tool;

/// Axes that only exist on targets with warpgroups (sm_90 and later).
static bool isWarpgroupAxis(llvm::StringRef axis) {
  return axis == "wgid" || axis == "wid_in_wg" || axis == "tid_in_wg";
}

Result<Layout> tool::fuseForTarget(const Layout &layout,
                                   llvm::StringRef target) {
  if (target != "sm_80" && target != "sm_90" && target != "sm_100a")
    return fail("unknown --target '" + target.str() +
                "'; expected sm_80, sm_90 or sm_100a");
  if (target == "sm_80")
    for (const std::string &axis : layout.tile().axes())
      if (isWarpgroupAxis(axis))
        return fail("sm_80 has no warpgroups, but the layout uses axis '" +
                    axis + "'");
  // All three targets have 32 lanes per warp; sm_90 and sm_100a group four
  // warps into a warpgroup.
  Result<TileLayout> fused = fuseThreadAxes(layout.tile(), ThreadHierarchy{});
  if (!fused)
    return fused.takeFailure();
  TileLayout tile = canonicalize(*fused);
  if (layout.isSwizzled())
    return Layout(*layout.swizzle(), tile);
  return Layout(tile);
}
