//===- NVVMCodegen.h - Threads, buffers and operands on NVIDIA --*- C++ -*-===//
//
// What every nvvm schedule needs: the TargetCodegen of a GPU target (axis
// values from the thread and block ids, barriers), and an operand as one
// thread sees it: a flat memref (the global tile, the CTA's shared array or
// the thread's own registers) and how a physical coordinate addresses it.
// On a GPU each thread runs the kernel, so a register buffer is private to
// its thread: only its coordinate on m is an address; its thread axes say
// which thread holds it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_CONVERSION_AXETONVVM_NVVMCODEGEN_H
#define AXE_LIB_CONVERSION_AXETONVVM_NVVMCODEGEN_H

#include "axe/Codegen/BufferRef.h"
#include "axe/Codegen/ElementLoops.h"
#include "axe/Codegen/ElementOperand.h"
#include "axe/Codegen/LayoutEmitter.h"
#include "axe/Codegen/TargetCodegen.h"
#include "axe/Layout/InstanceView.h"

#include <optional>

namespace axe::nvvm {

class NVVMTargetCodegen : public ThreadTargetCodegen {
public:
  explicit NVVMTargetCodegen(const TargetDescription &target)
      : description(target) {}

  const TargetDescription &target() const override { return description; }
  mlir::Value axisValue(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::StringRef axis) const override;
  mlir::LogicalResult barrier(mlir::OpBuilder &b, mlir::Location loc,
                              ScopeKind scope) const override;
  mlir::Value load(mlir::OpBuilder &b, mlir::Location loc, mlir::Value memory,
                   mlir::Value address, mlir::Type elementType,
                   int64_t lanes) const override;
  void store(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
             mlir::Value memory, mlir::Value address) const override;
  int64_t maxVectorBits(MemorySpace space) const override;
  mlir::Value loadAt(mlir::OpBuilder &b, mlir::Location loc,
                     const ElementOperand &operand, const CoordValue &placement,
                     int64_t lanes) const override;
  void storeAt(mlir::OpBuilder &b, mlir::Location loc,
               const ElementOperand &operand, const CoordValue &placement,
               mlir::Value value) const override;
  void populateTypeConversions(mlir::TypeConverter &converter) const override;

private:
  const TargetDescription &description;
};

/// The flat memref a buffer of `type` is addressed through:
/// memref<?xT, strided<[1], offset: ?>> in the space's address space.
mlir::MemRefType getFlatMemRefType(BufferType type);

/// The coordinates of a root buffer (axe.alloc or axe.view) on m: its
/// memory holds [lo, lo + size).
struct FlatStorage {
  int64_t lo = 0;
  int64_t size = 1;
};
Result<FlatStorage> getFlatStorage(BufferType rootType);

/// A group of threads (a warp, a warpgroup) that holds part of a view: its
/// coordinates on the view's instance axes and the logical index of its
/// first element.
struct HoldingGroup {
  Coord instance;
  Shape base;
};

/// The groups of `groupThreads` consecutive threads among a CTA's `threads`
/// that hold part of `view` (whose instance axes are `axes`), in order.
llvm::SmallVector<HoldingGroup> groupsHolding(const TargetDescription &target,
                                              const InstanceView &view,
                                              llvm::ArrayRef<std::string> axes,
                                              int64_t groupThreads,
                                              int64_t threads);

/// An operand as one thread addresses it: its storage is m alone (a
/// register buffer's thread axes say which thread holds it), and its peer
/// axes are the cluster axes (cbx, cby, cbz) of distributed shared memory,
/// each with its stride in a CTA's rank in the cluster.
using GPUOperand = ElementOperand;

/// The address in bytes, in the memory's own space, of the element at
/// memref index `index` of `operand` (for descriptors and raw-pointer
/// instructions).
mlir::Value byteAddress(mlir::OpBuilder &b, mlir::Location loc,
                        const GPUOperand &operand, mlir::Value index);

/// The TMEM columns (32-bit cells) a tmem buffer of `type` spans from
/// column 0, or why it does not fit TMEM's 128 lanes.
Result<int64_t> tmemColumns(BufferType type);

/// The i32 TMEM address (lane << 16 | column) of the first cell of the tmem
/// buffer `root` (an axe.alloc): an unrealized cast convert-axe-to-nvvm
/// resolves to the CTA's allocation.
mlir::Value tmemAddressOf(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value root);
bool isTmemCast(mlir::Operation *op);

/// Why `buffer` has no nvvm operand (a memory space or axis the GPU lacks),
/// or true.
Result<bool> checkGPUOperand(mlir::Value buffer);
Result<GPUOperand> getGPUOperand(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value buffer,
                                 const ThreadTargetCodegen &cg);

} // namespace axe::nvvm

#endif // AXE_LIB_CONVERSION_AXETONVVM_NVVMCODEGEN_H
