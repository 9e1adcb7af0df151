//===- AxeAttributes.td - Attributes of the axe dialect ----*- tablegen -*-===//

#ifndef AXE_DIALECT_AXE_IR_AXEATTRIBUTES_TD
#define AXE_DIALECT_AXE_IR_AXEATTRIBUTES_TD

include "axe/Dialect/Axe/IR/AxeDialect.td"
include "axe/Dialect/Axe/IR/AxeInterfaces.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Axe_Attr<string name, list<Trait> traits = []>
    : AttrDef<Axe_Dialect, name, traits>;

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Axe_LayoutAttr : Axe_Attr<"Layout", [
    DeclareAttrInterfaceMethods<Axe_LayoutAttrInterface,
                                ["getLayout", "getSpan", "getCanonical"]>]> {
  let mnemonic = "layout";
  let summary = "An Axe tile layout: shard, replica and offset over named axes";
  let description = [{
    A tile layout in the notation of `docs/LayoutSemantics.md` section 3,
    parsed and printed by the layout library:

    ```mlir
    #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid>
    #axe.layout<S[(128, 64) : (64, 1)]>
    ```

    The same spelling with a leading `SW(M, B, S) o` denotes a swizzled
    layout and yields an `axe::SwizzledLayoutAttr`. The attribute keeps the
    layout as written; `axe-canonicalize-layouts` rewrites it to canonical
    form.
  }];
  let parameters = (ins
    AttrParameter<"::axe::TileLayout", "the tile layout",
                  "const ::axe::TileLayout &">:$tileLayout);
  let hasCustomAssemblyFormat = 1;
}

def Axe_SwizzledLayoutAttr : Axe_Attr<"SwizzledLayout", [
    DeclareAttrInterfaceMethods<Axe_LayoutAttrInterface,
                                ["getLayout", "isSwizzled", "getSpan",
                                 "getCanonical"]>]> {
  let summary = "A tile layout followed by a swizzle of its m coordinate";
  let description = [{
    `Swizzle(M, B, S)` composed after a tile layout
    (`docs/LayoutSemantics.md` section 9). Written with the same
    `#axe.layout` spelling as a plain layout:

    ```mlir
    #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>
    ```

    The tile part is an `axe::LayoutAttr`, so passes that rewrite tile
    layouts reach it as a sub-element.
  }];
  let parameters = (ins
    AttrParameter<"::axe::Swizzle", "the swizzle applied to m">:$swizzle,
    "::axe::LayoutAttr":$tileAttr);
  // No mnemonic: the dialect prints and parses it as `#axe.layout<...>`.
  let attrName = "axe.swizzled_layout";
}

//===----------------------------------------------------------------------===//
// Scopes, memory spaces, targets
//===----------------------------------------------------------------------===//

def Axe_ScopeAttr : Axe_Attr<"Scope"> {
  let mnemonic = "scope";
  let summary = "An execution scope";
  let description = [{
    The group of threads (or devices) that executes an operator together:

    ```mlir
    #axe.scope<thread>  #axe.scope<warp>  #axe.scope<warpgroup>
    #axe.scope<cta>     #axe.scope<cluster>  #axe.scope<kernel>
    #axe.scope<mesh<dx = 2, dy = 2>>
    ```

    A mesh scope names its device axes and their extents; buffers placed on
    those axes are distributed over the devices. Inside operators the scope
    is written without the `#axe.scope<...>` wrapper: `at warp`,
    `at mesh<gpuid = 4>`.
  }];
  let parameters = (ins
    EnumParameter<Axe_ScopeKind>:$kind,
    OptionalArrayRefParameter<"::mlir::StringAttr", "mesh axis names">:$meshAxes,
    OptionalArrayRefParameter<"int64_t", "mesh axis extents">:$meshShape);
  let builders = [
    AttrBuilder<(ins "::axe::ScopeKind":$kind), [{
      return $_get($_ctxt, kind, ::llvm::ArrayRef<::mlir::StringAttr>(),
                   ::llvm::ArrayRef<int64_t>());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Parses the body `cta` or `mesh<dx = 2, dy = 2>` (no angle brackets
    /// around it); shared by the attribute and the operators' `at` clause.
    static ::mlir::Attribute parseBody(::mlir::AsmParser &parser);
    void printBody(::mlir::AsmPrinter &printer) const;

    bool isMesh() const { return getKind() == ::axe::ScopeKind::Mesh; }
    /// The extent of a mesh axis, if this mesh has it.
    std::optional<int64_t> getMeshExtent(::llvm::StringRef axis) const;
  }];
}

def Axe_MemorySpaceAttr : EnumAttr<Axe_Dialect, Axe_MemorySpace, "memory_space"> {
  let assemblyFormat = "`<` $value `>`";
}

// `#axe.reduce_kind<max>`; a bare keyword inside `axe.reduce`.
def Axe_ReduceKindAttr : EnumAttr<Axe_Dialect, Axe_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Axe_TargetAttr : Axe_Attr<"Target"> {
  let mnemonic = "target";
  let summary = "A target machine, backed by the C++ target description";
  let description = [{
    Names one of the targets of `axe/Target/Target.h` (`sm_80`, `sm_90`,
    `sm_100a`, `cpu`, `trn1`), e.g. `#axe.target<"sm_90">`. Put it on a
    module as `axe.target` or on an `axe.kernel`; verifiers and schedules read
    axes, memory spaces and thread-group sizes from its description.
  }];
  let parameters = (ins StringRefParameter<"target name">:$name);
  let assemblyFormat = "`<` $name `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The description; the attribute verified that the name is known.
    const ::axe::TargetDescription &getDescription() const;
  }];
}

#endif // AXE_DIALECT_AXE_IR_AXEATTRIBUTES_TD
