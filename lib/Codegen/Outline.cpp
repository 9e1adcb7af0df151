//===- Outline.cpp - Schedule output shared through functions -------------===//

#include "axe/Codegen/Outline.h"

#include "axe/Dialect/Axe/IR/AxeDialect.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace axe {

namespace {

bool isAxeType(Type t) { return isa<AxeDialect>(t.getDialect()); }

/// Whether `op` is of the axe dialect or carries an axe value: what a
/// function outside the kernel cannot hold, since only the kernel's
/// lowering knows where axe buffers live and what axis ids are.
bool refersToAxe(Operation *op) {
  if (isa<AxeDialect>(op->getDialect()))
    return true;
  return llvm::any_of(op->getOperandTypes(), isAxeType) ||
         llvm::any_of(op->getResultTypes(), isAxeType);
}

bool definedOutside(Value v, Region &region) {
  return !region.isAncestor(v.getParentRegion());
}

/// Moves in front of `region` the pure ops inside it that refer to axe
/// values but only to values from outside (the casts that find a buffer's
/// memory, views and axis ids re-evaluated per instance but the same for
/// all), so the code left inside sees plain memrefs and indices.
void hoistAxeValues(scf::ExecuteRegionOp region, RewriterBase &rw) {
  Region &body = region.getRegion();
  SmallVector<Operation *> candidates;
  body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getNumRegions() == 0 && refersToAxe(op) && isPure(op) &&
        !op->hasTrait<OpTrait::IsTerminator>())
      candidates.push_back(op);
  });
  // In walk order, so an op whose operands were hoisted just before it
  // follows them out.
  for (Operation *op : candidates)
    if (llvm::all_of(op->getOperands(),
                     [&](Value v) { return definedOutside(v, body); }))
      rw.moveOpBefore(op, region);
}

/// Whether the code left in `region` can move into a function: it refers
/// to no axe value, and what the operator's users read comes from outside
/// (the function returns nothing), like an async copy's placeholder token.
bool canOutline(scf::ExecuteRegionOp region) {
  Region &body = region.getRegion();
  Operation *yield = body.front().getTerminator();
  if (!llvm::all_of(yield->getOperands(),
                    [&](Value v) { return definedOutside(v, body); }))
    return false;
  WalkResult walk = body.walk([&](Operation *op) {
    return op != yield && refersToAxe(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

std::string printedForm(func::FuncOp fn) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // Local scope: printing does not number the rest of the module; no large
  // attribute is elided, since two functions differing there differ.
  fn->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  return text;
}

std::string functionPrefix(llvm::StringRef scheduleName) {
  std::string name = "__axe_";
  for (char c : scheduleName)
    name += llvm::isAlnum(c) ? c : '_';
  return name;
}

} // namespace

scf::ExecuteRegionOp OperatorOutliner::wrap(Operation *op,
                                            RewriterBase &rewriter) {
  if (!op->getParentWithTrait<OpTrait::SymbolTable>())
    return {};
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  auto region = scf::ExecuteRegionOp::create(rewriter, op->getLoc(),
                                             op->getResultTypes());
  rewriter.createBlock(&region.getRegion());
  auto yield = scf::YieldOp::create(rewriter, op->getLoc(), op->getResults());
  rewriter.moveOpBefore(op, yield);
  // The op's users now read the region's results, which the schedule's
  // replacement values reach through the yield.
  for (auto [result, replacement] :
       llvm::zip_equal(op->getResults(), region.getResults()))
    rewriter.replaceAllUsesExcept(result, replacement, yield);
  return region;
}

void OperatorOutliner::unwrap(scf::ExecuteRegionOp region,
                              RewriterBase &rewriter) {
  Block &body = region.getRegion().front();
  Operation *yield = body.getTerminator();
  SmallVector<Value> results(yield->getOperands());
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&body, region);
  rewriter.replaceOp(region, results);
}

OperatorOutliner::Outcome OperatorOutliner::finish(scf::ExecuteRegionOp region,
                                                   llvm::StringRef prefix,
                                                   RewriterBase &rewriter) {
  Block &body = region.getRegion().front();
  if (&body.front() == body.getTerminator()) {
    unwrap(region, rewriter);
    return Outcome::Empty;
  }
  hoistAxeValues(region, rewriter);
  if (!canOutline(region)) {
    unwrap(region, rewriter);
    return Outcome::Inlined;
  }
  // The operator's users read values from outside, which the call does not
  // return, so the function body does not need them.
  Operation *yield = body.getTerminator();
  SmallVector<Value> results(yield->getOperands());
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperands({}); });

  llvm::SetVector<Value> liveIns;
  getUsedValuesDefinedAbove(region.getRegion(), region.getRegion(), liveIns);
  Operation *tableOp = region->getParentWithTrait<OpTrait::SymbolTable>();
  Block &tableBlock = tableOp->getRegion(0).front();
  Operation *user = tableBlock.findAncestorOpInBlock(*region);
  Location loc = region.getLoc();

  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(user);
  auto type = rewriter.getFunctionType(
      ValueRange(liveIns.getArrayRef()).getTypes(), {});
  auto fn =
      func::FuncOp::create(rewriter, loc, "__axe_outline_candidate", type);
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  rewriter.inlineBlockBefore(&body, entry, entry->end());
  for (auto [v, arg] : llvm::zip_equal(liveIns, entry->getArguments()))
    rewriter.replaceUsesWithIf(v, arg, [&](OpOperand &use) {
      return fn->isProperAncestor(use.getOwner());
    });
  rewriter.setInsertionPoint(yield);
  func::ReturnOp::create(rewriter, loc);
  rewriter.eraseOp(yield);

  std::pair<Operation *, std::string> key(tableOp, printedForm(fn));
  Outcome outcome = Outcome::Shared;
  func::FuncOp callee;
  auto it = byBody.find(key);
  if (it != byBody.end()) {
    callee = it->second;
    rewriter.eraseOp(fn);
  } else {
    outcome = Outcome::Outlined;
    callee = fn;
    std::unique_ptr<SymbolTable> &table = tables[tableOp];
    if (!table)
      table = std::make_unique<SymbolTable>(tableOp);
    // SymbolTable::insert numbers the name further if it is taken.
    fn.setName(functionPrefix(prefix) + "_" + std::to_string(numFunctions));
    table->insert(fn, Block::iterator(user));
    byBody.emplace(std::move(key), fn);
    ++numFunctions;
  }
  rewriter.setInsertionPoint(region);
  func::CallOp::create(rewriter, loc, callee, liveIns.getArrayRef());
  rewriter.replaceOp(region, results);
  return outcome;
}

} // namespace axe
