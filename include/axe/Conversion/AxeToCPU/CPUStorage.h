//===- CPUStorage.h - Flat CPU storage of a layout --------------*- C++ -*-===//
//
// On the CPU a CTA runs as one thread, so every axis a layout places data on
// (m and the thread axes alike) is a dim of one flat array. This is the CPU's
// storage decision; other targets keep registers in registers.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CONVERSION_AXETOCPU_CPUSTORAGE_H
#define AXE_CONVERSION_AXETOCPU_CPUSTORAGE_H

#include "axe/Codegen/LayoutEmitter.h"

namespace axe {

/// Flat memory for a buffer on a target where every axis is addressable
/// memory (a CTA runs as one CPU thread, so the registers of all its threads
/// are one array indexed by the thread axes). m is the fastest dim so that
/// contiguity on m is contiguity in memory.
class StoragePlan {
public:
  struct Dim {
    std::string axis;
    int64_t lo = 0;
    int64_t extent = 1;
    int64_t stride = 1;
  };

  /// Covers every coordinate `layout` reaches.
  static Result<StoragePlan> forLayout(const Layout &layout);
  /// Plain linear memory on m starting at 0 of `size` elements (a memref).
  static StoragePlan linear(int64_t size);
  /// This storage repeated `count` times along a new slowest dim on `axis`:
  /// one copy per instance of a scope (e.g. per warp, indexed by warpid) for
  /// a buffer each instance holds privately. Fails when `axis` already is a
  /// dim (the layout would then place data on it itself).
  Result<StoragePlan> withInstances(llvm::StringRef axis, int64_t count) const;

  int64_t size() const { return totalSize; }
  llvm::ArrayRef<Dim> dims() const { return storageDims; }
  const Dim *find(llvm::StringRef axis) const;

  /// The element offset of a physical coordinate.
  mlir::Value emitAddress(mlir::OpBuilder &b, mlir::Location loc,
                          const CoordValue &c) const;
  int64_t address(const Coord &c) const;

private:
  llvm::SmallVector<Dim, 4> storageDims;
  int64_t totalSize = 1;
};

} // namespace axe

#endif // AXE_CONVERSION_AXETOCPU_CPUSTORAGE_H
