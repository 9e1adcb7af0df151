//===- SharedAtoms.cpp - Shared tiles as repeated swizzle atoms -----------===//

#include "SharedAtoms.h"

#include "axe/Layout/SwizzleAlgebra.h"

#include "llvm/Support/MathExtras.h"

using namespace axe;
using namespace axe::nvvm;

std::optional<std::pair<int64_t, int64_t>> AtomTiling::steps() const {
  int64_t rows = rowBlocks(), cols = colBlocks();
  if (!rows || !cols)
    return std::nullopt;
  int64_t down = rows > 1 ? origins[1][0] - origins[0][0] : 0;
  int64_t across = cols > 1 ? origins[0][1] - origins[0][0] : 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      if (origins[i][j] != origins[0][0] + i * down + j * across)
        return std::nullopt;
  return std::make_pair(down, across);
}

int64_t AtomTiling::descriptorLayoutType() const {
  if (!mode)
    return 0;
  switch (*mode) {
  case SwizzleMode::B128:
    return 1;
  case SwizzleMode::B64:
    return 2;
  case SwizzleMode::B32:
    return 3;
  }
  return 0;
}

std::string axe::nvvm::swizzleName(const std::optional<SwizzleMode> &mode) {
  return mode ? swizzleModeName(*mode).str() + " swizzle" : "no swizzle";
}

/// Each copy's first element on m, read off the outer layout of tile-of
/// (which counts m in atom spans of `span` elements).
static Result<std::vector<std::vector<int64_t>>>
originsOf(const TileLayout &outer, int64_t rowBlocks, int64_t colBlocks,
          int64_t span) {
  std::vector<std::vector<int64_t>> o(rowBlocks,
                                      std::vector<int64_t>(colBlocks));
  for (int64_t i = 0; i < rowBlocks; ++i)
    for (int64_t j = 0; j < colBlocks; ++j) {
      auto p = outer.apply({i, j}, {rowBlocks, colBlocks});
      if (!p || p->size() != 1)
        return fail("the atoms' placement has replicas");
      for (const auto &[axis, v] : p->front().entries())
        if (axis != kDefaultAxis && v != 0)
          return fail("the atoms are placed on axis '" + axis + "' besides m");
      o[i][j] = p->front().get(kDefaultAxis) * span;
    }
  return o;
}

Result<AtomTiling> axe::nvvm::tileOfSharedAtom(const Layout &layout,
                                               llvm::ArrayRef<int64_t> shape,
                                               unsigned elementBits) {
  if (shape.size() != 2)
    return fail("a shared operand of rank " + std::to_string(shape.size()) +
                "; atoms tile 2-D operands");
  std::string reasons;
  for (SwizzleMode mode :
       {SwizzleMode::B128, SwizzleMode::B64, SwizzleMode::B32}) {
    Result<Layout> atom = swizzleAtom(mode, elementBits);
    Result<Shape> atomShape = swizzleAtomShape(mode, elementBits);
    if (!atom || !atomShape)
      return fail("no swizzle atom for " + std::to_string(elementBits) +
                  "-bit elements");
    std::string name = swizzleModeName(mode).str();
    if (shape[0] % (*atomShape)[0] || shape[1] % (*atomShape)[1]) {
      reasons += "; " + name + ": the shape is not whole " +
                 std::to_string((*atomShape)[0]) + "x" +
                 std::to_string((*atomShape)[1]) + " atoms";
      continue;
    }
    Result<TileLayout> outer = swizzledTileOf(layout, shape, *atom, *atomShape);
    if (!outer) {
      reasons += "; " + name + ": " + outer.message();
      continue;
    }
    AtomTiling t;
    t.mode = mode;
    t.atomRows = (*atomShape)[0];
    t.atomCols = (*atomShape)[1];
    t.lineBytes = t.atomCols * elementBits / 8;
    auto origins = originsOf(*outer, shape[0] / t.atomRows,
                             shape[1] / t.atomCols, t.atomRows * t.atomCols);
    if (!origins)
      return origins.takeFailure();
    t.origins = std::move(*origins);
    return t;
  }
  // Core matrices: 8 rows of 16 bytes, row-major, unswizzled.
  int64_t cols = 128 / elementBits;
  if (shape[0] % 8 == 0 && shape[1] % cols == 0) {
    auto core = TileLayout::create({Iter{8, cols}, Iter{cols, 1}});
    Result<TileLayout> outer =
        swizzledTileOf(layout, shape, Layout(*core), {8, cols});
    if (outer) {
      AtomTiling t;
      t.atomCols = cols;
      auto origins = originsOf(*outer, shape[0] / 8, shape[1] / cols, 8 * cols);
      if (!origins)
        return origins.takeFailure();
      t.origins = std::move(*origins);
      return t;
    }
    reasons += "; core matrices: " + outer.message();
  } else {
    reasons += "; core matrices: the shape is not whole 8x" +
               std::to_string(cols) + " matrices";
  }
  return fail("the layout " + layout.str() +
              " is no tile of a shared-memory atom (" + reasons.substr(2) +
              ")");
}
