//===- AxeInterfaces.td - Interfaces of the axe dialect ----*- tablegen -*-===//

#ifndef AXE_DIALECT_AXE_IR_AXEINTERFACES_TD
#define AXE_DIALECT_AXE_IR_AXEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Axe_LayoutAttrInterface : AttrInterface<"LayoutAttrInterface"> {
  let cppNamespace = "::axe";
  let description = [{
    An attribute that denotes an Axe layout: a map from the flat logical
    index of a tile to a set of coordinates on named axes. Passes and
    schedules read layouts through this interface, so they work the same on
    plain and swizzled layouts. Every method answers through the `AxeLayout`
    library.
  }];
  let methods = [
    InterfaceMethod<"The layout as a library value.",
      "::axe::Layout", "getLayout">,
    InterfaceMethod<"Whether a swizzle follows the tile layout.",
      "bool", "isSwizzled", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<"The tile (shard, replica, offset) part of the layout.",
      "::axe::TileLayout", "getTileLayout", (ins), [{}],
      [{ return $_attr.getLayout().tile(); }]>,
    InterfaceMethod<"The number of logical elements the layout places.",
      "int64_t", "getSize", (ins), [{}],
      [{ return $_attr.getLayout().size(); }]>,
    InterfaceMethod<"Whether the layout admits a logical shape "
                    "(same number of elements).",
      "bool", "admitsShape", (ins "::llvm::ArrayRef<int64_t>":$shape), [{}],
      [{ return $_attr.getLayout().admits(shape); }]>,
    InterfaceMethod<"Every placement of a flat logical index "
                    "(0 <= flat < getSize()).",
      "::llvm::SmallVector<::axe::Coord, 4>", "apply", (ins "int64_t":$flat),
      [{}], [{ return $_attr.getLayout().apply(flat); }]>,
    InterfaceMethod<"Every placement of a logical coordinate of an admitted "
                    "shape, or why there is none.",
      "::axe::Result<::llvm::SmallVector<::axe::Coord, 4>>", "applyAt",
      (ins "::llvm::ArrayRef<int64_t>":$coord,
           "::llvm::ArrayRef<int64_t>":$shape), [{}],
      [{ return $_attr.getLayout().apply(coord, shape); }]>,
    InterfaceMethod<"The axis-wise span (docs/LayoutSemantics.md section 5) "
                    "of the memory the layout reaches.",
      "::axe::Coord", "getSpan">,
    InterfaceMethod<"Every axis the layout mentions, sorted by name.",
      "::llvm::SmallVector<std::string, 4>", "getAxes", (ins), [{}],
      [{ return $_attr.getLayout().tile().axes(); }]>,
    InterfaceMethod<"The same map in canonical form "
                    "(docs/LayoutSemantics.md section 4), as an attribute.",
      "::axe::LayoutAttrInterface", "getCanonical">,
    InterfaceMethod<"Whether the attribute already is in canonical form.",
      "bool", "isCanonical", (ins), [{}],
      [{ return ::mlir::Attribute($_attr) == ::mlir::Attribute($_attr.getCanonical()); }]>,
    InterfaceMethod<"The text notation of the layout.",
      "std::string", "str", (ins), [{}],
      [{ return $_attr.getLayout().str(); }]>,
  ];
}

def Axe_OperatorOpInterface : OpInterface<"OperatorOpInterface"> {
  let cppNamespace = "::axe";
  let description = [{
    A collective operator: it runs at an execution scope (every thread of
    the scope takes part) on buffers, and may force a schedule by name.
    Schedule dispatch matches on this interface. The verifier checks that the
    scope can own every buffer the operator touches.
  }];
  let methods = [
    InterfaceMethod<"The execution scope.", "::axe::ScopeAttr", "getScope">,
    InterfaceMethod<[{The schedule this op forces: `schedule = "name"` or
      `schedule = {sm_90 = "name", ...}` (per target); null when none.}],
      "::mlir::Attribute", "getScheduleAttr">,
    InterfaceMethod<"Every buffer operand, in operand order.",
      "::llvm::SmallVector<::mlir::Value>", "getBufferOperands", (ins), [{}],
      [{
        ::llvm::SmallVector<::mlir::Value> buffers;
        for (::mlir::Value v : $_op->getOperands())
          if (::llvm::isa<::axe::BufferType>(v.getType()))
            buffers.push_back(v);
        return buffers;
      }]>,
  ];
  let verify = [{ return ::axe::detail::verifyOperatorOp($_op); }];
}

#endif // AXE_DIALECT_AXE_IR_AXEINTERFACES_TD
