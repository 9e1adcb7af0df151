//===- Numerics.h - Element arithmetic as the engines do it -----*- C++ -*-===//
//
// Values are kept as doubles, each already rounded to the element type of
// the buffer that holds it; engines compute in fp32 (nki.isa reference: "math
// in fp32, free cast on output") and round to the destination's type.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LIB_TRNSIM_NUMERICS_H
#define AXE_LIB_TRNSIM_NUMERICS_H

#include "axe/Dialect/Trn/IR/TrnDialect.h"

#include "mlir/IR/Types.h"

namespace axe::trnsim {

/// `v` as an element of type `type` holds it: floats rounded to nearest
/// even (bf16, f16, tf32, f8...), integers truncated toward zero and
/// saturated to their width.
double roundTo(mlir::Type type, double v);
/// `a op b` in fp32 (comparisons give 1 or 0; bitwise ops on integers).
double applyAlu(trn::AluOp op, double a, double b);
/// ScalarE's function of an fp32 value.
double applyActivation(trn::ActFunc func, double x);

} // namespace axe::trnsim

#endif // AXE_LIB_TRNSIM_NUMERICS_H
