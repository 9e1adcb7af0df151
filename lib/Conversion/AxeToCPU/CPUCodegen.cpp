//===- CPUCodegen.cpp - Collective operators as CPU loops -----------------===//

#include "axe/Conversion/AxeToCPU/CPUCodegen.h"
#include "axe/Codegen/ElementOps.h"
#include "axe/Codegen/LoopNest.h"
#include "axe/Support/ElementBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <numeric>

using namespace mlir;

namespace axe {

namespace {

/// The line size of the x86 and AArch64 cores the CPU path targets; the
/// transpose groups its streaming stores by it.
constexpr int64_t kCacheLineBytes = 64;

/// An operand of a space together with its buffer.
struct Access {
  const CPUBuffer *buffer;
  LayoutEmitter emitter;
};

/// The run-time offset on m of a buffer, as vector legality needs it.
DynamicOffset dynamicOffsetOf(const CPUBuffer &buf) {
  return {bool(buf.ref.offset.lookup(kDefaultAxis)), buf.ref.offsetAlignment};
}

bool contiguousAlong(const IterSpace &space, unsigned v, unsigned k,
                     const Access &acc, int64_t lanes, bool replicas) {
  return axe::contiguousAlong(space, v, k, lanes, replicas,
                              dynamicOffsetOf(*acc.buffer));
}

/// The flat address of operand `k`'s first placement (no replica) at `ivs`.
Value emitAddress(OpBuilder &b, Location loc, const IterSpace &space,
                  unsigned k, const Access &acc, ValueRange ivs) {
  CoordValue c = space.emitPlacement(b, loc, k, ivs, &acc.buffer->ref.offset);
  acc.emitter.applySwizzle(b, loc, c);
  return acc.buffer->storage.emitAddress(b, loc, c);
}

/// Calls `fn` with the address of every placement of operand `k` at `ivs`.
void forEachAddress(OpBuilder &b, Location loc, const IterSpace &space,
                    unsigned k, const Access &acc, ValueRange ivs,
                    function_ref<void(OpBuilder &, Value)> fn) {
  CoordValue base =
      space.emitPlacement(b, loc, k, ivs, &acc.buffer->ref.offset);
  acc.emitter.forEachPlacement(
      b, loc, base, [&](OpBuilder &nb, Location l, const CoordValue &c) {
        fn(nb, acc.buffer->storage.emitAddress(nb, l, c));
      });
}

Value load(OpBuilder &b, Location loc, const CPUBuffer &buf, Value addr,
           int64_t lanes) {
  return loadCPUElements(b, loc, buf.memory, addr, buf.ref.elementType, lanes);
}

void store(OpBuilder &b, Location loc, const CPUBuffer &buf, Value value,
           Value addr) {
  storeCPUElements(b, loc, value, buf.memory, addr);
}

Value splat(OpBuilder &b, Location loc, Value scalar, int64_t lanes) {
  if (lanes <= 1)
    return scalar;
  return vector::BroadcastOp::create(
      b, loc, VectorType::get({lanes}, scalar.getType()), scalar);
}

Result<Access> makeAccess(const CPUBuffer &buf) {
  Result<LayoutEmitter> em = LayoutEmitter::get(buf.ref.layout, buf.ref.shape);
  if (!em)
    return em.takeFailure();
  if (!buf.memory)
    return fail("buffer has no storage");
  return Access{&buf, *em};
}

//===----------------------------------------------------------------------===//
// Copy planning
//===----------------------------------------------------------------------===//

/// The loops of a copy: one per dim of the source's shape, read through
/// `src` and written through `dst`.
IterSpace copySpace(const Access &src, const Access &dst) {
  return IterSpace::build(src.buffer->ref.shape,
                          {{&src.emitter, iota(src.buffer->ref.shape.size())},
                           {&dst.emitter, iota(dst.buffer->ref.shape.size())}});
}

/// Bits of an integer or float element; 0 for others (index).
int64_t elementBits(Type t) {
  return t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 0;
}

struct CopyPlan {
  enum Kind { Scalar, Vector, Transpose } kind = Scalar;
  /// Vector: the loop vectorized. Transpose: src-contiguous loop.
  unsigned loopA = 0;
  /// Transpose: dst-contiguous loop.
  unsigned loopB = 0;
  /// Vector: its lanes. Transpose: lanes along loopA (the tile's rows).
  int64_t lanes = 1;
  /// Transpose: lanes along loopB, `lanes` or twice as many (16-bit rows
  /// paired into one vector, below).
  int64_t lanesB = 1;
  bool srcBroadcast = false;
};

CopyPlan planCopy(const IterSpace &space, const Access &src, const Access &dst,
                  const CPUCodegenOptions &opts) {
  CopyPlan plan;
  int64_t maxLanes =
      std::min(lanesFor(src.buffer->ref.elementType, opts.vectorLanes32),
               lanesFor(dst.buffer->ref.elementType, opts.vectorLanes32));
  unsigned n = space.loops().size();
  for (int64_t lanes = maxLanes; lanes >= 2; lanes /= 2) {
    for (int v = int(n) - 1; v >= 0; --v) {
      if (!contiguousAlong(space, v, 1, dst, lanes, /*replicas=*/true))
        continue;
      bool srcContig = contiguousAlong(space, v, 0, src, lanes, false);
      bool srcConst = constantAlong(space, v, 0);
      if (srcContig || srcConst) {
        plan.kind = CopyPlan::Vector;
        plan.loopA = v;
        plan.lanes = lanes;
        plan.srcBroadcast = !srcContig;
        return plan;
      }
    }
  }
  if (!opts.transposeVectors)
    return plan;
  // 16-bit tiles of vectorLanes32 lanes (256-bit rows with AVX-512): the
  // w rows of a tile are all live at once, and 32 rows of 512 bits fill
  // the whole register file, so a 32 x 32 tile spills on every round.
  if (elementBits(src.buffer->ref.elementType) == 16 ||
      elementBits(dst.buffer->ref.elementType) == 16)
    maxLanes = std::min(maxLanes, std::max<int64_t>(opts.vectorLanes32, 1));
  for (int64_t lanes = maxLanes; lanes >= 2; lanes /= 2)
    for (unsigned a = 0; a < n; ++a) {
      if (!contiguousAlong(space, a, 0, src, lanes, false))
        continue;
      for (unsigned bl = 0; bl < n; ++bl) {
        if (bl == a ||
            !contiguousAlong(space, bl, 1, dst, lanes, /*replicas=*/true))
          continue;
        plan.kind = CopyPlan::Transpose;
        plan.loopA = a;
        plan.loopB = bl;
        plan.lanes = plan.lanesB = lanes;
        // A tile of 2w x w 16-bit elements: rows k and k + w of the source
        // share one vector of 2w lanes, the rounds of transposeRows16 act on
        // each half alone, and each result is a 2w-lane row of the
        // destination. Half as many instructions per element, and the
        // destination is written in whole cache lines where a w-lane row of
        // 16-bit elements is half of one.
        int64_t wide = 2 * lanes;
        if (elementBits(dst.buffer->ref.elementType) == 16 && lanes >= 4 &&
            wide <= lanesFor(dst.buffer->ref.elementType, opts.vectorLanes32) &&
            contiguousAlong(space, bl, 1, dst, wide, /*replicas=*/true))
          plan.lanesB = wide;
        return plan;
      }
    }
  return plan;
}

} // namespace

Value loadCPUElements(OpBuilder &b, Location loc, Value memory, Value addr,
                      Type elementType, int64_t lanes) {
  if (lanes <= 1)
    return memref::LoadOp::create(b, loc, memory, ValueRange{addr});
  assert(vectorMatchesScalarMemory(elementType) &&
         "lanesFor keeps these element types scalar");
  return vector::LoadOp::create(b, loc, VectorType::get({lanes}, elementType),
                                memory, ValueRange{addr});
}

void storeCPUElements(OpBuilder &b, Location loc, Value value, Value memory,
                      Value addr) {
  if (isa<VectorType>(value.getType())) {
    assert(vectorMatchesScalarMemory(getElementTypeOrSelf(value.getType())) &&
           "lanesFor keeps these element types scalar");
    vector::StoreOp::create(b, loc, value, memory, ValueRange{addr});
  } else {
    memref::StoreOp::create(b, loc, value, memory, ValueRange{addr});
  }
}

namespace {
/// Stack bytes one CTA (or function) body may take for its buffers; larger
/// ones go to the heap. OpenMP worker threads get 4 MiB stacks by default.
constexpr int64_t kStackBudgetBytes = 1 << 20;

/// The stack bytes already taken in a scope. allocScratch puts every
/// allocation (stack or heap) at the start of the scope's block, so only that
/// leading run is read: scanning the whole block per allocation was
/// quadratic in a kernel of thousands of operators.
int64_t allocaBytes(Region &region) {
  int64_t bytes = 0;
  for (Operation &op : region.front()) {
    if (isa<memref::AllocOp>(op))
      continue;
    auto a = dyn_cast<memref::AllocaOp>(op);
    if (!a)
      break;
    if (a.getType().hasStaticShape())
      bytes += a.getType().getNumElements() *
               elementBytes(a.getType().getElementType());
  }
  return bytes;
}

/// Stops the program with a message on stderr where malloc gave no memory,
/// instead of letting the first access fault. (cf.assert's message goes
/// through stdout's buffer, which abort drops when stdout is a pipe.) At the
/// caller's insertion point, not beside the allocation: allocaBytes reads
/// the run of allocations at the start of the scope's block.
void assertAllocated(OpBuilder &b, Location loc, Value mem, int64_t bytes) {
  Operation *module =
      LLVM::parentLLVMModule(b.getInsertionBlock()->getParentOp());
  if (!module)
    return;
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem).getResult();
  Value isNull =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, address,
                            arith::ConstantIndexOp::create(b, loc, 0));
  auto ifFailed = scf::IfOp::create(b, loc, isNull, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifFailed.thenBlock());
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i32 = b.getI32Type(), i64 = b.getI64Type();
  FailureOr<LLVM::LLVMFuncOp> write =
      LLVM::lookupOrCreateFn(b, module, "write", {i32, ptr, i64}, i64);
  FailureOr<LLVM::LLVMFuncOp> abort = LLVM::lookupOrCreateFn(
      b, module, "abort", {}, LLVM::LLVMVoidType::get(ctx));
  if (failed(write) || failed(abort))
    return; // the program declares its own, with another signature
  std::string where;
  llvm::raw_string_ostream os(where);
  loc.print(os);
  std::string text = "axe: the CPU could not allocate " +
                     std::to_string(bytes) + " bytes of storage for " + where +
                     "\n";
  // One global per message: the same buffer's scratch asked for twice
  // reuses it.
  std::string name =
      "__axe_alloc_failed_" + llvm::utohexstr(llvm::xxh3_64bits(text));
  Value message;
  if (auto global = dyn_cast_or_null<LLVM::GlobalOp>(
          SymbolTable::lookupSymbolIn(module, name)))
    message = LLVM::AddressOfOp::create(b, loc, global);
  else
    message =
        LLVM::createGlobalString(loc, b, name, text, LLVM::Linkage::Internal);
  Value stderrFd = LLVM::ConstantOp::create(b, loc, i32, 2);
  Value length = LLVM::ConstantOp::create(b, loc, i64, int64_t(text.size()));
  LLVM::CallOp::create(b, loc, *write, ValueRange{stderrFd, message, length});
  LLVM::CallOp::create(b, loc, *abort, ValueRange{});
}

} // namespace

Value allocScratch(OpBuilder &b, Location loc, Type elementType, int64_t size) {
  // The scope is the body of the nearest allocation scope: a CTA (the
  // kernel, before convert-axe-to-cpu; its alloca scope after), a grid
  // iteration, or the function. scf.for is a scope to MLIR but not here:
  // its allocas lower to a stack that grows by the scratch at every
  // iteration until the enclosing scope ends (a gemm over 256 K slices of a
  // CTA would take 256 times its panels), and the scratch is dead between
  // iterations, so one allocation before the loop serves them all. Parallel
  // loops (the grid) stay scopes: their iterations need scratch each.
  auto isScope = [](Operation *op) {
    return !isa<scf::ForOp>(op) &&
           (isa<memref::AllocaScopeOp>(op) ||
            op->hasTrait<OpTrait::AutomaticAllocationScope>());
  };
  Block *block = b.getInsertionBlock();
  Operation *scopeOp = block->getParentOp();
  while (scopeOp && !isScope(scopeOp)) {
    // An op not yet inserted, or the top of the IR: the outermost block
    // reached is the scope.
    if (!scopeOp->getBlock())
      break;
    block = scopeOp->getBlock();
    scopeOp = block->getParentOp();
  }
  Region *region = block->getParent();
  auto type = MemRefType::get({size}, elementType);
  int64_t bytes = size * elementBytes(elementType);
  // On the stack within a budget: memory that stays mapped, where malloc
  // and free per CTA would hand pages back to the kernel and fault them in
  // again for every CTA. Each thread running CTAs has its own.
  if (scopeOp && region->hasOneBlock() &&
      allocaBytes(*region) + bytes <= kStackBudgetBytes) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&region->front());
    return memref::AllocaOp::create(b, loc, type, b.getI64IntegerAttr(64));
  }
  Value mem;
  Operation *insertedBefore = nullptr;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&region->front());
    mem = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
    for (Block &blk : *region) {
      // Freed where the scope ends: before each return, or at the end of a
      // body without terminator (a kernel's).
      Operation *term = blk.empty() ? nullptr : &blk.back();
      if (term && term->hasTrait<OpTrait::IsTerminator>()) {
        if (!(term->hasTrait<OpTrait::ReturnLike>() ||
              isa<scf::ReduceOp>(term)))
          continue;
        b.setInsertionPoint(term);
      } else if (region->hasOneBlock()) {
        b.setInsertionPointToEnd(&blk);
      } else {
        continue;
      }
      Operation *dealloc = memref::DeallocOp::create(b, loc, mem);
      if (!insertedBefore && b.getInsertionBlock() == &blk)
        insertedBefore = dealloc;
    }
  }
  // A caller emitting right before that terminator must keep emitting
  // before the dealloc, not after it.
  if (insertedBefore && b.getInsertionBlock() == insertedBefore->getBlock() &&
      b.getInsertionPoint() == std::next(Block::iterator(insertedBefore)))
    b.setInsertionPoint(insertedBefore);
  assertAllocated(b, loc, mem, bytes);
  return mem;
}

Operation *enclosingKernel(Block *block) {
  // By name: the CPU codegen files stay free of the dialect's generated
  // headers.
  Operation *op = block ? block->getParentOp() : nullptr;
  while (op && op->getName().getStringRef() != "axe.kernel")
    op = op->getParentOp();
  return op;
}

Value allocPerWorker(OpBuilder &b, Location loc, MemRefType type,
                     std::optional<int64_t> fill) {
  Operation *kernel = enclosingKernel(b.getInsertionBlock());
  if (!kernel || kernel->getNumRegions() != 1 || kernel->getRegion(0).empty())
    return Value();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&kernel->getRegion(0).front());
  auto alloc = memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64));
  alloc->setAttr(kPerWorkerAttr, b.getUnitAttr());
  if (fill)
    alloc->setAttr(kPerWorkerFillAttr, b.getI64IntegerAttr(*fill));
  return alloc;
}

//===----------------------------------------------------------------------===//
// Copy
//===----------------------------------------------------------------------===//

std::string describeCopyPlan(const CPUBuffer &src, const CPUBuffer &dst,
                             const CPUCodegenOptions &opts) {
  auto sa = makeAccess(src), da = makeAccess(dst);
  if (!sa)
    return sa.message();
  if (!da)
    return da.message();
  CopyPlan plan = planCopy(copySpace(*sa, *da), *sa, *da, opts);
  switch (plan.kind) {
  case CopyPlan::Vector:
    return "vector x" + std::to_string(plan.lanes);
  case CopyPlan::Transpose:
    return "transpose " + std::to_string(plan.lanes) + "x" +
           std::to_string(plan.lanesB);
  case CopyPlan::Scalar:
    break;
  }
  return "scalar";
}

namespace {
/// The columns of the w x w matrix whose rows are `rows` (w a power of two):
/// log2(w) rounds of zipping row k with row k + w/2. Each zip is a
/// two-input shuffle that x86 does in one or two instructions (vpermt2ps,
/// unpck), where one shuffle of the whole w*w matrix becomes a long chain
/// once w is 16.
SmallVector<Value> transposeRows(OpBuilder &b, Location loc,
                                 ArrayRef<Value> rows) {
  int64_t w = rows.size(), h = w / 2;
  SmallVector<int64_t> lo, hi;
  for (int64_t i = 0; i < h; ++i) {
    lo.append({i, w + i});
    hi.append({h + i, w + h + i});
  }
  SmallVector<Value> r(rows.begin(), rows.end());
  for (int64_t round = 1; round < w; round *= 2) {
    SmallVector<Value> next(w);
    for (int64_t k = 0; k < h; ++k) {
      next[2 * k] = vector::ShuffleOp::create(b, loc, r[k], r[k + h], lo);
      next[2 * k + 1] = vector::ShuffleOp::create(b, loc, r[k], r[k + h], hi);
    }
    r = std::move(next);
  }
  return r;
}

/// `v` reinterpreted as a vector of `bits`-bit integers (same total bits).
Value bitcastLanes(OpBuilder &b, Location loc, Value v, int64_t bits) {
  auto vt = cast<VectorType>(v.getType());
  int64_t total = vt.getNumElements() * elementBits(vt.getElementType());
  auto to = VectorType::get({total / bits}, b.getIntegerType(bits));
  if (to == vt)
    return v;
  return vector::BitCastOp::create(b, loc, to, v);
}

/// transposeRows for rows of 16-bit elements (w a power of two, w >= 4):
/// log2(w) rounds, round B swapping the off-diagonal B x B blocks of every
/// 2B x 2B block (row i, bit B clear, takes the low B-element unit of each
/// 2B chunk of rows i and i + B; row i + B the high units). The rounds act
/// on distinct bits of the row and column indices and so commute; none
/// moves a 16-bit lane on its own, which x86 can only do with vpermt2w (3
/// uops and an index register on Intel, slow on AMD): units of 16 and 32
/// bits move with a shift and a bitwise blend on 32- and 64-bit lanes
/// (vpslld/vpternlogd), units of 64 bits and up with 64-bit shuffles that
/// need no index vector (vpunpck[lh]qdq, vperm2i128/vshufi64x2).
SmallVector<Value> transposeRows16(OpBuilder &b, Location loc,
                                   ArrayRef<Value> rows) {
  int64_t w = rows.size();
  Type rowType = rows.front().getType();
  SmallVector<Value> r(rows.begin(), rows.end());
  for (int64_t unit = 1; unit < w; unit *= 2) {
    int64_t unitBits = unit * 16;
    for (int64_t i = 0; i < w; ++i) {
      if (i & unit)
        continue;
      Value lo, hi;
      if (unitBits <= 32) {
        int64_t laneBits = 2 * unitBits;
        Value x = bitcastLanes(b, loc, r[i], laneBits);
        Value y = bitcastLanes(b, loc, r[i + unit], laneBits);
        auto vt = cast<VectorType>(x.getType());
        auto splatInt = [&](const APInt &c) -> Value {
          return arith::ConstantOp::create(b, loc,
                                           DenseElementsAttr::get(vt, c));
        };
        APInt lowMask = APInt::getLowBitsSet(laneBits, unitBits);
        Value shift = splatInt(APInt(laneBits, unitBits));
        lo = arith::OrIOp::create(
            b, loc, arith::AndIOp::create(b, loc, x, splatInt(lowMask)),
            arith::ShLIOp::create(b, loc, y, shift));
        hi = arith::OrIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, x, shift),
            arith::AndIOp::create(b, loc, y, splatInt(~lowMask)));
      } else {
        Value x = bitcastLanes(b, loc, r[i], 64);
        Value y = bitcastLanes(b, loc, r[i + unit], 64);
        int64_t m = cast<VectorType>(x.getType()).getNumElements();
        int64_t u = unitBits / 64;
        SmallVector<int64_t> loMask, hiMask;
        for (int64_t c = 0; c < m; c += 2 * u) {
          for (int64_t j = 0; j < u; ++j)
            loMask.push_back(c + j);
          for (int64_t j = 0; j < u; ++j)
            loMask.push_back(m + c + j);
          for (int64_t j = 0; j < u; ++j)
            hiMask.push_back(c + u + j);
          for (int64_t j = 0; j < u; ++j)
            hiMask.push_back(m + c + u + j);
        }
        lo = vector::ShuffleOp::create(b, loc, x, y, loMask);
        hi = vector::ShuffleOp::create(b, loc, x, y, hiMask);
      }
      r[i] = lo;
      r[i + unit] = hi;
    }
  }
  for (Value &v : r)
    if (v.getType() != rowType)
      v = vector::BitCastOp::create(b, loc, rowType, v);
  return r;
}

/// Loads the w x wB tile of the source at `ivs` (the lanes `aIn` and `bIn`
/// unset) and returns its w rows along the destination's contiguous loop.
/// With wB = 2w (paired 16-bit rows) each vector holds rows k and k + w.
SmallVector<Value> transposeTile(OpBuilder &b, Location loc,
                                 const IterSpace &space, const CPUBuffer &src,
                                 const Access &sa, SmallVector<Value> &ivs,
                                 int aIn, int bIn, int64_t w, int64_t wB,
                                 Type dstElement) {
  SmallVector<Value> rows;
  for (int64_t jb = 0; jb < wB; ++jb) {
    ivs[aIn] = Value();
    ivs[bIn] = indexConstant(b, loc, jb);
    Value addr = emitAddress(b, loc, space, 0, sa, ivs);
    rows.push_back(
        castElements(b, loc, load(b, loc, src, addr, w), dstElement));
  }
  if (wB > w) {
    SmallVector<int64_t> both(wB);
    std::iota(both.begin(), both.end(), 0);
    for (int64_t k = 0; k < w; ++k)
      rows[k] = vector::ShuffleOp::create(b, loc, rows[k], rows[k + w], both);
    rows.resize(w);
  }
  return elementBits(dstElement) == 16 && w >= 4 ? transposeRows16(b, loc, rows)
                                                 : transposeRows(b, loc, rows);
}
} // namespace

Result<bool> emitCopy(OpBuilder &b, Location loc, const CPUBuffer &src,
                      const CPUBuffer &dst, const CPUCodegenOptions &opts) {
  if (auto ok = checkCopyShapes(src.ref.shape, dst.ref.shape); !ok)
    return ok.takeFailure();
  auto sa = makeAccess(src), da = makeAccess(dst);
  if (!sa)
    return sa.takeFailure();
  if (!da)
    return da.takeFailure();
  IterSpace space = copySpace(*sa, *da);
  CopyPlan plan = planCopy(space, *sa, *da, opts);
  SmallVector<Value> ivs;
  unsigned n = space.loops().size();

  if (plan.kind == CopyPlan::Vector) {
    space.split(plan.loopA, plan.lanes);
    moveToEnd(space, plan.loopA + 1);
    unsigned lane = n; // after the split there are n + 1 loops
    ivs.assign(n + 1, Value());
    emitNest(b, loc, space, allLoopsExcept(space, {lane}), ivs,
             [&](OpBuilder &nb) {
               ivs[lane] = Value();
               Value addr = emitAddress(nb, loc, space, 0, *sa, ivs);
               Value v;
               if (plan.srcBroadcast)
                 v = splat(nb, loc, load(nb, loc, src, addr, 1), plan.lanes);
               else
                 v = load(nb, loc, src, addr, plan.lanes);
               v = castElements(nb, loc, v, dst.ref.elementType);
               forEachAddress(
                   nb, loc, space, 1, *da, ivs,
                   [&](OpBuilder &sb, Value a) { store(sb, loc, dst, v, a); });
             });
    return true;
  }

  if (plan.kind == CopyPlan::Transpose) {
    // Each of the two loops becomes (block, tile in block, lane): lanes form
    // the w x w in-register transpose; tiles of a block run inside it so
    // that a block of rows of the source and of columns of the destination
    // stays in cache and in the TLB while it is read and written, instead
    // of one column of the destination being touched per row of the source.
    unsigned a = plan.loopA, bl = plan.loopB;
    int64_t w = plan.lanes, wB = plan.lanesB;
    enum Role { Other, ABlock, ATile, ALane, BBlock, BTile, BGroup, BLane };
    SmallVector<Role> roles(n, Other);
    auto splitInto = [&](unsigned index, Role block, Role tile, Role lane,
                         int64_t w, int64_t limit) {
      space.split(index, w);
      roles.insert(roles.begin() + index, block);
      roles[index + 1] = lane;
      // Blocks of up to `limit` elements, when the loop has room for at
      // least two of them. By default a block is a strip of 32 rows of the
      // source swept along whole rows: 32 sequential read streams, most
      // likely as many as the hardware prefetchers follow (strips of 64
      // rows or more, each row a page of its own, ran at half the rate),
      // writing whole lines of the destination (a group of tiles where a
      // vector is narrower than a line, below; docs/Benchmarks-CPU.md has
      // the measurements).
      int64_t tiles = space.loops()[index].extent;
      int64_t per = 1;
      while (per * 2 * w <= limit && tiles % (per * 2) == 0 &&
             tiles / (per * 2) >= 2)
        per *= 2;
      roles[index] = per > 1 ? block : tile;
      if (per > 1) {
        space.split(index, per);
        roles.insert(roles.begin() + index + 1, tile);
      }
    };
    int64_t blockA = opts.transposeBlock;
    int64_t blockB = opts.transposeBlockDst > 0 ? opts.transposeBlockDst
                                                : opts.transposeBlock;
    // The later loop first, so that the earlier index stays valid.
    if (a > bl) {
      splitInto(a, ABlock, ATile, ALane, w, blockA);
      splitInto(bl, BBlock, BTile, BLane, wB, blockB);
    } else {
      splitInto(bl, BBlock, BTile, BLane, wB, blockB);
      splitInto(a, ABlock, ATile, ALane, w, blockA);
    }
    // Streaming (non-temporal) stores for a destination too large to stay
    // in cache: each tile row is one wB-lane vector, written without
    // reading its line first. They need the vector's alignment, which the
    // memref does not promise: the base address is checked once, each
    // tile's addresses per tile (a predictable branch), and a tile that is
    // not aligned stores as usual.
    int64_t eb = elementBytes(dst.ref.elementType);
    int64_t vecBytes = wB * eb;
    int64_t dstBytes = eb;
    for (int64_t e : dst.ref.shape)
      dstBytes *= e;
    // Its stores are grouped per tile, out of any replica loop: a
    // destination with replicas stores as usual.
    bool streaming = opts.transposeStreamingBytes > 0 &&
                     dstBytes >= opts.transposeStreamingBytes &&
                     da->emitter.layout().tile().replicaCount() == 1 &&
                     llvm::isPowerOf2_64(vecBytes) &&
                     vectorMatchesScalarMemory(dst.ref.elementType);
    // A vector narrower than a cache line (256-bit vectors of f32) leaves
    // its line to a write-combining buffer until the other lanes of the
    // line arrive; with one tile's rows pending at a time the buffers are
    // flushed half full, and the memory reads the rest of every line (in
    // one measurement 2.0 GB/s, against 3.5 with ordinary stores and 11-12
    // with the grouping below). So the tiles that
    // complete a line form a group transposed in one body, and each line's
    // stores are issued back to back.
    int64_t group = 1;
    if (streaming && vecBytes < kCacheLineBytes &&
        kCacheLineBytes % vecBytes == 0) {
      int64_t want = kCacheLineBytes / vecBytes;
      unsigned t = llvm::find(roles, BTile) - roles.begin();
      if (space.loops()[t].extent % want == 0) {
        group = want;
        space.split(t, group);
        roles.insert(roles.begin() + t, BTile);
        roles[t + 1] = BGroup;
      }
    }
    unsigned total = space.loops().size();
    auto indexOf = [&](Role r) -> int {
      for (unsigned l = 0; l < total; ++l)
        if (roles[l] == r)
          return l;
      return -1;
    };
    // Other loops and blocks keep their order outside; then the tiles of a
    // block, the destination's contiguous one innermost so that consecutive
    // tiles complete its cache lines; the lanes are unrolled in the body.
    SmallVector<unsigned> order;
    for (unsigned l = 0; l < total; ++l)
      if (roles[l] == Other || roles[l] == ABlock || roles[l] == BBlock)
        order.push_back(l);
    // With paired 16-bit rows it is the other way round: a tile writes whole
    // lines of the destination but reads half lines of the source, and the
    // rows of a block of the source (a page apart when rows are 4 KiB or
    // more) share the few cache sets their page offset selects, so the
    // other half of each line must be read by the next tile, before the
    // line is evicted.
    if (wB > w) {
      order.push_back(indexOf(BTile));
      order.push_back(indexOf(ATile));
    } else {
      order.push_back(indexOf(ATile));
      order.push_back(indexOf(BTile));
    }
    int aIn = indexOf(ALane), bIn = indexOf(BLane), bGroup = indexOf(BGroup);
    // x86 has no non-temporal store pattern for vectors of f16 or bf16
    // (they lower to vmovaps): those tiles store as 16-bit integers through
    // a raw pointer (the memref's element type fixes vector.store's).
    bool storeAsInt =
        streaming && isa<FloatType>(dst.ref.elementType) && eb == 2;
    Value baseAligned, startBytes;
    if (streaming) {
      auto meta = memref::ExtractStridedMetadataOp::create(b, loc, dst.memory);
      Value ptr =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, dst.memory);
      Value start = arith::AddIOp::create(
          b, loc, ptr,
          arith::MulIOp::create(b, loc, meta.getOffset(),
                                indexConstant(b, loc, eb)));
      Value low = arith::AndIOp::create(b, loc, start,
                                        indexConstant(b, loc, vecBytes - 1));
      baseAligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low,
                                          indexConstant(b, loc, 0));
      startBytes = start;
    }
    ivs.assign(total, Value());
    emitNest(b, loc, space, order, ivs, [&](OpBuilder &nb) {
      auto selectTile = [&](int64_t g) {
        if (bGroup >= 0)
          ivs[bGroup] = indexConstant(nb, loc, g);
      };
      // cols[g][ia]: row ia of tile g of the group, transposed.
      SmallVector<SmallVector<Value>> cols;
      for (int64_t g = 0; g < group; ++g) {
        selectTile(g);
        cols.push_back(transposeTile(nb, loc, space, src, *sa, ivs, aIn, bIn, w,
                                     wB, dst.ref.elementType));
      }
      // A replicated destination stores each value once per replica, in
      // loops when there are many; the store belongs inside them.
      SmallVector<std::pair<Value, Value>> stores; // (value, address)
      for (int64_t ia = 0; ia < w; ++ia)
        for (int64_t g = 0; g < group; ++g) {
          selectTile(g);
          ivs[bIn] = Value();
          ivs[aIn] = indexConstant(nb, loc, ia);
          forEachAddress(nb, loc, space, 1, *da, ivs,
                         [&](OpBuilder &sb, Value addr) {
                           if (streaming)
                             stores.push_back({cols[g][ia], addr});
                           else
                             store(sb, loc, dst, cols[g][ia], addr);
                         });
        }
      if (!streaming)
        return;
      Value any = stores.front().second;
      for (auto &st : ArrayRef(stores).drop_front())
        any = arith::OrIOp::create(nb, loc, any, st.second);
      Value low =
          arith::AndIOp::create(nb, loc, any, indexConstant(nb, loc, wB - 1));
      Value aligned = arith::AndIOp::create(
          nb, loc, baseAligned,
          arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::eq, low,
                                indexConstant(nb, loc, 0)));
      auto ifOp = scf::IfOp::create(nb, loc, aligned, /*withElse=*/true);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      for (auto &[v, addr] : stores) {
        if (!storeAsInt) {
          vector::StoreOp::create(tb, loc, v, dst.memory, ValueRange{addr},
                                  /*nontemporal=*/true, llvm::Align(vecBytes));
          continue;
        }
        Value bytes = arith::AddIOp::create(
            tb, loc, startBytes,
            arith::MulIOp::create(tb, loc, addr, indexConstant(tb, loc, eb)));
        Value p = LLVM::IntToPtrOp::create(
            tb, loc, LLVM::LLVMPointerType::get(tb.getContext()),
            arith::IndexCastOp::create(tb, loc, tb.getI64Type(), bytes)
                .getResult());
        LLVM::StoreOp::create(tb, loc, bitcastLanes(tb, loc, v, 16), p,
                              vecBytes, /*isVolatile=*/false,
                              /*isNonTemporal=*/true);
      }
      OpBuilder eb2 = ifOp.getElseBodyBuilder();
      for (auto &[v, addr] : stores)
        store(eb2, loc, dst, v, addr);
    });
    // Streaming stores are weakly ordered: a full fence makes them visible
    // before anything the copy's callers do next (a barrier, a return).
    if (streaming)
      LLVM::FenceOp::create(b, loc, LLVM::AtomicOrdering::seq_cst);
    return true;
  }

  ivs.assign(n, Value());
  emitNest(b, loc, space, allLoopsExcept(space, {}), ivs, [&](OpBuilder &nb) {
    Value addr = emitAddress(nb, loc, space, 0, *sa, ivs);
    Value v =
        castElements(nb, loc, load(nb, loc, src, addr, 1), dst.ref.elementType);
    forEachAddress(nb, loc, space, 1, *da, ivs,
                   [&](OpBuilder &sb, Value a) { store(sb, loc, dst, v, a); });
  });
  return true;
}

//===----------------------------------------------------------------------===//
// Fill
//===----------------------------------------------------------------------===//

Result<bool> emitFill(OpBuilder &b, Location loc, const CPUBuffer &dst,
                      Value value, const CPUCodegenOptions &opts) {
  auto da = makeAccess(dst);
  if (!da)
    return da.takeFailure();
  value = castElements(b, loc, value, dst.ref.elementType);
  IterSpace space = IterSpace::build(
      dst.ref.shape, {{&da->emitter, iota(dst.ref.shape.size())}});
  unsigned n = space.loops().size();
  int64_t lanes = 1;
  int vloop = -1;
  for (int64_t w = lanesFor(dst.ref.elementType, opts.vectorLanes32);
       w >= 2 && vloop < 0; w /= 2)
    for (int v = int(n) - 1; v >= 0; --v)
      if (contiguousAlong(space, v, 0, *da, w, /*replicas=*/true)) {
        vloop = v;
        lanes = w;
        break;
      }
  SmallVector<Value> ivs;
  SmallVector<unsigned> skip;
  if (vloop >= 0) {
    space.split(vloop, lanes);
    moveToEnd(space, vloop + 1);
    skip.push_back(n);
    ++n;
  }
  ivs.assign(n, Value());
  Value v = splat(b, loc, value, lanes);
  emitNest(b, loc, space, allLoopsExcept(space, skip), ivs, [&](OpBuilder &nb) {
    forEachAddress(nb, loc, space, 0, *da, ivs,
                   [&](OpBuilder &sb, Value a) { store(sb, loc, dst, v, a); });
  });
  return true;
}

//===----------------------------------------------------------------------===//
// Gemm
//===----------------------------------------------------------------------===//

Result<GemmProblem> gemmShape(const CPUBuffer &a, bool transA,
                              const CPUBuffer &bb, bool transB,
                              const CPUBuffer &c) {
  return gemmProblem(a.ref.shape, transA, bb.ref.shape, transB, c.ref.shape);
}

Result<bool> emitGemmNaive(OpBuilder &b, Location loc, const CPUBuffer &a,
                           bool transA, const CPUBuffer &bb, bool transB,
                           const CPUBuffer &c, bool accumulate) {
  auto shape = gemmShape(a, transA, bb, transB, c);
  if (!shape)
    return shape.takeFailure();
  auto aa = makeAccess(a), ba = makeAccess(bb), ca = makeAccess(c);
  if (!aa || !ba || !ca)
    return fail(!aa ? aa.message() : !ba ? ba.message() : ca.message());
  // Space dims are the problem's (GemmDim: M, N, K); each operand dim runs
  // along the one gemmOperandDims gives it.
  auto spaceDims = [&](GemmOperand operand) {
    SmallVector<unsigned, 4> dims;
    for (GemmDim d : shape->dimsOf(operand))
      dims.push_back(unsigned(d));
    return dims;
  };
  SpaceOperand opA{&aa->emitter, spaceDims(GemmOperand::A)};
  SpaceOperand opB{&ba->emitter, spaceDims(GemmOperand::B)};
  SpaceOperand opC{&ca->emitter, spaceDims(GemmOperand::C)};
  IterSpace space =
      IterSpace::build({shape->m, shape->n, shape->k}, {opA, opB, opC});
  SmallVector<unsigned> outer, inner;
  for (unsigned l = 0; l < space.loops().size(); ++l)
    (space.loops()[l].dim == unsigned(GemmDim::K) ? inner : outer).push_back(l);
  SmallVector<Value> ivs(space.loops().size());
  Type acc = c.ref.elementType;
  emitNest(b, loc, space, outer, ivs, [&](OpBuilder &nb) {
    for (unsigned l : inner)
      ivs[l] = Value();
    Value init = accumulate ? load(nb, loc, c,
                                   emitAddress(nb, loc, space, 2, *ca, ivs), 1)
                            : reductionIdentity(nb, loc, Combiner::Sum, acc);
    Value sum = emitCarryNest(
        nb, loc, space, inner, ivs, init, [&](OpBuilder &ib, Value s) {
          Value x = castElements(
              ib, loc,
              load(ib, loc, a, emitAddress(ib, loc, space, 0, *aa, ivs), 1),
              acc);
          Value y = castElements(
              ib, loc,
              load(ib, loc, bb, emitAddress(ib, loc, space, 1, *ba, ivs), 1),
              acc);
          Value p = isa<FloatType>(acc)
                        ? Value(arith::MulFOp::create(ib, loc, x, y))
                        : Value(arith::MulIOp::create(ib, loc, x, y));
          return combine(ib, loc, Combiner::Sum, s, p);
        });
    for (unsigned l : inner)
      ivs[l] = Value();
    forEachAddress(nb, loc, space, 2, *ca, ivs, [&](OpBuilder &sb, Value addr) {
      store(sb, loc, c, sum, addr);
    });
  });
  return true;
}

//===----------------------------------------------------------------------===//
// Reduce
//===----------------------------------------------------------------------===//

Result<bool> emitReduce(OpBuilder &b, Location loc, const CPUBuffer &src,
                        const CPUBuffer &dst, ArrayRef<int64_t> dims,
                        Combiner kind, bool accumulate,
                        const CPUCodegenOptions &opts) {
  unsigned rank = src.ref.shape.size();
  Result<ReduceMapping> mapping =
      reduceMapping(src.ref.shape, dims, dst.ref.shape);
  if (!mapping)
    return mapping.takeFailure();
  ArrayRef<bool> reduced = mapping->reduced;

  auto sa = makeAccess(src), da = makeAccess(dst);
  if (!sa)
    return sa.takeFailure();
  if (!da)
    return da.takeFailure();
  IterSpace space =
      IterSpace::build(src.ref.shape, {{&sa->emitter, iota(rank)},
                                       {&da->emitter, mapping->targetDims}});
  // Kept loops outside, reduced loops inside.
  auto loops = space.loops();
  std::stable_partition(loops.begin(), loops.end(),
                        [&](const SpaceLoop &l) { return !reduced[l.dim]; });
  unsigned n = loops.size();
  unsigned firstReduced = 0;
  while (firstReduced < n && !reduced[loops[firstReduced].dim])
    ++firstReduced;

  Type acc = dst.ref.elementType;
  int64_t maxLanes =
      std::min(lanesFor(src.ref.elementType, opts.vectorLanes32),
               lanesFor(dst.ref.elementType, opts.vectorLanes32));
  enum { Scalar, KeptVector, ReducedVector } mode = Scalar;
  int vloop = -1;
  int64_t lanes = 1;
  for (int64_t w = maxLanes; w >= 2 && mode == Scalar; w /= 2) {
    for (int v = int(firstReduced) - 1; v >= 0; --v)
      if (contiguousAlong(space, v, 0, *sa, w, false) &&
          contiguousAlong(space, v, 1, *da, w, true)) {
        mode = KeptVector, vloop = v, lanes = w;
        break;
      }
    if (mode != Scalar)
      break;
    for (int v = int(n) - 1; v >= int(firstReduced); --v)
      if (contiguousAlong(space, v, 0, *sa, w, false)) {
        mode = ReducedVector, vloop = v, lanes = w;
        break;
      }
  }
  // The lane loop is the inner half of the split; it is not emitted.
  unsigned lane = ~0u;
  if (mode != Scalar) {
    space.split(vloop, lanes);
    lane = vloop + 1;
    ++n;
  }
  SmallVector<unsigned> outer, inner;
  for (unsigned l = 0; l < n; ++l) {
    if (l == lane)
      continue;
    (reduced[space.loops()[l].dim] ? inner : outer).push_back(l);
  }
  SmallVector<Value> ivs(n);
  emitNest(b, loc, space, outer, ivs, [&](OpBuilder &nb) {
    for (unsigned l : inner)
      ivs[l] = Value();
    if (lane != ~0u)
      ivs[lane] = Value();
    int64_t accLanes = mode == Scalar ? 1 : lanes;
    Value init;
    if (mode == ReducedVector || !accumulate)
      init = splat(nb, loc, reductionIdentity(nb, loc, kind, acc), accLanes);
    else
      init = load(nb, loc, dst, emitAddress(nb, loc, space, 1, *da, ivs),
                  accLanes);
    Value result = emitCarryNest(
        nb, loc, space, inner, ivs, init, [&](OpBuilder &ib, Value s) {
          Value x = load(ib, loc, src, emitAddress(ib, loc, space, 0, *sa, ivs),
                         accLanes);
          return combine(ib, loc, kind, s, castElements(ib, loc, x, acc));
        });
    for (unsigned l : inner)
      ivs[l] = Value();
    if (lane != ~0u)
      ivs[lane] = Value();
    if (mode == ReducedVector) {
      result = vector::ReductionOp::create(nb, loc, combiningKind(kind, acc),
                                           result);
      if (accumulate)
        result = combine(
            nb, loc, kind,
            load(nb, loc, dst, emitAddress(nb, loc, space, 1, *da, ivs), 1),
            result);
    }
    forEachAddress(nb, loc, space, 1, *da, ivs, [&](OpBuilder &sb, Value addr) {
      store(sb, loc, dst, result, addr);
    });
  });
  return true;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static bool isVectorizableBody(Region &body) {
  for (Operation &op : body.front().without_terminator()) {
    if (op.getNumRegions() != 0)
      return false;
    if (isa<arith::ConstantOp>(op))
      continue;
    if (!op.hasTrait<OpTrait::Elementwise>())
      return false;
    for (Type t : op.getResultTypes())
      if (!t.isIntOrIndexOrFloat())
        return false;
  }
  return true;
}

Result<bool> emitElementwise(OpBuilder &b, Location loc,
                             ArrayRef<CPUBuffer> inputs,
                             ArrayRef<CPUBuffer> outputs, Region &body,
                             const CPUCodegenOptions &opts) {
  if (body.empty() || body.front().getNumArguments() != inputs.size())
    return fail("elementwise body needs one argument per input");
  Operation *term = body.front().getTerminator();
  if (!term || term->getNumOperands() != outputs.size())
    return fail("elementwise body must yield one value per output");
  auto shapesOf = [](ArrayRef<CPUBuffer> buffers) {
    SmallVector<ArrayRef<int64_t>> shapes;
    for (const CPUBuffer &buf : buffers)
      shapes.push_back(buf.ref.shape);
    return shapes;
  };
  Result<Shape> fits = elementwiseShape(shapesOf(inputs), shapesOf(outputs));
  if (!fits)
    return fail("elementwise " + fits.message());
  const Shape &shape = *fits;
  std::vector<Access> accs;
  // Inputs may broadcast along dims of extent 1 (a row maximum against its
  // rows): the space gives such a dim no movement for that operand.
  for (const CPUBuffer &buf : llvm::concat<const CPUBuffer>(inputs, outputs)) {
    auto a = makeAccess(buf);
    if (!a)
      return a.takeFailure();
    accs.push_back(*a);
  }
  SmallVector<SpaceOperand> ops;
  for (Access &a : accs)
    ops.push_back({&a.emitter, iota(shape.size())});
  IterSpace space = IterSpace::build(shape, ops);
  unsigned numIn = inputs.size();
  unsigned n = space.loops().size();

  int vloop = -1;
  int64_t lanes = 1;
  SmallVector<bool> broadcastIn(numIn, false);
  if (isVectorizableBody(body)) {
    int64_t maxLanes = opts.vectorLanes32 * 4;
    for (Access &a : accs)
      maxLanes = std::min(
          maxLanes, lanesFor(a.buffer->ref.elementType, opts.vectorLanes32));
    for (int64_t w = maxLanes; w >= 2 && vloop < 0; w /= 2)
      for (int v = int(n) - 1; v >= 0 && vloop < 0; --v) {
        bool ok = true;
        for (unsigned k = numIn; k < accs.size() && ok; ++k)
          ok = contiguousAlong(space, v, k, accs[k], w, true);
        for (unsigned k = 0; k < numIn && ok; ++k) {
          bool contig = contiguousAlong(space, v, k, accs[k], w, false);
          broadcastIn[k] = !contig && constantAlong(space, v, k);
          ok = contig || broadcastIn[k];
        }
        if (ok)
          vloop = v, lanes = w;
      }
  }
  SmallVector<unsigned> skip;
  if (vloop >= 0) {
    space.split(vloop, lanes);
    moveToEnd(space, vloop + 1);
    skip.push_back(n);
    ++n;
  }
  SmallVector<Value> ivs(n);
  Block &blk = body.front();
  emitNest(b, loc, space, allLoopsExcept(space, skip), ivs, [&](OpBuilder &nb) {
    if (vloop >= 0)
      ivs[n - 1] = Value();
    IRMapping map;
    for (unsigned k = 0; k < numIn; ++k) {
      Value addr = emitAddress(nb, loc, space, k, accs[k], ivs);
      Type argType = blk.getArgument(k).getType();
      Value v;
      if (vloop >= 0 && !broadcastIn[k])
        v = load(nb, loc, inputs[k], addr, lanes);
      else
        v = splat(nb, loc, load(nb, loc, inputs[k], addr, 1),
                  vloop >= 0 ? lanes : 1);
      map.map(blk.getArgument(k), castElements(nb, loc, v, argType));
    }
    for (Operation &op : blk.without_terminator()) {
      if (vloop < 0) {
        nb.clone(op, map);
        continue;
      }
      // Operands from outside the body are scalars: broadcast them.
      for (Value operand : op.getOperands())
        if (!map.contains(operand))
          map.map(operand, splat(nb, loc, operand, lanes));
      if (isa<arith::ConstantOp>(op)) {
        Operation *clone = nb.clone(op);
        map.map(op.getResult(0), splat(nb, loc, clone->getResult(0), lanes));
        continue;
      }
      Operation *clone = nb.clone(op, map);
      for (OpResult r : clone->getResults())
        r.setType(VectorType::get({lanes}, r.getType()));
    }
    for (unsigned o = 0; o < outputs.size(); ++o) {
      Value result = map.lookupOrDefault(term->getOperand(o));
      if (vloop >= 0 && !isa<VectorType>(result.getType()))
        result = splat(nb, loc, result, lanes);
      result = castElements(nb, loc, result, outputs[o].ref.elementType);
      forEachAddress(nb, loc, space, numIn + o, accs[numIn + o], ivs,
                     [&](OpBuilder &sb, Value addr) {
                       store(sb, loc, outputs[o], result, addr);
                     });
    }
  });
  return true;
}

} // namespace axe
