//===- Svg.cpp - Pictures of layouts for axe-layout show -----------------===//
//
// The logical tile is drawn as a grid (all dims but the last fold into rows).
// Each cell lists the physical coordinate of every placement of its element
// and is filled with one vertical stripe per placement, colored by the
// owning thread (the non-memory axes) or by the shared-memory bank of its
// m coordinate, so replicas and bank conflicts are visible at a glance.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace axe;
using namespace axe::tool;

/// Beyond these the picture is unreadable; say so instead of drawing it.
static constexpr int64_t kMaxCells = 16384;
static constexpr int64_t kMaxPlacements = int64_t(1) << 18;
/// Placements labelled per cell; the rest are counted ("+3 more").
static constexpr size_t kMaxLabels = 4;
/// Placements drawn as stripes per cell.
static constexpr size_t kMaxStripes = 16;

static constexpr double kCharWidth = 6.1;
static constexpr double kLineHeight = 12;
static constexpr double kLeft = 44, kTop = 64;

Result<int> tool::dtypeBytes(llvm::StringRef dtype) {
  std::string d = dtype.lower();
  if (llvm::is_contained({"f64", "i64", "u64"}, d))
    return 8;
  if (llvm::is_contained({"f32", "tf32", "i32", "u32"}, d))
    return 4;
  if (llvm::is_contained({"f16", "bf16", "i16", "u16"}, d))
    return 2;
  if (llvm::is_contained({"f8", "e4m3", "e5m2", "fp8", "i8", "u8"}, d))
    return 1;
  return fail("unknown --dtype '" + dtype.str() +
              "'; expected f64, f32, tf32, f16, bf16, f8, e4m3, e5m2, i64, "
              "i32, i16 or i8");
}

int64_t tool::sharedBank(int64_t address, int elemBytes) {
  // 128-bit arithmetic: address * bytes may exceed int64 for far offsets.
  __int128 bytes = static_cast<__int128>(address) * elemBytes;
  __int128 word = bytes >= 0 ? bytes / 4 : -((-bytes + 3) / 4);
  int64_t bank = static_cast<int64_t>(word % 32);
  return bank < 0 ? bank + 32 : bank;
}

namespace {

/// The colors of a picture: which axes decide a placement's color, and the
/// palette index of every placement.
class Coloring {
public:
  Coloring(const Layout &layout, const SvgOptions &options);

  Result<bool> validate() const;
  /// Palette index of a placement.
  int64_t key(const Coord &c) const;
  /// Records an owner (called for every placement before ranks()).
  void note(const Coord &c);
  /// Numbers the owners densely in coordinate order, a stable color index.
  void ranks();
  bool byBank() const { return bank; }
  std::string describe() const;

private:
  std::vector<Coord> ownerOf(const Coord &c) const;
  Coord project(const Coord &c) const;

  bool bank = false;
  std::string mode;
  int elemBytes;
  std::string dtype;
  llvm::SmallVector<std::string, 4> keyAxes;
  std::map<Coord, int64_t> ownerIndex;
};

} // namespace

static bool isMemoryAxis(llvm::StringRef axis) {
  return axisKind(axis) == AxisKind::Memory;
}

Coloring::Coloring(const Layout &layout, const SvgOptions &options)
    : mode(options.color), elemBytes(options.elemBytes), dtype(options.dtype) {
  auto axes = layout.tile().axes();
  for (const std::string &axis : axes)
    if (!isMemoryAxis(axis))
      keyAxes.push_back(axis);
  bool usesM = llvm::is_contained(axes, kDefaultAxis);
  if (mode == "bank")
    bank = true;
  else if (mode == "auto")
    bank = layout.isSwizzled() || (keyAxes.empty() && usesM);
  if (bank || !keyAxes.empty())
    return;
  // A pure memory layout is "owned" by its scratchpad partition or tensor
  // memory lane (each belongs to one lane of the engine or warp), else by
  // its whole coordinate.
  for (llvm::StringRef owner : {"P", "TLane"})
    if (keyAxes.empty() && llvm::is_contained(axes, owner))
      keyAxes.push_back(owner.str());
  if (keyAxes.empty())
    keyAxes.assign(axes.begin(), axes.end());
}

Result<bool> Coloring::validate() const {
  if (mode != "auto" && mode != "owner" && mode != "bank")
    return fail("unknown --color '" + mode + "'; expected auto, owner or bank");
  return true;
}

Coord Coloring::project(const Coord &c) const {
  Coord out;
  for (const std::string &axis : keyAxes)
    out.set(axis, c.get(axis));
  return out;
}

void Coloring::note(const Coord &c) {
  if (!bank)
    ownerIndex.emplace(project(c), 0);
}

int64_t Coloring::key(const Coord &c) const {
  if (bank)
    return sharedBank(c.get("m"), elemBytes);
  auto it = ownerIndex.find(project(c));
  return it == ownerIndex.end() ? 0 : it->second;
}

void Coloring::ranks() {
  int64_t rank = 0;
  for (auto &entry : ownerIndex)
    entry.second = rank++;
}

std::string Coloring::describe() const {
  if (bank)
    return "colored by shared-memory bank of m (" + dtype + ", " +
           std::to_string(elemBytes) + " B/element, 32 banks of 4 B)";
  return "colored by " + llvm::join(keyAxes, ", ");
}

/// A light, well separated color for palette index `k` (golden-angle hues).
static std::string paletteColor(int64_t k) {
  double hue = std::fmod(static_cast<double>(k % 100000) * 137.508, 360.0);
  int light = (k / 7) % 2 ? 70 : 82;
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "hsl(" << llvm::format("%.1f", hue) << ",70%," << light << "%)";
  return out;
}

static std::string escapeXml(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// "8,1,6": the coordinate on every axis of the layout, in `axes` order.
static std::string placementLabel(const Coord &c,
                                  llvm::ArrayRef<std::string> axes) {
  std::string out;
  for (auto [i, axis] : llvm::enumerate(axes))
    out += (i ? "," : "") + std::to_string(c.get(axis));
  return out;
}

namespace {
/// Everything drawn in one cell.
struct Cell {
  llvm::SmallVector<Coord, 4> placements;
};

/// Grid geometry.
struct Grid {
  int64_t rows, cols;
  double cellW, cellH;
};
} // namespace

static void drawCell(llvm::raw_ostream &os, const Grid &g, int64_t r, int64_t c,
                     const Cell &cell, const Coloring &colors,
                     llvm::ArrayRef<std::string> axes) {
  double x = kLeft + c * g.cellW, y = kTop + r * g.cellH;
  size_t stripes = std::min(cell.placements.size(), kMaxStripes);
  double w = g.cellW / stripes;
  for (size_t i = 0; i < stripes; ++i)
    os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
                       "height=\"%.1f\" fill=\"",
                       x + i * w, y, w, g.cellH)
       << paletteColor(colors.key(cell.placements[i])) << "\"/>\n";
  os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"%.1f\" fill=\"none\" stroke=\"#555\" "
                     "stroke-width=\"0.5\"/>\n",
                     x, y, g.cellW, g.cellH);
  size_t labels = std::min(cell.placements.size(), kMaxLabels);
  for (size_t i = 0; i <= labels; ++i) {
    std::string text;
    if (i < labels)
      text = placementLabel(cell.placements[i], axes);
    else if (cell.placements.size() > labels)
      text = "+" + std::to_string(cell.placements.size() - labels) + " more";
    else
      break;
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\">", x + g.cellW / 2,
                       y + 4 + (i + 1) * kLineHeight - 2)
       << escapeXml(text) << "</text>\n";
  }
}

static void drawHeader(llvm::raw_ostream &os, const Layout &layout,
                       llvm::ArrayRef<int64_t> shape, const Grid &g,
                       const Coloring &colors,
                       llvm::ArrayRef<std::string> axes) {
  os << "<text class=\"title\" x=\"4\" y=\"14\">"
     << escapeXml(layout.str() + "   shape " + shapeStr(shape)) << "</text>\n";
  os << "<text class=\"title\" x=\"4\" y=\"30\">"
     << escapeXml("cell: (" + llvm::join(axes, ",") + ") per placement; " +
                  colors.describe())
     << "</text>\n";
  for (int64_t c = 0; c < g.cols; ++c)
    os << llvm::format("<text class=\"idx\" x=\"%.1f\" y=\"%.1f\">%lld"
                       "</text>\n",
                       kLeft + (c + 0.5) * g.cellW, kTop - 6,
                       static_cast<long long>(c));
  for (int64_t r = 0; r < g.rows; ++r)
    os << llvm::format("<text class=\"idx\" x=\"%.1f\" y=\"%.1f\">%lld"
                       "</text>\n",
                       kLeft / 2, kTop + (r + 0.5) * g.cellH + 4,
                       static_cast<long long>(r));
}

/// A strip of the 32 bank colors under the grid.
static void drawBankLegend(llvm::raw_ostream &os, double y) {
  os << llvm::format("<text class=\"title\" x=\"4\" y=\"%.1f\">bank</text>\n",
                     y + 13);
  for (int b = 0; b < 32; ++b) {
    double x = kLeft + b * 22;
    os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" "
                       "height=\"18\" stroke=\"#555\" stroke-width=\"0.5\" "
                       "fill=\"",
                       x, y)
       << paletteColor(b) << "\"/>\n"
       << llvm::format("<text x=\"%.1f\" y=\"%.1f\">%d</text>\n", x + 11,
                       y + 13, b);
  }
}

/// Collects every cell's placements; fails when there are too many.
static Result<std::vector<Cell>>
collectCells(const Layout &layout, Coloring &colors, size_t &maxLabel,
             size_t &maxPlacements, llvm::ArrayRef<std::string> axes) {
  Result<int64_t> total = checkEnumerable(layout.tile(), layout.size(),
                                          kMaxPlacements, "the picture");
  if (!total)
    return total.takeFailure();
  std::vector<Cell> cells(layout.size());
  for (int64_t f = 0; f < layout.size(); ++f) {
    cells[f].placements = layout.apply(f);
    sortPlacements(cells[f].placements, axes);
    maxPlacements = std::max(maxPlacements, cells[f].placements.size());
    for (const Coord &c : cells[f].placements) {
      colors.note(c);
      maxLabel = std::max(maxLabel, placementLabel(c, axes).size());
    }
  }
  colors.ranks();
  return cells;
}

static void writeSvg(llvm::raw_ostream &os, const Layout &layout,
                     llvm::ArrayRef<int64_t> shape, const Grid &g,
                     const std::vector<Cell> &cells, const Coloring &colors,
                     llvm::ArrayRef<std::string> axes) {
  double width = std::max(kLeft + g.cols * g.cellW + 8, kLeft + 32 * 22 + 8);
  double height = kTop + g.rows * g.cellH + (colors.byBank() ? 34 : 8);
  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
                     "%.0f\">\n",
                     width, height, width, height);
  os << "<style>text{font-family:monospace;font-size:10px;"
        "text-anchor:middle}.title{font-size:12px;text-anchor:start}"
        ".idx{fill:#666}</style>\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  drawHeader(os, layout, shape, g, colors, axes);
  for (int64_t f = 0; f < static_cast<int64_t>(cells.size()); ++f)
    drawCell(os, g, f / g.cols, f % g.cols, cells[f], colors, axes);
  if (colors.byBank())
    drawBankLegend(os, kTop + g.rows * g.cellH + 8);
  os << "</svg>\n";
}

Result<std::string> tool::renderSvg(const Layout &layout,
                                    llvm::ArrayRef<int64_t> shape,
                                    const SvgOptions &options,
                                    std::string *summary) {
  Coloring colors(layout, options);
  if (Result<bool> ok = colors.validate(); !ok)
    return ok.takeFailure();
  if (layout.size() > kMaxCells)
    return fail("the layout has " + std::to_string(layout.size()) +
                " elements; show draws at most " + std::to_string(kMaxCells));
  auto axesVec = layout.tile().axes();
  std::vector<std::string> axes(axesVec.begin(), axesVec.end());
  size_t maxLabel = 1, maxPlacements = 1;
  Result<std::vector<Cell>> cells =
      collectCells(layout, colors, maxLabel, maxPlacements, axes);
  if (!cells)
    return cells.takeFailure();
  size_t lines = maxPlacements > kMaxLabels ? kMaxLabels + 1 : maxPlacements;
  Grid g;
  g.cols = shape.back();
  g.rows = layout.size() / g.cols;
  g.cellW = std::max(30.0, kCharWidth * std::max<size_t>(maxLabel, 6) + 8);
  g.cellH = kLineHeight * lines + 8;
  std::string out;
  llvm::raw_string_ostream os(out);
  writeSvg(os, layout, shape, g, *cells, colors, axes);
  *summary = std::to_string(g.rows) + "x" + std::to_string(g.cols) +
             " cells, " + colors.describe();
  return out;
}
