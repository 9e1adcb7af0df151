//===- HardwareLayouts.h - Layouts that instructions require ----*- C++ -*-===//
//
// Constructors for the layouts hardware instructions impose
// (docs/LayoutSemantics.md section 10). Each returns an ordinary TileLayout (or
// a swizzled Layout), never a special object; each documents the logical shape
// it admits and the definition it encodes, and fails with a reason on arguments
// the hardware does not have.
//
// Register fragments use m as the register slot axis, counted in elements
// (two 16-bit elements share one 32-bit register: see packToWords).
//
//===----------------------------------------------------------------------===//

#ifndef AXE_LAYOUT_HARDWARELAYOUTS_H
#define AXE_LAYOUT_HARDWARELAYOUTS_H

#include "axe/Layout/Swizzle.h"

namespace axe {

//===----------------------------------------------------------------------===//
// mma.sync (PTX ISA, "Matrix Fragments for mma.m16n8k8 / mma.m16n8k16")
//===----------------------------------------------------------------------===//

enum class MmaShape { M16N8K8, M16N8K16 };
enum class MmaOperand { A, B, C };
enum class MmaType { F16, BF16, F32 };

llvm::StringRef mmaShapeName(MmaShape shape);
llvm::StringRef mmaTypeName(MmaType type);

/// The logical shape of an operand: A is M x K, B is K x N, C is M x N.
Shape mmaSyncOperandShape(MmaShape shape, MmaOperand operand);

/// The warp fragment of one mma.sync operand over {laneid, m}, m being the
/// fragment element index (a_i, b_i, c_i). A and B take f16/bf16; C takes f32
/// (or f16, whose c_i sit at the same places). With groupID = laneid >> 2 and
/// t = laneid % 4, m16n8k16 A is
///   row = groupID + 8 * ((i >> 1) & 1), col = 2t + (i & 1) + 8 * (i >> 2),
/// i.e. S[(2, 8, 2, 4, 2) : (2, 4@laneid, 4, 1@laneid, 1)] over 16 x 16.
Result<TileLayout> mmaSyncFragment(MmaShape shape, MmaOperand operand,
                                   MmaType type);

//===----------------------------------------------------------------------===//
// ldmatrix (PTX ISA, "ldmatrix": .m8n8 .x1/.x2/.x4 [.trans] .b16)
//===----------------------------------------------------------------------===//

/// The fragment ldmatrix leaves in registers, over {laneid, m}. Admits
/// (numMatrices, 8, 8): matrix j, then the 8 x 8 matrix as stored in shared
/// memory (row r is the 16-byte row whose address lane 8j + r supplies).
/// Without .trans lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 of every
/// matrix; with .trans it holds column l/4, rows 2(l%4) and 2(l%4)+1. The
/// element of matrix j in register j, half h, is m = 2j + h.
/// numMatrices must be 1, 2 or 4.
Result<TileLayout> ldmatrixFragment(int64_t numMatrices, bool transpose);

/// Which lane supplies each row address: admits (numMatrices, 8), row r of
/// matrix j -> laneid 8j + r.
Result<TileLayout> ldmatrixRowAddresses(int64_t numMatrices);

//===----------------------------------------------------------------------===//
// Warpgroup layouts
//===----------------------------------------------------------------------===//

/// S[(rows, cols) : (1@tid_in_wg, 1)]: row r in thread r of the warpgroup,
/// column c in its register slot c. Needs 1 <= rows <= 128 and cols >= 1.
Result<TileLayout> wgLocalLayout(int64_t cols, int64_t rows = 128);

/// The wgmma .m64nNk16 accumulator D over {tid_in_wg, m}, admitting (64, n):
/// with w the warp in the warpgroup, groupID = laneid >> 2, t = laneid % 4,
///   row = 16w + groupID + 8 * ((i >> 1) & 1), col = 8(i >> 2) + 2t + (i & 1)
/// for d_i (m = i). n is a multiple of 8 in [8, 256]; f32 or f16 (same
/// positions for d_i).
Result<TileLayout> wgmmaAccumulator(int64_t n, MmaType type = MmaType::F32);

//===----------------------------------------------------------------------===//
// Blackwell tensor memory (PTX ISA, tcgen05 "Data path layout organization"
// and "Matrix fragments" of tcgen05.ld / tcgen05.st)
//===----------------------------------------------------------------------===//

/// The PTX data-path layouts, by letter. A-D are M=256/128 shapes of
/// tcgen05.mma, E-G the M=64/32 ones (per CTA).
enum class TmemDatapath { A, B, C, D, E, F, G };

Result<TmemDatapath> parseTmemDatapath(llvm::StringRef name);
llvm::StringRef tmemDatapathName(TmemDatapath datapath);

/// Where tcgen05.mma places a (rows, cols) accumulator in TMEM, over
/// {TLane, TCol} (cols in 32-bit columns). Our reading of the PTX figures:
///   A (M=256, cta_group::2, per CTA), D (M=128, cta_group::1): identity,
///     rows = 128: S[(128, cols) : (1@TLane, 1@TCol)];
///   B (M=128, cta_group::2, per CTA), E (M=64, .ws): rows = 64, the right
///     half of the columns folded onto lanes 64-127:
///     S[(64, 2, cols/2) : (1@TLane, 64@TLane, 1@TCol)], cols even;
///   C (M=128, cta_group::2 sparse), F (M=64): rows = 64, 16 rows in the
///     first half of each warp's 32-lane sub-partition:
///     S[(4, 16, cols) : (32@TLane, 1@TLane, 1@TCol)];
///   G (M=32, .ws): rows = 32, column quarters folded onto the four 32-lane
///     sub-partitions: S[(32, 4, cols/4) : (1@TLane, 32@TLane, 1@TCol)].
/// The physical columns must fit in TMEM's 512.
Result<TileLayout> tmemDatapathLayout(TmemDatapath datapath, int64_t rows,
                                      int64_t cols);

/// tcgen05.ld / tcgen05.st data-movement shapes.
enum class Tcgen05Shape { S32x32b, S16x64b, S16x128b, S16x256b };

Result<Tcgen05Shape> parseTcgen05Shape(llvm::StringRef name);
llvm::StringRef tcgen05ShapeName(Tcgen05Shape shape);

/// The warpgroup register tile moved by tcgen05.ld/st atoms of `shape` over a
/// TMEM tensor of `tensorShape` = (rows, cols) elements of `elementBits` (32
/// or 16) bits, over {tid_in_wg, m}. Warp w of the warpgroup reaches TMEM
/// lanes [32w, 32w + 32). Per instruction, lane l's register r holds TMEM
/// (lane, column) relative to the atom origin (our reading of the PTX
/// figures):
///   32x32b : (l, r)
///   16x64b : (l/4 + 8(l%2), (l/2)%2 + 2r)
///   16x128b: (l/4 + 8(r%2), l%4 + 4(r/2))
///   16x256b: (l/4 + 8((r/2)%2), r%2 + 2(l%4) + 8(r/4))
/// Repetitions along the columns come first in the register order (.num);
/// for 16-lane shapes over 128 rows, the upper 16 lanes of each warp's
/// sub-partition are a second atom whose registers follow all of the first.
/// rows: 128 for 32x32b; 64 (16 rows per warp, data path F) or 128 for the
/// 16-lane shapes. A 16-bit tensor holds two elements per 32-bit column (low
/// half first), so a register holds two adjacent columns' elements and m
/// counts elements: m = 2 * register + half.
Result<TileLayout> tcgen05AtomLayout(Tcgen05Shape shape,
                                     llvm::ArrayRef<int64_t> tensorShape,
                                     unsigned elementBits);

//===----------------------------------------------------------------------===//
// Shared-memory swizzle atoms (TMA / wgmma / tcgen05 swizzle modes)
//===----------------------------------------------------------------------===//

enum class SwizzleMode { B32, B64, B128 };

Result<SwizzleMode> parseSwizzleMode(llvm::StringRef name);
llvm::StringRef swizzleModeName(SwizzleMode mode);

/// (8, modeBytes * 8 / elementBits): eight rows of one swizzle line.
Result<Shape> swizzleAtomShape(SwizzleMode mode, unsigned elementBits);

/// The swizzle atom of a mode for elements of `elementBits` (8, 16, 32 or
/// 64): the row-major atom under SW(M, B, 3) with M = log2(16 bytes /
/// element) and B = 1, 2, 3 for 32, 64, 128 bytes. On byte addresses this is
/// the hardware rule "XOR address bits [7, 7+B) into bits [4, 4+B)".
Result<Layout> swizzleAtom(SwizzleMode mode, unsigned elementBits);

//===----------------------------------------------------------------------===//
// Trainium-like accelerator memories (the Axe paper, appendix H)
//===----------------------------------------------------------------------===//

struct AcceleratorConfig {
  /// SBUF and PSUM partitions (the P axis).
  int64_t partitions = 128;
  /// SBUF bytes per partition.
  int64_t sbufPartitionBytes = 192 * 1024;
  /// PSUM: banks per partition and bytes per bank.
  int64_t psumBanks = 8;
  int64_t psumBankBytes = 2048;
};

/// An SBUF layout of a tensor of `shape` whose dim `partitionDim` spans the
/// partitions: that dim's index i goes to P = i mod partitions (and, when it
/// is longer than the partitions, i / partitions joins the free dim); the
/// free dim F (in elements) enumerates the remaining digits row-major in
/// logical order. A dim longer than the partitions must be a multiple of
/// them; the free bytes must fit in a partition.
Result<TileLayout> partitionedLayout(llvm::ArrayRef<int64_t> shape,
                                     unsigned partitionDim,
                                     unsigned elementBytes,
                                     const AcceleratorConfig &config = {});

/// Splits a flat per-partition F coordinate (in elements) into PSUM banks:
/// Bank = F div W and F mod W with W = psumBankBytes / elementBytes. Exact
/// when each F iter either steps by whole banks or stays inside one bank
/// with the others; fails with the straddling iter otherwise.
Result<TileLayout> psumBankView(const TileLayout &layout, unsigned elementBytes,
                                const AcceleratorConfig &config = {});

/// The inverse of psumBankView: Bank folded back into F.
Result<TileLayout> psumFlatView(const TileLayout &layout, unsigned elementBytes,
                                const AcceleratorConfig &config = {});

/// A (rows, cols) matmul output tile in PSUM: rows on P, columns on
/// (Bank, F) filling banks in order. cols beyond one bank must be a multiple
/// of the bank's elements; the tile must fit in the banks.
Result<TileLayout> psumTileLayout(int64_t rows, int64_t cols,
                                  unsigned elementBytes,
                                  const AcceleratorConfig &config = {});

/// partitionedLayout with the tiles of the partition dim outermost on F:
/// when that dim is longer than the partitions, index i goes to
/// P = i mod partitions and F = (i / partitions) * R + r, where r (< R)
/// enumerates the other dims row-major. Each tile of `partitions` rows (a
/// matmul's K tile) is then one contiguous run of every partition, as
/// TensorE reads it; partitionedLayout keeps the logical order instead
/// (the same layout when the dim fits the partitions or is dim 0).
Result<TileLayout> partitionTiledLayout(llvm::ArrayRef<int64_t> shape,
                                        unsigned partitionDim,
                                        unsigned elementBytes,
                                        const AcceleratorConfig &config = {});

} // namespace axe

#endif // AXE_LAYOUT_HARDWARELAYOUTS_H
