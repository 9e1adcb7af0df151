//===- Instructions.cpp - Executing trn instructions ----------------------===//
//
// The Interpreter's trn instructions: each one's values (gathered from and
// scattered to the buffers under its views, computed as the engines
// compute, when numerics are on) and the Instr it becomes for the
// Scheduler (its engine, its cost, the regions it reads and writes, the
// SBUF/PSUM ports it takes).
//
//===----------------------------------------------------------------------===//

#include "SimulatorInternal.h"

#include "Numerics.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace axe;
using namespace axe::trnsim;
using namespace axe::trnsim::detail;

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

/// Calls fn(linear index) for each element of `v` in row-major order.
template <typename Fn> static void forEachElement(const View &v, Fn fn) {
  int rank = v.sizes.size();
  if (v.numElements() == 0)
    return;
  SmallVector<int64_t, 4> idx(rank, 0);
  int64_t lin = v.offset;
  while (true) {
    fn(lin);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < v.sizes[d]) {
        lin += v.strides[d];
        break;
      }
      lin -= (v.sizes[d] - 1) * v.strides[d];
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

std::vector<double> Interpreter::gather(const View &v) {
  std::vector<double> out;
  out.reserve(v.numElements());
  const std::vector<double> &data = buffers[v.buffer].data;
  forEachElement(v, [&](int64_t i) { out.push_back(data[i]); });
  return out;
}

void Interpreter::scatter(const View &v, ArrayRef<double> values) {
  std::vector<double> &data = buffers[v.buffer].data;
  Type t = elementType(v);
  size_t k = 0;
  forEachElement(v, [&](int64_t i) { data[i] = roundTo(t, values[k++]); });
}

void Interpreter::addAccess(Instr &instr, const View &v, bool write) {
  instr.accesses.push_back({v.region, write});
}

/// The innermost free dim that moves: a stride above 16 bytes there halves
/// the SBUF/PSUM interface bandwidth (NKI arch guide).
bool Interpreter::slowStride(const View &v) {
  if (space(v) == trn::MemorySpace::HBM)
    return false;
  for (int d = int(v.sizes.size()) - 1; d >= 1; --d)
    if (v.sizes[d] > 1)
      return v.strides[d] * elemBytes(elementType(v)) > 16;
  return false;
}

void Interpreter::setPorts(Instr &instr, ArrayRef<const View *> vs) {
  for (const View *v : vs) {
    // VectorE and GpSimd share the SBUF port; VectorE and ScalarE the PSUM
    // port (NKI arch guide).
    if (space(*v) == trn::MemorySpace::SBUF &&
        (instr.unit == Unit::Vector || instr.unit == Unit::GpSimd))
      instr.usesSbufPort = true;
    if (space(*v) == trn::MemorySpace::PSUM &&
        (instr.unit == Unit::Vector || instr.unit == Unit::Scalar))
      instr.usesPsumPort = true;
  }
  if (instr.unit != Unit::Tensor &&
      llvm::any_of(vs, [&](const View *v) { return slowStride(*v); }))
    instr.cycles *= p.strideFactor;
}

LogicalResult Interpreter::emit(Operation *op, Instr instr) {
  if (result.instructions >= int64_t(p.maxInstructions))
    return op->emitError("trn-sim: stopped after ")
           << result.instructions << " instructions (max_instructions)";
  scheduler.schedule(instr);
  return success();
}

static Unit unitOf(trn::Engine e) {
  switch (e) {
  case trn::Engine::Tensor:
    return Unit::Tensor;
  case trn::Engine::Vector:
    return Unit::Vector;
  case trn::Engine::Scalar:
    return Unit::Scalar;
  case trn::Engine::GpSimd:
    return Unit::GpSimd;
  }
  return Unit::Vector;
}

/// Elements of the longest contiguous run of a view: free dims merge while
/// each is dense over the next; an SBUF run never crosses a partition.
static int64_t contiguousRun(const View &v, bool onChip) {
  int64_t run = 1;
  int lowest = onChip ? 1 : 0;
  for (int d = int(v.sizes.size()) - 1; d >= lowest; --d) {
    if (v.sizes[d] == 1)
      continue;
    if (v.strides[d] != run)
      break;
    run *= v.sizes[d];
  }
  return run;
}

/// One DMA instruction of the program is triggered by one engine on one
/// queue, so all its executions run in order on that queue; the program's
/// dma_copy ops take the queues in turn, in the order they first run.
int Interpreter::dmaQueueOf(Operation *op) {
  return dmaQueues.try_emplace(op, int(dmaQueues.size())).first->second;
}

LogicalResult Interpreter::runDma(trn::DmaCopyOp op) {
  auto views = getViews(op, {op.getSrc(), op.getDst()});
  if (failed(views))
    return failure();
  View &src = (*views)[0], &dst = (*views)[1];
  if (src.numElements() != dst.numElements())
    return op.emitError("trn-sim: dma_copy moves ")
           << src.numElements() << " elements into " << dst.numElements();
  Instr in;
  in.unit = Unit::DMA;
  in.name = "dma_copy";
  addAccess(in, src, false);
  addAccess(in, dst, true);
  bool srcChip = space(src) != trn::MemorySpace::HBM;
  bool dstChip = space(dst) != trn::MemorySpace::HBM;
  // A casting copy reads one type and writes the other: the data path
  // moves the wider, HBM sees its own side's bytes.
  int64_t n = src.numElements();
  double srcBytes = double(n) * elemBytes(elementType(src));
  double dstBytes = double(n) * elemBytes(elementType(dst));
  in.bytes = std::max(srcBytes, dstBytes);
  in.hbmBytes = (srcChip ? 0 : srcBytes) + (dstChip ? 0 : dstBytes);
  in.queue = dmaQueueOf(op);
  int64_t run =
      std::min(contiguousRun(src, srcChip), contiguousRun(dst, dstChip));
  in.descriptors = double((n + run - 1) / run);
  // The SBUF side decides which partitions, hence which DMA engines, move
  // the data; an HBM-to-HBM copy spreads over all of them.
  const View *chip = dstChip ? &dst : srcChip ? &src : nullptr;
  if (chip) {
    in.startPartition = chip->region.lo[0];
    in.partitions = chip->region.hi[0] - chip->region.lo[0];
  }
  if (options.numerics) {
    std::vector<double> vals = gather(src);
    scatter(dst, vals);
  }
  return emit(op, std::move(in));
}

static bool isF32(Type t) { return t.isF32(); }

LogicalResult Interpreter::runMatmul(trn::MatmulOp op) {
  auto views = getViews(op, {op.getStationary(), op.getMoving(), op.getDst()});
  if (failed(views))
    return failure();
  View &st = (*views)[0], &mv = (*views)[1], &dst = (*views)[2];
  int64_t k = st.partitions(), mm = st.freeElements(), nn = mv.freeElements();
  if (mv.partitions() != k || dst.numElements() != mm * nn)
    return op.emitError("trn-sim: matmul shapes do not agree");
  Instr in;
  in.unit = Unit::Tensor;
  in.name = op.getStart() ? "matmul start" : "matmul";
  bool fp32 = isF32(elementType(st)) || isF32(elementType(mv));
  in.cycles = cost::matmul(mm, nn, fp32, p);
  addAccess(in, st, false);
  addAccess(in, mv, false);
  // PSUM accumulates near memory: the matmul writes its output region and
  // needs no read of it (NKI arch guide), so an accumulation group runs back
  // to back.
  addAccess(in, dst, true);
  result.matmulFlops += 2.0 * k * mm * nn;
  if (options.numerics) {
    std::vector<double> a = gather(st), b = gather(mv), c = gather(dst);
    for (int64_t i = 0; i < mm; ++i)
      for (int64_t j = 0; j < nn; ++j) {
        float acc = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          acc += float(a[kk * mm + i]) * float(b[kk * nn + j]);
        double &out = c[i * nn + j];
        out = op.getStart() ? acc : float(float(out) + acc);
      }
    scatter(dst, c);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTranspose(trn::TransposeOp op) {
  auto views = getViews(op, {op.getSrc(), op.getDst()});
  if (failed(views))
    return failure();
  View &src = (*views)[0], &dst = (*views)[1];
  int64_t pp = src.partitions(), f = src.freeElements();
  if (dst.numElements() != pp * f)
    return op.emitError("trn-sim: transpose shapes do not agree");
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = "transpose";
  in.cycles = in.unit == Unit::Tensor ? cost::tensorTranspose(pp, f)
                                      : cost::streaming(f, p);
  addAccess(in, src, false);
  addAccess(in, dst, true);
  setPorts(in, {&src, &dst});
  if (options.numerics) {
    std::vector<double> a = gather(src), b(a.size());
    for (int64_t i = 0; i < pp; ++i)
      for (int64_t j = 0; j < f; ++j)
        b[j * pp + i] = a[i * f + j];
    scatter(dst, b);
  }
  return emit(op, std::move(in));
}

/// A per-partition scalar: the tile's value in partition `c`, or `imm`.
static double scalarAt(const std::vector<double> *tile, double imm, int64_t c) {
  return tile ? (*tile)[c] : imm;
}

LogicalResult Interpreter::runActivation(trn::ActivationOp op) {
  auto views = getViews(op, {op.getSrc(), op.getDst()});
  if (failed(views))
    return failure();
  View &src = (*views)[0], &dst = (*views)[1];
  Instr in;
  in.unit = Unit::Scalar;
  in.name = ("activation " + trn::stringifyActFunc(op.getFunc())).str();
  bool reduce = bool(op.getReduceRes());
  in.cycles = cost::streaming(src.freeElements(), p, reduce);
  SmallVector<const View *> all = {&src, &dst};
  addAccess(in, src, false);
  addAccess(in, dst, true);
  std::optional<View> bias, scale, red;
  if (failed(getOptionalView(op, op.getBias(), bias)) ||
      failed(getOptionalView(op, op.getScaleTile(), scale)) ||
      failed(getOptionalView(op, op.getReduceRes(), red)))
    return failure();
  if (bias)
    addAccess(in, *bias, false);
  if (scale)
    addAccess(in, *scale, false);
  if (red)
    addAccess(in, *red, true);
  setPorts(in, all);
  if (options.numerics) {
    int64_t parts = src.partitions(), f = src.freeElements();
    std::vector<double> x = gather(src), y(x.size()), sums(parts, 0.0);
    std::vector<double> b = bias ? gather(*bias) : std::vector<double>();
    std::vector<double> s = scale ? gather(*scale) : std::vector<double>();
    double imm = op.getScaleAttr() ? op.getScaleAttr().getValueAsDouble() : 1.0;
    for (int64_t c = 0; c < parts; ++c)
      for (int64_t e = 0; e < f; ++e) {
        float v = float(x[c * f + e]) *
                      float(scalarAt(scale ? &s : nullptr, imm, c)) +
                  float(bias ? b[c] : 0.0);
        float r = float(applyActivation(op.getFunc(), v));
        y[c * f + e] = r;
        sums[c] = float(sums[c] + r);
      }
    scatter(dst, y);
    if (red)
      scatter(*red, sums);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorTensor(trn::TensorTensorOp op) {
  auto views = getViews(op, {op.getLhs(), op.getRhs(), op.getDst()});
  if (failed(views))
    return failure();
  View &a = (*views)[0], &b = (*views)[1], &dst = (*views)[2];
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = ("tensor_tensor " + trn::stringifyAluOp(op.getOp())).str();
  bool psumA = space(a) == trn::MemorySpace::PSUM,
       psumB = space(b) == trn::MemorySpace::PSUM;
  bool allBf16 = elementType(a).isBF16() && elementType(b).isBF16() &&
                 elementType(dst).isBF16();
  bool simpleOp = op.getOp() == trn::AluOp::Add ||
                  op.getOp() == trn::AluOp::Subtract ||
                  op.getOp() == trn::AluOp::Multiply;
  bool fast = psumA != psumB || (allBf16 && simpleOp);
  in.cycles = cost::tensorTensor(a.freeElements(), fast, p);
  addAccess(in, a, false);
  addAccess(in, b, false);
  addAccess(in, dst, true);
  setPorts(in, {&a, &b, &dst});
  if (options.numerics) {
    std::vector<double> x = gather(a), y = gather(b), z(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      z[i] = applyAlu(op.getOp(), x[i], y[i]);
    scatter(dst, z);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorScalar(trn::TensorScalarOp op) {
  auto views = getViews(op, {op.getSrc(), op.getDst()});
  if (failed(views))
    return failure();
  View &src = (*views)[0], &dst = (*views)[1];
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = ("tensor_scalar " + trn::stringifyAluOp(op.getOp0())).str();
  in.cycles = cost::streaming(src.freeElements(), p);
  addAccess(in, src, false);
  addAccess(in, dst, true);
  std::optional<View> s0, s1;
  if (failed(getOptionalView(op, op.getScalar0Tile(), s0)) ||
      failed(getOptionalView(op, op.getScalar1Tile(), s1)))
    return failure();
  if (s0)
    addAccess(in, *s0, false);
  if (s1)
    addAccess(in, *s1, false);
  setPorts(in, {&src, &dst});
  if (options.numerics) {
    int64_t parts = src.partitions(), f = src.freeElements();
    std::vector<double> x = gather(src);
    std::vector<double> t0 = s0 ? gather(*s0) : std::vector<double>();
    std::vector<double> t1 = s1 ? gather(*s1) : std::vector<double>();
    double i0 =
        op.getScalar0Attr() ? op.getScalar0Attr().getValueAsDouble() : 0;
    double i1 =
        op.getScalar1Attr() ? op.getScalar1Attr().getValueAsDouble() : 0;
    auto step = [](trn::AluOp alu, double v, double s, bool reverse) {
      return reverse ? applyAlu(alu, s, v) : applyAlu(alu, v, s);
    };
    for (int64_t c = 0; c < parts; ++c)
      for (int64_t e = 0; e < f; ++e) {
        double &v = x[c * f + e];
        v = step(op.getOp0(), v, scalarAt(s0 ? &t0 : nullptr, i0, c),
                 op.getReverse0());
        if (op.getOp1())
          v = step(*op.getOp1(), v, scalarAt(s1 ? &t1 : nullptr, i1, c),
                   op.getReverse1());
      }
    scatter(dst, x);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorReduce(trn::TensorReduceOp op) {
  auto views = getViews(op, {op.getSrc(), op.getDst()});
  if (failed(views))
    return failure();
  View &src = (*views)[0], &dst = (*views)[1];
  // The reduced dims are trailing (the verifier's rule): each output
  // element reduces a contiguous run of the row-major source.
  int64_t group = 1;
  for (int64_t axis : op.getAxes()) {
    if (axis < 1 || axis >= int64_t(src.sizes.size()))
      return op.emitError("trn-sim: reduction axis out of range");
    group *= src.sizes[axis];
  }
  if (group == 0 || dst.numElements() * group != src.numElements())
    return op.emitError("trn-sim: tensor_reduce shapes do not agree");
  Instr in;
  in.unit = Unit::Vector;
  in.name = ("tensor_reduce " + trn::stringifyAluOp(op.getOp())).str();
  bool bf16Fast =
      elementType(src).isBF16() && elementType(dst).isBF16() &&
      (op.getOp() == trn::AluOp::Add || op.getOp() == trn::AluOp::Max);
  in.cycles = cost::tensorReduce(src.freeElements(), bf16Fast);
  addAccess(in, src, false);
  addAccess(in, dst, true);
  setPorts(in, {&src, &dst});
  if (options.numerics) {
    std::vector<double> x = gather(src), y(dst.numElements());
    for (size_t o = 0; o < y.size(); ++o) {
      double acc = x[o * group];
      for (int64_t i = 1; i < group; ++i)
        acc = applyAlu(op.getOp(), acc, x[o * group + i]);
      y[o] = op.getNegate() ? -float(acc) : float(acc);
    }
    scatter(dst, y);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTensorCopy(trn::TensorCopyOp op) {
  auto views = getViews(op, {op.getSrc(), op.getDst()});
  if (failed(views))
    return failure();
  View &src = (*views)[0], &dst = (*views)[1];
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = "tensor_copy";
  in.cycles = cost::streaming(src.freeElements(), p);
  addAccess(in, src, false);
  addAccess(in, dst, true);
  setPorts(in, {&src, &dst});
  if (options.numerics)
    scatter(dst, gather(src));
  return emit(op, std::move(in));
}

static double attrValue(Attribute a) {
  if (auto f = dyn_cast<FloatAttr>(a))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(a))
    return double(i.getInt());
  return 0;
}

LogicalResult Interpreter::runMemset(trn::MemsetOp op) {
  FailureOr<View> dst = getView(op, op.getDst());
  if (failed(dst))
    return failure();
  double value = attrValue(op.getValue());
  Instr in;
  in.unit = unitOf(op.getEngine());
  in.name = "memset";
  Type t = elementType(*dst);
  bool half = value == 0 && (t.isBF16() || t.isF16());
  in.cycles = cost::memset(dst->freeElements(), half, p);
  addAccess(in, *dst, true);
  setPorts(in, {&*dst});
  if (options.numerics)
    scatter(*dst, std::vector<double>(dst->numElements(), value));
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runPattern(Operation *op, ArrayRef<int64_t> pattern,
                                      int64_t offset, int64_t cm, Value dstV,
                                      Value onTrueV,
                                      std::optional<trn::AluOp> cmp,
                                      double onFalse) {
  FailureOr<View> dst = getView(op, dstV);
  if (failed(dst))
    return failure();
  std::optional<View> onTrue;
  if (failed(getOptionalView(op, onTrueV, onTrue)))
    return failure();
  int64_t parts = dst->partitions(), f = dst->freeElements();
  int64_t covered = 1;
  for (size_t i = 1; i < pattern.size(); i += 2)
    covered *= pattern[i];
  if (pattern.size() % 2 || covered != f)
    return op->emitError("trn-sim: the pattern does not cover the tile");
  Instr in;
  in.unit = Unit::GpSimd;
  in.name = op->getName().stripDialect().str();
  in.cycles = cost::gpsimdPattern(f, p);
  if (onTrue)
    addAccess(in, *onTrue, false);
  addAccess(in, *dst, true);
  SmallVector<const View *> vs = {&*dst};
  if (onTrue)
    vs.push_back(&*onTrue);
  setPorts(in, vs);
  if (options.numerics) {
    std::vector<double> t = onTrue ? gather(*onTrue) : std::vector<double>();
    std::vector<double> out(parts * f);
    size_t dims = pattern.size() / 2;
    for (int64_t c = 0; c < parts; ++c)
      for (int64_t e = 0; e < f; ++e) {
        // Element e's pattern indices, outermost first, int32 arithmetic.
        int64_t rest = e, value = offset + c * cm;
        for (size_t d = dims; d-- > 0;) {
          int64_t count = pattern[2 * d + 1];
          value += pattern[2 * d] * (rest % count);
          rest /= count;
        }
        value = int32_t(uint32_t(value));
        out[c * f + e] =
            cmp ? (applyAlu(*cmp, double(value), 0) != 0 ? t[c * f + e]
                                                         : onFalse)
                : double(value);
      }
    scatter(*dst, out);
  }
  return emit(op, std::move(in));
}

LogicalResult Interpreter::runTrn(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](trn::DmaCopyOp o) { return runDma(o); })
      .Case([&](trn::MatmulOp o) { return runMatmul(o); })
      .Case([&](trn::TransposeOp o) { return runTranspose(o); })
      .Case([&](trn::ActivationOp o) { return runActivation(o); })
      .Case([&](trn::TensorTensorOp o) { return runTensorTensor(o); })
      .Case([&](trn::TensorScalarOp o) { return runTensorScalar(o); })
      .Case([&](trn::TensorReduceOp o) { return runTensorReduce(o); })
      .Case([&](trn::TensorCopyOp o) { return runTensorCopy(o); })
      .Case([&](trn::MemsetOp o) { return runMemset(o); })
      .Case([&](trn::IotaOp o) {
        return runPattern(o, o.getPattern(), o.getOffsetAttr().getInt(),
                          o.getChannelMultiplierAttr().getInt(), o.getDst(),
                          Value(), std::nullopt, 0);
      })
      .Case([&](trn::AffineSelectOp o) {
        return runPattern(o, o.getPattern(), o.getOffsetAttr().getInt(),
                          o.getChannelMultiplierAttr().getInt(), o.getDst(),
                          o.getOnTrue(), o.getCmp(),
                          o.getOnFalseAttr().getValueAsDouble());
      })
      .Default([&](Operation *o) {
        return o->emitError("trn-sim: '")
               << o->getName() << "' is not simulated";
      });
}
