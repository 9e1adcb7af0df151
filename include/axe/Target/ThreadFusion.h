//===- ThreadFusion.h - Fusing thread axes as a target groups them -*- C++ -*-//
//
// The target-aware form of axe::fuseThreadAxes: the calculator's
// `canon --target` and the axe-canonicalize-layouts pass both use it, so the
// two always agree.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TARGET_THREADFUSION_H
#define AXE_TARGET_THREADFUSION_H

#include "axe/Layout/Swizzle.h"
#include "axe/Target/Target.h"

namespace axe {

/// Canonicalizes `layout`, rewrites its hierarchical thread axes into their
/// parent axis with the target's warp and warpgroup sizes, and canonicalizes
/// again (fused iters may merge). Fails when the target has no warps, when
/// the layout uses warpgroup axes on a target without warpgroups, or when
/// fusion would change the map.
Result<Layout> fuseThreadAxesFor(const Layout &layout,
                                 const TargetDescription &target);

} // namespace axe

#endif // AXE_TARGET_THREADFUSION_H
