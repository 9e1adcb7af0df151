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

/// The thread axes (tx, laneid, warpid, ...) a layout places data on, in
/// the layout's axis order.
llvm::SmallVector<std::string, 4> threadAxesOf(const TargetDescription &target,
                                               const Layout &layout);

/// The value of thread axis `axis` at linear thread `tid` of a CTA.
int64_t threadAxisValue(const TargetDescription &target, llvm::StringRef axis,
                        int64_t tid);

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

/// An operand as one thread addresses it.
struct GPUOperand {
  BufferRef ref;
  MemorySpace space = MemorySpace::Global;
  /// The flat memref of the root buffer (an unrealized cast that
  /// convert-axe-to-nvvm resolves).
  mlir::Value memory;
  FlatStorage storage;
  std::optional<LayoutEmitter> emitter;

  /// The cluster axes (cbx, cby, cbz) its layout places data on, with each
  /// one's stride in a CTA's rank in the cluster: a buffer in distributed
  /// shared memory, whose elements on another CTA are reached through mapa.
  llvm::SmallVector<std::pair<std::string, int64_t>, 3> clusterAxes;

  bool isRegister() const { return space == MemorySpace::Reg; }
  bool isDistributed() const { return !clusterAxes.empty(); }
  const Layout &layout() const { return ref.layout; }
  llvm::ArrayRef<int64_t> shape() const { return ref.shape; }
  mlir::Type elementType() const { return ref.elementType; }

  /// The memref index of a swizzled physical coordinate: its m less lo.
  mlir::Value address(mlir::OpBuilder &b, mlir::Location loc,
                      const CoordValue &placement) const;
  /// The address in bytes, in the memory's own space, of the element at
  /// memref index `index` (for descriptors and raw-pointer instructions).
  mlir::Value byteAddress(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value index) const;
  /// `lanes` elements (a vector when more than 1) from `placement` on.
  /// Distributed shared memory is read one element at a time, through the
  /// shared::cluster address of the CTA the placement's cluster axes name.
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
                                 mlir::Value buffer);

} // namespace axe::nvvm

#endif // AXE_LIB_CONVERSION_AXETONVVM_NVVMCODEGEN_H
