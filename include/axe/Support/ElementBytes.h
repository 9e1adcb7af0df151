//===- ElementBytes.h - The bytes an element takes in memory ----*- C++ -*-===//
//
// One definition for every layer that sizes buffers: the dialects' capacity
// checks, the backends' storage and the simulators.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_SUPPORT_ELEMENTBYTES_H
#define AXE_SUPPORT_ELEMENTBYTES_H

#include "mlir/IR/Types.h"

#include <cstdint>

namespace axe {

/// Bytes one element of `type` takes in memory: its bit width rounded up to
/// whole bytes (an i1 takes one), and 8 for `index` and other types without
/// a bit width, which the backends store as 64-bit integers.
inline int64_t elementBytes(mlir::Type type) {
  if (!type.isIntOrFloat())
    return 8;
  return (int64_t(type.getIntOrFloatBitWidth()) + 7) / 8;
}

} // namespace axe

#endif // AXE_SUPPORT_ELEMENTBYTES_H
