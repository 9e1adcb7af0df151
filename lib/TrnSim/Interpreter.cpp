//===- Interpreter.cpp - Values, control flow, storage and views ----------===//
//
// The Interpreter's walk of the kernel body: integer values (arith),
// scf.for (unrolled) and scf.if, trn.alloc (SBUF/PSUM capacity, multiple
// buffers) and the views memref.subview, memref.reinterpret_cast and
// memref.cast make of the buffers. Trn instructions go to runTrn
// (Instructions.cpp).
//
//===----------------------------------------------------------------------===//

#include "SimulatorInternal.h"

#include "axe/Target/Trn/Machine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace axe;
using namespace axe::trnsim;
using namespace axe::trnsim::detail;
namespace m = axe::trn::machine;

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

FailureOr<int64_t> Interpreter::getInt(Operation *user, Value v) {
  auto it = ints.find(v);
  if (it != ints.end())
    return it->second;
  InFlightDiagnostic diag = user->emitError("trn-sim: operand ")
                            << nameOf(v) << " has no known integer value";
  if (Operation *def = v.getDefiningOp())
    diag << " ('" << def->getName() << "' is not simulated)";
  return failure();
}

FailureOr<int64_t> Interpreter::getInt(Operation *user, OpFoldResult ofr) {
  if (auto attr = dyn_cast<Attribute>(ofr)) {
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return i.getInt();
    return user->emitError("trn-sim: expected an integer attribute");
  }
  return getInt(user, cast<Value>(ofr));
}

FailureOr<View> Interpreter::getView(Operation *user, Value v) {
  auto it = views.find(v);
  if (it != views.end()) {
    // DMA moves any partitions; the engines' instructions are the trn ops
    // besides it, alloc and the views.
    if (isa<trn::TrnDialect>(user->getDialect()) &&
        !isa<trn::DmaCopyOp, trn::AllocOp>(user) &&
        failed(checkEngineView(user, v, it->second)))
      return failure();
    return it->second;
  }
  InFlightDiagnostic diag = user->emitError("trn-sim: memref ")
                            << nameOf(v) << " is not a known buffer or view";
  if (Operation *def = v.getDefiningOp())
    diag << " ('" << def->getName() << "' is not simulated)";
  return failure();
}

LogicalResult Interpreter::checkEngineView(Operation *user, Value v,
                                           const View &view) {
  const Buffer &buffer = buffers[view.buffer];
  if (buffer.space == trn::MemorySpace::HBM || view.sizes.empty() ||
      view.rootDim.empty() || view.rootDim[0] != 0)
    return success();
  // Row-major storage of [partitions, free...]: one partition's elements.
  int64_t pitch = 1;
  for (int64_t e : buffer.type.getShape().drop_front())
    pitch *= e;
  if (pitch <= 0)
    return success();
  int64_t start = view.offset / pitch, partitions = view.partitions();
  if (start % m::partitionStartAlignment(partitions) != 0)
    return user->emitError("trn-sim: ")
           << nameOf(v) << " starts at partition " << start
           << " at run time; a tile of " << partitions
           << " partitions starts at " << m::partitionStartsText(partitions);
  auto matmul = dyn_cast<trn::MatmulOp>(user);
  if (!matmul || v != matmul.getDst())
    return success();
  int64_t extent = 1;
  for (size_t d = 1; d < view.sizes.size(); ++d)
    extent += (view.sizes[d] - 1) * std::abs(view.strides[d]);
  int64_t bytes = elemBytes(buffer.type.getElementType());
  int64_t begin = view.offset % pitch * bytes;
  if (m::crossesPsumBank(begin, extent * bytes))
    return user->emitError("trn-sim: ")
           << nameOf(v) << " spans bytes [" << begin << ", "
           << begin + extent * bytes
           << ") of each partition at run time, across a psum bank "
              "boundary; a matmul output fits one bank of "
           << m::kPsumBankBytes << " bytes";
  return success();
}

FailureOr<SmallVector<View, 3>> Interpreter::getViews(Operation *user,
                                                      ValueRange values) {
  SmallVector<View, 3> views;
  for (Value v : values) {
    FailureOr<View> view = getView(user, v);
    if (failed(view))
      return failure();
    views.push_back(std::move(*view));
  }
  return views;
}

LogicalResult Interpreter::getOptionalView(Operation *user, Value v,
                                           std::optional<View> &out) {
  if (!v)
    return success();
  FailureOr<View> x = getView(user, v);
  if (failed(x))
    return failure();
  out = *x;
  return success();
}

std::string Interpreter::nameOf(Value v) {
  // Source names, when the driver recorded them (axe-trn-sim does).
  if (Operation *def = v.getDefiningOp())
    if (auto name = def->getAttrOfType<StringAttr>("trn_sim.name"))
      return name.str();
  if (auto arg = dyn_cast<BlockArgument>(v))
    if (arg.getOwner() == &kernel.getBody().front())
      if (auto names = kernel->getAttrOfType<ArrayAttr>("trn_sim.arg_names");
          names && arg.getArgNumber() < names.size())
        if (auto name = dyn_cast<StringAttr>(names[arg.getArgNumber()]))
          return name.str();
  std::string s;
  llvm::raw_string_ostream os(s);
  v.printAsOperand(os, asmState);
  return s;
}

/// Integers are kept sign-extended to 64 bits, i1 as 0 or 1.
static int64_t normalize(Type type, int64_t v) {
  auto it = dyn_cast<IntegerType>(type);
  if (!it || it.getWidth() >= 64)
    return v;
  if (it.getWidth() == 1)
    return v & 1;
  return llvm::SignExtend64(uint64_t(v), it.getWidth());
}

static bool evalCmp(arith::CmpIPredicate pred, int64_t a, int64_t b) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return uint64_t(a) < uint64_t(b);
  case P::ule:
    return uint64_t(a) <= uint64_t(b);
  case P::ugt:
    return uint64_t(a) > uint64_t(b);
  case P::uge:
    return uint64_t(a) >= uint64_t(b);
  }
  return false;
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

LogicalResult Interpreter::runArith(Operation *op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    // Float constants feed nothing the simulator evaluates; leave them.
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      ints[c.getResult()] = normalize(c.getType(), i.getInt());
    return success();
  }
  if (op->getNumResults() != 1)
    return op->emitError("trn-sim: '") << op->getName() << "' is not simulated";
  Value res = op->getResult(0);
  SmallVector<int64_t, 3> a;
  for (Value v : op->getOperands()) {
    FailureOr<int64_t> x = getInt(op, v);
    if (failed(x))
      return failure();
    a.push_back(*x);
  }
  auto divisor = [&](int64_t d) -> LogicalResult {
    if (d == 0)
      return op->emitError("trn-sim: division by zero");
    return success();
  };
  // Values are kept sign-extended to 64 bits; the unsigned ops read the
  // operand type's bits as they are.
  unsigned width = 64;
  if (op->getNumOperands() > 0)
    if (auto it = dyn_cast<IntegerType>(op->getOperand(0).getType()))
      width = it.getWidth();
  auto bitsOf = [&](int64_t v) -> uint64_t {
    return width >= 64 ? uint64_t(v)
                       : uint64_t(v) & ((uint64_t(1) << width) - 1);
  };
  if (isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp,
          arith::CeilDivSIOp>(op) &&
      width > 1 && a[1] == -1 &&
      a[0] == (width >= 64 ? INT64_MIN : -(int64_t(1) << (width - 1))))
    return op->emitError("trn-sim: '")
           << op->getName() << "' of the type's minimum " << a[0]
           << " by -1 overflows i" << width;
  std::optional<int64_t> r =
      llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
          // Wrapping, as the types do (normalize() truncates afterwards).
          .Case<arith::AddIOp>(
              [&](auto) { return int64_t(uint64_t(a[0]) + uint64_t(a[1])); })
          .Case<arith::SubIOp>(
              [&](auto) { return int64_t(uint64_t(a[0]) - uint64_t(a[1])); })
          .Case<arith::MulIOp>(
              [&](auto) { return int64_t(uint64_t(a[0]) * uint64_t(a[1])); })
          .Case<arith::MinSIOp>([&](auto) { return std::min(a[0], a[1]); })
          .Case<arith::MaxSIOp>([&](auto) { return std::max(a[0], a[1]); })
          .Case<arith::AndIOp>([&](auto) { return a[0] & a[1]; })
          .Case<arith::OrIOp>([&](auto) { return a[0] | a[1]; })
          .Case<arith::XOrIOp>([&](auto) { return a[0] ^ a[1]; })
          .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                arith::ExtUIOp, arith::TruncIOp>(
              [&](auto) -> std::optional<int64_t> { return a[0]; })
          .Case<arith::CmpIOp>([&](arith::CmpIOp c) -> std::optional<int64_t> {
            return evalCmp(c.getPredicate(), a[0], a[1]);
          })
          .Case<arith::SelectOp>([&](auto) -> std::optional<int64_t> {
            return a[0] ? a[1] : a[2];
          })
          .Case<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
                arith::FloorDivSIOp, arith::CeilDivSIOp>(
              [&](Operation *o) -> std::optional<int64_t> {
                if (a[1] == 0)
                  return std::nullopt;
                if (isa<arith::DivUIOp>(o))
                  return int64_t(bitsOf(a[0]) / bitsOf(a[1]));
                if (isa<arith::RemUIOp>(o))
                  return int64_t(bitsOf(a[0]) % bitsOf(a[1]));
                if (isa<arith::DivSIOp>(o))
                  return a[0] / a[1];
                if (isa<arith::RemSIOp>(o))
                  return a[0] % a[1];
                if (isa<arith::FloorDivSIOp>(o))
                  return floorDiv(a[0], a[1]);
                return -floorDiv(-a[0], a[1]);
              })
          .Default([](Operation *) { return std::nullopt; });
  if (!r) {
    if (op->getNumOperands() == 2 && a[1] == 0)
      return divisor(0);
    return op->emitError("trn-sim: '") << op->getName() << "' is not simulated";
  }
  ints[res] = normalize(res.getType(), *r);
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::runBlock(Block &block,
                                    SmallVectorImpl<Value> *yieldOperands) {
  // Allocations made while this block runs are freed when it ends: a tile
  // allocated in a loop body lives one iteration.
  int64_t sbufBefore = sbufLive, psumBefore = psumLive;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (yieldOperands)
        yieldOperands->assign(op.operand_begin(), op.operand_end());
      break;
    }
    if (failed(runOp(&op)))
      return failure();
  }
  sbufLive = sbufBefore;
  psumLive = psumBefore;
  return success();
}

/// Carries a yielded value (an integer or a view) to `to`.
static LogicalResult forward(Operation *op, Value from, Value to,
                             DenseMap<Value, int64_t> &ints,
                             DenseMap<Value, View> &views) {
  if (auto it = ints.find(from); it != ints.end()) {
    ints[to] = it->second;
    return success();
  }
  if (auto it = views.find(from); it != views.end()) {
    views[to] = it->second;
    return success();
  }
  if (isa<FloatType>(from.getType()))
    return success();
  return op->emitError("trn-sim: a yielded value is not known");
}

LogicalResult Interpreter::runFor(scf::ForOp op) {
  FailureOr<int64_t> lb = getInt(op, op.getLowerBound());
  FailureOr<int64_t> ub = getInt(op, op.getUpperBound());
  FailureOr<int64_t> step = getInt(op, op.getStep());
  if (failed(lb) || failed(ub) || failed(step))
    return failure();
  if (*step <= 0)
    return op.emitError("trn-sim: scf.for step ")
           << *step << " is not positive";
  for (auto [init, arg] : llvm::zip(op.getInitArgs(), op.getRegionIterArgs()))
    if (failed(forward(op, init, arg, ints, views)))
      return failure();
  for (int64_t i = *lb; i < *ub; i += *step) {
    ints[op.getInductionVar()] = i;
    SmallVector<Value> yielded;
    if (failed(runBlock(*op.getBody(), &yielded)))
      return failure();
    for (auto [y, arg] : llvm::zip(yielded, op.getRegionIterArgs()))
      if (failed(forward(op, y, arg, ints, views)))
        return failure();
    if (i > INT64_MAX - *step)
      break;
  }
  for (auto [arg, res] : llvm::zip(op.getRegionIterArgs(), op.getResults()))
    if (failed(forward(op, arg, res, ints, views)))
      return failure();
  return success();
}

LogicalResult Interpreter::runIf(scf::IfOp op) {
  FailureOr<int64_t> cond = getInt(op, op.getCondition());
  if (failed(cond))
    return failure();
  mlir::Region &region = *cond ? op.getThenRegion() : op.getElseRegion();
  if (region.empty())
    return success();
  SmallVector<Value> yielded;
  if (failed(runBlock(region.front(), &yielded)))
    return failure();
  for (auto [y, res] : llvm::zip(yielded, op.getResults()))
    if (failed(forward(op, y, res, ints, views)))
      return failure();
  return success();
}

LogicalResult Interpreter::runOp(Operation *op) {
  if (++steps > int64_t(p.maxInstructions) * 4)
    return op->emitError("trn-sim: stopped after ")
           << steps << " operations (max_instructions)";
  if (auto f = dyn_cast<scf::ForOp>(op))
    return runFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return runIf(i);
  if (auto s = dyn_cast<memref::SubViewOp>(op))
    return runSubview(s);
  if (auto r = dyn_cast<memref::ReinterpretCastOp>(op))
    return runReinterpretCast(r);
  if (auto c = dyn_cast<memref::CastOp>(op)) {
    FailureOr<View> v = getView(op, c.getSource());
    if (failed(v))
      return failure();
    views[c.getResult()] = *v;
    return success();
  }
  if (auto a = dyn_cast<trn::AllocOp>(op))
    return runAlloc(a);
  if (isa<trn::TrnDialect>(op->getDialect()))
    return runTrn(op);
  if (isa<arith::ArithDialect>(op->getDialect()))
    return runArith(op);
  return op->emitError("trn-sim: '")
         << op->getName() << "' is not simulated (a kernel is trn "
         << "instructions with scf.for/scf.if, integer arith and "
         << "memref.subview/reinterpret_cast)";
}

//===----------------------------------------------------------------------===//
// Storage and views
//===----------------------------------------------------------------------===//

int Interpreter::newBuffer(std::string name, MemRefType type) {
  Buffer b;
  b.name = std::move(name);
  b.type = type;
  b.space = *trn::getMemorySpace(type);
  if (options.numerics)
    b.data.assign(type.getNumElements(), 0.0);
  buffers.push_back(std::move(b));
  return int(buffers.size()) - 1;
}

View Interpreter::wholeView(int buffer) {
  MemRefType type = buffers[buffer].type;
  View v;
  v.buffer = buffer;
  v.region.buffer = buffer;
  int64_t stride = 1;
  int rank = type.getRank();
  v.sizes.assign(type.getShape().begin(), type.getShape().end());
  v.strides.assign(rank, 1);
  for (int d = rank - 1; d >= 0; --d) {
    v.strides[d] = stride;
    stride *= type.getDimSize(d);
  }
  for (int d = 0; d < rank; ++d) {
    v.rootDim.push_back(d);
    v.rootStep.push_back(1);
    v.region.lo.push_back(0);
    v.region.hi.push_back(type.getDimSize(d));
  }
  return v;
}

/// Bytes per partition an allocation takes: PSUM is handed out in 2 KiB
/// banks, since a matmul output must sit within one.
static int64_t bytesPerPartition(MemRefType type, trn::MemorySpace space) {
  int64_t bytes = trn::getBytesPerPartition(type);
  if (space == trn::MemorySpace::PSUM)
    bytes = llvm::alignTo(bytes, m::kPsumBankBytes);
  return bytes;
}

LogicalResult Interpreter::runAlloc(trn::AllocOp op) {
  MemRefType type = op.getType();
  std::optional<trn::MemorySpace> space = trn::getMemorySpace(type);
  if (!space || *space == trn::MemorySpace::HBM ||
      !type.getLayout().isIdentity())
    return op.emitError("trn-sim: trn.alloc must make an identity-layout "
                        "sbuf or psum tile");
  int64_t copies = 1;
  if (auto attr = op->getAttrOfType<IntegerAttr>("trn_sim.buffers"))
    copies = attr.getInt();
  if (copies < 1 || copies > 64)
    return op.emitError("trn-sim: trn_sim.buffers must be in [1, 64]");
  auto &[ids, count] = allocs[op];
  std::string name = nameOf(op.getResult());
  bool psum = *space == trn::MemorySpace::PSUM;
  int64_t bytes = bytesPerPartition(type, *space) * copies;
  int64_t &live = psum ? psumLive : sbufLive;
  int64_t capacity =
      psum ? m::kPsumBytesPerPartition : m::kSbufBytesPerPartition;
  if (live + bytes > capacity)
    return op.emitError("trn-sim: allocation ")
           << name << " (" << bytes << " bytes per partition"
           << (copies > 1 ? ", " + std::to_string(copies) + " buffers" : "")
           << ") exceeds " << (psum ? "PSUM" : "SBUF") << " capacity: " << live
           << " of " << capacity
           << " bytes per partition are taken by live allocations";
  live += bytes;
  if (ids.empty())
    for (int64_t c = 0; c < copies; ++c)
      ids.push_back(
          newBuffer(copies > 1 ? name + "#" + std::to_string(c) : name, type));
  views[op.getResult()] = wholeView(ids[count++ % ids.size()]);
  return success();
}

LogicalResult Interpreter::runSubview(memref::SubViewOp op) {
  FailureOr<View> src = getView(op, op.getSource());
  if (failed(src))
    return failure();
  SmallVector<OpFoldResult> offs = op.getMixedOffsets(),
                            sizes = op.getMixedSizes(),
                            strides = op.getMixedStrides();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  View v;
  v.buffer = src->buffer;
  v.offset = src->offset;
  v.region = src->region;
  for (size_t d = 0; d < offs.size(); ++d) {
    FailureOr<int64_t> o = getInt(op, offs[d]), n = getInt(op, sizes[d]),
                       t = getInt(op, strides[d]);
    if (failed(o) || failed(n) || failed(t))
      return failure();
    if (*o < 0 || *n < 1 || *t < 1 || *o + (*n - 1) * *t >= src->sizes[d])
      return op.emitError("trn-sim: subview dim ")
             << d << " takes [" << *o << ", " << *o + (*n - 1) * *t
             << "] (stride " << *t << ") of a dim of size " << src->sizes[d];
    v.offset += *o * src->strides[d];
    int r = src->rootDim[d];
    int64_t step = src->rootStep[d];
    v.region.lo[r] += *o * step;
    v.region.hi[r] = v.region.lo[r] + (*n - 1) * step * *t + 1;
    if (dropped.test(d))
      continue;
    v.sizes.push_back(*n);
    v.strides.push_back(src->strides[d] * *t);
    v.rootDim.push_back(r);
    v.rootStep.push_back(step * *t);
  }
  views[op.getResult()] = v;
  return success();
}

/// A strided view of the buffer under the source (axe-to-trn makes every
/// tile view this way). Each view dim must move along one dim of the buffer
/// without wrapping, so the view's region is a box and dependences stay
/// exact.
LogicalResult Interpreter::runReinterpretCast(memref::ReinterpretCastOp op) {
  FailureOr<View> src = getView(op, op.getSource());
  if (failed(src))
    return failure();
  // Arguments are held densely (row-major), so only an identity layout
  // means the same addresses here as on the host.
  if (!buffers[src->buffer].type.getLayout().isIdentity())
    return op.emitError("trn-sim: reinterpret_cast of ")
           << nameOf(op.getSource())
           << ", whose layout is not the identity, is not simulated";
  View whole = wholeView(src->buffer);
  int rootRank = whole.sizes.size();
  SmallVector<OpFoldResult> offs = op.getMixedOffsets(),
                            sizes = op.getMixedSizes(),
                            strides = op.getMixedStrides();
  FailureOr<int64_t> offset = getInt(op, offs.front());
  if (failed(offset))
    return failure();
  View v;
  v.buffer = src->buffer;
  v.offset = *offset;
  v.region.buffer = src->buffer;
  // The offset's coordinates in the buffer's dims.
  int64_t rest = *offset;
  for (int r = 0; r < rootRank; ++r) {
    v.region.lo.push_back(rest / whole.strides[r]);
    rest %= whole.strides[r];
  }
  if (*offset < 0 || v.region.lo.front() >= whole.sizes.front())
    return op.emitError("trn-sim: reinterpret_cast offset ")
           << *offset << " is outside " << nameOf(op.getSource());
  v.region.hi = v.region.lo;
  for (int r = 0; r < rootRank; ++r)
    ++v.region.hi[r];
  for (size_t d = 0; d < sizes.size(); ++d) {
    FailureOr<int64_t> n = getInt(op, sizes[d]), t = getInt(op, strides[d]);
    if (failed(n) || failed(t))
      return failure();
    if (*n < 1 || *t < 0)
      return op.emitError("trn-sim: reinterpret_cast dim ")
             << d << " has size " << *n << " and stride " << *t;
    // The buffer dim whose stride divides this one's.
    int r = 0;
    while (r < rootRank &&
           (*t == 0 ? r != rootRank - 1 : *t % whole.strides[r] != 0))
      ++r;
    int64_t step = *t == 0 ? 0 : *t / whole.strides[r];
    v.region.hi[r] += (*n - 1) * step;
    if (v.region.hi[r] > whole.sizes[r])
      return op.emitError("trn-sim: reinterpret_cast dim ")
             << d << " (size " << *n << ", stride " << *t << ") runs past dim "
             << r << " of " << nameOf(op.getSource()) << " (size "
             << whole.sizes[r] << ")";
    v.sizes.push_back(*n);
    v.strides.push_back(*t);
    v.rootDim.push_back(r);
    v.rootStep.push_back(step);
  }
  views[op.getResult()] = v;
  return success();
}
