//===- TargetCodegen.h - What a backend emits for target facts --*- C++ -*-===//
//
// The hooks a schedule calls where the emitted IR depends on the machine
// rather than on the layouts. Every backend implements TargetCodegen: its
// target, a barrier, what a buffer type becomes. Where threads address
// single elements (CPU, GPU), ThreadTargetCodegen adds the value of a
// hardware axis, a load or store of a vector to a memory space and the widest
// access (Triton's TargetInfoBase plays this role there); schedules written
// against it and lib/Codegen port between those targets. A target whose
// engines move whole tiles (trn) has no such hooks, and implements only the
// base.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_TARGETCODEGEN_H
#define AXE_CODEGEN_TARGETCODEGEN_H

#include "axe/Dialect/Axe/IR/AxeDialect.h"
#include "axe/Target/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace axe {

class ThreadTargetCodegen;
class CoordValue;
struct ElementOperand;

class TargetCodegen {
public:
  virtual ~TargetCodegen();

  /// The target it emits for.
  virtual const TargetDescription &target() const = 0;

  /// A barrier among the threads of one instance of `scope`.
  virtual mlir::LogicalResult barrier(mlir::OpBuilder &b, mlir::Location loc,
                                      ScopeKind scope) const = 0;

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

  /// The element-level hooks where threads address single elements; null
  /// where engines move whole tiles.
  virtual const ThreadTargetCodegen *threads() const { return nullptr; }
};

/// A target whose threads address single elements of memory.
class ThreadTargetCodegen : public TargetCodegen {
public:
  ~ThreadTargetCodegen() override;

  const ThreadTargetCodegen *threads() const final { return this; }

  /// The value of hardware axis `axis` (laneid, warpid, bx, ...) where `b`
  /// inserts: a special register, or an axe.axis_id that a later loop over
  /// the threads gives its value (the CPU); null after a diagnostic at `loc`
  /// when the axis has no value there.
  virtual mlir::Value axisValue(mlir::OpBuilder &b, mlir::Location loc,
                                llvm::StringRef axis) const = 0;

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

  /// `lanes` elements of `operand` from the swizzled `placement` on; by
  /// default `load` at the placement's address. A target whose memory is
  /// distributed over peers (ElementOperand::peerAxes) reaches theirs here.
  virtual mlir::Value loadAt(mlir::OpBuilder &b, mlir::Location loc,
                             const ElementOperand &operand,
                             const CoordValue &placement, int64_t lanes) const;
  virtual void storeAt(mlir::OpBuilder &b, mlir::Location loc,
                       const ElementOperand &operand,
                       const CoordValue &placement, mlir::Value value) const;

  /// Whether one agent runs all threads of an instance of an operator's
  /// scope: the CPU runs a CTA as one thread (and a warp-scope operator once
  /// per warp). The element-level schedules (ElementLoops.h) then take
  /// every element of the instance in that agent, a thread axis names no
  /// one, and every placement is the agent's to write. Where false, each
  /// thread runs its own code, as on a GPU.
  virtual bool runsScopeAsOneThread() const { return false; }
};

} // namespace axe

#endif // AXE_CODEGEN_TARGETCODEGEN_H
