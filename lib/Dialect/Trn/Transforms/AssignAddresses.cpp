//===- AssignAddresses.cpp - Placing SBUF and PSUM tiles -----------------===//
//
// trn-assign-addresses: live ranges over the function's ops in program
// order (a use inside a loop or branch keeps the tile live to the end of
// that op, since a later iteration may come back to it), then first-fit
// placement per memory in the order tiles are allocated. Tiles whose live
// ranges do not overlap may share bytes, which is the reuse an NKI
// programmer gets by hand from `allocator.allocate` and the NKI compiler
// from its allocator.
//
//===----------------------------------------------------------------------===//

#include "axe/Target/Trn/Machine.h"
#include "axe/Dialect/Trn/IR/TrnOps.h"
#include "axe/Dialect/Trn/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace axe::trn {
#define GEN_PASS_DEF_TRNASSIGNADDRESSES
#include "axe/Dialect/Trn/Transforms/Passes.h.inc"
} // namespace axe::trn

using namespace mlir;
using namespace axe;
using namespace axe::trn;
namespace machine = axe::trn::machine;

namespace {

/// Pre-order numbers of the ops of a function: an op's subtree is the span
/// [first, last].
class ProgramOrder {
public:
  explicit ProgramOrder(Operation *root) {
    int64_t next = 0;
    number(root, next);
  }
  int64_t first(Operation *op) const { return spans.lookup(op).first; }
  int64_t last(Operation *op) const { return spans.lookup(op).second; }

private:
  void number(Operation *op, int64_t &next) {
    int64_t first = next++;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          number(&nested, next);
    spans[op] = {first, next - 1};
  }

  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> spans;
};

struct Tile {
  AllocOp alloc;
  int64_t bytes;
  int64_t start, end;
  int64_t offset = -1;
};

/// Whether `user` passes the tile on as another memref of the same memory.
bool isView(Operation *user) {
  return isa<ViewLikeOpInterface, CastOpInterface>(user);
}

/// Whether the tile may be used anywhere after `user`: it leaves its region
/// (a terminator yields it) or goes to a call.
bool escapes(Operation *user) {
  return user->hasTrait<OpTrait::IsTerminator>() || isa<CallOpInterface>(user);
}

/// The last program position at which the tile `alloc` made may be used.
int64_t liveEnd(AllocOp alloc, const ProgramOrder &order) {
  Block *home = alloc->getBlock();
  int64_t regionEnd = order.last(&home->back());
  int64_t end = order.first(alloc);
  SmallVector<Value> values{alloc.getResult()};
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (Operation *user : value.getUsers()) {
      Operation *ancestor = home->findAncestorOpInBlock(*user);
      if (!ancestor || escapes(user)) {
        end = std::max(end, regionEnd);
        continue;
      }
      end = std::max(end, order.last(ancestor));
      if (isView(user))
        for (Value result : user->getResults())
          if (isa<MemRefType>(result.getType()))
            values.push_back(result);
    }
  }
  return end;
}

/// First-fit placement of `tiles` (in allocation order) in `capacity` bytes
/// per partition.
class Placer {
public:
  Placer(StringRef memory, int64_t capacity, int64_t alignment)
      : memory(memory), capacity(capacity), alignment(alignment) {}

  LogicalResult place(Tile &tile) {
    llvm::erase_if(live, [&](Tile *t) { return t->end < tile.start; });
    llvm::sort(live, [](Tile *a, Tile *b) { return a->offset < b->offset; });
    int64_t offset = 0;
    for (Tile *t : live) {
      if (offset + tile.bytes <= t->offset)
        break;
      offset = std::max(offset, alignUp(t->offset + t->bytes));
    }
    if (offset + tile.bytes > capacity)
      return reportFull(tile);
    tile.offset = offset;
    reused = offset < highWater;
    highWater = std::max(highWater, offset + tile.bytes);
    live.push_back(&tile);
    return success();
  }

  /// Whether the last tile placed went over bytes an earlier tile used.
  bool lastReused() const { return reused; }
  /// The most bytes per partition in use at once.
  int64_t footprint() const { return highWater; }

private:
  int64_t alignUp(int64_t bytes) const {
    return int64_t(llvm::alignTo(uint64_t(bytes), uint64_t(alignment)));
  }

  LogicalResult reportFull(Tile &tile) {
    int64_t taken = 0;
    for (Tile *t : live)
      taken += t->bytes;
    InFlightDiagnostic diag =
        tile.alloc.emitOpError()
        << "needs " << tile.bytes << " bytes per partition of " << memory
        << ", but the " << live.size() << " tiles live here take " << taken
        << " of its " << capacity
        << " bytes per partition and leave no free run that long";
    for (Tile *t : live)
      diag.attachNote(t->alloc.getLoc())
          << "live here: " << t->bytes << " bytes per partition at offset "
          << t->offset;
    return failure();
  }

  StringRef memory;
  int64_t capacity, alignment;
  SmallVector<Tile *> live;
  int64_t highWater = 0;
  bool reused = false;
};

struct TrnAssignAddressesPass
    : trn::impl::TrnAssignAddressesBase<TrnAssignAddressesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    int64_t alignment = sbufAlignment;
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment)) {
      func.emitError() << "trn-assign-addresses: sbuf-alignment must be a "
                          "power of two, got "
                       << alignment;
      return signalPassFailure();
    }
    ProgramOrder order(func);
    SmallVector<Tile> sbuf, psum;
    func.walk<WalkOrder::PreOrder>([&](AllocOp alloc) {
      MemRefType type = alloc.getType();
      int64_t bytes = getBytesPerPartition(type);
      bool inPsum = getMemorySpace(type) == MemorySpace::PSUM;
      if (inPsum)
        bytes = int64_t(
            llvm::alignTo(uint64_t(bytes), uint64_t(machine::kPsumBankBytes)));
      Tile tile{alloc, bytes, order.first(alloc), liveEnd(alloc, order)};
      (inPsum ? psum : sbuf).push_back(tile);
    });
    Placer sbufPlacer("SBUF", machine::kSbufBytesPerPartition, alignment);
    Placer psumPlacer("PSUM", machine::kPsumBytesPerPartition,
                      machine::kPsumBankBytes);
    if (failed(placeAll(sbuf, sbufPlacer)) ||
        failed(placeAll(psum, psumPlacer)))
      return signalPassFailure();
    Builder b(func.getContext());
    func->setAttr("trn.sbuf_bytes",
                  b.getI64IntegerAttr(sbufPlacer.footprint()));
    func->setAttr("trn.psum_bytes",
                  b.getI64IntegerAttr(psumPlacer.footprint()));
  }

  LogicalResult placeAll(MutableArrayRef<Tile> tiles, Placer &placer) {
    Builder b(&getContext());
    for (Tile &tile : tiles) {
      if (failed(placer.place(tile)))
        return failure();
      tile.alloc->setAttr("trn.offset", b.getI64IntegerAttr(tile.offset));
      ++numPlaced;
      if (placer.lastReused())
        ++numReused;
    }
    return success();
  }
};

} // namespace
