//===- Commands.cpp - The subcommands of axe-layout ----------------------===//

#include "Driver.h"

#include "axe/Layout/Algebra.h"
#include "axe/Layout/Collective.h"
#include "axe/Layout/SwizzleAlgebra.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace axe;
using namespace axe::tool;
namespace cl = llvm::cl;

/// The most placements apply lists: beyond this the output is unreadable and
/// the run slow.
static constexpr int64_t kEnumerationLimit = int64_t(1) << 20;

//===----------------------------------------------------------------------===//
// Subcommands and their options
//===----------------------------------------------------------------------===//

cl::OptionCategory &tool::toolCategory() {
  static cl::OptionCategory category("axe-layout options");
  return category;
}

// The subcommands come first: the options below name them.
static cl::SubCommand canonCmd("canon", "Canonical form of a layout; with "
                                        "--target, thread axes fused");
static cl::SubCommand applyCmd("apply",
                               "Physical placements of logical coordinates");
static cl::SubCommand inverseCmd("inverse",
                                 "The logical coordinate of a placement");
static cl::SubCommand spanCmd("span", "Span of the layout on each axis");
static cl::SubCommand groupCmd("group",
                               "Split the shard into one block per dim");
static cl::SubCommand tileCmd("tile", "Tile INNER by the grid OUTER");
static cl::SubCommand tileOfCmd("tile-of",
                                "Recover the grid (or the tile) of a tiling");
static cl::SubCommand sliceCmd("slice", "Layout of a region of the tile");
static cl::SubCommand directSumCmd("direct-sum",
                                   "Direct sum A (+) B (tiling without "
                                   "span scaling)");
static cl::SubCommand equivCmd("equiv",
                               "Whether two layouts have the same map");
static cl::SubCommand showCmd("show", "Draw a layout as an SVG grid");
static cl::SubCommand planCmd("plan",
                              "Collectives that move a buffer from layout "
                              "SOURCE to DEST across a device mesh");

static cl::list<std::string> oneLayout(cl::Positional, cl::desc("LAYOUT"),
                                       cl::sub(canonCmd), cl::sub(applyCmd),
                                       cl::sub(inverseCmd), cl::sub(spanCmd),
                                       cl::sub(groupCmd), cl::sub(sliceCmd),
                                       cl::sub(showCmd),
                                       cl::cat(toolCategory()));
static cl::list<std::string> tileLayouts(cl::Positional,
                                         cl::desc("INNER OUTER"),
                                         cl::sub(tileCmd),
                                         cl::cat(toolCategory()));
static cl::list<std::string> tileOfLayouts(cl::Positional,
                                           cl::desc("LAYOUT INNER|OUTER"),
                                           cl::sub(tileOfCmd),
                                           cl::cat(toolCategory()));
static cl::list<std::string> twoLayouts(cl::Positional, cl::desc("A B"),
                                        cl::sub(directSumCmd),
                                        cl::sub(equivCmd),
                                        cl::cat(toolCategory()));
static cl::list<std::string> planLayouts(cl::Positional,
                                         cl::desc("SOURCE DEST"),
                                         cl::sub(planCmd),
                                         cl::cat(toolCategory()));

static cl::opt<std::string>
    shapeOpt("shape",
             cl::desc("Logical shape of LAYOUT, row-major; where it is "
                      "optional, the default is the layout's size in one dim"),
             cl::value_desc("8x16"), cl::sub(applyCmd), cl::sub(inverseCmd),
             cl::sub(groupCmd), cl::sub(tileOfCmd), cl::sub(sliceCmd),
             cl::sub(showCmd), cl::sub(planCmd), cl::cat(toolCategory()));
static cl::opt<bool>
    rawOpt("raw", cl::desc("Print the result as computed, not canonicalized"),
           cl::ValueDisallowed, cl::sub(tileCmd), cl::sub(tileOfCmd),
           cl::sub(sliceCmd), cl::sub(directSumCmd), cl::cat(toolCategory()));
static cl::opt<std::string>
    targetOpt("target",
              cl::desc("Fuse thread axes as the target defines them "
                       "(sm_80, sm_90, sm_100a, cpu)"),
              cl::value_desc("sm_90"), cl::sub(canonCmd),
              cl::cat(toolCategory()));
static cl::opt<std::string> applyAtOpt("at",
                                       cl::desc("Only this logical coordinate"),
                                       cl::value_desc("2,9"), cl::sub(applyCmd),
                                       cl::cat(toolCategory()));
static cl::opt<std::string>
    inverseAtOpt("at", cl::desc("The physical coordinate to invert (required)"),
                 cl::value_desc("laneid=8,warpid=6,m=1"), cl::sub(inverseCmd),
                 cl::cat(toolCategory()));
static cl::opt<std::string> innerShapeOpt("inner-shape",
                                          cl::desc("Logical shape of the tile"),
                                          cl::value_desc("2x4"),
                                          cl::sub(tileCmd), cl::sub(tileOfCmd),
                                          cl::cat(toolCategory()));
static cl::opt<std::string>
    outerShapeOpt("outer-shape", cl::desc("Logical shape of the grid of tiles"),
                  cl::value_desc("8x8"), cl::sub(tileCmd), cl::sub(tileOfCmd),
                  cl::cat(toolCategory()));
static cl::opt<std::string> regionOpt(
    "region",
    cl::desc("Region per dim, comma-separated: LO:HI, LO:+LEN, or "
             "NAME*ALIGN:+LEN for a start known only to be a multiple of "
             "ALIGN (required)"),
    cl::value_desc("0:128,32:96"), cl::sub(sliceCmd), cl::cat(toolCategory()));
static cl::opt<std::string> aShapeOpt("a-shape",
                                      cl::desc("Logical shape of A (required)"),
                                      cl::value_desc("2x2"),
                                      cl::sub(directSumCmd),
                                      cl::cat(toolCategory()));
static cl::opt<std::string> bShapeOpt("b-shape",
                                      cl::desc("Logical shape of B (required)"),
                                      cl::value_desc("2x2"),
                                      cl::sub(directSumCmd),
                                      cl::cat(toolCategory()));
static cl::opt<std::string> outputOpt("o",
                                      cl::desc("Where to write the SVG "
                                               "(required)"),
                                      cl::value_desc("out.svg"),
                                      cl::sub(showCmd),
                                      cl::cat(toolCategory()));
static cl::opt<std::string>
    dtypeOpt("dtype",
             cl::desc("Element type, for the shared-memory bank of an m "
                      "coordinate (default f16)"),
             cl::value_desc("f16"), cl::sub(showCmd), cl::cat(toolCategory()));
static cl::opt<std::string>
    colorOpt("color",
             cl::desc("Color cells by owning thread (owner), by bank (bank), "
                      "or by whichever the layout suggests (auto, default)"),
             cl::value_desc("auto|owner|bank"), cl::sub(showCmd),
             cl::cat(toolCategory()));

static cl::opt<std::string> meshOpt(
    "mesh", cl::desc("The device mesh, its axes in rank order (required)"),
    cl::value_desc("dx=2,dy=2"), cl::sub(planCmd), cl::cat(toolCategory()));
static cl::opt<std::string> partialOpt(
    "partial",
    cl::desc("Mesh axes on which SOURCE holds addends pending a sum"),
    cl::value_desc("dx,dy"), cl::sub(planCmd), cl::cat(toolCategory()));
static cl::opt<bool> exchangeOpt(
    "exchange",
    cl::desc("Print the generic exchange (Alltoallv) instead of the plan"),
    cl::ValueDisallowed, cl::sub(planCmd), cl::cat(toolCategory()));
static cl::opt<bool> checkOpt(
    "check",
    cl::desc("Run the plan on a brute-force mesh and compare every rank's "
             "elements with what DEST places"),
    cl::ValueDisallowed, cl::sub(planCmd), cl::cat(toolCategory()));

Answer tool::layoutAnswer(std::string layout) {
  Answer answer;
  answer.text = layout + "\n";
  answer.json = [layout](llvm::json::OStream &o) {
    o.attribute("layout", layout);
  };
  return answer;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// "(2, 9)".
static std::string coordText(llvm::ArrayRef<int64_t> coord) {
  std::string out = "(";
  for (auto [i, v] : llvm::enumerate(coord))
    out += (i ? ", " : "") + std::to_string(v);
  return out + ")";
}

static void writeIntArray(llvm::json::OStream &o, llvm::ArrayRef<int64_t> v) {
  o.array([&] {
    for (int64_t x : v)
      o.value(x);
  });
}

/// An image with every axis of the layout present (0 included), so that
/// scripts can index it without defaults.
static std::string imageText(const Coord &c, llvm::ArrayRef<std::string> axes) {
  std::string out = "{";
  for (auto [i, axis] : llvm::enumerate(axes))
    out += (i ? ", " : "") + axis + ": " + std::to_string(c.get(axis));
  return out + "}";
}

static void writeImage(llvm::json::OStream &o, const Coord &c,
                       llvm::ArrayRef<std::string> axes) {
  o.object([&] {
    for (const std::string &axis : axes)
      o.attribute(axis, c.get(axis));
  });
}

/// The layout answer of an operation result: canonical unless --raw.
static Answer resultAnswer(const Layout &layout) {
  return layoutAnswer(rawOpt ? layout.str() : canonicalize(layout).str());
}

//===----------------------------------------------------------------------===//
// canon
//===----------------------------------------------------------------------===//

static Result<Answer> runCanon(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> layout = parseLayoutArg(layouts[0], "LAYOUT");
  if (!layout)
    return layout.takeFailure();
  Layout canon = canonicalize(*layout);
  if (!targetOpt.getNumOccurrences())
    return layoutAnswer(canon.str());
  Result<Layout> fused = fuseForTarget(canon, targetOpt);
  if (!fused)
    return fused.takeFailure();
  return layoutAnswer(fused->str());
}

//===----------------------------------------------------------------------===//
// apply
//===----------------------------------------------------------------------===//

namespace {
struct ApplyEntry {
  Shape coord;
  llvm::SmallVector<Coord, 4> images;
};
} // namespace

static Answer applyAnswer(Shape shape, std::vector<ApplyEntry> entries,
                          std::vector<std::string> axes) {
  Answer answer;
  for (const ApplyEntry &e : entries) {
    answer.text += coordText(e.coord) + " ->";
    for (const Coord &c : e.images)
      answer.text += " " + imageText(c, axes);
    answer.text += "\n";
  }
  answer.json = [shape = std::move(shape), entries = std::move(entries),
                 axes = std::move(axes)](llvm::json::OStream &o) {
    o.attributeBegin("shape");
    writeIntArray(o, shape);
    o.attributeEnd();
    o.attributeArray("entries", [&] {
      for (const ApplyEntry &e : entries)
        o.object([&] {
          o.attributeBegin("coord");
          writeIntArray(o, e.coord);
          o.attributeEnd();
          o.attributeArray("images", [&] {
            for (const Coord &c : e.images)
              writeImage(o, c, axes);
          });
        });
    });
  };
  return answer;
}

static Result<Answer> runApply(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> layout = parseLayoutArg(layouts[0], "LAYOUT");
  if (!layout)
    return layout.takeFailure();
  Result<Shape> shape = admittedShape(shapeOpt, layout->tile(), "the layout");
  if (!shape)
    return shape.takeFailure();
  int64_t first = 0, count = layout->size();
  if (applyAtOpt.getNumOccurrences()) {
    Result<Shape> at = parseIntList(applyAtOpt, "--at");
    if (!at)
      return at.takeFailure();
    Result<int64_t> flat = flattenCoord(*at, *shape);
    if (!flat)
      return fail("--at " + coordText(*at) + ": " + flat.message());
    first = *flat;
    count = 1;
  }
  Result<int64_t> total =
      checkEnumerable(layout->tile(), count, kEnumerationLimit, "the request");
  if (!total)
    return fail(total.message() + " to list; narrow it with --at");
  auto axesVec = layout->tile().axes();
  std::vector<std::string> axes(axesVec.begin(), axesVec.end());
  std::vector<ApplyEntry> entries;
  for (int64_t f = first; f < first + count; ++f) {
    entries.push_back({unflattenIndex(f, *shape), layout->apply(f)});
    sortPlacements(entries.back().images, axes);
  }
  return applyAnswer(*shape, std::move(entries), std::move(axes));
}

//===----------------------------------------------------------------------===//
// inverse
//===----------------------------------------------------------------------===//

static Result<Answer> runInverse(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> layout = parseLayoutArg(layouts[0], "LAYOUT");
  if (!layout)
    return layout.takeFailure();
  Result<Shape> shape = admittedShape(shapeOpt, layout->tile(), "the layout");
  if (!shape)
    return shape.takeFailure();
  Result<Coord> at = parseCoord(inverseAtOpt, "--at");
  if (!at)
    return at.takeFailure();
  Result<int64_t> flat = layout->inverse(*at);
  if (!flat)
    return flat.takeFailure();
  Shape coord = unflattenIndex(*flat, *shape);
  Answer answer;
  answer.text = coordText(coord) + "\n";
  answer.json = [coord](llvm::json::OStream &o) {
    o.attributeBegin("coord");
    writeIntArray(o, coord);
    o.attributeEnd();
  };
  return answer;
}

//===----------------------------------------------------------------------===//
// span
//===----------------------------------------------------------------------===//

static Result<Answer> runSpan(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> layout = parseLayoutArg(layouts[0], "LAYOUT");
  if (!layout)
    return layout.takeFailure();
  std::vector<std::pair<std::string, int64_t>> spans;
  for (const std::string &axis : layout->tile().axes())
    spans.push_back({axis, layout->tile().span(axis)});
  Answer answer;
  for (const auto &[axis, span] : spans)
    answer.text += axis + ": " + std::to_string(span) + "\n";
  answer.json = [spans](llvm::json::OStream &o) {
    o.attributeObject("span", [&] {
      for (const auto &[axis, span] : spans)
        o.attribute(axis, span);
    });
  };
  return answer;
}

//===----------------------------------------------------------------------===//
// group
//===----------------------------------------------------------------------===//

static Result<Answer> runGroup(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> layout = parseLayoutArg(layouts[0], "LAYOUT");
  if (!layout)
    return layout.takeFailure();
  Result<Shape> shape = parseShape(shapeOpt, "--shape");
  if (!shape)
    return shape.takeFailure();
  Result<GroupedLayout> grouped = group(layout->tile(), *shape);
  if (!grouped)
    return grouped.takeFailure();
  std::string text = layout->withTile(grouped->layout).str();
  std::vector<std::string> blocks;
  for (unsigned d = 0; d < shape->size(); ++d) {
    // The block's iters come from a valid layout, so this cannot fail.
    Result<TileLayout> block = TileLayout::create(IterList(grouped->block(d)));
    blocks.push_back(block ? block->str() : "?");
  }
  Answer answer;
  answer.text = text + "\nblocks: " + llvm::join(blocks, " | ") + "\n";
  answer.json = [text, blocks](llvm::json::OStream &o) {
    o.attribute("layout", text);
    o.attributeArray("blocks", [&] {
      for (const std::string &b : blocks)
        o.value(b);
    });
  };
  return answer;
}

//===----------------------------------------------------------------------===//
// tile, tile-of, direct-sum
//===----------------------------------------------------------------------===//

namespace {
/// Two layouts with the shapes they admit, as tile and direct-sum take them.
struct LayoutPair {
  Layout first, second;
  Shape firstShape, secondShape;
};
} // namespace

static Result<LayoutPair> parsePair(llvm::ArrayRef<std::string> layouts,
                                    llvm::StringRef firstName,
                                    const cl::opt<std::string> &firstShape,
                                    llvm::StringRef secondName,
                                    const cl::opt<std::string> &secondShape) {
  Result<Layout> a = parseLayoutArg(layouts[0], firstName);
  if (!a)
    return a.takeFailure();
  Result<Layout> b = parseLayoutArg(layouts[1], secondName);
  if (!b)
    return b.takeFailure();
  Result<Shape> sa = admittedShape(firstShape, a->tile(), firstName);
  if (!sa)
    return sa.takeFailure();
  Result<Shape> sb = admittedShape(secondShape, b->tile(), secondName);
  if (!sb)
    return sb.takeFailure();
  return LayoutPair{*a, *b, *sa, *sb};
}

/// Fails when `layout` (argument `what`) is swizzled where `role` cannot be.
static Result<bool> requireUnswizzled(llvm::StringRef command,
                                      const Layout &layout,
                                      llvm::StringRef what,
                                      llvm::StringRef role) {
  if (!layout.isSwizzled())
    return true;
  return fail((command + ": " + what + " is swizzled, but " + role +
               " must be a plain tile layout")
                  .str());
}

static Result<Answer> runTile(llvm::ArrayRef<std::string> layouts) {
  Result<LayoutPair> p =
      parsePair(layouts, "INNER", innerShapeOpt, "OUTER", outerShapeOpt);
  if (!p)
    return p.takeFailure();
  if (Result<bool> ok =
          requireUnswizzled("tile", p->second, "OUTER", "the grid of tiles");
      !ok)
    return ok.takeFailure();
  // A swizzled atom is tiled copy by copy (SwizzleAlgebra.h).
  Result<Layout> out = tileSwizzledAtom(p->first, p->firstShape,
                                        p->second.tile(), p->secondShape);
  if (!out)
    return out.takeFailure();
  return resultAnswer(*out);
}

static Result<Answer> runTileOf(llvm::ArrayRef<std::string> layouts) {
  bool recoverInner = outerShapeOpt.getNumOccurrences();
  if (recoverInner == bool(innerShapeOpt.getNumOccurrences()))
    return fail("tile-of takes exactly one of --inner-shape (the second "
                "layout is the tile; prints the outer layout) and "
                "--outer-shape (the second layout is the grid; prints the "
                "inner layout)");
  llvm::StringRef given = recoverInner ? "OUTER" : "INNER";
  Result<LayoutPair> p =
      parsePair(layouts, "LAYOUT", shapeOpt, given,
                recoverInner ? outerShapeOpt : innerShapeOpt);
  if (!p)
    return p.takeFailure();
  if (!recoverInner) {
    Result<TileLayout> outer =
        swizzledTileOf(p->first, p->firstShape, p->second, p->secondShape);
    if (!outer)
      return outer.takeFailure();
    return resultAnswer(*outer);
  }
  for (auto [layout, what] :
       {std::pair(&p->first, "LAYOUT"), std::pair(&p->second, "OUTER")})
    if (Result<bool> ok = requireUnswizzled("tile-of", *layout, what,
                                            "with --outer-shape, it");
        !ok)
      return ok.takeFailure();
  Result<TileLayout> inner = tileOfOuter(p->first.tile(), p->firstShape,
                                         p->second.tile(), p->secondShape);
  if (!inner)
    return inner.takeFailure();
  return resultAnswer(*inner);
}

static Result<Answer> runDirectSum(llvm::ArrayRef<std::string> layouts) {
  Result<LayoutPair> p = parsePair(layouts, "A", aShapeOpt, "B", bShapeOpt);
  if (!p)
    return p.takeFailure();
  for (auto [layout, what] :
       {std::pair(&p->first, "A"), std::pair(&p->second, "B")})
    if (Result<bool> ok = requireUnswizzled("direct-sum", *layout, what, what);
        !ok)
      return ok.takeFailure();
  Result<TileLayout> out = directSum(p->first.tile(), p->firstShape,
                                     p->second.tile(), p->secondShape);
  if (!out)
    return out.takeFailure();
  return resultAnswer(*out);
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

namespace {
struct Region {
  llvm::SmallVector<SliceStart, 4> starts;
  Shape lengths;
  bool allKnown = true;
};
} // namespace

/// The start of one --region dim: "LO" (>= 0) or "NAME*ALIGN".
static Result<SliceStart> parseRegionStart(llvm::StringRef lo,
                                           const std::string &where) {
  if (lo.contains('*')) {
    Result<int64_t> align = parseInt(lo.split('*').second, where);
    if (!align)
      return align.takeFailure();
    if (*align < 1)
      return fail(where + ": alignment must be >= 1");
    return SliceStart::aligned(*align);
  }
  Result<int64_t> v = parseInt(lo, where);
  if (!v)
    return v.takeFailure();
  if (*v < 0)
    return fail(where + ": the start must be >= 0");
  return SliceStart::constant(*v);
}

/// One dim of --region: "LO:HI", "LO:+LEN", or "NAME*ALIGN:+LEN" for a start
/// known only to be a multiple of ALIGN (a loop variable).
static Result<std::pair<SliceStart, int64_t>>
parseRegionDim(llvm::StringRef text, int64_t extent, unsigned dim) {
  std::string where = "--region dim " + std::to_string(dim);
  if (!text.contains(':'))
    return fail(where + ": expected LO:HI, LO:+LEN or k*ALIGN:+LEN, got '" +
                text.str() + "'");
  auto [lo, hi] = text.split(':');
  Result<SliceStart> start = parseRegionStart(lo.trim(), where);
  if (!start)
    return start.takeFailure();
  hi = hi.trim();
  bool relative = hi.consume_front("+");
  if (!start->known && !relative)
    return fail(where + ": a start known by its alignment needs a length "
                        "(k*ALIGN:+LEN)");
  Result<int64_t> end = parseInt(hi, where);
  if (!end)
    return end.takeFailure();
  // start >= 0, so neither subtraction below can overflow.
  int64_t length = relative ? *end : *end - start->value;
  if (length < 1)
    return fail(where + ": the region is empty");
  if (!start->known && length > extent)
    return fail(where + ": length " + std::to_string(length) +
                " exceeds the extent " + std::to_string(extent));
  if (length > extent - start->value)
    return fail(where + ": [" + std::to_string(start->value) + ", " +
                std::to_string(start->value) + "+" + std::to_string(length) +
                ") is not inside [0, " + std::to_string(extent) + ")");
  return std::make_pair(*start, length);
}

static Result<Region> parseRegion(llvm::StringRef text,
                                  llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  text.split(parts, ',');
  if (parts.size() != shape.size())
    return fail("--region has " + std::to_string(parts.size()) +
                " dims but --shape has " + std::to_string(shape.size()));
  Region region;
  for (auto [d, part] : llvm::enumerate(parts)) {
    auto dim = parseRegionDim(part, shape[d], d);
    if (!dim)
      return dim.takeFailure();
    region.starts.push_back(dim->first);
    region.lengths.push_back(dim->second);
    region.allKnown &= dim->first.known;
  }
  return region;
}

static Result<Answer> runSlice(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> layout = parseLayoutArg(layouts[0], "LAYOUT");
  if (!layout)
    return layout.takeFailure();
  Result<Shape> shape = admittedShape(shapeOpt, layout->tile(), "the layout");
  if (!shape)
    return shape.takeFailure();
  Result<Region> region = parseRegion(regionOpt, *shape);
  if (!region)
    return region.takeFailure();
  Result<Layout> out = slice(*layout, *shape, region->starts, region->lengths);
  if (!out)
    return out.takeFailure();
  Answer answer = resultAnswer(*out);
  for (auto [d, start] : llvm::enumerate(region->starts))
    if (!start.known)
      answer.text += "note: at run time, add the placement of the start of "
                     "dim " +
                     std::to_string(d) + " (a multiple of " +
                     std::to_string(start.alignment) + ")\n";
  return answer;
}

//===----------------------------------------------------------------------===//
// equiv
//===----------------------------------------------------------------------===//

static Result<Answer> runEquiv(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> a = parseLayoutArg(layouts[0], "A");
  if (!a)
    return a.takeFailure();
  Result<Layout> b = parseLayoutArg(layouts[1], "B");
  if (!b)
    return b.takeFailure();
  Result<bool> same = equivalent(*a, *b);
  if (!same)
    return same.takeFailure();
  bool result = *same;
  Answer answer;
  answer.text = result ? "equivalent\n" : "not equivalent\n";
  answer.json = [result](llvm::json::OStream &o) {
    o.attribute("equivalent", result);
  };
  return answer;
}

//===----------------------------------------------------------------------===//
// show
//===----------------------------------------------------------------------===//

static Result<Answer> runShow(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> layout = parseLayoutArg(layouts[0], "LAYOUT");
  if (!layout)
    return layout.takeFailure();
  Result<Shape> shape = admittedShape(shapeOpt, layout->tile(), "the layout");
  if (!shape)
    return shape.takeFailure();
  SvgOptions options;
  if (dtypeOpt.getNumOccurrences()) {
    Result<int> bytes = dtypeBytes(dtypeOpt);
    if (!bytes)
      return bytes.takeFailure();
    options.elemBytes = *bytes;
    options.dtype = dtypeOpt;
  }
  if (colorOpt.getNumOccurrences())
    options.color = colorOpt;
  std::string summary;
  Result<std::string> svg = renderSvg(*layout, *shape, options, &summary);
  if (!svg)
    return svg.takeFailure();
  std::string path = outputOpt;
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  os << *svg;
  os.close();
  if (os.has_error()) {
    os.clear_error();
    return fail("cannot write '" + path + "'");
  }
  Answer answer;
  answer.text = "wrote " + path + " (" + summary + ")\n";
  answer.json = [path, summary](llvm::json::OStream &o) {
    o.attribute("svg", jsonSafe(path));
    o.attribute("summary", summary);
  };
  return answer;
}

//===----------------------------------------------------------------------===//
// plan
//===----------------------------------------------------------------------===//

/// "dx,dy" -> {"dx", "dy"}; empty entries are errors.
static Result<std::vector<std::string>> parseAxisList(llvm::StringRef text,
                                                      llvm::StringRef what) {
  std::vector<std::string> axes;
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, ',');
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      return fail(what.str() + " '" + text.str() +
                  "' has an empty axis name; write e.g. dx,dy");
    axes.push_back(part.str());
  }
  return axes;
}

/// Source contents for the check: element i is worth 3 i + 1; where the
/// source is partial, every rank off coordinate 0 of the partial axes holds
/// a nonzero addend and the rank at 0 the rest, so a plan that drops or
/// double-counts an addend shows.
static Result<MeshContents> checkContents(const TileLayout &source,
                                          llvm::ArrayRef<int64_t> shape,
                                          const Mesh &mesh,
                                          llvm::ArrayRef<std::string> partial,
                                          std::vector<int64_t> &values) {
  values.resize(source.size());
  for (auto [i, v] : llvm::enumerate(values))
    v = 3 * int64_t(i) + 1;
  Result<MeshContents> held = expectedContents(source, shape, mesh, values);
  if (!held || partial.empty())
    return held;
  MeshContents contents = *held;
  for (int64_t rank = 0; rank < mesh.numRanks(); ++rank) {
    llvm::SmallVector<int64_t, 4> coords = mesh.coordinates(rank);
    bool leader = true;
    for (const std::string &axis : partial)
      if (std::optional<unsigned> k = mesh.find(axis); k && coords[*k]) {
        coords[*k] = 0;
        leader = false;
      }
    if (leader)
      continue;
    int64_t leaderRank = mesh.rankAt(coords);
    for (auto &[flat, value] : contents[rank]) {
      value = 7 * (rank + 1) + flat % 5;
      contents[leaderRank][flat] -= value;
    }
  }
  return contents;
}

/// The first rank whose elements differ, as a sentence; empty when none.
static std::string firstDifference(const MeshContents &got,
                                   const MeshContents &want) {
  for (size_t rank = 0; rank < want.size(); ++rank) {
    if (got[rank] == want[rank])
      continue;
    for (auto [flat, value] : want[rank]) {
      auto it = got[rank].find(flat);
      if (it == got[rank].end())
        return "rank " + std::to_string(rank) + " lacks element " +
               std::to_string(flat);
      if (it->second != value)
        return "rank " + std::to_string(rank) + " holds " +
               std::to_string(it->second) + " for element " +
               std::to_string(flat) + ", expected " + std::to_string(value);
    }
    return "rank " + std::to_string(rank) +
           " holds elements the destination does not place there";
  }
  return "";
}

static Result<Answer> runPlan(llvm::ArrayRef<std::string> layouts) {
  Result<Layout> source = parseLayoutArg(layouts[0], "SOURCE");
  if (!source)
    return source.takeFailure();
  Result<Layout> dest = parseLayoutArg(layouts[1], "DEST");
  if (!dest)
    return dest.takeFailure();
  Result<Mesh> mesh = parseMesh(meshOpt);
  if (!mesh)
    return fail("--mesh: " + mesh.message());
  std::vector<std::string> partial;
  if (partialOpt.getNumOccurrences()) {
    Result<std::vector<std::string>> axes =
        parseAxisList(partialOpt, "--partial");
    if (!axes)
      return axes.takeFailure();
    partial = *axes;
  }
  Result<Shape> shape = admittedShape(shapeOpt, source->tile(), "SOURCE");
  if (!shape)
    return shape.takeFailure();
  auto plan = exchangeOpt ? planExchange(source->tile(), *shape, dest->tile(),
                                         *shape, *mesh, partial)
                          : planCollective(source->tile(), *shape, dest->tile(),
                                           *shape, *mesh, partial);
  if (!plan)
    return plan.takeFailure();
  std::string verdict;
  if (checkOpt) {
    std::vector<int64_t> values;
    Result<MeshContents> initial =
        checkContents(source->tile(), *shape, *mesh, partial, values);
    if (!initial)
      return initial.takeFailure();
    Result<MeshContents> final = simulatePlan(*plan, *initial);
    if (!final)
      return fail("the plan does not run: " + final.message());
    Result<MeshContents> want =
        expectedContents(dest->tile(), *shape, *mesh, values);
    if (!want)
      return want.takeFailure();
    if (std::string diff = firstDifference(*final, *want); !diff.empty())
      return fail("the plan does not deliver DEST: " + diff);
    verdict = "check: every rank holds what DEST places (" +
              std::to_string(mesh->numRanks()) + " ranks)\n";
  }
  Answer answer;
  answer.text = plan->str() + verdict;
  answer.json = [p = *plan, checked = bool(checkOpt)](llvm::json::OStream &o) {
    o.attribute("mesh", p.mesh.str());
    o.attribute("source", p.source.str(p.mesh));
    o.attribute("destination", p.destination.str(p.mesh));
    o.attributeArray("steps", [&] {
      for (const CollectiveStep &step : p.steps)
        o.object([&] {
          o.attribute("kind", collectiveKindName(step.kind));
          o.attributeArray("axes", [&] {
            for (const std::string &axis : step.axes)
              o.value(axis);
          });
          o.attribute("root", step.root);
          o.attributeBegin("local_before");
          writeIntArray(o, step.localBefore);
          o.attributeEnd();
          o.attributeBegin("local_after");
          writeIntArray(o, step.localAfter);
          o.attributeEnd();
          o.attribute("text", step.str());
        });
    });
    if (checked)
      o.attribute("checked", true);
  };
  return answer;
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

const std::vector<Command> &tool::commands() {
  static const std::vector<Command> table = {
      {&canonCmd,
       "canon LAYOUT [--target sm_80|sm_90|sm_100a|cpu]",
       std::addressof(oneLayout),
       1,
       {},
       runCanon},
      {&applyCmd,
       "apply LAYOUT --shape 8x16 [--at 2,9]",
       std::addressof(oneLayout),
       1,
       {},
       runApply},
      {&inverseCmd,
       "inverse LAYOUT --shape 8x16 --at laneid=8,warpid=6,m=1",
       std::addressof(oneLayout),
       1,
       {&inverseAtOpt},
       runInverse},
      {&spanCmd, "span LAYOUT", std::addressof(oneLayout), 1, {}, runSpan},
      {&groupCmd,
       "group LAYOUT --shape 6x5",
       std::addressof(oneLayout),
       1,
       {&shapeOpt},
       runGroup},
      {&tileCmd,
       "tile INNER OUTER --inner-shape 2x4 --outer-shape 8x8 [--raw]",
       std::addressof(tileLayouts),
       2,
       {&innerShapeOpt, &outerShapeOpt},
       runTile},
      {&tileOfCmd,
       "tile-of LAYOUT INNER --shape 16x32 --inner-shape 2x4 [--raw]\n"
       "  tile-of LAYOUT OUTER --shape 16x32 --outer-shape 8x8 [--raw]",
       std::addressof(tileOfLayouts),
       2,
       {&shapeOpt},
       runTileOf},
      {&sliceCmd,
       "slice LAYOUT --shape 128x128 --region 0:128,32:96 [--raw]",
       std::addressof(oneLayout),
       1,
       {&shapeOpt, &regionOpt},
       runSlice},
      {&directSumCmd,
       "direct-sum A B --a-shape 2x2 --b-shape 2x2 [--raw]",
       std::addressof(twoLayouts),
       2,
       {&aShapeOpt, &bShapeOpt},
       runDirectSum},
      {&equivCmd, "equiv A B", std::addressof(twoLayouts), 2, {}, runEquiv},
      {&showCmd,
       "show LAYOUT --shape 8x16 -o out.svg [--dtype f16] "
       "[--color auto|owner|bank]",
       std::addressof(oneLayout),
       1,
       {&outputOpt},
       runShow},
      {&planCmd,
       "plan SOURCE DEST --mesh dx=2,dy=2 [--shape 64x128] [--partial dx] "
       "[--exchange] [--check]",
       std::addressof(planLayouts),
       2,
       {&meshOpt},
       runPlan},
  };
  return table;
}
