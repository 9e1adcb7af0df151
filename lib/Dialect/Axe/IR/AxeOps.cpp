//===- AxeOps.cpp - Axe ops: directives and simple ops --------------------===//
//
// The op classes, the custom directives of their assembly formats, helpers
// the rest of the dialect calls (target, scope, known starts), and the ops
// that need no more than a look at their scope or axis. Kernels, buffers
// and collective operators are verified in KernelOps.cpp, BufferOps.cpp and
// OperatorOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "AxeOpsInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <numeric>

using namespace mlir;
using namespace axe;
using namespace axe::detail;

//===----------------------------------------------------------------------===//
// Custom directives of the assembly formats
//===----------------------------------------------------------------------===//

// `at cta`, `at mesh<gpuid = 4>`
static ParseResult parseScope(OpAsmParser &parser, ScopeAttr &scope) {
  Attribute attr = ScopeAttr::parseBody(parser);
  if (!attr)
    return failure();
  scope = cast<ScopeAttr>(attr);
  return success();
}

static void printScope(OpAsmPrinter &printer, Operation *, ScopeAttr scope) {
  scope.printBody(printer);
}

// `axe.reduce max ...`
static ParseResult parseReduceKind(OpAsmParser &parser, ReduceKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(keyword);
  if (!value)
    return parser.emitError(loc) << "unknown reduction '" << keyword
                                 << "'; expected sum, max, min or prod";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReduceKind(OpAsmPrinter &printer, Operation *,
                            ReduceKindAttr kind) {
  printer << stringifyReduceKind(kind.getValue());
}

// `axe.axis_id laneid`
static ParseResult parseAxisName(OpAsmParser &parser, StringAttr &axis) {
  std::string name;
  if (parser.parseKeywordOrString(&name))
    return failure();
  axis = parser.getBuilder().getStringAttr(name);
  return success();
}

static void printAxisName(OpAsmPrinter &printer, Operation *, StringAttr axis) {
  printer.printKeywordOrString(axis.getValue());
}

// `warps [0, 4)`: a half-open range, as the brackets say.
static ParseResult parseWarpRange(OpAsmParser &parser, IntegerAttr &begin,
                                  IntegerAttr &end) {
  int64_t first, last;
  if (parser.parseLSquare() || parser.parseInteger(first) ||
      parser.parseComma() || parser.parseInteger(last) || parser.parseRParen())
    return failure();
  begin = parser.getBuilder().getI64IntegerAttr(first);
  end = parser.getBuilder().getI64IntegerAttr(last);
  return success();
}

static void printWarpRange(OpAsmPrinter &printer, Operation *,
                           IntegerAttr begin, IntegerAttr end) {
  printer << "[" << begin.getInt() << ", " << end.getInt() << ")";
}

// `grid [%m, 4] threads 128`, either part optional: no grid is one CTA (one
// core of an accelerator) and no thread count is one thread, so a kernel
// for a machine without threads is written `axe.kernel {`.
static ParseResult
parseLaunch(OpAsmParser &parser,
            SmallVectorImpl<OpAsmParser::UnresolvedOperand> &grid,
            DenseI64ArrayAttr &staticGrid, IntegerAttr &threads) {
  staticGrid = parser.getBuilder().getDenseI64ArrayAttr({});
  if (succeeded(parser.parseOptionalKeyword("grid")) &&
      parseDynamicIndexList(parser, grid, staticGrid))
    return failure();
  int64_t count = 1;
  if (succeeded(parser.parseOptionalKeyword("threads")) &&
      parser.parseInteger(count))
    return failure();
  threads = parser.getBuilder().getI64IntegerAttr(count);
  return success();
}

static void printLaunch(OpAsmPrinter &printer, Operation *op, OperandRange grid,
                        DenseI64ArrayAttr staticGrid, IntegerAttr threads) {
  bool printGrid = !staticGrid.empty();
  if (printGrid) {
    printer << "grid ";
    printDynamicIndexList(printer, op, grid, staticGrid);
  }
  if (threads.getInt() != 1)
    printer << (printGrid ? " " : "") << "threads " << threads.getInt();
}

#include "axe/Dialect/Axe/IR/AxeOpInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "axe/Dialect/Axe/IR/AxeOps.cpp.inc"

void AxeDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "axe/Dialect/Axe/IR/AxeOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

TargetAttr axe::getTargetAttr(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    if (auto kernel = dyn_cast<KernelOp>(cur))
      if (TargetAttr target = kernel.getTargetAttr())
        return target;
    if (auto target =
            cur->getAttrOfType<TargetAttr>(AxeDialect::getTargetAttrName()))
      return target;
  }
  return {};
}

const TargetDescription *axe::detail::getTargetDescription(Operation *op) {
  TargetAttr target = axe::getTargetAttr(op);
  return target ? &target.getDescription() : nullptr;
}

static int64_t alignmentOf(Value value, unsigned depth);

static int64_t alignmentOf(OpFoldResult ofr, unsigned depth) {
  if (std::optional<int64_t> c = getConstantIntValue(ofr))
    return *c == INT64_MIN ? 1 : std::abs(*c);
  return alignmentOf(cast<Value>(ofr), depth);
}

// 0 stands for "the value is 0", which is a multiple of everything; it is
// the neutral element of gcd, so sums and loop bounds combine correctly.
static int64_t alignmentOf(Value value, unsigned depth) {
  // Deep expressions are rare in index code; stop rather than recurse far.
  if (depth > 16)
    return 1;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    int64_t c = constant.getSExtValue();
    return c == INT64_MIN ? 1 : std::abs(c);
  }
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop =
        dyn_cast_or_null<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
    if (!loop)
      return 1;
    std::optional<Value> iv = loop.getSingleInductionVar();
    std::optional<OpFoldResult> lb = loop.getSingleLowerBound();
    std::optional<OpFoldResult> step = loop.getSingleStep();
    if (!iv || *iv != value || !lb || !step)
      return 1;
    return std::gcd(alignmentOf(*lb, depth + 1), alignmentOf(*step, depth + 1));
  }
  Operation *def = value.getDefiningOp();
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return std::gcd(alignmentOf(def->getOperand(0), depth + 1),
                    alignmentOf(def->getOperand(1), depth + 1));
  if (isa<arith::MulIOp>(def)) {
    int64_t a = alignmentOf(def->getOperand(0), depth + 1);
    int64_t b = alignmentOf(def->getOperand(1), depth + 1);
    int64_t product;
    // On overflow either factor alone is still a valid alignment.
    return mulOverflows(a, b, product) ? std::max(a, b) : product;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return alignmentOf(def->getOperand(0), depth + 1);
  return 1;
}

int64_t axe::getKnownAlignment(Value value) { return alignmentOf(value, 0); }

SliceStart axe::getKnownStart(OpFoldResult start) {
  if (std::optional<int64_t> c = getConstantIntValue(start))
    return SliceStart::constant(*c);
  int64_t alignment = getKnownAlignment(cast<Value>(start));
  if (alignment == 0)
    return SliceStart::constant(0);
  return SliceStart::aligned(alignment);
}

LogicalResult axe::verifyScopeInContext(Operation *op, ScopeAttr scope,
                                        bool isBarrier) {
  ScopeKind kind = scope.getKind();
  if (const TargetDescription *target = getTargetDescription(op)) {
    bool needsWarps = kind == ScopeKind::Warp || kind == ScopeKind::Warpgroup;
    if (needsWarps && !target->hasWarps())
      return op->emitOpError()
             << "runs at " << scopeName(kind) << " scope, but " << target->name
             << " has no warps";
    if (kind == ScopeKind::Warpgroup && !target->hasWarpgroups())
      return op->emitOpError()
             << "runs at warpgroup scope, but " << target->name
             << " has no warpgroups (sm_90 and later do)";
    if (kind == ScopeKind::Cluster && !target->hasClusters())
      return op->emitOpError() << "runs at cluster scope, but " << target->name
                               << " has no thread-block clusters";
  }
  if (kind == ScopeKind::Cluster) {
    auto kernel = op->getParentOfType<KernelOp>();
    if (kernel && !kernel.getCluster())
      return op->emitOpError()
             << "runs at cluster scope, but the enclosing axe.kernel has no "
                "cluster; launch it with one, e.g. cluster [2]";
  }
  if (auto partition = op->getParentOfType<PartitionOp>()) {
    std::string range = "warps [" + std::to_string(partition.getWarpBegin()) +
                        ", " + std::to_string(partition.getWarpEnd()) + ")";
    // A CTA barrier inside a partition is how partitions hand work to each
    // other: every partition issues the same barriers, so all warps arrive.
    if (kind >= ScopeKind::CTA && kind != ScopeKind::Mesh &&
        !(isBarrier && kind == ScopeKind::CTA))
      return op->emitOpError()
             << "runs at " << scopeName(kind) << " scope inside axe.partition "
             << range << ": only the " << partition.getNumWarps()
             << " warps of the partition run it; use warp or warpgroup scope";
    if (kind == ScopeKind::Warpgroup) {
      const TargetDescription *target = getTargetDescription(op);
      int64_t perGroup =
          target && target->hasWarpgroups() ? target->warpsPerWarpgroup : 4;
      if (partition.getWarpBegin() % perGroup != 0 ||
          partition.getWarpEnd() % perGroup != 0)
        return op->emitOpError()
               << "runs at warpgroup scope inside axe.partition " << range
               << ", which is not made of whole warpgroups of " << perGroup
               << " warps";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AxisIdOp
//===----------------------------------------------------------------------===//

void AxisIdOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getAxis());
}

LogicalResult AxisIdOp::verify() {
  llvm::StringRef axis = getAxis();
  if (!isValidAxisName(axis))
    return emitOpError() << "'" << axis << "' is not a valid axis name";
  switch (axisKind(axis)) {
  case AxisKind::Memory:
    return emitOpError() << "'" << axis
                         << "' is a memory axis; axe.axis_id reads the "
                            "coordinate of a running thread or device";
  case AxisKind::Thread: {
    if (!(*this)->getParentOfType<KernelOp>())
      return emitOpError() << "thread axis '" << axis
                           << "' has a value only inside an axe.kernel";
    const TargetDescription *target = getTargetDescription(*this);
    if (target && !target->hasAxis(axis))
      return emitOpError() << target->name << " has no axis '" << axis
                           << "' (its axes: " << target->axisNames() << ")";
    return success();
  }
  case AxisKind::Device:
  case AxisKind::User:
    return success();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WaitOp, BarrierOp
//===----------------------------------------------------------------------===//

LogicalResult WaitOp::verify() {
  return verifyScopeInContext(*this, getScope());
}

//===----------------------------------------------------------------------===//
// Flags between CTAs
//===----------------------------------------------------------------------===//

/// A flag is an i32 in global memory, indexed fully, touched by the threads
/// of one scope of a kernel.
static LogicalResult verifyFlagOp(Operation *op, MemRefType flags,
                                  size_t indices, ScopeAttr scope) {
  if (int64_t(indices) != flags.getRank())
    return op->emitOpError() << "indexes a memref of rank " << flags.getRank()
                             << " with " << indices << " indices";
  if (Attribute space = flags.getMemorySpace())
    return op->emitOpError()
           << "takes a flag in global memory (a memref without a memory "
              "space), not in "
           << space;
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError()
           << "synchronizes the CTAs of a launch and must be inside an "
              "axe.kernel";
  ScopeKind kind = scope.getKind();
  if (kind != ScopeKind::Thread && kind != ScopeKind::Warp &&
      kind != ScopeKind::Warpgroup && kind != ScopeKind::CTA)
    return op->emitOpError() << "runs at " << scopeName(kind)
                             << " scope; flags take thread, warp, warpgroup "
                                "or cta scope";
  return verifyScopeInContext(op, scope);
}

LogicalResult FlagAddOp::verify() {
  return verifyFlagOp(*this, getFlags().getType(), getIndices().size(),
                      getScope());
}

LogicalResult FlagWaitOp::verify() {
  return verifyFlagOp(*this, getFlags().getType(), getIndices().size(),
                      getScope());
}

//===----------------------------------------------------------------------===//
// Pipeline stage ops
//===----------------------------------------------------------------------===//

/// Lowerings find a pipeline's barriers from the op that made it (an
/// axe.pipeline, or what a lowering replaced it with), so the value may not
/// travel through block arguments.
static LogicalResult verifyPipelineUse(Operation *op, Value pipeline) {
  if (isa<BlockArgument>(pipeline))
    return op->emitOpError()
           << "takes a pipeline made in the enclosing kernel, not one "
              "passed through a block argument";
  return success();
}

StringRef PipelineOp::whyItWouldHang() {
  if (partitionsWith<PipelineCommitOp>().empty())
    return "no axe.pipeline_commit fills this pipeline, so a wait on it "
           "would never return";
  if (partitionsWith<PipelineReleaseOp>().empty() &&
      !partitionsWith<PipelineAcquireOp>().empty())
    return "no axe.pipeline_release gives this pipeline's stages back, so an "
           "acquire past its first round would never return";
  return "";
}

LogicalResult PipelineAcquireOp::verify() {
  return verifyPipelineUse(*this, getPipeline());
}
LogicalResult PipelineWaitOp::verify() {
  return verifyPipelineUse(*this, getPipeline());
}
LogicalResult PipelineReleaseOp::verify() {
  return verifyPipelineUse(*this, getPipeline());
}
LogicalResult PipelineCommitOp::verify() {
  return verifyPipelineUse(*this, getPipeline());
}

/// Turns pair up in one block of a partition: each begin with the next op
/// of the two kinds being its end.
template <typename Other>
static LogicalResult verifyTurn(Operation *op, bool isBegin) {
  if (!op->getParentOfType<PartitionOp>())
    return op->emitOpError()
           << "takes turns among the warpgroups of an axe.partition; it is "
              "not inside one";
  Operation *cur = op;
  while ((cur = isBegin ? cur->getNextNode() : cur->getPrevNode()))
    if (isa<TurnBeginOp, TurnEndOp>(cur))
      break;
  if (!cur || !isa<Other>(cur))
    return op->emitOpError() << (isBegin ? "has no axe.turn_end after it"
                                         : "has no axe.turn_begin before it")
                             << " in its block";
  return success();
}

LogicalResult TurnBeginOp::verify() {
  return verifyTurn<TurnEndOp>(*this, /*isBegin=*/true);
}

LogicalResult TurnEndOp::verify() {
  return verifyTurn<TurnBeginOp>(*this, /*isBegin=*/false);
}

LogicalResult BarrierOp::verify() {
  if (getScope().getKind() == ScopeKind::Thread)
    return emitOpError() << "at thread scope synchronizes nothing";
  return verifyScopeInContext(*this, getScope(), /*isBarrier=*/true);
}

LogicalResult PartitionBarrierOp::verify() {
  if (!(*this)->getParentOfType<PartitionOp>())
    return emitOpError()
           << "synchronizes the warps of an axe.partition and is not inside "
              "one; use axe.barrier for the threads of a scope";
  return success();
}
