//===- Outline.h - Schedule output shared through functions -----*- C++ -*-===//
//
// A kernel of N operators would otherwise hold N copies of their loop nests,
// and every pass after dispatch walks them all in one block. The outliner
// gives each operator a region to emit into, then moves what was emitted into
// a private function and leaves a call in its place. Instances that emit the
// same code (the same layouts, shapes and schedule; only their buffers and
// run-time offsets differ, which become arguments) share one function, so a
// kernel's size after dispatch grows with its operators by one call each.
//
// What cannot live in a function stays inline, with the reason counted: code
// that still refers to axe values (a view re-evaluated per instance), or an
// operator whose results are used afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_OUTLINE_H
#define AXE_CODEGEN_OUTLINE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include <map>
#include <memory>
#include <string>

namespace axe {

class OperatorOutliner {
public:
  /// Where outlining an operator stopped, if it did.
  enum class Outcome { Outlined, Shared, Inlined, Empty };

  /// Moves `op` into a new region at its place and returns the region's op;
  /// the schedule then emits in front of `op` there. Null when `op` cannot
  /// be wrapped (it has results, or no symbol table encloses it), and it
  /// is then left where it was.
  mlir::scf::ExecuteRegionOp wrap(mlir::Operation *op,
                                  mlir::RewriterBase &rewriter);

  /// After the schedule emitted into `region` (and erased its operator):
  /// replaces `region` by a call of a function holding its code, reusing an
  /// identical earlier one, or by its code inline when it cannot be
  /// outlined. `prefix` starts the function's name (the schedule's).
  Outcome finish(mlir::scf::ExecuteRegionOp region, llvm::StringRef prefix,
                 mlir::RewriterBase &rewriter);

  /// Puts the region's code back in place of the region, as if it had never
  /// been wrapped (after a failed rewrite, so diagnostics see plain IR).
  static void unwrap(mlir::scf::ExecuteRegionOp region,
                     mlir::RewriterBase &rewriter);

  unsigned functionsCreated() const { return numFunctions; }

private:
  /// Functions created so far, by the symbol table they are in and their
  /// printed form (without their name).
  std::map<std::pair<mlir::Operation *, std::string>, mlir::func::FuncOp>
      byBody;
  /// One per symbol table functions went into, built once: building it
  /// walks the module.
  std::map<mlir::Operation *, std::unique_ptr<mlir::SymbolTable>> tables;
  unsigned numFunctions = 0;
};

} // namespace axe

#endif // AXE_CODEGEN_OUTLINE_H
