//===- Fragments.cpp - mma.sync / ldmatrix fragments, bank counting -------===//
//
// The fragment maps follow the PTX ISA's "Matrix Fragments for mma.m16n8k*"
// figures: groupID = laneid / 4, threadID_in_group = laneid % 4.
//
//===----------------------------------------------------------------------===//

#include "axe/GPUSim/Fragments.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace axe::gpusim;

bool axe::gpusim::isSupportedMma(MmaType type, int m, int n, int k) {
  if (m != 16 || n != 8)
    return false;
  switch (type) {
  case MmaType::F16:
  case MmaType::BF16:
    return k == 8 || k == 16;
  case MmaType::TF32:
    return k == 4 || k == 8;
  case MmaType::S8:
    return k == 16 || k == 32;
  }
  return false;
}

RowCol axe::gpusim::mmaA(MmaType type, int k, int lane, int i) {
  int g = lane / 4, t = lane % 4;
  switch (type) {
  case MmaType::F16:
  case MmaType::BF16: {
    int reg = i / 2, h = i % 2;
    if (k == 8)
      return {g + 8 * reg, 2 * t + h};
    // a0,a1: (g, 2t..); a2,a3: (g+8, 2t..); a4,a5: (g, 2t+8..); a6,a7.
    return {g + 8 * (reg & 1), 2 * t + h + 8 * (reg >> 1)};
  }
  case MmaType::TF32:
    if (k == 4)
      return {g + 8 * i, t};
    // a0: (g, t), a1: (g+8, t), a2: (g, t+4), a3: (g+8, t+4).
    return {g + 8 * (i & 1), t + 4 * (i >> 1)};
  case MmaType::S8: {
    int reg = i / 4, byte = i % 4;
    if (k == 16)
      return {g + 8 * reg, 4 * t + byte};
    return {g + 8 * (reg & 1), 4 * t + byte + 16 * (reg >> 1)};
  }
  }
  return {0, 0};
}

RowCol axe::gpusim::mmaB(MmaType type, int k, int lane, int i) {
  int g = lane / 4, t = lane % 4;
  switch (type) {
  case MmaType::F16:
  case MmaType::BF16:
    if (k == 8)
      return {2 * t + i, g};
    // b0,b1: rows 2t, 2t+1; b2,b3: rows 2t+8, 2t+9; column groupID.
    return {2 * t + i % 2 + 8 * (i / 2), g};
  case MmaType::TF32:
    // b0: (t, g), b1: (t+4, g).
    return {t + 4 * i, g};
  case MmaType::S8:
    if (k == 16)
      return {4 * t + i, g};
    return {4 * t + i % 4 + 16 * (i / 4), g};
  }
  return {0, 0};
}

RowCol axe::gpusim::mmaC(int lane, int i) {
  int g = lane / 4, t = lane % 4;
  // c0,c1: (g, 2t..); c2,c3: (g+8, 2t..).
  return {g + 8 * (i / 2), 2 * t + i % 2};
}

RowCol axe::gpusim::ldmatrixElement(int lane, int half, bool trans) {
  if (trans)
    return {2 * (lane % 4) + half, lane / 4};
  return {lane / 4, 2 * (lane % 4) + half};
}

Wavefronts axe::gpusim::phaseWavefronts(llvm::ArrayRef<LaneAccess> accesses) {
  llvm::SmallVector<int64_t, 64> words;
  for (const LaneAccess &a : accesses) {
    if (a.bytes == 0)
      continue;
    for (int64_t w = a.address >> 2; w <= (a.address + a.bytes - 1) >> 2; ++w)
      words.push_back(w);
  }
  Wavefronts r;
  if (words.empty())
    return r;
  llvm::sort(words);
  words.erase(std::unique(words.begin(), words.end()), words.end());
  unsigned perBank[32] = {};
  for (int64_t w : words)
    r.wavefronts = std::max(r.wavefronts, ++perBank[((w % 32) + 32) % 32]);
  r.ideal = (words.size() + 31) / 32;
  return r;
}

Wavefronts axe::gpusim::warpWavefronts(const int64_t *address, uint32_t mask,
                                       unsigned bytes) {
  unsigned perPhase = bytes <= 4 ? 32 : std::max(1u, 128 / bytes);
  Wavefronts total;
  for (unsigned first = 0; first < 32; first += perPhase) {
    llvm::SmallVector<LaneAccess, 32> phase;
    for (unsigned l = first; l < first + perPhase && l < 32; ++l)
      if (mask >> l & 1)
        phase.push_back({address[l], bytes});
    Wavefronts w = phaseWavefronts(phase);
    total.wavefronts += w.wavefronts;
    total.ideal += w.ideal;
  }
  return total;
}

unsigned axe::gpusim::globalSectors(const int64_t *address, uint32_t mask,
                                    unsigned bytes) {
  llvm::SmallVector<int64_t, 64> sectors;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1)
      for (int64_t s = address[l] >> 5; s <= (address[l] + bytes - 1) >> 5; ++s)
        sectors.push_back(s);
  llvm::sort(sectors);
  return std::unique(sectors.begin(), sectors.end()) - sectors.begin();
}
