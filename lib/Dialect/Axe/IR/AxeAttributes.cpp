//===- AxeAttributes.cpp - Layout, scope and target attributes ------------===//
//
// The layout attributes hand their text to the layout library and print what
// it prints; they never interpret the notation themselves.
//
//===----------------------------------------------------------------------===//

#include "axe/Dialect/Axe/IR/AxeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace axe;

llvm::hash_code axe::hash_value(const TileLayout &layout) {
  llvm::hash_code code = llvm::hash_value(layout.shard().size());
  for (llvm::ArrayRef<Iter> iters : {layout.shard(), layout.replica()}) {
    for (const Iter &it : iters)
      code = llvm::hash_combine(code, it.extent, it.stride,
                                llvm::StringRef(it.axis));
    code = llvm::hash_combine(code, iters.size());
  }
  for (const auto &[axis, value] : layout.offset().entries())
    code = llvm::hash_combine(code, llvm::StringRef(axis), value);
  return code;
}

llvm::hash_code axe::hash_value(const Swizzle &swizzle) {
  return llvm::hash_combine(swizzle.perElement, swizzle.swizzleLen,
                            swizzle.atomLen);
}

#include "axe/Dialect/Axe/IR/AxeAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "axe/Dialect/Axe/IR/AxeAttributes.cpp.inc"

void AxeDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "axe/Dialect/Axe/IR/AxeAttributes.cpp.inc"
      >();
}

Attribute AxeDialect::parseAttribute(DialectAsmParser &parser,
                                     Type type) const {
  SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef mnemonic;
  Attribute attr;
  OptionalParseResult result =
      generatedAttributeParser(parser, &mnemonic, type, attr);
  if (result.has_value())
    return succeeded(*result) ? attr : Attribute();
  parser.emitError(loc) << "unknown axe attribute '" << mnemonic
                        << "'; expected layout, scope, memory_space, "
                           "reduce_kind or target";
  return {};
}

void AxeDialect::printAttribute(Attribute attr,
                                DialectAsmPrinter &printer) const {
  // Swizzled layouts share the `layout` spelling, which ODS cannot express.
  if (auto swizzled = dyn_cast<SwizzledLayoutAttr>(attr)) {
    printer << "layout<" << swizzled.getLayout().str() << ">";
    return;
  }
  if (failed(generatedAttributePrinter(attr, printer)))
    llvm_unreachable("every axe attribute has a printer");
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

LayoutAttrInterface axe::getLayoutAttr(MLIRContext *context,
                                       const Layout &layout) {
  auto tile = LayoutAttr::get(context, layout.tile());
  if (const std::optional<Swizzle> &sw = layout.swizzle())
    return SwizzledLayoutAttr::get(context, *sw, tile);
  return tile;
}

/// Consumes the tokens of a layout up to (excluding) the closing '>' and
/// returns where that '>' starts. The notation lexes as ordinary MLIR tokens
/// (identifiers, integers, @symbols, punctuation), so walking them is enough
/// to find where the text ends; its meaning is left to the library.
static FailureOr<SMLoc> skipLayoutTokens(AsmParser &parser) {
  int depth = 0;
  while (true) {
    SMLoc loc = parser.getCurrentLocation();
    if (depth == 0 && succeeded(parser.parseOptionalGreater()))
      return loc;
    if (succeeded(parser.parseOptionalLParen()) ||
        succeeded(parser.parseOptionalLSquare())) {
      ++depth;
      continue;
    }
    if (succeeded(parser.parseOptionalRParen()) ||
        succeeded(parser.parseOptionalRSquare())) {
      if (--depth < 0)
        return parser.emitError(loc, "unbalanced bracket in layout");
      continue;
    }
    if (succeeded(parser.parseOptionalComma()) ||
        succeeded(parser.parseOptionalColon()) ||
        succeeded(parser.parseOptionalPlus()))
      continue;
    APInt integer;
    OptionalParseResult intResult = parser.parseOptionalInteger(integer);
    if (intResult.has_value()) {
      if (failed(*intResult))
        return failure();
      continue;
    }
    StringAttr symbol;
    if (succeeded(parser.parseOptionalSymbolName(symbol)))
      continue;
    llvm::StringRef keyword;
    if (succeeded(parser.parseOptionalKeyword(&keyword)))
      continue;
    return parser.emitError(loc, "unexpected token in layout; expected the "
                                 "layout notation of docs/LayoutSemantics.md "
                                 "section 3, e.g. "
                                 "S[(8, 4) : (4@laneid, 1@laneid)]");
  }
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  SMLoc start = parser.getCurrentLocation();
  FailureOr<SMLoc> end = skipLayoutTokens(parser);
  if (failed(end))
    return {};
  llvm::StringRef text(start.getPointer(),
                       end->getPointer() - start.getPointer());
  text = text.trim();
  Result<Layout> layout = parseLayout(text);
  if (!layout) {
    // Point at the column the library names, when it names one.
    SMLoc loc = start;
    llvm::StringRef rest = layout.message();
    unsigned column;
    if (rest.consume_front("at column ") && !rest.consumeInteger(10, column) &&
        column >= 1 && column <= text.size())
      loc = SMLoc::getFromPointer(text.data() + column - 1);
    parser.emitError(loc) << "invalid layout: " << layout.message();
    return {};
  }
  return getLayoutAttr(parser.getContext(), *layout);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << "<" << getTileLayout().str() << ">";
}

Layout LayoutAttr::getLayout() const { return Layout(getTileLayout()); }

Coord LayoutAttr::getSpan() const { return getTileLayout().span(); }

LayoutAttrInterface LayoutAttr::getCanonical() const {
  return LayoutAttr::get(getContext(), canonicalize(getTileLayout()));
}

Layout SwizzledLayoutAttr::getLayout() const {
  return Layout(getSwizzle(), getTileAttr().getTileLayout());
}

bool SwizzledLayoutAttr::isSwizzled() const { return true; }

Coord SwizzledLayoutAttr::getSpan() const { return getLayout().span(); }

LayoutAttrInterface SwizzledLayoutAttr::getCanonical() const {
  return getLayoutAttr(getContext(), canonicalize(getLayout()));
}

//===----------------------------------------------------------------------===//
// Scope
//===----------------------------------------------------------------------===//

Attribute ScopeAttr::parseBody(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string keyword;
  if (parser.parseKeywordOrString(&keyword))
    return {};
  std::optional<ScopeKind> kind = symbolizeScopeKind(keyword);
  if (!kind) {
    parser.emitError(loc) << "unknown scope '" << keyword
                          << "'; expected thread, warp, warpgroup, cta, "
                             "cluster, kernel or mesh<axis = extent, ...>";
    return {};
  }
  llvm::SmallVector<StringAttr> axes;
  llvm::SmallVector<int64_t> shape;
  if (*kind == ScopeKind::Mesh) {
    auto parseAxis = [&]() -> ParseResult {
      std::string name;
      int64_t extent;
      if (parser.parseKeywordOrString(&name) || parser.parseEqual() ||
          parser.parseInteger(extent))
        return failure();
      axes.push_back(StringAttr::get(parser.getContext(), name));
      shape.push_back(extent);
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                       parseAxis, " in a mesh scope"))
      return {};
  }
  return ScopeAttr::getChecked([&] { return parser.emitError(loc); },
                               parser.getContext(), *kind, axes, shape);
}

void ScopeAttr::printBody(AsmPrinter &printer) const {
  printer << stringifyScopeKind(getKind());
  if (!isMesh())
    return;
  printer << "<";
  llvm::interleaveComma(
      llvm::zip(getMeshAxes(), getMeshShape()), printer, [&](auto pair) {
        printer.printKeywordOrString(std::get<0>(pair).getValue());
        printer << " = " << std::get<1>(pair);
      });
  printer << ">";
}

Attribute ScopeAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  Attribute attr = parseBody(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void ScopeAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer);
  printer << ">";
}

LogicalResult
ScopeAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                  ScopeKind kind, llvm::ArrayRef<StringAttr> meshAxes,
                  llvm::ArrayRef<int64_t> meshShape) {
  if (kind != ScopeKind::Mesh) {
    if (!meshAxes.empty() || !meshShape.empty())
      return emitError() << "only a mesh scope has axes";
    return success();
  }
  if (meshAxes.empty())
    return emitError() << "a mesh scope needs at least one device axis, e.g. "
                          "mesh<gpuid = 4>";
  if (meshAxes.size() != meshShape.size())
    return emitError() << "a mesh scope needs one extent per axis";
  llvm::SmallSet<llvm::StringRef, 4> seen;
  for (auto [axis, extent] : llvm::zip(meshAxes, meshShape)) {
    llvm::StringRef name = axis.getValue();
    if (!isValidAxisName(name))
      return emitError() << "invalid mesh axis name '" << name << "'";
    AxisKind kind = axisKind(name);
    if (kind != AxisKind::Device && kind != AxisKind::User)
      return emitError() << "mesh axis '" << name << "' is a "
                         << axisKindName(kind)
                         << " axis; a mesh is spanned by device axes "
                            "(gpuid or a name of your own)";
    if (!seen.insert(name).second)
      return emitError() << "mesh axis '" << name << "' appears twice";
    if (extent < 1)
      return emitError() << "mesh axis '" << name
                         << "' must have a positive extent, got " << extent;
  }
  return success();
}

std::optional<int64_t> ScopeAttr::getMeshExtent(llvm::StringRef axis) const {
  for (auto [name, extent] : llvm::zip(getMeshAxes(), getMeshShape()))
    if (name.getValue() == axis)
      return extent;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

LogicalResult
TargetAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   llvm::StringRef name) {
  Result<const TargetDescription *> target = lookupTarget(name);
  if (!target)
    return emitError() << target.message();
  return success();
}

const TargetDescription &TargetAttr::getDescription() const {
  Result<const TargetDescription *> target = lookupTarget(getName());
  assert(target && "TargetAttr verified its name");
  return **target;
}
