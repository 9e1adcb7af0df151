//===- HopperOps.cpp - sm_90 TMA loads and wgmma --------------------------===//
//
// A TMA load (nvgpu.tma.async.load) is issued by each thread that executes
// it: it reads the tensor-map record its descriptor operand points to
// (which the host built), copies the box into shared memory at once, swizzled,
// poisons the bytes until its mbarrier's phase completes, and completes the
// box's bytes as transactions on the mbarrier.
//
// wgmma (nvvm.wgmma.mma_async) is a warpgroup collective: warps 4g..4g+3
// each arrive with all 32 lanes; the last to arrive computes D for the 128
// threads from the shared-memory matrix descriptors and the accumulator
// fragments, and releases the others. Results are available at once;
// commit/wait only keep count of the groups (a warp that returns with a
// group it did not wait for is an error).
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "axe/GPUSim/Hopper.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;
using namespace axe::gpusim;

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

void Machine::execTmaLoad(const Inst &i) {
  // in: group, barrier index, descriptor, destination, coordinates...,
  // [predicate]. imm: coordinates, 0, destination rank, has predicate,
  // swizzle, element bytes, float elements. imm2: the type's box,
  // innermost first.
  unsigned numCoords = unsigned(i.imm[0]);
  unsigned dstRank = unsigned(i.imm[2]);
  bool hasPredicate = i.imm[3];
  unsigned swizzle = unsigned(i.imm[4]);
  uint32_t eb = uint32_t(i.imm[5]);
  bool floatElements = i.imm[6];
  uint32_t dst = i.in[3];
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    if (hasPredicate && !(reg(i.in.back(), 0, l) & 1))
      return;
    uint64_t address = reg(i.in[2], 0, l);
    const TensorMap *m =
        options.tensorMaps ? options.tensorMaps->find(address) : nullptr;
    if (!m)
      return fail(i, l,
                  llvm::formatv("the tensor map descriptor {0:x} is not one "
                                "the host built (nvgpu.tma.create.descriptor)",
                                address));
    bool same =
        m->rank == numCoords && m->swizzle == swizzle && m->elementBytes == eb;
    for (unsigned d = 0; same && d < numCoords; ++d)
      same = int64_t(m->box[d]) == i.imm2[d];
    if (!same)
      return fail(i, l,
                  "the tensor map the host built does not match the "
                  "descriptor type here (rank, box, swizzle or element type)");
    if (m->interleave)
      return fail(i, l, "interleaved tensor maps are not modelled");
    if (m->swizzle && m->box[0] * m->elementBytes != m->swizzle)
      return fail(i, l,
                  llvm::formatv("a swizzled box whose inner dim spans {0} "
                                "bytes, not the {1}-byte swizzle span, is not "
                                "modelled",
                                m->box[0] * m->elementBytes, m->swizzle));
    int64_t coords[kTensorMapMaxRank];
    for (unsigned d = 0; d < numCoords; ++d)
      coords[d] = int64_t(reg(i.in[4 + d], 0, l));
    uint64_t id = reg(dst, 0, l);
    if (id >= buffers.size() || buffers[id].space != Space::Shared)
      return fail(i, l, "a TMA load writes shared memory");
    Buffer &b = buffers[id];
    int64_t byte = int64_t(reg(dst, 1, l)) * eb;
    int64_t bytes = boxBytes(*m);
    int64_t sharedAddress = b.sharedBase + byte;
    int64_t align = swizzleAlignment(m->swizzle);
    if (sharedAddress % align)
      return fail(i, l,
                  llvm::formatv("the TMA destination (shared address {0}, "
                                "byte {1} of {2}) is not {3}-byte aligned, as "
                                "{4} needs",
                                sharedAddress, byte, b.name, align,
                                m->swizzle ? llvm::formatv("the {0}-byte "
                                                           "swizzle",
                                                           m->swizzle)
                                                 .str()
                                           : std::string("a TMA copy")));
    (void)dstRank;
    MBarrierState *mb = mbarrierOf(i, l);
    if (!mb)
      return;
    if (!mb->initialized)
      return fail(i, l,
                  "a TMA load completes on an mbarrier that was not "
                  "initialized");
    if (!checkBytes(i, l, b, byte, bytes, false))
      return;
    auto ordered = [&](const uint8_t *src, int64_t n) {
      return checkTmaGlobalRead(i, l, src, n);
    };
    int64_t read = tmaLoadBox(
        *m, coords, b.data + byte, sharedAddress, floatElements,
        options.checkRaces
            ? llvm::function_ref<bool(const uint8_t *, int64_t)>(ordered)
            : nullptr);
    if (failed)
      return;
    // Readable once the phase completes.
    if (b.poison.empty())
      b.poison.assign(b.hi, 0);
    if (b.tmaFill.empty())
      b.tmaFill.assign(b.hi, 0);
    uint64_t fill = tmaFillTag(*mbarrierKey(i, l), mb->phase);
    for (int64_t k = byte; k < byte + bytes; ++k) {
      b.poison[k] = 2;
      ++b.pending;
      b.tmaFill[k] = fill;
    }
    mb->tmaWrites.push_back({int64_t(id), byte, bytes});
    SiteStats &s = stats.sites[indexOf(i)];
    ++s.bulkOps;
    s.bulkSharedBytes += bytes;
    s.bulkGlobalBytes += read;
    // complete_tx of the box's bytes (out-of-bound fill included).
    mb->tx -= bytes;
    if (mb->pending == 0 && mb->tx == 0)
      completePhase(*mb);
  });
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// Blocks the warp until its warpgroup's 4 warps have arrived; the last one
/// computes. False when the warp blocks (or fails).
bool Machine::execWgmma(const Inst &i, Warp &w, int32_t pc) {
  if (mask != 0xffffffffu || w.launched != 0xffffffffu) {
    fail(i, -1,
         llvm::formatv("wgmma is a .sync.aligned warpgroup collective: all 32 "
                       "lanes of each of the 4 warps must execute it, but "
                       "only lanes {0:x8} are active",
                       mask));
    return false;
  }
  unsigned group = w.id / 4;
  if (warps.size() < 4 * group + 4) {
    fail(i, -1,
         llvm::formatv("wgmma needs the 4 warps of warpgroup {0} (warps {1} "
                       "to {2}), but the CTA has {3} warps",
                       group, 4 * group, 4 * group + 3, warps.size()));
    return false;
  }
  int32_t at = int32_t(indexOf(i));
  w.state = Warp::AtWarpgroup;
  w.warpgroupAt = at;
  w.pc = pc;
  w.active = mask;
  for (unsigned k = 4 * group; k < 4 * group + 4; ++k) {
    const Warp &o = warps[k];
    if (o.state != Warp::AtWarpgroup)
      return false;
    if (o.warpgroupAt != at) {
      fail(i, -1,
           llvm::formatv("the warps of warpgroup {0} are at different wgmma "
                         "ops (warp {1} is at another one)",
                         group, k));
      return false;
    }
  }
  computeWgmma(i, group);
  for (unsigned k = 4 * group; k < 4 * group + 4; ++k) {
    warps[k].state = Warp::Ready;
    ++warps[k].wgmmaUncommitted;
  }
  // The other warps resume after the wgmma when the scheduler reaches them.
  cur = &w;
  regs = w.regs.data();
  return !failed;
}

Buffer *Machine::sharedBufferHolding(int64_t address, int64_t bytes) {
  // The running CTA's shared memory: in a cluster, its peers' buffers sit at
  // the same shared addresses.
  for (unsigned id : clusterShared[curRank]) {
    Buffer &x = buffers[id];
    if (address >= x.sharedBase + x.lo &&
        address + bytes <= x.sharedBase + x.hi)
      return &x;
  }
  return nullptr;
}

/// Reads `rows` x `k` elements of a K-major (or, with `mnMajor`, MN-major)
/// operand of `op` (wgmma, tcgen05.mma) from shared memory through its
/// descriptor, as doubles, row by row into `out`. False (after a diagnostic for
/// `lane`, -1: the warp) when an element lies outside every shared buffer or
/// its bytes are not readable.
bool Machine::readSharedOperand(const Inst &i, int lane, const char *op,
                                const char *which, const MatrixDescriptor &d,
                                uint64_t desc, int rows, int k,
                                TensorInput input, std::vector<double> &out,
                                bool mnMajor) {
  unsigned bytes = tensorInputBytes(input);
  out.assign(size_t(rows) * k, 0.0);
  for (int r = 0; r < rows; ++r)
    for (int kk = 0; kk < k; ++kk) {
      int64_t address = mnMajor ? wgmmaMNMajorAddress(d, r, kk, bytes)
                                : wgmmaKMajorAddress(d, r, kk, bytes);
      Buffer *buf = sharedBufferHolding(address, bytes);
      if (!buf) {
        fail(i, lane,
             llvm::formatv("element ({0}, {1}) of {2} operand {3} is at "
                           "shared address {4}, outside every shared buffer "
                           "(descriptor {5:x}: start {6}, leading offset {7}, "
                           "stride offset {8}, swizzle {9})",
                           r, kk, op, which, address, desc, d.start, d.leading,
                           d.stride, d.swizzle));
        return false;
      }
      int64_t byte = address - buf->sharedBase;
      if (!checkBytes(i, lane < 0 ? 0 : lane, *buf, byte, bytes, true))
        return false;
      uint16_t v = 0;
      std::memcpy(&v, buf->data + byte, bytes);
      out[size_t(r) * k + kk] = tensorInputValue(input, v);
    }
  return true;
}

void Machine::computeWgmma(const Inst &i, unsigned group) {
  // imm: m, n, k, A's input format, scale-d (0: zero), scale-a, scale-b
  // (-1 negates), B's input format, A MN-major, B MN-major.
  int m = int(i.imm[0]), n = int(i.imm[1]), k = int(i.imm[2]);
  auto inputA = TensorInput(i.imm[3]), inputB = TensorInput(i.imm[7]);
  bool useC = i.imm[4] != 0;
  double scaleA = double(i.imm[5]), scaleB = double(i.imm[6]);
  uint64_t descA = 0, descB = 0;
  for (unsigned w = 0; w < 4; ++w)
    for (int l = 0; l < 32; ++l) {
      const uint64_t *r = warps[4 * group + w].regs.data();
      uint64_t a = r[i.in[0] + l], b = r[i.in[1] + l];
      if (w == 0 && l == 0) {
        descA = a;
        descB = b;
      } else if (a != descA || b != descB) {
        cur = &warps[4 * group + w];
        return fail(i, l,
                    llvm::formatv("the threads of warpgroup {0} give different "
                                  "wgmma descriptors ({1:x} and {2:x} here, "
                                  "{3:x} and {4:x} in thread 0 of the "
                                  "warpgroup)",
                                  group, a, b, descA, descB));
      }
    }
  MatrixDescriptor da = decodeMatrixDescriptor(descA),
                   db = decodeMatrixDescriptor(descB);
  if (da.baseOffset || db.baseOffset)
    return fail(i, -1, "wgmma descriptors with a base offset are not modelled");
  // Operands, K- or MN-major, from shared memory.
  std::vector<double> a, b;
  if (!readSharedOperand(i, -1, "wgmma", "A", da, descA, m, k, inputA, a,
                         i.imm[8] != 0) ||
      !readSharedOperand(i, -1, "wgmma", "B", db, descB, n, k, inputB, b,
                         i.imm[9] != 0))
    return;
  if (failed)
    return;
  SiteStats &s = stats.sites[indexOf(i)];
  ++s.bulkOps;
  s.bulkSharedBytes += uint64_t(m + n) * k * tensorInputBytes(inputA);
  int regsPerThread = n / 2;
  std::vector<double> c(size_t(m) * n, 0.0);
  for (unsigned w = 0; w < 4; ++w)
    for (int l = 0; l < 32; ++l)
      for (int e = 0; e < regsPerThread; ++e) {
        RowCol rc = wgmmaAccumulator(32 * w + l, e);
        c[size_t(rc.row) * n + rc.col] =
            floatValue(i.kind, warps[4 * group + w].regs[i.in[2] + e * 32 + l]);
      }
  for (unsigned w = 0; w < 4; ++w)
    for (int l = 0; l < 32; ++l)
      for (int e = 0; e < regsPerThread; ++e) {
        RowCol rc = wgmmaAccumulator(32 * w + l, e);
        // Exact products, summed in double, rounded once.
        double acc = useC ? c[size_t(rc.row) * n + rc.col] : 0.0;
        for (int kk = 0; kk < k; ++kk)
          acc += scaleA * a[size_t(rc.row) * k + kk] * scaleB *
                 b[size_t(rc.col) * k + kk];
        warps[4 * group + w].regs[i.out[0] + e * 32 + l] =
            floatWord(i.kind, acc);
      }
}

void Machine::execWgmmaGroup(const Inst &i) {
  if (!requireFullWarp(i))
    return;
  if (i.opc == Opc::WgmmaCommit) {
    cur->wgmmaUncommitted = 0;
    ++cur->wgmmaGroups;
    return;
  }
  int64_t keep = i.imm[0];
  if (cur->wgmmaGroups > keep)
    cur->wgmmaGroups = keep;
}
