//===- LayoutEmitter.cpp - Emit layout address arithmetic as IR -----------===//

#include "axe/Codegen/LayoutEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;

namespace axe {

//===----------------------------------------------------------------------===//
// Index helpers
//===----------------------------------------------------------------------===//

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

static std::optional<int64_t> constantOf(Value v) {
  APInt value;
  if (v && matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

Value addIndex(OpBuilder &b, Location loc, Value a, Value c) {
  if (!a)
    return c;
  if (!c)
    return a;
  if (constantOf(a) == 0)
    return c;
  if (constantOf(c) == 0)
    return a;
  return b.createOrFold<arith::AddIOp>(loc, a, c);
}

Value mulIndex(OpBuilder &b, Location loc, Value a, int64_t c) {
  if (c == 1)
    return a;
  if (c == 0)
    return Value();
  return b.createOrFold<arith::MulIOp>(loc, a, indexConstant(b, loc, c));
}

//===----------------------------------------------------------------------===//
// CoordValue
//===----------------------------------------------------------------------===//

Value CoordValue::lookup(llvm::StringRef axis) const {
  auto it = values.find(axis.str());
  return it == values.end() ? Value() : it->second;
}

Value CoordValue::get(OpBuilder &b, Location loc, llvm::StringRef axis) const {
  if (Value v = lookup(axis))
    return v;
  return indexConstant(b, loc, 0);
}

void CoordValue::set(llvm::StringRef axis, Value v) {
  if (v)
    values[axis.str()] = v;
  else
    values.erase(axis.str());
}

void CoordValue::add(OpBuilder &b, Location loc, llvm::StringRef axis,
                     Value v) {
  if (!v)
    return;
  set(axis, addIndex(b, loc, lookup(axis), v));
}

void CoordValue::add(OpBuilder &b, Location loc, llvm::StringRef axis,
                     int64_t v) {
  if (v != 0)
    add(b, loc, axis, indexConstant(b, loc, v));
}

void CoordValue::add(OpBuilder &b, Location loc, const Coord &c) {
  for (const auto &[axis, v] : c.entries())
    add(b, loc, axis, v);
}

void CoordValue::add(OpBuilder &b, Location loc, const CoordValue &c) {
  for (const auto &[axis, v] : c.entries())
    add(b, loc, axis, v);
}

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

Value emitSwizzle(OpBuilder &b, Location loc, const Swizzle &swizzle, Value m) {
  if (swizzle.isIdentity())
    return m;
  // out = m xor (((m >> (M + S)) & (2^B - 1)) << M): only bits [M, M+B) move.
  Value shifted = b.createOrFold<arith::ShRUIOp>(
      loc, m, indexConstant(b, loc, swizzle.perElement + swizzle.atomLen));
  Value masked = b.createOrFold<arith::AndIOp>(
      loc, shifted,
      indexConstant(b, loc, (int64_t(1) << swizzle.swizzleLen) - 1));
  Value moved = b.createOrFold<arith::ShLIOp>(
      loc, masked, indexConstant(b, loc, swizzle.perElement));
  return b.createOrFold<arith::XOrIOp>(loc, m, moved);
}

//===----------------------------------------------------------------------===//
// LayoutEmitter
//===----------------------------------------------------------------------===//

Result<LayoutEmitter> LayoutEmitter::get(const Layout &layout,
                                         llvm::ArrayRef<int64_t> shape) {
  if (!layout.admits(shape))
    return fail("layout " + layout.str() + " does not admit shape " +
                shapeStr(shape));
  Result<GroupedLayout> grouped = group(layout.tile(), shape);
  if (!grouped)
    return grouped.takeFailure();
  LayoutEmitter emitter;
  emitter.fullLayout = layout;
  emitter.groupedLayout = *grouped;
  emitter.tileShape.assign(shape.begin(), shape.end());
  return emitter;
}

void LayoutEmitter::addDimContribution(OpBuilder &b, Location loc, unsigned dim,
                                       Value index, CoordValue &acc) const {
  llvm::ArrayRef<Iter> iters = groupedLayout.block(dim);
  // Digits are taken fastest first: digit k = (index / faster) mod extent.
  // The slowest digit needs no mod since index is in range.
  int64_t faster = 1;
  for (int k = int(iters.size()) - 1; k >= 0; --k) {
    const Iter &it = iters[k];
    if (it.extent == 1)
      continue;
    if (it.stride != 0) {
      Value digit = index;
      if (faster != 1)
        digit = b.createOrFold<arith::DivUIOp>(loc, digit,
                                               indexConstant(b, loc, faster));
      if (k != 0)
        digit = b.createOrFold<arith::RemUIOp>(
            loc, digit, indexConstant(b, loc, it.extent));
      acc.add(b, loc, it.axis, mulIndex(b, loc, digit, it.stride));
    }
    faster *= it.extent;
  }
}

CoordValue LayoutEmitter::emitUnswizzled(OpBuilder &b, Location loc,
                                         ValueRange indices,
                                         const CoordValue *extra) const {
  assert(indices.size() == rank() && "one index per logical dim");
  CoordValue c;
  c.add(b, loc, groupedLayout.layout.offset());
  if (extra)
    c.add(b, loc, *extra);
  for (unsigned d = 0; d < rank(); ++d)
    addDimContribution(b, loc, d, indices[d], c);
  return c;
}

void LayoutEmitter::applySwizzle(OpBuilder &b, Location loc,
                                 CoordValue &c) const {
  if (!fullLayout.isSwizzled())
    return;
  c.set(kDefaultAxis, emitSwizzle(b, loc, *fullLayout.swizzle(),
                                  c.get(b, loc, kDefaultAxis)));
}

void LayoutEmitter::forEachPlacement(
    OpBuilder &b, Location loc, const CoordValue &base,
    llvm::function_ref<void(OpBuilder &, Location, const CoordValue &)> fn,
    int64_t maxUnrolled) const {
  const TileLayout &tile = groupedLayout.layout;
  if (tile.replicaCount() <= maxUnrolled) {
    for (const Coord &r : tile.replicaOffsets()) {
      CoordValue c = base;
      c.add(b, loc, r);
      applySwizzle(b, loc, c);
      fn(b, loc, c);
    }
    return;
  }
  // One loop per replica iter; each adds iv * stride on its axis.
  std::function<void(OpBuilder &, unsigned, const CoordValue &)> nest =
      [&](OpBuilder &nb, unsigned k, const CoordValue &acc) {
        if (k == tile.replica().size()) {
          CoordValue c = acc;
          applySwizzle(nb, loc, c);
          fn(nb, loc, c);
          return;
        }
        const Iter &it = tile.replica()[k];
        scf::ForOp::create(
            nb, loc, indexConstant(nb, loc, 0),
            indexConstant(nb, loc, it.extent), indexConstant(nb, loc, 1),
            ValueRange(), [&](OpBuilder &lb, Location, Value iv, ValueRange) {
              CoordValue next = acc;
              next.add(lb, loc, it.axis, mulIndex(lb, loc, iv, it.stride));
              nest(lb, k + 1, next);
              scf::YieldOp::create(lb, loc);
            });
      };
  nest(b, 0, base);
}

//===----------------------------------------------------------------------===//
// IterSpace
//===----------------------------------------------------------------------===//

IterSpace IterSpace::build(llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<SpaceOperand> operands) {
  IterSpace space;
  space.spaceShape.assign(shape.begin(), shape.end());
  space.spaceOperands.assign(operands.begin(), operands.end());
  unsigned numOps = operands.size();

  for (unsigned d = 0; d < shape.size(); ++d) {
    // Per operand: its block of iters along d (empty when it does not run
    // along d), walked fastest first.
    struct Cursor {
      llvm::SmallVector<Iter, 4> iters; // fastest first, extents > 1
      unsigned pos = 0;
      int64_t remaining = 1;
      int64_t consumed = 1;
      bool present = false;
    };
    llvm::SmallVector<Cursor, 4> cursors(numOps);
    for (unsigned k = 0; k < numOps; ++k) {
      const SpaceOperand &op = operands[k];
      for (unsigned i = 0; i < op.dimOf.size(); ++i) {
        // A dim of extent 1 does not move the operand (e.g. a kept-dims
        // reduction result along a reduced dim).
        if (op.dimOf[i] != d || op.emitter->shape()[i] == 1)
          continue;
        cursors[k].present = true;
        for (const Iter &it : llvm::reverse(op.emitter->grouped().block(i)))
          if (it.extent > 1)
            cursors[k].iters.push_back(it);
      }
      if (!cursors[k].iters.empty())
        cursors[k].remaining = cursors[k].iters[0].extent;
    }

    llvm::SmallVector<SpaceLoop, 4> dimLoops; // fastest first
    bool linear = true;
    int64_t left = shape[d];
    int64_t logical = 1;
    while (left > 1) {
      int64_t g = 0;
      for (Cursor &c : cursors)
        if (c.present)
          g = std::gcd(g, c.remaining);
      if (g <= 1) {
        linear = false;
        break;
      }
      SpaceLoop loop;
      loop.dim = d;
      loop.extent = g;
      loop.logicalStride = logical;
      loop.steps.resize(numOps);
      for (unsigned k = 0; k < numOps; ++k) {
        Cursor &c = cursors[k];
        if (!c.present)
          continue;
        const Iter &it = c.iters[c.pos];
        loop.steps[k] = {it.axis, it.stride * c.consumed};
        c.consumed *= g;
        c.remaining /= g;
        if (c.remaining == 1 && c.pos + 1 < c.iters.size()) {
          ++c.pos;
          c.remaining = c.iters[c.pos].extent;
          c.consumed = 1;
        }
      }
      dimLoops.push_back(loop);
      left /= g;
      logical *= g;
    }
    if (!linear) {
      // One loop over the whole dim; placements are computed from digits.
      SpaceLoop loop;
      loop.dim = d;
      loop.extent = shape[d];
      loop.logicalStride = 1;
      loop.steps.resize(numOps);
      dimLoops.assign(1, loop);
    }
    space.linearDims.push_back(linear);
    for (SpaceLoop &l : llvm::reverse(dimLoops))
      space.spaceLoops.push_back(l);
  }
  return space;
}

void IterSpace::split(unsigned index, int64_t inner) {
  SpaceLoop &loop = spaceLoops[index];
  assert(inner > 0 && loop.extent % inner == 0 && "split must divide");
  SpaceLoop outer = loop;
  outer.extent = loop.extent / inner;
  outer.logicalStride = loop.logicalStride * inner;
  for (LoopStep &s : outer.steps)
    s.stride *= inner;
  loop.extent = inner;
  spaceLoops.insert(spaceLoops.begin() + index, outer);
}

SmallVector<Value> IterSpace::emitLogical(OpBuilder &b, Location loc,
                                          ValueRange ivs) const {
  SmallVector<Value> logical(spaceShape.size());
  for (auto [loop, iv] : llvm::zip_equal(spaceLoops, ivs))
    if (iv)
      logical[loop.dim] = addIndex(b, loc, logical[loop.dim],
                                   mulIndex(b, loc, iv, loop.logicalStride));
  for (Value &v : logical)
    if (!v)
      v = indexConstant(b, loc, 0);
  return logical;
}

CoordValue IterSpace::emitPlacement(OpBuilder &b, Location loc, unsigned k,
                                    ValueRange ivs,
                                    const CoordValue *extra) const {
  const SpaceOperand &op = spaceOperands[k];
  CoordValue c;
  c.add(b, loc, op.emitter->grouped().layout.offset());
  if (extra)
    c.add(b, loc, *extra);
  bool anyNonlinear = llvm::any_of(linearDims, [](bool l) { return !l; });
  SmallVector<Value> logical;
  if (anyNonlinear)
    logical = emitLogical(b, loc, ivs);
  for (auto [loop, iv] : llvm::zip_equal(spaceLoops, ivs)) {
    if (!iv || !linearDims[loop.dim])
      continue;
    const LoopStep &s = loop.steps[k];
    c.add(b, loc, s.axis, mulIndex(b, loc, iv, s.stride));
  }
  for (unsigned i = 0; i < op.dimOf.size(); ++i)
    if (!linearDims[op.dimOf[i]])
      op.emitter->addDimContribution(b, loc, i, logical[op.dimOf[i]], c);
  return c;
}

} // namespace axe
