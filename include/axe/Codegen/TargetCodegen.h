//===- TargetCodegen.h - What a backend emits for target facts --*- C++ -*-===//
//
// The hooks a schedule calls where the emitted IR depends on the machine
// rather than on the layouts: the value of a hardware axis, a barrier, a load
// or store of a vector to a memory space, the widest access, and what a
// buffer type becomes. Each backend implements it once (Triton's
// TargetInfoBase plays this role there); schedules written against it and
// lib/Codegen port between targets of one family.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_TARGETCODEGEN_H
#define AXE_CODEGEN_TARGETCODEGEN_H

#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Target/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace axe {

class TargetCodegen {
public:
  virtual ~TargetCodegen();

  /// The target it emits for.
  virtual const TargetDescription &target() const = 0;

  /// The value of hardware axis `axis` (laneid, warpid, bx, P, ...) where
  /// `b` inserts: a loop variable, a special register or a constant; null
  /// after a diagnostic at `loc` when the axis has no value there.
  virtual mlir::Value axisValue(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::StringRef axis) const = 0;

  /// A barrier among the threads of one instance of `scope`.
  virtual mlir::LogicalResult barrier(mlir::OpBuilder &b, mlir::Location loc,
                                      ScopeKind scope) const = 0;

  /// `lanes` elements of `elementType` (a scalar when `lanes` is 1) read at
  /// element offset `address` of `memory`, a value of the converted buffer
  /// type.
  virtual mlir::Value load(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value memory, mlir::Value address,
                           mlir::Type elementType, int64_t lanes) const = 0;
  virtual void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                     mlir::Value memory, mlir::Value address) const = 0;

  /// The widest single access to `space`, in bits.
  virtual int64_t maxVectorBits(MemorySpace space) const = 0;

  /// Whether the code emitted for an operator may move into a private
  /// function of the module, called where the operator was (axe-dispatch's
  /// `outline`): true where kernels run as host code, as on the CPU.
  virtual bool canOutlineOperators() const { return false; }

  /// Whether operators at a mesh scope lower here: true where the backend
  /// has a runtime that runs one program per device (the CPU: processes
  /// over MPI). Dispatch refuses mesh scopes elsewhere before any schedule
  /// is tried, so the error says what is missing rather than why each
  /// device-level schedule declined.
  virtual bool runsDeviceMeshes() const { return false; }

  /// What axe buffer types become on this target (the CPU: flat memrefs).
  virtual void
  populateTypeConversions(mlir::TypeConverter &converter) const = 0;
};

} // namespace axe

#endif // AXE_CODEGEN_TARGETCODEGEN_H
