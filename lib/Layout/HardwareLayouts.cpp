//===- HardwareLayouts.cpp - Layouts that instructions require ------------===//

#include "axe/Layout/HardwareLayouts.h"
#include "axe/Layout/Algebra.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <iterator>

using namespace axe;

namespace {

constexpr llvm::StringLiteral kLane = "laneid";
constexpr llvm::StringLiteral kTidInWg = "tid_in_wg";
constexpr llvm::StringLiteral kTLane = "TLane";
constexpr llvm::StringLiteral kTCol = "TCol";

Iter iter(int64_t extent, int64_t stride, llvm::StringRef axis = kDefaultAxis) {
  return Iter{extent, stride, axis.str()};
}

/// Builds the layout from iters listed slowest first (extent-1 iters, which
/// stand for absent digits, are dropped) and returns its canonical form.
Result<TileLayout> build(llvm::ArrayRef<Iter> iters, IterList replica = {}) {
  IterList shard;
  for (const Iter &it : iters)
    if (it.extent != 1)
      shard.push_back(it);
  Result<TileLayout> layout = TileLayout::create(shard, std::move(replica));
  if (!layout)
    return layout;
  return canonicalize(*layout);
}

std::string str(int64_t v) { return std::to_string(v); }

/// Whether an enum argument is one of its enumerators 0..last (a cast from
/// an arbitrary integer may be neither, and must not index or shift).
template <typename E> bool isEnumerator(E value, E last) {
  return static_cast<unsigned>(value) <= static_cast<unsigned>(last);
}

} // namespace

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

llvm::StringRef axe::mmaShapeName(MmaShape shape) {
  return shape == MmaShape::M16N8K8 ? "m16n8k8" : "m16n8k16";
}

llvm::StringRef axe::mmaTypeName(MmaType type) {
  switch (type) {
  case MmaType::F16:
    return "f16";
  case MmaType::BF16:
    return "bf16";
  case MmaType::F32:
    return "f32";
  }
  return "?";
}

Shape axe::mmaSyncOperandShape(MmaShape shape, MmaOperand operand) {
  int64_t k = shape == MmaShape::M16N8K8 ? 8 : 16;
  switch (operand) {
  case MmaOperand::A:
    return {16, k};
  case MmaOperand::B:
    return {k, 8};
  case MmaOperand::C:
    return {16, 8};
  }
  return {};
}

Result<TileLayout> axe::mmaSyncFragment(MmaShape shape, MmaOperand operand,
                                        MmaType type) {
  if (!isEnumerator(shape, MmaShape::M16N8K16) ||
      !isEnumerator(operand, MmaOperand::C) ||
      !isEnumerator(type, MmaType::F32))
    return fail("mma.sync: unknown shape, operand or element type");
  std::string what = "mma.sync." + mmaShapeName(shape).str() + " operand ";
  bool isC = operand == MmaOperand::C;
  if (!isC && type == MmaType::F32)
    return fail(what + (operand == MmaOperand::A ? "A" : "B") +
                " takes f16 or bf16 elements, not f32");
  if (isC && type == MmaType::BF16)
    return fail(what + "C accumulates in f32 or f16, not bf16");

  // groupID = laneid / 4 (stride 4 on laneid), threadID_in_group = laneid % 4
  // (stride 1); the remaining digits are fragment element bits.
  bool k16 = shape == MmaShape::M16N8K16;
  switch (operand) {
  case MmaOperand::A:
    if (k16) // row: (i>>1)&1, groupID; col: i>>2, t, i&1.
      return build({iter(2, 2), iter(8, 4, kLane), iter(2, 4),
                    iter(4, 1, kLane), iter(2, 1)});
    [[fallthrough]];  // m16n8k8 A has the C arrangement over 16 x 8.
  case MmaOperand::C: // row: i>>1, groupID; col: t, i&1.
    return build(
        {iter(2, 2), iter(8, 4, kLane), iter(4, 1, kLane), iter(2, 1)});
  case MmaOperand::B: // row: i>>1 (k16 only), t, i&1; col: groupID.
    return build({iter(k16 ? 2 : 1, 2), iter(4, 1, kLane), iter(2, 1),
                  iter(8, 4, kLane)});
  }
  return fail("unknown mma operand");
}

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

static std::optional<Failure> checkMatrixCount(int64_t numMatrices) {
  if (numMatrices == 1 || numMatrices == 2 || numMatrices == 4)
    return std::nullopt;
  return fail("ldmatrix loads 1, 2 or 4 matrices (.x1, .x2, .x4), not " +
              str(numMatrices));
}

Result<TileLayout> axe::ldmatrixFragment(int64_t numMatrices, bool transpose) {
  if (auto f = checkMatrixCount(numMatrices))
    return *f;
  // Matrix j lands in register j: two element slots each.
  Iter matrix = iter(numMatrices, 2);
  if (transpose) // row: 2t + h, col: groupID.
    return build({matrix, iter(4, 1, kLane), iter(2, 1), iter(8, 4, kLane)});
  // row: groupID, col: 2t + h.
  return build({matrix, iter(8, 4, kLane), iter(4, 1, kLane), iter(2, 1)});
}

Result<TileLayout> axe::ldmatrixRowAddresses(int64_t numMatrices) {
  if (auto f = checkMatrixCount(numMatrices))
    return *f;
  return build({iter(numMatrices, 8, kLane), iter(8, 1, kLane)});
}

//===----------------------------------------------------------------------===//
// Warpgroup layouts
//===----------------------------------------------------------------------===//

Result<TileLayout> axe::wgLocalLayout(int64_t cols, int64_t rows) {
  if (rows < 1 || rows > 128)
    return fail("wg_local_layout puts one row per thread of a 128-thread "
                "warpgroup; rows must be in [1, 128], not " +
                str(rows));
  if (cols < 1)
    return fail("wg_local_layout needs cols >= 1, not " + str(cols));
  // Not canonicalized: the spec writes it as S[(rows, cols) : ...].
  return TileLayout::create({iter(rows, 1, kTidInWg), iter(cols, 1)});
}

Result<TileLayout> axe::wgmmaAccumulator(int64_t n, MmaType type) {
  if (n < 8 || n > 256 || n % 8 != 0)
    return fail("wgmma .m64nNk16 needs N a multiple of 8 in [8, 256], not " +
                str(n));
  if (type != MmaType::F32 && type != MmaType::F16)
    return fail("wgmma accumulates in f32 or f16, not " +
                mmaTypeName(type).str());
  // row: warp (32 threads), (i>>1)&1, groupID; col: i>>2, t, i&1.
  return build({iter(4, 32, kTidInWg), iter(2, 2), iter(8, 4, kTidInWg),
                iter(n / 8, 4), iter(4, 1, kTidInWg), iter(2, 1)});
}

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

static constexpr int64_t kTmemColumns = 512;

Result<TmemDatapath> axe::parseTmemDatapath(llvm::StringRef name) {
  auto d = llvm::StringSwitch<std::optional<TmemDatapath>>(name)
               .Case("A", TmemDatapath::A)
               .Case("B", TmemDatapath::B)
               .Case("C", TmemDatapath::C)
               .Case("D", TmemDatapath::D)
               .Case("E", TmemDatapath::E)
               .Case("F", TmemDatapath::F)
               .Case("G", TmemDatapath::G)
               .Default(std::nullopt);
  if (!d)
    return fail("unknown TMEM data path '" + name.str() +
                "'; expected one of A, B, C, D, E, F, G");
  return *d;
}

llvm::StringRef axe::tmemDatapathName(TmemDatapath datapath) {
  static const char *names[] = {"A", "B", "C", "D", "E", "F", "G"};
  unsigned i = static_cast<unsigned>(datapath);
  return i < std::size(names) ? names[i] : "?";
}

Result<TileLayout> axe::tmemDatapathLayout(TmemDatapath datapath, int64_t rows,
                                           int64_t cols) {
  if (!isEnumerator(datapath, TmemDatapath::G))
    return fail("unknown TMEM data path");
  std::string what = "TMEM data path " + tmemDatapathName(datapath).str();
  int64_t wantRows = 128, fold = 1;
  switch (datapath) {
  case TmemDatapath::A:
  case TmemDatapath::D:
    break;
  case TmemDatapath::B:
  case TmemDatapath::E:
    wantRows = 64, fold = 2;
    break;
  case TmemDatapath::C:
  case TmemDatapath::F:
    wantRows = 64;
    break;
  case TmemDatapath::G:
    wantRows = 32, fold = 4;
    break;
  }
  if (rows != wantRows)
    return fail(what + " holds " + str(wantRows) + " rows, not " + str(rows));
  if (cols < 1 || cols % fold != 0)
    return fail(what + " folds its columns into " + str(fold) +
                " lane groups; cols must be a positive multiple of " +
                str(fold) + ", not " + str(cols));
  if (cols / fold > kTmemColumns)
    return fail(what + " with " + str(cols) + " columns needs " +
                str(cols / fold) + " TMEM columns; TMEM has " +
                str(kTmemColumns));
  switch (datapath) {
  case TmemDatapath::C:
  case TmemDatapath::F: // 16 rows at the start of each warp's 32 lanes.
    return build(
        {iter(4, 32, kTLane), iter(16, 1, kTLane), iter(cols, 1, kTCol)});
  default: // Column groups fold onto lane groups of `rows` lanes.
    return build({iter(rows, 1, kTLane), iter(fold, rows, kTLane),
                  iter(cols / fold, 1, kTCol)});
  }
}

Result<Tcgen05Shape> axe::parseTcgen05Shape(llvm::StringRef name) {
  name.consume_front(".");
  auto s = llvm::StringSwitch<std::optional<Tcgen05Shape>>(name)
               .Case("32x32b", Tcgen05Shape::S32x32b)
               .Case("16x64b", Tcgen05Shape::S16x64b)
               .Case("16x128b", Tcgen05Shape::S16x128b)
               .Case("16x256b", Tcgen05Shape::S16x256b)
               .Default(std::nullopt);
  if (!s)
    return fail("unknown tcgen05 shape '" + name.str() +
                "'; expected 32x32b, 16x64b, 16x128b or 16x256b");
  return *s;
}

llvm::StringRef axe::tcgen05ShapeName(Tcgen05Shape shape) {
  static const char *names[] = {"32x32b", "16x64b", "16x128b", "16x256b"};
  unsigned i = static_cast<unsigned>(shape);
  return i < std::size(names) ? names[i] : "?";
}

namespace {
/// One tcgen05 shape's native image, as digits of the atom's rows and
/// columns (slowest first). A digit moves either the lane (laneid stride) or
/// the register index (register stride, later scaled to element slots).
struct Tcgen05Image {
  int64_t lanes;       // TMEM lanes per atom: 32 or 16.
  int64_t cellsPerRep; // 32-bit columns per repetition.
  int64_t regsPerRep;  // registers per lane per repetition.
  IterList rowDigits;  // axis "lane" or "reg".
  IterList colDigits;
};

Tcgen05Image tcgen05Image(Tcgen05Shape shape) {
  switch (shape) {
  case Tcgen05Shape::S32x32b: // (l, r)
    return {32, 1, 1, {iter(32, 1, "lane")}, {}};
  case Tcgen05Shape::S16x64b: // (l/4 + 8(l%2), (l/2)%2 + 2r)
    return {16,
            2,
            1,
            {iter(2, 1, "lane"), iter(8, 4, "lane")},
            {iter(2, 2, "lane")}};
  case Tcgen05Shape::S16x128b: // (l/4 + 8(r%2), l%4 + 4(r/2))
    return {16,
            4,
            2,
            {iter(2, 1, "reg"), iter(8, 4, "lane")},
            {iter(4, 1, "lane")}};
  case Tcgen05Shape::S16x256b: // (l/4 + 8((r/2)%2), r%2 + 2(l%4) + 8(r/4))
    return {16,
            8,
            4,
            {iter(2, 2, "reg"), iter(8, 4, "lane")},
            {iter(4, 1, "lane"), iter(2, 1, "reg")}};
  }
  return {};
}

/// Maps an image digit onto the warpgroup register tile: lanes become
/// tid_in_wg, register indices become element slots.
Iter placeDigit(const Iter &digit, int64_t slotsPerReg) {
  if (digit.axis == "lane")
    return iter(digit.extent, digit.stride, kTidInWg);
  return iter(digit.extent, digit.stride * slotsPerReg);
}
} // namespace

Result<TileLayout> axe::tcgen05AtomLayout(Tcgen05Shape shape,
                                          llvm::ArrayRef<int64_t> tensorShape,
                                          unsigned elementBits) {
  if (!isEnumerator(shape, Tcgen05Shape::S16x256b))
    return fail("unknown tcgen05 shape");
  std::string what = "tcgen05 ." + tcgen05ShapeName(shape).str() + " atom";
  if (elementBits != 32 && elementBits != 16)
    return fail(what + " moves 32- or 16-bit elements, not " +
                str(elementBits) + "-bit ones");
  if (tensorShape.size() != 2)
    return fail(what + " needs a (rows, cols) tensor shape, not " +
                shapeStr(tensorShape));
  Tcgen05Image image = tcgen05Image(shape);
  int64_t rows = tensorShape[0], cols = tensorShape[1];
  int64_t perCell = 32 / elementBits;
  bool halfLanes = image.lanes == 16;
  if (!(rows == 128 || (halfLanes && rows == 64)))
    return fail(what + " covers " +
                (halfLanes ? std::string("64 or 128") : std::string("128")) +
                " rows over a warpgroup, not " + str(rows));
  int64_t repElems = image.cellsPerRep * perCell;
  if (cols < 1 || cols % repElems != 0)
    return fail(what + " moves " + str(repElems) + " " + str(elementBits) +
                "-bit columns per repetition; cols must be a positive "
                "multiple of it, not " +
                str(cols));
  if (cols / perCell > kTmemColumns)
    return fail(what + ": " + str(cols) + " columns need " +
                str(cols / perCell) + " TMEM columns; TMEM has " +
                str(kTmemColumns));
  int64_t reps = cols / repElems;
  int64_t regsPerHalf = reps * image.regsPerRep;

  // Rows: warp, then (over 128 rows) which 16-lane half, then the image.
  IterList iters{iter(4, 32, kTidInWg)};
  if (halfLanes && rows == 128)
    iters.push_back(iter(2, regsPerHalf * perCell));
  for (const Iter &d : image.rowDigits)
    iters.push_back(placeDigit(d, perCell));
  // Columns: repetition, then the image, then the half of a 32-bit cell.
  iters.push_back(iter(reps, image.regsPerRep * perCell));
  for (const Iter &d : image.colDigits)
    iters.push_back(placeDigit(d, perCell));
  iters.push_back(iter(perCell, 1));
  return build(iters);
}

//===----------------------------------------------------------------------===//
// Shared-memory swizzle atoms
//===----------------------------------------------------------------------===//

Result<SwizzleMode> axe::parseSwizzleMode(llvm::StringRef name) {
  auto m = llvm::StringSwitch<std::optional<SwizzleMode>>(name)
               .Case("32B", SwizzleMode::B32)
               .Case("64B", SwizzleMode::B64)
               .Case("128B", SwizzleMode::B128)
               .Default(std::nullopt);
  if (!m)
    return fail("unknown swizzle mode '" + name.str() +
                "'; expected 32B, 64B or 128B");
  return *m;
}

llvm::StringRef axe::swizzleModeName(SwizzleMode mode) {
  static const char *names[] = {"32B", "64B", "128B"};
  unsigned i = static_cast<unsigned>(mode);
  return i < std::size(names) ? names[i] : "?";
}

/// log2 of the swizzle line in 16-byte chunks: 1, 2, 3 (the B of SW).
static int swizzleBits(SwizzleMode mode) { return static_cast<int>(mode) + 1; }

Result<Shape> axe::swizzleAtomShape(SwizzleMode mode, unsigned elementBits) {
  if (!isEnumerator(mode, SwizzleMode::B128))
    return fail("unknown swizzle mode");
  if (elementBits != 8 && elementBits != 16 && elementBits != 32 &&
      elementBits != 64)
    return fail("swizzle atoms take 8-, 16-, 32- or 64-bit elements, not " +
                str(elementBits) + "-bit ones");
  int64_t lineBytes = int64_t(16) << swizzleBits(mode);
  return Shape{8, lineBytes * 8 / elementBits};
}

Result<Layout> axe::swizzleAtom(SwizzleMode mode, unsigned elementBits) {
  Result<Shape> shape = swizzleAtomShape(mode, elementBits);
  if (!shape)
    return shape.takeFailure();
  // M keeps a 16-byte chunk whole: log2(128 / elementBits) element bits.
  int perElement = llvm::Log2_64(128 / elementBits);
  Result<Swizzle> sw = Swizzle::create(perElement, swizzleBits(mode), 3);
  if (!sw)
    return sw.takeFailure();
  int64_t cols = (*shape)[1];
  Result<TileLayout> tile = TileLayout::create({iter(8, cols), iter(cols, 1)});
  if (!tile)
    return tile.takeFailure();
  return Layout(*sw, *tile);
}

//===----------------------------------------------------------------------===//
// Accelerator memories
//===----------------------------------------------------------------------===//

static std::optional<Failure> checkConfig(const AcceleratorConfig &c,
                                          unsigned elementBytes) {
  if (c.partitions < 1 || c.sbufPartitionBytes < 1 || c.psumBanks < 1 ||
      c.psumBankBytes < 1)
    return fail("accelerator config needs positive partitions, SBUF bytes, "
                "PSUM banks and bank bytes");
  if (elementBytes < 1)
    return fail("element size must be at least one byte");
  return std::nullopt;
}

Result<TileLayout> axe::partitionedLayout(llvm::ArrayRef<int64_t> shape,
                                          unsigned partitionDim,
                                          unsigned elementBytes,
                                          const AcceleratorConfig &config) {
  if (auto f = checkConfig(config, elementBytes))
    return *f;
  Result<int64_t> size = shapeSize(shape);
  if (!size)
    return size.takeFailure();
  if (partitionDim >= shape.size())
    return fail("partition dim " + str(partitionDim) + " is not a dim of " +
                shapeStr(shape));
  int64_t p = config.partitions, extent = shape[partitionDim];
  if (extent > p && extent % p != 0)
    return fail("dim " + str(partitionDim) + " of " + shapeStr(shape) +
                " has " + str(extent) + " rows, more than the " + str(p) +
                " partitions and not a multiple of them");
  // Logical digits slowest first; the partition dim's low part goes to P.
  IterList iters;
  for (auto [i, e] : llvm::enumerate(shape)) {
    if (i != partitionDim) {
      iters.push_back(iter(e, 0, "F"));
      continue;
    }
    if (e > p)
      iters.push_back(iter(e / p, 0, "F"));
    iters.push_back(iter(std::min(e, p), 1, "P"));
  }
  // F strides: row-major over the F digits alone.
  int64_t free = 1;
  for (Iter &it : llvm::reverse(iters)) {
    if (it.axis != "F")
      continue;
    it.stride = free;
    free *= it.extent; // <= size, no overflow.
  }
  int64_t bytes;
  if (mulOverflows(free, int64_t(elementBytes), bytes) ||
      bytes > config.sbufPartitionBytes)
    return fail(shapeStr(shape) + " needs " + str(free) + " elements of " +
                str(elementBytes) + " bytes per partition; a partition has " +
                str(config.sbufPartitionBytes) + " bytes");
  return build(iters);
}

/// Elements per PSUM bank per partition.
static Result<int64_t> bankElements(unsigned elementBytes,
                                    const AcceleratorConfig &config) {
  if (auto f = checkConfig(config, elementBytes))
    return *f;
  if (config.psumBankBytes % elementBytes != 0)
    return fail("a " + str(config.psumBankBytes) +
                "-byte PSUM bank does not "
                "hold a whole number of " +
                str(elementBytes) + "-byte elements");
  return config.psumBankBytes / elementBytes;
}

/// The reachable range of `layout` on `axis` from the given iters and base.
static std::pair<int64_t, int64_t> reachOf(llvm::ArrayRef<Iter> iters,
                                           llvm::StringRef axis, int64_t base) {
  int64_t lo = base, hi = base;
  for (const Iter &it : iters)
    if (it.axis == axis)
      ((it.stride < 0) ? lo : hi) += (it.extent - 1) * it.stride;
  return {lo, hi};
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

Result<TileLayout> axe::psumBankView(const TileLayout &layout,
                                     unsigned elementBytes,
                                     const AcceleratorConfig &config) {
  Result<int64_t> w = bankElements(elementBytes, config);
  if (!w)
    return w.takeFailure();
  // Iters stepping by whole banks move Bank; the rest must stay in a bank.
  auto split = [&](llvm::ArrayRef<Iter> iters) {
    IterList out;
    for (Iter it : iters) {
      if (it.axis == "F" && it.stride % *w == 0 && it.stride != 0) {
        it.stride /= *w;
        it.axis = "Bank";
      }
      out.push_back(std::move(it));
    }
    return out;
  };
  IterList shard = split(layout.shard()), replica = split(layout.replica());
  int64_t f = layout.offset().get("F");
  int64_t bankOffset = floorDiv(f, *w), inBank = f - bankOffset * *w;
  IterList all = shard;
  all.append(replica.begin(), replica.end());
  auto [lo, hi] = reachOf(all, "F", inBank);
  if (lo < 0 || hi >= *w)
    return fail("F of " + layout.str() + " reaches [" + str(lo) + ", " +
                str(hi) + "] within a bank of " + str(*w) +
                " elements: an iter that does not step by whole banks "
                "straddles a PSUM bank boundary");
  Coord offset = layout.offset();
  offset.set("F", inBank);
  int64_t bank;
  if (addOverflows(offset.get("Bank"), bankOffset, bank))
    return fail("the Bank offset of the view of " + layout.str() +
                " overflows int64");
  offset.set("Bank", bank);
  Result<TileLayout> view = TileLayout::create(shard, replica, offset);
  if (!view)
    return view;
  auto [bankLo, bankHi] = reachOf(all, "Bank", offset.get("Bank"));
  if (bankLo < 0 || bankHi >= config.psumBanks)
    return fail(layout.str() + " uses PSUM banks [" + str(bankLo) + ", " +
                str(bankHi) + "]; PSUM has " + str(config.psumBanks));
  return view;
}

Result<TileLayout> axe::psumFlatView(const TileLayout &layout,
                                     unsigned elementBytes,
                                     const AcceleratorConfig &config) {
  Result<int64_t> w = bankElements(elementBytes, config);
  if (!w)
    return w.takeFailure();
  IterList all(layout.shard().begin(), layout.shard().end());
  all.append(layout.replica().begin(), layout.replica().end());
  auto [lo, hi] = reachOf(all, "F", layout.offset().get("F"));
  if (lo < 0 || hi >= *w)
    return fail("F of " + layout.str() + " reaches [" + str(lo) + ", " +
                str(hi) + "], outside one bank of " + str(*w) +
                " elements, so Bank and F do not form one flat address");
  std::optional<Failure> overflow;
  auto fold = [&](llvm::ArrayRef<Iter> iters) {
    IterList out;
    for (Iter it : iters) {
      if (it.axis == "Bank") {
        if (mulOverflows(it.stride, *w, it.stride))
          overflow = fail("folding Bank into F overflows int64");
        it.axis = "F";
      }
      out.push_back(std::move(it));
    }
    return out;
  };
  IterList shard = fold(layout.shard()), replica = fold(layout.replica());
  Coord offset = layout.offset();
  int64_t bankBase = 0, flat = 0;
  if (mulOverflows(offset.get("Bank"), *w, bankBase) ||
      addOverflows(bankBase, offset.get("F"), flat))
    overflow = fail("folding the Bank offset into F overflows int64");
  if (overflow)
    return *overflow;
  offset.set("Bank", 0);
  offset.set("F", flat);
  return TileLayout::create(shard, replica, offset);
}

Result<TileLayout> axe::psumTileLayout(int64_t rows, int64_t cols,
                                       unsigned elementBytes,
                                       const AcceleratorConfig &config) {
  Result<int64_t> w = bankElements(elementBytes, config);
  if (!w)
    return w.takeFailure();
  if (rows < 1 || rows > config.partitions)
    return fail("a PSUM tile puts its rows on the " + str(config.partitions) +
                " partitions; rows must be in [1, " + str(config.partitions) +
                "], not " + str(rows));
  if (cols < 1 || (cols > *w && cols % *w != 0))
    return fail("a PSUM tile row of " + str(cols) + " elements must fit in " +
                "one bank of " + str(*w) + " or fill whole banks");
  if (cols / *w > config.psumBanks)
    return fail("a PSUM tile row of " + str(cols) +
                " elements needs more "
                "than the " +
                str(config.psumBanks) + " banks");
  Result<TileLayout> flat = TileLayout::create(
      cols > *w ? IterList{iter(rows, 1, "P"), iter(cols / *w, *w, "F"),
                           iter(*w, 1, "F")}
                : IterList{iter(rows, 1, "P"), iter(cols, 1, "F")});
  if (!flat)
    return flat;
  return psumBankView(*flat, elementBytes, config);
}

Result<TileLayout> axe::partitionTiledLayout(llvm::ArrayRef<int64_t> shape,
                                             unsigned partitionDim,
                                             unsigned elementBytes,
                                             const AcceleratorConfig &config) {
  // The checks (dim, divisibility, capacity) and the bytes are the same.
  Result<TileLayout> plain =
      partitionedLayout(shape, partitionDim, elementBytes, config);
  if (!plain || shape[partitionDim] <= config.partitions)
    return plain;
  int64_t p = config.partitions;
  IterList iters;
  size_t tile = 0;
  for (auto [i, e] : llvm::enumerate(shape)) {
    if (i != partitionDim) {
      iters.push_back(iter(e, 0, "F"));
      continue;
    }
    tile = iters.size();
    iters.push_back(iter(e / p, 0, "F"));
    iters.push_back(iter(p, 1, "P"));
  }
  // The other F digits row-major, the tile digit above them all.
  int64_t free = 1;
  for (size_t i = iters.size(); i-- > 0;) {
    if (iters[i].axis != "F" || i == tile)
      continue;
    iters[i].stride = free;
    free *= iters[i].extent;
  }
  iters[tile].stride = free;
  return build(iters);
}
