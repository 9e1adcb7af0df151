//===- LayoutTestUtil.h - Small helpers shared by the layout tests -*- C++ -*-//

#ifndef AXE_UNITTESTS_LAYOUT_LAYOUTTESTUTIL_H
#define AXE_UNITTESTS_LAYOUT_LAYOUTTESTUTIL_H

#include "axe/Layout/TileLayout.h"

#include "gtest/gtest.h"

namespace axe::testing {

/// Parses a layout the test itself wrote; a parse failure fails the test
/// (and yields the one-element layout so the test can go on reporting).
inline TileLayout parseOrDie(llvm::StringRef text) {
  Result<TileLayout> l = parseTileLayout(text);
  EXPECT_TRUE(bool(l)) << text.str() << ": " << l.message();
  return l ? *l : TileLayout();
}

} // namespace axe::testing

#endif // AXE_UNITTESTS_LAYOUT_LAYOUTTESTUTIL_H
