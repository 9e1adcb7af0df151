//===- ElementOperand.h - A buffer as element-level code sees it -*- C++
//-*-===//
//
// The one operand model of the schedules that address single elements (CPU,
// GPU): a resolved buffer (BufferRef: layout, shape, element type, the op
// holding its memory, run-time slice offsets), the flat memref of that
// memory in its lowered type, the storage plan saying which axes of a
// physical coordinate address it, and the emitter of its layout. Reads and
// writes go through the target's ThreadTargetCodegen, which decides how an
// element at a placement is reached (a plain load; a peer CTA's shared
// memory through its cluster address on a GPU).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_ELEMENTOPERAND_H
#define AXE_CODEGEN_ELEMENTOPERAND_H

#include "axe/Codegen/BufferRef.h"
#include "axe/Codegen/StoragePlan.h"

#include <optional>

namespace axe {

class ThreadTargetCodegen;

struct ElementOperand {
  BufferRef ref;
  /// The memory space of the root buffer (a staged register input reads a
  /// shared scratch: its operand is in shared memory).
  MemorySpace space = MemorySpace::Global;
  /// A rank-1 memref holding the root's storage (an unrealized cast of the
  /// root that the backend's conversion resolves, or a memref tests made).
  mlir::Value memory;
  /// How a physical coordinate addresses `memory`.
  StoragePlan storage = StoragePlan::linear(0);
  /// The emitter of ref.layout over ref.shape; set where the operand is
  /// read or written element by element.
  std::optional<LayoutEmitter> emitter;
  /// The axes whose coordinate names the peer (a CTA of a cluster) whose
  /// memory holds the element, each with its stride in the peer's rank:
  /// memory distributed over peers, reached by the target's loadAt/storeAt.
  llvm::SmallVector<std::pair<std::string, int64_t>, 3> peerAxes;
  /// How elements are loaded and stored; needed by loadAt, storeAt, read
  /// and write.
  const ThreadTargetCodegen *codegen = nullptr;

  bool isRegister() const { return space == MemorySpace::Reg; }
  bool isDistributed() const { return !peerAxes.empty(); }
  const Layout &layout() const { return ref.layout; }
  llvm::ArrayRef<int64_t> shape() const { return ref.shape; }
  mlir::Type elementType() const { return ref.elementType; }

  /// The memref index of a swizzled physical coordinate.
  mlir::Value address(mlir::OpBuilder &b, mlir::Location loc,
                      const CoordValue &placement) const;
  /// `lanes` elements (a vector when more than 1) from `placement` on.
  mlir::Value loadAt(mlir::OpBuilder &b, mlir::Location loc,
                     const CoordValue &placement, int64_t lanes = 1) const;
  /// `value` (a vector of consecutive elements, or one) stored at
  /// `placement`.
  void storeAt(mlir::OpBuilder &b, mlir::Location loc,
               const CoordValue &placement, mlir::Value value) const;
  /// The element at logical `indices`, read at its first placement (its
  /// holder's own for a register buffer: replicas on thread axes keep m).
  mlir::Value read(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::ValueRange indices) const;
  /// `value` stored at every placement of logical `indices`.
  void write(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange indices,
             mlir::Value value) const;
};

} // namespace axe

#endif // AXE_CODEGEN_ELEMENTOPERAND_H
