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

/// A coordinate written out: coord({{"laneid", 8}, {"m", 1}}).
inline Coord
coord(std::initializer_list<std::pair<const char *, int64_t>> entries) {
  Coord c;
  for (auto [axis, v] : entries)
    c.add(axis, v);
  return c;
}

/// Fails unless `layout` has one element per place of a box of `lengths`.
inline ::testing::AssertionResult hasBoxSize(const TileLayout &layout,
                                             llvm::ArrayRef<int64_t> lengths) {
  int64_t n = 1;
  for (int64_t l : lengths)
    n *= l;
  if (layout.size() != n)
    return ::testing::AssertionFailure()
           << layout.str() << " has " << layout.size() << " elements, not "
           << n;
  return ::testing::AssertionSuccess();
}

} // namespace axe::testing

#endif // AXE_UNITTESTS_LAYOUT_LAYOUTTESTUTIL_H
