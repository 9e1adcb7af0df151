//===- Parsing.cpp - Argument values of axe-layout -----------------------===//

#include "Driver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace axe;
using namespace axe::tool;

std::string tool::optionName(const llvm::cl::Option &option) {
  return (option.ArgStr.size() == 1 ? "-" : "--") + option.ArgStr.str();
}

std::string tool::jsonSafe(std::string text) {
  if (llvm::json::isUTF8(text))
    return text;
  return llvm::json::fixUTF8(text);
}

Result<Layout> tool::parseLayoutArg(llvm::StringRef text,
                                    llvm::StringRef what) {
  Result<Layout> layout = parseLayout(text);
  // The parser's message already quotes the text and the column.
  if (!layout)
    return fail((what + ": " + layout.message()).str());
  return layout;
}

Result<int64_t> tool::parseInt(llvm::StringRef text, llvm::StringRef what) {
  int64_t value = 0;
  // getAsInteger rejects junk and out-of-range values instead of wrapping.
  if (text.trim().getAsInteger(10, value))
    return fail(("bad number '" + text + "' in " + what).str());
  return value;
}

Result<Shape> tool::parseIntList(llvm::StringRef text, llvm::StringRef what) {
  if (text.trim().empty())
    return fail(("empty " + what).str());
  llvm::SmallVector<llvm::StringRef, 4> parts;
  text.split(parts, ',');
  Shape out;
  for (llvm::StringRef part : parts) {
    Result<int64_t> v = parseInt(part, what);
    if (!v)
      return v.takeFailure();
    out.push_back(*v);
  }
  return out;
}

Result<Shape> tool::parseShape(llvm::StringRef text, llvm::StringRef what) {
  if (text.trim().empty())
    return fail(("empty " + what).str());
  llvm::SmallVector<llvm::StringRef, 4> parts;
  text.split(parts, 'x');
  Shape out;
  for (llvm::StringRef part : parts) {
    Result<int64_t> v = parseInt(part, what);
    if (!v)
      return v.takeFailure();
    if (*v < 1)
      return fail(
          ("dims of " + what + " must be >= 1, got '" + text + "'").str());
    out.push_back(*v);
  }
  Result<int64_t> size = shapeSize(out);
  if (!size)
    return fail((what + " '" + text + "': " + size.message()).str());
  return out;
}

Result<Coord> tool::parseCoord(llvm::StringRef text, llvm::StringRef what) {
  if (text.trim().empty())
    return fail(("empty " + what).str());
  llvm::SmallVector<llvm::StringRef, 4> parts;
  text.split(parts, ',');
  Coord out;
  std::set<std::string> seen;
  for (llvm::StringRef part : parts) {
    auto [axis, value] = part.split('=');
    axis = axis.trim();
    if (!part.contains('=') || !isValidAxisName(axis))
      return fail(
          ("expected AXIS=VALUE in " + what + ", got '" + part + "'").str());
    Result<int64_t> v = parseInt(value, what);
    if (!v)
      return v.takeFailure();
    if (!seen.insert(axis.str()).second)
      return fail(("axis '" + axis + "' given twice in " + what).str());
    out.set(axis, *v);
  }
  return out;
}

Result<Shape> tool::admittedShape(const llvm::cl::opt<std::string> &option,
                                  const TileLayout &layout,
                                  llvm::StringRef what) {
  if (!option.getNumOccurrences())
    return Shape{layout.size()};
  std::string name = optionName(option);
  Result<Shape> shape = parseShape(option, name);
  if (!shape)
    return shape;
  if (!layout.admits(*shape))
    return fail(("shape " + shapeStr(*shape) + " (" + name + ") has " +
                 std::to_string(*shapeSize(*shape)) + " elements but " + what +
                 " has " + std::to_string(layout.size()))
                    .str());
  return shape;
}

Result<int64_t> tool::checkEnumerable(const TileLayout &layout,
                                      int64_t elements, int64_t limit,
                                      llvm::StringRef what) {
  int64_t total = elements;
  bool tooMany = total > limit;
  // Count the placements ourselves: replica extents can multiply past int64.
  for (const Iter &r : layout.replica())
    tooMany = tooMany || mulOverflows(total, r.extent, total) || total > limit;
  if (tooMany)
    return fail(
        (what + " has more than " + std::to_string(limit) + " placements")
            .str());
  return total;
}

void tool::sortPlacements(llvm::SmallVectorImpl<Coord> &placements,
                          llvm::ArrayRef<std::string> axes) {
  auto values = [&](const Coord &c) {
    llvm::SmallVector<int64_t, 4> v;
    for (const std::string &axis : axes)
      v.push_back(c.get(axis));
    return v;
  };
  llvm::stable_sort(placements, [&](const Coord &a, const Coord &b) {
    return values(a) < values(b);
  });
}
