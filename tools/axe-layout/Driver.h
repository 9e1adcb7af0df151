//===- Driver.h - Subcommands and helpers of axe-layout ---------*- C++ -*-===//
//
// axe-layout parses its command line with llvm::cl, one cl::SubCommand per
// operation, and runs the chosen one. A subcommand computes an Answer; main
// prints it as text or JSON, and prints every failure (a command line cl
// rejects included) as 'error: ...' or {"error": ...}.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_TOOLS_AXE_LAYOUT_DRIVER_H
#define AXE_TOOLS_AXE_LAYOUT_DRIVER_H

#include "axe/Layout/Swizzle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <string>
#include <vector>

namespace axe::tool {

/// What a subcommand answers: a text form and a JSON form of the same thing.
/// The JSON writer emits exactly one object, keys in the documented order.
struct Answer {
  std::string text;
  std::function<void(llvm::json::OStream &)> json;
};

/// `text` with invalid UTF-8 replaced, as JSON strings require (user input
/// echoed in messages and paths may be any bytes).
std::string jsonSafe(std::string text);

/// The answer {"layout": text} printed as the text itself.
Answer layoutAnswer(std::string layout);

/// One subcommand. Its options are cl::opts of its cl::SubCommand, defined
/// next to its run function (Commands.cpp); some are shared by several
/// subcommands, so which of them a subcommand needs is checked here, not by
/// cl::Required.
struct Command {
  llvm::cl::SubCommand *sub;
  /// "apply LAYOUT --shape 8x16 [--at 2,9]", for usage lines in errors.
  llvm::StringLiteral synopsis;
  /// The positional layout arguments, and how many the subcommand takes.
  llvm::cl::list<std::string> *layouts;
  unsigned numLayouts;
  std::vector<const llvm::cl::opt<std::string> *> required;
  Result<Answer> (*run)(llvm::ArrayRef<std::string> layouts);
};

/// Every subcommand, in the order the help lists them.
const std::vector<Command> &commands();

/// The category of axe-layout's own options: help lists only these (and
/// cl's generic ones such as --help).
llvm::cl::OptionCategory &toolCategory();

/// "--shape", "-o": an option as it is written on the command line.
std::string optionName(const llvm::cl::Option &option);

//===----------------------------------------------------------------------===//
// Argument parsing (Parsing.cpp)
//===----------------------------------------------------------------------===//

/// Parses a layout argument, naming the argument in the failure.
Result<Layout> parseLayoutArg(llvm::StringRef text, llvm::StringRef what);
/// A decimal int64, rejecting junk and overflow.
Result<int64_t> parseInt(llvm::StringRef text, llvm::StringRef what);
/// "8x16" -> {8, 16}; every dim >= 1 and the product fits in int64.
Result<Shape> parseShape(llvm::StringRef text, llvm::StringRef what);
/// "2,9" -> {2, 9}.
Result<Shape> parseIntList(llvm::StringRef text, llvm::StringRef what);
/// "laneid=8,m=1" -> a physical coordinate.
Result<Coord> parseCoord(llvm::StringRef text, llvm::StringRef what);
/// The shape given by `option`, or the 1-D shape {size} when it is absent;
/// fails when the layout does not admit it.
Result<Shape> admittedShape(const llvm::cl::opt<std::string> &option,
                            const TileLayout &layout, llvm::StringRef what);

/// Rewrites hierarchical thread axes into their parent axes as `target`
/// (sm_80, sm_90, sm_100a) defines them (Target.cpp).
Result<Layout> fuseForTarget(const Layout &layout, llvm::StringRef target);

//===----------------------------------------------------------------------===//
// Rendering (Svg.cpp)
//===----------------------------------------------------------------------===//

struct SvgOptions {
  /// Element size in bytes, for the shared-memory bank of an m coordinate.
  int elemBytes = 2;
  std::string dtype = "f16";
  /// "auto", "owner" (the non-memory axes) or "bank".
  std::string color = "auto";
};

/// Draws `layout` over `shape` as an SVG grid. Fails when the picture would
/// be too large to be useful.
Result<std::string> renderSvg(const Layout &layout,
                              llvm::ArrayRef<int64_t> shape,
                              const SvgOptions &options, std::string *summary);

/// Bytes per element of a dtype name (f16, bf16, f32, i8, ...).
Result<int> dtypeBytes(llvm::StringRef dtype);

/// The shared-memory bank of element address `address` (in elements).
int64_t sharedBank(int64_t address, int elemBytes);

/// Sorts placements by their values on `axes` in order (the library's
/// Coord order skips zero entries, which reads oddly: {dx: 1} < {m: 10}).
void sortPlacements(llvm::SmallVectorImpl<Coord> &placements,
                    llvm::ArrayRef<std::string> axes);

/// How many placements a layout has in total, or a failure when that exceeds
/// `limit` (so that enumerating them stays cheap).
Result<int64_t> checkEnumerable(const TileLayout &layout, int64_t elements,
                                int64_t limit, llvm::StringRef what);

} // namespace axe::tool

#endif // AXE_TOOLS_AXE_LAYOUT_DRIVER_H
