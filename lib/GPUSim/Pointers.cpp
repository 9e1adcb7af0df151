//===- Pointers.cpp - Raw pointers and the nvvm ops that take them --------===//
//
// An !llvm.ptr is an address: the host's address for global memory (as
// memref.extract_aligned_pointer_as_index gives it), an address in the
// CTA's shared window for address space 3. Each access finds the buffer
// holding its address and is checked like a memref access.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "axe/GPUSim/Fragments.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace axe::gpusim;

bool Machine::resolvePointer(const Inst &i, int lane, uint64_t address,
                             int64_t bytes, unsigned addressSpace, bool isLoad,
                             Buffer *&buf, int64_t &byte, bool atomic) {
  if (addressSpace == 7)
    return resolveRemote(i, lane, address, bytes, isLoad, buf, byte, atomic);
  bool shared = addressSpace == 3;
  // The buffer whose extent holds the first byte; checkBytes reports an
  // access that runs past its end. Global buffers are the arguments (the
  // first ctaBufferBase), shared ones the running CTA's.
  Buffer *found = nullptr;
  int64_t at = 0;
  auto holds = [&](Buffer &b) {
    int64_t base = shared ? b.sharedBase : int64_t(intptr_t(b.data));
    at = int64_t(address) - base;
    if (at < b.lo || at >= std::max(b.hi, b.lo + 1))
      return false;
    found = &b;
    return true;
  };
  if (shared) {
    for (unsigned k : clusterShared[curRank])
      if (holds(buffers[k]))
        break;
  } else {
    for (unsigned k = 0; k < ctaBufferBase; ++k)
      if (holds(buffers[k]))
        break;
  }
  if (found) {
    buf = found;
    byte = at;
    if (!atomic)
      return checkBytes(i, lane, *found, at, bytes, isLoad);
    // Atomic objects (mbarriers): bounds only, no race or poison check.
    if (at + bytes <= found->hi)
      return true;
    fail(i, lane,
         llvm::formatv("{0} bytes at byte {1} run past the {2} bytes of {3}",
                       bytes, at, found->hi, found->name));
    return false;
  }
  fail(i, lane,
       llvm::formatv("{0} of {1} bytes at address {2:x} ({3} memory), which "
                     "no buffer of the kernel holds",
                     isLoad ? "read" : "write", bytes, address,
                     shared ? "shared" : "global"));
  return false;
}

void Machine::execGep(const Inst &i) {
  int64_t bytes = i.imm[0];
  forLanes(mask, [&](int l) {
    int64_t index =
        i.in.size() > 1 ? signExtend(reg(i.in[1], 0, l), i.bits2) : i.imm[1];
    reg(i.out[0], 0, l) = reg(i.in[0], 0, l) + uint64_t(index * bytes);
  });
}

/// A warp runs until it blocks, and nothing else runs meanwhile: an atomic
/// load that keeps reading one value at one address, with no store, atomic
/// add or barrier of the warp in between, is a spin no thread
/// will end (the flag's writer is a later CTA, since CTAs run one cluster
/// at a time here, or another warp of this CTA, which cannot run). On a GPU
/// it would hang the same way when the writer cannot start before the
/// waiter ends. Reported after kSpinReads such reads.
bool Machine::noteSpin(const Inst &i, int lane, uint64_t address,
                       const Buffer *b, int64_t byte) {
  constexpr uint32_t kSpinReads = 4096;
  uint64_t value = 0;
  std::memcpy(&value, b->data + byte,
              std::min<int64_t>(8, storageBytes(i.kind, i.bits)));
  Warp &w = *cur;
  if (w.spinReads && w.spinAddress == address && w.spinValue == value) {
    if (++w.spinReads < kSpinReads)
      return true;
    fail(i, lane,
         llvm::formatv("spins on byte {0} of {1}, which holds {2} and which "
                       "no running thread can change: its writer is a CTA "
                       "that starts after this one (axe-gpu-run runs CTAs "
                       "one cluster at a time; a GPU need not run them "
                       "together either: wait only for CTAs that drew an "
                       "earlier ticket) or another warp of this CTA (warps "
                       "yield only at barriers here)",
                       byte, b->name, int64_t(value)));
    return false;
  }
  w.spinAddress = address;
  w.spinValue = value;
  w.spinReads = 1;
  return true;
}

/// llvm.load / llvm.store of a scalar or a vector (contiguous elements).
void Machine::execPointerAccess(const Inst &i, bool isLoad) {
  unsigned eb = storageBytes(i.kind, i.bits);
  int64_t bytes = int64_t(i.n) * eb;
  uint64_t m = i.kind == Kind::Int ? widthMask(i.bits) : ~uint64_t(0);
  unsigned space = unsigned(i.imm[1]);
  // An atomic load (imm[2]: its MemOrder) takes part in no race.
  bool atomic = i.imm.size() > 2;
  if (!isLoad)
    cur->spinReads = 0; // a store is progress: not a spin
  int64_t addr[32] = {};
  bool remote = false;
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    Buffer *b;
    int64_t byte;
    if (!resolvePointer(i, l, reg(i.in[0], 0, l), bytes, space, isLoad, b,
                        byte, atomic))
      return;
    if (atomic && b->space == Space::Global)
      atomicAcquire({uint32_t(b - buffers.data()), byte}, MemOrder(i.imm[2]));
    if (atomic && isLoad && !noteSpin(i, l, reg(i.in[0], 0, l), b, byte))
      return;
    if (space == 7)
      remote |= !llvm::is_contained(clusterShared[curRank],
                                    unsigned(b - buffers.data()));
    uint8_t *p = b->data + byte;
    for (uint32_t e = 0; e < i.n; ++e) {
      uint64_t w = isLoad ? 0 : reg(i.in[1], e, l);
      if (isLoad) {
        std::memcpy(&w, p + e * eb, eb);
        reg(i.out[0], e, l) = w & m;
      } else {
        std::memcpy(p + e * eb, &w, eb);
      }
    }
    addr[l] = space == 3 ? b->sharedBase + byte : int64_t(intptr_t(p));
  });
  if (failed || !mask)
    return;
  if (space == 7) {
    // Distributed shared memory goes through the cluster's network, not
    // the CTA's banks: requests and bytes only.
    SiteStats &s = stats.sites[indexOf(i)];
    ++s.clusterRequests;
    s.remoteRequests += remote;
    s.clusterBytes += uint64_t(bytes) * popcount(mask);
  } else if (space == 3) {
    countShared(i, addr, mask, unsigned(bytes));
  } else {
    countGlobal(i, addr, mask, unsigned(bytes));
  }
}

/// nvvm.stmatrix: the inverse of ldmatrix. Lane l's register j holds the
/// two b16 elements ldmatrix would have given it from matrix j; lanes
/// 8j..8j+7 give matrix j's row addresses.
void Machine::execStMatrix(const Inst &i) {
  if (!requireFullWarp(i))
    return;
  int tiles = i.imm[0];
  if (tiles != 1 && tiles != 2 && tiles != 4)
    return fail(i, -1, "stmatrix stores 1, 2 or 4 tiles");
  bool trans = i.sub;
  uint8_t rows[4][8][16];
  for (int l = 0; l < 32; ++l)
    for (int t = 0; t < tiles; ++t) {
      uint64_t w = reg(i.in[1 + t], 0, l);
      for (int h = 0; h < 2; ++h) {
        RowCol rc = ldmatrixElement(l, h, trans);
        uint16_t half = uint16_t(w >> (16 * h));
        std::memcpy(&rows[t][rc.row][2 * rc.col], &half, 2);
      }
    }
  SiteStats &s = stats.sites[indexOf(i)];
  ++s.sharedRequests;
  for (int t = 0; t < tiles; ++t) {
    LaneAccess phase[8];
    for (int r = 0; r < 8; ++r) {
      int l = 8 * t + r;
      Buffer *b;
      int64_t byte;
      if (!resolvePointer(i, l, reg(i.in[0], 0, l), 16, 3, false, b, byte))
        return;
      if (byte % 16)
        return fail(i, l,
                    llvm::formatv("stmatrix row address (byte {0}) is not "
                                  "16-byte aligned",
                                  byte));
      std::memcpy(b->data + byte, rows[t][r], 16);
      phase[r] = {b->sharedBase + byte, 16};
    }
    Wavefronts w = phaseWavefronts(phase);
    s.sharedWavefronts += w.wavefronts;
    s.sharedIdeal += w.ideal;
  }
}

/// Poisons a copy's destination and queues it on the warp.
void Machine::queueCopy(const Inst &i, int lane, Buffer &d, int64_t dstByte,
                        const uint8_t *src, unsigned bytes, unsigned srcBytes) {
  if (d.poison.empty())
    d.poison.assign(d.hi, 0);
  for (unsigned k = 0; k < bytes; ++k)
    if (!d.poison[dstByte + k]) {
      d.poison[dstByte + k] = 1;
      ++d.pending;
    }
  cur->uncommitted.push_back(
      {uint32_t(&d - buffers.data()), dstByte, src, bytes, srcBytes});
}

/// nvvm.cp.async.shared.global %dst, %src, size (, %srcBytes).
void Machine::execAsyncCopyRaw(const Inst &i) {
  unsigned bytes = i.n;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return fail(
        i, -1,
        llvm::formatv("cp.async copies 4, 8 or 16 bytes, not {0}", bytes));
  int64_t dstAddr[32] = {}, srcAddr[32] = {};
  uint32_t readers = 0;
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    int64_t srcBytes = i.imm[2] ? int64_t(reg(i.in[2], 0, l)) : bytes;
    if (srcBytes < 0 || srcBytes > int64_t(bytes))
      return fail(i, l,
                  llvm::formatv("cp.async source size {0} of a {1}-byte copy",
                                srcBytes, bytes));
    const uint8_t *src = nullptr;
    if (srcBytes) {
      Buffer *b;
      int64_t byte;
      if (!resolvePointer(i, l, reg(i.in[0], 0, l), srcBytes, 1, true, b, byte))
        return;
      src = b->data + byte;
      srcAddr[l] = int64_t(intptr_t(src));
      readers |= 1u << l;
    }
    Buffer *d;
    int64_t byte;
    if (!resolvePointer(i, l, reg(i.in[1], 0, l), bytes, 3, false, d, byte))
      return;
    if (byte % bytes)
      return fail(i, l,
                  llvm::formatv("cp.async destination (byte {0}) is not "
                                "aligned to its {1} bytes",
                                byte, bytes));
    dstAddr[l] = d->sharedBase + byte;
    queueCopy(i, l, *d, byte, src, bytes, unsigned(srcBytes));
  });
  if (failed)
    return;
  countShared(i, dstAddr, mask, bytes);
  if (readers)
    countGlobal(i, srcAddr, readers, bytes);
}
