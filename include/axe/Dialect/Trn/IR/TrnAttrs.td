//===- TrnAttrs.td - Attributes of the trn dialect ---------*- tablegen -*-===//

#ifndef AXE_DIALECT_TRN_IR_TRNATTRS_TD
#define AXE_DIALECT_TRN_IR_TRNATTRS_TD

include "axe/Dialect/Trn/IR/TrnDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// The memory space of a memref, written `#trn.space<sbuf>`.
def Trn_MemorySpaceAttr : EnumAttr<Trn_Dialect, Trn_MemorySpace, "space"> {
  let assemblyFormat = "`<` $value `>`";
}

// The engine, ALU operation and activation function enums are only ever op
// attributes; as I32EnumAttrs (TrnDialect.td) they print as bare keywords in
// the ops' custom forms (`engine vector`), where a dialect EnumAttr would add
// a second space.

#endif // AXE_DIALECT_TRN_IR_TRNATTRS_TD
