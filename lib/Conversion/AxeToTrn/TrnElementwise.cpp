//===- TrnElementwise.cpp - axe.elementwise as engine instructions --------===//
//
// The body of an elementwise operator is scalar arith/math; each of its ops
// becomes one instruction over whole tiles. A value is a tile (one element
// per element of the outputs), a column (one per partition, broadcast along
// the free dims: a [P, 1] tile) or an immediate. Binary ops of two tiles or
// two columns run on VectorE's tensor_tensor; a tile with a column or an
// immediate is tensor_scalar (reversed when the scalar comes first); math
// functions are ScalarE activations. Engines compute in f32 and round when
// they write, so a truncf that is only yielded costs nothing: the output's
// type does the rounding. A value goes straight into its output when it is
// only yielded and no later instruction reads an input that is the same
// buffer; otherwise it lives in an SBUF tile of f32 and is copied.
//
//===----------------------------------------------------------------------===//

#include "TrnSchedules.h"

#include "axe/Codegen/BufferRef.h"
#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace axe::trnconv {
namespace {

enum class ValueKind { Imm = 0, Column = 1, Tile = 2 };

std::optional<trn::AluOp> aluOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<trn::AluOp>>(op)
      .Case<arith::AddFOp>([](auto) { return trn::AluOp::Add; })
      .Case<arith::SubFOp>([](auto) { return trn::AluOp::Subtract; })
      .Case<arith::MulFOp>([](auto) { return trn::AluOp::Multiply; })
      .Case<arith::DivFOp>([](auto) { return trn::AluOp::Divide; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp>(
          [](auto) { return trn::AluOp::Max; })
      .Case<arith::MinimumFOp, arith::MinNumFOp>(
          [](auto) { return trn::AluOp::Min; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<trn::ActFunc> activationOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<trn::ActFunc>>(op)
      .Case<math::ExpOp>([](auto) { return trn::ActFunc::Exp; })
      .Case<math::LogOp>([](auto) { return trn::ActFunc::Log; })
      .Case<math::TanhOp>([](auto) { return trn::ActFunc::Tanh; })
      .Case<math::SqrtOp>([](auto) { return trn::ActFunc::Sqrt; })
      .Case<math::RsqrtOp>([](auto) { return trn::ActFunc::Rsqrt; })
      .Default([](Operation *) { return std::nullopt; });
}

double foldAlu(trn::AluOp op, double a, double b) {
  switch (op) {
  case trn::AluOp::Add:
    return a + b;
  case trn::AluOp::Subtract:
    return a - b;
  case trn::AluOp::Multiply:
    return a * b;
  case trn::AluOp::Divide:
    return a / b;
  case trn::AluOp::Max:
    return std::max(a, b);
  default:
    return std::min(a, b);
  }
}

double foldActivation(trn::ActFunc f, double x) {
  switch (f) {
  case trn::ActFunc::Exp:
    return std::exp(x);
  case trn::ActFunc::Log:
    return std::log(x);
  case trn::ActFunc::Tanh:
    return std::tanh(x);
  case trn::ActFunc::Sqrt:
    return std::sqrt(x);
  default:
    return 1 / std::sqrt(x);
  }
}

bool isCast(Operation *op) { return isa<arith::TruncFOp, arith::ExtFOp>(op); }

std::optional<double> immediateOf(Value v) {
  FloatAttr f;
  if (matchPattern(v, m_Constant(&f)))
    return f.getValueAsDouble();
  return std::nullopt;
}

struct EwPlan {
  OperandSet set;
  unsigned numInputs = 0;
  unsigned partition = 0;
  SmallVector<unsigned> freeIters, loops;
  SmallVector<ValueKind> inputKinds;
  /// Free elements of each partition per instruction.
  int64_t freeElements = 1;
};

/// The kind of every body value, or why an op has no instruction.
Result<DenseMap<Value, ValueKind>> kindsOf(ElementwiseOp op,
                                           ArrayRef<ValueKind> inputs) {
  DenseMap<Value, ValueKind> kinds;
  Block &body = op.getBody().front();
  for (auto [arg, kind] : llvm::zip(body.getArguments(), inputs))
    kinds[arg] = kind;
  auto kindOf = [&](Value v) -> std::optional<ValueKind> {
    if (auto it = kinds.find(v); it != kinds.end())
      return it->second;
    if (immediateOf(v))
      return ValueKind::Imm;
    return std::nullopt;
  };
  for (Operation &inner : body.without_terminator()) {
    if (isa<arith::ConstantOp>(inner)) {
      if (!immediateOf(inner.getResult(0)))
        return fail("the body's constant is not a float");
      kinds[inner.getResult(0)] = ValueKind::Imm;
      continue;
    }
    if (!aluOf(&inner) && !activationOf(&inner) && !isCast(&inner) &&
        !isa<arith::NegFOp>(inner))
      return fail("'" + inner.getName().getStringRef().str() +
                  "' in the body has no VectorE or ScalarE instruction");
    ValueKind result = ValueKind::Imm;
    for (Value operand : inner.getOperands()) {
      std::optional<ValueKind> k = kindOf(operand);
      if (!k)
        return fail("the body uses a value from outside that is not a float "
                    "constant; engine scalars are immediates or tiles");
      result = std::max(result, *k);
    }
    kinds[inner.getResult(0)] = result;
  }
  for (Value v : body.getTerminator()->getOperands())
    if (!kindOf(v))
      return fail("the body yields a value from outside that is not a "
                  "float constant");
  return kinds;
}

Result<EwPlan> planElementwise(ElementwiseOp op) {
  SmallVector<Value> buffers(op.getInputs());
  buffers.append(op.getOutputs().begin(), op.getOutputs().end());
  auto outType = cast<BufferType>(op.getOutputs().front().getType());
  ArrayRef<int64_t> shape = outType.getShape();
  SmallVector<SmallVector<int, 4>> dimOf;
  for (Value v : buffers) {
    ArrayRef<int64_t> s = cast<BufferType>(v.getType()).getShape();
    SmallVector<int, 4> dims;
    for (unsigned d = 0; d < s.size(); ++d)
      dims.push_back(s[d] == shape[d] ? int(d) : -1);
    dimOf.push_back(dims);
  }
  Result<OperandSet> set = analyzeOperands(buffers, shape, dimOf);
  if (!set)
    return set.takeFailure();
  EwPlan plan;
  plan.numInputs = op.getInputs().size();
  SmallVector<unsigned> all;
  for (unsigned k = 0; k < buffers.size(); ++k) {
    if (!set->ops[k].onChip())
      return fail("operand " + std::to_string(k) +
                  " is in hbm; engines read and write sbuf and psum");
    all.push_back(k);
  }
  const OpSpace &s = set->space;
  std::optional<unsigned> partition;
  for (unsigned k : all) {
    SmallVector<unsigned, 2> p = s.itersOfKind(k, IterKind::Partition);
    if (p.size() != 1 || (partition && *partition != p.front()))
      return fail("every operand must have the outputs' partitions, in one "
                  "iter: operand " +
                  std::to_string(k) + " " + describe(s, k) +
                  " against output " + describe(s, plan.numInputs));
    partition = p.front();
  }
  plan.partition = *partition;
  for (unsigned i = 0; i < s.size(); ++i)
    if (i != plan.partition) {
      plan.freeIters.push_back(i);
      plan.freeElements *= s.iter(i).extent;
    }
  while (plan.freeIters.size() > 4) {
    plan.freeElements /= s.iter(plan.freeIters.front()).extent;
    plan.loops.push_back(plan.freeIters.front());
    plan.freeIters.erase(plan.freeIters.begin());
  }
  for (unsigned k = 0; k < plan.numInputs; ++k) {
    bool spansAll = llvm::all_of(plan.freeIters, [&](unsigned i) {
      return s.iter(i).at[k].has_value();
    });
    bool spansNone = llvm::none_of(plan.freeIters, [&](unsigned i) {
      return s.iter(i).at[k].has_value();
    });
    if (!spansAll && !spansNone)
      return fail("input " + std::to_string(k) +
                  " broadcasts along some free dims but not all; a "
                  "per-partition scalar is a [P, 1] column");
    plan.inputKinds.push_back(spansAll || plan.freeIters.empty()
                                  ? ValueKind::Tile
                                  : ValueKind::Column);
  }
  Result<DenseMap<Value, ValueKind>> kinds = kindsOf(op, plan.inputKinds);
  if (!kinds)
    return kinds.takeFailure();
  for (auto [j, v] :
       llvm::enumerate(op.getBody().front().getTerminator()->getOperands())) {
    auto it = kinds->find(v);
    if (it != kinds->end() && it->second == ValueKind::Column &&
        !plan.freeIters.empty())
      return fail("output " + std::to_string(j) +
                  " gets a per-partition value broadcast along its free "
                  "dims, which no single instruction writes");
  }
  plan.set = std::move(*set);
  return plan;
}

/// A body value during emission. A tile may be pending as
/// `view * scale (+|-) bias` with `bias` a column: an activation takes it
/// whole (func(src * scale + bias)), anything else materializes it with one
/// tensor_scalar.
struct EwValue {
  ValueKind kind = ValueKind::Imm;
  Value view;
  double imm = 0;
  bool pending = false;
  double scale = 1;
  Value bias;
  bool subtractBias = false;
};

/// Where a fused reduction goes: `axe.reduce sum` of output `output` right
/// after the operator, done by the activation that writes that output.
struct FusedReduce {
  unsigned output = 0;
  Value target;
  /// The output is read by nothing but the reduction: once the activation
  /// sums, nothing needs to write it.
  bool elide = false;
  bool done = false;
};

class EwEmitter {
public:
  EwEmitter(ElementwiseOp op, const EwPlan &plan, OperandSet &set, OpBuilder &b,
            ArrayRef<Value> offsets, FusedReduce *fused)
      : op(op), plan(plan), set(set), b(b), loc(op.getLoc()), offsets(offsets),
        fused(fused) {}

  LogicalResult run();

private:
  Value tileView(unsigned k, bool column) {
    SmallVector<unsigned> iters = {plan.partition};
    if (!column)
      iters.append(plan.freeIters);
    return set.space.view(b, loc, set.ops[k], k, iters, offsets[k],
                          column || plan.freeIters.empty());
  }
  int64_t partitions() const { return set.space.iter(plan.partition).extent; }
  Value temp(ValueKind kind, Type elementType) {
    if (kind == ValueKind::Column)
      return allocTemp(b, loc, partitions(), {1}, elementType);
    return allocTemp(b, loc, partitions(), {plan.freeElements}, elementType);
  }
  /// Where the result of body op `index` goes: its output, or a new tile.
  Value destination(Operation *inner, unsigned index, ValueKind kind,
                    Type elementType);
  void binary(trn::AluOp alu, EwValue x, EwValue y, Value dst);
  /// The value's tile, emitting its pending arithmetic into `dst` (or a new
  /// tile) first.
  Value materialize(EwValue &v, Value dst = {});
  /// Whether `view` is an input that is also an output (pending reads of it
  /// would come after the output's write).
  bool isAliasedInput(Value view) const {
    return llvm::is_contained(aliasedViews, view);
  }
  Value negated(Value column);
  bool tryPending(Operation *inner, EwValue x, EwValue y, EwValue &result);
  LogicalResult finish();

  ElementwiseOp op;
  const EwPlan &plan;
  OperandSet &set;
  OpBuilder &b;
  Location loc;
  ArrayRef<Value> offsets;
  FusedReduce *fused;
  DenseMap<Value, EwValue> values;
  SmallVector<Value> aliasedViews;
  DenseMap<Value, Value> negations;
  /// Outputs already written, by output index.
  SmallVector<bool> written;
  /// Per output, the last body op index that reads an input that is the
  /// same buffer (-1: none).
  SmallVector<int> lastAliasRead;
};

/// The outputs `v` reaches, directly or through casts, when the yield is
/// all it reaches; the widest first, so the narrower ones round from it.
std::optional<SmallVector<unsigned>> yieldedOnlyAs(Value v) {
  SmallVector<unsigned> outputs;
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    for (OpOperand &use : x.getUses()) {
      Operation *user = use.getOwner();
      if (isa<YieldOp>(user))
        outputs.push_back(use.getOperandNumber());
      else if (isCast(user))
        work.push_back(user->getResult(0));
      else
        return std::nullopt;
    }
  }
  if (outputs.empty())
    return std::nullopt;
  Block *body = v.getParentBlock();
  auto width = [&](unsigned j) {
    return body->getTerminator()
        ->getOperand(j)
        .getType()
        .getIntOrFloatBitWidth();
  };
  llvm::stable_sort(
      outputs, [&](unsigned a, unsigned c) { return width(a) > width(c); });
  return outputs;
}

Value EwEmitter::destination(Operation *inner, unsigned index, ValueKind kind,
                             Type elementType) {
  std::optional<SmallVector<unsigned>> js = yieldedOnlyAs(inner->getResult(0));
  // An output only the fused reduction reads is written last, if at all.
  if (js && fused && fused->elide)
    std::stable_partition(js->begin(), js->end(),
                          [&](unsigned j) { return j != fused->output; });
  if (js && (kind == ValueKind::Tile || plan.freeIters.empty()))
    for (unsigned j : *js)
      if (!written[j] && int(index) >= lastAliasRead[j]) {
        written[j] = true;
        return tileView(plan.numInputs + j, false);
      }
  return temp(kind, elementType);
}

void EwEmitter::binary(trn::AluOp alu, EwValue x, EwValue y, Value dst) {
  auto f32 = [&](double v) { return b.getF32FloatAttr(v); };
  Value xv = x.kind == ValueKind::Imm ? Value() : materialize(x);
  Value yv = y.kind == ValueKind::Imm ? Value() : materialize(y);
  if (x.kind == y.kind) {
    trn::TensorTensorOp::create(b, loc, alu, xv, yv, dst, trn::Engine::Vector);
    return;
  }
  bool reverse = x.kind < y.kind;
  Value src = reverse ? yv : xv, scalar = reverse ? xv : yv;
  double imm = reverse ? x.imm : y.imm;
  trn::TensorScalarOp::create(
      b, loc, src, alu, scalar, scalar ? FloatAttr() : f32(imm), reverse,
      trn::AluOpAttr(), Value(), FloatAttr(), false, dst, trn::Engine::Vector);
}

Value EwEmitter::materialize(EwValue &v, Value dst) {
  if (!v.pending)
    return v.view;
  if (!dst)
    dst = temp(v.kind, b.getF32Type());
  auto f32 = [&](double x) { return b.getF32FloatAttr(x); };
  trn::AluOp biasOp = v.subtractBias ? trn::AluOp::Subtract : trn::AluOp::Add;
  if (v.scale == 1)
    trn::TensorScalarOp::create(b, loc, v.view, biasOp, v.bias, FloatAttr(),
                                false, trn::AluOpAttr(), Value(), FloatAttr(),
                                false, dst, trn::Engine::Vector);
  else if (!v.bias)
    trn::TensorScalarOp::create(b, loc, v.view, trn::AluOp::Multiply, Value(),
                                f32(v.scale), false, trn::AluOpAttr(), Value(),
                                FloatAttr(), false, dst, trn::Engine::Vector);
  else
    trn::TensorScalarOp::create(
        b, loc, v.view, trn::AluOp::Multiply, Value(), f32(v.scale), false,
        trn::AluOpAttr::get(b.getContext(), biasOp), v.bias, FloatAttr(), false,
        dst, trn::Engine::Vector);
  v = {v.kind, dst, 0};
  return dst;
}

Value EwEmitter::negated(Value column) {
  Value &neg = negations[column];
  if (!neg) {
    neg = temp(ValueKind::Column, b.getF32Type());
    trn::TensorScalarOp::create(b, loc, column, trn::AluOp::Multiply, Value(),
                                b.getF32FloatAttr(-1), false, trn::AluOpAttr(),
                                Value(), FloatAttr(), false, neg,
                                trn::Engine::Vector);
  }
  return neg;
}

/// Scaling a tile by an immediate, then adding or subtracting a column,
/// waits for its consumer: an activation does both for free.
bool EwEmitter::tryPending(Operation *inner, EwValue x, EwValue y,
                           EwValue &result) {
  if (plan.freeIters.empty())
    return false;
  bool commutes = isa<arith::MulFOp, arith::AddFOp>(inner);
  if (commutes && x.kind != ValueKind::Tile)
    std::swap(x, y);
  if (x.kind != ValueKind::Tile || x.bias || isAliasedInput(x.view))
    return false;
  if (isa<arith::MulFOp>(inner) && y.kind == ValueKind::Imm) {
    result = x;
    result.pending = true;
    result.scale *= y.imm;
    return true;
  }
  if (isa<arith::AddFOp, arith::SubFOp>(inner) && y.kind == ValueKind::Column &&
      !y.pending && !isAliasedInput(y.view)) {
    result = x;
    result.pending = true;
    result.bias = y.view;
    result.subtractBias = isa<arith::SubFOp>(inner);
    return true;
  }
  return false;
}

LogicalResult EwEmitter::run() {
  Block &body = op.getBody().front();
  unsigned numOutputs = op.getOutputs().size();
  written.assign(numOutputs, false);
  lastAliasRead.assign(numOutputs, -1);
  SmallVector<Operation *> ops;
  for (Operation &inner : body.without_terminator())
    ops.push_back(&inner);
  for (unsigned j = 0; j < numOutputs; ++j)
    for (unsigned k = 0; k < plan.numInputs; ++k)
      if (op.getInputs()[k] == op.getOutputs()[j])
        for (auto [index, inner] : llvm::enumerate(ops))
          if (llvm::is_contained(inner->getOperands(), body.getArgument(k)))
            lastAliasRead[j] = std::max<int>(lastAliasRead[j], index);
  for (unsigned k = 0; k < plan.numInputs; ++k) {
    Value view = tileView(k, plan.inputKinds[k] == ValueKind::Column);
    values[body.getArgument(k)] = {plan.inputKinds[k], view, 0};
    if (llvm::is_contained(op.getOutputs(), op.getInputs()[k]))
      aliasedViews.push_back(view);
  }

  auto get = [&](Value v) {
    if (auto it = values.find(v); it != values.end())
      return it->second;
    return EwValue{ValueKind::Imm, Value(), *immediateOf(v)};
  };
  Type f32 = b.getF32Type();
  for (auto [index, inner] : llvm::enumerate(ops)) {
    Value result = inner->getResult(0);
    if (auto c = immediateOf(result); c && isa<arith::ConstantOp>(inner)) {
      values[result] = {ValueKind::Imm, Value(), *c};
      continue;
    }
    if (isCast(inner)) {
      EwValue v = get(inner->getOperand(0));
      // Rounding to a narrower type matters when the value is used on.
      if (v.kind != ValueKind::Imm && isa<arith::TruncFOp>(inner) &&
          !yieldedOnlyAs(result)) {
        Value dst = destination(inner, index, v.kind, result.getType());
        trn::TensorCopyOp::create(b, loc, materialize(v), dst,
                                  trn::Engine::Vector);
        v = {v.kind, dst, 0};
      }
      values[result] = v;
      continue;
    }
    SmallVector<EwValue, 2> in;
    ValueKind kind = ValueKind::Imm;
    for (Value operand : inner->getOperands()) {
      in.push_back(get(operand));
      kind = std::max(kind, in.back().kind);
    }
    if (isa<arith::NegFOp>(inner)) {
      if (kind == ValueKind::Imm) {
        values[result] = {kind, Value(), -in[0].imm};
        continue;
      }
      Value dst = destination(inner, index, kind, f32);
      binary(trn::AluOp::Multiply, in[0], {ValueKind::Imm, Value(), -1.0}, dst);
      values[result] = {kind, dst, 0};
      continue;
    }
    if (std::optional<trn::AluOp> alu = aluOf(inner)) {
      if (kind == ValueKind::Imm) {
        values[result] = {kind, Value(), foldAlu(*alu, in[0].imm, in[1].imm)};
        continue;
      }
      EwValue pending;
      if (tryPending(inner, in[0], in[1], pending)) {
        values[result] = pending;
        continue;
      }
      Value dst = destination(inner, index, kind, f32);
      binary(*alu, in[0], in[1], dst);
      values[result] = {kind, dst, 0};
      continue;
    }
    trn::ActFunc func = *activationOf(inner);
    if (kind == ValueKind::Imm) {
      values[result] = {kind, Value(), foldActivation(func, in[0].imm)};
      continue;
    }
    Value dst = destination(inner, index, kind, f32);
    EwValue x = in[0];
    Value bias = x.pending && x.bias
                     ? (x.subtractBias ? negated(x.bias) : x.bias)
                     : Value();
    FloatAttr scale =
        x.pending && x.scale != 1 ? b.getF32FloatAttr(x.scale) : FloatAttr();
    // The activation's own f32 results are what the fused reduction sums:
    // those of the output it is yielded to without a cast.
    Value reduceInto;
    if (fused && llvm::any_of(result.getUses(), [&](OpOperand &use) {
          return isa<YieldOp>(use.getOwner()) &&
                 use.getOperandNumber() == fused->output;
        })) {
      reduceInto = fused->target;
      fused->done = true;
    }
    trn::ActivationOp::create(
        b, loc, func, x.view, dst, bias, scale, Value(),
        reduceInto ? trn::AluOpAttr::get(b.getContext(), trn::AluOp::Add)
                   : trn::AluOpAttr(),
        reduceInto);
    values[result] = {kind, dst, 0};
  }
  return finish();
}

/// Outputs that did not get their value directly: the pending arithmetic
/// into them, a copy (from an output already holding the value, when one
/// does), or a memset of an immediate.
LogicalResult EwEmitter::finish() {
  Block &body = op.getBody().front();
  for (auto [j, v] : llvm::enumerate(body.getTerminator()->getOperands())) {
    if (written[j] ||
        (fused && fused->elide && fused->done && j == fused->output))
      continue;
    EwValue &value =
        values.count(v)
            ? values[v]
            : (values[v] = {ValueKind::Imm, Value(), *immediateOf(v)});
    Value out = tileView(plan.numInputs + j, false);
    if (value.kind == ValueKind::Imm) {
      Type t = set.ops[plan.numInputs + j].ref.elementType;
      auto ft = dyn_cast<FloatType>(t);
      if (!ft)
        return op.emitError("trn: output ")
               << j << " of " << t << " gets a float immediate";
      bool lost;
      APFloat imm(value.imm);
      imm.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      trn::MemsetOp::create(b, loc, FloatAttr::get(t, imm), out,
                            trn::Engine::Vector);
      continue;
    }
    if (value.pending) {
      materialize(value, out);
      continue;
    }
    trn::TensorCopyOp::create(b, loc, value.view, out, trn::Engine::Vector);
  }
  return success();
}

ScheduleMatch matchEngines(Operation *op, const ScheduleContext &) {
  return matchPlanned<ElementwiseOp>(op, planElementwise);
}

/// The reduction right after `op` that its activation can do: a sum over
/// the free dims of an f32 output into a column.
std::optional<std::pair<unsigned, ReduceOp>> fusableReduce(ElementwiseOp op,
                                                           const EwPlan &plan) {
  auto reduce = dyn_cast_or_null<ReduceOp>(op->getNextNode());
  if (!reduce || reduce.getKind() != ReduceKind::Sum ||
      reduce.getAccumulate() || !plan.loops.empty() || plan.freeIters.empty())
    return std::nullopt;
  auto outputs = op.getOutputs();
  auto it = llvm::find(outputs, reduce.getSource());
  if (it == outputs.end() ||
      !cast<BufferType>(reduce.getSource().getType()).getElementType().isF32())
    return std::nullopt;
  // The fused activation writes the sums while the body still runs: a
  // target in the memory of one of the body's operands (read later by its
  // other instructions, or written by them) would change them. Buffers of
  // one root are taken to share memory.
  auto rootOf = [](Value buffer) -> Operation * {
    Result<BufferChain> chain = walkBufferChain(buffer);
    return chain ? chain->root : nullptr;
  };
  Operation *targetRoot = rootOf(reduce.getTarget());
  if (!targetRoot)
    return std::nullopt;
  for (Value operand : op->getOperands())
    if (isa<BufferType>(operand.getType()) && rootOf(operand) == targetRoot)
      return std::nullopt;
  // Every free iter is reduced and the target is [P, 1] on the same
  // partitions.
  unsigned j = it - outputs.begin();
  const OpSpace &s = plan.set.space;
  for (unsigned i : plan.freeIters)
    if (!llvm::is_contained(reduce.getDims(), int64_t(s.iter(i).dim)))
      return std::nullopt;
  if (llvm::is_contained(reduce.getDims(), int64_t(s.iter(plan.partition).dim)))
    return std::nullopt;
  return std::make_pair(j, reduce);
}

/// The attribute on an axe.reduce that an activation already did.
constexpr StringLiteral kFusedAttr = "trn.fused_into_activation";

/// A reduction that the activation writing output `output` does as it
/// writes, with its target analysed as a [P, 1] column on the operator's
/// partition iter (not yet materialized).
struct FusablePlan {
  unsigned output = 0;
  ReduceOp reduce;
  OperandSet target;
  unsigned partitionIter = 0;
};

/// The fusion of the reduction after `op`, decided from types alone: the
/// rewrite fuses exactly when this holds, so the reduce's match can say so
/// before the operator is rewritten (inference pins that schedule).
std::optional<FusablePlan> planFusedReduce(ElementwiseOp op,
                                           const EwPlan &plan) {
  std::optional<std::pair<unsigned, ReduceOp>> reduce = fusableReduce(op, plan);
  if (!reduce)
    return std::nullopt;
  Value target = reduce->second.getTarget();
  auto type = cast<BufferType>(target.getType());
  SmallVector<int, 4> dims(type.getRank(), -1);
  dims[plan.set.space.iter(plan.partition).dim] =
      plan.set.space.iter(plan.partition).dim;
  Result<OperandSet> t = analyzeOperands(
      {target},
      cast<BufferType>(reduce->second.getSource().getType()).getShape(),
      {dims});
  if (!t || !t->ops[0].onChip())
    return std::nullopt;
  SmallVector<unsigned, 2> p = t->space.itersOfKind(0, IterKind::Partition);
  if (p.size() != 1 ||
      t->space.iter(p[0]).extent != plan.set.space.iter(plan.partition).extent)
    return std::nullopt;
  // An activation of a tile must write the summed output as it is yielded
  // (EwEmitter::run hands it the reduction then).
  Result<DenseMap<Value, ValueKind>> kinds = kindsOf(op, plan.inputKinds);
  if (!kinds)
    return std::nullopt;
  bool activation = llvm::any_of(
      op.getBody().front().without_terminator(), [&](Operation &inner) {
        Value r = inner.getNumResults() ? inner.getResult(0) : Value();
        return activationOf(&inner) && kinds->lookup(r) != ValueKind::Imm &&
               llvm::any_of(r.getUses(), [&](OpOperand &use) {
                 return isa<YieldOp>(use.getOwner()) &&
                        use.getOperandNumber() == reduce->first;
               });
      });
  if (!activation)
    return std::nullopt;
  return FusablePlan{reduce->first, reduce->second, std::move(*t), p[0]};
}

LogicalResult rewriteEngines(Operation *op, const ScheduleContext &,
                             const std::any &anyPlan, RewriterBase &rw) {
  auto ew = cast<ElementwiseOp>(op);
  const EwPlan &matched = *std::any_cast<EwPlan>(&anyPlan);
  Location loc = op->getLoc();
  std::optional<FusablePlan> reduce = planFusedReduce(ew, matched);
  // An allocation that nothing but this op and the reduction touch (no
  // instruction yet: its storage is not even cast) need not be written.
  bool elidable = false;
  if (reduce) {
    Value summed = ew.getOutputs()[reduce->output];
    elidable = summed.getDefiningOp<AllocOp>() &&
               llvm::all_of(summed.getUsers(), [&](Operation *user) {
                 return user == op || user == reduce->reduce.getOperation();
               });
  }
  FailureOr<EwPlan> planned = startRewrite<EwPlan>(op, anyPlan, rw);
  if (failed(planned))
    return failure();
  EwPlan &plan = *planned;
  // The target of a fusable reduction, as a [P, 1] view.
  std::optional<FusedReduce> fused;
  if (reduce && succeeded(materializeAll(rw, loc, reduce->target))) {
    OperandSet &t = reduce->target;
    fused =
        FusedReduce{reduce->output, t.space.view(rw, loc, t.ops[0], 0,
                                                 {reduce->partitionIter}, {},
                                                 /*unitFreeDim=*/true)};
    fused->elide = elidable;
  }
  LogicalResult result = success();
  emitSpaceLoops(rw, loc, plan.set.space, plan.loops,
                 [&](OpBuilder &b, ArrayRef<Value> offsets, ArrayRef<Value>) {
                   EwEmitter emitter(ew, plan, plan.set, b, offsets,
                                     fused ? &*fused : nullptr);
                   if (failed(emitter.run()))
                     result = failure();
                 });
  if (failed(result))
    return failure();
  if (fused && fused->done)
    reduce->reduce->setAttr(kFusedAttr, rw.getUnitAttr());
  rw.eraseOp(op);
  return success();
}

ScheduleMatch matchFusedReduce(Operation *op, const ScheduleContext &) {
  if (op->hasAttr(kFusedAttr))
    return ScheduleMatch::accept();
  // Before the operator in front of it is rewritten (inference asks then):
  // whether its rewrite will fuse this sum.
  auto ew = dyn_cast_or_null<ElementwiseOp>(op->getPrevNode());
  if (ew && !checkScope(ew))
    if (Result<EwPlan> plan = planElementwise(ew))
      if (std::optional<FusablePlan> f = planFusedReduce(ew, *plan);
          f && f->reduce == op)
        return ScheduleMatch::accept();
  return ScheduleMatch::decline("no activation before it computed this sum");
}

LogicalResult rewriteFusedReduce(Operation *op, const ScheduleContext &,
                                 const std::any &, RewriterBase &rw) {
  rw.eraseOp(op);
  return success();
}

} // namespace

void addTrnElementwiseSchedules(ScheduleRegistry &registry) {
  (void)registry.add(makeTrnSchedule(
      "fused-into-activation", "axe.reduce", 20,
      "a row sum of an f32 output of the elementwise operator before it, "
      "done by that operator's activation (reduce add into)",
      matchFusedReduce, rewriteFusedReduce));
  (void)registry.add(makeTrnSchedule(
      "engines", "axe.elementwise", 10,
      "one VectorE/ScalarE instruction per body op over whole tiles "
      "(tensor_tensor, tensor_scalar with [P, 1] or immediate scalars, "
      "activation)",
      matchEngines, rewriteEngines, proposeElementwise));
}

} // namespace axe::trnconv
