//===- TrnOps.cpp - Verifiers and directives of the trn ops ---------------===//
//
// Each verifier states one NeuronCore-v2 rule per failure and names the
// operand and the limit; the limits come from Target/Trn/Machine.h. The checks
// every instruction shares (where an operand lives, which engine may touch it,
// the access-pattern limits of SBUF/PSUM operands) are the helpers at the top.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Target/Trn/Machine.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/Support/MathExtras.h"

#include <cstdlib>

using namespace mlir;
using namespace axe::trn;
namespace m = axe::trn::machine;

//===----------------------------------------------------------------------===//
// Custom directives of the assembly formats
//===----------------------------------------------------------------------===//

// `(%tile : memref<...>)` or `(2.000000e+00)`
static ParseResult
parseScalarArg(OpAsmParser &parser,
               std::optional<OpAsmParser::UnresolvedOperand> &tile,
               Type &tileType, FloatAttr &imm) {
  if (parser.parseLParen())
    return failure();
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult hasTile = parser.parseOptionalOperand(operand);
  if (hasTile.has_value()) {
    if (failed(*hasTile) || parser.parseColonType(tileType))
      return failure();
    tile = operand;
  } else if (parser.parseAttribute(imm, parser.getBuilder().getF32Type())) {
    return failure();
  }
  return parser.parseRParen();
}

static void printScalarArg(OpAsmPrinter &printer, Operation *, Value tile,
                           Type tileType, FloatAttr imm) {
  printer << "(";
  if (tile)
    printer << tile << " : " << tileType;
  else
    printer.printAttributeWithoutType(imm);
  printer << ")";
}

// `[[step, count], ...]`, stored flat as step0, count0, step1, count1, ...
static ParseResult parsePattern(OpAsmParser &parser,
                                DenseI64ArrayAttr &pattern) {
  SmallVector<int64_t> flat;
  auto parsePair = [&]() -> ParseResult {
    int64_t step, count;
    if (parser.parseLSquare() || parser.parseInteger(step) ||
        parser.parseComma() || parser.parseInteger(count) ||
        parser.parseRSquare())
      return failure();
    flat.push_back(step);
    flat.push_back(count);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parsePair))
    return failure();
  pattern = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printPattern(OpAsmPrinter &printer, Operation *,
                         DenseI64ArrayAttr pattern) {
  ArrayRef<int64_t> flat = pattern.asArrayRef();
  printer << "[";
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    if (i)
      printer << ", ";
    printer << "[" << flat[i] << ", " << flat[i + 1] << "]";
  }
  // An odd trailing number is invalid (the verifier says so) but must
  // survive printing so that the diagnostic can show it.
  if (flat.size() % 2)
    printer << (flat.size() > 1 ? ", " : "") << "[" << flat.back() << "]";
  printer << "]";
}

#define GET_OP_CLASSES
#include "axe/Dialect/Trn/IR/TrnOps.cpp.inc"
#include "axe/Support/ElementBytes.h"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Products and sums of sizes, clamped to INT64_MAX: a size past every limit
/// must compare as too large rather than wrap around.
static int64_t satMul(int64_t a, int64_t b) {
  int64_t r;
  return llvm::MulOverflow(a, b, r) ? INT64_MAX : r;
}
static int64_t satAdd(int64_t a, int64_t b) {
  int64_t r;
  return llvm::AddOverflow(a, b, r) ? INT64_MAX : r;
}

namespace {
/// One memref operand as an instruction sees it: dim 0 is the partition dim
/// of an SBUF or PSUM tile, the other dims are its free dims.
struct Tile {
  Value value;
  StringRef name;
  MemRefType type;
  MemorySpace space;

  int64_t partitions() const { return type.getRank() ? type.getDimSize(0) : 1; }
  /// Elements each partition holds (the product of the free dims).
  int64_t freeElements() const {
    int64_t n = 1;
    for (int64_t d : type.getShape().drop_front(type.getRank() ? 1 : 0))
      n = satMul(n, d);
    return n;
  }
  int64_t elementBytes() const { return axe::elementBytes(elementType()); }
  Type elementType() const { return type.getElementType(); }
  bool onChip() const { return space != MemorySpace::HBM; }
};
} // namespace

static StringRef spaceName(MemorySpace space) {
  return stringifyMemorySpace(space);
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// The operand as a Tile, or an error when its memref has no trn memory
/// space (the verifiers cannot tell which memory it is in).
static FailureOr<Tile> getTile(Operation *op, Value value, StringRef name) {
  auto type = cast<MemRefType>(value.getType());
  std::optional<MemorySpace> space = getMemorySpace(type);
  if (!space) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "operand '" << name << "' has ";
    if (type.getMemorySpace())
      diag << "memory space " << type.getMemorySpace();
    else
      diag << "no memory space";
    return diag << "; trn operands are memrefs in #trn.space<hbm>, "
                   "#trn.space<sbuf> or #trn.space<psum>";
  }
  return Tile{value, name, type, *space};
}

static LogicalResult checkPartitionCount(Operation *op, const Tile &t) {
  if (!t.onChip())
    return success();
  if (t.type.getRank() == 0)
    return op->emitOpError()
           << "operand '" << t.name << "' is a 0-d " << spaceName(t.space)
           << " memref; dim 0 of an sbuf or psum tile is its partition dim";
  if (t.partitions() > m::kPartitions)
    return op->emitOpError() << "operand '" << t.name << "' spans "
                             << t.partitions() << " partitions (dim 0); "
                             << spaceName(t.space) << " has " << m::kPartitions;
  return success();
}

/// The partition at which a view starts: its offset over dim 0's stride,
/// the partition pitch. std::nullopt when either is not static.
static std::optional<int64_t> getStartPartition(const Tile &t) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (t.type.getRank() == 0 ||
      failed(t.type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || offset < 0 ||
      ShapedType::isDynamic(strides[0]) || strides[0] <= 0)
    return std::nullopt;
  return offset / strides[0];
}

/// The access-pattern limits of an SBUF or PSUM operand of an instruction:
/// its partitions, its free dims, and where its partitions start.
static LogicalResult checkAccessPattern(Operation *op, const Tile &t) {
  if (failed(checkPartitionCount(op, t)))
    return failure();
  if (!t.onChip())
    return success();
  int64_t freeDims = t.type.getRank() - 1;
  if (freeDims > m::kMaxFreeDims)
    return op->emitOpError()
           << "operand '" << t.name << "' has " << freeDims
           << " free dims; an access pattern has at most " << m::kMaxFreeDims;
  for (int64_t d = 1; d <= freeDims; ++d)
    if (t.type.getDimSize(d) > m::kMaxFreeDimSize)
      return op->emitOpError()
             << "free dim " << d << " of operand '" << t.name << "' has "
             << t.type.getDimSize(d)
             << " elements; an access pattern dim has at most "
             << m::kMaxFreeDimSize;
  std::optional<int64_t> start = getStartPartition(t);
  if (!start)
    return success();
  int64_t p = t.partitions();
  if (satAdd(*start, p) > m::kPartitions)
    return op->emitOpError() << "operand '" << t.name << "' covers partitions ["
                             << *start << ", " << *start + p << "); "
                             << spaceName(t.space) << " has " << m::kPartitions;
  if (*start % m::partitionStartAlignment(p) != 0)
    return op->emitOpError()
           << "operand '" << t.name << "' starts at partition " << *start
           << "; a tile of " << p << " partitions starts at "
           << m::partitionStartsText(p);
  return success();
}

/// Which spaces `engine` reads or writes, for diagnostics.
static StringRef reachable(Engine engine, bool write) {
  switch (engine) {
  case Engine::Tensor:
    return write ? "psum" : "sbuf";
  case Engine::GpSimd:
    return "sbuf";
  case Engine::Vector:
  case Engine::Scalar:
    return "sbuf and psum";
  }
  return "";
}

static LogicalResult checkEngineAccess(Operation *op, Engine engine,
                                       const Tile &t, bool write) {
  if (write ? engineWrites(engine, t.space) : engineReads(engine, t.space))
    return success();
  return op->emitOpError() << "operand '" << t.name << "' is in "
                           << spaceName(t.space) << ", which the "
                           << stringifyEngine(engine) << " engine cannot "
                           << (write ? "write" : "read") << "; it "
                           << (write ? "writes" : "reads") << " only "
                           << reachable(engine, write);
}

/// The operand of `op` read (or written) by `engine`, checked for where it
/// lives and for its access pattern.
static FailureOr<Tile> getEngineTile(Operation *op, Engine engine, Value value,
                                     StringRef name, bool write) {
  FailureOr<Tile> t = getTile(op, value, name);
  if (failed(t) || failed(checkEngineAccess(op, engine, *t, write)) ||
      failed(checkAccessPattern(op, *t)))
    return failure();
  return t;
}

/// Vector, Scalar and GpSimd work lane by lane: source and destination hold
/// the same partitions and the same number of elements in each.
static LogicalResult checkSameLanes(Operation *op, const Tile &a,
                                    const Tile &b) {
  if (a.partitions() == b.partitions() && a.freeElements() == b.freeElements())
    return success();
  return op->emitOpError() << "operand '" << b.name << "' has "
                           << b.partitions() << " partitions x "
                           << b.freeElements() << " elements, but operand '"
                           << a.name << "' has " << a.partitions() << " x "
                           << a.freeElements()
                           << "; engines move data only within a partition";
}

/// A per-partition scalar operand: one element in each of `p` partitions.
static LogicalResult checkPerPartition(Operation *op, const Tile &t, int64_t p,
                                       bool needF32) {
  if (t.partitions() != p || t.freeElements() != 1)
    return op->emitOpError()
           << "operand '" << t.name << "' is " << shapeString(t.type.getShape())
           << "; it holds one value per partition, [" << p << ", 1]";
  if (needF32 && !t.elementType().isF32())
    return op->emitOpError() << "operand '" << t.name << "' has element type "
                             << t.elementType() << "; it must be f32";
  return success();
}

static LogicalResult checkEngineIn(Operation *op, Engine engine,
                                   ArrayRef<Engine> allowed) {
  if (llvm::is_contained(allowed, engine))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "cannot run on the " << stringifyEngine(engine)
                            << " engine; it runs on ";
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i)
      diag << (i + 1 == allowed.size() ? " or " : ", ");
    diag << stringifyEngine(allowed[i]);
  }
  return diag;
}

/// Bitwise and shift operations act on integer bits.
static LogicalResult checkAluTypes(Operation *op, AluOp alu,
                                   ArrayRef<const Tile *> tiles) {
  if (!isBitwise(alu))
    return success();
  for (const Tile *t : tiles)
    if (!t->elementType().isInteger())
      return op->emitOpError()
             << "'" << stringifyAluOp(alu) << "' needs integer tiles, but '"
             << t->name << "' has element type " << t->elementType();
  return success();
}

/// The bytes a view reaches within each partition: from its first element
/// (when its offset is static) over the extent of its free dims.
namespace {
struct PartitionBytes {
  std::optional<int64_t> begin;
  int64_t size;
};
} // namespace

static std::optional<PartitionBytes> getPartitionBytes(const Tile &t) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  int64_t extent = 1;
  for (int64_t d = 1; d < t.type.getRank(); ++d) {
    if (ShapedType::isDynamic(strides[d]))
      return std::nullopt;
    if (t.type.getDimSize(d) == 0)
      return PartitionBytes{std::nullopt, 0};
    // kDynamic is INT64_MIN, so the stride's magnitude is representable.
    extent =
        satAdd(extent, satMul(t.type.getDimSize(d) - 1, std::abs(strides[d])));
  }
  PartitionBytes bytes{std::nullopt, satMul(extent, t.elementBytes())};
  if (t.type.getRank() && !ShapedType::isDynamic(offset) && offset >= 0 &&
      !ShapedType::isDynamic(strides[0]) && strides[0] > 0)
    bytes.begin = (offset % strides[0]) * t.elementBytes();
  return bytes;
}

/// An iota / affine_select pattern: [step, count] pairs covering `elements`
/// elements of each partition.
static LogicalResult checkPattern(Operation *op, ArrayRef<int64_t> flat,
                                  const Tile &dst) {
  if (flat.empty() || flat.size() % 2)
    return op->emitOpError()
           << "has a pattern of " << flat.size()
           << " numbers; a pattern is a list of [step, count] pairs";
  int64_t dims = flat.size() / 2;
  if (dims > m::kMaxPatternDims)
    return op->emitOpError()
           << "has a " << dims << "-d pattern; patterns have at most "
           << m::kMaxPatternDims << " dims";
  int64_t covered = 1;
  for (int64_t i = 0; i < dims; ++i) {
    int64_t count = flat[2 * i + 1];
    if (count <= 0)
      return op->emitOpError() << "has a pattern dim of " << count
                               << " elements; counts are positive";
    covered = satMul(covered, count);
  }
  if (covered != dst.freeElements())
    return op->emitOpError() << "has a pattern that covers " << covered
                             << " elements per partition, but operand '"
                             << dst.name << "' has " << dst.freeElements();
  return success();
}

//===----------------------------------------------------------------------===//
// Storage
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  FailureOr<Tile> t = getTile(*this, getResult(), "result");
  if (failed(t))
    return failure();
  if (!t->onChip())
    return emitOpError() << "allocates in hbm; hbm tensors are kernel "
                            "arguments, and trn.alloc places tiles in sbuf "
                            "or psum";
  if (!t->type.getLayout().isIdentity())
    return emitOpError() << "has layout " << t->type.getLayout()
                         << "; an allocation is row-major, and views of it "
                            "come from memref.subview";
  if (failed(checkPartitionCount(*this, *t)))
    return failure();
  int64_t perPartition = satMul(t->freeElements(), t->elementBytes());
  bool sbuf = t->space == MemorySpace::SBUF;
  int64_t capacity =
      sbuf ? m::kSbufBytesPerPartition : m::kPsumBytesPerPartition;
  if (perPartition <= capacity)
    return success();
  int64_t total = satMul(perPartition, t->partitions());
  return emitOpError() << "needs " << perPartition << " bytes in each of "
                       << t->partitions() << " partitions (" << total
                       << " bytes in all); " << spaceName(t->space) << " has "
                       << capacity << " bytes per partition ("
                       << (sbuf ? m::kSbufBytes : m::kPsumBytes)
                       << " bytes in all)";
}

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

LogicalResult DmaCopyOp::verify() {
  FailureOr<Tile> src = getTile(*this, getSrc(), "src");
  FailureOr<Tile> dst = getTile(*this, getDst(), "dst");
  if (failed(src) || failed(dst))
    return failure();
  for (const Tile *t : {&*src, &*dst}) {
    if (t->space == MemorySpace::PSUM)
      return emitOpError() << "operand '" << t->name
                           << "' is in psum, which DMA cannot reach; it "
                              "moves data between hbm and sbuf only";
    if (failed(checkAccessPattern(*this, *t)))
      return failure();
  }
  if (src->type.getNumElements() != dst->type.getNumElements())
    return emitOpError() << "copies " << src->type.getNumElements()
                         << " elements of 'src' into "
                         << dst->type.getNumElements()
                         << " elements of 'dst'; the counts must match";
  return success();
}

//===----------------------------------------------------------------------===//
// TensorE
//===----------------------------------------------------------------------===//

static bool isMatmulInputType(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(t) || t.isBF16() || t.isF16() ||
         t.isTF32() || t.isF32();
}

LogicalResult MatmulOp::verify() {
  Operation *op = *this;
  FailureOr<Tile> stat =
      getEngineTile(op, Engine::Tensor, getStationary(), "stationary", false);
  if (failed(stat))
    return failure();
  FailureOr<Tile> mov =
      getEngineTile(op, Engine::Tensor, getMoving(), "moving", false);
  if (failed(mov))
    return failure();
  FailureOr<Tile> dst = getEngineTile(op, Engine::Tensor, getDst(), "dst",
                                      /*write=*/true);
  if (failed(dst))
    return failure();
  for (const Tile *t : {&*stat, &*mov, &*dst})
    if (t->type.getRank() != 2)
      return emitOpError() << "operand '" << t->name << "' is "
                           << shapeString(t->type.getShape())
                           << "; matmul operands are 2-d [partition, free]";
  int64_t k = stat->partitions(), m = stat->type.getDimSize(1);
  int64_t n = mov->type.getDimSize(1);
  if (mov->partitions() != k)
    return emitOpError() << "contracts " << k
                         << " partitions of 'stationary' with "
                         << mov->partitions()
                         << " of 'moving'; both hold K on their partitions";
  if (m > m::kMatmulMaxStationaryFree)
    return emitOpError() << "operand 'stationary' has free size " << m
                         << "; TensorE takes at most "
                         << m::kMatmulMaxStationaryFree
                         << " stationary columns (M)";
  if (n > m::kMatmulMaxMovingFree)
    return emitOpError() << "operand 'moving' has free size " << n
                         << "; TensorE takes at most "
                         << m::kMatmulMaxMovingFree << " moving columns (N)";
  if (dst->type.getShape() != ArrayRef<int64_t>{m, n})
    return emitOpError() << "operand 'dst' is "
                         << shapeString(dst->type.getShape())
                         << "; the product of " << k << "x" << m
                         << " (stationary) and " << k << "x" << n
                         << " (moving) is " << m << "x" << n;
  for (const Tile *t : {&*stat, &*mov})
    if (!isMatmulInputType(t->elementType()))
      return emitOpError() << "operand '" << t->name << "' has element type "
                           << t->elementType()
                           << "; TensorE multiplies f8E4M3FN, f8E5M2, bf16, "
                              "f16, tf32 or f32";
  auto isWide = [](Type t) { return t.isF32() || t.isTF32(); };
  if (isWide(stat->elementType()) != isWide(mov->elementType()))
    return emitOpError() << "multiplies " << stat->elementType()
                         << " (stationary) by " << mov->elementType()
                         << " (moving); an f32 or tf32 input needs the "
                            "other to be f32 or tf32 too";
  if (!dst->elementType().isF32())
    return emitOpError() << "operand 'dst' has element type "
                         << dst->elementType()
                         << "; TensorE accumulates in f32 in psum";
  std::optional<PartitionBytes> bytes = getPartitionBytes(*dst);
  if (!bytes)
    return success();
  if (bytes->size > m::kPsumBankBytes)
    return emitOpError() << "operand 'dst' takes " << bytes->size
                         << " bytes of each partition; a matmul output fits "
                            "one psum bank of "
                         << m::kPsumBankBytes << " bytes";
  if (bytes->begin && m::crossesPsumBank(*bytes->begin, bytes->size))
    return emitOpError() << "operand 'dst' spans bytes [" << *bytes->begin
                         << ", " << *bytes->begin + bytes->size
                         << ") of each partition, across a psum bank "
                            "boundary; a matmul output fits one bank of "
                         << m::kPsumBankBytes << " bytes";
  return success();
}

LogicalResult TransposeOp::verify() {
  Operation *op = *this;
  Engine engine = getEngine();
  if (failed(checkEngineIn(op, engine, {Engine::Tensor, Engine::Vector})))
    return failure();
  FailureOr<Tile> src = getEngineTile(op, engine, getSrc(), "src", false);
  if (failed(src))
    return failure();
  if (src->type.getRank() != 2)
    return emitOpError() << "operand 'src' is "
                         << shapeString(src->type.getShape())
                         << "; a transpose is of a 2-d [partition, free] tile";
  // The size limit comes before the checks of 'dst', whose partitions are
  // the free size of 'src': "256 partitions" would hide the real limit.
  int64_t p = src->type.getDimSize(0), f = src->type.getDimSize(1);
  int64_t limit = engine == Engine::Tensor ? m::kTensorTransposeMax
                                           : m::kVectorTransposeMax;
  if (p > limit || f > limit)
    return emitOpError() << "transposes " << p << "x" << f << " on the "
                         << stringifyEngine(engine)
                         << " engine, which transposes at most " << limit << "x"
                         << limit;
  FailureOr<Tile> dst = getEngineTile(op, engine, getDst(), "dst", true);
  if (failed(dst))
    return failure();
  if (dst->type.getShape() != ArrayRef<int64_t>{f, p})
    return emitOpError() << "operand 'dst' is "
                         << shapeString(dst->type.getShape())
                         << "; the transpose of " << p << "x" << f << " is "
                         << f << "x" << p;
  if (src->elementType() != dst->elementType())
    return emitOpError() << "transposes " << src->elementType() << " into "
                         << dst->elementType()
                         << "; a transpose keeps the element type";
  return success();
}

//===----------------------------------------------------------------------===//
// ScalarE
//===----------------------------------------------------------------------===//

LogicalResult ActivationOp::verify() {
  Operation *op = *this;
  const Engine engine = Engine::Scalar;
  FailureOr<Tile> src = getEngineTile(op, engine, getSrc(), "src", false);
  if (failed(src))
    return failure();
  FailureOr<Tile> dst = getEngineTile(op, engine, getDst(), "dst", true);
  if (failed(dst) || failed(checkSameLanes(op, *src, *dst)))
    return failure();
  int64_t p = src->partitions();
  if (Value bias = getBias()) {
    FailureOr<Tile> t = getEngineTile(op, engine, bias, "bias", false);
    if (failed(t) || failed(checkPerPartition(op, *t, p, false)))
      return failure();
  }
  if (getScale() && getScaleTile())
    return emitOpError() << "has both an immediate scale and 'scale_tile'; "
                            "the scale is one or the other";
  if (Value scale = getScaleTile()) {
    FailureOr<Tile> t = getEngineTile(op, engine, scale, "scale_tile", false);
    if (failed(t) || failed(checkPerPartition(op, *t, p, true)))
      return failure();
  }
  if (getReduceOp().has_value() != static_cast<bool>(getReduceRes()))
    return emitOpError() << "has a reduction without "
                         << (getReduceRes() ? "an operation" : "'reduce_res'")
                         << "; write 'reduce add into %r'";
  if (std::optional<AluOp> reduce = getReduceOp()) {
    if (*reduce != AluOp::Add)
      return emitOpError() << "reduces with '" << stringifyAluOp(*reduce)
                           << "'; ScalarE reduces only with add";
    FailureOr<Tile> t =
        getEngineTile(op, engine, getReduceRes(), "reduce_res", true);
    if (failed(t) || failed(checkPerPartition(op, *t, p, false)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// VectorE, ScalarE and GpSimd
//===----------------------------------------------------------------------===//

LogicalResult TensorTensorOp::verify() {
  Operation *op = *this;
  Engine engine = getEngine();
  if (failed(checkEngineIn(op, engine, {Engine::Vector, Engine::GpSimd})))
    return failure();
  FailureOr<Tile> lhs = getEngineTile(op, engine, getLhs(), "lhs", false);
  if (failed(lhs))
    return failure();
  FailureOr<Tile> rhs = getEngineTile(op, engine, getRhs(), "rhs", false);
  if (failed(rhs))
    return failure();
  FailureOr<Tile> dst = getEngineTile(op, engine, getDst(), "dst", true);
  if (failed(dst) || failed(checkSameLanes(op, *lhs, *rhs)) ||
      failed(checkSameLanes(op, *lhs, *dst)))
    return failure();
  if (lhs->space == MemorySpace::PSUM && rhs->space == MemorySpace::PSUM)
    return emitOpError() << "reads both 'lhs' and 'rhs' from psum; at most "
                            "one input of tensor_tensor is in psum";
  return checkAluTypes(op, getOp(), {&*lhs, &*rhs, &*dst});
}

LogicalResult TensorScalarOp::verify() {
  Operation *op = *this;
  Engine engine = getEngine();
  if (failed(checkEngineIn(op, engine,
                           {Engine::Vector, Engine::Scalar, Engine::GpSimd})))
    return failure();
  FailureOr<Tile> src = getEngineTile(op, engine, getSrc(), "src", false);
  if (failed(src))
    return failure();
  FailureOr<Tile> dst = getEngineTile(op, engine, getDst(), "dst", true);
  if (failed(dst) || failed(checkSameLanes(op, *src, *dst)))
    return failure();
  int64_t p = src->partitions();
  auto checkScalar = [&](StringRef which, Value tile, FloatAttr imm,
                         StringRef tileName) -> LogicalResult {
    if (tile && imm)
      return emitOpError() << "gives " << which
                           << " both an immediate and a tile";
    if (!tile && !imm)
      return emitOpError() << "gives " << which << " no scalar";
    if (!tile)
      return success();
    FailureOr<Tile> t = getEngineTile(op, engine, tile, tileName, false);
    if (failed(t))
      return failure();
    return checkPerPartition(op, *t, p, true);
  };
  if (failed(checkScalar("op0", getScalar0Tile(), getScalar0Attr(), "scalar0")))
    return failure();
  std::optional<AluOp> op1 = getOp1();
  if (op1) {
    if (failed(
            checkScalar("op1", getScalar1Tile(), getScalar1Attr(), "scalar1")))
      return failure();
    if (isBitwise(getOp0()) != isBitwise(*op1))
      return emitOpError() << "combines '" << stringifyAluOp(getOp0())
                           << "' with '" << stringifyAluOp(*op1)
                           << "'; both operations are arithmetic or both "
                              "are bitwise";
  } else if (getScalar1Tile() || getScalar1Attr()) {
    return emitOpError() << "has a second scalar but no second operation";
  }
  if (isBitwise(getOp0()) && engine != Engine::Vector)
    return emitOpError() << "runs bitwise '" << stringifyAluOp(getOp0())
                         << "' on the " << stringifyEngine(engine)
                         << " engine; only vector has bitwise operations";
  return checkAluTypes(op, getOp0(), {&*src, &*dst});
}

LogicalResult TensorReduceOp::verify() {
  Operation *op = *this;
  const Engine engine = Engine::Vector;
  FailureOr<Tile> src = getEngineTile(op, engine, getSrc(), "src", false);
  if (failed(src))
    return failure();
  FailureOr<Tile> dst = getEngineTile(op, engine, getDst(), "dst", true);
  if (failed(dst))
    return failure();
  if (!isReduction(getOp()))
    return emitOpError() << "'" << stringifyAluOp(getOp())
                         << "' is not a reduction; tensor_reduce takes add, "
                            "multiply, max or min";
  ArrayRef<int64_t> axes = getAxes();
  int64_t rank = src->type.getRank();
  if (axes.empty())
    return emitOpError() << "reduces no axes";
  if (rank < 2)
    return emitOpError() << "operand 'src' is "
                         << shapeString(src->type.getShape())
                         << ", partitions only; it has no free dims to reduce";
  if (llvm::is_contained(axes, 0))
    return emitOpError() << "reduces axis 0, the partition dim; "
                            "tensor_reduce reduces free dims only";
  int64_t first = rank - static_cast<int64_t>(axes.size());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != first + static_cast<int64_t>(i))
      return emitOpError() << "reduces axes [" << axes << "] of a " << rank
                           << "-d tile; the axes are the trailing free dims "
                              "in order, such as ["
                           << rank - 1 << "]";
  ArrayRef<int64_t> shape = src->type.getShape();
  SmallVector<int64_t> kept(shape.take_front(first));
  SmallVector<int64_t> ones(shape);
  for (int64_t a : axes)
    ones[a] = 1;
  if (dst->type.getShape() != ArrayRef<int64_t>(kept) &&
      dst->type.getShape() != ArrayRef<int64_t>(ones))
    return emitOpError() << "operand 'dst' is "
                         << shapeString(dst->type.getShape())
                         << "; reducing the trailing " << axes.size()
                         << " dims of " << shapeString(shape) << " gives "
                         << shapeString(ones) << " (or " << shapeString(kept)
                         << " without them)";
  return success();
}

LogicalResult TensorCopyOp::verify() {
  Operation *op = *this;
  Engine engine = getEngine();
  if (engine == Engine::Scalar)
    return emitOpError() << "cannot run on the scalar engine, which has no "
                            "tensor_copy on NeuronCore-v2; copy with "
                            "'trn.activation copy'";
  if (failed(checkEngineIn(op, engine, {Engine::Vector, Engine::GpSimd})))
    return failure();
  FailureOr<Tile> src = getEngineTile(op, engine, getSrc(), "src", false);
  if (failed(src))
    return failure();
  FailureOr<Tile> dst = getEngineTile(op, engine, getDst(), "dst", true);
  if (failed(dst))
    return failure();
  return checkSameLanes(op, *src, *dst);
}

LogicalResult MemsetOp::verify() {
  Operation *op = *this;
  Engine engine = getEngine();
  if (failed(checkEngineIn(op, engine, {Engine::Vector, Engine::GpSimd})))
    return failure();
  FailureOr<Tile> dst = getEngineTile(op, engine, getDst(), "dst", true);
  if (failed(dst))
    return failure();
  Type valueType = getValue().getType();
  if (valueType != dst->elementType())
    return emitOpError() << "fills operand 'dst' of " << dst->elementType()
                         << " with a value of type " << valueType;
  return success();
}

//===----------------------------------------------------------------------===//
// GpSimd
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  FailureOr<Tile> dst =
      getEngineTile(*this, Engine::GpSimd, getDst(), "dst", true);
  if (failed(dst))
    return failure();
  return checkPattern(*this, getPattern(), *dst);
}

LogicalResult AffineSelectOp::verify() {
  Operation *op = *this;
  if (!isComparison(getCmp()))
    return emitOpError() << "'" << stringifyAluOp(getCmp())
                         << "' is not a comparison; affine_select compares "
                            "with is_equal, not_equal, is_gt, is_ge, is_lt "
                            "or is_le";
  FailureOr<Tile> onTrue =
      getEngineTile(op, Engine::GpSimd, getOnTrue(), "on_true", false);
  if (failed(onTrue))
    return failure();
  FailureOr<Tile> dst =
      getEngineTile(op, Engine::GpSimd, getDst(), "dst", true);
  if (failed(dst) || failed(checkSameLanes(op, *onTrue, *dst)))
    return failure();
  return checkPattern(op, getPattern(), *dst);
}
