//===- SharedAtoms.h - Shared tiles as repeated swizzle atoms ---*- C++ -*-===//
//
// TMA boxes and wgmma descriptors read shared memory as copies of one atom:
// eight lines of 32, 64 or 128 bytes under the matching swizzle, or, without
// a swizzle, 8 x 16-byte core matrices. Which atom a layout repeats, and
// where it puts each copy, is found with the algebra's tile-of
// (swizzledTileOf), so the schedules take their descriptors' fields from the
// layout rather than from a kernel's spelling of it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_CONVERSION_AXETONVVM_SHAREDATOMS_H
#define AXE_LIB_CONVERSION_AXETONVVM_SHAREDATOMS_H

#include "NVVMCodegen.h"

#include "axe/Dialect/Axe/IR/AxeOps.h"
#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/Swizzle.h"

#include <optional>

namespace axe::nvvm {

/// A 2-D shared layout as copies of an atom: element (r, c) is at
/// swizzle(outer(r / atomRows, c / atomCols) + atom(r mod .., c mod ..)).
struct AtomTiling {
  /// nullopt: 8 x 16-byte core matrices, unswizzled.
  std::optional<SwizzleMode> mode;
  int64_t atomRows = 8, atomCols = 0;
  /// Bytes of one atom line (the swizzle span), or 16 without a swizzle.
  int64_t lineBytes = 16;
  /// Each copy's first element on m, per (row block, column block).
  std::vector<std::vector<int64_t>> origins;

  int64_t rowBlocks() const { return int64_t(origins.size()); }
  int64_t colBlocks() const { return origins.empty() ? 0 : origins[0].size(); }
  /// Elements between copies along rows and along columns when the
  /// placement is affine (the same steps everywhere), else nullopt.
  std::optional<std::pair<int64_t, int64_t>> steps() const;
  /// The wgmma / tcgen05 descriptor's layout field: 0 none, 1 128B, 2 64B,
  /// 3 32B.
  int64_t descriptorLayoutType() const;
  /// tcgen05's swizzle field: 0 none, 2 128B, 4 64B, 6 32B.
  int64_t sm100SwizzleField() const;
};

/// The atom `layout` (admitting `shape`, 2-D) repeats, trying the swizzled
/// atoms widest first and then core matrices; the reasons of all when none
/// fits.
Result<AtomTiling> tileOfSharedAtom(const Layout &layout,
                                    llvm::ArrayRef<int64_t> shape,
                                    unsigned elementBits);

std::string swizzleName(const std::optional<SwizzleMode> &mode);

/// The two matrix-descriptor formats: wgmma's (sm_90) and tcgen05's
/// (sm_100: a version field, and the swizzle in bits [61, 64)).
enum class DescriptorFormat { Sm90, Sm100 };

/// How one shared operand is read through matrix descriptors: its atoms and
/// the descriptor bits that do not move with the start address.
struct SharedOperandPlan {
  AtomTiling tiling;
  int64_t elementBytes = 2;
  uint64_t fixedBits = 0;
  /// Stored K x rows (rows contiguous: wgmma's .trans-a / .trans-b), where
  /// a K-major operand is stored rows x K.
  bool mnMajor = false;
};

/// The plan of a shared operand `name` of instruction `instr`, K-major
/// (stored rows x K) or MN-major (stored K x rows), or why its layout has
/// no descriptor. The two read the same atoms (eight lines of the swizzle
/// span, or 8 x 16-byte core matrices) with the lines along K or along the
/// rows, and the descriptor's two offsets mean different steps: K-major,
/// SBO steps between groups of 8 rows (LBO between core matrices along K
/// when unswizzled); MN-major, SBO steps between groups of 8 k and LBO
/// between lines of rows (the other way round when unswizzled).
Result<SharedOperandPlan>
planSharedOperand(BufferType type, llvm::StringRef name, llvm::StringRef instr,
                  DescriptorFormat format, bool mnMajor = false);

/// The descriptor of `operand`'s 8-row groups from logical (row, k0) (the
/// buffer's (k0, row) when MN-major): the start address of that element,
/// unswizzled, over 16, with the fixed bits.
mlir::Value emitMatrixDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                                 const GPUOperand &operand,
                                 const SharedOperandPlan &plan, mlir::Value row,
                                 mlir::Value k0);

} // namespace axe::nvvm

#endif // AXE_LIB_CONVERSION_AXETONVVM_SHAREDATOMS_H
