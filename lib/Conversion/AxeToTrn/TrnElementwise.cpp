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

/// A body value during emission.
struct EwValue {
  ValueKind kind = ValueKind::Imm;
  Value view;
  double imm = 0;
};

class EwEmitter {
public:
  EwEmitter(ElementwiseOp op, const EwPlan &plan, OperandSet &set, OpBuilder &b,
            ArrayRef<Value> offsets)
      : op(op), plan(plan), set(set), b(b), loc(op.getLoc()), offsets(offsets) {
  }

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
  /// Where the result of body op `index` goes: its output, or a new tile.
  Value destination(Operation *inner, unsigned index, ValueKind kind,
                    Type elementType);
  void binary(Operation *inner, trn::AluOp alu, EwValue x, EwValue y,
              Value dst);
  LogicalResult finish();

  ElementwiseOp op;
  const EwPlan &plan;
  OperandSet &set;
  OpBuilder &b;
  Location loc;
  ArrayRef<Value> offsets;
  DenseMap<Value, EwValue> values;
  /// Outputs already written, by output index.
  SmallVector<bool> written;
  /// Per output, the last body op index that reads an input that is the
  /// same buffer (-1: none).
  SmallVector<int> lastAliasRead;
};

/// The value `v` reaches the yield through: v itself or casts of it, each
/// its only use.
std::optional<unsigned> onlyYieldedAs(Value v) {
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    if (isa<YieldOp>(user))
      return v.getUses().begin()->getOperandNumber();
    if (!isCast(user))
      return std::nullopt;
    v = user->getResult(0);
  }
  return std::nullopt;
}

Value EwEmitter::destination(Operation *inner, unsigned index, ValueKind kind,
                             Type elementType) {
  std::optional<unsigned> j = onlyYieldedAs(inner->getResult(0));
  if (j && !written[*j] && int(index) >= lastAliasRead[*j] &&
      (kind == ValueKind::Tile || plan.freeIters.empty())) {
    written[*j] = true;
    return tileView(plan.numInputs + *j, false);
  }
  if (kind == ValueKind::Column)
    return allocTemp(b, loc, partitions(), {1}, elementType);
  return allocTemp(b, loc, partitions(), {plan.freeElements}, elementType);
}

void EwEmitter::binary(Operation *inner, trn::AluOp alu, EwValue x, EwValue y,
                       Value dst) {
  auto f32 = [&](double v) { return b.getF32FloatAttr(v); };
  if (x.kind == y.kind) {
    trn::TensorTensorOp::create(b, loc, alu, x.view, y.view, dst,
                                trn::Engine::Vector);
    return;
  }
  bool reverse = x.kind < y.kind;
  EwValue src = reverse ? y : x, scalar = reverse ? x : y;
  bool imm = scalar.kind == ValueKind::Imm;
  trn::TensorScalarOp::create(
      b, loc, src.view, alu, imm ? Value() : scalar.view,
      imm ? f32(scalar.imm) : FloatAttr(), reverse, trn::AluOpAttr(), Value(),
      FloatAttr(), false, dst, trn::Engine::Vector);
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
  for (unsigned k = 0; k < plan.numInputs; ++k)
    values[body.getArgument(k)] = {
        plan.inputKinds[k],
        tileView(k, plan.inputKinds[k] == ValueKind::Column), 0};

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
          !onlyYieldedAs(result)) {
        Value dst = destination(inner, index, v.kind, result.getType());
        trn::TensorCopyOp::create(b, loc, v.view, dst, trn::Engine::Vector);
        v.view = dst;
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
    if (auto neg = dyn_cast<arith::NegFOp>(inner)) {
      in.push_back({ValueKind::Imm, Value(), -1.0});
      if (kind == ValueKind::Imm) {
        values[result] = {kind, Value(), -in[0].imm};
        continue;
      }
      Value dst = destination(inner, index, kind, f32);
      binary(inner, trn::AluOp::Multiply, in[0], in[1], dst);
      values[result] = {kind, dst, 0};
      continue;
    }
    if (std::optional<trn::AluOp> alu = aluOf(inner)) {
      if (kind == ValueKind::Imm) {
        values[result] = {kind, Value(), foldAlu(*alu, in[0].imm, in[1].imm)};
        continue;
      }
      Value dst = destination(inner, index, kind, f32);
      binary(inner, *alu, in[0], in[1], dst);
      values[result] = {kind, dst, 0};
      continue;
    }
    trn::ActFunc func = *activationOf(inner);
    if (kind == ValueKind::Imm) {
      values[result] = {kind, Value(), foldActivation(func, in[0].imm)};
      continue;
    }
    Value dst = destination(inner, index, kind, f32);
    trn::ActivationOp::create(b, loc, func, in[0].view, dst, Value(),
                              FloatAttr(), Value(), trn::AluOpAttr(), Value());
    values[result] = {kind, dst, 0};
  }
  return finish();
}

/// Outputs that did not get their value directly: a copy, or a memset of
/// an immediate.
LogicalResult EwEmitter::finish() {
  Block &body = op.getBody().front();
  for (auto [j, v] : llvm::enumerate(body.getTerminator()->getOperands())) {
    if (written[j])
      continue;
    EwValue value = values.count(v)
                        ? values[v]
                        : EwValue{ValueKind::Imm, Value(), *immediateOf(v)};
    Value out = tileView(plan.numInputs + j, false);
    if (value.kind != ValueKind::Imm) {
      trn::TensorCopyOp::create(b, loc, value.view, out, trn::Engine::Vector);
      continue;
    }
    Type t = set.ops[plan.numInputs + j].elementType;
    auto ft = dyn_cast<FloatType>(t);
    if (!ft)
      return op.emitError("trn: output ")
             << j << " of " << t << " gets a float immediate";
    bool lost;
    APFloat imm(value.imm);
    imm.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    trn::MemsetOp::create(b, loc, FloatAttr::get(t, imm), out,
                          trn::Engine::Vector);
  }
  return success();
}

ScheduleMatch matchEngines(Operation *op, const ScheduleContext &) {
  if (auto why = checkScope(op))
    return ScheduleMatch::decline(*why);
  Result<EwPlan> plan = planElementwise(cast<ElementwiseOp>(op));
  if (!plan)
    return ScheduleMatch::decline(plan.message());
  return ScheduleMatch::accept(std::move(*plan));
}

LogicalResult rewriteEngines(Operation *op, const ScheduleContext &,
                             const std::any &anyPlan, RewriterBase &rw) {
  auto ew = cast<ElementwiseOp>(op);
  EwPlan plan = *std::any_cast<EwPlan>(&anyPlan);
  Location loc = op->getLoc();
  rw.setInsertionPoint(op);
  if (failed(materializeAll(rw, loc, plan.set)))
    return op->emitError("trn: cannot address an operand");
  LogicalResult result = success();
  emitSpaceLoops(rw, loc, plan.set.space, plan.loops,
                 [&](OpBuilder &b, ArrayRef<Value> offsets, ArrayRef<Value>) {
                   EwEmitter emitter(ew, plan, plan.set, b, offsets);
                   if (failed(emitter.run()))
                     result = failure();
                 });
  if (failed(result))
    return failure();
  rw.eraseOp(op);
  return success();
}

} // namespace

void addTrnElementwiseSchedules(ScheduleRegistry &registry) {
  (void)registry.add(makeTrnSchedule(
      "engines", "axe.elementwise", 10,
      "one VectorE/ScalarE instruction per body op over whole tiles "
      "(tensor_tensor, tensor_scalar with [P, 1] or immediate scalars, "
      "activation)",
      matchEngines, rewriteEngines));
}

} // namespace axe::trnconv
