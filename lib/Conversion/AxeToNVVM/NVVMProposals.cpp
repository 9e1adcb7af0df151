//===- NVVMProposals.cpp - Layouts the nvvm schedules propose -------------===//
//
// The anchors of layout inference on NVIDIA targets (axe-infer-layouts ask
// a schedule for the layouts it would run an op with, where some of its
// buffers are `?`). The layouts themselves come from lib/Layout: the
// instruction fragments and swizzle atoms of HardwareLayouts.h, arranged
// over an operand with tile(). What is decided here is the arrangement: the
// swizzle a shared tile takes (the rule CuTe uses: the widest swizzle line
// that divides a row), and the register tile a vectorized copy likes. The
// SIMT copy and elementwise proposals live here; each tensor-core schedule
// proposes next to its match, from the same atom choice.
//
//===----------------------------------------------------------------------===//

#include "NVVMSchedules.h"
#include "SIMT.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/Strided.h"
#include "axe/Layout/SwizzleAlgebra.h"

using namespace mlir;

namespace axe::nvvm {

bool isInferred(Value buffer) { return !typeOf(buffer).hasLayout(); }

void proposeOperand(LayoutProposal &proposal, unsigned operand, Value buffer,
                    const Layout &layout) {
  Layout canonical = canonicalize(layout);
  if (auto grouped = group(canonical.tile(), typeOf(buffer).getShape()))
    canonical = canonical.withTile(grouped->layout);
  proposal.layouts.push_back(
      {operand, getLayoutAttr(buffer.getContext(), canonical)});
}

Layout sharedTileLayout(ArrayRef<int64_t> shape, unsigned elementBits) {
  if (shape.size() != 2)
    return Layout(rowMajorLayout(shape));
  int64_t rowBytes = shape[1] * elementBits / 8;
  for (SwizzleMode mode :
       {SwizzleMode::B128, SwizzleMode::B64, SwizzleMode::B32}) {
    Result<Layout> atom = swizzleAtom(mode, elementBits);
    Result<Shape> atomShape = swizzleAtomShape(mode, elementBits);
    if (!atom || !atomShape)
      break;
    int64_t rows = (*atomShape)[0], cols = (*atomShape)[1];
    if (shape[0] % rows != 0 || shape[1] % cols != 0 ||
        rowBytes % (cols * elementBits / 8) != 0)
      continue;
    // The atoms down the rows first: a K step of a K-major operand then
    // stays inside one column of atoms, whose spacing is the descriptors'
    // one stride.
    int64_t down = shape[0] / rows, across = shape[1] / cols;
    auto outer = TileLayout::create({Iter{down, 1}, Iter{across, down}});
    if (!outer)
      break;
    Result<Layout> tiled =
        tileSwizzledAtom(*atom, *atomShape, *outer, {down, across});
    if (tiled)
      return *tiled;
  }
  return Layout(rowMajorLayout(shape));
}

Layout tmaBoxLayout(ArrayRef<int64_t> shape, unsigned elementBits) {
  if (shape.size() == 2) {
    int64_t rowBytes = shape[1] * elementBits / 8;
    if (rowBytes == 128 || rowBytes == 64 || rowBytes == 32)
      return sharedTileLayout(shape, elementBits);
  }
  return Layout(rowMajorLayout(shape));
}

std::optional<Layout> vectorRegisterTile(const TargetDescription &target,
                                         ScopeKind scope, int64_t threadsPerCTA,
                                         ArrayRef<int64_t> shape,
                                         unsigned elementBits) {
  if (elementBits == 0 || elementBits > 128)
    return std::nullopt;
  auto unit = ExecutionScope(static_cast<int>(scope));
  int64_t threads = target.threadsPerInstance(unit, threadsPerCTA);
  int64_t elements = 1;
  for (int64_t e : shape)
    elements *= e;
  if (threads < 1 || elements == 0)
    return std::nullopt;
  const TargetAxis *threadAxis =
      target.axisNumbering(ExecutionScope::Thread, unit, /*dim=*/0);
  // One element: every thread of the scope holds it (an operator at a wider
  // scope cannot own a buffer of one thread).
  if (elements == 1) {
    if (threads == 1)
      return Layout(*TileLayout::create({Iter{1, 0}}));
    if (!threadAxis)
      return std::nullopt;
    auto tile = TileLayout::create({Iter{1, 0}},
                                   {Iter{threads, 1, threadAxis->name.str()}});
    if (!tile)
      return std::nullopt;
    return Layout(*tile);
  }
  // Runs of up to 16 bytes that divide the rows, each dealt to a thread:
  // the split that keeps the most elements in flight per round (the most
  // threads among which the runs divide evenly, times the run), the more
  // threads on a tie, so a small tile still spreads over the scope. A tile
  // of fewer runs than threads leaves some without elements.
  // The layout of `r`-element runs dealt round robin to `t` threads, when
  // its iters split along the tile's dims (a buffer's layout must group by
  // its shape).
  auto deal = [&](int64_t r, int64_t t) -> std::optional<TileLayout> {
    IterList iters;
    if (int64_t rounds = elements / (t * r); rounds > 1)
      iters.push_back(Iter{rounds, r});
    if (t > 1) {
      if (!threadAxis)
        return std::nullopt;
      iters.push_back(Iter{t, 1, threadAxis->name.str()});
    }
    iters.push_back(Iter{r, 1});
    auto tile = TileLayout::create(iters);
    if (!tile || !group(*tile, shape))
      return std::nullopt;
    return *tile;
  };
  std::optional<TileLayout> best;
  int64_t run = 1, used = 1;
  // Elements narrower than a byte move one at a time.
  int64_t longest = elementBits % 8 == 0 ? 128 / elementBits : 1;
  for (int64_t r = longest; r >= 1; r /= 2) {
    if (shape.back() % r != 0)
      continue;
    for (int64_t t = std::min(threads, elements / r); t >= 1; --t) {
      if ((elements / r) % t != 0)
        continue;
      if (!(t * r > used * run || (t * r == used * run && t > used)) && best)
        break;
      if (std::optional<TileLayout> tile = deal(r, t)) {
        best = tile;
        run = r;
        used = t;
        break;
      }
    }
  }
  if (!best)
    return std::nullopt;
  return Layout(*best);
}

namespace {

std::string shapeText(ArrayRef<int64_t> shape, Type element) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (auto [i, e] : llvm::enumerate(shape))
    os << (i ? "x" : "") << e;
  os << "x" << element;
  return s;
}

/// The swizzle a shared tile proposal took, for reasons.
std::string describeShared(const Layout &layout, ArrayRef<int64_t> shape,
                           unsigned bits) {
  if (shape.empty())
    return "a scalar";
  std::string rows = std::to_string(shape.back() * bits / 8) + "-byte rows";
  std::optional<Swizzle> s = layout.effectiveSwizzle();
  if (!s)
    return rows + ", row-major";
  return rows + ", " + std::to_string(16 << s->swizzleLen) + "B swizzle";
}

} // namespace

SmallVector<LayoutProposal> proposeSIMTCopy(Operation *raw,
                                            const ScheduleContext &ctx) {
  Value src = raw->getOperand(0), dst = raw->getOperand(1);
  bool srcUnknown = isInferred(src), dstUnknown = isInferred(dst);
  if (srcUnknown == dstUnknown || !raw->getParentOfType<KernelOp>())
    return {};
  unsigned operand = srcUnknown ? 0 : 1;
  BufferType unknown = typeOf(srcUnknown ? src : dst);
  BufferType known = typeOf(srcUnknown ? dst : src);
  if (unknown.getShape() != known.getShape())
    return {};
  Value target = srcUnknown ? src : dst;
  unsigned bits = unknown.getElementType().getIntOrFloatBitWidth();
  SmallVector<LayoutProposal> out;
  switch (unknown.getMemorySpace()) {
  case MemorySpace::Shared: {
    // Swizzled rows, which whole-row readers (ldmatrix, descriptors) and
    // 16-byte copies take without conflicts; plain rows as the variant.
    Layout swizzled = sharedTileLayout(unknown.getShape(), bits);
    LayoutProposal p;
    proposeOperand(p, operand, target, swizzled);
    p.reason = "shared " +
               shapeText(unknown.getShape(), unknown.getElementType()) + ": " +
               describeShared(swizzled, unknown.getShape(), bits);
    out.push_back(std::move(p));
    if (swizzled.effectiveSwizzle()) {
      LayoutProposal plain;
      proposeOperand(plain, operand, target,
                     Layout(rowMajorLayout(unknown.getShape())));
      plain.cost = 0.5;
      plain.reason = "shared row-major (column reads conflict)";
      out.push_back(std::move(plain));
    }
    break;
  }
  case MemorySpace::Reg: {
    std::optional<Layout> tile = vectorRegisterTile(
        *ctx.target, scopeOf(raw), threadsOf(raw), unknown.getShape(), bits);
    if (!tile)
      break;
    LayoutProposal p;
    proposeOperand(p, operand, target, *tile);
    p.reason = "registers in runs of up to 16 bytes, round robin over the "
               "scope's threads";
    out.push_back(std::move(p));
    break;
  }
  default:
    break;
  }
  return out;
}

SmallVector<LayoutProposal> proposeSIMTElementwise(Operation *raw,
                                                   const ScheduleContext &ctx) {
  auto op = cast<ElementwiseOp>(raw);
  SmallVector<Value> all(op.getInputs());
  llvm::append_range(all, op.getOutputs());
  LayoutProposal p;
  for (auto [k, v] : llvm::enumerate(all)) {
    if (!isInferred(v))
      continue;
    BufferType t = typeOf(v);
    // The first known operand of the same shape in the same memory.
    std::optional<Layout> same;
    for (Value w : all)
      if (!isInferred(w) && typeOf(w).getShape() == t.getShape() &&
          spaceOf(w) == t.getMemorySpace()) {
        same = typeOf(w).getLayout();
        break;
      }
    // A register input that broadcasts to a known register operand: held
    // by every thread that holds what it broadcasts to, so no thread reads
    // another's registers (a bias row against an mma accumulator).
    if (!same && t.getMemorySpace() == MemorySpace::Reg)
      for (Value w : all) {
        if (isInferred(w) || spaceOf(w) != MemorySpace::Reg ||
            typeOf(w).getLayout().isSwizzled())
          continue;
        Result<TileLayout> source = broadcastSourceLayout(
            typeOf(w).getLayout().tile(), typeOf(w).getShape(), t.getShape());
        if (source) {
          same = Layout(*source);
          break;
        }
      }
    if (!same && t.getMemorySpace() == MemorySpace::Reg)
      same = vectorRegisterTile(*ctx.target, scopeOf(raw), threadsOf(raw),
                                t.getShape(),
                                t.getElementType().getIntOrFloatBitWidth());
    if (!same)
      return {};
    proposeOperand(p, k, v, *same);
  }
  if (p.layouts.empty())
    return {};
  p.reason = "each `?` operand as a known operand of its shape and memory "
             "(a register input broadcast as the registers it broadcasts to, "
             "else 16-byte runs over the scope's threads)";
  return {std::move(p)};
}

} // namespace axe::nvvm
