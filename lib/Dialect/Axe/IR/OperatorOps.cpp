//===- OperatorOps.cpp - Collective operators -----------------------------===//
//
// Who may run a collective operator on a buffer (the scope that owns it)
// and the shape and type rules of copy, gemm, reduce and elementwise.
//
//===----------------------------------------------------------------------===//

#include "AxeOpsInternal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace axe;
using namespace axe::detail;

//===----------------------------------------------------------------------===//
// Ownership
//===----------------------------------------------------------------------===//

std::optional<BufferOwner> axe::getBufferOwner(Value value) {
  auto type = cast<BufferType>(value.getType());
  std::optional<BufferOwner> owner = getBufferOwner(type);
  if (!owner || type.getMemorySpace() != MemorySpace::Reg)
    return owner;
  // Before dominance is verified, a chain of slices may loop back on itself.
  llvm::SmallPtrSet<Operation *, 8> visited;
  for (Value cur = value; auto slice = cur.getDefiningOp<SliceOp>();
       cur = slice.getSource()) {
    if (!visited.insert(slice).second)
      break;
    BufferType source = slice.getSource().getType();
    llvm::SmallVector<SliceStart> starts = slice.getKnownStarts();
    if (llvm::all_of(starts, [](const SliceStart &s) { return s.known; }))
      continue;
    // An unverified slice may not have a region of its source: it has no
    // run-time axes to add (its own verifier reports it).
    Result<llvm::SmallVector<std::string, 4>> axes =
        sliceStartAxes(source.getLayout().tile(), source.getShape(), starts,
                       slice.getType().getShape());
    if (!axes)
      continue;
    for (const std::string &axis : *axes) {
      std::optional<ScopeKind> scope = getAxisScope(axis);
      if (axisKind(axis) != AxisKind::Thread || !scope)
        continue;
      if (owner->axis.empty() || *scope > owner->scope)
        owner = BufferOwner{*scope, axis, /*fromSliceStart=*/true};
    }
  }
  return owner;
}

/// Whether an operator at `scope` may own `value` (see getBufferOwner).
static LogicalResult verifyOwnership(Operation *op, ScopeAttr scope,
                                     Value value, unsigned index) {
  auto type = cast<BufferType>(value.getType());
  std::optional<BufferOwner> owner = getBufferOwner(value);
  if (!owner)
    return success();
  ScopeKind kind = scope.getKind();
  auto error = [&]() {
    return op->emitOpError() << "operand #" << index << " ";
  };
  switch (type.getMemorySpace()) {
  case MemorySpace::Reg:
    if (owner->scope > kind && owner->fromSliceStart)
      return error() << "is a slice of a register buffer at a run-time start "
                        "that moves along '"
                     << owner->axis << "', which spans "
                     << withArticle(owner->scope)
                     << ": which of its threads holds the slice depends on "
                        "the start, so an operator at "
                     << scopeName(kind) << " scope cannot own it; run it at "
                     << scopeName(owner->scope) << " scope";
    if (owner->scope > kind)
      return error() << "is a register buffer distributed over '" << owner->axis
                     << "', which spans " << withArticle(owner->scope)
                     << "; an operator at " << scopeName(kind)
                     << " scope cannot own it";
    if (owner->scope < kind) {
      auto diag = error() << "is a register buffer held by "
                          << withArticle(owner->scope) << " (";
      if (owner->axis.empty())
        diag << "its layout uses no thread axis";
      else
        diag << "its widest thread axis is '" << owner->axis << "'";
      return diag << "); an operator at " << scopeName(kind)
                  << " scope cannot own it; run it at "
                  << scopeName(owner->scope) << " scope";
    }
    return success();
  case MemorySpace::Shared:
  case MemorySpace::TMem:
    if (kind > owner->scope)
      return error() << "is in " << stringifyMemorySpace(type.getMemorySpace())
                     << " memory, which belongs to "
                     << withArticle(owner->scope) << "; an operator at "
                     << scopeName(kind) << " scope cannot own it";
    return success();
  case MemorySpace::Global:
  case MemorySpace::HBM: {
    if (kind != ScopeKind::Mesh)
      return error() << "is distributed over device axis '" << owner->axis
                     << "'; only an operator at mesh scope can own it";
    Result<std::map<std::string, AxisReach>> reach =
        axisReach(type.getLayout());
    if (!reach)
      return error() << "cannot be placed: " << reach.message();
    for (const std::string &axis : getPlacementAxes(type.getLayout().tile())) {
      if (!isDeviceAxis(axis))
        continue;
      std::optional<int64_t> extent = scope.getMeshExtent(axis);
      if (!extent) {
        std::string mesh;
        llvm::raw_string_ostream os(mesh);
        os << "mesh<";
        llvm::interleaveComma(
            llvm::zip(scope.getMeshAxes(), scope.getMeshShape()), os,
            [&](auto pair) {
              os << std::get<0>(pair).getValue() << " = " << std::get<1>(pair);
            });
        os << ">";
        return error() << "is placed on device axis '" << axis << "', which "
                       << mesh << " does not have";
      }
      auto [lo, hi] = (*reach)[axis];
      if (lo < 0 || hi >= *extent)
        return error() << "places data on " << axis << " " << lo << ".." << hi
                       << ", but the mesh has extent " << *extent << " on "
                       << axis;
    }
    return success();
  }
  case MemorySpace::SBuf:
  case MemorySpace::PSum:
    return success();
  }
  return success();
}

/// A forced schedule names a schedule, per known target when a dictionary.
static LogicalResult verifyScheduleChoice(Operation *op, Attribute choice) {
  if (!choice)
    return success();
  if (auto name = dyn_cast<StringAttr>(choice)) {
    if (name.getValue().empty())
      return op->emitOpError() << "has an empty schedule name";
    return success();
  }
  for (NamedAttribute entry : cast<DictionaryAttr>(choice)) {
    StringRef target = entry.getName().getValue();
    if (Result<const TargetDescription *> t = lookupTarget(target); !t)
      return op->emitOpError() << "forces a schedule on " << t.message();
    auto name = dyn_cast<StringAttr>(entry.getValue());
    if (!name || name.getValue().empty())
      return op->emitOpError()
             << "schedule for target " << target
             << " must be a non-empty schedule name, got " << entry.getValue();
  }
  return success();
}

LogicalResult axe::detail::verifyOperatorOp(Operation *op) {
  auto operator_ = cast<OperatorOpInterface>(op);
  if (failed(verifyScheduleChoice(op, operator_.getScheduleAttr())))
    return failure();
  ScopeAttr scope = operator_.getScope();
  if (failed(verifyScopeInContext(op, scope)))
    return failure();
  for (OpOperand &operand : op->getOpOperands())
    if (isa<BufferType>(operand.get().getType()))
      if (failed(verifyOwnership(op, scope, operand.get(),
                                 operand.getOperandNumber())))
        return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Collective operators
//===----------------------------------------------------------------------===//

static LogicalResult verifyCopy(Operation *op, BufferType source,
                                BufferType target) {
  if (source.getShape() != target.getShape())
    return op->emitOpError()
           << "copies between different shapes " << shapeStr(source.getShape())
           << " and " << shapeStr(target.getShape());
  if (source.getElementType() != target.getElementType())
    return op->emitOpError()
           << "cannot convert " << source.getElementType() << " to "
           << target.getElementType() << "; convert with axe.elementwise";
  return success();
}

LogicalResult CopyOp::verify() {
  return verifyCopy(*this, getSource().getType(), getTarget().getType());
}

LogicalResult CopyAsyncOp::verify() {
  return verifyCopy(*this, getSource().getType(), getTarget().getType());
}

int64_t GemmOp::getM() {
  llvm::ArrayRef<int64_t> a = getA().getType().getShape();
  return getTransposeA() ? a[1] : a[0];
}

int64_t GemmOp::getK() {
  llvm::ArrayRef<int64_t> a = getA().getType().getShape();
  return getTransposeA() ? a[0] : a[1];
}

int64_t GemmOp::getN() {
  llvm::ArrayRef<int64_t> b = getB().getType().getShape();
  return getTransposeB() ? b[0] : b[1];
}

LogicalResult GemmOp::verify() {
  BufferType a = getA().getType(), b = getB().getType(), c = getC().getType();
  // C is read and written while A and B are read: an accumulator that shares
  // elements with an input would change the input mid-product.
  for (auto [name, input] : {std::pair{"A", getA()}, {"B", getB()}}) {
    if (getC() == input)
      return emitOpError() << "accumulator C is also input " << name
                           << "; C += A x B must not write an input it reads";
    if (mustOverlap(getC(), input))
      return emitOpError() << "accumulator C overlaps input " << name
                           << " (both are slices of one buffer that share "
                              "elements); C += A x B must not write an input "
                              "it reads";
  }
  for (auto [name, type] : {std::pair{"A", a}, {"B", b}, {"C", c}})
    if (type.getRank() != 2)
      return emitOpError() << name << " must be a rank-2 buffer, got shape "
                           << shapeStr(type.getShape());
  int64_t kB = getTransposeB() ? b.getShape()[1] : b.getShape()[0];
  if (getK() != kB)
    return emitOpError() << "A" << (getTransposeA() ? "^T" : "") << " is "
                         << getM() << "x" << getK() << " but B"
                         << (getTransposeB() ? "^T" : "") << " is " << kB << "x"
                         << getN() << ": the K dims differ";
  if (c.getShape()[0] != getM() || c.getShape()[1] != getN())
    return emitOpError() << "C is " << shapeStr(c.getShape())
                         << " but A x B is " << getM() << "x" << getN();
  auto kindOf = [](Type t) { return isa<FloatType>(t) ? 0 : 1; };
  if (kindOf(a.getElementType()) != kindOf(b.getElementType()) ||
      kindOf(a.getElementType()) != kindOf(c.getElementType()))
    return emitOpError() << "mixes float and integer elements ("
                         << a.getElementType() << ", " << b.getElementType()
                         << " into " << c.getElementType() << ")";
  return success();
}

LogicalResult ReduceOp::verify() {
  BufferType source = getSource().getType();
  BufferType target = getTarget().getType();
  llvm::ArrayRef<int64_t> dims = getDims();
  int64_t rank = source.getRank();
  if (dims.empty())
    return emitOpError() << "needs at least one dim to reduce";
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= rank)
      return emitOpError() << "dim " << dim << " is out of range for a rank-"
                           << rank << " source";
    if (i > 0 && dims[i - 1] >= dim)
      return emitOpError() << "dims must be strictly increasing";
  }
  if (source.getElementType() != target.getElementType())
    return emitOpError() << "reduces " << source.getElementType()
                         << " elements into " << target.getElementType()
                         << " ones; the element types must agree";
  Shape kept, dropped;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = llvm::is_contained(dims, d);
    kept.push_back(reduced ? 1 : source.getShape()[d]);
    if (!reduced)
      dropped.push_back(source.getShape()[d]);
  }
  llvm::ArrayRef<int64_t> shape = target.getShape();
  if (shape != llvm::ArrayRef<int64_t>(kept) &&
      shape != llvm::ArrayRef<int64_t>(dropped))
    return emitOpError() << "target shape " << shapeStr(shape) << " is neither "
                         << shapeStr(kept) << " (reduced dims kept as 1) nor "
                         << (dropped.empty() ? "a scalar" : shapeStr(dropped))
                         << " (reduced dims dropped)";
  return success();
}

LogicalResult ElementwiseOp::verifyRegions() {
  if (getOutputs().empty())
    return emitOpError() << "needs at least one output";
  llvm::ArrayRef<int64_t> shape =
      cast<BufferType>(getOutputs().front().getType()).getShape();
  // Inputs broadcast along dims of extent 1 (a row maximum against a tile).
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    llvm::ArrayRef<int64_t> inShape =
        cast<BufferType>(value.getType()).getShape();
    bool broadcasts = inShape.size() == shape.size();
    for (size_t d = 0; broadcasts && d < shape.size(); ++d)
      broadcasts = inShape[d] == shape[d] || inShape[d] == 1;
    if (!broadcasts)
      return emitOpError() << "input #" << i << " has shape "
                           << shapeStr(inShape)
                           << ", which does not broadcast to the outputs' "
                              "shape "
                           << shapeStr(shape)
                           << " (same rank, each dim equal or 1)";
  }
  for (auto [i, value] : llvm::enumerate(getOutputs()))
    if (cast<BufferType>(value.getType()).getShape() != shape)
      return emitOpError() << "output #" << i << " has shape "
                           << shapeStr(
                                  cast<BufferType>(value.getType()).getShape())
                           << ", but output #0 has shape " << shapeStr(shape);

  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments; it needs one per input ("
                         << getInputs().size() << ")";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(body.getArguments(), getInputs()))) {
    Type expected =
        cast<BufferType>(std::get<1>(pair).getType()).getElementType();
    if (std::get<0>(pair).getType() != expected)
      return emitOpError() << "body argument #" << i << " has type "
                           << std::get<0>(pair).getType() << ", but input #"
                           << i << " has elements of type " << expected;
  }
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError() << "body must end with axe.yield";
  if (yield.getValues().size() != getOutputs().size())
    return yield.emitOpError() << "yields " << yield.getValues().size()
                               << " values; the axe.elementwise has "
                               << getOutputs().size() << " outputs";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues(), getOutputs()))) {
    Type expected =
        cast<BufferType>(std::get<1>(pair).getType()).getElementType();
    if (std::get<0>(pair).getType() != expected)
      return yield.emitOpError()
             << "value #" << i << " has type " << std::get<0>(pair).getType()
             << ", but output #" << i << " has elements of type " << expected;
  }
  for (Operation &op : body.without_terminator())
    if (!isMemoryEffectFree(&op))
      return op.emitOpError()
             << "has side effects; the body of axe.elementwise must be pure "
                "scalar code";
  return success();
}
