//===- TargetTestUtils.h - Helpers shared by the target tests ---*- C++ -*-===//

#ifndef AXE_UNITTESTS_TARGET_TARGETTESTUTILS_H
#define AXE_UNITTESTS_TARGET_TARGETTESTUTILS_H

#include "axe/Target/Target.h"

#include "gtest/gtest.h"

namespace axe {

/// The built-in target called `name`; a test failure when there is none.
inline const TargetDescription &target(llvm::StringRef name) {
  Result<const TargetDescription *> t = lookupTarget(name);
  EXPECT_TRUE(bool(t)) << t.message();
  return **t;
}

} // namespace axe

#endif // AXE_UNITTESTS_TARGET_TARGETTESTUTILS_H
