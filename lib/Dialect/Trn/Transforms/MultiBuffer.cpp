//===- MultiBuffer.cpp - Rotating loop tiles through several buffers ------===//
//
// trn-multi-buffer: a tile refilled at the top of every iteration of a
// loop gets `buffers` slots, iteration i using slot i mod buffers, so the
// writes of iteration i + 1 do not wait for the reads of iteration i. The
// simulator (and the hardware's semaphores) see disjoint regions and
// overlap them.
//
//===----------------------------------------------------------------------===//

#include "axe/Target/Trn/Machine.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/SetVector.h"

namespace axe::trn {
#define GEN_PASS_DEF_TRNMULTIBUFFER
#include "axe/Dialect/Trn/Transforms/Passes.h.inc"
} // namespace axe::trn

using namespace mlir;
using namespace axe;
using namespace axe::trn;
namespace machine = axe::trn::machine;

namespace {

/// The innermost scf.for that contains every op in `users`.
scf::ForOp commonLoop(ArrayRef<Operation *> users) {
  for (auto loop = users.front()->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>())
    if (llvm::all_of(users,
                     [&](Operation *u) { return loop->isProperAncestor(u); }))
      return loop;
  return {};
}

/// Whether `op` only writes `view` (it reads no operand that is a view of
/// the same tile, and a matmul overwrites rather than accumulates).
bool onlyWrites(Operation *op, Value view, ArrayRef<Value> views) {
  // A matmul reads its destination to accumulate, except when it starts.
  Value overwritten;
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    if (!mm.getStart())
      return false;
    overwritten = mm.getDst();
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  bool writes = false;
  for (const auto &e : list) {
    Value v = e.getValue();
    if (!v || !llvm::is_contained(views, v))
      continue;
    if (isa<MemoryEffects::Read>(e.getEffect()) && v != overwritten)
      return false;
    writes |= v == view && isa<MemoryEffects::Write>(e.getEffect());
  }
  return writes;
}

struct TrnMultiBufferPass
    : public axe::trn::impl::TrnMultiBufferBase<TrnMultiBufferPass> {
  using TrnMultiBufferBase::TrnMultiBufferBase;

  void runOnOperation() override {
    // A kernel may ask for deeper rotation than the pipeline's default
    // (a module attribute survives convert-axe-to-trn; an option would
    // need every command line to repeat it).
    if (auto module = getOperation()->getParentOfType<ModuleOp>())
      if (auto depth = module->getAttrOfType<IntegerAttr>("trn.buffers"))
        buffers = depth.getInt();
    if (buffers < 2)
      return;
    SmallVector<AllocOp> allocs;
    getOperation().walk([&](AllocOp a) { allocs.push_back(a); });
    for (AllocOp alloc : allocs) {
      // A tile allocated in a loop body is fresh every iteration: out of
      // the loop it can take a slot per iteration instead.
      Operation *home = alloc->getParentOp();
      Operation *next = alloc->getNextNode();
      auto loop = dyn_cast<scf::ForOp>(home);
      if (loop)
        alloc->moveBefore(loop);
      if (rotate(alloc))
        ++numRotated;
      else if (loop)
        alloc->moveBefore(next);
    }
  }

  bool rotate(AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (type.getRank() != 2 || alloc->hasAttr("trn_sim.buffers"))
      return false;
    std::optional<MemorySpace> space = getMemorySpace(type);
    int64_t capacity = space == MemorySpace::PSUM
                           ? machine::kPsumBytesPerPartition
                           : machine::kSbufBytesPerPartition;
    int64_t bytes = getBytesPerPartition(type);
    if (bytes * buffers * 4 > capacity)
      return false;
    // PSUM is handed out in whole 2 KiB banks: small tiles (transposes'
    // destinations) take as many slots as share one bank, up to 8.
    int64_t slots = buffers;
    if (space == MemorySpace::PSUM && bytes > 0 &&
        bytes * buffers <= machine::kPsumBankBytes)
      slots = std::max<int64_t>(
          buffers, std::min<int64_t>(8, machine::kPsumBankBytes / bytes));
    SmallVector<memref::ReinterpretCastOp> casts;
    SmallVector<Value> views = {alloc.getResult()};
    SmallVector<Operation *> users;
    llvm::SetVector<Operation *> direct;
    for (Operation *user : alloc->getUsers()) {
      auto cast = dyn_cast<memref::ReinterpretCastOp>(user);
      if (!cast) {
        // An instruction on the whole tile (a temporary of axe-to-trn).
        if (!isa<TrnDialect>(user->getDialect()))
          return false;
        users.push_back(user);
        direct.insert(user);
        continue;
      }
      casts.push_back(cast);
      views.push_back(cast.getResult());
      for (Operation *u : cast->getUsers())
        users.push_back(u);
    }
    if (users.empty())
      return false;
    scf::ForOp loop = commonLoop(users);
    if (!loop || loop->isAncestor(alloc))
      return false;
    // The first op of an iteration that touches the tile writes all of it.
    Operation *first = nullptr;
    loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (first || !llvm::is_contained(users, op))
        return;
      first = op;
    });
    if (!first || first->getBlock() != loop.getBody())
      return false;
    auto view = llvm::find_if(views, [&](Value v) {
      return llvm::is_contained(first->getOperands(), v);
    });
    if (cast<MemRefType>(view->getType()).getNumElements() !=
            type.getNumElements() ||
        !onlyWrites(first, *view, views))
      return false;

    // Direct uses become views of the whole tile, which move like the rest.
    for (Operation *user : direct) {
      OpBuilder vb(user);
      auto whole = memref::ReinterpretCastOp::create(
          vb, user->getLoc(),
          MemRefType::get(type.getShape(), type.getElementType(),
                          StridedLayoutAttr::get(user->getContext(), 0,
                                                 {type.getDimSize(1), 1}),
                          type.getMemorySpace()),
          alloc.getResult(), int64_t(0), type.getShape(),
          ArrayRef<int64_t>{type.getDimSize(1), 1});
      user->replaceUsesOfWith(alloc.getResult(), whole.getResult());
      casts.push_back(whole);
    }

    // Widen the tile and move every view to its iteration's slot.
    int64_t free = type.getDimSize(1);
    OpBuilder b(alloc);
    auto wide = MemRefType::get({type.getDimSize(0), free * slots},
                                type.getElementType(), AffineMap(),
                                type.getMemorySpace());
    alloc.getResult().setType(wide);
    b.setInsertionPointToStart(loop.getBody());
    Location loc = loop.getLoc();
    Value step = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, loop.getInductionVar(),
                              loop.getLowerBound()),
        loop.getStep());
    Value slot = arith::RemUIOp::create(
        b, loc, step, arith::ConstantIndexOp::create(b, loc, slots));
    Value shift = arith::MulIOp::create(
        b, loc, slot, arith::ConstantIndexOp::create(b, loc, free));
    // A partition is now `slots` times longer: partition strides and the
    // partition part of each offset scale with it.
    int64_t pitch = free * slots;
    for (memref::ReinterpretCastOp rc : casts) {
      b.setInsertionPoint(rc);
      Location at = rc.getLoc();
      Value offset =
          getValueOrCreateConstantIndexOp(b, at, rc.getMixedOffsets().front());
      Value freeSize = arith::ConstantIndexOp::create(b, at, free);
      Value partition = arith::DivUIOp::create(b, at, offset, freeSize);
      Value within = arith::RemUIOp::create(b, at, offset, freeSize);
      Value moved = arith::AddIOp::create(
          b, at,
          arith::MulIOp::create(b, at, partition,
                                arith::ConstantIndexOp::create(b, at, pitch)),
          arith::AddIOp::create(b, at, within, shift));
      // Dim 0 of a view is its partitions (the only dim that moves by
      // whole partitions).
      SmallVector<int64_t> strides(
          cast<StridedLayoutAttr>(rc.getType().getLayout()).getStrides());
      strides.front() = strides.front() / free * pitch;
      MemRefType result = rc.getType();
      auto dynamic = MemRefType::get(
          result.getShape(), result.getElementType(),
          StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides),
          result.getMemorySpace());
      auto slotView = memref::ReinterpretCastOp::create(
          b, at, dynamic, rc.getSource(), OpFoldResult(moved),
          rc.getMixedSizes(), getAsIndexOpFoldResult(b.getContext(), strides));
      rc.getResult().replaceAllUsesWith(slotView.getResult());
      rc.erase();
    }
    return true;
  }
};

} // namespace
