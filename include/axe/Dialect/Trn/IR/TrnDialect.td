//===- TrnDialect.td - The trn dialect and its enums -------*- tablegen -*-===//

#ifndef AXE_DIALECT_TRN_IR_TRNDIALECT_TD
#define AXE_DIALECT_TRN_IR_TRNDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Trn_Dialect : Dialect {
  let name = "trn";
  let cppNamespace = "::axe::trn";
  let summary = "Instructions of a Trainium-like NeuronCore, after the NKI ISA";
  let description = [{
    The `trn` dialect is the target of axe kernels for a trn1-like
    NeuronCore-v2. Its operations mirror the NKI ISA (`nki.isa`): one
    operation is one instruction of one engine (TensorE, VectorE, ScalarE,
    GpSimd) or one DMA transfer, writing into a destination that it names,
    as NKI's `dst=` does.

    Data lives in builtin `memref`s whose memory space is `#trn.space<hbm>`,
    `#trn.space<sbuf>` or `#trn.space<psum>`. For `sbuf` and `psum` the
    first dim is the partition dim (at most 128 partitions) and the other
    dims are the free dims of each partition; views made by `memref.subview`
    are access patterns, the stride of dim 0 being the partition pitch.

    ```mlir
    %a = trn.alloc : memref<128x512xbf16, #trn.space<sbuf>>
    trn.dma_copy %h to %a : memref<128x512xbf16, #trn.space<hbm>>
                         to memref<128x512xbf16, #trn.space<sbuf>>
    ```

    The verifiers check the NeuronCore-v2 rules (`axe/Target/Trn/Machine.h`
    holds the numbers): partition counts, matmul sizes and its PSUM bank, which engine
    may read and write which memory, dtypes and capacities.
  }];
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Trn_MemorySpace : I32Enum<"MemorySpace", "memory of a NeuronCore", [
    I32EnumCase<"HBM", 0, "hbm">,
    I32EnumCase<"SBUF", 1, "sbuf">,
    I32EnumCase<"PSUM", 2, "psum">
  ]> {
  let cppNamespace = "::axe::trn";
}

def Trn_Engine : I32EnumAttr<"Engine", "compute engine of a NeuronCore", [
    I32EnumAttrCase<"Tensor", 0, "tensor">,
    I32EnumAttrCase<"Vector", 1, "vector">,
    I32EnumAttrCase<"Scalar", 2, "scalar">,
    I32EnumAttrCase<"GpSimd", 3, "gpsimd">
  ]> {
  let cppNamespace = "::axe::trn";
}

// The ALU operations of tensor_tensor, tensor_scalar, tensor_reduce and the
// comparisons of affine_select (NKI's nl.add, nl.maximum, nl.greater_equal...).
def Trn_AluOp : I32EnumAttr<"AluOp", "ALU operation of VectorE, ScalarE or GpSimd", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Subtract", 1, "subtract">,
    I32EnumAttrCase<"Multiply", 2, "multiply">,
    I32EnumAttrCase<"Divide", 3, "divide">,
    I32EnumAttrCase<"Max", 4, "max">,
    I32EnumAttrCase<"Min", 5, "min">,
    I32EnumAttrCase<"AbsMax", 6, "abs_max">,
    I32EnumAttrCase<"Power", 7, "power">,
    I32EnumAttrCase<"IsEqual", 8, "is_equal">,
    I32EnumAttrCase<"NotEqual", 9, "not_equal">,
    I32EnumAttrCase<"IsGt", 10, "is_gt">,
    I32EnumAttrCase<"IsGe", 11, "is_ge">,
    I32EnumAttrCase<"IsLt", 12, "is_lt">,
    I32EnumAttrCase<"IsLe", 13, "is_le">,
    I32EnumAttrCase<"BitwiseAnd", 14, "bitwise_and">,
    I32EnumAttrCase<"BitwiseOr", 15, "bitwise_or">,
    I32EnumAttrCase<"BitwiseXor", 16, "bitwise_xor">,
    I32EnumAttrCase<"ShiftLeft", 17, "logical_shift_left">,
    I32EnumAttrCase<"ShiftRight", 18, "logical_shift_right">
  ]> {
  let cppNamespace = "::axe::trn";
}

// ScalarE's activation functions; `copy` is the identity.
def Trn_ActFunc : I32EnumAttr<"ActFunc", "activation function of ScalarE", [
    I32EnumAttrCase<"Copy", 0, "copy">,
    I32EnumAttrCase<"Exp", 1, "exp">,
    I32EnumAttrCase<"Log", 2, "log">,
    I32EnumAttrCase<"Reciprocal", 3, "reciprocal">,
    I32EnumAttrCase<"Rsqrt", 4, "rsqrt">,
    I32EnumAttrCase<"Sqrt", 5, "sqrt">,
    I32EnumAttrCase<"Square", 6, "square">,
    I32EnumAttrCase<"Tanh", 7, "tanh">,
    I32EnumAttrCase<"Sigmoid", 8, "sigmoid">,
    I32EnumAttrCase<"Relu", 9, "relu">,
    I32EnumAttrCase<"Gelu", 10, "gelu">,
    I32EnumAttrCase<"Silu", 11, "silu">
  ]> {
  let cppNamespace = "::axe::trn";
}

#endif // AXE_DIALECT_TRN_IR_TRNDIALECT_TD
