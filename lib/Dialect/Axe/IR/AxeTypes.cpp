//===- AxeTypes.cpp - Buffer and token types ------------------------------===//

#include "axe/Dialect/Axe/IR/AxeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace axe;

#define GET_TYPEDEF_CLASSES
#include "axe/Dialect/Axe/IR/AxeTypes.cpp.inc"

void AxeDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "axe/Dialect/Axe/IR/AxeTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// BufferType
//===----------------------------------------------------------------------===//

// !axe.buffer<128x64xf16, #axe.layout<...>, shared>
Type BufferType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  llvm::SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  SMLoc layoutLoc = parser.getCurrentLocation();
  // `?` leaves the layout to axe-infer-layouts (a null attribute).
  LayoutAttrInterface layoutAttr;
  if (failed(parser.parseOptionalQuestion())) {
    Attribute layout;
    if (parser.parseAttribute(layout))
      return {};
    layoutAttr = dyn_cast<LayoutAttrInterface>(layout);
    if (!layoutAttr) {
      parser.emitError(layoutLoc)
          << "expected a layout attribute (#axe.layout<...>) or '?', got "
          << layout;
      return {};
    }
  }
  if (parser.parseComma())
    return {};
  SMLoc spaceLoc = parser.getCurrentLocation();
  std::string spaceName;
  if (parser.parseKeywordOrString(&spaceName))
    return {};
  std::optional<MemorySpace> space = symbolizeMemorySpace(spaceName);
  if (!space) {
    parser.emitError(spaceLoc)
        << "unknown memory space '" << spaceName
        << "'; expected global, shared, reg, tmem, sbuf, psum or hbm";
    return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, elementType, layoutAttr, *space);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape())
    printer << dim << "x";
  printer << getElementType() << ", ";
  if (hasLayout())
    printer.printAttribute(getLayoutAttr());
  else
    printer << "?";
  printer << ", " << stringifyMemorySpace(getMemorySpace()) << ">";
}

LogicalResult
PipelineType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                     int64_t stages) {
  // Two 8-byte mbarriers a stage on a GPU; rings deeper than this would not
  // have buffers to go with them in any on-chip memory.
  constexpr int64_t kMaxStages = 64;
  if (stages < 1 || stages > kMaxStages)
    return emitError() << "a pipeline has 1 to " << kMaxStages
                       << " stages, not " << stages;
  return success();
}

LogicalResult
BufferType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   llvm::ArrayRef<int64_t> shape, Type elementType,
                   LayoutAttrInterface layoutAttr, MemorySpace memorySpace) {
  for (int64_t dim : shape)
    if (dim < 1)
      return emitError() << "buffer dims must be static and positive, got "
                         << shapeStr(shape);
  // Only what every backend can store: index has no fixed width in memory
  // and i0 holds nothing.
  if (isa<IndexType>(elementType))
    return emitError() << "buffer element type cannot be 'index', whose width "
                          "in memory the backends do not fix; use i32 or i64";
  if (!elementType.isIntOrFloat())
    return emitError() << "buffer element type must be an integer or float "
                          "type, got "
                       << elementType;
  if (elementType.getIntOrFloatBitWidth() == 0)
    return emitError() << "buffer element type " << elementType
                       << " has no bits to store";
  Result<int64_t> numElements = shapeSize(shape);
  if (!numElements)
    return emitError() << "invalid buffer shape: " << numElements.message();
  if (memorySpace == MemorySpace::Global || memorySpace == MemorySpace::HBM) {
    if (!layoutAttr)
      return emitError() << stringifyMemorySpace(memorySpace)
                         << " buffers are views of memrefs, whose layout "
                            "their strides give; '?' is for on-chip buffers";
  }
  if (!layoutAttr)
    return success();
  if (!layoutAttr.admitsShape(shape))
    return emitError() << "layout " << layoutAttr.str() << " places "
                       << layoutAttr.getSize()
                       << " elements and does not admit the shape "
                       << shapeStr(shape) << " (" << *numElements
                       << " elements)";
  if (std::optional<std::string> why =
          checkLayoutForMemorySpace(layoutAttr.getLayout(), memorySpace))
    return emitError() << *why;
  return success();
}

int64_t BufferType::getNumElements() const {
  Result<int64_t> n = shapeSize(getShape());
  // Only a type built without its verifier (BufferType::get in a release
  // build) can overflow; saturate rather than wrap.
  return n ? *n : INT64_MAX;
}

BufferType BufferType::cloneWith(llvm::ArrayRef<int64_t> shape,
                                 LayoutAttrInterface layout) const {
  return BufferType::get(getContext(), shape, getElementType(), layout,
                         getMemorySpace());
}
