//===- AxeDialect.h - The axe dialect, its attributes and types -*- C++ -*-===//
//
// Everything about the axe dialect except its operations (AxeOps.h): the
// dialect class, the enums, the layout, scope and target attributes, the
// buffer and token types, and helpers that relate layouts to scopes and
// memory spaces.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_DIALECT_AXE_IR_AXEDIALECT_H
#define AXE_DIALECT_AXE_IR_AXEDIALECT_H

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Placement.h"
#include "axe/Layout/Swizzle.h"
#include "axe/Layout/TileLayout.h"
#include "axe/Target/Target.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/Hashing.h"

#include <map>
#include <optional>
#include <string>

namespace axe {
// Attribute storage uniques library values by hash and equality.
llvm::hash_code hash_value(const TileLayout &layout);
llvm::hash_code hash_value(const Swizzle &swizzle);
} // namespace axe

#include "axe/Dialect/Axe/IR/AxeEnums.h.inc"

#include "axe/Dialect/Axe/IR/AxeDialect.h.inc"

#include "axe/Dialect/Axe/IR/AxeAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "axe/Dialect/Axe/IR/AxeAttributes.h.inc"

#define GET_TYPEDEF_CLASSES
#include "axe/Dialect/Axe/IR/AxeTypes.h.inc"

namespace axe {

/// The attribute denoting a library layout: a SwizzledLayoutAttr when it has
/// a swizzle, a LayoutAttr otherwise.
LayoutAttrInterface getLayoutAttr(mlir::MLIRContext *context,
                                  const Layout &layout);

/// The scope whose instances an axis enumerates: laneid numbers the lanes of
/// a warp (Warp), warpid and tx the warps and threads of a CTA (CTA), and so
/// on; device axes (gpuid and user-named axes) number the devices of a mesh
/// (Mesh). Memory axes enumerate no threads: std::nullopt.
std::optional<ScopeKind> getAxisScope(llvm::StringRef axis);

/// Bytes of `space` the layout occupies: (largest m coordinate + 1) times the
/// element size, the swizzle's blocks included. 0 for layouts not on m.
/// Saturates at INT64_MAX instead of wrapping.
int64_t getFootprintBytes(BufferType type);

/// The axes that address a partitioned memory space: which partition
/// (`partition`), where inside it (`free`), and which bank of it (`bank`,
/// empty when the space has no banks). sbuf: P, F; psum: P, F, Bank; tmem:
/// TLane, TCol.
struct PartitionAxes {
  llvm::StringLiteral partition, free, bank;
};
/// The axes of a partitioned memory space; std::nullopt for a space
/// addressed by m (global, hbm, shared, reg).
std::optional<PartitionAxes> getPartitionAxes(MemorySpace space);

/// How many of `axis`'s coordinates (or cells, for an axis with cellBits)
/// the buffer reaches: largest coordinate + 1, rounded up to whole cells; 1
/// when the layout does not use the axis. Saturates at INT64_MAX.
int64_t getCellsOn(BufferType type, const TargetAxis &axis);

/// Bytes the buffer takes within one partition of a partitioned space along
/// its free axis (F: elements of whole bytes; TCol: whole 32-bit cells); 0
/// for an unpartitioned space. Saturates at INT64_MAX.
int64_t getFreeAxisBytes(BufferType type, const TargetDescription &target);

/// Bytes of its memory space the buffer occupies on `target`, in the unit
/// the target counts that space's capacity in: per partition for a
/// partitioned space (getFreeAxisBytes, or whole banks when the layout uses
/// Bank), getFootprintBytes(type) otherwise. Saturates at INT64_MAX.
int64_t getFootprintBytes(BufferType type, const TargetDescription &target);

/// Why `layout` cannot place data in `space` (an axis the space does not
/// have, or a coordinate below 0 of a partitioned space), or std::nullopt
/// when it can.
std::optional<std::string> checkLayoutForMemorySpace(const Layout &layout,
                                                     MemorySpace space);

/// The scope that holds a buffer and may run operators on it, as far as the
/// buffer alone says: for registers the widest scope its thread axes span
/// (thread when it has none); shared and tensor memory belong to a CTA (a
/// cluster when the layout spans cbx/cby/cbz); global and hbm buffers on
/// device axes belong to the mesh. std::nullopt when any scope may touch it.
struct BufferOwner {
  ScopeKind scope;
  /// The axis that makes the owner that wide ("" when none does).
  std::string axis;
  /// Whether `axis` is one that a run-time slice start moves along (see
  /// getBufferOwner(Value)) rather than one of the buffer's layout.
  bool fromSliceStart = false;
};
std::optional<BufferOwner> getBufferOwner(BufferType type);

/// Fails with an error naming `pass` at the first op under `root` that
/// defines a buffer whose layout is still `?`: every pass after
/// axe-infer-layouts needs concrete layouts.
mlir::LogicalResult requireConcreteLayouts(mlir::Operation *root,
                                           llvm::StringRef pass);

} // namespace axe

#endif // AXE_DIALECT_AXE_IR_AXEDIALECT_H
