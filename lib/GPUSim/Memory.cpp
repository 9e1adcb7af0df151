//===- Memory.cpp - Memory accesses through memrefs -----------------------===//
//
// Bounds, pending async copies, TMA fills and (with --check-races) data
// races checked on every access; loads and stores through memrefs and the
// memref values themselves (allocas, shared buffers, views, metadata).
// Accesses through raw pointers are in Pointers.cpp.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "axe/GPUSim/Fragments.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace axe::gpusim;

//===----------------------------------------------------------------------===//
// Memory accesses
//===----------------------------------------------------------------------===//

static const char *spaceName(Space s) {
  switch (s) {
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  default:
    return "private";
  }
}

/// Checks the bytes against the buffer, pending async copies and (with
/// --check-races) other threads' accesses in this epoch.
bool Machine::checkBytes(const Inst &i, int lane, Buffer &b, int64_t byte,
                         int64_t bytes, bool isLoad) {
  if (byte < b.lo || byte + bytes > b.hi) {
    fail(i, lane,
         llvm::formatv("out-of-bounds {0} of {1} memory: bytes [{2}, {3}) "
                       "outside the {4} bytes [{5}, {6}) of {7}",
                       isLoad ? "read" : "write", spaceName(b.space), byte,
                       byte + bytes, b.hi - b.lo, b.lo, b.hi, b.name));
    return false;
  }
  if (b.pending) {
    for (int64_t k = 0; k < bytes; ++k)
      if (b.poison[byte + k]) {
        bool tma = b.poison[byte + k] == 2;
        fail(i, lane,
             llvm::formatv("{0} byte {1} of {2} ({3} memory), which {4}",
                           isLoad ? "reads" : "writes", byte + k, b.name,
                           spaceName(b.space),
                           tma ? "a TMA load has not completed (its mbarrier "
                                 "phase has not completed: missing "
                                 "nvgpu.mbarrier.try_wait.parity?)"
                               : "an async copy has not completed (missing "
                                 "nvgpu.device_async_wait?)"));
        return false;
      }
  }
  if (!b.tmaFill.empty() && !checkTmaFill(i, lane, b, byte, bytes, isLoad))
    return false;
  if (!b.shadow.empty() || (b.space == Space::Global && options.checkRaces))
    shadowAccess(i, lane, b, byte, bytes, !isLoad);
  if (b.space == Space::Global && options.checkRaces &&
      !checkCrossCta(i, lane, b, byte, bytes, isLoad, /*async=*/false))
    return false;
  return !failed;
}

/// A read of bytes a TMA load wrote needs the reading warp to have observed
/// the phase the load completed on: waited for it, or passed a CTA barrier
/// with a warp that did. A write makes the bytes the writer's.
bool Machine::checkTmaFill(const Inst &i, int lane, Buffer &b, int64_t byte,
                           int64_t bytes, bool isLoad) {
  uint64_t checked = 0;
  for (int64_t k = byte; k < byte + bytes; ++k) {
    uint64_t fill = b.tmaFill[k];
    if (!isLoad) {
      b.tmaFill[k] = 0;
      continue;
    }
    if (!fill || fill == checked || !cur)
      continue;
    uint64_t phase = fill & 0xffffffff;
    auto seen = cur->observed.find(fill >> 32);
    if (seen == cur->observed.end() || seen->second <= phase) {
      fail(i, lane,
           llvm::formatv("reads byte {0} of {1} (shared memory), which a TMA "
                         "load wrote in phase {2} of an mbarrier this warp "
                         "has not waited for (nor passed a CTA barrier with "
                         "a warp that did): a missing "
                         "nvgpu.mbarrier.try_wait.parity",
                         k, b.name, phase));
      return false;
    }
    checked = fill;
  }
  return true;
}

Shadow *Machine::globalShadow(Buffer &b, int64_t byte) {
  if (b.shadowPages.empty())
    b.shadowPages.assign(size_t((b.hi - b.lo + kShadowPage - 1) / kShadowPage),
                         nullptr);
  int64_t at = byte - b.lo;
  Shadow *&page = b.shadowPages[size_t(at / kShadowPage)];
  if (!page) {
    if (shadowPoolUsed == shadowPool.size())
      shadowPool.push_back(std::make_unique<Shadow[]>(kShadowPage));
    page = shadowPool[shadowPoolUsed++].get();
    shadowTouched.push_back(
        {uint32_t(&b - buffers.data()), uint32_t(at / kShadowPage)});
  }
  return page + at % kShadowPage;
}

void Machine::releaseGlobalShadow() {
  for (auto [buffer, page] : shadowTouched)
    buffers[buffer].shadowPages[page] = nullptr;
  shadowTouched.clear();
  shadowPoolUsed = 0;
}

/// Checks an access against the last writer and readers of each byte and
/// records it. Shared bytes are checked against the threads of the cluster
/// (distributed shared memory), global ones against the threads of this
/// CTA: the order of global memory between CTAs is CrossCta.cpp's.
void Machine::shadowAccess(const Inst &i, int lane, Buffer &b, int64_t byte,
                           int64_t bytes, bool isWrite) {
  // Threads of the cluster: rank * 1024 + the thread's linear index.
  int32_t t = int32_t(curRank * 1024 + cur->id * 32 + lane);
  int32_t warp = t / 32;
  uint32_t syncs = cur->warpSyncs;
  bool global = b.space == Space::Global;
  // Epochs are unique per CTA, so only this CTA's accesses since its last
  // barrier have the running epoch.
  auto racy = [&](uint32_t e) { return global ? e == epoch : unordered(e); };
  // A lane of this warp, before a bar.warp.sync this warp has passed since.
  auto syncedInWarp = [&](int32_t otherWarp, uint32_t otherSyncs) {
    return otherWarp == warp && syncs > otherSyncs;
  };
  Shadow *page = nullptr;
  for (int64_t k = byte; k < byte + bytes; ++k) {
    if (!global)
      page = &b.shadow[k];
    else if (!page || (k - b.lo) % kShadowPage == 0)
      page = globalShadow(b, k);
    else
      ++page;
    Shadow &s = *page;
    const char *kind = nullptr;
    int32_t other = -1;
    if (s.writer != t && racy(s.writeEpoch) &&
        !syncedInWarp(s.writer / 32, s.writeSync)) {
      kind = isWrite ? "write after write" : "read after write";
      other = s.writer;
    } else if (isWrite && s.reader != t && s.reader != -1 &&
               racy(s.readEpoch) && !syncedInWarp(s.readerWarp, s.readSync)) {
      kind = "write after read";
      other = s.reader;
    }
    if (kind) {
      std::string by = other == -2 ? std::string("several threads")
                       : global    ? "thread " + std::to_string(other % 1024)
                                   : threadName(other);
      if (global)
        fail(i, lane,
             llvm::formatv("data race ({0}) on byte {1} of {2} (global "
                           "memory) with {3} of this CTA since the last "
                           "barrier",
                           kind, k, b.name, by));
      else
        fail(i, lane,
             llvm::formatv("data race ({0}) on byte {1} of {2} (shared "
                           "memory{3}) with {4} since the last barrier",
                           kind, k, b.name, ctaOfBuffer(b), by));
      return;
    }
    if (isWrite) {
      s.writer = t;
      s.writeEpoch = epoch;
      s.writeSync = syncs;
    } else if (s.readEpoch != epoch || s.reader == t || s.reader == -1) {
      s.reader = t;
      s.readEpoch = epoch;
      s.readerWarp = warp;
      s.readSync = syncs;
    } else {
      s.reader = -2;
      if (s.readerWarp != warp)
        s.readerWarp = -1;
      s.readSync = std::min(s.readSync, syncs);
    }
  }
}

void Machine::countShared(const Inst &i, const int64_t *addr, uint32_t m,
                          unsigned bytes) {
  SiteStats &s = stats.sites[indexOf(i)];
  Wavefronts w = warpWavefronts(addr, m, bytes);
  ++s.sharedRequests;
  s.sharedWavefronts += w.wavefronts;
  s.sharedIdeal += w.ideal;
}

void Machine::countGlobal(const Inst &i, const int64_t *addr, uint32_t m,
                          unsigned bytes) {
  SiteStats &s = stats.sites[indexOf(i)];
  ++s.globalRequests;
  s.globalSectors += globalSectors(addr, m, bytes);
}

/// The byte offset (in its buffer) of the first element a lane accesses
/// through the memref at `memref` with indices at `idx`, after checking
/// each index (and the vector's extent along the trailing dims) against the
/// memref's sizes. `stride` is the innermost dim's stride.
bool Machine::resolve(const Inst &i, int lane, unsigned rank, uint32_t memref,
                      const uint32_t *idx, ArrayRef<int64_t> vshape,
                      unsigned eltBytes, bool isLoad, Buffer *&buf,
                      int64_t &byte, int64_t &stride) {
  uint64_t id = reg(memref, 0, lane);
  if (id >= buffers.size()) {
    fail(i, lane, "access through an invalid memref");
    return false;
  }
  buf = &buffers[id];
  int64_t at = int64_t(reg(memref, 1, lane));
  size_t lead = rank - vshape.size();
  for (unsigned d = 0; d < rank; ++d) {
    int64_t x = int64_t(reg(idx[d], 0, lane));
    int64_t size = int64_t(reg(memref, 2 + d, lane));
    int64_t span = d >= lead ? vshape[d - lead] : 1;
    if (x < 0 || x + span > size) {
      std::string s, sz;
      llvm::raw_string_ostream os(s), oz(sz);
      for (unsigned e = 0; e < rank; ++e) {
        os << (e ? ", " : "") << int64_t(reg(idx[e], 0, lane));
        oz << (e ? "x" : "") << int64_t(reg(memref, 2 + e, lane));
      }
      fail(i, lane,
           llvm::formatv("out-of-bounds {0} of {1} memory at index [{2}] of "
                         "a memref of sizes {3}{4} ({5})",
                         isLoad ? "read" : "write", spaceName(buf->space), s,
                         sz,
                         span > 1 ? " (a vector of " + std::to_string(span) +
                                        " along dim " + std::to_string(d) + ")"
                                  : std::string(),
                         buf->name));
      return false;
    }
    at += x * int64_t(reg(memref, 2 + rank + d, lane));
  }
  stride = rank ? int64_t(reg(memref, 2 + 2 * rank - 1, lane)) : 1;
  byte = at * eltBytes;
  return true;
}

/// Byte offsets of the elements of a vector access relative to the first,
/// in the memref's trailing dims.
static void elementOffsets(const Inst &i, uint64_t *regs, uint32_t memref,
                           int lane, unsigned eltBytes,
                           SmallVectorImpl<int64_t> &out) {
  unsigned rank = i.imm[0];
  ArrayRef<int64_t> vshape = i.imm2;
  out.assign(i.n, 0);
  size_t lead = rank - vshape.size();
  int64_t n = i.n;
  for (int64_t e = 0; e < n; ++e) {
    int64_t rest = e, off = 0;
    for (int d = int(vshape.size()) - 1; d >= 0; --d) {
      int64_t x = rest % vshape[d];
      rest /= vshape[d];
      off += x * int64_t(regs[memref + (2 + rank + lead + d) * 32 + lane]);
    }
    out[e] = off * eltBytes;
  }
}

bool Machine::checkDeclaredAlignment(const Inst &i, int lane, const Buffer &b,
                                     int64_t byte) {
  int64_t alignment = i.imm.size() > 1 ? i.imm[1] : 0;
  if (alignment <= 1)
    return true;
  int64_t address = b.space == Space::Shared ? b.sharedBase + byte
                                             : int64_t(intptr_t(b.data + byte));
  if (address % alignment == 0)
    return true;
  fail(i, lane,
       llvm::formatv("a vector access declared {0}-byte aligned is at "
                     "address {1:x}, {2} bytes past such a boundary (a GPU "
                     "faults on it)",
                     alignment, address, address % alignment));
  return false;
}

/// A load (isLoad) or store of i.n elements through a memref: each lane's
/// elements contiguous or at the strides of the memref's trailing dims,
/// counted as shared wavefronts or global sectors.
static void accessMemRef(Machine &M, const Inst &i, bool isLoad) {
  unsigned eb = storageBytes(i.kind, i.bits);
  uint64_t m = i.kind == Kind::Int ? widthMask(i.bits) : ~uint64_t(0);
  unsigned rank = i.imm[0];
  // The loaded result or the stored value.
  uint32_t value = isLoad ? i.out[0] : i.in[1 + rank];
  auto move = [&](uint8_t *p, uint32_t e, int l) {
    if (isLoad) {
      uint64_t w = 0;
      std::memcpy(&w, p, eb);
      M.reg(value, e, l) = w & m;
    } else {
      uint64_t w = M.reg(value, e, l);
      std::memcpy(p, &w, eb);
    }
  };
  int64_t addr[32] = {};
  Space space = Space::Private;
  bool contiguous = true;
  SmallVector<int64_t, 16> offs;
  forLanes(M.mask, [&](int l) {
    if (M.failed)
      return;
    Buffer *b;
    int64_t byte, stride;
    if (!M.resolve(i, l, rank, i.in[0], &i.in[1], i.imm2, eb, isLoad, b, byte,
                   stride))
      return;
    space = b->space;
    if (!M.checkDeclaredAlignment(i, l, *b, byte))
      return;
    if (i.n == 1 || (i.imm2.size() == 1 && stride == 1)) {
      if (!M.checkBytes(i, l, *b, byte, int64_t(i.n) * eb, isLoad))
        return;
      uint8_t *p = b->data + byte;
      for (uint32_t e = 0; e < i.n; ++e)
        move(p + e * eb, e, l);
    } else {
      contiguous = false;
      elementOffsets(i, M.regs, i.in[0], l, eb, offs);
      for (uint32_t e = 0; e < i.n; ++e) {
        if (!M.checkBytes(i, l, *b, byte + offs[e], eb, isLoad))
          return;
        move(b->data + byte + offs[e], e, l);
      }
    }
    addr[l] = space == Space::Shared ? b->sharedBase + byte
                                     : int64_t(intptr_t(b->data + byte));
  });
  if (M.failed || !M.mask)
    return;
  unsigned bytes = contiguous ? i.n * eb : eb;
  if (space == Space::Shared)
    M.countShared(i, addr, M.mask, bytes);
  else if (space == Space::Global)
    M.countGlobal(i, addr, M.mask, bytes);
}

void Machine::execLoad(const Inst &i) {
  if (i.imm[0] < 0)
    return execPointerAccess(i, /*isLoad=*/true);
  accessMemRef(*this, i, /*isLoad=*/true);
}

void Machine::execStore(const Inst &i) {
  if (i.imm[0] < 0)
    return execPointerAccess(i, /*isLoad=*/false);
  accessMemRef(*this, i, /*isLoad=*/false);
}

void Machine::execAlloca(const Inst &i) {
  if (i.sub == 0) {
    // Per-lane storage, made the first time the warp reaches the alloca
    // and reused when it runs again (as registers would be).
    const BufferDecl &d = program.allocas[i.imm[0]];
    auto [it, inserted] = cur->allocas.try_emplace(unsigned(i.imm[0]), 0);
    if (inserted) {
      it->second = buffers.size();
      for (int l = 0; l < 32; ++l)
        newBuffer(Space::Private, d.bytes, "memref.alloca");
    }
    forLanes(mask, [&](int l) {
      writeMemRef(i.out[0], l, it->second + l, d.offset, d.sizes, d.strides);
    });
    return;
  }
  if (i.sub == 3) {
    unsigned b = sharedBuffers[i.imm[0]];
    forLanes(mask, [&](int l) { reg(i.out[0], 0, l) = b; });
    return;
  }
  if (i.sub == 1) {
    const BufferDecl &d = program.shared[i.imm[0]].second;
    forLanes(mask, [&](int l) {
      writeMemRef(i.out[0], l, sharedBuffers[i.imm[0]], d.offset, d.sizes,
                  d.strides);
    });
    return;
  }
  int64_t bytes = dims.dynamicSharedBytes;
  forLanes(mask, [&](int l) {
    writeMemRef(i.out[0], l, dynamicShared, 0, {bytes}, {1});
  });
}

void Machine::execView(const Inst &i) {
  unsigned srcRank = i.bits2, rank = i.n;
  auto value = [&](size_t at, int l) -> int64_t {
    return i.imm[at] ? int64_t(reg(i.in[i.imm[at + 1]], 0, l)) : i.imm[at + 1];
  };
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    uint32_t src = i.in[0];
    uint64_t buf = reg(src, 0, l);
    int64_t off = int64_t(reg(src, 1, l));
    SmallVector<int64_t, 4> sizes(srcRank), strides(srcRank), ns, nt;
    for (unsigned d = 0; d < srcRank; ++d) {
      sizes[d] = int64_t(reg(src, 2 + d, l));
      strides[d] = int64_t(reg(src, 2 + srcRank + d, l));
    }
    switch (ViewOp(i.sub)) {
    case ViewOp::Copy:
      ns = sizes;
      nt = strides;
      break;
    case ViewOp::Reinterpret:
      off = value(0, l);
      for (unsigned d = 0; d < rank; ++d) {
        ns.push_back(value(2 + 2 * d, l));
        nt.push_back(value(2 + 2 * (rank + d), l));
      }
      break;
    case ViewOp::Subview:
      for (unsigned d = 0; d < srcRank; ++d) {
        int64_t o = value(2 * d, l), s = value(2 * (srcRank + d), l),
                st = value(2 * (2 * srcRank + d), l);
        if (o < 0 || (s > 0 && o + (s - 1) * st >= sizes[d]))
          return fail(i, l,
                      llvm::formatv("memref.subview reaches outside its "
                                    "source in dim {0}: offset {1}, size "
                                    "{2}, stride {3} of {4}",
                                    d, o, s, st, sizes[d]));
        off += o * strides[d];
        if (!i.imm2[d]) {
          ns.push_back(s);
          nt.push_back(strides[d] * st);
        }
      }
      break;
    case ViewOp::Collapse: {
      unsigned d = 0;
      for (int64_t g : i.imm2) {
        int64_t size = 1, stride = 1;
        for (int64_t k = 0; k < g; ++k, ++d) {
          size *= sizes[d];
          stride = strides[d];
        }
        ns.push_back(size);
        nt.push_back(g ? stride : 1);
      }
      break;
    }
    case ViewOp::Expand: {
      for (unsigned d = 0; d < rank; ++d)
        ns.push_back(value(2 * d, l));
      nt.assign(rank, 0);
      unsigned r = 0;
      for (auto [d, g] : llvm::enumerate(i.imm2)) {
        int64_t stride = strides[d];
        for (int64_t k = g - 1; k >= 0; --k) {
          nt[r + k] = stride;
          stride *= ns[r + k];
        }
        r += g;
      }
      break;
    }
    case ViewOp::ByteView: {
      unsigned eb = storageBytes(i.kind, i.bits);
      int64_t byte = off + int64_t(reg(i.in[1], 0, l));
      if (byte % eb)
        return fail(i, l,
                    llvm::formatv("memref.view at byte {0}, not a multiple "
                                  "of the element size {1}",
                                  byte, eb));
      off = byte / eb;
      for (unsigned d = 0; d < rank; ++d)
        ns.push_back(value(2 * d, l));
      nt.assign(rank, 1);
      for (int d = int(rank) - 2; d >= 0; --d)
        nt[d] = nt[d + 1] * ns[d + 1];
      break;
    }
    }
    writeMemRef(i.out[0], l, buf, off, ns, nt);
  });
}

void Machine::execDim(const Inst &i) {
  int64_t rank = i.imm[0];
  forLanes(mask, [&](int l) {
    int64_t d = int64_t(reg(i.in[1], 0, l));
    if (d < 0 || d >= rank)
      return fail(i, l, llvm::formatv("memref.dim of dim {0}", d));
    reg(i.out[0], 0, l) = reg(i.in[0], 2 + d, l);
  });
}

void Machine::execExtractMeta(const Inst &i) {
  int64_t rank = i.imm[0];
  forLanes(mask, [&](int l) {
    uint32_t src = i.in[0];
    // The base: the same buffer as a rank-0 memref at offset 0.
    reg(i.out[0], 0, l) = reg(src, 0, l);
    reg(i.out[0], 1, l) = 0;
    reg(i.out[1], 0, l) = reg(src, 1, l);
    for (int64_t d = 0; d < 2 * rank; ++d)
      reg(i.out[2 + d], 0, l) = reg(src, 2 + d, l);
  });
}

void Machine::execExtractPtr(const Inst &i) {
  forLanes(mask, [&](int l) {
    const Buffer &b = buffers[reg(i.in[0], 0, l)];
    reg(i.out[0], 0, l) = b.space == Space::Shared ? uint64_t(b.sharedBase)
                                                   : uint64_t(intptr_t(b.data));
  });
}
