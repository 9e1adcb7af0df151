//===- Uniformity.h - Which threads agree on a value ------------*- C++ -*-===//
//
// A collective operator needs operands its whole scope agrees on, and every
// backend must know how far a value is shared: a GPU schedule may keep a
// warp-uniform address in one register, the CPU re-evaluates a warp-varying
// operand once per warp. The answer is the widest scope whose every instance
// sees one value, from the hardware axes the value is computed from (each
// axis numbers threads, warps, warpgroups, CTAs or devices) and from the
// control flow it passes through.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_UNIFORMITY_H
#define AXE_CODEGEN_UNIFORMITY_H

#include "axe/Dialect/Axe/IR/AxeDialect.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace axe {

/// The widest scope whose instances each agree on a value of axis `axis`:
/// laneid and tx differ per thread (Thread), warpid per warp (Warp), wgid
/// per warpgroup, bx and cbx per CTA, gpuid per device (Kernel). An axis no
/// target knows is taken to differ per CTA.
ScopeKind uniformScopeOfAxis(llvm::StringRef axis);

/// Memoized over the values of `root` (a kernel, or any op): values defined
/// outside `root` are uniform everywhere (Mesh).
class UniformityAnalysis {
public:
  explicit UniformityAnalysis(mlir::Operation *root) : root(root) {}

  /// The widest scope whose every instance sees one value of `v`.
  ScopeKind uniformScope(mlir::Value v);
  /// Whether every thread of one instance of `scope` sees one value of `v`.
  bool isUniformAcross(mlir::Value v, ScopeKind scope) {
    return uniformScope(v) >= scope;
  }

  /// Values an op reads that were defined outside it (its operands and what
  /// its regions capture).
  static llvm::SmallVector<mlir::Value> inputsOf(mlir::Operation *op);

private:
  ScopeKind narrowestOf(llvm::ArrayRef<mlir::Value> values);
  /// One evaluation of `v` from what it is computed from.
  ScopeKind compute(mlir::Value v);

  mlir::Operation *root;
  llvm::DenseMap<mlir::Value, ScopeKind> memo;
  /// Values memoized, in order, so that those computed from a guess that
  /// did not hold can be dropped.
  std::vector<mlir::Value> computed;
  /// Values being computed, and whether their guess was read meanwhile.
  struct Guess {
    bool read;
  };
  llvm::DenseMap<mlir::Value, Guess> inProgress;
};

} // namespace axe

#endif // AXE_CODEGEN_UNIFORMITY_H
