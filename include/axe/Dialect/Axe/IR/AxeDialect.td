//===- AxeDialect.td - The axe dialect and its enums -------*- tablegen -*-===//

#ifndef AXE_DIALECT_AXE_IR_AXEDIALECT_TD
#define AXE_DIALECT_AXE_IR_AXEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Axe_Dialect : Dialect {
  let name = "axe";
  let cppNamespace = "::axe";
  let summary = "Collective operators on tiles placed by Axe layouts";
  let description = [{
    The `axe` dialect writes kernels as collective operators (`copy`, `gemm`,
    `reduce`, `fill`, `elementwise`) executed at an *execution scope*
    (`mesh`, `kernel`, `cluster`, `cta`, `warpgroup`, `warp`, `thread`) on
    *buffers*: logical tiles with a static shape whose elements an Axe layout
    places on named hardware axes (threads, memory, devices).

    Layouts are the attributes `#axe.layout<...>` written in the notation of
    `docs/LayoutSemantics.md` section 3, e.g.

    ```mlir
    #axe.layout<S[(8, 2, 4, 2) : (4@laneid, 1@warpid, 1@laneid, 1)] + R[2 : 4@warpid] + 5@warpid>
    #axe.layout<SW(3, 3, 3) o S[(8, 64) : (64, 1)]>
    ```

    All layout arithmetic (parsing, printing, canonical forms, slicing) is
    done by the `AxeLayout` library; the attributes only wrap it.
  }];
  let useDefaultTypePrinterParser = 1;
  // The plain and the swizzled layout attributes share the `layout` spelling,
  // so the dialect dispatches attribute parsing by hand.
  let useDefaultAttributePrinterParser = 0;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;

    /// The discardable attribute that names a module's target.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("axe.target");
    }

  private:
    void registerAttributes();
    void registerTypes();
    void registerOps();
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Axe_MemorySpace : I32Enum<"MemorySpace", "memory space of a buffer", [
    I32EnumCase<"Global", 0, "global">,
    I32EnumCase<"Shared", 1, "shared">,
    I32EnumCase<"Reg", 2, "reg">,
    I32EnumCase<"TMem", 3, "tmem">,
    I32EnumCase<"SBuf", 4, "sbuf">,
    I32EnumCase<"PSum", 5, "psum">,
    I32EnumCase<"HBM", 6, "hbm">
  ]> {
  let cppNamespace = "::axe";
}

// Ordered from the narrowest to the broadest so that scopes compare with <.
def Axe_ScopeKind : I32Enum<"ScopeKind", "execution scope", [
    I32EnumCase<"Thread", 0, "thread">,
    I32EnumCase<"Warp", 1, "warp">,
    I32EnumCase<"Warpgroup", 2, "warpgroup">,
    I32EnumCase<"CTA", 3, "cta">,
    I32EnumCase<"Cluster", 4, "cluster">,
    I32EnumCase<"Kernel", 5, "kernel">,
    I32EnumCase<"Mesh", 6, "mesh">
  ]> {
  let cppNamespace = "::axe";
}

def Axe_ReduceKind : I32Enum<"ReduceKind", "reduction combiner", [
    I32EnumCase<"Sum", 0, "sum">,
    I32EnumCase<"Max", 1, "max">,
    I32EnumCase<"Min", 2, "min">,
    I32EnumCase<"Prod", 3, "prod">
  ]> {
  let cppNamespace = "::axe";
}

#endif // AXE_DIALECT_AXE_IR_AXEDIALECT_TD
