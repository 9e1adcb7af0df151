//===- CPUGemm.cpp - The packed, register-blocked gemm --------------------===//
//
// C (+)= A x B the way BLIS runs it: A in micro-panels of MR rows, B in
// micro-panels of NR columns, each k-major so that the micro-kernel streams
// them, and an MR x NR block of C held in vector registers across a block of
// K. The panels are layouts like any other: an operand whose layout already
// is the panel layout is read in place, any other is packed into it with a
// layout copy. MR and NR come from the vector unit (width and register
// count) in CPUCodegenOptions, which the target description fills in.
//
//===----------------------------------------------------------------------===//

#include "axe/Conversion/AxeToCPU/CPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace axe {

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
  int64_t mrMax = std::max<int64_t>(1, (regs - g.vectors - 1) / g.vectors);
  g.mr = 1;
  for (int64_t cand = std::min<int64_t>(mrMax, m); cand >= 1; --cand)
    if (m % cand == 0) {
      g.mr = cand;
      break;
    }
  // The K x NR micro-panel of B is reused by every micro-kernel call of a
  // K block: keep it within about half of a 48 KiB L1.
  int64_t kcMax = std::max<int64_t>(1, 6144 / g.nr());
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

/// The layout of A (or of A^T when `trans`) in micro-panels of `mr` rows,
/// each k-major: A[i][k] at (i / mr) * mr * K + k * mr + i % mr.
std::string aPanelText(int64_t m, int64_t k, int64_t mr, bool trans) {
  if (trans)
    return "S[(" + str(k) + ", " + str(m / mr) + ", " + str(mr) + ") : (" +
           str(mr) + ", " + str(mr * k) + ", 1)]";
  return "S[(" + str(m / mr) + ", " + str(mr) + ", " + str(k) + ") : (" +
         str(mr * k) + ", 1, " + str(mr) + ")]";
}

/// The layout of B (or B^T) in micro-panels of `nr` columns, each k-major:
/// B[k][j] at (j / nr) * K * nr + k * nr + j % nr.
std::string bPanelText(int64_t k, int64_t n, int64_t nr, bool trans) {
  if (trans)
    return "S[(" + str(n / nr) + ", " + str(nr) + ", " + str(k) + ") : (" +
           str(k * nr) + ", 1, " + str(nr) + ")]";
  return "S[(" + str(k) + ", " + str(n / nr) + ", " + str(nr) + ") : (" +
         str(nr) + ", " + str(k * nr) + ", 1)]";
}

/// The element type a panel of `elt` keeps: the micro-kernel widens f16 and
/// bf16 to f32 in registers, so they stay narrow in memory; anything else
/// is converted to f32 when packed.
Type panelElementType(Type elt) {
  if (elt.isF32() || elt.isF16() || elt.isBF16())
    return elt;
  return Float32Type::get(elt.getContext());
}

/// Whether `buf` can be read in place as a panel laid out as `panelText`: an
/// element type panels keep, no swizzle, a layout equivalent to the
/// panel's, and storage whose only dim is m with unit stride (what a memref
/// view or an alloc of a tile on m gets).
bool readableAs(const CPUBuffer &buf, const std::string &panelText) {
  if (!buf.memory || panelElementType(buf.elementType) != buf.elementType ||
      buf.layout.isSwizzled())
    return false;
  if (buf.storage.dims().size() != 1 ||
      buf.storage.dims()[0].axis != kDefaultAxis ||
      buf.storage.dims()[0].stride != 1)
    return false;
  for (const auto &entry : buf.extra.entries())
    if (entry.first != kDefaultAxis)
      return false;
  Result<TileLayout> panel = parseTileLayout(panelText);
  if (!panel)
    return false;
  Result<bool> same = equivalent(buf.layout.tile(), *panel);
  return same && *same;
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
    CoordValue c = emitter.emitUnswizzled(b, loc, idx, &buffer.extra);
    return buffer.storage.emitAddress(b, loc, c);
  }
};

/// `buf` itself when it already is laid out as `text`, else a packed copy.
Result<PanelOperand> panelOperand(OpBuilder &b, Location loc,
                                  const CPUBuffer &buf, bool transposed,
                                  const std::string &text, bool copyIn,
                                  const CPUCodegenOptions &opts, bool &packed) {
  PanelOperand op;
  op.transposed = transposed;
  packed = !readableAs(buf, text);
  if (!packed) {
    op.buffer = buf;
  } else {
    Result<TileLayout> t = parseTileLayout(text);
    if (!t)
      return t.takeFailure();
    int64_t size = 1;
    for (int64_t e : buf.shape)
      size *= e;
    Type elt = panelElementType(buf.elementType);
    op.buffer.layout = Layout(*t);
    op.buffer.shape = buf.shape;
    op.buffer.elementType = elt;
    op.buffer.memory = allocScratch(b, loc, elt, size);
    op.buffer.storage = StoragePlan::linear(size);
    if (copyIn)
      if (auto r = emitCopy(b, loc, buf, op.buffer, opts); !r)
        return r.takeFailure();
  }
  Result<LayoutEmitter> em =
      LayoutEmitter::get(op.buffer.layout, op.buffer.shape);
  if (!em)
    return em.takeFailure();
  op.emitter = *em;
  return op;
}

/// for (iv = 0; iv < n; iv += step) body(iv), with the builder left after
/// the loop.
void forLoop(OpBuilder &b, Location loc, int64_t n, int64_t step,
             function_ref<void(OpBuilder &, Value)> body) {
  auto loop =
      scf::ForOp::create(b, loc, indexConstant(b, loc, 0),
                         indexConstant(b, loc, n), indexConstant(b, loc, step));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(b, loop.getInductionVar());
}

} // namespace

Result<bool> emitGemmPacked(OpBuilder &b, Location loc, const CPUBuffer &a,
                            bool transA, const CPUBuffer &bb, bool transB,
                            const CPUBuffer &c, bool accumulate,
                            const CPUCodegenOptions &opts) {
  auto shape = gemmShape(a, transA, bb, transB, c);
  if (!shape)
    return shape.takeFailure();
  int64_t M = shape->m, N = shape->n, K = shape->k;
  Type f32 = b.getF32Type();
  if (!isa<FloatType>(c.elementType))
    return fail("the packed gemm accumulates in f32; C must be a float");
  GemmBlocking g = chooseGemmBlocking(M, N, K, opts);
  int64_t w = g.lanes, nv = g.vectors, mr = g.mr, nr = g.nr();

  bool packedA = false, packedB = false, packedC = false;
  auto ap = panelOperand(b, loc, a, transA, aPanelText(M, K, mr, transA),
                         /*copyIn=*/true, opts, packedA);
  if (!ap)
    return ap.takeFailure();
  auto bp = panelOperand(b, loc, bb, transB, bPanelText(K, N, nr, transB),
                         /*copyIn=*/true, opts, packedB);
  if (!bp)
    return bp.takeFailure();
  // C is read and written by rows of NR: row-major f32 serves in place. C
  // of another type accumulates in an f32 copy, rounded once at the end.
  std::string cText =
      "S[(" + str(M) + ", " + str(N) + ") : (" + str(N) + ", 1)]";
  CPUBuffer c32 = c;
  bool cIsF32 = c.elementType.isF32();
  c32.elementType = f32;
  if (!cIsF32)
    c32.memory = Value();
  auto cp = panelOperand(b, loc, c32, false, cText, accumulate && cIsF32, opts,
                         packedC);
  if (!cp)
    return cp.takeFailure();
  if (!cIsF32 && accumulate)
    if (auto r = emitCopy(b, loc, c, cp->buffer, opts); !r)
      return r.takeFailure();

  auto vt = VectorType::get({w}, f32);
  // B's micro-panel stays in L1 across the i loop; A streams from L2.
  forLoop(b, loc, K, g.kc, [&](OpBuilder &b1, Value k0) {
    forLoop(b1, loc, N, nr, [&](OpBuilder &b2, Value j0) {
      forLoop(b2, loc, M, mr, [&](OpBuilder &b3, Value i0) {
        auto at = [&](OpBuilder &nb, Value base, int64_t off) {
          return addIndex(nb, loc, base, indexConstant(nb, loc, off));
        };
        // The first K block starts from zero unless C accumulates.
        Value first = arith::CmpIOp::create(b3, loc, arith::CmpIPredicate::eq,
                                            k0, indexConstant(b3, loc, 0));
        SmallVector<Value> init;
        for (int64_t r = 0; r < mr; ++r)
          for (int64_t v = 0; v < nv; ++v) {
            Value addr = cp->address(b3, loc, at(b3, i0, r), at(b3, j0, v * w));
            Value old =
                vector::LoadOp::create(b3, loc, vt, cp->buffer.memory, addr);
            if (!accumulate) {
              Value zero = vector::BroadcastOp::create(
                  b3, loc, vt, reductionIdentity(b3, loc, Combiner::Sum, f32));
              old = arith::SelectOp::create(b3, loc, first, zero, old);
            }
            init.push_back(old);
          }
        Value kEnd = addIndex(b3, loc, k0, indexConstant(b3, loc, g.kc));
        auto kLoop = scf::ForOp::create(
            b3, loc, k0, kEnd, indexConstant(b3, loc, 1), init,
            [&](OpBuilder &kb, Location, Value k, ValueRange accs) {
              SmallVector<Value> bv;
              auto bType = VectorType::get({w}, bp->buffer.elementType);
              for (int64_t v = 0; v < nv; ++v)
                bv.push_back(castElements(
                    kb, loc,
                    vector::LoadOp::create(
                        kb, loc, bType, bp->buffer.memory,
                        bp->address(kb, loc, k, at(kb, j0, v * w))),
                    f32));
              SmallVector<Value> next(accs.begin(), accs.end());
              for (int64_t r = 0; r < mr; ++r) {
                Value s = memref::LoadOp::create(
                    kb, loc, ap->buffer.memory,
                    ValueRange{ap->address(kb, loc, at(kb, i0, r), k)});
                Value sv = vector::BroadcastOp::create(
                    kb, loc, vt, castElements(kb, loc, s, f32));
                for (int64_t v = 0; v < nv; ++v)
                  next[r * nv + v] = vector::FMAOp::create(kb, loc, sv, bv[v],
                                                           accs[r * nv + v]);
              }
              scf::YieldOp::create(kb, loc, next);
            });
        for (int64_t r = 0; r < mr; ++r)
          for (int64_t v = 0; v < nv; ++v)
            vector::StoreOp::create(
                b3, loc, kLoop.getResult(r * nv + v), cp->buffer.memory,
                cp->address(b3, loc, at(b3, i0, r), at(b3, j0, v * w)));
      });
    });
  });
  if (packedC)
    if (auto r = emitCopy(b, loc, cp->buffer, c, opts); !r)
      return r.takeFailure();
  return true;
}

} // namespace axe
