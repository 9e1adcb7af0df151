//===- SharedAtoms.cpp - Shared tiles as repeated swizzle atoms -----------===//

#include "SharedAtoms.h"

#include "axe/Layout/SwizzleAlgebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
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

int64_t AtomTiling::sm100SwizzleField() const {
  if (!mode)
    return 0;
  switch (*mode) {
  case SwizzleMode::B128:
    return 2;
  case SwizzleMode::B64:
    return 4;
  case SwizzleMode::B32:
    return 6;
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

//===----------------------------------------------------------------------===//
// Matrix descriptors
//===----------------------------------------------------------------------===//

Result<SharedOperandPlan> axe::nvvm::planSharedOperand(BufferType type,
                                                       llvm::StringRef name,
                                                       llvm::StringRef instr,
                                                       DescriptorFormat format,
                                                       bool mnMajor) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  auto tiling = tileOfSharedAtom(type.getLayout(), type.getShape(), bits);
  if (!tiling)
    return fail(instr.str() + " reads " + name.str() +
                " through a shared-memory descriptor: " + tiling.message());
  SharedOperandPlan p;
  p.elementBytes = bits / 8;
  p.tiling = *tiling;
  p.mnMajor = mnMajor;
  auto steps = tiling->steps();
  if (!steps)
    return fail("the atoms of " + name.str() +
                " are not evenly spaced; a descriptor has one stride per "
                "direction");
  // The tiling's rows are the buffer's first dim: the operand's rows when
  // K-major, K when MN-major.
  int64_t down = steps->first * p.elementBytes,
          across = steps->second * p.elementBytes;
  int64_t sbo = down, lbo = tiling->mode ? 16 : across;
  if (mnMajor) {
    sbo = tiling->mode ? down : across;
    lbo = tiling->mode ? across : down;
  }
  // Every step of these instructions reads 32 bytes of a row (16 16-bit
  // elements, 8 32-bit ones), which the narrowest swizzle line holds.
  for (int64_t v : {sbo, lbo})
    if (v < 0 || v % 16 != 0 || (v >> 4) >= (int64_t(1) << 14))
      return fail("the atoms of " + name.str() + " are " + std::to_string(v) +
                  " bytes apart; a descriptor holds multiples of 16 below "
                  "256 KiB");
  int64_t align = tiling->mode ? 8 * tiling->lineBytes : 16;
  for (const auto &row : tiling->origins)
    for (int64_t o : row)
      if (o * p.elementBytes % align != 0)
        return fail("an atom of " + name.str() + " starts " +
                    std::to_string(o * p.elementBytes) +
                    " bytes into its buffer; with " +
                    swizzleName(tiling->mode) +
                    " atoms start at multiples "
                    "of " +
                    std::to_string(align) + " bytes");
  p.fixedBits = (uint64_t(lbo >> 4) << 16) | (uint64_t(sbo >> 4) << 32);
  if (format == DescriptorFormat::Sm90)
    p.fixedBits |= uint64_t(tiling->descriptorLayoutType()) << 62;
  else
    p.fixedBits |=
        (uint64_t(1) << 46) | (uint64_t(tiling->sm100SwizzleField()) << 61);
  return p;
}

static Value i64Constant(OpBuilder &b, Location loc, uint64_t v) {
  return arith::ConstantIntOp::create(b, loc, int64_t(v), 64);
}

Value axe::nvvm::emitMatrixDescriptor(OpBuilder &b, Location loc,
                                      const GPUOperand &operand,
                                      const SharedOperandPlan &plan, Value row,
                                      Value k0) {
  SmallVector<Value, 2> at = plan.mnMajor ? SmallVector<Value, 2>{k0, row}
                                          : SmallVector<Value, 2>{row, k0};
  CoordValue first =
      operand.emitter->emitUnswizzled(b, loc, at, &operand.ref.offset);
  Value bytes = byteAddress(b, loc, operand, operand.address(b, loc, first));
  Value address = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), bytes);
  // Bits [0, 14): the shared address over 16.
  Value field = arith::ShRUIOp::create(
      b, loc,
      arith::AndIOp::create(b, loc, address, i64Constant(b, loc, 0x3FFFF)),
      i64Constant(b, loc, 4));
  return arith::OrIOp::create(b, loc, field,
                              i64Constant(b, loc, plan.fixedBits));
}
