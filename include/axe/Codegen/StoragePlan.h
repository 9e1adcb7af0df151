//===- StoragePlan.h - Which axes address a buffer's memory -----*- C++ -*-===//
//
// A buffer's memory is one flat array; a storage plan says which axes of a
// physical coordinate index it, from which low coordinate, at which stride.
// Backends decide the plan: on the CPU a CTA runs as one thread, so every
// axis a layout places data on (m and the thread axes alike) is a dim of the
// array; on a GPU only m addresses memory, and a thread axis names the
// thread whose registers hold the element.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_CODEGEN_STORAGEPLAN_H
#define AXE_CODEGEN_STORAGEPLAN_H

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
  /// Memory on m holding the coordinates [lo, lo + size); coordinates on
  /// other axes are not addresses (on a GPU they say which thread holds the
  /// element) and are ignored.
  static StoragePlan onlyM(int64_t lo, int64_t size);
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
  /// Whether a coordinate on an axis without a dim is a caller's error
  /// (every axis is memory) rather than an axis to ignore (onlyM).
  bool everyAxisAddresses = true;
};

} // namespace axe

#endif // AXE_CODEGEN_STORAGEPLAN_H
