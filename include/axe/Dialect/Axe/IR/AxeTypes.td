//===- AxeTypes.td - Types of the axe dialect --------------*- tablegen -*-===//

#ifndef AXE_DIALECT_AXE_IR_AXETYPES_TD
#define AXE_DIALECT_AXE_IR_AXETYPES_TD

include "axe/Dialect/Axe/IR/AxeAttributes.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Axe_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Axe_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Axe_BufferType : Axe_Type<"Buffer", "buffer"> {
  let summary = "A logical tile placed by a layout in a memory space";
  let description = [{
    A tile with a static logical shape and element type whose elements a
    layout places in a memory space. Elements are integers (of at least 1
    bit) or floats: `index` has no width in memory that every backend
    agrees on, and `i0` has nothing to store. An element takes whole bytes
    in memory, as `memref.load` and `memref.store` access it: an `i1` is one
    byte holding 0 or 1.

    ```mlir
    !axe.buffer<128x64xf16, #axe.layout<S[(128, 64) : (64, 1)]>, shared>
    !axe.buffer<16x8xf32, #axe.layout<S[(8, 4, 2, 2) : (4@laneid, 1@laneid, 2, 1)]>, reg>
    ```

    The verifier checks that the layout admits the shape and that the axes
    it uses exist in the memory space: `m` (and cluster CTA axes) in shared
    memory, `m` and the thread axes within a CTA (not `bx`/`by`/`bz` or
    `cbx`/`cby`/`cbz`) in registers, `TLane`/`TCol` in tensor
    memory, `P`/`F` in `sbuf` (and `Bank` in `psum`), `m` and device axes in
    `global`/`hbm`. Swizzles act on `m`, so a swizzled layout needs a memory
    space addressed by `m`.

    *Layouts to infer.* An on-chip buffer may write `?` for its layout
    (`!axe.buffer<128x64xf16, ?, shared>`): `axe-infer-layouts` chooses one
    (docs/UserGuide.md, "Layouts you don't write"). `?` is allowed on
    `axe.alloc` results, on slices of them and through region arguments,
    never on global or hbm buffers (views of memrefs); every pass after
    inference requires concrete layouts and says so when it meets `?`.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    "::mlir::Type":$elementType,
    "::axe::LayoutAttrInterface":$layoutAttr,
    EnumParameter<Axe_MemorySpace>:$memorySpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins
        "::llvm::ArrayRef<int64_t>":$shape, "::mlir::Type":$elementType,
        "::axe::LayoutAttrInterface":$layoutAttr,
        "::axe::MemorySpace":$memorySpace), [{
      return $_get(elementType.getContext(), shape, elementType, layoutAttr,
                   memorySpace);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 0;
  let extraClassDeclaration = [{
    /// The layout as a library value.
    ::axe::Layout getLayout() const { return getLayoutAttr().getLayout(); }
    /// False for a buffer whose layout is `?` (still to infer).
    bool hasLayout() const { return static_cast<bool>(getLayoutAttr()); }
    int64_t getRank() const { return getShape().size(); }
    /// The number of elements; the verifier keeps it inside int64.
    int64_t getNumElements() const;
    /// Bits of one element (the verifier admits only integer and float
    /// elements of at least 1 bit).
    unsigned getElementBitWidth() const {
      return getElementType().getIntOrFloatBitWidth();
    }
    /// The same buffer with another shape and layout.
    BufferType cloneWith(::llvm::ArrayRef<int64_t> shape,
                         ::axe::LayoutAttrInterface layout) const;
  }];
}

def Axe_TokenType : Axe_Type<"Token", "token"> {
  let summary = "Completion token of an asynchronous operator";
  let description = [{
    Returned by `axe.copy_async`; `axe.wait` blocks until the operators whose
    tokens it receives have completed and their writes are visible to the
    waiting scope.
  }];
}

def Axe_PipelineType : Axe_Type<"Pipeline", "pipeline"> {
  let summary = "A ring of stages that partitions hand to each other";
  let description = [{
    The synchronization of a producer/consumer ring of `stages` buffers
    (the buffers themselves are ordinary `axe.alloc`s). Stage index `i`
    (0, 1, 2, ... over the whole kernel) uses slot `i mod stages`; the ops
    on a pipeline take `i` and derive the slot and the round `i / stages`
    from it, so a producer may run up to `stages` indices ahead of its
    consumers.

    ```mlir
    !axe.pipeline<4>
    ```
  }];
  let parameters = (ins "int64_t":$stages);
  let assemblyFormat = "`<` $stages `>`";
  let genVerifyDecl = 1;
}

#endif // AXE_DIALECT_AXE_IR_AXETYPES_TD
