//===- TrnOps.h - Operations of the trn dialect -----------------*- C++ -*-===//

#ifndef AXE_DIALECT_TRN_IR_TRNOPS_H
#define AXE_DIALECT_TRN_IR_TRNOPS_H

#include "axe/Dialect/Trn/IR/TrnDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "axe/Dialect/Trn/IR/TrnOps.h.inc"

#endif // AXE_DIALECT_TRN_IR_TRNOPS_H
