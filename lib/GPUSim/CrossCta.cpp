//===- CrossCta.cpp - The order of global memory between CTAs -------------===//
//
// The CTAs of a launch share global memory, and a CTA sees another's write
// only through a release and an acquire at GPU scope on the same location
// (an atomic flag): anything else is a race, even though this interpreter
// runs CTAs one cluster at a time and would read the value written. With
// --check-races it checks that order at the granularity of CTAs:
//
// - each CTA's global writes carry its current generation; a release (a
//   release or acq_rel atomic, or a relaxed atomic write after a release
//   fence) publishes "this CTA's writes below generation g" on the atomic's
//   location and starts a new generation;
// - an acquire (an acquire atomic read, or a relaxed one followed by an
//   acquire fence) of a location makes what was published there the
//   reading CTA's;
// - a read or write of a byte another CTA wrote is a race unless the
//   accessing CTA acquired that write's generation; a TMA load's read
//   further needs an async-proxy fence after the acquire (fence.proxy.async
//   orders the async proxy after the generic one).
//
// Threads within a CTA are not told apart here (the per-CTA race detector
// of shared memory, and barriers, order them): a release covers the whole
// CTA's earlier writes, an acquire its later accesses. Writes after another
// CTA's reads (write after read) are not tracked.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace axe::gpusim;

static void join(CtaClock &into, const CtaClock &from) {
  for (auto [cta, generation] : from) {
    uint32_t &mine = into[cta];
    mine = std::max(mine, generation);
  }
}

/// Whether CTA `me` has acquired `writer`'s writes of `generation` in
/// `acquired`.
static bool
acquiredWrite(const std::unordered_map<uint32_t, CtaClock> &acquired,
              uint32_t me, uint32_t writer, uint32_t generation) {
  auto mine = acquired.find(me);
  if (mine == acquired.end())
    return false;
  auto seen = mine->second.find(writer);
  return seen != mine->second.end() && seen->second > generation;
}

uint32_t Machine::ctaLinear() const {
  return uint32_t(ctaId[0] +
                  dims.grid[0] * (ctaId[1] + dims.grid[1] * ctaId[2]));
}

bool Machine::checkCrossCta(const Inst &i, int lane, Buffer &b, int64_t byte,
                            int64_t bytes, bool isLoad, bool async) {
  uint32_t me = ctaLinear();
  // Buffers addressed below their base (negative strides) are not tracked.
  if ((isLoad && b.ctaStamp.empty()) || b.lo < 0)
    return true;
  if (b.ctaStamp.empty())
    b.ctaStamp.assign(size_t(b.hi), 0);
  if (ctaGeneration.size() <= me)
    ctaGeneration.resize(me + 1, 0);
  uint64_t stamp = (uint64_t(me) + 1) << 32 | ctaGeneration[me];
  for (int64_t k = byte; k < byte + bytes; ++k) {
    uint64_t s = b.ctaStamp[k];
    if (s && (s >> 32) != uint64_t(me) + 1) {
      uint32_t writer = uint32_t(s >> 32) - 1;
      uint32_t generation = uint32_t(s);
      if (!acquiredWrite(async ? ctaAcquiredAsync : ctaAcquired, me, writer,
                         generation)) {
        int64_t gx = dims.grid[0], gy = dims.grid[1];
        fail(i, lane,
             llvm::formatv(
                 "data race between CTAs ({0}) on byte {1} of {2} (global "
                 "memory): CTA ({3}, {4}, {5}) wrote it, and this CTA has "
                 "not acquired a flag released after that write{6}",
                 isLoad ? (async ? "TMA read after write" : "read after write")
                        : "write after write",
                 k, b.name, writer % gx, writer / gx % gy, writer / gx / gy,
                 async && acquiredWrite(ctaAcquired, me, writer, generation)
                     ? " for the async proxy (a fence.proxy.async after the "
                       "acquire is missing)"
                     : " (axe.flag_add after the write, axe.flag_wait "
                       "before the read)"));
        return false;
      }
    }
    if (!isLoad)
      b.ctaStamp[k] = stamp;
  }
  return true;
}

bool Machine::checkTmaGlobalRead(const Inst &i, int lane, const uint8_t *src,
                                 int64_t bytes) {
  for (unsigned k = 0; k < ctaBufferBase; ++k) {
    Buffer &b = buffers[k];
    if (b.space != Space::Global)
      continue;
    int64_t at = src - b.data;
    if (at < b.lo || at >= b.hi)
      continue;
    // The load reads at its issue, as a cp.async's source does: threads of
    // this CTA that wrote those bytes must be ordered before it.
    int64_t n = std::min(bytes, b.hi - at);
    shadowAccess(i, lane, b, at, n, /*isWrite=*/false);
    if (failed)
      return false;
    return b.ctaStamp.empty() || checkCrossCta(i, lane, b, at, n,
                                               /*isLoad=*/true,
                                               /*async=*/true);
  }
  return true;
}

void Machine::atomicAcquire(std::pair<uint32_t, int64_t> flag, MemOrder order) {
  auto it = flagClocks.find(flag);
  if (it == flagClocks.end())
    return;
  if (order == MemOrder::Acquire || order == MemOrder::AcqRel)
    join(ctaAcquired[ctaLinear()], it->second);
  else
    join(cur->pendingAcquire, it->second);
}

void Machine::atomicRelease(std::pair<uint32_t, int64_t> flag, MemOrder order) {
  uint32_t me = ctaLinear();
  if (ctaGeneration.size() <= me)
    ctaGeneration.resize(me + 1, 0);
  uint32_t cover = cur->releaseCover;
  if (order == MemOrder::Release || order == MemOrder::AcqRel)
    cover = ++ctaGeneration[me];
  if (!cover)
    return;
  uint32_t &published = flagClocks[flag][me];
  published = std::max(published, cover);
  // What this CTA acquired before the release goes on with it (the PTX
  // model's causality order is transitive).
  if (auto acquired = ctaAcquired.find(me); acquired != ctaAcquired.end())
    join(flagClocks[flag], acquired->second);
}

void Machine::execAtomicAdd(const Inst &i) {
  cur->spinReads = 0;
  unsigned space = unsigned(i.imm[0]);
  MemOrder order = MemOrder(i.imm[1]);
  unsigned bytes = i.bits / 8;
  uint64_t m = widthMask(i.bits);
  // Lanes in order: each add sees the ones before it.
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    Buffer *b;
    int64_t byte;
    if (!resolvePointer(i, l, reg(i.in[0], 0, l), bytes, space,
                        /*isLoad=*/false, b, byte, /*atomic=*/true))
      return;
    if (byte % bytes)
      return fail(i, l,
                  llvm::formatv("atomic add of {0} bytes at byte {1} of {2}, "
                                "not aligned to its size",
                                bytes, byte, b->name));
    uint64_t old = 0;
    std::memcpy(&old, b->data + byte, bytes);
    uint64_t sum = (old + reg(i.in[1], 0, l)) & m;
    std::memcpy(b->data + byte, &sum, bytes);
    reg(i.out[0], 0, l) = old & m;
    if (b->space == Space::Global && options.checkRaces) {
      std::pair<uint32_t, int64_t> flag{uint32_t(b - buffers.data()), byte};
      atomicAcquire(flag, order);
      atomicRelease(flag, order);
    }
  });
}

void Machine::execFence(const Inst &i) {
  if (!options.checkRaces)
    return;
  uint32_t me = ctaLinear();
  switch (FenceKind(i.sub)) {
  case FenceKind::AsyncProxy:
    if (auto acquired = ctaAcquired.find(me); acquired != ctaAcquired.end())
      join(ctaAcquiredAsync[me], acquired->second);
    return;
  case FenceKind::Acquire:
  case FenceKind::AcqRel:
    join(ctaAcquired[me], cur->pendingAcquire);
    cur->pendingAcquire.clear();
    if (FenceKind(i.sub) == FenceKind::Acquire)
      return;
    [[fallthrough]];
  case FenceKind::Release:
    if (ctaGeneration.size() <= me)
      ctaGeneration.resize(me + 1, 0);
    cur->releaseCover = ++ctaGeneration[me];
    return;
  }
}
