//===- BlackwellOps.cpp - sm_100 tcgen05 and tensor memory ----------------===//
//
// Each CTA has a tensor memory (TMEM) of 128 lanes x 512 columns of 32-bit
// cells. One warp allocates columns (tcgen05.alloc, all 32 lanes) and
// frees them (tcgen05.dealloc); a CTA that ends with columns allocated is
// an error, as CUDA requires the dealloc. tcgen05.mma is issued by single
// threads: D (in TMEM) = A * B (+ D), A and B read from shared memory
// through sm_100 descriptors, at issue; tcgen05.commit then arrives on an
// mbarrier. tcgen05.ld/st (.32x32b) move a warp's 32 TMEM lanes to and
// from registers; warp w may access lanes 32 (w mod 4) .. +31 only.
// tcgen05.cp (single threads, at issue) copies a shared-memory matrix
// that a descriptor describes into TMEM; tcgen05.shift moves 32 lanes of
// 8 columns down by one lane.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mlir;
using namespace axe::gpusim;

void Machine::execTcgen05(const Inst &i) {
  switch (Tcgen05Op(i.sub)) {
  case Tcgen05Op::Alloc:
    return execTcgen05Alloc(i);
  case Tcgen05Op::Dealloc:
    return execTcgen05Dealloc(i);
  case Tcgen05Op::Relinquish:
    if (!requireFullWarp(i))
      return;
    tmemRelinquished = true;
    return;
  case Tcgen05Op::Mma:
    return execTcgen05Mma(i);
  case Tcgen05Op::Commit:
    // Every earlier tcgen05.mma/cp/shift of the thread is complete (they
    // ran at issue): one arrival (mbarrier::arrive::one) on the mbarrier.
    forLanes(mask, [&](int l) {
      if (failed)
        return;
      if (MBarrierState *b = mbarrierOf(i, l))
        arrive(i, l, *b, 1, true);
    });
    return;
  case Tcgen05Op::Ld:
    return execTcgen05LdSt(i, true);
  case Tcgen05Op::St:
    return execTcgen05LdSt(i, false);
  case Tcgen05Op::Cp:
    return execTcgen05Cp(i);
  case Tcgen05Op::Shift:
    return execTcgen05Shift(i);
  }
}

/// The operand word of the warp's first lane; fails unless every active
/// lane gives the same (a .sync.aligned op's operands are warp-uniform).
static bool uniform(Machine &m, const Inst &i, uint32_t base, uint64_t bits,
                    const char *what, uint64_t &value) {
  int first = __builtin_ctz(m.mask);
  value = m.reg(base, 0, first) & bits;
  bool ok = true;
  forLanes(m.mask, [&](int l) {
    if (ok && (m.reg(base, 0, l) & bits) != value) {
      m.fail(i, l,
             llvm::formatv("the lanes of the warp give different {0} ({1:x} "
                           "here, {2:x} in lane {3})",
                           what, m.reg(base, 0, l) & bits, value, first));
      ok = false;
    }
  });
  return ok;
}

void Machine::execTcgen05Alloc(const Inst &i) {
  if (!requireFullWarp(i))
    return;
  uint64_t slot, ncols;
  if (!uniform(*this, i, i.in[0], 0xffffffffu, "tcgen05.alloc addresses",
               slot) ||
      !uniform(*this, i, i.in[1], 0xffffffffu, "tcgen05.alloc column counts",
               ncols))
    return;
  std::string bad = TmemAllocator::checkColumns(int64_t(int32_t(ncols)));
  if (!bad.empty())
    return fail(i, -1, "tcgen05.alloc of " + bad);
  if (tmemRelinquished)
    return fail(i, -1,
                "tcgen05.alloc after the CTA relinquished its permit to "
                "allocate (tcgen05.relinquish_alloc_permit)");
  int column = tmemAllocator.allocate(unsigned(ncols));
  if (column < 0)
    return fail(i, -1,
                llvm::formatv("tcgen05.alloc of {0} columns: {1} of the 512 "
                              "TMEM columns are allocated and no {0}-aligned "
                              "range of {0} is free (it would wait forever)",
                              ncols, tmemAllocator.allocatedColumns()));
  // The address goes to shared memory once (by the first lane: the write
  // is the warp's, not 32 racing threads').
  Buffer *b;
  int64_t byte;
  if (!resolvePointer(i, 0, slot, 4, 3, false, b, byte))
    return;
  if (byte % 4)
    return fail(i, 0,
                llvm::formatv("tcgen05.alloc writes the TMEM address to "
                              "shared byte {0} of {1}, not 4-byte aligned",
                              byte, b->name));
  if (tmem.empty())
    tmem.assign(size_t(kTmemLanes) * kTmemColumns, 0);
  uint32_t address = encodeTmemAddress(0, unsigned(column));
  std::memcpy(b->data + byte, &address, 4);
  tmemAllocSites[unsigned(column)] = {indexOf(i), cur->id};
}

void Machine::execTcgen05Dealloc(const Inst &i) {
  if (!requireFullWarp(i))
    return;
  uint64_t taddr, ncols;
  if (!uniform(*this, i, i.in[0], 0xffffffffu, "TMEM addresses", taddr) ||
      !uniform(*this, i, i.in[1], 0xffffffffu, "tcgen05.dealloc column counts",
               ncols))
    return;
  TmemAddress a = decodeTmemAddress(uint32_t(taddr));
  if (a.lane != 0 || !tmemAllocator.release(a.column, unsigned(ncols)))
    return fail(i, -1,
                llvm::formatv("tcgen05.dealloc of {0} columns at TMEM address "
                              "{1:x8} (lane {2}, column {3}), which is not an "
                              "allocation of the CTA",
                              ncols, taddr, a.lane, a.column));
  tmemAllocSites.erase(a.column);
}

/// Called when the CTA's warps have all exited: CUDA requires a kernel to
/// free the TMEM it allocated.
bool Machine::checkTmemReleased() {
  if (tmemAllocSites.empty())
    return true;
  auto [column, site] = *tmemAllocSites.begin();
  unsigned columns = 0;
  for (const TmemAllocator::Range &r : tmemAllocator.ranges())
    if (r.column == column)
      columns = r.columns;
  cur = &warps[site.second];
  fail(program.code[site.first], -1,
       llvm::formatv("the CTA exits with {0} TMEM column(s) still allocated: "
                     "{1} at TMEM address {2:x8} by this tcgen05.alloc, not "
                     "freed by tcgen05.dealloc",
                     tmemAllocator.allocatedColumns(), columns,
                     encodeTmemAddress(0, column)));
  return false;
}

void Machine::execTcgen05Mma(const Inst &i) {
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    uint32_t dAddress = uint32_t(reg(i.in[0], 0, l));
    uint64_t descA = reg(i.in[1], 0, l), descB = reg(i.in[2], 0, l);
    uint32_t idescWord = uint32_t(reg(i.in[3], 0, l));
    bool enableD = reg(i.in[4], 0, l) & 1;
    Tcgen05InstrDescriptor id = decodeTcgen05InstrDescriptor(idescWord);
    std::string bad = checkTcgen05InstrDescriptor(id);
    if (!bad.empty())
      return fail(i, l,
                  llvm::formatv("tcgen05.mma instruction descriptor {0:x8}: "
                                "{1}",
                                idescWord, bad));
    MatrixDescriptor da, db;
    for (auto [which, desc, out] :
         {std::tuple<const char *, uint64_t, MatrixDescriptor *>{"A", descA,
                                                                 &da},
          {"B", descB, &db}}) {
      bad = checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(desc), *out);
      if (!bad.empty())
        return fail(i, l,
                    llvm::formatv("tcgen05.mma shared-memory descriptor of {0} "
                                  "{1:x16}: {2}",
                                  which, desc, bad));
    }
    int m = id.m, n = id.n, k = 16;
    TmemAddress d = decodeTmemAddress(dAddress);
    if (d.lane != 0)
      return fail(i, l,
                  llvm::formatv("tcgen05.mma D at TMEM address {0:x8} has "
                                "lane {1}; an M = {2} accumulator starts at "
                                "lane 0",
                                dAddress, d.lane, m));
    if (!tmemAllocator.allocated(d.column, unsigned(n)))
      return fail(i, l,
                  llvm::formatv("tcgen05.mma D at TMEM address {0:x8} takes "
                                "columns {1} to {2}, outside the CTA's "
                                "allocated TMEM columns",
                                dAddress, d.column, d.column + n - 1));
    TensorInput kind = id.aType == 1 ? TensorInput::BF16 : TensorInput::F16;
    std::vector<double> a, b;
    if (!readSharedOperand(i, l, "tcgen05.mma", "A", da, descA, m, k, kind,
                           a) ||
        !readSharedOperand(i, l, "tcgen05.mma", "B", db, descB, n, k, kind, b))
      return;
    double scaleA = id.negateA ? -1.0 : 1.0, scaleB = id.negateB ? -1.0 : 1.0;
    for (int r = 0; r < m; ++r) {
      uint32_t *row =
          tmem.data() + size_t(tcgen05DLane(m, r)) * kTmemColumns + d.column;
      for (int c = 0; c < n; ++c) {
        // Exact products, summed in double, rounded once to f32.
        double acc = 0.0;
        if (enableD) {
          float old;
          std::memcpy(&old, &row[c], 4);
          acc = old;
        }
        for (int kk = 0; kk < k; ++kk)
          acc +=
              scaleA * a[size_t(r) * k + kk] * scaleB * b[size_t(c) * k + kk];
        float f = float(acc);
        std::memcpy(&row[c], &f, 4);
      }
    }
    SiteStats &s = stats.sites[indexOf(i)];
    ++s.bulkOps;
    s.bulkSharedBytes += uint64_t(m + n) * k * 2;
  });
}

void Machine::execTcgen05LdSt(const Inst &i, bool isLoad) {
  if (!requireFullWarp(i))
    return;
  uint64_t taddr;
  if (!uniform(*this, i, i.in[0], 0xffffffffu, "TMEM addresses", taddr))
    return;
  unsigned columns = i.n;
  std::string bad = checkTcgen05LdSt32x32b(cur->id, uint32_t(taddr), columns);
  if (!bad.empty())
    return fail(
        i, -1,
        llvm::formatv("tcgen05.{0}.32x32b: {1}", isLoad ? "ld" : "st", bad));
  TmemAddress a = decodeTmemAddress(uint32_t(taddr));
  if (!tmemAllocator.allocated(a.column, columns))
    return fail(i, -1,
                llvm::formatv("tcgen05.{0}.32x32b of columns {1} to {2} at "
                              "TMEM address {3:x8}: outside the CTA's "
                              "allocated TMEM columns",
                              isLoad ? "ld" : "st", a.column,
                              a.column + columns - 1, taddr));
  for (int l = 0; l < 32; ++l) {
    uint32_t *row = tmem.data() + size_t(a.lane + l) * kTmemColumns + a.column;
    for (unsigned r = 0; r < columns; ++r) {
      if (isLoad)
        reg(i.out[0], r, l) = row[r];
      else
        row[r] = uint32_t(reg(i.in[1], r, l));
    }
  }
}

void Machine::execTcgen05Cp(const Inst &i) {
  // imm: rows (TMEM lanes), bytes per row.
  Tcgen05CpShape shape{unsigned(i.imm[0]), unsigned(i.imm[1])};
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    uint32_t taddr = uint32_t(reg(i.in[0], 0, l));
    uint64_t desc = reg(i.in[1], 0, l);
    MatrixDescriptor d;
    std::string bad =
        checkTcgen05SmemDescriptor(decodeTcgen05SmemDescriptor(desc), d);
    if (!bad.empty())
      return fail(i, l,
                  llvm::formatv("tcgen05.cp.{0}x{1}b shared-memory descriptor "
                                "{2:x16}: {3}",
                                shape.rows, shape.bytes * 8, desc, bad));
    bad = checkTcgen05CpDestination(taddr, shape);
    if (!bad.empty())
      return fail(i, l,
                  llvm::formatv("tcgen05.cp.{0}x{1}b: {2}", shape.rows,
                                shape.bytes * 8, bad));
    TmemAddress t = decodeTmemAddress(taddr);
    if (!tmemAllocator.allocated(t.column, shape.words()))
      return fail(i, l,
                  llvm::formatv("tcgen05.cp.{0}x{1}b to TMEM address {2:x8} "
                                "writes columns {3} to {4}, outside the CTA's "
                                "allocated TMEM columns",
                                shape.rows, shape.bytes * 8, taddr, t.column,
                                t.column + shape.words() - 1));
    // Read the whole source first, then write TMEM.
    std::vector<uint32_t> words(size_t(shape.rows) * shape.words());
    for (unsigned r = 0; r < shape.rows; ++r)
      for (unsigned w = 0; w < shape.words(); ++w) {
        int64_t address = tcgen05CpSourceAddress(d, r, w);
        Buffer *buf = sharedBufferHolding(address, 4);
        if (!buf)
          return fail(
              i, l,
              llvm::formatv("tcgen05.cp.{0}x{1}b: bytes {2} to {3} of source "
                            "row {4} are at shared address {5}, outside every "
                            "shared buffer (descriptor {6:x16}: start {7}, "
                            "leading offset {8}, stride offset {9}, swizzle "
                            "{10})",
                            shape.rows, shape.bytes * 8, 4 * w, 4 * w + 3, r,
                            address, desc, d.start, d.leading, d.stride,
                            d.swizzle));
        int64_t byte = address - buf->sharedBase;
        if (!checkBytes(i, l, *buf, byte, 4, true))
          return;
        std::memcpy(&words[size_t(r) * shape.words() + w], buf->data + byte, 4);
      }
    for (unsigned r = 0; r < shape.rows; ++r)
      for (unsigned w = 0; w < shape.words(); ++w) {
        TmemAddress c = tcgen05CpDestination(taddr, r, w);
        tmem[size_t(c.lane) * kTmemColumns + c.column] =
            words[size_t(r) * shape.words() + w];
      }
    SiteStats &s = stats.sites[indexOf(i)];
    ++s.bulkOps;
    s.bulkSharedBytes += uint64_t(shape.rows) * shape.bytes;
  });
}

void Machine::execTcgen05Shift(const Inst &i) {
  forLanes(mask, [&](int l) {
    if (failed)
      return;
    uint32_t taddr = uint32_t(reg(i.in[0], 0, l));
    std::string bad = checkTcgen05Shift(taddr);
    if (!bad.empty())
      return fail(i, l, "tcgen05.shift: " + bad);
    TmemAddress t = decodeTmemAddress(taddr);
    if (!tmemAllocator.allocated(t.column, kTcgen05ShiftColumns))
      return fail(i, l,
                  llvm::formatv("tcgen05.shift at TMEM address {0:x8} moves "
                                "columns {1} to {2}, outside the CTA's "
                                "allocated TMEM columns",
                                taddr, t.column,
                                t.column + kTcgen05ShiftColumns - 1));
    // Row i to row i + 1 for i = 30 down to 0; row 0 keeps its contents.
    for (unsigned r = kTcgen05ShiftRows - 1; r > 0; --r) {
      uint32_t *to = tmem.data() + size_t(t.lane + r) * kTmemColumns + t.column;
      const uint32_t *from = to - kTmemColumns;
      std::memcpy(to, from, kTcgen05ShiftColumns * 4);
    }
  });
}
