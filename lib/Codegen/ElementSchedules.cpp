//===- ElementSchedules.cpp - Copy, fill, elementwise, reduce by element --===//
//
// Each schedule has a match step, which checks that every agent holds what
// it reads of register operands (trivially true where one agent runs the
// whole scope), and a rewrite that picks the operand driving the iteration:
// a register operand (the agent's held elements) or, between memory
// operands, the round-robin share of the scope's agents.
//
//===----------------------------------------------------------------------===//

#include "axe/Codegen/ElementSchedules.h"

#include "axe/Codegen/ElementOps.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace axe {

namespace {

BufferType typeOf(Value buffer) { return cast<BufferType>(buffer.getType()); }

//===----------------------------------------------------------------------===//
// copy
//===----------------------------------------------------------------------===//

ScheduleMatch matchCopy(Operation *op, const ScheduleContext &ctx,
                        const ElementBackend &be) {
  return matchElementCopy(op, ctx, be.spaceOf);
}

template <typename OpTy>
LogicalResult rewriteCopy(Operation *raw, const ScheduleContext &ctx,
                          RewriterBase &rw, OperandResolver resolve) {
  auto op = cast<OpTy>(raw);
  rw.setInsertionPoint(op);
  auto ops = resolve(rw, {op.getSource(), op.getTarget()});
  if (failed(ops) || failed(emitElementCopy(rw, raw, *ctx.codegen->threads(),
                                            (*ops)[0], (*ops)[1])))
    return failure();
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// fill
//===----------------------------------------------------------------------===//

ScheduleMatch matchFill(Operation *op, const ScheduleContext &ctx,
                        const ElementBackend &be) {
  Value t = cast<FillOp>(op).getTarget();
  if (be.spaceOf(t) == MemorySpace::Reg)
    return matchView(ctx, t);
  return ScheduleMatch::accept();
}

LogicalResult rewriteFill(Operation *raw, const ScheduleContext &ctx,
                          RewriterBase &rw, OperandResolver resolve) {
  auto op = cast<FillOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = resolve(rw, {op.getTarget()});
  if (failed(ops))
    return failure();
  const ElementOperand &dst = (*ops)[0];
  const ThreadTargetCodegen &cg = *ctx.codegen->threads();
  Value v = castElements(rw, loc, op.getValue(), dst.elementType());
  auto store = [&](OpBuilder &b, Location l, ValueRange x) {
    dst.write(b, l, x, v);
  };
  if (dst.isRegister()) {
    forEachHeld(rw, loc, cg, dst, store);
  } else {
    auto rank = scopeRank(rw, raw, cg);
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, dst.shape(), *rank, store);
  }
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// elementwise
//===----------------------------------------------------------------------===//

/// The operand whose elements an agent computes, among `spaces` (inputs,
/// then outputs): the first register output, else a register input of the
/// outputs' shape, else none (memory outputs shared round robin).
std::optional<unsigned> elementwiseDriver(ElementwiseOp op,
                                          ArrayRef<MemorySpace> spaces) {
  unsigned numInputs = op.getInputs().size();
  for (unsigned k = numInputs; k < spaces.size(); ++k)
    if (spaces[k] == MemorySpace::Reg)
      return k;
  ArrayRef<int64_t> shape = typeOf(op.getOutputs()[0]).getShape();
  for (auto [k, v] : llvm::enumerate(op.getInputs()))
    if (spaces[k] == MemorySpace::Reg && typeOf(v).getShape() == shape)
      return k;
  return std::nullopt;
}

/// The memory an operand lives in: its allocation, or the memref its view
/// takes (two views of one memref share it).
Value memoryOf(const ElementOperand &o) {
  if (auto view = dyn_cast<ViewOp>(o.ref.root))
    return view.getSource();
  return o.ref.root->getResult(0);
}

/// Whether an output in memory shares memory with an input (`ops` holds the
/// inputs, then the outputs).
bool updatesMemoryInPlace(ArrayRef<ElementOperand> ops, unsigned numInputs) {
  for (const ElementOperand &out : ops.drop_front(numInputs))
    for (const ElementOperand &in : ops.take_front(numInputs))
      if (!out.isRegister() && !in.isRegister() &&
          memoryOf(out) == memoryOf(in))
        return true;
  return false;
}

SmallVector<Value> operandsOf(ElementwiseOp op) {
  SmallVector<Value> all(op.getInputs());
  llvm::append_range(all, op.getOutputs());
  return all;
}

ScheduleMatch matchElementwise(Operation *raw, const ScheduleContext &ctx,
                               const ElementBackend &be) {
  auto op = cast<ElementwiseOp>(raw);
  SmallVector<Value> all = operandsOf(op);
  SmallVector<MemorySpace> spaces;
  for (Value v : all)
    spaces.push_back(be.spaceOf(v));
  std::optional<unsigned> driver = elementwiseDriver(op, spaces);
  if (!driver) {
    if (!runsScopeAsOneThread(ctx) &&
        llvm::is_contained(spaces, MemorySpace::Reg))
      return ScheduleMatch::decline(
          "a register input broadcasts into memory outputs; no thread "
          "holds a whole output element");
    return ScheduleMatch::accept();
  }
  Value d = all[*driver];
  if (ScheduleMatch v = matchView(ctx, d); !v.accepted())
    return v;
  for (auto [k, v] : llvm::enumerate(all))
    if (k != *driver && v != d && spaces[k] == MemorySpace::Reg)
      if (ScheduleMatch own = matchOwnRegisters(
              raw, ctx, d, v, "operand #" + std::to_string(k));
          !own.accepted())
        return own;
  return ScheduleMatch::accept();
}

LogicalResult rewriteElementwise(Operation *raw, const ScheduleContext &ctx,
                                 RewriterBase &rw, OperandResolver resolve) {
  auto op = cast<ElementwiseOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = resolve(rw, operandsOf(op));
  if (failed(ops))
    return failure();
  const ThreadTargetCodegen &cg = *ctx.codegen->threads();
  unsigned numInputs = op.getInputs().size();
  ArrayRef<int64_t> shape = (*ops)[numInputs].shape();
  Block &body = op.getBody().front();
  SmallVector<MemorySpace> spaces;
  for (const ElementOperand &o : *ops)
    spaces.push_back(o.space);
  std::optional<unsigned> driver = elementwiseDriver(op, spaces);
  // Where several threads hold a driver element, each computes it for its
  // registers and one stores it to the memory outputs.
  Value writer;
  if (driver &&
      llvm::any_of(llvm::drop_begin(*ops, numInputs),
                   [](const ElementOperand &o) { return !o.isRegister(); })) {
    const ElementOperand &d = (*ops)[*driver];
    std::optional<HeldView> held;
    if (!holderAxes(cg, d).empty())
      held = emitHeldView(rw, loc, cg, d);
    writer =
        emitOneWriter(rw, loc, cg, d, held ? *held : HeldView(), scopeOf(raw));
  }
  // With memory outputs only, the holders that do not store have nothing
  // to compute: they skip the body, reads included, which would otherwise
  // race with the writer's store where an output is also an input.
  bool memoryOutputsOnly =
      llvm::none_of(llvm::drop_begin(*ops, numInputs),
                    [](const ElementOperand &o) { return o.isRegister(); });
  // With register outputs too, every holder computes the body; where a
  // memory output updates an input in place, those that do not store read
  // elements the writer stores. They compute first, then a barrier over
  // the scope, then the writer.
  bool writerAfterReaders =
      writer && !memoryOutputsOnly && updatesMemoryInPlace(*ops, numInputs);
  auto evaluate = [&](OpBuilder &b, Location l, ValueRange x, Value storeIf,
                      bool storeMemory) {
    IRMapping map;
    for (unsigned k = 0; k < numInputs; ++k) {
      const ElementOperand &in = (*ops)[k];
      map.map(body.getArgument(k),
              in.read(b, l, mapIndices(b, l, x, shape, in.shape())));
    }
    for (Operation &inner : body.without_terminator())
      b.clone(inner, map);
    Operation *yield = body.getTerminator();
    for (auto [k, v] : llvm::enumerate(yield->getOperands())) {
      const ElementOperand &out = (*ops)[numInputs + k];
      if (!out.isRegister() && !storeMemory)
        continue;
      guarded(b, l, out.isRegister() ? Value() : storeIf, [&](OpBuilder &ib) {
        out.write(
            ib, l, mapIndices(ib, l, x, shape, out.shape()),
            castElements(ib, l, map.lookupOrDefault(v), out.elementType()));
      });
    }
  };
  auto compute = [&](OpBuilder &b, Location l, ValueRange x) {
    if (!writer || !memoryOutputsOnly)
      return evaluate(b, l, x, writer, /*storeMemory=*/true);
    guarded(b, l, writer, [&](OpBuilder &ib) {
      evaluate(ib, l, x, Value(), /*storeMemory=*/true);
    });
  };
  if (writerAfterReaders) {
    const ElementOperand &d = (*ops)[*driver];
    Value reader = arith::XOrIOp::create(
        rw, loc, writer, arith::ConstantIntOp::create(rw, loc, 1, 1));
    auto phase = [&](Value who, bool storeMemory) {
      forEachHeld(rw, loc, cg, d, [&](OpBuilder &b, Location l, ValueRange x) {
        guarded(b, l, who, [&](OpBuilder &ib) {
          evaluate(ib, l, mapIndices(ib, l, x, d.shape(), shape), Value(),
                   storeMemory);
        });
      });
    };
    phase(reader, /*storeMemory=*/false);
    if (failed(cg.barrier(rw, loc, scopeOf(raw))))
      return failure();
    phase(writer, /*storeMemory=*/true);
    rw.eraseOp(op);
    return success();
  }
  if (driver) {
    const ElementOperand &d = (*ops)[*driver];
    forEachHeld(rw, loc, cg, d, [&](OpBuilder &b, Location l, ValueRange x) {
      compute(b, l, mapIndices(b, l, x, d.shape(), shape));
    });
  } else {
    auto rank = scopeRank(rw, raw, cg);
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, shape, *rank, compute);
  }
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

/// Fails unless every thread holding a target element holds the whole
/// source row it reduces.
Result<bool> checkSerialRows(const TargetDescription &target, int64_t threads,
                             ReduceOp op) {
  auto rh = ReduceHolders::get(target, threads, op);
  if (!rh)
    return rh.takeFailure();
  for (int64_t i = 0; i < rh->source.size(); ++i)
    for (int64_t tid = 0; tid < threads; ++tid)
      if (rh->target.holds(rh->targetOf[i], tid) && !rh->source.holds(i, tid))
        return fail("thread " + std::to_string(tid) +
                    " holds a target element but not all of its source row");
  return true;
}

/// Each agent computes whole target elements (those it holds, or its
/// round-robin share of a memory target) from a source it can read.
ScheduleMatch matchReduce(Operation *raw, const ScheduleContext &ctx,
                          const ElementBackend &be) {
  auto op = cast<ReduceOp>(raw);
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  if (auto map = reduceMapping(s.getShape(), op.getDims(), t.getShape()); !map)
    return ScheduleMatch::decline(map.message());
  bool oneAgent = runsScopeAsOneThread(ctx);
  bool srcReg = be.spaceOf(op.getSource()) == MemorySpace::Reg;
  if (srcReg && !oneAgent) {
    // A thread reads whole source rows: it must hold them.
    if (auto ok = checkSerialRows(*ctx.target, threadsOf(raw), op); !ok)
      return ScheduleMatch::decline(ok.message());
  }
  if (be.spaceOf(op.getTarget()) == MemorySpace::Reg)
    return matchView(ctx, op.getTarget());
  if (srcReg && !oneAgent)
    return ScheduleMatch::decline("a register source with a memory target: "
                                  "no thread is known to hold whole rows");
  return ScheduleMatch::accept();
}

LogicalResult rewriteReduce(Operation *raw, const ScheduleContext &ctx,
                            RewriterBase &rw, OperandResolver resolve) {
  auto op = cast<ReduceOp>(raw);
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto ops = resolve(rw, {op.getSource(), op.getTarget()});
  if (failed(ops))
    return failure();
  const ThreadTargetCodegen &cg = *ctx.codegen->threads();
  const ElementOperand &src = (*ops)[0], &dst = (*ops)[1];
  auto map = *reduceMapping(src.shape(), op.getDims(), dst.shape());
  Combiner kind = combinerOf(op.getKind());
  Type elt = dst.elementType();
  SmallVector<int64_t, 4> reducedShape;
  for (auto [d, e] : llvm::enumerate(src.shape()))
    if (map.reduced[d])
      reducedShape.push_back(e);
  auto compute = [&](OpBuilder &b, Location l, ValueRange x) {
    // Source index: kept dims from the target index, reduced ones looped.
    SmallVector<Value, 4> kept(src.shape().size());
    for (auto [td, sd] : llvm::enumerate(map.targetDims))
      if (!map.reduced[sd])
        kept[sd] = x[td];
    Value init = op.getAccumulate() ? castElements(b, l, dst.read(b, l, x), elt)
                                    : reductionIdentity(b, l, kind, elt);
    int64_t n = 1;
    for (int64_t e : reducedShape)
      n *= e;
    auto loop =
        scf::ForOp::create(b, l, indexConstant(b, l, 0), indexConstant(b, l, n),
                           indexConstant(b, l, 1), ValueRange{init});
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value, 4> r =
          delinearize(b, l, loop.getInductionVar(), reducedShape);
      SmallVector<Value, 4> idx = kept;
      unsigned k = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        if (map.reduced[d])
          idx[d] = r[k++];
      Value v = castElements(b, l, src.read(b, l, idx), elt);
      scf::YieldOp::create(b, l,
                           combine(b, l, kind, loop.getRegionIterArg(0), v));
    }
    dst.write(b, l, x, loop.getResult(0));
  };
  if (dst.isRegister()) {
    forEachHeld(rw, loc, cg, dst, compute);
  } else {
    auto rank = scopeRank(rw, raw, cg);
    if (failed(rank))
      return failure();
    forEachShared(rw, loc, dst.shape(), *rank, compute);
  }
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

using GenericMatch = ScheduleMatch (*)(Operation *, const ScheduleContext &,
                                       const ElementBackend &);

Schedule makeSchedule(const ElementBackend &be, StringRef opName,
                      StringRef kind, StringRef summary, GenericMatch match,
                      ElementRewrite rewrite) {
  Schedule s;
  s.name = be.prefix + "." + kind.str() + ".elements";
  s.opName = opName.str();
  s.targets = be.targets;
  s.priority = be.priority;
  s.summary = summary.str();
  s.match = [be, match](Operation *op, const ScheduleContext &ctx) {
    ScheduleMatch common = be.common(op, ctx);
    if (!common.accepted())
      return common;
    ScheduleMatch own = match(op, ctx, be);
    return own.accepted() ? common : own;
  };
  Schedule::RewriteFn wrapped = be.wrap(std::move(rewrite));
  s.rewrite = [wrapped](Operation *op, const ScheduleContext &ctx,
                        const std::any &plan, RewriterBase &rw) {
    // The agent's copy has completed when its code returns (a barrier
    // orders the agents): the token carries nothing. Outside the backend's
    // wrapping, which may run a clone of the operator per instance.
    if (auto async = dyn_cast<CopyAsyncOp>(op))
      replaceTokenWithPlaceholder(async.getToken(), rw);
    return wrapped(op, ctx, plan, rw);
  };
  if (be.propose)
    s.propose = be.propose(opName);
  return s;
}

} // namespace

LogicalResult emitElementCopy(OpBuilder &b, Operation *op,
                              const ThreadTargetCodegen &cg,
                              const ElementOperand &src,
                              const ElementOperand &dst) {
  Location loc = op->getLoc();
  Type elt = dst.elementType();
  auto move = [&](OpBuilder &ib, Location l, ValueRange x,
                  ArrayRef<int64_t> from) {
    SmallVector<Value, 4> xs = mapIndices(ib, l, x, from, src.shape());
    SmallVector<Value, 4> xd = mapIndices(ib, l, x, from, dst.shape());
    dst.write(ib, l, xd, castElements(ib, l, src.read(ib, l, xs), elt));
  };
  if (dst.isRegister() || src.isRegister()) {
    // The register side decides which elements this agent moves; into
    // memory, one holder of each stores it.
    const ElementOperand &reg = dst.isRegister() ? dst : src;
    std::optional<ScopeKind> writer;
    if (!dst.isRegister())
      writer = scopeOf(op);
    forEachHeld(
        b, loc, cg, reg,
        [&](OpBuilder &ib, Location l, ValueRange x) {
          move(ib, l, x, reg.shape());
        },
        writer);
    return success();
  }
  auto rank = scopeRank(b, op, cg);
  if (failed(rank))
    return failure();
  forEachShared(b, loc, dst.shape(), *rank,
                [&](OpBuilder &ib, Location l, ValueRange x) {
                  move(ib, l, x, dst.shape());
                });
  return success();
}

SmallVector<int64_t, 4> reducedTargetIndex(ArrayRef<int64_t> x,
                                           const ReduceMapping &map) {
  SmallVector<int64_t, 4> t;
  for (unsigned d : map.targetDims)
    t.push_back(map.reduced[d] ? 0 : x[d]);
  return t;
}

Result<ReduceHolders> ReduceHolders::get(const TargetDescription &target,
                                         int64_t threads, ReduceOp op) {
  BufferType s = typeOf(op.getSource()), t = typeOf(op.getTarget());
  auto map = reduceMapping(s.getShape(), op.getDims(), t.getShape());
  if (!map)
    return map.takeFailure();
  auto sh = Holders::get(target, s.getLayout(), s.getShape(), threads);
  if (!sh)
    return sh.takeFailure();
  auto th = Holders::get(target, t.getLayout(), t.getShape(), threads);
  if (!th)
    return th.takeFailure();
  ReduceHolders r{std::move(*sh), std::move(*th), {}};
  SmallVector<int64_t, 4> x(s.getShape().size(), 0);
  for (int64_t i = 0; i < r.source.size(); ++i) {
    int64_t flat = 0;
    for (auto [v, e] : llvm::zip(reducedTargetIndex(x, *map), t.getShape()))
      flat = flat * e + v;
    r.targetOf.push_back(flat);
    Holders::advance(x, s.getShape());
  }
  return r;
}

ScheduleMatch matchElementCopy(Operation *op, const ScheduleContext &ctx,
                               function_ref<MemorySpace(Value)> spaceOf) {
  Value source, target;
  if (auto copy = dyn_cast<CopyOp>(op)) {
    source = copy.getSource();
    target = copy.getTarget();
  } else {
    auto async = cast<CopyAsyncOp>(op);
    source = async.getSource();
    target = async.getTarget();
  }
  BufferType s = typeOf(source), t = typeOf(target);
  if (auto ok = checkCopyShapes(s.getShape(), t.getShape()); !ok)
    return ScheduleMatch::decline(ok.message());
  bool srcReg = spaceOf(source) == MemorySpace::Reg;
  bool dstReg = spaceOf(target) == MemorySpace::Reg;
  if (dstReg) {
    if (ScheduleMatch v = matchView(ctx, target); !v.accepted())
      return v;
    if (srcReg)
      return matchOwnRegisters(op, ctx, target, source, "the source");
  } else if (srcReg) {
    return matchView(ctx, source);
  }
  return ScheduleMatch::accept();
}

std::vector<Schedule> elementSchedules(const ElementBackend &be) {
  std::vector<Schedule> s;
  StringRef copySummary =
      "each agent moves the elements it holds of the register side, or its "
      "round-robin share between memory operands, one at a time";
  s.push_back(makeSchedule(be, "axe.copy", "copy", copySummary, matchCopy,
                           rewriteCopy<CopyOp>));
  s.push_back(makeSchedule(be, "axe.copy_async", "copy", copySummary, matchCopy,
                           rewriteCopy<CopyAsyncOp>));
  s.push_back(makeSchedule(
      be, "axe.fill", "fill",
      "each agent stores the value at the elements it holds, or at its "
      "round-robin share of a memory target",
      matchFill, rewriteFill));
  s.push_back(makeSchedule(
      be, "axe.elementwise", "elementwise",
      "each agent computes the elements it holds of the first register "
      "output (or its share of memory outputs), reading inputs it holds",
      matchElementwise, rewriteElementwise));
  s.push_back(makeSchedule(
      be, "axe.reduce", "reduce",
      "each agent reduces whole target elements (those it holds, or its "
      "share of a memory target) reading the source",
      matchReduce, rewriteReduce));
  return s;
}

void addElementSchedules(ScheduleRegistry &registry,
                         const ElementBackend &backend) {
  for (Schedule &s : elementSchedules(backend))
    (void)registry.add(std::move(s));
}

} // namespace axe
