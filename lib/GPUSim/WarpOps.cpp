//===- WarpOps.cpp - Special registers, warp collectives, mma, cp.async ---===//
//
// Warp collectives see all 32 lanes' operands at once. The `.sync.aligned`
// ones (ldmatrix, mma.sync) must be executed by the whole warp, and shfl,
// vote and redux by every lane their member mask names: anything else is
// reported. cp.async copies are queued per warp, committed into groups and
// performed when a wait retires their group; until then their destination
// bytes are poisoned.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "axe/GPUSim/Cluster.h"

#include "axe/GPUSim/Fragments.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace axe::gpusim;

void Machine::execSReg(const Inst &i) {
  uint64_t m = widthMask(i.bits);
  auto sub = SRegOp(i.sub);
  unsigned numWarps = (threadsPerCta + 31) / 32;
  forLanes(mask, [&](int l) {
    int64_t v = 0;
    switch (sub) {
    case SRegOp::TidX:
    case SRegOp::TidY:
    case SRegOp::TidZ:
      v = cur->tid[uint8_t(sub) - uint8_t(SRegOp::TidX)][l];
      break;
    case SRegOp::NTidX:
    case SRegOp::NTidY:
    case SRegOp::NTidZ:
      v = dims.block[uint8_t(sub) - uint8_t(SRegOp::NTidX)];
      break;
    case SRegOp::CtaIdX:
    case SRegOp::CtaIdY:
    case SRegOp::CtaIdZ:
      v = ctaId[uint8_t(sub) - uint8_t(SRegOp::CtaIdX)];
      break;
    case SRegOp::NCtaIdX:
    case SRegOp::NCtaIdY:
    case SRegOp::NCtaIdZ:
      v = dims.grid[uint8_t(sub) - uint8_t(SRegOp::NCtaIdX)];
      break;
    case SRegOp::LaneId:
      v = l;
      break;
    case SRegOp::WarpId:
      v = cur->id;
      break;
    case SRegOp::NWarpId:
      v = numWarps;
      break;
    case SRegOp::ClusterCtaIdX:
    case SRegOp::ClusterCtaIdY:
    case SRegOp::ClusterCtaIdZ: {
      int d = uint8_t(sub) - uint8_t(SRegOp::ClusterCtaIdX);
      v = ctaId[d] % dims.cluster[d];
      break;
    }
    case SRegOp::ClusterNCtaIdX:
    case SRegOp::ClusterNCtaIdY:
    case SRegOp::ClusterNCtaIdZ:
      v = dims.cluster[uint8_t(sub) - uint8_t(SRegOp::ClusterNCtaIdX)];
      break;
    case SRegOp::ClusterCtaRank:
      v = curRank;
      break;
    case SRegOp::ClusterNCtaRank:
      v = clusterCtas;
      break;
    case SRegOp::ClusterIdX:
    case SRegOp::ClusterIdY:
    case SRegOp::ClusterIdZ:
      v = clusterPos[uint8_t(sub) - uint8_t(SRegOp::ClusterIdX)];
      break;
    case SRegOp::NClusterIdX:
    case SRegOp::NClusterIdY:
    case SRegOp::NClusterIdZ: {
      int d = uint8_t(sub) - uint8_t(SRegOp::NClusterIdX);
      v = dims.grid[d] / dims.cluster[d];
      break;
    }
    }
    reg(i.out[0], 0, l) = uint64_t(v) & m;
  });
}

bool Machine::requireFullWarp(const Inst &i) {
  if (mask == 0xffffffffu)
    return true;
  fail(i, -1,
       llvm::formatv("'{0}' is a .sync.aligned warp collective: all 32 lanes "
                     "must execute it together, but only lanes {1:x8} are "
                     "active",
                     program.ops[indexOf(i)]->getName().getStringRef(), mask));
  return false;
}

/// Lanes a member mask names must all be executing the collective.
static bool membersActive(Machine &m, const Inst &i, uint32_t member) {
  if ((member & ~m.mask) == 0 && (m.mask & ~member) == 0)
    return true;
  m.fail(i, -1,
         llvm::formatv("'{0}' with member mask {1:x8} executed by lanes "
                       "{2:x8}: every lane of the mask must execute it, and "
                       "only those",
                       m.program.ops[m.indexOf(i)]->getName().getStringRef(),
                       member, m.mask));
  return false;
}

/// The member mask of a collective: the same in every active lane.
static bool uniformMask(Machine &m, const Inst &i, uint32_t base,
                        uint32_t &member) {
  bool first = true, ok = true;
  forLanes(m.mask, [&](int l) {
    uint32_t v = uint32_t(m.reg(base, 0, l));
    if (first)
      member = v;
    else if (v != member)
      ok = false;
    first = false;
  });
  if (!ok)
    m.fail(i, -1, "lanes disagree on the member mask");
  return ok;
}

void Machine::execShuffle(const Inst &i) {
  bool ptx = i.imm[0] == 1;
  uint32_t value = ptx ? i.in[1] : i.in[0];
  uint32_t offset = ptx ? i.in[2] : i.in[1];
  if (ptx) {
    uint32_t member;
    if (!uniformMask(*this, i, i.in[0], member) ||
        !membersActive(*this, i, member))
      return;
  }
  auto mode = ShuffleMode(i.sub);
  uint64_t source[32];
  bool valid[32];
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    uint32_t c;
    if (ptx) {
      c = uint32_t(reg(i.in[3], 0, l));
    } else {
      // gpu.shuffle's width, as the GPU-to-NVVM lowering packs it.
      int64_t width = int64_t(reg(i.in[2], 0, l));
      if (width < 1 || width > 32 || (width & (width - 1)))
        return fail(i, l,
                    llvm::formatv("gpu.shuffle width {0} is not a power of "
                                  "two in 1..32",
                                  width));
      c = uint32_t(32 - width) << 8 | (mode == ShuffleMode::Up ? 0 : 31);
    }
    int32_t b = int32_t(reg(offset, 0, l));
    int32_t clamp = c & 31, seg = (c >> 8) & 31;
    int32_t maxLane = (l & seg) | (clamp & ~seg), minLane = l & seg;
    int32_t j;
    bool p;
    switch (mode) {
    case ShuffleMode::Up:
      j = l - b;
      p = j >= maxLane;
      break;
    case ShuffleMode::Down:
      j = l + b;
      p = j <= maxLane;
      break;
    case ShuffleMode::Xor:
      j = l ^ b;
      p = j <= maxLane;
      break;
    default:
      j = minLane | (b & ~seg & 31);
      p = j <= maxLane;
    }
    if (!p)
      j = l;
    if (!(mask >> j & 1))
      return fail(i, l,
                  llvm::formatv("shuffle reads lane {0}, which does not "
                                "execute it (active lanes {1:x8})",
                                j, mask));
    source[l] = reg(value, 0, j);
    valid[l] = p;
  });
  if (failed)
    return;
  forLanes(mask, [&](int l) {
    reg(i.out[0], 0, l) = source[l];
    if (i.out.size() > 1)
      reg(i.out[1], 0, l) = valid[l];
  });
}

void Machine::execVote(const Inst &i) {
  uint32_t member;
  if (!uniformMask(*this, i, i.in[0], member) ||
      !membersActive(*this, i, member))
    return;
  uint32_t ballot = 0;
  forLanes(mask, [&](int l) {
    if (reg(i.in[1], 0, l) & 1)
      ballot |= 1u << l;
  });
  uint64_t r = 0;
  switch (VoteOp(i.sub)) {
  case VoteOp::Ballot:
    r = ballot;
    break;
  case VoteOp::Any:
    r = ballot != 0;
    break;
  case VoteOp::All:
    r = ballot == mask;
    break;
  case VoteOp::Uni:
    r = ballot == 0 || ballot == mask;
    break;
  }
  forLanes(mask, [&](int l) { reg(i.out[0], 0, l) = r & widthMask(i.bits); });
}

void Machine::execRedux(const Inst &i) {
  uint32_t member;
  if (!uniformMask(*this, i, i.in[1], member) ||
      !membersActive(*this, i, member))
    return;
  bool first = true;
  uint64_t acc = 0;
  Kind k = i.kind;
  forLanes(mask, [&](int l) {
    uint64_t v = reg(i.in[0], 0, l);
    if (first) {
      acc = v;
      first = false;
      return;
    }
    int64_t sa = signExtend(acc, 32), sv = signExtend(v, 32);
    switch (ReduceOp(i.sub)) {
    case ReduceOp::Add:
      acc = (acc + v) & 0xffffffffu;
      break;
    case ReduceOp::And:
      acc &= v;
      break;
    case ReduceOp::Or:
      acc |= v;
      break;
    case ReduceOp::Xor:
      acc ^= v;
      break;
    case ReduceOp::MaxS:
      acc = sa > sv ? acc : v;
      break;
    case ReduceOp::MinS:
      acc = sa < sv ? acc : v;
      break;
    case ReduceOp::MaxU:
      acc = acc > v ? acc : v;
      break;
    case ReduceOp::MinU:
      acc = acc < v ? acc : v;
      break;
    case ReduceOp::MinF:
      acc = floatWord(k, std::fmin(floatValue(k, acc), floatValue(k, v)));
      break;
    default:
      acc = floatWord(k, std::fmax(floatValue(k, acc), floatValue(k, v)));
    }
  });
  forLanes(mask, [&](int l) { reg(i.out[0], 0, l) = acc; });
}

//===----------------------------------------------------------------------===//
// ldmatrix and mma.sync
//===----------------------------------------------------------------------===//

void Machine::execLdMatrix(const Inst &i) {
  if (!requireFullWarp(i))
    return;
  int tiles = i.imm[0];
  unsigned rank = i.imm[1];
  unsigned eb = storageBytes(i.kind2, i.bits2);
  int64_t rowElems = 16 / eb;
  uint8_t rows[4][8][16];
  SiteStats &s = stats.sites[indexOf(i)];
  ++s.sharedRequests;
  bool raw = i.imm[1] < 0;
  for (int t = 0; t < tiles; ++t) {
    LaneAccess phase[8];
    for (int r = 0; r < 8; ++r) {
      int l = 8 * t + r;
      Buffer *b;
      int64_t byte, stride = 1;
      if (raw ? !resolvePointer(i, l, reg(i.in[0], 0, l), 16, 3, true, b, byte)
              : !resolve(i, l, rank, i.in[0], &i.in[1], {rowElems}, eb, true, b,
                         byte, stride))
        return;
      if (stride != 1)
        return fail(i, l,
                    "ldmatrix rows must be contiguous (the memref's "
                    "innermost stride is not 1)");
      if (b->space != Space::Shared)
        return fail(i, l, "ldmatrix reads shared memory only");
      if (!checkBytes(i, l, *b, byte, 16, true))
        return;
      if (byte % 16)
        return fail(i, l,
                    llvm::formatv("ldmatrix row address (byte {0}) is not "
                                  "16-byte aligned",
                                  byte));
      std::memcpy(rows[t][r], b->data + byte, 16);
      phase[r] = {b->sharedBase + byte, 16};
    }
    Wavefronts w = phaseWavefronts(phase);
    s.sharedWavefronts += w.wavefronts;
    s.sharedIdeal += w.ideal;
  }
  bool trans = i.sub;
  if (raw) {
    // nvvm.ldmatrix: one i32 per tile, two b16 halves, the low one first.
    for (int l = 0; l < 32; ++l)
      for (int t = 0; t < tiles; ++t) {
        uint16_t half[2];
        for (int h = 0; h < 2; ++h) {
          RowCol rc = ldmatrixElement(l, h, trans);
          std::memcpy(&half[h], &rows[t][rc.row][2 * rc.col], 2);
        }
        reg(i.out[0], t, l) = uint64_t(half[0]) | uint64_t(half[1]) << 16;
      }
    return;
  }
  unsigned perReg = 4 / eb; // elements of one 32-bit register
  for (int l = 0; l < 32; ++l)
    for (int t = 0; t < tiles; ++t)
      for (unsigned h = 0; h < perReg; ++h) {
        uint64_t w = 0;
        if (eb == 2) {
          RowCol rc = ldmatrixElement(l, h, trans);
          std::memcpy(&w, &rows[t][rc.row][2 * rc.col], 2);
        } else {
          // b8 / b32 elements: thread l gets bytes 4*(l%4).. of row l/4.
          std::memcpy(&w, &rows[t][l / 4][4 * (l % 4) + h * eb], eb);
        }
        reg(i.out[0], t * perReg + h, l) = w & widthMask(8 * eb);
      }
}

static MmaType mmaType(const Inst &i) {
  switch (i.kind2) {
  case Kind::F16:
    return MmaType::F16;
  case Kind::BF16:
    return MmaType::BF16;
  case Kind::F32:
    return MmaType::TF32;
  default:
    return MmaType::S8;
  }
}

/// A multiplicand element's value.
static double operand(MmaType t, uint64_t w) {
  switch (t) {
  case MmaType::F16:
    return halfToFloat(uint16_t(w));
  case MmaType::BF16:
    return bf16ToFloat(uint16_t(w));
  case MmaType::TF32:
    // The tensor core reads the top 19 bits of a tf32 register.
    return bitsToF32(uint32_t(w) & 0xffffe000u);
  default:
    return double(signExtend(w, 8));
  }
}

void Machine::execMma(const Inst &i) {
  int m = i.imm[0], n = i.imm[1], k = i.imm[2];
  MmaType type = mmaType(i);
  bool isInt = type == MmaType::S8;
  if (!isSupportedMma(type, m, n, k) ||
      (isInt && (i.bits2 != 8 || i.kind != Kind::Int || i.bits != 32)) ||
      (!isInt && !isFloat(i.kind)) || i.imm2[0] != mmaAElements(m, k) ||
      i.imm2[1] != mmaCElements(m, n) || i.imm2[2] != mmaBElements(k, n))
    return fail(i, -1,
                llvm::formatv("unsupported mma.sync m{0}n{1}k{2} with these "
                              "operand types",
                              m, n, k));
  if (!requireFullWarp(i))
    return;
  double a[16][32], b[32][8], c[16][8];
  int64_t ia[16][32], ib[32][8], ic[16][8];
  for (int l = 0; l < 32; ++l) {
    for (int e = 0; e < mmaAElements(m, k); ++e) {
      RowCol rc = mmaA(type, k, l, e);
      a[rc.row][rc.col] = operand(type, reg(i.in[0], e, l));
      ia[rc.row][rc.col] = int64_t(a[rc.row][rc.col]);
    }
    for (int e = 0; e < mmaBElements(k, n); ++e) {
      RowCol rc = mmaB(type, k, l, e);
      b[rc.row][rc.col] = operand(type, reg(i.in[1], e, l));
      ib[rc.row][rc.col] = int64_t(b[rc.row][rc.col]);
    }
    for (int e = 0; e < 4; ++e) {
      RowCol rc = mmaC(l, e);
      uint64_t w = reg(i.in[2], e, l);
      if (isInt)
        ic[rc.row][rc.col] = signExtend(w, 32);
      else
        c[rc.row][rc.col] = floatValue(i.kind, w);
    }
  }
  for (int l = 0; l < 32; ++l)
    for (int e = 0; e < 4; ++e) {
      RowCol rc = mmaC(l, e);
      uint64_t w;
      if (isInt) {
        int64_t acc = ic[rc.row][rc.col];
        for (int kk = 0; kk < k; ++kk)
          acc += ia[rc.row][kk] * ib[kk][rc.col];
        w = uint64_t(acc) & 0xffffffffu; // s32 wraps (no .satfinite)
      } else {
        // Exact products; the sum in double, rounded once to the
        // accumulator type.
        double acc = c[rc.row][rc.col];
        for (int kk = 0; kk < k; ++kk)
          acc += a[rc.row][kk] * b[kk][rc.col];
        w = floatWord(i.kind, acc);
      }
      reg(i.out[0], e, l) = w;
    }
}

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

void Machine::execAsyncCopy(const Inst &i) {
  if (i.imm[0] < 0)
    return execAsyncCopyRaw(i);
  unsigned srcRank = i.imm[0], dstRank = i.imm[1];
  bool hasSrcElements = i.imm[2];
  unsigned eb = storageBytes(i.kind, i.bits);
  unsigned bytes = i.n * eb;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return fail(
        i, -1,
        llvm::formatv("cp.async copies 4, 8 or 16 bytes, not {0}", bytes));
  const uint32_t *srcIdx = &i.in[1];
  uint32_t dst = i.in[1 + srcRank];
  const uint32_t *dstIdx = &i.in[2 + srcRank];
  int64_t dstAddr[32] = {}, srcAddr[32] = {};
  uint32_t readers = 0;
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    int64_t srcElems =
        hasSrcElements ? int64_t(reg(i.in.back(), 0, l)) : int64_t(i.n);
    if (srcElems < 0 || srcElems > int64_t(i.n))
      return fail(i, l,
                  llvm::formatv("cp.async source size {0} exceeds the {1} "
                                "elements copied",
                                srcElems, i.n));
    const uint8_t *src = nullptr;
    if (srcElems > 0) {
      // A zero-size source is not read, so its address may be anything.
      Buffer *b;
      int64_t byte, stride;
      if (!resolve(i, l, srcRank, i.in[0], srcIdx, {srcElems}, eb, true, b,
                   byte, stride) ||
          !checkBytes(i, l, *b, byte, srcElems * eb, true))
        return;
      if (b->space != Space::Global)
        return fail(i, l, "cp.async reads global memory");
      src = b->data + byte;
      srcAddr[l] = int64_t(intptr_t(src));
      readers |= 1u << l;
    }
    Buffer *d;
    int64_t byte, stride;
    if (!resolve(i, l, dstRank, dst, dstIdx, {int64_t(i.n)}, eb, false, d, byte,
                 stride) ||
        !checkBytes(i, l, *d, byte, bytes, false))
      return;
    if (d->space != Space::Shared)
      return fail(i, l, "cp.async writes shared memory");
    if (byte % bytes)
      return fail(i, l,
                  llvm::formatv("cp.async destination (byte {0}) is not "
                                "aligned to its {1} bytes",
                                byte, bytes));
    dstAddr[l] = d->sharedBase + byte;
    queueCopy(i, l, *d, byte, src, bytes, unsigned(srcElems * eb));
  });
  if (failed)
    return;
  countShared(i, dstAddr, mask, bytes);
  if (readers)
    countGlobal(i, srcAddr, readers, bytes);
}

void Machine::completeCopies(std::vector<AsyncCopy> &copies) {
  for (const AsyncCopy &c : copies) {
    Buffer &b = buffers[c.dstBuffer];
    if (c.srcBytes)
      std::memcpy(b.data + c.dstByte, c.src, c.srcBytes);
    std::memset(b.data + c.dstByte + c.srcBytes, 0, c.bytes - c.srcBytes);
    for (unsigned k = 0; k < c.bytes; ++k)
      if (b.poison[c.dstByte + k]) {
        b.poison[c.dstByte + k] = 0;
        --b.pending;
      }
  }
  copies.clear();
}

void Machine::execAsyncGroup(const Inst &) {
  cur->groups.push_back(std::move(cur->uncommitted));
  cur->uncommitted.clear();
}

void Machine::execAsyncWait(const Inst &i) {
  size_t keep = size_t(i.imm[0]);
  while (cur->groups.size() > keep) {
    completeCopies(cur->groups.front());
    cur->groups.pop_front();
  }
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

std::optional<std::pair<uint32_t, int64_t>> Machine::mbarrierKey(const Inst &i,
                                                                 int lane) {
  if (i.imm.size() > 1 && i.imm[1] == 1) {
    // A raw shared address: the barrier is the 8 bytes there.
    Buffer *b;
    int64_t byte;
    unsigned space = i.imm.size() > 2 ? unsigned(i.imm[2]) : 3;
    if (!resolvePointer(i, lane, reg(i.in[0], 0, lane), 8, space, false, b,
                        byte, /*atomic=*/true))
      return std::nullopt;
    if (byte % 8) {
      fail(i, lane,
           llvm::formatv("mbarrier at byte {0}, not 8-byte aligned", byte));
      return std::nullopt;
    }
    return std::pair<uint32_t, int64_t>{uint32_t(b - buffers.data()), byte / 8};
  }
  uint64_t buffer = reg(i.in[0], 0, lane);
  int64_t index = int64_t(reg(i.in[1], 0, lane));
  int64_t count = buffer < buffers.size() ? buffers[buffer].hi / 8 : 0;
  if (index < 0 || index >= count) {
    fail(i, lane,
         llvm::formatv("mbarrier {0} of a group of {1}", index, count));
    return std::nullopt;
  }
  return std::pair<uint32_t, int64_t>{uint32_t(buffer), index};
}

MBarrierState *Machine::mbarrierOf(const Inst &i, int lane) {
  auto key = mbarrierKey(i, lane);
  return key ? &mbarriers[*key] : nullptr;
}

/// `count` arrivals of a thread; the phase completes when no arrival and
/// no transaction byte is pending.
void Machine::arrive(const Inst &i, int lane, MBarrierState &b, int64_t count,
                     bool mayComplete, bool remote) {
  if (!b.initialized)
    return fail(i, lane, "arrive on an mbarrier that was not initialized");
  if (cur)
    mergeObserved(b.arrivedKnowledge, cur->observed);
  b.pending -= count;
  if (b.pending < 0)
    return fail(i, lane,
                llvm::formatv("more arrivals on the mbarrier than its phase "
                              "expects ({0})",
                              b.expected));
  if (b.pending != 0 || b.tx != 0)
    return;
  if (!mayComplete)
    return fail(i, lane, "mbarrier.arrive.nocomplete completes the phase");
  completePhase(b, remote);
}

/// The phase completes: the next one expects the initial count again, and
/// the bytes TMA loads wrote for it become readable.
void Machine::completePhase(MBarrierState &b, bool remote) {
  ++b.phase;
  b.pending = b.expected;
  mergeObserved(b.completedKnowledge, b.arrivedKnowledge);
  b.arrivedKnowledge.clear();
  // Completing a phase orders the arrivers' accesses before the waiters':
  // the race detector treats it as a barrier (of the cluster when a remote
  // arrive completes it).
  if (remote)
    advanceClusterEpoch();
  else
    advanceEpoch();
  for (const auto &[buffer, byte, count] : b.tmaWrites) {
    Buffer &d = buffers[buffer];
    for (int64_t k = byte; k < byte + count; ++k)
      if (d.poison[k] == 2) {
        d.poison[k] = 0;
        --d.pending;
      }
  }
  b.tmaWrites.clear();
}

bool Machine::mbarrierReleased(const Warp &w) {
  auto it = mbarriers.find(w.waitsOn);
  return it != mbarriers.end() && (it->second.phase & 1) != w.waitParity;
}

void Machine::execMBarrier(const Inst &i, int32_t &pc) {
  auto op = MBarrierOp(i.sub);
  auto enabled = [&](int l) {
    return i.in.size() < 4 || (reg(i.in[3], 0, l) & 1);
  };
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    MBarrierState *b = mbarrierOf(i, l);
    if (!b)
      return;
    switch (op) {
    case MBarrierOp::Init: {
      if (!enabled(l))
        return;
      int64_t count = int64_t(reg(i.in[2], 0, l));
      if (count <= 0)
        return fail(i, l, llvm::formatv("mbarrier.init with count {0}", count));
      *b = MBarrierState{count, count, 0, 0, true};
      return;
    }
    case MBarrierOp::Arrive:
      // A remote (shared::cluster) arrive returns no state.
      if (!i.out.empty())
        reg(i.out[0], 0, l) = b->phase;
      return arrive(
          i, l, *b, 1, true,
          i.imm.size() > 2 && i.imm[2] == 7 &&
              decodeClusterAddress(reg(i.in[0], 0, l), curRank).rank !=
                  curRank);
    case MBarrierOp::ArriveNoComplete:
      reg(i.out[0], 0, l) = b->phase;
      return arrive(i, l, *b, int64_t(reg(i.in[2], 0, l)), false);
    case MBarrierOp::ArriveExpectTx:
      if (!enabled(l))
        return;
      b->tx += int64_t(reg(i.in[2], 0, l));
      return arrive(i, l, *b, 1, true);
    case MBarrierOp::ExpectTx:
      // More bytes for the phase under way, no arrival: it cannot complete
      // the phase.
      if (!b->initialized)
        return fail(i, l, "expect_tx on an mbarrier that was not initialized");
      b->tx += int64_t(reg(i.in[2], 0, l));
      return;
    case MBarrierOp::TestWait:
      reg(i.out[0], 0, l) = b->phase != reg(i.in[2], 0, l);
      return;
    case MBarrierOp::Get:
      reg(i.out[0], 0, l) = uint64_t(buffers[reg(i.in[0], 0, l)].sharedBase +
                                     8 * int64_t(reg(i.in[1], 0, l))) &
                            widthMask(i.bits);
      return;
    case MBarrierOp::TryWaitParity:
      return;
    }
  });
  if (failed || op != MBarrierOp::TryWaitParity || !mask)
    return;
  // The warp waits until the phase of the given parity has completed; all
  // its active lanes must wait on the same barrier and parity.
  int first = __builtin_ctz(mask);
  std::pair<uint32_t, int64_t> on = *mbarrierKey(i, first);
  uint64_t parity = reg(i.in[2], 0, first) & 1;
  bool same = true;
  forLanes(mask, [&](int l) {
    same &= mbarrierKey(i, l) == on && (reg(i.in[2], 0, l) & 1) == parity;
  });
  if (!same)
    return fail(i, -1,
                "the lanes of a warp wait on different mbarriers or "
                "parities");
  cur->waitsOn = on;
  cur->waitParity = parity;
  if (mbarrierReleased(*cur)) {
    // The phases before the current one have completed, and the waiter
    // learns what the warps that completed them had observed.
    const MBarrierState &b = mbarriers[on];
    mergeObserved(cur->observed, b.completedKnowledge);
    uint64_t &seen = cur->observed[mbarrierTag(on)];
    seen = std::max(seen, b.phase);
    return;
  }
  cur->state = Warp::AtMBarrier;
  --pc; // retried when woken
}

//===----------------------------------------------------------------------===//
// gpu.printf
//===----------------------------------------------------------------------===//

/// Formats one lane's line: each conversion of the format takes the next
/// argument, integers as 64-bit (signed for %d/%i), floats as double.
static std::string formatLane(StringRef format, ArrayRef<uint64_t> words,
                              ArrayRef<int64_t> kinds) {
  std::string out;
  size_t arg = 0;
  for (size_t at = 0; at < format.size(); ++at) {
    char c = format[at];
    if (c != '%') {
      out += c;
      continue;
    }
    size_t end = format.find_first_of("diouxXcfFeEgGaAsp%", at + 1);
    if (end == StringRef::npos) {
      out += format.substr(at).str();
      break;
    }
    char conv = format[end];
    // Flags and width, without length modifiers (we give our own).
    std::string spec = format.substr(at, end - at).str();
    llvm::erase_if(spec, [](char x) { return x == 'l' || x == 'h'; });
    at = end;
    if (conv == '%') {
      out += '%';
      continue;
    }
    if (arg >= words.size())
      break;
    Kind kind = Kind(kinds[2 * arg]);
    unsigned bits = kinds[2 * arg + 1];
    uint64_t w = words[arg++];
    char buffer[128];
    if (isFloat(kind))
      std::snprintf(buffer, sizeof(buffer), (spec + conv).c_str(),
                    floatValue(kind, w));
    else if (conv == 'd' || conv == 'i')
      std::snprintf(buffer, sizeof(buffer), (spec + "ll" + conv).c_str(),
                    (long long)signExtend(w, bits));
    else if (conv == 'c')
      std::snprintf(buffer, sizeof(buffer), (spec + conv).c_str(), int(w));
    else if (conv == 'f' || conv == 'e' || conv == 'g' || conv == 'E' ||
             conv == 'G' || conv == 'F' || conv == 'a' || conv == 'A')
      std::snprintf(buffer, sizeof(buffer), (spec + conv).c_str(),
                    double(signExtend(w, bits)));
    else
      std::snprintf(buffer, sizeof(buffer), (spec + "ll" + conv).c_str(),
                    (unsigned long long)w);
    out += buffer;
  }
  return out;
}

void Machine::execPrintf(const Inst &i) {
  StringRef format = program.formats[i.imm[0]];
  // Lanes print in lane order, after what the host printed before.
  forLanes(mask, [&](int l) {
    SmallVector<uint64_t> words;
    for (uint32_t base : i.in)
      words.push_back(reg(base, 0, l));
    std::string line = formatLane(format, words, i.imm2);
    std::fwrite(line.data(), 1, line.size(), stdout);
  });
}
