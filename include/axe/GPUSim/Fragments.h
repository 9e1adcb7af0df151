//===- Fragments.h - Warp-level matrix fragments and bank counting -*- C++
//-*-===//
//
// Which lane holds which element of the mma.sync operands and of ldmatrix
// results, written from the PTX ISA manual (sections "Matrix Fragments for
// mma.m16n8k*" and "ldmatrix"), and the shared-memory wavefront count of a
// warp-wide access. Plain functions, so that unit tests can check them
// entry by entry.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_FRAGMENTS_H
#define AXE_GPUSIM_FRAGMENTS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace axe::gpusim {

/// The multiplicand type of an mma.sync.
enum class MmaType : uint8_t { F16, BF16, TF32, S8 };

/// A supported mma.sync: m16n8k{8,16} f16/bf16, m16n8k{4,8} tf32,
/// m16n8k{16,32} s8.
bool isSupportedMma(MmaType type, int m, int n, int k);

/// Elements each lane holds of A (m x k), B (k x n) and C/D (m x n).
inline int mmaAElements(int m, int k) { return m * k / 32; }
inline int mmaBElements(int k, int n) { return k * n / 32; }
inline int mmaCElements(int m, int n) { return m * n / 32; }

struct RowCol {
  int row, col;
};

/// The element of A that lane `lane` holds at fragment position `i`
/// (i = register * elementsPerRegister + position in the register; a
/// 32-bit register holds 2 f16/bf16, 4 s8 or 1 tf32).
RowCol mmaA(MmaType type, int k, int lane, int i);
/// The element (k, n) of B at lane `lane`, position `i`.
RowCol mmaB(MmaType type, int k, int lane, int i);
/// The element of C/D (16x8) at lane `lane`, position `i` (0..3).
RowCol mmaC(int lane, int i);

/// ldmatrix: matrix `j` of `numTiles` 8x8 b16 matrices, whose rows are at
/// the addresses lanes 8j..8j+7 give. Lane `lane` receives in register j the
/// two elements at `ldmatrixElement(lane, half, trans)` of matrix j.
RowCol ldmatrixElement(int lane, int half, bool trans);

/// Shared-memory wavefronts of one warp-wide access (32 banks of 4 bytes).
struct Wavefronts {
  unsigned wavefronts = 0;
  unsigned ideal = 0;
};

/// A contiguous access of `bytes` at `address` by one lane.
struct LaneAccess {
  int64_t address;
  unsigned bytes;
};

/// Wavefronts of one phase: lanes touching the same 4-byte word share it; a
/// bank serves one word per wavefront. Ideal: distinct words / 32, rounded
/// up.
Wavefronts phaseWavefronts(llvm::ArrayRef<LaneAccess> accesses);

/// A warp access of `bytes` per active lane (addresses indexed by lane):
/// accesses above 4 bytes run in phases of 128 / bytes lanes (16 lanes for
/// 64 bits, 8 for 128 bits), each counted by phaseWavefronts.
Wavefronts warpWavefronts(const int64_t *address, uint32_t mask,
                          unsigned bytes);

/// Distinct 32-byte sectors a warp access of `bytes` per active lane
/// touches.
unsigned globalSectors(const int64_t *address, uint32_t mask, unsigned bytes);

} // namespace axe::gpusim

#endif // AXE_GPUSIM_FRAGMENTS_H
