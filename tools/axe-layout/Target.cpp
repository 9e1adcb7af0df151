//===- Target.cpp - Thread-axis fusion for axe-layout canon --target -----===//

#include "Driver.h"

#include "axe/Target/ThreadFusion.h"

using namespace axe;
using namespace axe::tool;

Result<Layout> tool::fuseForTarget(const Layout &layout,
                                   llvm::StringRef target) {
  Result<const TargetDescription *> desc = lookupTarget(target);
  if (!desc)
    return fail("--target: " + desc.message());
  return fuseThreadAxesFor(layout, **desc);
}
