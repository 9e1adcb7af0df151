//===- Hopper.h - sm_90 tensor maps, TMA boxes and wgmma operands -*- C++
//-*-===//
//
// What the interpreter knows of sm_90's bulk-tensor (TMA) copies and
// warpgroup MMAs, as plain functions that unit tests check value by value:
// the tensor-map record the host builds (our own format, docs/GPURun.md)
// and the checks cuTensorMapEncodeTiled makes on it, the shared-memory
// swizzle modes, one TMA box copy, the shared-memory matrix descriptor of
// wgmma and the addresses of its K-major operands, and the accumulator
// fragment. Written from the PTX ISA manual ("Tensor", "Matrix Descriptor
// Format", "Shared Memory Matrix Layout", "Register Fragments" of wgmma),
// independently of lib/Layout.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_GPUSIM_HOPPER_H
#define AXE_GPUSIM_HOPPER_H

#include "axe/GPUSim/Fragments.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <deque>
#include <string>

namespace axe::gpusim {

/// "AXETMAP1": the first word of every record the host builds.
constexpr uint64_t kTensorMapMagic = 0x31504d5445584141ull;
constexpr unsigned kTensorMapMaxRank = 5;

/// A tensor-map descriptor as the host builds it (nvgpu.tma.create.descriptor
/// in axe-gpu-run): dims, strides and box innermost first, as
/// cuTensorMapEncodeTiled takes them.
struct TensorMap {
  uint64_t magic = kTensorMapMagic;
  uint64_t globalAddress = 0;
  uint32_t elementBytes = 0;
  uint32_t rank = 0;
  uint64_t dims[kTensorMapMaxRank] = {};    // elements
  uint64_t strides[kTensorMapMaxRank] = {}; // bytes; strides[0] = element
  uint32_t box[kTensorMapMaxRank] = {};     // elements
  uint32_t swizzle = 0;    // span in bytes: 0 (none), 32, 64, 128
  uint32_t oobNaN = 0;     // out-of-bound fill: 0 zeros, 1 NaN
  uint32_t interleave = 0; // 0 (none), 16, 32 bytes
  uint32_t reserved = 0;
};

/// The records the host has built (their addresses stay put): a kernel's
/// TMA op reads the record its descriptor operand points to, after
/// checking that the host built it.
struct TensorMapTable {
  std::deque<TensorMap> maps;
  /// The record at `address`, or null.
  const TensorMap *find(uint64_t address) const {
    for (const TensorMap &m : maps)
      if (uint64_t(reinterpret_cast<uintptr_t>(&m)) == address)
        return &m;
    return nullptr;
  }
};

/// The checks cuTensorMapEncodeTiled makes: rank 1..5, global address
/// 16-byte aligned, byte strides of the outer dims multiples of 16 (and
/// below 2^40), dims 1..2^32, box dims 1..256, the inner box's bytes a
/// multiple of 16 and, swizzled, at most the swizzle span. Returns "" or
/// what is wrong.
std::string checkTensorMap(const TensorMap &m);

/// A shared byte address as a swizzle mode of span `swizzle` bytes places
/// it: 128: bits [4,7) ^= bits [7,10); 64: bits [4,6) ^= bits [7,9); 32:
/// bit 4 ^= bit 7; 0: unchanged.
int64_t swizzleAddress(unsigned swizzle, int64_t address);

/// The alignment a TMA destination (or wgmma operand tile) of a swizzle mode
/// needs in shared memory: 1024 (128B), 512 (64B), 256 (32B), 128 (none).
int64_t swizzleAlignment(unsigned swizzle);

/// Bytes of one box.
int64_t boxBytes(const TensorMap &m);

/// Copies the box at `coords` (innermost first, signed) into shared memory:
/// element e of the box in row-major order (innermost fastest) goes to
/// shared address swizzleAddress(m.swizzle, dstAddress + e * elementBytes),
/// written at `dst + (that - dstAddress)`; elements outside the tensor
/// (a coordinate < 0 or >= its dim) are zeros (or NaN with oobNaN, for
/// float elements of 2 or 4 bytes). `dstAddress` must be aligned as
/// swizzleAlignment says and the inner box span equal to the swizzle span
/// (the caller checks). `onRead`, when given, sees each element's global
/// bytes before they are read, and stops the copy by returning false.
/// Returns the bytes read from global memory.
int64_t tmaLoadBox(
    const TensorMap &m, const int64_t *coords, uint8_t *dst,
    int64_t dstAddress, bool floatElements,
    llvm::function_ref<bool(const uint8_t *, int64_t)> onRead = nullptr);

/// The sm_90 shared-memory matrix descriptor (64 bits): start address
/// bits [0,14), leading-dimension byte offset [16,30), stride-dimension
/// byte offset [32,46) (each >> 4), base offset [49,52), layout [62,64)
/// (0 interleave, 1 128B, 2 64B, 3 32B swizzle).
struct MatrixDescriptor {
  int64_t start = 0, leading = 0, stride = 0;
  unsigned baseOffset = 0;
  unsigned swizzle = 0; // span in bytes, 0 for interleave
};
MatrixDescriptor decodeMatrixDescriptor(uint64_t d);

/// The shared byte address of element (row, k) of a K-major wgmma operand
/// (A: row in M; B: row in N) of `elementBytes` per element. Swizzled
/// modes of span T: start + (row / 8) * SBO + (row % 8) * T + k * bytes,
/// then swizzled; interleave: 8x16-byte core matrices, LBO apart along K
/// and SBO apart along M/N.
int64_t wgmmaKMajorAddress(const MatrixDescriptor &d, int row, int k,
                           unsigned elementBytes);

/// The same for an MN-major operand (A with .trans-a, B with .trans-b:
/// element (row, k) of the M x K or N x K matrix, stored with M or N
/// contiguous), from the ISA's canonical MN-major layouts. Swizzled modes
/// of span T: start + (rowByte / T) * LBO + (k / 8) * SBO + (k % 8) * T +
/// rowByte % T, then swizzled (a line of T bytes holds consecutive rows at
/// one k; LBO steps between lines' row groups, SBO between groups of 8 k);
/// interleave: core matrices of 8 k by 16 bytes of rows, SBO apart along
/// M/N and LBO apart along K.
int64_t wgmmaMNMajorAddress(const MatrixDescriptor &d, int row, int k,
                            unsigned elementBytes);

/// The element formats tensor-core instructions read their operands in
/// from shared memory.
enum class TensorInput : uint8_t { F16, BF16, E4M3, E5M2 };
unsigned tensorInputBytes(TensorInput t);
/// The value (exact) of one element of format `t` held in the low bits.
double tensorInputValue(TensorInput t, uint16_t bits);

/// The accumulator element that thread `thread` (0..127 of the warpgroup)
/// holds in register `reg` (0..N/2-1): row 16 w + l / 4 + 8 ((reg / 2) mod
/// 2), column 8 (reg / 4) + 2 (l mod 4) + reg mod 2, where thread = 32 w + l.
RowCol wgmmaAccumulator(int thread, int reg);

} // namespace axe::gpusim

#endif // AXE_GPUSIM_HOPPER_H
