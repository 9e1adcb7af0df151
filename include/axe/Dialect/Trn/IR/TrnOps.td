//===- TrnOps.td - Operations of the trn dialect -----------*- tablegen -*-===//

#ifndef AXE_DIALECT_TRN_IR_TRNOPS_TD
#define AXE_DIALECT_TRN_IR_TRNOPS_TD

include "axe/Dialect/Trn/IR/TrnAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Trn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Trn_Dialect, mnemonic, traits>;

// Every operand of an instruction is a static-shape memref of numbers: the
// hardware has no run-time sizes, only run-time offsets (which subview views
// carry), and its elements are integers or floats of a known width.
def Trn_Tile : StaticShapeMemRefOf<[AnyInteger, AnyFloat]>;

//===----------------------------------------------------------------------===//
// Storage
//===----------------------------------------------------------------------===//

def Trn_AllocOp : Trn_Op<"alloc"> {
  let summary = "A tile in SBUF or PSUM";
  let description = [{
    Allocates an on-chip tile, live until the end of the enclosing region.
    Dim 0 is the partition dim; the rest is laid out row-major within each
    partition. HBM tensors are not allocated here: they are kernel
    arguments.

    ```mlir
    %t = trn.alloc : memref<128x4x512xbf16, #trn.space<sbuf>>
    %p = trn.alloc : memref<128x512xf32, #trn.space<psum>>
    ```

    The verifier checks that one allocation fits the memory: at most 128
    partitions, and at most 192 KiB per partition in SBUF (24 MiB in all) or
    16 KiB per partition in PSUM (2 MiB in all). Where the allocation is
    placed, and whether several fit together, is for an allocation pass.
  }];
  let results = (outs Res<Trn_Tile, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// DMA
//===----------------------------------------------------------------------===//

def Trn_DmaCopyOp : Trn_Op<"dma_copy"> {
  let summary = "A DMA transfer between HBM and SBUF (nki.isa.dma_copy)";
  let description = [{
    Copies `src` to `dst` element by element in row-major order, casting
    when the element types differ. Either side may be in `hbm` or `sbuf`;
    the DMA engines cannot reach `psum`. Both sides hold the same number of
    elements; their shapes may differ. Views (`memref.subview`) give the
    access patterns.

    ```mlir
    trn.dma_copy %h to %s : memref<128x512xbf16, strided<[8192, 1], offset: ?>, #trn.space<hbm>>
                         to memref<128x512xbf16, #trn.space<sbuf>>
    ```
  }];
  let arguments = (ins Arg<Trn_Tile, "", [MemRead]>:$src,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $src `to` $dst attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// TensorE
//===----------------------------------------------------------------------===//

def Trn_MatmulOp : Trn_Op<"matmul"> {
  let summary = "Matrix multiply on TensorE: dst[M, N] (+)= stationary[K, M]^T @ moving[K, N]";
  let description = [{
    The PE array's instruction (nki.isa.nc_matmul): `stationary` is loaded
    into the array, `moving` streams through it, and the product lands in
    PSUM. K, the contraction, is the partition dim of both inputs.

    `start` marks the first matmul of an accumulation group, which
    overwrites `dst`; without it the product is added to what `dst` holds.
    `stop` marks the last one, after which `dst` may be read.

    ```mlir
    trn.matmul %st, %mv into %acc start stop
        : memref<128x128xbf16, #trn.space<sbuf>>, memref<128x512xbf16, #trn.space<sbuf>>
          into memref<128x512xf32, #trn.space<psum>>
    ```

    Rules (NeuronCore-v2): both inputs in SBUF, `dst` in PSUM; K at most
    128; M (stationary free size) at most 128; N (moving free size) at most
    512; `dst` is `[M, N]` of f32 and lies within one 2 KiB PSUM bank of
    each partition; inputs are f8E4M3FN, f8E5M2, bf16, f16, tf32 or f32,
    and if one is f32 or tf32 both are.
  }];
  let arguments = (ins Arg<Trn_Tile, "", [MemRead]>:$stationary,
                       Arg<Trn_Tile, "", [MemRead]>:$moving,
                       Arg<Trn_Tile, "", [MemRead, MemWrite]>:$dst,
                       UnitAttr:$start,
                       UnitAttr:$stop);
  let assemblyFormat = [{
    $stationary `,` $moving `into` $dst (`start` $start^)? (`stop` $stop^)?
    attr-dict `:` type($stationary) `,` type($moving) `into` type($dst)
  }];
  let hasVerifier = 1;
}

def Trn_TransposeOp : Trn_Op<"transpose"> {
  let summary = "Partition/free transpose: dst[F, P] = src[P, F] (nki.isa.nc_transpose)";
  let description = [{
    Swaps the partition and the free dim of a 2-D tile. On `engine tensor`
    it is a matmul with the identity: `src` in SBUF, at most 128x128, `dst`
    in PSUM. On `engine vector` it uses VectorE's 32-lane transpose banks:
    at most 32x32, in SBUF or PSUM. The element type does not change.

    ```mlir
    trn.transpose %s into %p engine tensor
        : memref<128x64xbf16, #trn.space<sbuf>> into memref<64x128xbf16, #trn.space<psum>>
    ```
  }];
  let arguments = (ins Arg<Trn_Tile, "", [MemRead]>:$src,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst,
                       Trn_Engine:$engine);
  let assemblyFormat = [{
    $src `into` $dst `engine` $engine attr-dict `:` type($src) `into`
    type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ScalarE
//===----------------------------------------------------------------------===//

def Trn_ActivationOp : Trn_Op<"activation", [AttrSizedOperandSegments]> {
  let summary = "ScalarE activation: dst = func(src * scale + bias), with an optional add-reduce";
  let description = [{
    ScalarE's instruction (nki.isa.activation). `scale` is an f32 immediate
    or, with `scale_tile`, an f32 `[P, 1]` tile broadcast along the free
    dims; `bias` is a `[P, 1]` tile (NeuronCore-v2 has no immediate bias).
    With `reduce add into %r`, ScalarE also sums each partition's results
    into `%r` (`[P, 1]`); add is the only reduction NeuronCore-v2 has.

    ```mlir
    trn.activation exp %s into %d bias %negmax : memref<128x1xf32, #trn.space<sbuf>>
        reduce add into %sum : memref<128x1xf32, #trn.space<sbuf>>
        : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
    ```

    `src` and `dst` are in SBUF or PSUM and have the same partitions and
    the same number of elements per partition.
  }];
  let arguments = (ins Trn_ActFunc:$func,
                       Arg<Trn_Tile, "", [MemRead]>:$src,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst,
                       Arg<Optional<Trn_Tile>, "", [MemRead]>:$bias,
                       OptionalAttr<F32Attr>:$scale,
                       Arg<Optional<Trn_Tile>, "", [MemRead]>:$scale_tile,
                       OptionalAttr<Trn_AluOp>:$reduce_op,
                       Arg<Optional<Trn_Tile>, "", [MemWrite]>:$reduce_res);
  let assemblyFormat = [{
    $func $src `into` $dst
    (`bias` $bias^ `:` type($bias))?
    (`scale` $scale^)?
    (`scale_tile` $scale_tile^ `:` type($scale_tile))?
    (`reduce` $reduce_op^ `into` $reduce_res `:` type($reduce_res))?
    attr-dict `:` type($src) `into` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// VectorE, ScalarE and GpSimd
//===----------------------------------------------------------------------===//

def Trn_TensorTensorOp : Trn_Op<"tensor_tensor"> {
  let summary = "Elementwise binary operation: dst = lhs op rhs (nki.isa.tensor_tensor)";
  let description = [{
    ```mlir
    trn.tensor_tensor max %a, %b into %d engine vector
        : memref<128x512xf32, #trn.space<sbuf>>, memref<128x512xf32, #trn.space<psum>>
          into memref<128x512xf32, #trn.space<sbuf>>
    ```

    Runs on `vector` or `gpsimd` (GpSimd cannot reach PSUM). All three
    tiles have the same partitions and elements per partition, and at most
    one input is in PSUM. Bitwise and shift operations need integer
    element types.
  }];
  let arguments = (ins Trn_AluOp:$op,
                       Arg<Trn_Tile, "", [MemRead]>:$lhs,
                       Arg<Trn_Tile, "", [MemRead]>:$rhs,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst,
                       Trn_Engine:$engine);
  let assemblyFormat = [{
    $op $lhs `,` $rhs `into` $dst `engine` $engine attr-dict `:` type($lhs)
    `,` type($rhs) `into` type($dst)
  }];
  let hasVerifier = 1;
}

def Trn_TensorScalarOp : Trn_Op<"tensor_scalar", [AttrSizedOperandSegments]> {
  let summary = "Per-partition scalars: dst = (src op0 s0) op1 s1 (nki.isa.tensor_scalar)";
  let description = [{
    Each scalar is an f32 immediate or an f32 `[P, 1]` tile whose value for
    a partition applies along its free dims; the second operation is
    optional. `reverse0` / `reverse1` swap the operands of that operation
    (`s0 op0 src`).

    ```mlir
    trn.tensor_scalar %s, subtract(%max : memref<128x1xf32, #trn.space<sbuf>>)
        then multiply(5.000000e-01) into %d engine vector
        : memref<128x512xf32, #trn.space<sbuf>> into memref<128x512xf32, #trn.space<sbuf>>
    ```

    Runs on `vector`, `scalar` or `gpsimd`; bitwise and shift operations
    only on `vector` and on integer tiles.
  }];
  let arguments = (ins Arg<Trn_Tile, "", [MemRead]>:$src,
                       Trn_AluOp:$op0,
                       Arg<Optional<Trn_Tile>, "", [MemRead]>:$scalar0_tile,
                       OptionalAttr<F32Attr>:$scalar0,
                       UnitAttr:$reverse0,
                       OptionalAttr<Trn_AluOp>:$op1,
                       Arg<Optional<Trn_Tile>, "", [MemRead]>:$scalar1_tile,
                       OptionalAttr<F32Attr>:$scalar1,
                       UnitAttr:$reverse1,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst,
                       Trn_Engine:$engine);
  let assemblyFormat = [{
    $src `,` $op0 `` custom<ScalarArg>($scalar0_tile, type($scalar0_tile), $scalar0)
    (`then` $op1^ `` custom<ScalarArg>($scalar1_tile, type($scalar1_tile), $scalar1))?
    `into` $dst `engine` $engine attr-dict `:` type($src) `into` type($dst)
  }];
  let hasVerifier = 1;
}

def Trn_TensorReduceOp : Trn_Op<"tensor_reduce"> {
  let summary = "Reduce trailing free dims of a tile on VectorE (nki.isa.tensor_reduce)";
  let description = [{
    Reduces `src` over `axes`, which are trailing free dims (never the
    partition dim 0). `dst` has `src`'s shape with those dims either
    dropped or kept as 1. With `negate` the result is negated. The
    operation is `add`, `multiply`, `max` or `min`.

    ```mlir
    trn.tensor_reduce max %s into %m axes [1]
        : memref<128x512xf32, #trn.space<psum>> into memref<128x1xf32, #trn.space<sbuf>>
    ```
  }];
  let arguments = (ins Trn_AluOp:$op,
                       Arg<Trn_Tile, "", [MemRead]>:$src,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst,
                       DenseI64ArrayAttr:$axes,
                       UnitAttr:$negate);
  let assemblyFormat = [{
    $op $src `into` $dst `axes` $axes (`negate` $negate^)? attr-dict `:`
    type($src) `into` type($dst)
  }];
  let hasVerifier = 1;
}

def Trn_TensorCopyOp : Trn_Op<"tensor_copy"> {
  let summary = "Copy (and cast) a tile within SBUF/PSUM (nki.isa.tensor_copy)";
  let description = [{
    Runs on `vector` or `gpsimd` (SBUF only). NeuronCore-v2's ScalarE has
    no tensor_copy; `trn.activation copy` is its copy. Both tiles have the
    same partitions and elements per partition.

    ```mlir
    trn.tensor_copy %p into %s engine vector
        : memref<128x512xf32, #trn.space<psum>> into memref<128x512xbf16, #trn.space<sbuf>>
    ```
  }];
  let arguments = (ins Arg<Trn_Tile, "", [MemRead]>:$src,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst,
                       Trn_Engine:$engine);
  let assemblyFormat = [{
    $src `into` $dst `engine` $engine attr-dict `:` type($src) `into`
    type($dst)
  }];
  let hasVerifier = 1;
}

def Trn_MemsetOp : Trn_Op<"memset"> {
  let summary = "Fill a tile with a constant (nki.isa.memset)";
  let description = [{
    Runs on `vector` or `gpsimd` (SBUF only). The value has the tile's
    element type.

    ```mlir
    trn.memset 0.000000e+00 : f32 into %s engine vector : memref<128x512xf32, #trn.space<sbuf>>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst,
                       Trn_Engine:$engine);
  let assemblyFormat = [{
    $value `into` $dst `engine` $engine attr-dict `:` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// GpSimd
//===----------------------------------------------------------------------===//

def Trn_IotaOp : Trn_Op<"iota"> {
  let summary = "GpSimd index fill: dst[c, i...] = offset + c * channel_multiplier + sum(step * i)";
  let description = [{
    Fills an SBUF tile with an affine function of the partition `c` and of
    the indices of an access pattern `[[step, count], ...]` (at most 4 dims,
    outermost first) that covers the free elements of each partition. The
    arithmetic is int32; the result is cast to the tile's element type.

    ```mlir
    trn.iota [[1, 512]] offset 0 channel_multiplier 0 into %s
        : memref<128x512xi32, #trn.space<sbuf>>
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$pattern,
                       I64Attr:$offset,
                       I64Attr:$channel_multiplier,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    custom<Pattern>($pattern) `offset` $offset `channel_multiplier`
    $channel_multiplier `into` $dst attr-dict `:` type($dst)
  }];
  let hasVerifier = 1;
}

def Trn_AffineSelectOp : Trn_Op<"affine_select"> {
  let summary = "GpSimd masked select: dst = cmp(affine(c, i...), 0) ? on_true : on_false";
  let description = [{
    The causal mask of attention (nki.isa.affine_select): for partition
    `c` and pattern indices `i`, computes `offset + c * channel_multiplier +
    sum(step * i)` and keeps `on_true`'s element where `cmp` of it with 0
    holds, `on_false` (an f32 immediate) elsewhere. `cmp` is a comparison;
    both tiles are in SBUF with the same partitions and elements per
    partition, which the pattern covers.

    ```mlir
    trn.affine_select is_ge [[-1, 128]] offset 0 channel_multiplier 1, %s
        else -3.000000e+38 into %d
        : memref<128x128xf32, #trn.space<sbuf>> into memref<128x128xf32, #trn.space<sbuf>>
    ```
  }];
  let arguments = (ins Trn_AluOp:$cmp,
                       DenseI64ArrayAttr:$pattern,
                       I64Attr:$offset,
                       I64Attr:$channel_multiplier,
                       Arg<Trn_Tile, "", [MemRead]>:$on_true,
                       F32Attr:$on_false,
                       Arg<Trn_Tile, "", [MemWrite]>:$dst);
  let assemblyFormat = [{
    $cmp custom<Pattern>($pattern) `offset` $offset `channel_multiplier`
    $channel_multiplier `,` $on_true `else` $on_false `into` $dst attr-dict
    `:` type($on_true) `into` type($dst)
  }];
  let hasVerifier = 1;
}

#endif // AXE_DIALECT_TRN_IR_TRNOPS_TD
