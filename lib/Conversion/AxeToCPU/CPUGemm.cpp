//===- CPUGemm.cpp - The packed, register-blocked gemm --------------------===//
//
// C (+)= A x B the way BLIS runs it: B in micro-panels of NR columns, each
// k-major so that the micro-kernel streams them, and an MR x NR block of C
// held in vector registers across a block of K, with A broadcast one element
// per row and k step. A is read from micro-panels of MR rows or, in place,
// from any rows or columns of unit stride: a block of MR rows touches MR
// lines per 16 k steps, which stay in L1. The panels are layouts like any
// other: an operand already laid out so is read in place, any other is
// packed (and widened to f32) with a layout copy. MR and NR come from the
// vector unit (width and register count) in CPUCodegenOptions, which the
// target description fills in.
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Support/ElementBytes.h"
#include "axe/Target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <optional>

using namespace mlir;

namespace axe {

namespace {

/// Blocks of `mr` rows over `m`, the remainder as one or two lower blocks:
/// a remainder under half a block joins the last full one and the two are
/// split evenly, so that no block holds too few accumulators to hide the
/// FMA latency.
llvm::SmallVector<GemmRowBlocks, 3> rowBlocksOf(int64_t m, int64_t mr) {
  int64_t full = m / mr, rem = m % mr;
  llvm::SmallVector<GemmRowBlocks, 3> blocks;
  auto add = [&](int64_t count, int64_t rows) {
    if (count == 0 || rows == 0)
      return;
    int64_t first =
        blocks.empty()
            ? 0
            : blocks.back().first + blocks.back().count * blocks.back().rows;
    blocks.push_back({first, count, rows});
  };
  if (rem == 0 || full == 0 || 2 * rem >= mr) {
    add(full, mr);
    add(1, rem);
    return blocks;
  }
  int64_t tail = rem + mr, high = (tail + 1) / 2, low = tail / 2;
  add(full - 1, mr);
  if (high == low) {
    add(2, high);
  } else {
    add(1, high);
    add(1, low);
  }
  return blocks;
}

} // namespace

GemmBlocking chooseGemmBlocking(int64_t m, int64_t n, int64_t k,
                                const CPUCodegenOptions &opts) {
  GemmBlocking g;
  g.lanes = 1;
  for (int64_t cand = std::max<int64_t>(1, opts.vectorLanes32); cand >= 1;
       cand /= 2)
    if (n % cand == 0) {
      g.lanes = cand;
      break;
    }
  g.vectors = (n / g.lanes) % 2 == 0 ? 2 : 1;
  // Accumulators, the B vectors of one k step and one broadcast of A must
  // all stay in registers.
  int64_t regs = std::max<int64_t>(opts.vectorRegisters, 4);
  int64_t mrMax = std::min<int64_t>(
      m, std::max<int64_t>(1, (regs - g.vectors - 1) / g.vectors));
  int64_t divisor = 1;
  for (int64_t cand = mrMax; cand >= 1; --cand)
    if (m % cand == 0) {
      divisor = cand;
      break;
    }
  // Two FMA pipes of four cycles' latency need eight independent
  // accumulators, and more leave slack for the loads. Panels of a divisor
  // of M are read contiguously; they win unless their block holds no more
  // than eight accumulators while the registers fit a third more rows.
  g.aPanels = divisor * g.vectors > 8 || 3 * mrMax < 4 * divisor;
  g.mr = g.aPanels ? divisor : mrMax;
  g.rowBlocks = rowBlocksOf(m, g.mr);
  // The MR x K micro-panel of A is reused by every micro-kernel call of a
  // K block (B's panels stream past it from L2): keep its lines within a
  // third of a 48 KiB L1, whether its rows or its k steps are contiguous.
  // A deeper block loads and stores each block of C fewer times.
  int64_t kcMax = std::min<int64_t>(256, std::max<int64_t>(1, 4096 / g.mr));
  g.kc = 1;
  for (int64_t cand = std::min(kcMax, k); cand >= 1; --cand)
    if (k % cand == 0) {
      g.kc = cand;
      break;
    }
  return g;
}

namespace {

std::string str(int64_t v) { return std::to_string(v); }

/// A (or A^T when `trans`) in micro-panels of `mr` rows, each k-major:
/// A[i][k] at (i / mr) * mr * K + k * mr + i % mr.
std::string aPanelText(int64_t m, int64_t k, int64_t mr, bool trans) {
  if (trans)
    return "S[(" + str(k) + ", " + str(m / mr) + ", " + str(mr) + ") : (" +
           str(mr) + ", " + str(mr * k) + ", 1)]";
  return "S[(" + str(m / mr) + ", " + str(mr) + ", " + str(k) + ") : (" +
         str(mr * k) + ", 1, " + str(mr) + ")]";
}

/// A (or A^T) k-major: A[i][k] at k * M + i.
std::string aKMajorText(int64_t m, int64_t k, bool trans) {
  if (trans)
    return "S[(" + str(k) + ", " + str(m) + ") : (" + str(m) + ", 1)]";
  return "S[(" + str(m) + ", " + str(k) + ") : (1, " + str(m) + ")]";
}

/// B (or B^T) in micro-panels of `nr` columns, each k-major:
/// B[k][j] at (j / nr) * K * nr + k * nr + j % nr.
std::string bPanelText(int64_t k, int64_t n, int64_t nr, bool trans) {
  if (trans)
    return "S[(" + str(n / nr) + ", " + str(nr) + ", " + str(k) + ") : (" +
           str(k * nr) + ", 1, " + str(nr) + ")]";
  return "S[(" + str(k) + ", " + str(n / nr) + ", " + str(nr) + ") : (" +
         str(nr) + ", " + str(k * nr) + ", 1)]";
}

/// Whether `buf` can be read in place as laid out as `text`: f32 (panels
/// are f32 whatever the operand's type, so that f16 and bf16 are widened
/// once, as they are packed, and not in the micro-kernel's inner loop,
/// where a conversion per vector and per broadcast of A competes with the
/// FMAs for the vector pipes), no swizzle, a layout equivalent to `text`, and
/// storage whose only dim is m with unit stride (what a memref view or an alloc
/// of a tile on m gets). `buf` need not have its memory yet (a match step
/// asks before anything is emitted).
bool layoutReadableAs(const CPUBuffer &buf, const std::string &text) {
  if (!buf.ref.elementType.isF32() || buf.ref.layout.isSwizzled())
    return false;
  if (buf.storage.dims().size() != 1 ||
      buf.storage.dims()[0].axis != kDefaultAxis ||
      buf.storage.dims()[0].stride != 1)
    return false;
  for (const auto &entry : buf.ref.offset.entries())
    if (entry.first != kDefaultAxis)
      return false;
  Result<TileLayout> wanted = parseTileLayout(text);
  if (!wanted)
    return false;
  Result<bool> same = equivalent(buf.ref.layout.tile(), *wanted);
  return same && *same;
}

/// layoutReadableAs, for a buffer whose memory is there (a C of another type
/// than f32 has none: it accumulates in an f32 copy).
bool readableAs(const CPUBuffer &buf, const std::string &text) {
  return buf.memory && layoutReadableAs(buf, text);
}

/// Which layouts besides the panel's an operand is read in place from.
enum class InPlace {
  /// The panel's layout only (B, whose micro-panel must stay in L1).
  Panel,
  /// Rows or columns of unit stride (A: a block of rows broadcasts from a
  /// few lines that stay in L1 across the k steps they hold).
  RowsOrColumns,
  /// Rows of unit stride (C, read and written in vectors along a row).
  Rows,
};

/// The layout of `buf` (two dims) as plain strides on m when it is one with
/// a unit stride along the dims `mode` allows.
std::optional<std::string> unitStrideText(const CPUBuffer &buf, InPlace mode) {
  if (buf.ref.shape.size() != 2 || mode == InPlace::Panel)
    return std::nullopt;
  auto mAt = [&](int64_t r, int64_t c) -> std::optional<int64_t> {
    auto places = buf.ref.layout.tile().apply({r, c}, buf.ref.shape);
    if (!places || places->empty())
      return std::nullopt;
    return places->front().get(kDefaultAxis);
  };
  auto origin = mAt(0, 0);
  auto down = mAt(buf.ref.shape[0] > 1 ? 1 : 0, 0);
  auto right = mAt(0, buf.ref.shape[1] > 1 ? 1 : 0);
  if (!origin || !down || !right || *origin != 0)
    return std::nullopt;
  int64_t s0 = *down - *origin, s1 = *right - *origin;
  bool rows = s1 == 1, columns = s0 == 1 && mode == InPlace::RowsOrColumns;
  if (!rows && !columns)
    return std::nullopt;
  return "S[(" + str(buf.ref.shape[0]) + ", " + str(buf.ref.shape[1]) +
         ") : (" + str(s0) + ", " + str(s1) + ")]";
}

/// An operand of the micro-kernel: the buffer it reads, with the emitter of
/// its layout.
struct PanelOperand {
  CPUBuffer buffer;
  LayoutEmitter emitter;
  /// Whether logical dims are (col, row) of the gemm's view.
  bool transposed = false;

  Value address(OpBuilder &b, Location loc, Value row, Value col) const {
    SmallVector<Value, 2> idx = transposed ? SmallVector<Value, 2>{col, row}
                                           : SmallVector<Value, 2>{row, col};
    CoordValue c = emitter.emitUnswizzled(b, loc, idx, &buffer.ref.offset);
    return buffer.storage.emitAddress(b, loc, c);
  }
};

/// `buf` itself when it already is laid out as `text` (or as `inPlace`
/// allows), else a packed copy, in `memory` when given (f32, at least the
/// buffer's elements) or in scratch.
Result<PanelOperand> panelOperand(OpBuilder &b, Location loc,
                                  const CPUBuffer &buf, bool transposed,
                                  const std::string &text, bool copyIn,
                                  const CPUCodegenOptions &opts, bool &packed,
                                  InPlace inPlace = InPlace::Panel,
                                  Value memory = {}) {
  PanelOperand op;
  op.transposed = transposed;
  packed = !readableAs(buf, text);
  if (packed)
    if (std::optional<std::string> strided = unitStrideText(buf, inPlace))
      packed = !readableAs(buf, *strided);
  if (!packed) {
    op.buffer = buf;
  } else {
    Result<TileLayout> t = parseTileLayout(text);
    if (!t)
      return t.takeFailure();
    int64_t size = 1;
    for (int64_t e : buf.ref.shape)
      size *= e;
    Type elt = Float32Type::get(buf.ref.elementType.getContext());
    op.buffer.ref.layout = Layout(*t);
    op.buffer.ref.shape = buf.ref.shape;
    op.buffer.ref.elementType = elt;
    op.buffer.memory = memory ? memory : allocScratch(b, loc, elt, size);
    op.buffer.storage = StoragePlan::linear(size);
    if (copyIn)
      if (auto r = emitCopy(b, loc, buf, op.buffer, opts); !r)
        return r.takeFailure();
  }
  Result<LayoutEmitter> em =
      LayoutEmitter::get(op.buffer.ref.layout, op.buffer.ref.shape);
  if (!em)
    return em.takeFailure();
  op.emitter = *em;
  return op;
}

/// Per worker, at most this many bytes of one gemm's packed panels of B are
/// kept from one CTA to the next.
constexpr int64_t kPanelCacheBytes = 16 << 20;

/// Where a gemm keeps B's packed panels across the CTAs one worker runs, so
/// that CTAs in one column of the grid (the same columns of B) pack each
/// slice of B once, as BLAS libraries pack a block of B once for all the
/// rows of A. One slot per iteration of the loops around the gemm in its
/// CTA, each tagged with the address of the slice of B it holds. A slice is
/// only reused where it is packed from global memory: CTAs are independent
/// (no CTA writes what another reads), so within a launch a global slice
/// at the same address holds the same values; the tags are reset at every
/// launch.
struct PanelCache {
  /// slots x panel elements of f32, and slots addresses (-1: empty).
  Value panels, tags;
  /// This call's slot and its panel.
  Value slot, panel;
};

/// The slot of this call among `slots`: its iteration of the scf.for loops
/// between the insertion point and `kernel`, which must all have constant
/// bounds (scf.if and the outliner's regions may enclose it too). None
/// under other ops or beyond `maxSlots`.
std::optional<std::pair<Value, int64_t>>
iterationSlot(OpBuilder &b, Location loc, Operation *kernel, int64_t maxSlots) {
  struct Loop {
    Value iv;
    int64_t lower, step, trips;
  };
  SmallVector<Loop> loops;
  int64_t slots = 1;
  for (Operation *op = b.getInsertionBlock()->getParentOp(); op != kernel;
       op = op->getParentOp()) {
    if (isa<scf::IfOp, scf::ExecuteRegionOp>(op))
      continue;
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop)
      return std::nullopt;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()),
                           ub = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !step || *step <= 0)
      return std::nullopt;
    int64_t trips = *ub > *lb ? (*ub - *lb - 1) / *step + 1 : 1;
    if (trips > maxSlots / slots)
      return std::nullopt;
    slots *= trips;
    loops.push_back({loop.getInductionVar(), *lb, *step, trips});
  }
  Value slot = indexConstant(b, loc, 0);
  int64_t stride = 1;
  for (const Loop &loop : loops) {
    Value iter = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, loop.iv,
                              indexConstant(b, loc, loop.lower)),
        indexConstant(b, loc, loop.step));
    slot = addIndex(
        b, loc, slot,
        arith::MulIOp::create(b, loc, iter, indexConstant(b, loc, stride)));
    stride *= loop.trips;
  }
  return std::make_pair(slot, slots);
}

/// The grid dims (bit d for dim d) whose CTA coordinates `op`'s operands
/// are computed from, through the ops that define them: which CTAs read the
/// same slice of a view.
unsigned gridDimsUsed(Operation *op, llvm::SmallPtrSetImpl<Operation *> &seen) {
  if (!op || !seen.insert(op).second)
    return 0;
  if (op->getName().getStringRef() == "axe.axis_id") {
    // A CTA axis numbers a grid dim (a cluster axis too: it is the grid
    // coordinate modulo the cluster); thread and warp axes vary within a
    // CTA only. An axis no target knows may vary with any dim.
    auto name = op->getAttrOfType<StringAttr>("axis");
    const TargetAxis *axis =
        name ? findAxisOnAnyTarget(name.getValue()) : nullptr;
    if (!axis)
      return ~0u;
    return axis->role == AxisRole::CTA ? 1u << axis->dim : 0u;
  }
  unsigned dims = 0;
  for (Value v : op->getOperands())
    dims |= gridDimsUsed(v.getDefiningOp(), seen);
  return dims;
}

/// The cache of B's panels for a gemm whose packed B has `size` elements,
/// or none where one is not allowed or would exceed kPanelCacheBytes.
std::optional<PanelCache> panelCacheFor(OpBuilder &b, Location loc,
                                        const CPUBuffer &bb, int64_t size) {
  if (bb.space != MemorySpace::Global || !bb.memory ||
      !bb.ref.offset.entries().empty() || bb.isDistributed() ||
      size * 4 > kPanelCacheBytes)
    return std::nullopt;
  // CTAs that differ only in a grid dim that B's slice does not depend on
  // share its panels; the worker runs that dim fastest. None if B depends
  // on every dim.
  // A grid of one CTA has nothing to share.
  Operation *kernel = enclosingKernel(b.getInsertionBlock());
  auto grid = kernel ? kernel->getAttrOfType<DenseI64ArrayAttr>("static_grid")
                     : nullptr;
  if (!grid)
    return std::nullopt;
  int64_t ctas = 1;
  for (int64_t extent : grid.asArrayRef())
    ctas *= extent == ShapedType::kDynamic ? 2 : extent;
  llvm::SmallPtrSet<Operation *, 16> seen;
  unsigned dims = gridDimsUsed(bb.ref.root, seen);
  int64_t fastest = 0;
  while (fastest < int64_t(grid.size()) && (dims >> fastest) & 1)
    ++fastest;
  if (ctas < 2 || fastest >= int64_t(grid.size()))
    return std::nullopt;
  auto slot = iterationSlot(
      b, loc, kernel, kPanelCacheBytes / (4 * std::max<int64_t>(size, 1)));
  if (!slot)
    return std::nullopt;
  PanelCache cache;
  Type f32 = b.getF32Type();
  cache.panels =
      allocPerWorker(b, loc, MemRefType::get({slot->second * size}, f32));
  cache.tags = allocPerWorker(
      b, loc, MemRefType::get({slot->second}, b.getIndexType()), -1);
  if (!cache.panels || !cache.tags)
    return std::nullopt;
  cache.panels.getDefiningOp()->setAttr(kPerWorkerFastestAttr,
                                        b.getI64IntegerAttr(fastest));
  cache.slot = slot->first;
  Value start =
      arith::MulIOp::create(b, loc, cache.slot, indexConstant(b, loc, size));
  auto type = MemRefType::get(
      {size}, f32,
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}));
  cache.panel = memref::SubViewOp::create(
      b, loc, type, cache.panels, ArrayRef<OpFoldResult>{start},
      ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  return cache;
}

/// Packs `src` into `packed` (whose memory is the cache's panel) unless the
/// slot already holds the slice at this address.
Result<bool> packThroughCache(OpBuilder &b, Location loc, const CPUBuffer &src,
                              const CPUBuffer &packed, const PanelCache &cache,
                              const CPUCodegenOptions &opts) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, src.memory);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, meta.getBaseBuffer());
  Value address =
      addIndex(b, loc, base,
               arith::MulIOp::create(
                   b, loc, meta.getOffset(),
                   indexConstant(b, loc, elementBytes(src.ref.elementType))));
  Value held = memref::LoadOp::create(b, loc, cache.tags, cache.slot);
  Value miss =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, held, address);
  auto ifMiss = scf::IfOp::create(b, loc, miss, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifMiss.thenBlock());
  if (auto r = emitCopy(b, loc, src, packed, opts); !r)
    return r;
  memref::StoreOp::create(b, loc, address, cache.tags, cache.slot);
  return true;
}

/// for (iv = lower; iv < upper; iv += step) body(iv), with the builder left
/// after the loop.
void forLoop(OpBuilder &b, Location loc, int64_t lower, int64_t upper,
             int64_t step, function_ref<void(OpBuilder &, Value)> body) {
  auto loop = scf::ForOp::create(b, loc, indexConstant(b, loc, lower),
                                 indexConstant(b, loc, upper),
                                 indexConstant(b, loc, step));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(b, loop.getInductionVar());
}

/// The register-blocked micro-kernel: a block of `rows` x NR of C in vector
/// registers across one K block, loaded from C and stored back.
struct MicroKernel {
  Location loc;
  const GemmBlocking &g;
  const PanelOperand &a, &b, &c;
  bool accumulate;

  Value at(OpBuilder &nb, Value base, int64_t off) const {
    return addIndex(nb, loc, base, indexConstant(nb, loc, off));
  }

  /// One k step: the accumulators after adding A[i0 + r][k] * B[k][j0 + c].
  SmallVector<Value> step(OpBuilder &kb, Value i0, Value j0, Value k,
                          int64_t rows, ArrayRef<Value> accs) const {
    int64_t w = g.lanes, nv = g.vectors;
    Type f32 = kb.getF32Type();
    auto vt = VectorType::get({w}, f32);
    // The panels, and A read in place, are f32 (readableAs, panelOperand).
    SmallVector<Value> bv;
    for (int64_t v = 0; v < nv; ++v)
      bv.push_back(
          vector::LoadOp::create(kb, loc, vt, b.buffer.memory,
                                 b.address(kb, loc, k, at(kb, j0, v * w))));
    SmallVector<Value> next(accs.begin(), accs.end());
    for (int64_t r = 0; r < rows; ++r) {
      Value s = memref::LoadOp::create(
          kb, loc, a.buffer.memory,
          ValueRange{a.address(kb, loc, at(kb, i0, r), k)});
      Value sv = vector::BroadcastOp::create(kb, loc, vt, s);
      for (int64_t v = 0; v < nv; ++v)
        next[r * nv + v] =
            vector::FMAOp::create(kb, loc, sv, bv[v], accs[r * nv + v]);
    }
    return next;
  }

  void emit(OpBuilder &ob, Value i0, Value j0, Value k0, int64_t rows) const {
    int64_t w = g.lanes, nv = g.vectors;
    Type f32 = ob.getF32Type();
    auto vt = VectorType::get({w}, f32);
    // The first K block starts from zero unless C accumulates.
    Value first = arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::eq, k0,
                                        indexConstant(ob, loc, 0));
    SmallVector<Value> init;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < nv; ++v) {
        Value addr = c.address(ob, loc, at(ob, i0, r), at(ob, j0, v * w));
        Value old = vector::LoadOp::create(ob, loc, vt, c.buffer.memory, addr);
        if (!accumulate) {
          Value zero = vector::BroadcastOp::create(
              ob, loc, vt, reductionIdentity(ob, loc, Combiner::Sum, f32));
          old = arith::SelectOp::create(ob, loc, first, zero, old);
        }
        init.push_back(old);
      }
    Value kEnd = addIndex(ob, loc, k0, indexConstant(ob, loc, g.kc));
    // Four k steps per iteration: fewer loop branches, and the loads of the
    // next step can be scheduled among the FMAs of this one.
    int64_t unroll = 4;
    while (g.kc % unroll)
      unroll /= 2;
    auto kLoop = scf::ForOp::create(
        ob, loc, k0, kEnd, indexConstant(ob, loc, unroll), init,
        [&](OpBuilder &kb, Location, Value k, ValueRange accs) {
          SmallVector<Value> acc(accs.begin(), accs.end());
          for (int64_t u = 0; u < unroll; ++u)
            acc = step(kb, i0, j0, u ? at(kb, k, u) : k, rows, acc);
          scf::YieldOp::create(kb, loc, acc);
        });
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < nv; ++v)
        vector::StoreOp::create(
            ob, loc, kLoop.getResult(r * nv + v), c.buffer.memory,
            c.address(ob, loc, at(ob, i0, r), at(ob, j0, v * w)));
  }
};

} // namespace

std::string gemmPanelLayoutA(int64_t m, int64_t k, bool transA,
                             const GemmBlocking &g) {
  return g.aPanels ? aPanelText(m, k, g.mr, transA) : aKMajorText(m, k, transA);
}

std::string gemmPanelLayoutB(int64_t k, int64_t n, bool transB,
                             const GemmBlocking &g) {
  return bPanelText(k, n, g.nr(), transB);
}

bool gemmReadsPanelsInPlace(const CPUBuffer &a, bool transA, const CPUBuffer &b,
                            bool transB, const CPUBuffer &c,
                            const CPUCodegenOptions &opts) {
  auto shape = gemmShape(a, transA, b, transB, c);
  if (!shape)
    return false;
  GemmBlocking g = chooseGemmBlocking(shape->m, shape->n, shape->k, opts);
  if (!layoutReadableAs(a, gemmPanelLayoutA(shape->m, shape->k, transA, g)) ||
      !layoutReadableAs(b, gemmPanelLayoutB(shape->k, shape->n, transB, g)))
    return false;
  // C in rows of unit stride, any leading dimension (as emitGemmPacked).
  std::optional<std::string> rows = unitStrideText(c, InPlace::Rows);
  return rows && layoutReadableAs(c, *rows);
}

Result<bool> emitGemmPacked(OpBuilder &b, Location loc, const CPUBuffer &a,
                            bool transA, const CPUBuffer &bb, bool transB,
                            const CPUBuffer &c, bool accumulate,
                            const CPUCodegenOptions &opts) {
  auto shape = gemmShape(a, transA, bb, transB, c);
  if (!shape)
    return shape.takeFailure();
  int64_t M = shape->m, N = shape->n, K = shape->k;
  Type f32 = b.getF32Type();
  if (!isa<FloatType>(c.ref.elementType))
    return fail("the packed gemm accumulates in f32; C must be a float");
  GemmBlocking g = chooseGemmBlocking(M, N, K, opts);
  int64_t nr = g.nr();

  bool packedA = false, packedB = false, packedC = false;
  auto ap =
      panelOperand(b, loc, a, transA, gemmPanelLayoutA(M, K, transA, g),
                   /*copyIn=*/true, opts, packedA, InPlace::RowsOrColumns);
  if (!ap)
    return ap.takeFailure();
  std::string bText = gemmPanelLayoutB(K, N, transB, g);
  std::optional<PanelCache> cache;
  if (opts.reusePackedPanels && !readableAs(bb, bText))
    cache = panelCacheFor(b, loc, bb, K * N);
  auto bp =
      panelOperand(b, loc, bb, transB, bText, /*copyIn=*/!cache, opts, packedB,
                   InPlace::Panel, cache ? cache->panel : Value());
  if (!bp)
    return bp.takeFailure();
  if (cache)
    if (auto r = packThroughCache(b, loc, bb, bp->buffer, *cache, opts); !r)
      return r.takeFailure();
  // C is read and written by rows of NR: f32 rows of unit stride (any
  // leading dimension) serve in place. C of another type accumulates in an
  // f32 copy, rounded once at the end.
  std::string cText =
      "S[(" + str(M) + ", " + str(N) + ") : (" + str(N) + ", 1)]";
  CPUBuffer c32 = c;
  bool cIsF32 = c.ref.elementType.isF32();
  c32.ref.elementType = f32;
  if (!cIsF32)
    c32.memory = Value();
  auto cp = panelOperand(b, loc, c32, false, cText, accumulate && cIsF32, opts,
                         packedC, InPlace::Rows);
  if (!cp)
    return cp.takeFailure();
  if (!cIsF32 && accumulate)
    if (auto r = emitCopy(b, loc, c, cp->buffer, opts); !r)
      return r.takeFailure();

  MicroKernel kernel{loc, g, *ap, *bp, *cp, accumulate};
  // A block of MR rows of A stays in L1 while B's panels stream past it
  // from L2. The other order (B's micro-panel in L1, A's K block reused
  // from L2) loses A at power-of-two leading dimensions, whose rows fall
  // into the same sets of L2: at 2048 f32 the 256 rows of a CTA's block
  // fill all 16 ways of theirs, and each panel of B then reads A from L3.
  // B's packed panels are contiguous and conflict-free.
  auto acrossPanelsOfB = [&](OpBuilder &b2, Value i0, Value k0, int64_t rows) {
    forLoop(b2, loc, 0, N, nr, [&](OpBuilder &b3, Value j0) {
      kernel.emit(b3, i0, j0, k0, rows);
    });
  };
  forLoop(b, loc, 0, K, g.kc, [&](OpBuilder &b1, Value k0) {
    for (const GemmRowBlocks &blocks : g.rowBlocks) {
      if (blocks.count == 1) {
        acrossPanelsOfB(b1, indexConstant(b1, loc, blocks.first), k0,
                        blocks.rows);
        continue;
      }
      forLoop(b1, loc, blocks.first, blocks.first + blocks.count * blocks.rows,
              blocks.rows, [&](OpBuilder &b2, Value i0) {
                acrossPanelsOfB(b2, i0, k0, blocks.rows);
              });
    }
  });
  if (packedC)
    if (auto r = emitCopy(b, loc, cp->buffer, c, opts); !r)
      return r.takeFailure();
  return true;
}

} // namespace axe
