//===- OperatorOps.cpp - Collective operators -----------------------------===//
//
// Who may run a collective operator on a buffer (the scope that owns it)
// and the shape and type rules of copy, gemm, reduce and elementwise.
//
//===----------------------------------------------------------------------===//

#include "AxeOpsInternal.h"

#include "axe/Dialect/Axe/IR/OperatorShapes.h"

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
    if (!source.hasLayout())
      break;
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
  // Which scope holds a buffer follows from its layout, so it is checked
  // once axe-infer-layouts has chosen one.
  if (!type.hasLayout())
    return success();
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
    for (const std::string &axis : placementAxes(type.getLayout().tile())) {
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
  if (Result<bool> ok = checkCopyShapes(source.getShape(), target.getShape());
      !ok)
    return op->emitOpError() << ok.message();
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
  return gemmExtent(getA().getType().getShape(), GemmOperand::A,
                    getTransposeA(), GemmDim::M);
}

int64_t GemmOp::getK() {
  return gemmExtent(getA().getType().getShape(), GemmOperand::A,
                    getTransposeA(), GemmDim::K);
}

int64_t GemmOp::getN() {
  return gemmExtent(getB().getType().getShape(), GemmOperand::B,
                    getTransposeB(), GemmDim::N);
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
                           << " (both are slices of one buffer, or views of "
                              "one memref, that share elements); C += A x B "
                              "must not write an input it reads";
  }
  if (Result<GemmProblem> problem =
          gemmProblem(a.getShape(), getTransposeA(), b.getShape(),
                      getTransposeB(), c.getShape());
      !problem)
    return emitOpError() << problem.message();
  auto kindOf = [](Type t) { return isa<FloatType>(t) ? 0 : 1; };
  if (kindOf(a.getElementType()) != kindOf(b.getElementType()) ||
      kindOf(a.getElementType()) != kindOf(c.getElementType()))
    return emitOpError() << "mixes float and integer elements ("
                         << a.getElementType() << ", " << b.getElementType()
                         << " into " << c.getElementType() << ")";
  return success();
}

/// What axe.reduce and axe.reduce_async check of their buffers and dims.
static LogicalResult verifyReduce(Operation *op, BufferType source,
                                  BufferType target, ArrayRef<int64_t> dims) {
  if (Result<bool> ok = checkReduceDims(source.getRank(), dims); !ok)
    return op->emitOpError() << ok.message();
  if (source.getElementType() != target.getElementType())
    return op->emitOpError()
           << "reduces " << source.getElementType() << " elements into "
           << target.getElementType() << " ones; the element types must agree";
  if (Result<ReduceMapping> mapping =
          reduceMapping(source.getShape(), dims, target.getShape());
      !mapping)
    return op->emitOpError() << mapping.message();
  return success();
}

LogicalResult ReduceOp::verify() {
  return verifyReduce(*this, getSource().getType(), getTarget().getType(),
                      getDims());
}

LogicalResult ReduceAsyncOp::verify() {
  if (!getScope().isMesh())
    return emitOpError() << "runs at mesh scope only; within a device "
                            "axe.reduce completes before the next operator";
  return verifyReduce(*this, getSource().getType(), getTarget().getType(),
                      getDims());
}

LogicalResult ElementwiseOp::verifyRegions() {
  auto shapesOf = [](ValueRange values) {
    llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes;
    for (Value v : values)
      shapes.push_back(cast<BufferType>(v.getType()).getShape());
    return shapes;
  };
  if (Result<Shape> shape =
          elementwiseShape(shapesOf(getInputs()), shapesOf(getOutputs()));
      !shape)
    return emitOpError() << shape.message();

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
  // The op's elements are computed in no fixed order (in parallel on a
  // GPU): an output may update an input in place, element for element, but
  // not write elements that another element's computation reads or writes.
  for (auto [j, out] : llvm::enumerate(getOutputs())) {
    for (auto [i, in] : llvm::enumerate(getInputs()))
      if (mustOverlap(out, in) &&
          (!sameElements(out, in) || in.getType() != out.getType()))
        return emitOpError()
               << "output #" << j << " overlaps input #" << i
               << " at other elements (slices of one buffer, or views of one "
                  "memref, that share elements but do not coincide); the "
                  "elements are computed in no fixed order, so an output may "
                  "only update the same elements of an input in place";
    for (auto [k, other] : llvm::enumerate(getOutputs().drop_front(j + 1)))
      if (mustOverlap(out, other))
        return emitOpError()
               << "outputs #" << j << " and #" << (j + 1 + k)
               << " share elements; which value an element keeps would "
                  "depend on the order of the stores";
  }
  return success();
}
